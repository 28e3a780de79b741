# vcov() of factor mixtures (`components = G` with `factors = r`, issue
# 15), against independent references: the central-difference Hessian of
# the plain-R mixture log-likelihood from dgh() with Sigma_k = F_k F_k' +
# diag(D_k), and the full-Sigma mixture's vcov() where the two models are
# the same (d = 1, r = 0: Sigma = D).

# Two NIG factor members (r = 1) in d = 3, well separated.
fmv_sim <- function(n, seed) {
  set.seed(seed)
  lab <- rep(1:2, c(round(0.6 * n), n - round(0.6 * n)))
  f <- cbind(c(1, 0.8, 0.5), c(0.5, -0.7, 1))
  mu <- cbind(c(0, 0, 0), c(4, 3, -3))
  gam <- cbind(c(0.3, 0, -0.2), c(0, 0.4, 0.2))
  y <- rgig(n, -0.5, 1, 1)
  x <- t(vapply(seq_len(n), function(i) {
    k <- lab[i]
    mu[, k] + y[i] * gam[, k] +
      sqrt(y[i]) * (f[, k] * stats::rnorm(1) + 0.6 * stats::rnorm(3))
  }, numeric(3)))
  colnames(x) <- paste0("v", 1:3)
  x
}

# The mixture log-likelihood at psi: per component (mu, gamma, F, D, a)
# with b = a (E[Y] = 1 for NIG, the "mean" gauge, so the scaling orbit is
# fixed by the parametrisation; with r = 1 there is no rotation), then
# log(pi_2 / pi_1).
fmv_loglik <- function(psi, x) {
  d <- ncol(x)
  size <- 4L * d + 1L
  dens <- vapply(1:2, function(k) {
    th <- psi[(k - 1L) * size + seq_len(size)]
    f <- th[2L * d + seq_len(d)]
    sigma <- tcrossprod(f) + diag(th[3L * d + seq_len(d)])
    a <- th[[size]]
    dgh(x, th[seq_len(d)], th[d + seq_len(d)], sigma, -0.5, a, a, log = TRUE)
  }, numeric(nrow(x)))
  lp <- log(c(1, exp(psi[[2L * size + 1L]])))
  lp <- lp - log(sum(exp(lp)))
  top <- pmax(dens[, 1L] + lp[1L], dens[, 2L] + lp[2L])
  sum(top + log(exp(dens[, 1L] + lp[1L] - top) + exp(dens[, 2L] + lp[2L] -
                                                       top)))
}

# Central second differences of fun at psi with steps h.
fmv_hessian <- function(fun, psi, h) {
  k <- length(psi)
  at <- function(i, si, j, sj) {
    p <- psi
    p[i] <- p[i] + si * h[i]
    p[j] <- p[j] + sj * h[j]
    fun(p)
  }
  out <- matrix(0, k, k)
  for (i in seq_len(k)) {
    for (j in seq_len(i)) {
      out[i, j] <- (at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) +
                      at(i, -1, j, -1)) / (4 * h[i] * h[j])
      out[j, i] <- out[i, j]
    }
  }
  out
}

