# Mixtures of factor-analytic GH members (`components` with `factors`).

# log K_nu(z) by base R's besselK(); as z -> 0 (b = 0 or a = 0) the
# small-argument form K_nu(z) ~ Gamma(|nu|) / 2 (2 / z)^|nu| (DLMF 10.30.2)
# enters through the limits written out in fmix_ref_logpdf().
fmix_log_k <- function(z, nu) log(besselK(z, nu, expon.scaled = TRUE)) - z

# The GH log density of the rows x (n x d) with a dense Sigma, from the
# normal mean-variance mixture's closed form (McNeil, Frey and Embrechts
# 2015, section 6.2.3): with Q = (x - mu)' Sigma^-1 (x - mu), B = (x -
# mu)' Sigma^-1 gamma, A = a + gamma' Sigma^-1 gamma, q = p - d / 2,
#   log f = (p/2) log(a/b) - log K_p(sqrt(a b)) - (d/2) log(2 pi)
#           - (1/2) log det Sigma + B + (q/2) log((b + Q) / A)
#           + log K_q(sqrt(A (b + Q))),
# the first two terms for b = 0 (VG) p log a + (1 - p) log 2 - lgamma(p),
# for a = 0 (skew-t) -p log b + (1 + p) log 2 - lgamma(-p).
fmix_ref_logpdf <- function(x, par) {
  d <- ncol(x)
  sigma <- tcrossprod(par$loadings) + diag(par$uniquenesses, d)
  si <- solve(sigma)
  u <- sweep(x, 2L, par$mu)
  q_form <- rowSums((u %*% si) * u)
  b_form <- drop(u %*% si %*% par$gamma)
  a_form <- par$a + drop(crossprod(par$gamma, si %*% par$gamma))
  p <- par$p
  lc <- if (par$b == 0) {
    p * log(par$a) + (1 - p) * log(2) - lgamma(p)
  } else if (par$a == 0) {
    -p * log(par$b) + (1 + p) * log(2) - lgamma(-p)
  } else {
    (p / 2) * (log(par$a) - log(par$b)) - fmix_log_k(sqrt(par$a * par$b), p)
  }
  q <- p - d / 2
  lc - (d / 2) * log(2 * pi) -
    0.5 * as.numeric(determinant(sigma)$modulus) + b_form +
    (q / 2) * (log(par$b + q_form) - log(a_form)) +
    fmix_log_k(sqrt(a_form * (par$b + q_form)), q)
}

# The mixture log density of each row: log-sum-exp over the components.
fmix_ref_rows <- function(x, fit) {
  lf <- vapply(seq_len(fit$G), function(k) {
    log(fit$proportions[[k]]) + fmix_ref_logpdf(x, fit$components[[k]])
  }, numeric(nrow(x)))
  top <- apply(lf, 1L, max)
  top + log(rowSums(exp(lf - top)))
}

# G factor-GH clusters in d dimensions with r factors each, separated
# means, known labels.
fmix_sim <- function(n, d, r, g, seed, shift = 6) {
  set.seed(seed)
  comps <- lapply(seq_len(g), function(k) {
    list(mu = c(shift * (k - 1), rep(0, d - 1)) + stats::rnorm(d) * 0.3,
         gamma = stats::rnorm(d) * 0.2,
         loadings = matrix(stats::rnorm(d * r), d, r),
         uniquenesses = stats::runif(d, 0.3, 1), p = -0.5, a = 1.5, b = 1.5)
  })
  lab <- sample(g, n, replace = TRUE)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in seq_len(g)) {
    i <- which(lab == k)
    ck <- comps[[k]]
    x[i, ] <- rgh(length(i), ck$mu, ck$gamma,
                  factor_cov(ck$loadings, ck$uniquenesses), ck$p, ck$a, ck$b)
  }
  list(x = x, labels = lab,
       truth = list(G = g, components = comps,
                    proportions = as.vector(table(lab)) / n))
}

# expr with its warnings of non-convergence muffled (the fits of a number
# of components that does not fit the data, stopped early by max_iter).
fmix_quiet <- function(expr) {
  withCallingHandlers(expr, ghmix_warning_convergence = function(w) {
    invokeRestart("muffleWarning")
  })
}

# The EM's log-likelihood never decreases (but where a degenerate
# component is dropped: a step of kind "drop").
fmix_monotone <- function(fit) {
  ll <- fit$trace$loglik
  up <- diff(ll) >= -1e-9 * abs(ll[-1])
  all(up | fit$trace$step[-1] == "drop")
}

