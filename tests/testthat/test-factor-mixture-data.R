# Factor mixtures (`components` with `factors`) on chunked data, on a
# cluster, under a future plan, and on data whose scale needs the internal
# standardisation: the in-memory factor mixture of the same rows.

# Two factor-NIG clusters (r = 1) in d = 6, separated means.
fmd_sim <- function(n = 1000L, d = 6L, seed = 21L) {
  set.seed(seed)
  lab <- sample(2L, n, replace = TRUE)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in 1:2) {
    i <- which(lab == k)
    f <- matrix(stats::rnorm(d), d, 1L)
    x[i, ] <- rgh(length(i), c(6 * (k - 1), rep(0, d - 1)),
                  stats::rnorm(d) * 0.2,
                  factor_cov(f, stats::runif(d, 0.3, 1)), -0.5, 1.5, 1.5)
  }
  x
}

fmd_chunks <- function(x, w = NULL) {
  idx <- list(1:300, 301:700, 701:nrow(x))
  lapply(idx, function(i) {
    if (is.null(w)) x[i, ] else list(x = x[i, ], weights = w[i])
  })
}

# Run to the maximum, so that fits whose chunk sums are added in another
# order (and so take other SQUAREM steps) end at the same point.
fmd_tight <- ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 3000L)

fmd_rel <- function(a, b) max(abs(a - b) / pmax(1, abs(b)))

# The same fit to tol: log-likelihood, proportions, components (in their
# documented rotation), memberships, criteria.
expect_same_fmix <- function(fit, ref, tol = 1e-8) {
  expect_s3_class(fit, "ghmix_mixture")
  expect_true(fit$converged)
  expect_identical(fit$factors, ref$factors)
  expect_identical(fit$G, ref$G)
  expect_equal(fit$nobs, ref$nobs)
  expect_identical(fit$df, ref$df)
  expect_lte(abs(fit$loglik - ref$loglik) / abs(ref$loglik), tol)
  expect_lte(fmd_rel(fit$proportions, ref$proportions), tol)
  expect_lte(fmd_rel(unlist(fit$components), unlist(ref$components)), tol)
  expect_identical(names(fit$components[[1L]]$mu),
                   names(ref$components[[1L]]$mu))
  expect_lte(max(abs(fit$z - ref$z)), tol)
  expect_identical(fit$classification, ref$classification)
  expect_lte(abs(fit$BIC - ref$BIC) / abs(ref$BIC), tol)
  expect_lte(abs(fit$ICL - ref$ICL) / abs(ref$ICL), tol)
}

fmd_fit <- function(x, ...) {
  set.seed(1)
  fit_nig(x, components = 2, factors = 1, control = fmd_tight, ...)
}

