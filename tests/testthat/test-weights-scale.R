# Frequency weights whose scale is any (issue 31, item 1): weights of total
# 1 or less (1/n, 1e-10) or near the largest doubles give every fitter the
# estimates of the unweighted rows (the reference: the same data without
# weights, or with weights all 1), with nobs, the log-likelihood and BIC
# those of the weights as given.

scale_data <- function() {
  set.seed(5)
  x <- matrix(rnorm(240), 120)
  list(x = x, n = nrow(x))
}

# Heavy-tailed rows whose fits converge: one cluster (y), two clusters
# (x), two clusters of a one-factor structure in d = 4 (x4), and weights
# 1, 2, 3.
scale_clusters <- function() {
  set.seed(11)
  y <- matrix(rt(600, 4), 300)
  x <- rbind(matrix(rt(300, 5), 150), matrix(rt(300, 5) + 6, 150))
  set.seed(1)
  f <- matrix(rnorm(400))
  x4 <- f %*% t(c(1, 0.8, 0.6, 0.4)) + matrix(rt(1600, 6), 400) * 0.5
  x4 <- rbind(x4[1:200, ], x4[201:400, ] + 6)
  list(y = y, x = x, x4 = x4)
}

# The largest change of the parameters (mu, gamma, sigma, p, a, b of every
# component) relative to 1 + |reference|.
scale_par_change <- function(fit, ref) {
  pars <- function(f) {
    comps <- if (is.null(f$components)) list(f$parameters) else f$components
    unlist(lapply(comps, function(p) {
      p[intersect(names(p), c("mu", "gamma", "sigma", "loadings",
                              "uniquenesses", "p", "a", "b"))]
    }))
  }
  a <- pars(fit)
  b <- pars(ref)
  expect_identical(length(a), length(b))
  max(abs(a - b) / (1 + abs(b)))
}

test_that("weights of total 1 or less: the unweighted fit", {
  dat <- scale_data()
  x <- dat$x
  n <- dat$n
  ref <- fit_nig(x)
  for (w in list(rep(1 / n, n), rep(1e-10, n), rep(2^-1000, n),
                 rep(1e300, n))) {
    fit <- fit_nig(x, weights = w)
    expect_lte(scale_par_change(fit, ref), 1e-7)
    expect_equal(fit$loglik / sum(w), ref$loglik / n, tolerance = 1e-10)
    expect_identical(fit$nobs, sum(w))
    # BIC counts the weights as observations
    expect_equal(BIC(fit), -2 * fit$loglik + log(sum(w)) * fit$df)
    from <- fit_nig(x, weights = w, start = ref)
    expect_lte(scale_par_change(from, ref), 1e-5)
  }
  w <- rep(1 / n, n)
  set.seed(1)
  g2 <- suppressWarnings(fit_nig(x, weights = w, components = 2))
  set.seed(1)
  g2_ref <- suppressWarnings(fit_nig(x, components = 2))
  expect_identical(g2$G, 2L)
  expect_equal(g2$loglik * n, g2_ref$loglik, tolerance = 1e-4)
  # (r = 1 in d = 2 is not identified: a warning, the full Sigma)
  f1 <- muffle_factors(fit_nig(x, weights = w, factors = 1))
  f1_ref <- muffle_factors(fit_nig(x, factors = 1))
  expect_equal(f1$loglik * n, f1_ref$loglik, tolerance = 1e-8)
  chunks <- ghmix_data(list(cbind(x, w = w)[1:60, ], cbind(x, w = w)[61:120, ]),
                       weights = "w")
  fc <- fit_nig(chunks)
  expect_lte(scale_par_change(fc, ref), 1e-7)
  expect_equal(fc$nobs, 1, tolerance = 1e-14)
})