test_that("vcov() of a factor mixture is the inverse Hessian of dgh()'s", {
  x <- fmv_sim(300, 3)
  fit <- fit_nig(x, components = 2, factors = 1,
                 control = ghmix_control(tol = 1e-13, max_iter = 5000))
  expect_true(fit$converged)
  pars <- fit$components
  for (par in pars) expect_equal(par$a, par$b, tolerance = 1e-10)
  psi <- c(unlist(lapply(pars, function(par) {
    c(par$mu, par$gamma, par$loadings, par$uniquenesses, par$a)
  })), log(fit$proportions[2] / fit$proportions[1]))
  h <- 3e-4 * pmax(abs(psi), 0.1)
  info <- -fmv_hessian(function(p) fmv_loglik(p, x), unname(psi), h)
  cov_psi <- solve(info)
  # psi -> (mu, gamma, F, D, a, b = a) per component, then the proportions
  size <- 13L
  jac <- matrix(0, 2L * 14L + 2L, 2L * size + 1L)
  for (k in 1:2) {
    rows <- (k - 1L) * 14L
    cols <- (k - 1L) * size
    jac[rows + 1:13, cols + 1:13] <- diag(13)
    jac[rows + 14L, cols + 13L] <- 1
  }
  pp <- prod(fit$proportions)
  jac[29:30, 27L] <- c(-pp, pp)
  ref <- jac %*% cov_psi %*% t(jac)
  v <- vcov(fit)
  expect_identical(dim(v), c(30L, 30L))
  expect_identical(rownames(v)[c(1L, 7L, 10L, 13L, 14L, 29L)],
                   c("component_1:mu[v1]", "component_1:F[v1,F1]",
                     "component_1:D[v1]", "component_1:a", "component_1:b",
                     "proportion[1]"))
  se <- sqrt(diag(ref))
  expect_equal(unname(v) / tcrossprod(se), ref / tcrossprod(se),
               tolerance = 1e-4)
  expect_equal(unname(sqrt(diag(v))), se, tolerance = 1e-4)
  # symmetric, positive semi-definite, of rank df
  expect_identical(v, t(v))
  ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
  expect_gt(min(ev), -1e-10 * ev[1])
  expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df))
  # summary(): the estimates of coef() with these standard errors
  s <- summary(fit)
  expect_true(s$has_se)
  for (k in 1:2) {
    tab <- s$coefficients[[k]]
    at <- (k - 1L) * 14L + seq_len(14L)
    expect_identical(paste0("component_", k, ":", rownames(tab)),
                     rownames(v)[at])
    expect_equal(unname(tab[, "Std. Error"]), unname(sqrt(diag(v))[at]))
    cf <- coef(fit, component = k)
    expect_equal(unname(tab[, "Estimate"]),
                 unname(c(cf$mu, cf$gamma, cf$loadings, cf$uniquenesses,
                          cf$a, cf$b)))
  }
  expect_equal(s$proportions_se, unname(sqrt(diag(v))[29:30]))
  expect_output(print(s), "Std. Error")
})

test_that("vcov() of a factor mixture with r = 2: the rotations removed", {
  # d = 5: (d - r)^2 >= d + r, so that F F' + D is identified (Ledermann)
  set.seed(7)
  f <- list(matrix(c(1, 0.8, 0.5, 0, 0.4, 0.2, -0.6, 0.7, 1, 0), 5, 2),
            matrix(c(0.5, -0.7, 1, 0.3, 0, 0.9, 0.4, 0, -0.5, 0.6), 5, 2))
  x <- do.call(rbind, lapply(1:2, function(k) {
    rgh(300, c(0, 5)[k] * c(1, 1, -1, 0, 1), rep(0.2, 5),
        factor_cov(f[[k]], rep(0.3, 5)), -0.5, 1, 1)
  }))
  colnames(x) <- paste0("v", 1:5)
  fit <- fit_nig(x, components = 2, factors = 2,
                 control = ghmix_control(tol = 1e-12, max_iter = 5000))
  expect_true(fit$converged)
  v <- vcov(fit)
  expect_identical(dim(v), c(2L * 27L + 2L, 2L * 27L + 2L))
  ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
  expect_gt(min(ev), -1e-10 * ev[1])
  # 27 parameters per component less its gauge and its one rotation, and
  # G - 1 proportions: df = 2 x 25 + 1
  expect_identical(as.integer(fit$df), 51L)
  expect_identical(sum(ev > 1e-9 * ev[1]), 51L)
})

test_that("vcov() of a factor mixture with r = 0, d = 1 is the full one's", {
  set.seed(11)
  x <- cbind(v1 = c(rgh(250, -2, 0.3, 0.5, -0.5, 1, 1),
                    rgh(150, 3, -0.2, 1, -0.5, 1, 1)))
  fit <- fit_nig(x, components = 2, factors = 0,
                 control = ghmix_control(tol = 1e-12, max_iter = 5000))
  expect_true(fit$converged)
  v <- vcov(fit)
  # the same parameters as a full-Sigma mixture (Sigma = D)
  full <- fit
  full$factors <- NULL
  full$components <- lapply(fit$components, function(par) {
    par$sigma <- matrix(par$uniquenesses, 1, 1, dimnames = list("v1", "v1"))
    par[setdiff(names(par), c("loadings", "uniquenesses"))]
  })
  vf <- vcov(full)
  expect_identical(
    sub("D[v1]", "Sigma[v1,v1]", rownames(v), fixed = TRUE), rownames(vf)
  )
  expect_equal(unname(v), unname(vf), tolerance = 1e-6)
  ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
  expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df))
})

