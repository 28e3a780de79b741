# vcov() of factor-analytic fits (`factors = r`, issue 15), against an
# independent reference: the central-difference Hessian of the plain-R
# log-likelihood sum(dgh(x, sigma = F F' + diag(D), log = TRUE)) in an
# unconstrained parametrisation (F lower triangular, b held), mapped to
# the reported parameters (F' D^-1 F diagonal and decreasing, signs, the
# gauge) by the delta method.

# The reported form of (mu, gamma, F, D, p, a, b), in plain R: F rotated to
# F' D^-1 F diagonal (decreasing), each column's largest entry positive,
# then (Y -> s Y) to E[Y] = 1 (the "mean" gauge).
fvcov_report <- function(par, free) {
  f <- par$f
  if (ncol(f) > 0L) {
    f <- f %*% eigen(crossprod(f, f / par$dd), symmetric = TRUE)$vectors
    top <- apply(f, 2L, function(v) v[which.max(abs(v))])
    f <- f %*% diag(sign(top), ncol(f))
  }
  s <- 1 / gig_mean(par$p, par$a, par$b)
  mix <- c(p = par$p, a = par$a / s, b = par$b * s)
  c(par$mu, par$gamma / s, f / sqrt(s), par$dd / s, mix[free])
}

# psi: mu, gamma, the lower triangle of F (F[j, k], j >= k), D, and the free
# mixing parameters but b, which stays at the fitted value.
fvcov_psi <- function(fit) {
  par <- fit$parameters
  f <- par$loadings
  r <- ncol(f)
  if (r == 2L) {
    rho <- sqrt(f[1, 1]^2 + f[1, 2]^2)
    rot <- matrix(c(f[1, 1], f[1, 2], -f[1, 2], f[1, 1]) / rho, 2L, 2L)
    f <- f %*% rot
  }
  low <- lower.tri(f, diag = TRUE)
  free <- setdiff(if (fit$family == "nig") c("a", "b") else c("p", "a", "b"),
                  "b")
  list(
    psi = c(par$mu, par$gamma, f[low], par$uniquenesses,
            unlist(par[free])),
    low = low, free = free, par = par
  )
}

fvcov_unpsi <- function(psi, ref) {
  d <- length(ref$par$mu)
  take <- function(k) {
    out <- psi[seq_len(k)]
    psi <<- psi[k + seq_len(length(psi) - k)]
    out
  }
  f <- 0 * ref$par$loadings
  out <- list(mu = take(d), gamma = take(d))
  f[ref$low] <- take(sum(ref$low))
  out$f <- f
  out$dd <- take(d)
  mix <- ref$par[c("p", "a", "b")]
  mix[ref$free] <- as.list(psi)
  c(out, mix)
}

fvcov_reference <- function(fit, hrel = 1e-3) {
  x <- fit$data
  ref <- fvcov_psi(fit)
  psi <- ref$psi
  k <- length(psi)
  sd_x <- sqrt(diag(stats::cov(x)))
  d <- ncol(x)
  scale <- c(sd_x, sd_x, sd_x[row(ref$low)[ref$low]],
             ref$par$uniquenesses, abs(unlist(ref$par[ref$free])))
  ll <- function(p) fvcov_loglik(x, fvcov_unpsi(p, ref))
  h <- hrel * scale
  hess <- fvcov_hessian(ll, psi, h)
  free_out <- if (fit$family == "nig") c("a", "b") else c("p", "a", "b")
  report <- function(p) fvcov_report(fvcov_unpsi(p, ref), free_out)
  jac <- vapply(seq_len(k), function(i) {
    up <- psi
    dn <- psi
    up[i] <- up[i] + h[i] / 10
    dn[i] <- dn[i] - h[i] / 10
    (report(up) - report(dn)) / (2 * h[i] / 10)
  }, numeric(length(report(psi))))
  jac %*% solve(-hess, t(jac))
}

test_that("vcov() of factor fits equals the constrained reference (d = 5)", {
  ctl <- ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 5000L)
  for (family in c("nig", "gh")) {
    fitter <- if (family == "nig") fit_nig else fit_gh
    for (r in 1:2) {
      x <- fvcov_sim(500, 5, r, family, 10 + r)
      fit <- fitter(x, factors = r, control = ctl)
      expect_true(fit$converged)
      v <- vcov(fit)
      k <- as.integer(3 * 5 + 5 * r + if (family == "nig") 2 else 3)
      expect_identical(dim(v), c(k, k))
      expect_identical(rownames(v)[c(1, 6, 11, 15 + 5 * r, k)],
                       c("mu[v1]", "gamma[v1]", "F[v1,F1]", "D[v5]", "b"))
      ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
      expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df))
      ref <- fvcov_reference(fit)
      # the (p, a, b) block of the GH is ill-conditioned (condition about
      # 3500 at r = 2): 5e-4 is the worst relative difference seen
      expect_equal(unname(sqrt(diag(v))), unname(sqrt(diag(ref))),
                   tolerance = 2e-3, label = paste(family, r))
      expect_lt(max(abs(cov2cor(v) - cov2cor(ref))), 1e-3)
    }
  }
})