test_that("every fitter: the same estimates for weights times 1e-10, 1e300", {
  dat <- scale_clusters()
  xw <- cbind(dat$x, w = 0)
  fitters <- list(
    one = function(w) fit_nig(dat$y, weights = w[1:300]),
    gh = function(w) fit_gh(dat$y, weights = w[1:300]),
    factor = function(w) {
      fit_nig(dat$x4[1:200, ], weights = w[1:200], factors = 1)
    },
    mixture = function(w) fit_nig(dat$x, weights = w[1:300], components = 2),
    factor_mixture = function(w) {
      fit_nig(dat$x4, weights = w, components = 2, factors = 1)
    },
    chunked = function(w) {
      xw[, "w"] <- w[1:300]
      fit_nig(ghmix_data(list(xw[1:150, ], xw[151:300, ]), weights = "w"),
              components = 2)
    }
  )
  w <- rep(c(1, 2, 3), length.out = 400)
  for (nm in names(fitters)) {
    run <- function(w) {
      set.seed(2)
      suppressWarnings(fitters[[nm]](w))
    }
    ref <- run(w)
    expect_true(ref$converged, label = nm)
    for (k in c(1e-10, 2^-30, 1e300 / sum(w))) {
      fit <- run(w * k)
      expect_true(fit$converged, label = nm)
      expect_lte(scale_par_change(fit, ref), 1e-5)
      expect_equal(fit$loglik / k, ref$loglik, tolerance = 1e-9, label = nm)
      expect_equal(fit$nobs / k, ref$nobs, tolerance = 1e-12)
    }
  }
})

test_that("online EM: weights of any scale", {
  set.seed(5)
  x <- matrix(rt(6000, 5), 3000)
  n <- nrow(x)
  ctl <- ghmix_control(online = ghmix_online(batch_size = 1000))
  ref <- fit_nig(x, control = ctl, weights = rep(1, n))
  for (k in c(1 / n, 1e-10, 1e300)) {
    fit <- fit_nig(x, control = ctl, weights = rep(k, n))
    expect_lte(scale_par_change(fit, ref), 1e-10)
    expect_equal(fit$loglik / k, ref$loglik, tolerance = 1e-10)
  }
})

test_that("weights of a total that overflows are an error naming `weights`", {
  x <- c(rnorm(10), 3)
  err <- expect_error(fit_nig(x, weights = rep(1e308, 11)),
                      class = "ghmix_error_argument")
  expect_match(conditionMessage(err), "`weights`", fixed = TRUE)
})

test_that("ties counted in units of the smallest weight; huge counts short", {
  set.seed(8)
  x <- matrix(rnorm(400), ncol = 2)
  w <- rep(1, 200)
  w[17] <- 2
  # the same tie at any scale of the weights
  for (k in c(1, 1e-10, 1e200)) {
    expect_true("ghmix_warning_ties" %in%
                  warning_classes(fit_vg(x, weights = w * k)))
  }
  expect_false("ghmix_warning_ties" %in%
                 warning_classes(fit_vg(x, weights = rep(1e-3, 200))))
  # a weight of 1e300 among weights 1: the count in a few digits
  msg <- NULL
  withCallingHandlers(
    suppressMessages(fit_nig(x[1:100, ], weights = c(1e300, rep(1, 99)))),
    ghmix_warning_ties = function(w) {
      msg <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    },
    warning = function(w) invokeRestart("muffleWarning")
  )
  expect_match(msg, "1e+300 rows", fixed = TRUE)
  expect_lt(nchar(msg), 600)
})

test_that("subnormal weights are an error naming `weights`, not a wrong fit", {
  set.seed(13)
  x <- rt(60, 5)
  err <- expect_error(fit_nig(x, weights = rep(2^-1074, 60)),
                      class = "ghmix_error_argument")
  expect_match(conditionMessage(err), "`weights`", fixed = TRUE)
  # the smallest normal weights: the unweighted fit
  ref <- suppressWarnings(fit_nig(x))
  fit <- suppressWarnings(fit_nig(x, weights = rep(1e-300, 60)))
  expect_lte(scale_par_change(fit, ref), 1e-6)
})