test_that("factor mixtures: the log-likelihood is the base-R density's", {
  sim <- fmix_sim(800, 8, 2, 2, 11)
  fitters <- list(nig = fit_nig, gh = fit_gh, vg = fit_vg, skewt = fit_skewt)
  for (family in names(fitters)) {
    set.seed(1)
    fit <- fitters[[family]](sim$x, components = 2, factors = 2, nstart = 1)
    expect_s3_class(fit, "ghmix_mixture")
    expect_identical(fit$factors, 2L)
    expect_identical(fit$G, 2L)
    ref <- fmix_ref_rows(sim$x, fit)
    expect_equal(fit$loglik, sum(ref), tolerance = 1e-10)
    expect_equal(unname(predict(fit, sim$x, type = "density")), exp(ref),
                 tolerance = 1e-10)
    expect_true(fmix_monotone(fit))
    # df: each member's factor df (the rotations taken out), G - 1
    # proportions
    member <- 8 + 8 + 8 * 2 - 1 + 8 +
      length(ghmix:::mix_family(family)$free) - 1
    expect_identical(fit$df, 2 * member + 1)
    expect_equal(BIC(fit), -2 * fit$loglik + log(800) * fit$df)
    for (par in fit$components) {
      expect_null(par$sigma)
      # each member in the rotation of one factor fit
      g <- crossprod(par$loadings, par$loadings / par$uniquenesses)
      expect_lt(abs(g[1, 2]), 1e-8 * g[1, 1])
      expect_gt(g[1, 1], g[2, 2])
      top <- apply(par$loadings, 2, function(v) v[which.max(abs(v))])
      expect_true(all(top > 0))
    }
  }
})

test_that("d = 2, r = 1 is a full Sigma: the full mixture's maximum", {
  sim <- fmix_sim(1500, 2, 1, 2, 12, shift = 8)
  lab <- sim$labels
  ctl <- ghmix_control(max_iter = 3000, tol = 1e-12)
  full <- fit_nig(sim$x, components = 2, start = lab, control = ctl)
  fac <- muffle_factors(fit_nig(sim$x, components = 2, factors = 1,
                                start = lab, control = ctl))
  expect_equal(fac$loglik, full$loglik, tolerance = 1e-7)
  for (k in 1:2) {
    par <- fac$components[[k]]
    expect_equal(tcrossprod(par$loadings) + diag(par$uniquenesses),
                 full$components[[k]]$sigma, tolerance = 1e-3,
                 ignore_attr = TRUE)
  }
  expect_identical(fac$classification, full$classification)
})

test_that("factor mixtures: G = 1 is the single factor fit", {
  sim <- fmix_sim(1000, 8, 2, 1, 13)
  ctl <- ghmix_control(max_iter = 200)
  single <- fit_nig(sim$x, factors = 2, control = ctl)
  set.seed(2)
  fit <- fmix_quiet(
    fit_nig(sim$x, components = 1:2, factors = 2, nstart = 1, control = ctl)
  )
  expect_identical(fit$criteria$G, 1:2)
  expect_identical(fit$G, 1L)
  expect_equal(fit$loglik, single$loglik)
  expect_equal(fit$components[[1L]], single$parameters)
  expect_identical(fit$df, single$df)
  expect_identical(fit$factors, 2L)
})

test_that("separated factor-NIG clusters are recovered; BIC picks G = 2", {
  skip_on_cran() # about 30 s
  sim <- fmix_sim(4000, 10, 2, 2, 14)
  set.seed(3)
  fit <- fmix_quiet(
    fit_nig(sim$x, components = 1:3, factors = 2, nstart = 1,
            control = ghmix_control(max_iter = 200))
  )
  expect_true(fit$converged)
  expect_identical(fit$G, 2L)
  expect_identical(fit$criteria$asked, 1:3)
  expect_identical(fit$criteria$G[which.min(fit$criteria$BIC)], 2L)
  expect_gte(ari(fit$classification, sim$labels), 0.95)
  expect_true(fmix_monotone(fit))
  # at least the log-likelihood at the true parameters
  truth <- sim$truth
  expect_gte(fit$loglik, sum(fmix_ref_rows(sim$x, truth)))
  expect_equal(fit$loglik, sum(fmix_ref_rows(sim$x, fit)), tolerance = 1e-10)
})

