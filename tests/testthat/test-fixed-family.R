# `fixed =` on every fitter (fit_nig, fit_vg, fit_skewt, fit_student,
# fit_hyperbolic, fit_gaussian): the held values exactly, the df, and the
# constrained maximum against a plain-R maximisation of dgh() over the free
# parameters (optim from the EM's answer must not find more).

# The log-likelihood by dgh() at a univariate parameter list.
ll_dgh <- function(x, mu, gamma, s2, p, a, b) {
  sum(dgh(x, mu, gamma, sqrt(s2), p, a, b, log = TRUE))
}

# The maximum over v of f(v) by optim from v0 (Nelder-Mead, then BFGS).
plain_max <- function(f, v0) {
  nm <- stats::optim(v0, function(v) -f(v),
                     control = list(reltol = 1e-14, maxit = 20000))
  bf <- stats::optim(nm$par, function(v) -f(v), method = "BFGS",
                     control = list(reltol = 1e-15, maxit = 2000))
  -min(nm$value, bf$value)
}

# The first line of print().
fit_label_of <- function(fit) capture.output(print(fit))[[1L]]

# The bivariate normal log density, by hand.
mvn_logdens <- function(x, mu, s) {
  u <- sweep(x, 2L, mu)
  q <- rowSums((u %*% solve(s)) * u)
  -log(2 * pi) - log(det(s)) / 2 - q / 2
}

test_that("fit_vg(fixed = list(p = )) holds p at the constrained maximum", {
  set.seed(11)
  x <- rgh(800, mu = 0.2, gamma = 0.4, sigma = 1, p = 2, a = 4, b = 0)
  fit <- fit_vg(x, fixed = list(p = 1.5))
  free <- fit_vg(x)
  expect_true(fit$converged)
  expect_identical(fit$parameters$p, 1.5)
  expect_identical(fit$parameters$b, 0)
  # the gauge E[Y] = 1: a = 2p
  expect_equal(fit$parameters$a, 2 * 1.5, tolerance = 1e-10)
  expect_identical(fit$df, free$df - 1)
  expect_lte(fit$loglik, free$loglik + 1e-8)
  par <- fit$parameters
  f <- function(v) ll_dgh(x, v[1], v[2], exp(v[3]), 1.5, 3, 0)
  expect_equal(f(c(par$mu, par$gamma, log(par$sigma))), fit$loglik,
               tolerance = 1e-10)
  best <- plain_max(f, c(par$mu, par$gamma, log(par$sigma)))
  expect_lt(best - fit$loglik, 1e-6)
  expect_match(fit_label_of(fit), "VG \\(p = 1.5\\)")
})

test_that("fit_student(fixed = list(nu = )) holds nu = -2p", {
  set.seed(12)
  x <- 0.3 + 1.5 * stats::rt(600, df = 5)
  fit <- fit_student(x, fixed = list(nu = 6))
  expect_identical(fit$parameters$p, -3)
  expect_identical(fit$fixed, list(p = -3))
  same <- fit_skewt(x, symmetric = TRUE, fixed = list(p = -3))
  expect_equal(fit$loglik, same$loglik, tolerance = 1e-12)
  par <- fit$parameters
  # b = -2(p + 1) = 4 in the gauge E[Y] = 1
  expect_equal(par$b, 4, tolerance = 1e-10)
  f <- function(v) ll_dgh(x, v[1], 0, exp(v[2]), -3, 0, 4)
  best <- plain_max(f, c(par$mu, log(par$sigma)))
  expect_lt(best - fit$loglik, 1e-6)
  expect_equal(f(c(par$mu, log(par$sigma))), fit$loglik, tolerance = 1e-10)
  free <- fit_student(x)
  expect_identical(fit$df, free$df - 1)
  expect_match(fit_label_of(fit), "nu = 6")
  # the likelihood-ratio test of nu = 6 in the Student-t, by hand
  tab <- anova(fit, free)
  expect_equal(tab$Chisq[[2L]], 2 * (free$loglik - fit$loglik),
               tolerance = 1e-12)
  expect_identical(tab$`Chi Df`[[2L]], 1)
})

test_that("fit_skewt(fixed = list(p = )) and a skew-t's gamma held", {
  set.seed(13)
  x <- rgh(900, mu = 0, gamma = 0.5, sigma = 1, p = -3, a = 0, b = 4)
  fit <- fit_skewt(x, fixed = list(gamma = 0.4))
  expect_identical(unname(fit$parameters$gamma), 0.4)
  expect_true(fit$converged)
  par <- fit$parameters
  expect_equal(gig_mean(par$p, par$a, par$b), 1, tolerance = 1e-8)
  # free: mu, Sigma, p (b = -2(p + 1) in the gauge)
  f <- function(v) {
    p <- -1 - exp(v[3])
    ll_dgh(x, v[1], 0.4, exp(v[2]), p, 0, -2 * (p + 1))
  }
  v0 <- c(par$mu, log(par$sigma), log(-1 - par$p))
  expect_equal(f(v0), fit$loglik, tolerance = 1e-10)
  expect_lt(plain_max(f, v0) - fit$loglik, 1e-6)
  v <- vcov(fit)
  expect_identical(unname(v["gamma[x]", ]), rep(0, nrow(v)))
  expect_true(all(is.finite(v)) && all(diag(v)[c("mu[x]", "p")] > 0))
  held <- fit_skewt(x, fixed = list(p = -2.5))
  expect_identical(held$parameters$p, -2.5)
  expect_equal(held$parameters$b, 3, tolerance = 1e-10)
})

