# Factor-analytic GH: Sigma = F F' + diag(D) (issue 15).

factor_sub <- function(family) {
  switch(family,
    gh = list(p = 1.3, a = 2, b = 0.7),
    nig = list(p = -0.5, a = 2, b = 1),
    vg = list(p = 2, a = 3, b = 0),
    skewt = list(p = -3, a = 0, b = 4)
  )
}

factor_random_par <- function(d, r, family) {
  c(list(mu = stats::rnorm(d) * 0.1, gamma = stats::rnorm(d) * 0.2,
         loadings = matrix(stats::rnorm(d * r), d, r),
         uniquenesses = stats::runif(d, 0.2, 2)),
    factor_sub(family))
}

test_that("the factor density equals the full density (every family)", {
  set.seed(2)
  worst <- 0
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (d in c(1:6, 10, 20, 35, 50)) {
      for (r in 0:min(5, d - 1)) {
        par <- factor_random_par(d, r, family)
        s <- factor_cov(par$loadings, par$uniquenesses)
        x <- rgh(40, mu = par$mu, gamma = 2 * par$gamma, sigma = s,
                 p = par$p, a = par$a, b = par$b)
        lf <- dgh(x, par$mu, par$gamma, s, par$p, par$a, par$b, log = TRUE)
        ls <- dgh(x, par$mu, par$gamma, as.matrix(s), par$p, par$a, par$b,
                  log = TRUE)
        worst <- max(worst, abs(lf - ls) / pmax(1, abs(ls)))
      }
    }
  }
  expect_lt(worst, 1e-12)
})

test_that("factor_cov() describes F F' + diag(D) and refuses bad input", {
  f <- cbind(c(1, 0.5, 0.2), c(0, 1, -1))
  s <- factor_cov(f, c(1, 2, 3))
  expect_s3_class(s, "ghmix_factor_cov")
  expect_identical(dim(s), c(3L, 3L))
  expect_equal(as.matrix(s), tcrossprod(f) + diag(c(1, 2, 3)))
  expect_output(print(s), "2 factors")
  expect_equal(as.matrix(factor_cov(matrix(0, 3, 0), 1:3)), diag(1:3))
  err <- "ghmix_error_argument"
  expect_error(factor_cov(matrix(1, 3, 3), rep(1, 3)), class = err,
               regexp = "loadings")
  expect_error(factor_cov(f, c(1, 2)), class = err, regexp = "uniquenesses")
  expect_error(factor_cov(f, c(1, 0, 2)), class = err,
               regexp = "uniquenesses")
  expect_error(factor_cov(f, c(1, NA, 2)), class = err,
               regexp = "uniquenesses")
  expect_error(factor_cov(f * Inf, 1:3), class = err, regexp = "loadings")
  expect_error(factor_cov("a", 1:3), class = err, regexp = "loadings")
  expect_error(dgh(matrix(0, 2, 4), mu = rep(0, 4), sigma = s), class = err,
               regexp = "sigma")
  expect_error(rgh(2, mu = rep(0, 4), sigma = s), class = err,
               regexp = "mu")
})

test_that("dgh() with a factor_cov(): rows that are not finite, invalid GIG", {
  s <- factor_cov(matrix(1, 3, 1), rep(1, 3))
  x <- rbind(c(NA, 1, 1), c(Inf, 1, 1), c(0, 0, 0), c(NaN, 0, 0))
  out <- dgh(x, mu = rep(0, 3), sigma = s)
  ref <- dgh(x, mu = rep(0, 3), sigma = as.matrix(s))
  expect_identical(is.na(out), is.na(ref))
  expect_equal(out[2:3], ref[2:3], tolerance = 1e-12)
  expect_warning(dgh(x, mu = rep(0, 3), sigma = s, b = -1), "NaN")
})

test_that("rgh() with a factor_cov() draws the factor model", {
  set.seed(3)
  f <- cbind(c(1, 0.5, 0.2, 0), c(0, 1, -1, 0.5))
  s <- factor_cov(f, c(0.5, 0.4, 0.3, 0.2))
  x <- rgh(2e4, mu = 1:4, gamma = c(0.1, 0, -0.1, 0), sigma = s,
           p = -0.5, a = 1, b = 1)
  expect_identical(dim(x), c(2e4L, 4L))
  # E X = mu + gamma E Y, Cov X = E Y Sigma + Var Y gamma gamma'
  ey <- gig_mean(-0.5, 1, 1)
  vy <- gig_var(-0.5, 1, 1)
  g <- c(0.1, 0, -0.1, 0)
  expect_equal(colMeans(x), 1:4 + g * ey, tolerance = 0.05)
  expect_equal(stats::cov(x), ey * as.matrix(s) + vy * tcrossprod(g),
               tolerance = 0.05)
})