test_that("factor mixtures: integer weights are replicated rows", {
  sim <- fmix_sim(700, 5, 1, 2, 15)
  x <- sim$x
  set.seed(4)
  w <- sample(0:3, nrow(x), replace = TRUE, prob = c(0.1, 0.5, 0.3, 0.1))
  rep_x <- x[rep(seq_len(nrow(x)), w), , drop = FALSE]
  f0 <- suppressWarnings(
    fit_nig(x, components = 2, factors = 1, nstart = 0,
            control = ghmix_control(max_iter = 20))
  )
  ctl <- ghmix_control(max_iter = 300)
  fw <- fit_nig(x, components = 2, factors = 1, weights = w, control = ctl,
                start = f0)
  fr <- fit_nig(rep_x, components = 2, factors = 1, control = ctl,
                start = f0)
  expect_equal(fw$loglik, fr$loglik, tolerance = 1e-10)
  expect_equal(fw$nobs, sum(w))
  expect_equal(fw$proportions, fr$proportions, tolerance = 1e-6)
  for (k in 1:2) {
    expect_equal(fw$components[[k]]$mu, fr$components[[k]]$mu,
                 tolerance = 1e-6)
  }
  expect_equal(fw$loglik, sum(w * fmix_ref_rows(x, fw)), tolerance = 1e-10)
  expect_true(fmix_monotone(fw))
})

test_that("factor mixtures: the methods", {
  sim <- fmix_sim(600, 4, 1, 2, 16)
  set.seed(5)
  fit <- fit_nig(sim$x, components = 2, factors = 1, nstart = 1)
  expect_output(print(fit), "F_k F_k' \\+ diag\\(D_k\\) with 1 factor")
  s <- summary(fit)
  expect_identical(rownames(s$coefficients[[1L]])[9L], "F[v1,F1]")
  # standard errors from vcov() (test-factor-mixture-vcov.R checks them)
  v <- vcov(fit)
  expect_identical(dim(v), c(38L, 38L))
  expect_identical(rownames(v)[9L], "component_1:F[v1,F1]")
  expect_true(all(s$coefficients[[1L]][, 2L] > 0))
  expect_equal(unname(s$coefficients[[2L]][, 2L]),
               unname(sqrt(diag(v))[19:36]))
  expect_output(print(s), "Std. Error")
  cf <- coef(fit, component = 2)
  expect_equal(cf$loadings, fit$components[[2L]]$loadings)
  par <- fit$components[[2L]]
  expect_equal(coef(fit, component = 2, sigma = TRUE)$sigma,
               tcrossprod(par$loadings) + diag(par$uniquenesses),
               ignore_attr = TRUE)
  expect_named(coef(fit, component = 1, parametrization = "ghyp"))
  z <- predict(fit, type = "membership")
  expect_equal(z, fitted(fit), ignore_attr = TRUE, tolerance = 1e-12)
  expect_identical(unname(predict(fit, type = "class")), fit$classification)
  expect_equal(logLik(fit)[[1L]], fit$loglik)
  sims <- simulate(fit, nsim = 2, seed = 1)
  expect_identical(dim(sims[[1L]]), c(600L, 4L))
  expect_length(attr(sims[[1L]], "component"), 600L)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
  # a previous fit with as many factors is a start; one without is not
  again <- fit_nig(sim$x, components = 2, factors = 1, start = fit)
  expect_equal(again$loglik, fit$loglik, tolerance = 1e-8)
  expect_error(muffle_factors(fit_nig(sim$x, components = 2, factors = 2,
                                      start = fit)),
               class = "ghmix_error_start_labels")
})

test_that("factor mixtures: the combinations not supported yet", {
  sim <- fmix_sim(300, 4, 1, 2, 17)
  err <- "ghmix_error_factor_mode"
  info <- ghmix_info()
  if (!info$cuda || nrow(info$devices) == 0L) {
    # (with a device the fit runs there: test-cuda.R)
    expect_error(
      fit_nig(sim$x, components = 2, factors = 1, backend = "cuda"),
      class = if (info$cuda) "ghmix_error_no_device" else
        "ghmix_error_cuda_not_built"
    )
  }
  # chunked data and clusters fit, with `shrink` too, and `shrink` on data
  # that need standardising (test-factor-mixture-data.R,
  # test-factor-mixture-shrink.R), but not on a GPU (where one can be
  # asked for)
  if (info$cuda && nrow(info$devices) > 0L) {
    expect_error(fit_nig(ghmix_data(list(sim$x)), components = 2,
                         factors = 1, backend = "cuda"),
                 "chunked data or a cluster with backend", class = err)
  }
  expect_error(fit_nig(sim$x, components = 2, factors = 4),
               class = "ghmix_error_argument")
})