test_that("vcov() of factor mixtures: not positive definite, too large", {
  x <- fmv_sim(200, 5)
  fit <- fit_nig(x, components = 2, factors = 1)
  # F_1 = 0: a stationary point (F_1 -> -F_1) that is not a maximum
  bad <- fit
  bad$components[[1L]]$loadings[] <- 0
  expect_warning(v <- vcov(bad), "not positive definite",
                 class = "ghmix_warning_vcov")
  expect_true(all(is.na(v)))
  expect_identical(dim(v), c(30L, 30L))
  expect_warning(s <- summary(bad), class = "ghmix_warning_vcov")
  expect_false(s$has_se)
  # more than factor_vcov_max_k parameters: refused, summary() without SEs
  big <- fit
  vars <- sprintf("v%d", seq_len(1000))
  big$data <- matrix(0, 2, 1000, dimnames = list(NULL, vars))
  big$components <- lapply(fit$components, function(par) {
    par[c("mu", "gamma", "uniquenesses")] <-
      list(stats::setNames(rep(0, 1000), vars))
    par$loadings <- matrix(0, 1000, 1, dimnames = list(vars, NULL))
    par
  })
  expect_error(vcov(big), class = "ghmix_error_factor_mode", regexp = "5000")
  s <- summary(big)
  expect_false(s$has_se)
  expect_output(print(s), "at most 5000 parameters")
})

# The rows of fmv_sim() as three chunks, with weights w (NULL: none).
fmv_chunks <- function(x, w = NULL) {
  idx <- split(seq_len(nrow(x)), rep(1:3, length.out = nrow(x)))
  ghmix_data(unname(lapply(idx, function(i) {
    if (is.null(w)) x[i, ] else list(x = x[i, ], weights = w[i])
  })))
}

# A fit's vcov() at its parameters with its rows (and weights) in memory:
# the same parameters, E-steps over the matrix.
fmv_in_memory <- function(fit, x, w = NULL) {
  fit$data <- x
  fit$weights <- if (is.null(w)) rep(1, nrow(x)) else w
  vcov(fit)
}

# a and b relative to the standard errors of ref
fmv_expect_same_vcov <- function(v, ref, tol = 1e-8) {
  se <- sqrt(diag(ref))
  expect_identical(dimnames(v), dimnames(ref))
  expect_lte(max(abs(v - ref) / tcrossprod(se)), tol)
}

test_that("vcov() of a chunked factor mixture is that of its rows", {
  x <- fmv_sim(300, 3)
  tight <- ghmix_control(tol = 1e-13, max_iter = 5000)
  fit <- fit_nig(fmv_chunks(x), components = 2, factors = 1, control = tight)
  expect_true(fit$converged)
  expect_s3_class(fit$data, "ghmix_data")
  v <- vcov(fit)
  fmv_expect_same_vcov(v, fmv_in_memory(fit, x))
  ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
  expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df))
  # weights that come with the chunks: those of the rows in memory, and
  # close to the in-memory weighted fit's (its maximum agrees to ~1e-6)
  w <- rep(c(1, 2, 0.5), length.out = nrow(x))
  fit_w <- fit_nig(fmv_chunks(x, w), components = 2, factors = 1,
                   control = tight)
  expect_true(fit_w$converged)
  v_w <- vcov(fit_w)
  fmv_expect_same_vcov(v_w, fmv_in_memory(fit_w, x, w))
  ref_w <- fit_nig(x, components = 2, factors = 1, weights = w,
                   control = tight)
  fmv_expect_same_vcov(v_w, vcov(ref_w), tol = 1e-3)
  expect_true(summary(fit_w)$has_se)
})

test_that("vcov() of a factor mixture on a PSOCK cluster", {
  skip_on_cran()
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster starts here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  x <- fmv_sim(300, 3)
  tight <- ghmix_control(tol = 1e-13, max_iter = 5000)
  fit <- fit_nig(x, components = 2, factors = 1, control = tight)
  fmv_expect_same_vcov(vcov(fit, cluster = cl), vcov(fit))
  w <- rep(c(1, 3), length.out = nrow(x))
  fit_ch <- fit_nig(fmv_chunks(x, w), components = 2, factors = 1,
                    control = tight)
  expect_true(fit_ch$converged)
  fmv_expect_same_vcov(vcov(fit_ch, cluster = cl),
                       fmv_in_memory(fit_ch, x, w))
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  fmv_expect_same_vcov(vcov(fit, cluster = "future"), vcov(fit))
})