test_that("vcov() of factor fits: every family, symmetric, weights", {
  x <- fvcov_sim(400, 4, 1, "nig", 21)
  fits <- list(fit_vg(x, factors = 1), fit_skewt(x, factors = 1),
               fit_student(x, factors = 1), fit_nig(x, factors = 0))
  for (fit in fits) {
    v <- vcov(fit)
    expect_identical(nrow(v),
                     4L * (3L - fit$symmetric + fit$factors) + 2L)
    ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
    expect_gt(min(ev), -1e-10 * ev[1])
    expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df))
  }
  s <- summary(fits[[3]])$coefficients
  expect_identical(rownames(s), rownames(vcov(fits[[3]])))
  expect_true(all(s[, "Std. Error"] > 0))
  # weights are replicated rows
  w <- rep(c(1, 2, 0), length.out = nrow(x))
  ctl <- ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 5000L)
  vw <- vcov(fit_nig(x, factors = 1, weights = w, control = ctl))
  vr <- vcov(fit_nig(x[rep(seq_len(nrow(x)), w), ], factors = 1,
                     control = ctl))
  expect_equal(vw, vr, tolerance = 1e-5)
})

test_that("vcov() of factor fits: not positive definite, too large", {
  x <- fvcov_sim(400, 4, 1, "nig", 22)
  fit <- fit_nig(x, factors = 1)
  # F = 0: a stationary point (F -> -F) that is not a maximum
  fit$parameters$loadings[] <- 0
  expect_warning(v <- vcov(fit), class = "ghmix_warning_vcov")
  expect_true(all(is.na(v)))
  expect_identical(dim(v), c(18L, 18L))
  # k = 3 d + d r + 2 > 5000 is refused before any E-step
  big <- fit
  vars <- sprintf("v%d", seq_len(1000))
  big$parameters[c("mu", "gamma", "uniquenesses")] <-
    list(stats::setNames(rep(0, 1000), vars))
  big$parameters$loadings <- matrix(0, 1000, 3, dimnames = list(vars, NULL))
  expect_error(vcov(big), class = "ghmix_error_factor_mode",
               regexp = "5000")
  se <- ghmix:::factor_summary_coefs(big)[, "Std. Error"]
  expect_true(all(is.na(se)))
  expect_length(se, 6002L)
})

# vcov(cluster = ): the E-steps on the workers, their sums in chunk order;
# the in-memory vcov() up to the rounding of the sums' order (relative to
# the standard errors; GH's information, nearly flat in p, amplifies it to
# ~4e-9 at d = 5, r = 2).
fvcov_same <- function(v, v0, tol = 1e-10) {
  se <- sqrt(diag(v0))
  expect_identical(dimnames(v), dimnames(v0))
  expect_lt(max(abs(v - v0) / tcrossprod(se)), tol)
}

test_that("vcov(cluster = ) of a factor fit on a PSOCK cluster", {
  skip_on_cran()
  skip_on_os("windows")
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster can start here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  ctl <- ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 5000L)
  fit <- fit_gh(fvcov_sim(500, 5, 2, "gh", 12), factors = 2, control = ctl)
  fvcov_same(vcov(fit, cluster = cl), vcov(fit), tol = 1e-8)
  # weighted rows travel with their chunks (rows without their weights
  # would be off by percents; the order of the sums moves this one by
  # 6e-11 here and by 1.4e-10 in CI's OpenBLAS leg, beside the other lane)
  x <- fvcov_sim(400, 4, 1, "nig", 21)
  w <- rep(c(1, 2, 0.5), length.out = nrow(x))
  fw <- fit_nig(x, factors = 1, weights = w, control = ctl)
  fvcov_same(vcov(fw, cluster = cl), vcov(fw), tol = 1e-9)
})

test_that("vcov(cluster = \"future\") of a factor fit", {
  skip_on_cran()
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  x <- fvcov_sim(400, 4, 1, "nig", 32)
  fit <- fit_nig(x, factors = 1)
  fvcov_same(vcov(fit, cluster = "future"), vcov(fit))
  # a fit of chunked data, its chunks read by the futures
  ch <- fit_nig(ghmix_data(list(x[1:150, ], x[151:400, ])), factors = 1)
  fvcov_same(vcov(ch, cluster = "future"), vcov(ch))
})