test_that("a chunked factor mixture is the in-memory one of its rows", {
  x <- fmd_sim()
  ref <- fmd_fit(x)
  expect_true(ref$converged)
  fit <- fmd_fit(ghmix_data(fmd_chunks(x)))
  expect_same_fmix(fit, ref)
  expect_s3_class(fit$data, "ghmix_data")
  expect_identical(fit$distributed$mode, "stream")
  expect_identical(fit$distributed$chunks, 3L)
  # one pass over the chunks per E-step: as many reads as E-steps
  expect_gt(fit$distributed$esteps, fit$iterations)
  expect_identical(predict(fit, type = "class"), ref$classification)
  # CSV files, read out of core at every E-step
  dir <- tempfile("ghmix-fmd-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  files <- file.path(dir, sprintf("part%d.csv", 1:3))
  parts <- fmd_chunks(x)
  for (i in 1:3) {
    utils::write.table(parts[[i]], files[i], sep = ",", row.names = FALSE,
                       col.names = FALSE)
  }
  csv <- fmd_fit(ghmix_data(files, names = colnames(x)))
  expect_same_fmix(csv, ref, tol = 1e-7)
})

test_that("chunked factor mixtures: weights that come with the chunks", {
  x <- fmd_sim()
  set.seed(3)
  w <- sample(0:3, nrow(x), replace = TRUE, prob = c(0.1, 0.5, 0.3, 0.1))
  ref <- fmd_fit(x, weights = w)
  fit <- fmd_fit(ghmix_data(fmd_chunks(x, w)))
  expect_same_fmix(fit, ref)
  expect_equal(fit$nobs, sum(w))
  # the weights as a column of every chunk
  cols <- lapply(fmd_chunks(x, w), function(ch) cbind(ch$x, w = ch$weights))
  expect_same_fmix(fmd_fit(ghmix_data(cols, weights = "w")), ref)
  # integer weights are replicated rows (an independent reference)
  rep_x <- x[rep(seq_len(nrow(x)), w), , drop = FALSE]
  again <- fit_nig(rep_x, components = 2, factors = 1, control = fmd_tight,
                   start = ref)
  expect_equal(fit$loglik, again$loglik, tolerance = 1e-8)
  # several G, the best by BIC (G = 1: the single chunked factor fit, which
  # converges slowly on these two clusters: 300 iterations of each)
  ctl <- ghmix_control(max_iter = 300L)
  quiet <- function(expr) {
    withCallingHandlers(expr, ghmix_warning_convergence = function(w) {
      invokeRestart("muffleWarning")
    })
  }
  set.seed(1)
  ref_g <- quiet(fit_nig(x, components = 1:2, factors = 1, control = ctl))
  set.seed(1)
  fit_g <- quiet(fit_nig(ghmix_data(fmd_chunks(x)), components = 1:2,
                         factors = 1, control = ctl))
  expect_identical(fit_g$G, 2L)
  expect_identical(fit_g$criteria$df, ref_g$criteria$df)
  expect_lte(fmd_rel(fit_g$criteria$BIC, ref_g$criteria$BIC), 1e-6)
})

test_that("factor mixtures on a 2-worker PSOCK cluster", {
  skip_on_cran()
  skip_on_os("windows")
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster can start here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  x <- fmd_sim()
  ref <- fmd_fit(x)
  fit <- fmd_fit(x, cluster = cl, threads = 1L)
  expect_same_fmix(fit, ref)
  expect_identical(fit$distributed$mode, "cluster")
  expect_identical(fit$distributed$workers, 2L)
  set.seed(3)
  w <- sample(0:3, nrow(x), replace = TRUE)
  fit_ch <- fmd_fit(ghmix_data(fmd_chunks(x, w)), cluster = cl,
                    threads = 1L)
  expect_same_fmix(fit_ch, fmd_fit(x, weights = w))
  expect_identical(fit_ch$distributed$chunks, 3L)
  # a matrix that needs the standardisation, split over the workers
  big <- x * 1e200
  ref_big <- suppressWarnings(fmd_fit(big))
  expect_warning(fit_big <- fmd_fit(big, cluster = cl, threads = 1L),
                 class = "ghmix_warning_scale")
  expect_identical(fit_big$data, big)
  # (compared in the units of the scaling: the uniquenesses overflow)
  expect_identical(fit_big$scaling[c("center", "scale")],
                   ref_big$scaling[c("center", "scale")])
  fit_big$components <- fit_big$scaling$parameters
  ref_big$components <- ref_big$scaling$parameters
  expect_same_fmix(fit_big, ref_big)
})

test_that("factor mixtures under a future plan", {
  skip_on_cran()
  skip_if_not_installed("future")
  x <- fmd_sim()
  ref <- fmd_fit(x)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  fit <- fmd_fit(ghmix_data(fmd_chunks(x)), cluster = "future")
  expect_same_fmix(fit, ref)
  expect_identical(fit$distributed$mode, "future")
  fit_m <- fmd_fit(x, cluster = "future")
  expect_same_fmix(fit_m, ref)
})

# The fit of x * m (m = 1e-200 or 1e200) against the fit of x: the
# log-likelihood less n d log(m), loadings and mu, gamma times m,
# uniquenesses times m^2 (compared in logs, where they over- or
# underflow), the same memberships; and exactly the fit in the scaling's
# units, its log-likelihood less n sum(log s).
expect_scaled_fmix <- function(x, m, ref) {
  xm <- x * m
  expect_warning(fit <- fmd_fit(xm), class = "ghmix_warning_scale")
  n <- nrow(x)
  d <- ncol(x)
  expect_equal(fit$loglik + n * d * log(m), ref$loglik, tolerance = 1e-9)
  expect_equal(fit$proportions, ref$proportions, tolerance = 1e-7)
  expect_lte(max(abs(fit$z - ref$z)), 1e-7)
  expect_identical(fit$classification, ref$classification)
  expect_identical(fit$data, xm)
  sc <- fit$scaling
  for (k in 1:2) {
    par <- fit$components[[k]]
    want <- ref$components[[k]]
    expect_equal(par$loadings / m, want$loadings, tolerance = 1e-6)
    expect_equal(par$mu / m, want$mu, tolerance = 1e-7)
    expect_equal(par$gamma / m, want$gamma, tolerance = 1e-6)
    expect_equal(c(par$a, par$b), c(want$a, want$b), tolerance = 1e-6)
    log_d <- log(sc$parameters[[k]]$uniquenesses) + 2 * log(sc$scale)
    expect_equal(log_d - 2 * log(m), log(want$uniquenesses),
                 tolerance = 1e-6)
  }
  # the fit in the units of the scaling, shifted exactly
  z <- (xm - rep(sc$center, each = n)) / rep(sc$scale, each = n)
  fz <- fmd_fit(z)
  expect_identical(fit$loglik, fz$loglik - n * sum(log(sc$scale)))
  expect_identical(fit$proportions, fz$proportions)
  expect_identical(fit$z, fz$z)
  # predict() computes in those units
  expect_equal(predict(fit, xm[1:50, ], type = "membership"),
               unname(ref$z[1:50, ]), tolerance = 1e-7, ignore_attr = TRUE)
  sims <- simulate(fit, nsim = 1, seed = 1)[[1L]]
  expect_true(all(is.finite(sims)))
  fit
}

test_that("factor mixtures of data far out of scale: x * 1e-200, x * 1e200", {
  x <- fmd_sim()
  ref <- fmd_fit(x)
  small <- expect_scaled_fmix(x, 1e-200, ref)
  # (the uniquenesses ~ 1e-400 underflow in the user's units)
  expect_true(all(small$components[[1L]]$uniquenesses <
                    .Machine$double.xmin))
  big <- expect_scaled_fmix(x, 1e200, ref)
  expect_true(all(big$components[[1L]]$uniquenesses == Inf))
  # a scale that needs no standardisation keeps no scaling
  expect_null(ref$scaling)
})