# E[1/Y], E[Y] and E[log Y] of GIG(lambda, chi, psi) (density proportional
# to y^(lambda - 1) exp(-(chi / y + psi y) / 2)) by base R's besselK():
# with w = sqrt(chi psi) and R = K_(lambda + 1)(w) / K_lambda(w),
# E[Y] = sqrt(chi / psi) R, E[1/Y] = sqrt(psi / chi) R - 2 lambda / chi,
# E[log Y] = log sqrt(chi / psi) + d/d lambda log K_lambda(w) (a central
# difference).
fmix_ref_gig <- function(lambda, chi, psi) {
  w <- sqrt(chi * psi)
  ratio <- besselK(w, lambda + 1, TRUE) / besselK(w, lambda, TRUE)
  h <- 1e-5
  dlogk <- (log(besselK(w, lambda + h, TRUE)) -
              log(besselK(w, lambda - h, TRUE))) / (2 * h)
  list(inv_y = sqrt(psi / chi) * ratio - 2 * lambda / chi,
       y = sqrt(chi / psi) * ratio, log_y = 0.5 * log(chi / psi) + dlogk)
}

test_that("the factor mixture's one-pass E-step equals a plain-R one", {
  sim <- fmix_sim(300, 6, 2, 2, 5)
  x <- unname(sim$x)
  pars <- lapply(sim$truth$components, function(par) {
    par$p <- 0.7
    par
  })
  pars[[2L]]$mu <- pars[[2L]]$mu + 0.5
  props <- c(0.3, 0.7)
  w <- rep_len(c(1, 0, 2.5, 0.5), nrow(x))
  what <- mix_what_rows()
  es <- mixture_factor_estep(x, pars, props, w, what, rows = TRUE,
                             threads = 2L)
  # the plain-R E-step: dense Sigma_k = F F' + D, the log densities of
  # fmix_ref_logpdf(), memberships by log-sum-exp, GIG moments by besselK()
  d <- ncol(x)
  lf <- vapply(seq_along(pars), function(k) {
    log(props[[k]]) + fmix_ref_logpdf(x, pars[[k]])
  }, numeric(nrow(x)))
  top <- apply(lf, 1L, max)
  lse <- top + log(rowSums(exp(lf - top)))
  tau <- exp(lf - lse)
  ok <- w > 0
  expect_equal(es$n, sum(ok))
  expect_equal(es$weight, sum(w))
  expect_equal(es$loglik, sum(w * lse), tolerance = 1e-10)
  expect_equal(es$n_bad, 0)
  expect_equal(es$rows$tau, tau, tolerance = 1e-10)
  expect_equal(es$rows$loglik, lse, tolerance = 1e-10)
  for (k in seq_along(pars)) {
    par <- pars[[k]]
    sigma <- tcrossprod(par$loadings) + diag(par$uniquenesses, d)
    si <- solve(sigma)
    u <- sweep(x, 2L, par$mu)
    m <- fmix_ref_gig(par$p - d / 2, par$b + rowSums((u %*% si) * u),
                      par$a + sum(par$gamma * (si %*% par$gamma)))
    v <- w * tau[, k]
    st <- es$components[[k]]
    expect_equal(st$tau, sum(v), tolerance = 1e-10)
    expect_equal(st$s_inv, sum(v * m$inv_y), tolerance = 1e-10)
    expect_equal(st$s_y, sum(v * m$y), tolerance = 1e-10)
    expect_equal(st$s_log, sum(v * m$log_y), tolerance = 1e-7)
    expect_equal(st$sx, colSums(v * u), tolerance = 1e-10)
    expect_equal(st$sxw, colSums(v * m$inv_y * u), tolerance = 1e-10)
    s <- crossprod(u, v * m$inv_y * u)
    proj <- t(par$loadings) %*% si
    expect_equal(st$sxx_diag, diag(s), tolerance = 1e-10)
    expect_equal(unname(st$sxx_proj), unname(s %*% t(proj)),
                 tolerance = 1e-10)
    expect_equal(es$rows$inv_y[, k], m$inv_y, tolerance = 1e-10)
    expect_equal(es$rows$y[, k], m$y, tolerance = 1e-10)
    expect_equal(es$rows$log_y[, k], m$log_y, tolerance = 1e-7)
  }
})

test_that("the factor mixture E-step: the same bits on 1 and 2 threads", {
  sim <- fmix_sim(6000, 6, 2, 3, 7)
  pars <- sim$truth$components
  props <- sim$truth$proportions
  w <- rep_len(c(1, 0, 2.5, 0.5), nrow(sim$x))
  what <- mix_what_rows()
  one <- mixture_factor_estep(sim$x, pars, props, w, what, rows = TRUE,
                              threads = 1L)
  two <- mixture_factor_estep(sim$x, pars, props, w, what, rows = TRUE,
                              threads = 2L)
  expect_identical(one, two)
  expect_identical(
    mixture_factor_estep(sim$x, pars, props, NULL, what, threads = 1L),
    mixture_factor_estep(sim$x, pars, props, NULL, what, threads = 2L)
  )
})