test_that("fit_vg(fixed = list(gamma = )) searches p and E[Y] together", {
  set.seed(14)
  x <- rgh(900, mu = 0, gamma = -0.3, sigma = 1, p = 2, a = 4, b = 0)
  fit <- fit_vg(x, fixed = list(gamma = -0.25, mu = 0.05))
  par <- fit$parameters
  expect_identical(unname(par$gamma), -0.25)
  expect_identical(unname(par$mu), 0.05)
  expect_equal(par$a, 2 * par$p, tolerance = 1e-8)
  expect_identical(fit$df, fit_vg(x)$df - 2)
  f <- function(v) {
    p <- exp(v[2])
    ll_dgh(x, 0.05, -0.25, exp(v[1]), p, 2 * p, 0)
  }
  v0 <- c(log(par$sigma), log(par$p))
  expect_equal(f(v0), fit$loglik, tolerance = 1e-10)
  expect_lt(plain_max(f, v0) - fit$loglik, 1e-6)
})

test_that("fit_nig(fixed = ) holds a, or mu, as fit_gh(p = -1/2) does", {
  set.seed(15)
  x <- rgh(700, mu = 0.1, gamma = 0.2, sigma = 1, p = -0.5, a = 1.5,
           b = 1.5)
  fit <- fit_nig(x, fixed = list(a = 2))
  gh <- fit_gh(x, fixed = list(p = -0.5, a = 2))
  expect_identical(fit$parameters$a, 2)
  expect_equal(fit$parameters$b, 2, tolerance = 1e-10)
  expect_equal(fit$loglik, gh$loglik, tolerance = 1e-9)
  expect_identical(fit$df, fit_nig(x)$df - 1)
  par <- fit$parameters
  f <- function(v) ll_dgh(x, v[1], v[2], exp(v[3]), -0.5, 2, 2)
  v0 <- c(par$mu, par$gamma, log(par$sigma))
  expect_lt(plain_max(f, v0) - fit$loglik, 1e-6)
  mu0 <- fit_nig(x, fixed = list(mu = 0))
  expect_identical(unname(mu0$parameters$mu), 0)
  g <- function(v) ll_dgh(x, 0, v[1], exp(v[2]), -0.5, exp(v[3]), exp(v[3]))
  w0 <- with(mu0$parameters, c(gamma, log(sigma), log(a)))
  expect_equal(g(w0), mu0$loglik, tolerance = 1e-10)
  expect_lt(plain_max(g, w0) - mu0$loglik, 1e-6)
  expect_identical(mu0$fixed, list(mu = 0))
})

test_that("fit_hyperbolic() and fit_gaussian() take fixed", {
  set.seed(16)
  x <- matrix(rgh(600, mu = c(0, 1), gamma = c(0.2, 0), sigma = diag(2),
                  p = 1.5, a = 3, b = 1), ncol = 2)
  hyp <- fit_hyperbolic(x, fixed = list(mu = c(0, 1)))
  expect_identical(hyp$parameters$p, 1.5)
  expect_identical(unname(hyp$parameters$mu), c(0, 1))
  expect_identical(hyp$df, fit_hyperbolic(x)$df - 2)
  g <- fit_gaussian(x, fixed = list(mu = c(0, 1)))
  dev <- sweep(x, 2L, c(0, 1))
  expect_equal(unname(g$parameters$sigma), crossprod(dev) / 600,
               tolerance = 1e-14)
  expect_identical(g$df, 3)
  ll <- sum(mvn_logdens(x, c(0, 1), g$parameters$sigma))
  expect_equal(g$loglik, ll, tolerance = 1e-12)
  # nested: Gaussian (mu held) in NIG (mu held), not Gaussian in NIG (mu held)
  nig0 <- fit_nig(x, fixed = list(mu = c(0, 1)))
  expect_warning(tab <- anova(g, nig0), class = "ghmix_warning_boundary")
  expect_identical(nrow(tab), 2L)
  expect_error(anova(fit_gaussian(x), nig0), class = "ghmix_error_argument")
})

test_that("held parameters in factor and online fits", {
  set.seed(17)
  x <- matrix(stats::rnorm(3000 * 4), ncol = 4) %*% chol(0.5 + diag(4) / 2)
  x <- x * sqrt(rgig(3000, 2, 4, 0))
  fac <- fit_vg(x, factors = 1, fixed = list(p = 2.5))
  expect_identical(fac$parameters$p, 2.5)
  expect_identical(fac$df, fit_vg(x, factors = 1)$df - 1)
  y <- 1.2 * stats::rt(20000, df = 6)
  ctl <- ghmix_control(online = ghmix_online(batch_size = 5000))
  on <- fit_student(y, control = ctl, fixed = list(nu = 6))
  expect_identical(on$parameters$p, -3)
  expect_s3_class(on, "ghmix_fit_online")
})

test_that("fixed is checked against the fitter's family", {
  x <- diff(log(EuStockMarkets))[, 1L]
  err <- function(expr) expect_error(expr, class = "ghmix_error_argument")
  err(fit_nig(x, fixed = list(p = 1)))
  err(fit_nig(x, fixed = list(a = 1, b = 1)))
  err(fit_vg(x, fixed = list(p = -1)))
  err(fit_vg(x, fixed = list(a = 2)))
  err(fit_skewt(x, fixed = list(nu = -1)))
  err(fit_skewt(x, fixed = list(p = 0.5)))
  err(fit_skewt(x, fixed = list(nu = 4, p = -2)))
  err(fit_student(x, fixed = list(nu = "a")))
  err(fit_hyperbolic(x, fixed = list(p = 1)))
  err(fit_gaussian(x, fixed = list(p = 1)))
  err(fit_gaussian(x, fixed = list(mu = c(0, 1))))
  err(fit_nig(x, components = 2, fixed = list(mu = 0)))
  err(fit_vg(x, fixed = list(gamma = 0.1), gauge = "det"))
})