test_that("factor_estep_r equals mix_estep with the formed Sigma", {
  set.seed(1)
  d <- 6
  n <- 300
  x <- matrix(stats::rnorm(n * d), n, d)
  w <- stats::runif(n)
  w[1:5] <- 0
  what <- ghmix:::mix_what_rows()
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (r in c(0, 2)) {
      par <- factor_random_par(d, r, family)
      fe <- ghmix:::factor_estep_r(x, par, what, weights = w, rows = TRUE)
      pf <- c(par[c("mu", "gamma")],
              list(sigma = tcrossprod(par$loadings) + diag(par$uniquenesses)),
              par[c("p", "a", "b")])
      me <- ghmix:::mix_estep(ghmix:::mix_engine_cpu(x, 1L, w), pf, what,
                              rows = TRUE)
      for (nm in c("n", "tau", "loglik", "s_inv", "s_y", "s_log",
                   "s_inv_dev", "s_y_dev", "n_bad", "sx", "sxw", "rows")) {
        expect_equal(fe[[nm]], me[[nm]], tolerance = 1e-12,
                     ignore_attr = TRUE, info = paste(family, r, nm))
      }
      expect_equal(fe$sxx_diag, diag(me$sxx), tolerance = 1e-12)
      if (r > 0) {
        expect_equal(fe$sxx_proj, me$sxx %*% t(fe$proj), tolerance = 1e-12)
        sig_inv <- solve(pf$sigma)
        expect_equal(fe$proj, t(par$loadings) %*% sig_inv, tolerance = 1e-12)
      }
      expect_equal(fe$logdet, ghmix:::logdet(pf$sigma), tolerance = 1e-12)
      expect_equal(fe$gsg, sum(par$gamma * solve(pf$sigma, par$gamma)),
                   tolerance = 1e-12)
    }
  }
  # not usable: NULL
  par <- factor_random_par(d, 2, "nig")
  bad <- par
  bad$uniquenesses[2] <- 0
  expect_null(ghmix:::factor_estep_r(x, bad, what))
  bad <- par
  bad$a <- -1
  expect_null(ghmix:::factor_estep_r(x, bad, what))
  # the stand-in factor_estep() is the R one until the C E-step is merged
  expect_equal(ghmix:::factor_estep(x, par, what)$loglik,
               ghmix:::factor_estep_r(x, par, what)$loglik)
})

factor_sim <- function(n, d, r, seed, family = "nig") {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r)
  dd <- stats::runif(d, 0.3, 1)
  sub <- switch(family, nig = list(p = -0.5, a = 1.5, b = 1.5),
                gh = list(p = 1, a = 2, b = 1))
  truth <- c(list(mu = stats::rnorm(d), gamma = stats::rnorm(d) * 0.2,
                  loadings = f, uniquenesses = dd), sub)
  x <- rgh(n, truth$mu, truth$gamma, factor_cov(f, dd), truth$p, truth$a,
           truth$b)
  colnames(x) <- paste0("v", seq_len(d))
  list(x = x, truth = truth)
}

factor_fit_loglik <- function(x, par) {
  sum(dgh(x, par$mu, par$gamma,
          factor_cov(par$loadings, par$uniquenesses), par$p, par$a, par$b,
          log = TRUE))
}

test_that("factor fits: every family, monotone, the documented form", {
  sim <- factor_sim(1500, 8, 2, 5)
  for (fitter in list(fit_nig, fit_gh, fit_vg, fit_skewt)) {
    fit <- fitter(sim$x, factors = 2)
    expect_true(fit$converged)
    expect_identical(fit$factors, 2L)
    expect_null(fit$parameters$sigma)
    expect_identical(dim(fit$loadings), c(8L, 2L))
    expect_identical(rownames(fit$loadings), colnames(sim$x))
    expect_identical(fit$parameters$loadings, fit$loadings)
    # the log-likelihood never decreases, and is the fit's density's
    ll <- fit$trace$loglik
    expect_true(all(diff(ll) >= -1e-9 * abs(ll[-1])))
    expect_equal(fit$loglik, factor_fit_loglik(sim$x, fit$parameters),
                 tolerance = 1e-8)
    # the rotation: F' D^-1 F diagonal, decreasing; largest entries positive
    g <- crossprod(fit$loadings, fit$loadings / fit$uniquenesses)
    expect_lt(abs(g[1, 2]), 1e-8 * g[1, 1])
    expect_gt(g[1, 1], g[2, 2])
    top <- apply(fit$loadings, 2, function(v) v[which.max(abs(v))])
    expect_true(all(top > 0))
    expect_identical(fit$df, 8 + 8 + 8 * 2 - 1 + 8 +
                       length(ghmix:::mix_family(fit$family)$free) - 1)
  }
  # a factor model is nested in the full one
  full <- fit_nig(sim$x)
  fac <- fit_nig(sim$x, factors = 2)
  expect_lte(fac$loglik, full$loglik + 1e-6)
  expect_lt(BIC(fac), BIC(full))
  # the gauges: det Sigma = 1 in "det"
  det_fit <- fit_nig(sim$x, factors = 2, gauge = "det")
  expect_equal(ghmix:::factor_logdet(det_fit$parameters), 0,
               tolerance = 1e-10)
  expect_equal(det_fit$loglik, fac$loglik, tolerance = 1e-8)
})

test_that("factors = 0 is a diagonal Sigma", {
  sim <- factor_sim(1000, 5, 1, 6)
  fit <- fit_nig(sim$x, factors = 0)
  expect_identical(dim(fit$loadings), c(5L, 0L))
  par <- fit$parameters
  ll <- sum(dgh(sim$x, par$mu, par$gamma, diag(par$uniquenesses), par$p,
                par$a, par$b, log = TRUE))
  expect_equal(fit$loglik, ll, tolerance = 1e-10)
  expect_identical(fit$df, 5 + 5 + 5 + 1)
  expect_output(print(fit), "0 factors")
  expect_lt(fit$loglik, fit_nig(sim$x, factors = 1)$loglik)
})

test_that("factor fits with weights are those of the replicated rows", {
  sim <- factor_sim(800, 6, 2, 7)
  w <- rep(c(1, 2, 0), length.out = nrow(sim$x))
  fw <- fit_nig(sim$x, factors = 2, weights = w)
  fr <- fit_nig(sim$x[rep(seq_len(nrow(sim$x)), w), ], factors = 2)
  expect_equal(fw$loglik, fr$loglik, tolerance = 1e-8)
  expect_equal(fw$loadings, fr$loadings, tolerance = 1e-4)
  expect_equal(fw$nobs, sum(w))
})

test_that("factor fits: methods", {
  sim <- factor_sim(1000, 10, 2, 8)
  fit <- fit_gh(sim$x, factors = 2)
  expect_output(print(fit), "2 factors")
  expect_output(print(summary(fit)),
                "standard errors from the observed information")
  cf <- coef(fit)
  expect_named(cf, c("mu", "gamma", "loadings", "uniquenesses", "p", "a",
                     "b"))
  s <- coef(fit, sigma = TRUE)$sigma
  expect_equal(s, tcrossprod(fit$loadings) + diag(fit$uniquenesses),
               ignore_attr = TRUE)
  expect_equal(coef(fit, "ghyp")$sigma, s)
  expect_equal(predict(fit, sim$x[1:5, ], type = "log_density"),
               dgh(sim$x[1:5, ], cf$mu, cf$gamma,
                   factor_cov(cf$loadings, cf$uniquenesses), cf$p, cf$a,
                   cf$b, log = TRUE),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_identical(dim(fitted(fit)), c(1000L, 3L))
  sims <- simulate(fit, 2, seed = 1)
  expect_identical(dim(sims[[1]]), c(1000L, 10L))
  expect_equal(AIC(fit), -2 * fit$loglik + 2 * fit$df)
  expect_identical(dim(vcov(fit)), c(53L, 53L)) # test-factor-vcov.R
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  # start from a fit
  again <- fit_gh(sim$x, factors = 2, start = fit)
  expect_equal(again$loglik, fit$loglik, tolerance = 1e-8)
  expect_lte(again$iterations, 5L)
})

test_that("factor fits: bad input and unsupported combinations", {
  sim <- factor_sim(200, 4, 1, 9)
  x <- sim$x
  err <- "ghmix_error_argument"
  expect_error(fit_nig(x, factors = 4), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = 5), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = -1), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = 1.5), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = NA), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = "1"), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = 1:2), class = err, regexp = "factors")
  expect_error(fit_nig(x, factors = TRUE), class = err, regexp = "factors")
  expect_identical(fit_student(x, factors = 1)$factors, 1L)
  # (backend = "cuda": test-cuda.R; components with factors, also with
  # shrink: test-factor-mixture.R, test-factor-mixture-shrink.R)
  expect_error(fit_nig(x, factors = 1, start = list(loadings = 1:3)),
               class = err, regexp = "loadings")
  expect_error(fit_nig(x, factors = 1, start = list(sigma = diag(4))),
               class = err, regexp = "start")
  # a fit to other variables as the start: a classed error, no recycling
  other <- suppressWarnings(fit_nig(cbind(x, x[, 1L]^2), factors = 1,
                                    control = ghmix_control(max_iter = 3)))
  expect_no_warning(expect_error(fit_nig(x, factors = 1, start = other),
                                 class = err, regexp = "variables"))
})

test_that("simulated factor-GH data: the truth's likelihood and subspace", {
  skip_on_cran() # about 30 s of CPU with the R E-step
  set.seed(11)
  d <- 100
  r <- 3
  f <- matrix(stats::rnorm(d * r), d, r)
  dd <- stats::runif(d, 0.3, 1)
  truth <- list(mu = stats::rnorm(d) * 0.1, gamma = stats::rnorm(d) * 0.1,
                p = 1, a = 2, b = 1)
  x <- rgh(2e4, truth$mu, truth$gamma, factor_cov(f, dd), truth$p, truth$a,
           truth$b)
  # from the default start of the mixing law (no NIG stage)
  fit <- fit_gh(x, factors = r, start = list(p = -0.5, a = 1, b = 1))
  expect_true(fit$converged)
  ll_truth <- sum(dgh(x, truth$mu, truth$gamma, factor_cov(f, dd), truth$p,
                      truth$a, truth$b, log = TRUE))
  expect_gte(fit$loglik, ll_truth)
  # the largest principal angle between the loading subspaces (measured:
  # 0.006 rad)
  cosines <- svd(crossprod(qr.Q(qr(f)), qr.Q(qr(fit$loadings))))$d
  expect_lt(acos(min(cosines)), 0.05)
  # E[Y] D is free of the gauge (the fit's: E[Y] = 1)
  expect_equal(fit$uniquenesses, dd * gig_mean(truth$p, truth$a, truth$b),
               tolerance = 0.1, ignore_attr = TRUE)
})

test_that("factor_logdet() is log det Sigma, factor_woodbury()'s bits", {
  set.seed(3)
  for (r in 0:3) {
    d <- 7
    f <- matrix(stats::rnorm(d * r), d, r)
    dd <- stats::runif(d, 0.2, 2)
    par <- list(mu = stats::rnorm(d), gamma = stats::rnorm(d), loadings = f,
                uniquenesses = dd, p = 0.3, a = 1, b = 2)
    ld <- ghmix:::factor_logdet(par)
    # plain R, from the d x d matrix
    full <- determinant(tcrossprod(f) + diag(dd, d), logarithm = TRUE)
    expect_equal(ld, as.numeric(full$modulus), tolerance = 1e-13)
    expect_identical(ld, ghmix:::factor_woodbury(par)$logdet)
  }
  bad <- par
  bad$uniquenesses[2] <- 0
  expect_null(ghmix:::factor_logdet(bad))
  bad <- par
  bad$loadings[1, 1] <- NaN
  expect_null(ghmix:::factor_logdet(bad))
  bad <- par
  bad$a <- -1
  expect_null(ghmix:::factor_logdet(bad))
})

test_that("a factor fit leaves the BLAS's thread count as it found it", {
  # the M-step holds a multithreaded BLAS (OpenBLAS) at one thread; 0 from
  # ffi_blas_threads_single: a BLAS without that control (nothing to hold)
  blas_threads <- function() {
    n <- .Call(ghmix:::ffi_blas_threads_single)
    .Call(ghmix:::ffi_blas_threads_restore, n)
    n
  }
  before <- blas_threads()
  sim <- factor_sim(500, 6, 1, 7)
  fit <- fit_nig(sim$x, factors = 1)
  expect_true(fit$converged)
  expect_identical(blas_threads(), before)
})
