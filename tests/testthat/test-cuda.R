# The CUDA backend: the `device` argument and the classed errors everywhere;
# with a device, parity with the CPU backend (same values to rounding, same
# shapes, attributes, warnings and errors). The standalone CUDA tests in
# tests/c (run-gpu.sh) cover the kernels in depth.

cuda_device_skip_reason <- function() {
  info <- ghmix_info()
  if (!info$cuda) {
    return("this ghmix was built without CUDA")
  }
  if (nrow(info$devices) == 0L) {
    return(paste("no usable CUDA device:", info$devices_reason))
  }
  NULL
}

skip_without_cuda_device <- function() {
  reason <- cuda_device_skip_reason()
  if (!is.null(reason)) {
    testthat::skip(reason)
  }
}

# The class of the error of backend = "cuda" on this build and machine.
cuda_unavailable_class <- function() {
  if (ghmix_info()$cuda) "ghmix_error_no_device" else
    "ghmix_error_cuda_not_built"
}

# Largest |got - ref| / max(1, |ref|) over the finite values; non-finite
# values must be the same (NA, NaN, Inf) in both.
max_err_abs1 <- function(got, ref) {
  got <- as.double(got)
  ref <- as.double(ref)
  testthat::expect_identical(is.na(got), is.na(ref))
  testthat::expect_identical(is.nan(got), is.nan(ref))
  inf <- is.infinite(ref)
  testthat::expect_identical(got[inf], ref[inf])
  ok <- is.finite(ref)
  if (!any(ok)) {
    return(0)
  }
  max(abs(got[ok] - ref[ok]) / pmax(1, abs(ref[ok])))
}

feasible_eta <- c(E_log_y = 0, E_inv_y = 1.5, E_y = 1.6)

test_that("`device` is checked on every backend, and named", {
  bad_devices <- list(-1, "a", 1.5, NA, c(0, 1), NULL, Inf, TRUE,
                      factor("0"))
  for (bad in bad_devices) {
    expect_error(log_besselK(1, 1, device = bad),
                 class = "ghmix_error_argument")
    expect_error(log_besselK(1, 1, device = bad), "`device`")
    expect_error(gig_expectation(1, 1, 1, device = bad), "`device`")
    expect_error(gig_from_expectation(feasible_eta, device = bad),
                 "`device`")
    expect_error(log_besselK(1, 1, backend = "cuda", device = bad),
                 class = "ghmix_error_argument")
  }
  e <- tryCatch(log_besselK(1, 1, device = -1), error = identity)
  expect_identical(conditionCall(e)[[1L]], as.name("log_besselK"))
  # with backend = "cpu" a valid device is accepted and ignored
  expect_identical(log_besselK(2, 1, device = 3), log_besselK(2, 1))
  expect_identical(log_besselK(2, 1, device = 0L), log_besselK(2, 1))
  expect_identical(gig_expectation(1, 2, 3, device = 1),
                   gig_expectation(1, 2, 3))
})

test_that("backend = 'cuda' without a usable device is a classed error", {
  skip_if(is.null(cuda_device_skip_reason()), "a CUDA device is present")
  cls <- cuda_unavailable_class()
  expect_error(log_besselK(1, 1, backend = "cuda"), class = cls)
  expect_error(log_besselK(1, 1, gradient = TRUE, backend = "cuda",
                           device = 1), class = cls)
  expect_error(gig_expectation(1, 1, 1, backend = "cuda"), class = cls)
  expect_error(gig_from_expectation(feasible_eta, backend = "cuda"),
               class = cls)
  e <- tryCatch(gig_expectation(1, 1, 1, backend = "cuda"), error = identity)
  expect_s3_class(e, "ghmix_error")
  expect_identical(conditionCall(e)[[1L]], as.name("gig_expectation"))
  # bad input is the same error on both backends, whatever the device
  expect_error(log_besselK("a", 1, backend = "cuda"),
               class = "ghmix_error_argument")
  expect_error(gig_from_expectation("a", backend = "cuda"),
               class = "ghmix_error_argument")
  expect_error(gig_from_expectation(feasible_eta, jacobian = NA,
                                    backend = "cuda"),
               class = "ghmix_error_argument")
  # the E-step's entry points too
  x <- matrix(as.double(1:20), 10, 2)
  expect_error(.Call(ffi_cuda_mix_data_create, x, 0L), class = cls)
})

test_that("a device index beyond the devices present names `device`", {
  skip_without_cuda_device()
  n <- nrow(ghmix_info()$devices)
  expect_error(log_besselK(1, 1, backend = "cuda", device = n),
               class = "ghmix_error_argument")
  expect_error(log_besselK(1, 1, backend = "cuda", device = n), "`device`")
})

test_that("log_besselK: cuda matches cpu, values, gradient and attributes", {
  skip_without_cuda_device()
  set.seed(42)
  n <- 20000L
  x <- c(10^runif(n, -300, 300), 10^runif(n, -3, 3), 2 + runif(n, -1e-3, 1e-3),
         NA, NaN, 0, Inf, -1, 1, 1)
  nu <- c(runif(n, -1000, 1000), runif(n, -20, 20), runif(n, -16, 16),
          1, 1, 2, 3, 1, NA, Inf)
  cpu <- suppressWarnings(log_besselK(x, nu, gradient = TRUE))
  gpu <- suppressWarnings(log_besselK(x, nu, gradient = TRUE,
                                      backend = "cuda"))
  expect_lte(max_err_abs1(gpu, cpu), 1e-14)
  expect_lte(max_err_abs1(attr(gpu, "gradient"), attr(cpu, "gradient")),
             1e-13)
  expect_identical(dimnames(attr(gpu, "gradient")),
                   dimnames(attr(cpu, "gradient")))
  v <- log_besselK(x[1:1000], nu[1:1000], backend = "cuda")
  expect_lte(max_err_abs1(v, log_besselK(x[1:1000], nu[1:1000])), 1e-14)
  # recycling, names and dimensions as on the CPU
  m <- matrix(c(a = 0.5, b = 1, c = 2, d = 3), 2)
  expect_equal(log_besselK(m, 1.5, backend = "cuda"), log_besselK(m, 1.5),
               tolerance = 1e-14)
  expect_identical(attributes(log_besselK(c(a = 1, b = 2), 0.5,
                                          backend = "cuda")),
                   attributes(log_besselK(c(a = 1, b = 2), 0.5)))
  expect_identical(log_besselK(numeric(), 1, backend = "cuda"), numeric())
  expect_warning(log_besselK(-1, 1, backend = "cuda"), "NaNs produced")
  expect_identical(log_besselK(NA, 1, backend = "cuda"), NA_real_)
})

test_that("gig_expectation: cuda matches cpu", {
  skip_without_cuda_device()
  set.seed(7)
  n <- 5000L
  p <- c(runif(n, -30, 30), 2, -2, -1, NA)
  a <- c(10^runif(n, -6, 6), 1, 0, 1, 1)
  b <- c(10^runif(n, -6, 6), 0, 1, 0, 1)
  cpu <- suppressWarnings(gig_expectation(p, a, b))
  gpu <- suppressWarnings(gig_expectation(p, a, b, backend = "cuda"))
  expect_identical(dimnames(gpu), dimnames(cpu))
  expect_lte(max_err_abs1(gpu[, 1], cpu[, 1]), 1e-13)
  expect_lte(max_err_abs1(log(gpu[, 2:3]), log(cpu[, 2:3])), 1e-13)
  expect_warning(gig_expectation(-1, 1, 0, backend = "cuda"), "NaNs")
})

test_that("gig_from_expectation: cuda matches cpu", {
  skip_without_cuda_device()
  set.seed(3)
  n <- 2000L
  w <- 10^runif(n, -0.3, 0.48)
  s <- 10^runif(n, -2, 2)
  eta <- gig_expectation(runif(n, -2, 2), w / s, w * s)
  eta <- rbind(eta, gig_expectation(3, 2, 0)) # on the gamma boundary
  cpu <- gig_from_expectation(eta, jacobian = TRUE)
  gpu <- gig_from_expectation(eta, jacobian = TRUE, backend = "cuda")
  expect_identical(names(gpu), names(cpu))
  expect_identical(gpu$converged, cpu$converged)
  expect_identical(gpu$note, cpu$note)
  rel <- pmax(abs(gpu$p - cpu$p) / pmax(1, abs(cpu$p)),
              abs(gpu$a - cpu$a) / pmax(cpu$a, 1e-300),
              abs(gpu$b - cpu$b) / pmax(cpu$b, 1e-300))
  expect_lte(max(rel), 1e-10)
  expect_identical(dim(attr(gpu, "jacobian")), dim(attr(cpu, "jacobian")))
  expect_identical(dimnames(attr(gpu, "jacobian")),
                   dimnames(attr(cpu, "jacobian")))
  # warm starts; errors for infeasible rows as on the CPU
  st <- cbind(p = cpu$p, a = cpu$a, b = cpu$b)
  gpu2 <- gig_from_expectation(eta, start = st, backend = "cuda")
  expect_identical(gpu2$converged, cpu$converged)
  bad <- rbind(eta[1:3, ], c(0, 0.5, 1.5))
  e_cpu <- tryCatch(gig_from_expectation(bad), error = identity)
  e_gpu <- tryCatch(gig_from_expectation(bad, backend = "cuda"),
                    error = identity)
  expect_identical(class(e_gpu), class(e_cpu))
  expect_identical(conditionMessage(e_gpu), conditionMessage(e_cpu))
})

test_that("the CUDA E-step matches the CPU E-step and is deterministic", {
  skip_without_cuda_device()
  set.seed(11)
  n <- 3000L
  d <- 3L
  x <- matrix(rnorm(n * d), n, d)
  x[5, 2] <- NA
  center <- colMeans(x, na.rm = TRUE)
  sigma <- crossprod(matrix(rnorm(d * d), d)) / d + diag(d)
  chol_l <- t(chol(sigma))
  gamma <- c(0.2, -0.1, 0.3)
  g <- forwardsolve(chol_l, gamma)
  consts <- c(-0.7, 1.3, 0.8, sum(g^2), 2 * sum(log(diag(chol_l))))
  what <- 3L
  cpu <- .Call(ffi_mix_estep, x, center, chol_l, g, consts, what, TRUE, 1L)
  h <- .Call(ffi_cuda_mix_data_create, x, 0L)
  gpu <- .Call(ffi_cuda_mix_estep, h, center, chol_l, g, consts, what, TRUE)
  expect_identical(attr(gpu, "launches"), 2L)
  expect_identical(dim(attr(gpu, "rows")), dim(attr(cpu, "rows")))
  expect_equal(as.double(gpu), as.double(cpu), tolerance = 1e-12)
  expect_equal(attr(gpu, "rows"), attr(cpu, "rows"), tolerance = 1e-12)
  again <- .Call(ffi_cuda_mix_estep, h, center, chol_l, g, consts, what,
                 FALSE)
  expect_identical(as.double(again), as.double(gpu))
  .Call(ffi_cuda_mix_data_free, h)
  expect_error(.Call(ffi_cuda_mix_estep, h, center, chol_l, g, consts, what,
                     FALSE), "freed")
})

# dgh(), dnig(), predict() and fitted() on the GPU ---------------------------

# Small fits to predict from (fitted on the CPU; their backend never moves
# predict() or fitted() to the GPU).
cuda_test_fits <- function() {
  r <- diff(log(EuStockMarkets))[1:400, ]
  list(
    d1 = fit_nig(r[, "DAX"]),
    d3 = fit_nig(r[, c("DAX", "SMI", "CAC")])
  )
}

test_that("dgh, dnig, predict, fitted: `backend` and `device` are checked", {
  fits <- cuda_test_fits()
  for (bad in list(-1, "a", 1.5, NA, c(0, 1))) {
    expect_error(dgh(1, device = bad), class = "ghmix_error_argument")
    expect_error(dgh(1, device = bad), "`device`")
    expect_error(dgh(matrix(1:4, 2), sigma = diag(2), device = bad),
                 "`device`")
    expect_error(dnig(1, device = bad), "`device`")
    expect_error(predict(fits$d1, 0.01, device = bad), "`device`")
    expect_error(fitted(fits$d1, device = bad), "`device`")
  }
  for (bad in list("gpu", NA, 1, c("cpu", "gpu"))) {
    expect_error(dgh(1, backend = bad), class = "ghmix_error_argument")
    expect_error(dgh(1, backend = bad), "`backend`")
    expect_error(predict(fits$d3, backend = bad), "`backend`")
    expect_error(fitted(fits$d1, backend = bad), "`backend`")
  }
  expect_error(predict(fits$d1, 0.01, threads = 0), "`threads`")
  # "cpu" is the default, and a device is ignored there
  x <- c(a = -1, b = 0, c = 2.5)
  expect_identical(dgh(x, gamma = 0.3, backend = "cpu", device = 3),
                   dgh(x, gamma = 0.3))
  expect_identical(dnig(x, backend = "cpu"), dnig(x))
  expect_identical(predict(fits$d3, backend = "cpu", device = 2),
                   predict(fits$d3))
  expect_identical(fitted(fits$d1, backend = "cpu", threads = 1),
                   fitted(fits$d1))
  # a fit made with backend = "cuda" still predicts on the CPU by default
  cuda_made <- fits$d3
  cuda_made$backend <- "cuda"
  expect_identical(predict(cuda_made, type = "moments"),
                   predict(fits$d3, type = "moments"))
  expect_identical(fitted(cuda_made), fitted(fits$d3))
})

test_that("dgh, dnig, predict, fitted: backend = 'cuda' without a device", {
  skip_if(is.null(cuda_device_skip_reason()), "a CUDA device is present")
  cls <- cuda_unavailable_class()
  fits <- cuda_test_fits()
  s3 <- matrix(c(2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 1), 3)
  x3 <- matrix(rnorm(12), 4, 3)
  expect_error(dgh(c(-1, 0, 1), backend = "cuda"), class = cls)
  expect_error(dgh(1, gamma = 1:3, backend = "cuda", device = 1),
               class = cls)
  expect_error(dgh(x3, sigma = s3, backend = "cuda"), class = cls)
  expect_error(dgh(x3[, 1, drop = FALSE], backend = "cuda"), class = cls)
  expect_error(dnig(1, backend = "cuda"), class = cls)
  expect_error(dnig(x3, sigma = s3, log = TRUE, backend = "cuda"),
               class = cls)
  expect_error(predict(fits$d1, c(-0.01, 0.02), backend = "cuda"),
               class = cls)
  expect_error(predict(fits$d3, type = "moments", backend = "cuda"),
               class = cls)
  expect_error(fitted(fits$d1, backend = "cuda"), class = cls)
  e <- tryCatch(dgh(1, backend = "cuda"), error = identity)
  expect_s3_class(e, "ghmix_error")
  expect_identical(conditionCall(e)[[1L]], as.name("dgh"))
  expect_match(conditionMessage(e), 'backend = "cuda"')
  # bad input is the same error on both backends
  expect_error(dgh("a", backend = "cuda"), class = "ghmix_error_argument")
  # (an invalid parameter value is NaN with a warning on either backend,
  # the project lead's decision, issue 17: without a device, the backend's
  # error)
  expect_error(dgh(1, sigma = -1, backend = "cuda"), class = cls)
  expect_error(dgh(1, a = -1, backend = "cuda"), class = cls)
  expect_error(dgh(x3, sigma = diag(2), backend = "cuda"),
               class = "ghmix_error_argument")
  expect_error(dgh(x3, sigma = s3, p = 1:2, backend = "cuda"),
               class = "ghmix_error_argument")
  expect_error(predict(fits$d3, matrix(1, 2, 2), backend = "cuda"),
               class = "ghmix_error_argument")
  expect_error(predict(fits$d3, type = "quantile", backend = "cuda"),
               "should be one of")
  # the C entry points themselves
  expect_error(.Call(ffi_dgh1, 1, 0, 0, 1, -0.5, 1, 1, FALSE, 1L, 0L),
               class = cls)
  chol_l <- t(chol(s3))
  expect_error(.Call(ffi_cuda_mix_rows, x3, c(0, 0, 0), chol_l, c(0, 0, 0),
                     c(-0.5, 1, 1, 0, 2 * sum(log(diag(chol_l)))), 3L, TRUE,
                     TRUE, 0L),
               class = cls)
})

test_that("dgh and dnig: cuda matches cpu (univariate and multivariate)", {
  skip_without_cuda_device()
  set.seed(5)
  n <- 20000L
  # univariate: one parameter set, with tails, the centre and NA/NaN/Inf
  x <- c(rnorm(n, sd = 3), 10^runif(200, 1, 8) * sample(c(-1, 1), 200, TRUE),
         0.2, Inf, -Inf, NA, NaN, 1e200)
  for (par in list(list(p = -0.5, a = 1.3, b = 0.7), # NIG
                   list(p = 1.5, a = 2, b = 0),      # variance gamma
                   list(p = -3, a = 0, b = 4),       # skew-t
                   list(p = 2.2, a = 30, b = 40))) {
    for (lg in c(FALSE, TRUE)) {
      cpu <- dgh(x, mu = 0.2, gamma = -0.7, sigma = 1.4, p = par$p,
                 a = par$a, b = par$b, log = lg)
      gpu <- dgh(x, mu = 0.2, gamma = -0.7, sigma = 1.4, p = par$p,
                 a = par$a, b = par$b, log = lg, backend = "cuda")
      if (lg) {
        expect_lte(max_err_abs1(gpu, cpu), 1e-12)
      } else {
        expect_lte(max_err_abs1(log(gpu), log(cpu)), 1e-12)
      }
    }
  }
  # parameters per element, recycled, with names and NA in a parameter
  xs <- c(a = -2, b = 0, c = 0.5, d = 3, e = 40)
  mu <- c(0, 0.1)
  gam <- c(-1, 0, 0.5, 2, NA)
  cpu <- dgh(xs, mu = mu, gamma = gam, p = c(-0.5, 1), b = c(1, 0.5))
  gpu <- dgh(xs, mu = mu, gamma = gam, p = c(-0.5, 1), b = c(1, 0.5),
             backend = "cuda")
  expect_identical(attributes(gpu), attributes(cpu))
  expect_lte(max_err_abs1(log(gpu), log(cpu)), 1e-12)
  expect_identical(dgh(numeric(), backend = "cuda"), dgh(numeric()))
  expect_identical(names(dnig(xs, gamma = 0.5, log = TRUE,
                              backend = "cuda")), names(xs))
  expect_lte(max_err_abs1(dnig(xs, gamma = 0.5, backend = "cuda"),
                          dnig(xs, gamma = 0.5)), 1e-13)
  # multivariate: d = 3 with NA, NaN and Inf rows and row names; d = 1
  s3 <- matrix(c(2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 1), 3)
  xm <- matrix(rnorm(3 * 5000, sd = 2), ncol = 3,
               dimnames = list(paste0("r", 1:5000), NULL))
  xm[3, 2] <- NA
  xm[4, 1] <- NaN
  xm[5, 3] <- Inf
  for (lg in c(FALSE, TRUE)) {
    args <- list(xm, mu = c(0, 1, -1), gamma = c(0.5, 0, -0.2), sigma = s3,
                 p = -1.2, a = 0.8, b = 1.5, log = lg)
    cpu <- do.call(dgh, args)
    gpu <- do.call(dgh, c(args, backend = "cuda"))
    expect_identical(names(gpu), names(cpu))
    expect_lte(max_err_abs1(if (lg) gpu else log(gpu),
                            if (lg) cpu else log(cpu)), 1e-12)
  }
  expect_lte(max_err_abs1(
    dnig(xm[1:10, ], sigma = s3, backend = "cuda", log = TRUE),
    dnig(xm[1:10, ], sigma = s3, log = TRUE)
  ), 1e-12)
  x1 <- matrix(rnorm(100), ncol = 1)
  expect_lte(max_err_abs1(dgh(x1, sigma = matrix(4), backend = "cuda"),
                          dgh(x1, sigma = matrix(4))), 1e-13)
  # one observation of a multivariate distribution
  expect_equal(dgh(c(0.1, 0.2, 0.3), sigma = s3, backend = "cuda"),
               dgh(c(0.1, 0.2, 0.3), sigma = s3), tolerance = 1e-12)
})

test_that("predict and fitted: cuda matches cpu", {
  skip_without_cuda_device()
  fits <- cuda_test_fits()
  for (fit in fits) {
    for (type in c("density", "log_density", "moments")) {
      cpu <- predict(fit, type = type)
      gpu <- predict(fit, type = type, backend = "cuda")
      expect_identical(dimnames(gpu), dimnames(cpu))
      expect_identical(names(gpu), names(cpu))
      expect_lte(max_err_abs1(if (type == "density") log(gpu) else gpu,
                              if (type == "density") log(cpu) else cpu),
                 1e-12)
    }
    expect_lte(max_err_abs1(fitted(fit, backend = "cuda"), fitted(fit)),
               1e-12)
  }
  # new data with missing and infinite rows
  nd <- rbind(c(0.01, -0.02, 0), c(NA, 0, 0), c(Inf, 0, 0), c(0, 0, 0.03))
  expect_equal(predict(fits$d3, nd, type = "moments", backend = "cuda"),
               predict(fits$d3, nd, type = "moments"), tolerance = 1e-12)
  expect_equal(predict(fits$d1, c(-0.05, NA, 0.05), backend = "cuda"),
               predict(fits$d1, c(-0.05, NA, 0.05)), tolerance = 1e-12)
})

test_that("ghmix_info() gives each device's float64 rate", {
  expect_identical(float64_rate(c(9L, 8L, 8L, 7L, 12L), c(0L, 0L, 9L, 5L, 0L)),
                   c("full (1:2)", "full (1:2)", "1:32 or 1:64 of float32",
                     "1:32 or 1:64 of float32", "1:32 or 1:64 of float32"))
  expect_identical(float64_rate(integer(), integer()), character())
  info <- ghmix_info()
  if (nrow(info$devices) > 0L) {
    expect_true(all(nzchar(info$devices$float64_rate)))
    expect_output(print(info), "float64")
  }
  # the printed warning for a device with a low float64 rate
  info$devices <- data.frame(
    id = 0L, name = "Tesla T4", memory_gib = 15, compute_capability = "7.5",
    multiprocessors = 40L, float64_rate = float64_rate(7L, 5L),
    stringsAsFactors = FALSE
  )
  info$devices_reason <- NA_character_
  out <- paste(capture.output(print(info)), collapse = "\n")
  expect_match(out, "Tesla T4")
  expect_match(out, "Warning: device 0")
  expect_match(out, "slower than the CPU")
})

# Factor fits (`factors = r`) on the GPU ---------------------------------------

cuda_factor_data <- function(n = 400L, d = 6L, seed = 5L) {
  set.seed(seed)
  f <- matrix(runif(d * 2L, -1, 1), d, 2L)
  w <- rgig(n, -0.5, 1, 1)
  z <- matrix(rnorm(n * d), n, d) %*% chol(tcrossprod(f) + diag(0.5, d))
  z * sqrt(w) + outer(w, seq(-0.2, 0.3, length.out = d))
}

test_that("factor fits with backend = 'cuda' without a device: classed error", {
  skip_if(is.null(cuda_device_skip_reason()), "a CUDA device is present")
  cls <- cuda_unavailable_class()
  x <- cuda_factor_data()
  expect_error(fit_nig(x, factors = 1, backend = "cuda"), class = cls)
  expect_error(fit_gh(x, factors = 2, backend = "cuda",
                      weights = rep(1:2, 200)),
               class = cls)
  e <- tryCatch(fit_nig(x, factors = 1, backend = "cuda"), error = identity)
  expect_match(conditionMessage(e), 'backend = "cuda"')
  fit <- fit_nig(x, factors = 1)
  expect_error(fitted(fit, backend = "cuda"), class = cls)
  expect_error(predict(fit, x[1:3, ], backend = "cuda"), class = cls)
  # bad input is the same error on both backends
  expect_error(fit_nig(x, factors = 1.5, backend = "cuda"),
               class = "ghmix_error_argument")
  # the C entry points themselves
  expect_error(.Call(ffi_cuda_factor_data_create, x, NULL, 0L), class = cls)
})

test_that("factor fits: cuda matches cpu (fit, E-step launches, rows)", {
  skip_without_cuda_device()
  x <- cuda_factor_data(3000L, 12L)
  w <- rep(c(0.5, 1, 2), 1000L)
  for (fam in list(fit_nig, fit_gh)) {
    cpu <- fam(x, factors = 2, weights = w)
    gpu <- fam(x, factors = 2, weights = w, backend = "cuda")
    expect_identical(gpu$backend, "cuda")
    expect_equal(gpu$loglik, cpu$loglik, tolerance = 1e-9)
    expect_equal(gpu$parameters$mu, cpu$parameters$mu, tolerance = 1e-5)
    expect_equal(tcrossprod(gpu$loadings) + diag(gpu$uniquenesses),
                 tcrossprod(cpu$loadings) + diag(cpu$uniquenesses),
                 tolerance = 1e-5)
    expect_gt(gpu$timings[["launches"]], 0)
    expect_lte(max_err_abs1(fitted(cpu, backend = "cuda"), fitted(cpu)),
               1e-12)
  }
})

# Two clusters of factor-GH rows (d = 8, one factor each) and row weights.
cuda_factor_mixture_data <- function(n = 1200L, d = 8L) {
  set.seed(23)
  x <- rbind(cuda_factor_data(n %/% 2L, d),
             cuda_factor_data(n %/% 2L, d) + rep(c(5, rep(0, d - 1L)),
                                                 each = n %/% 2L))
  list(x = x, w = rep(c(0.5, 1, 2), length.out = n))
}

test_that("factor mixtures: cuda matches cpu (E-step, fits), or the error", {
  dat <- cuda_factor_mixture_data()
  reason <- cuda_device_skip_reason()
  if (!is.null(reason)) {
    cls <- cuda_unavailable_class()
    expect_error(fit_nig(dat$x, components = 2, factors = 1,
                         backend = "cuda"), class = cls)
    expect_error(fit_gh(dat$x, components = 2, factors = 1, weights = dat$w,
                        shrink = 10, backend = "cuda"), class = cls)
    skip(reason)
  }
  # one E-step of the mixture: the GPU's one pass (every row's components,
  # memberships and sums with weights w_i tau_ik) against the CPU's
  z <- scale(dat$x)
  d <- ncol(z)
  pars <- lapply(c(-1, 1), function(s) {
    list(mu = rep(s * 0.5, d), gamma = rep(0.1, d),
         loadings = matrix(seq(0.2, 0.9, length.out = d), d, 1L),
         uniquenesses = rep(0.6, d), p = -0.5, a = 1, b = 1)
  })
  what <- mix_what("nig")
  cpu_es <- mixture_factor_estep(z, pars, c(0.4, 0.6), dat$w, what, TRUE, 1L)
  rows_gpu <- factor_cuda_data(z, rep(1, nrow(z)), 0L)
  gpu_es <- mixture_factor_estep_cuda(rows_gpu, rep(1, nrow(z)))(
    z, pars, c(0.4, 0.6), dat$w, what, TRUE
  )
  rows_gpu$free()
  expect_equal(gpu_es$loglik, cpu_es$loglik, tolerance = 1e-12)
  expect_identical(gpu_es$n, cpu_es$n)
  expect_lte(max_err_abs1(gpu_es$rows$tau, cpu_es$rows$tau), 1e-12)
  for (k in 1:2) {
    for (nm in c("tau", "s_inv", "s_y", "sx", "sxw", "sxx_diag", "sxx_proj",
                 "proj", "logdet")) {
      expect_lte(max_err_abs1(gpu_es$components[[k]][[nm]],
                              cpu_es$components[[k]][[nm]]), 1e-11)
    }
  }
  # the fits: the same EM from the same starts, the sums differ by rounding
  for (shrink in list(NULL, ghmix_shrink("diagonal", 20))) {
    set.seed(3)
    cpu <- fit_nig(dat$x, components = 2, factors = 1, weights = dat$w,
                   shrink = shrink)
    set.seed(3)
    gpu <- fit_nig(dat$x, components = 2, factors = 1, weights = dat$w,
                   shrink = shrink, backend = "cuda")
    expect_equal(gpu$loglik, cpu$loglik, tolerance = 1e-9)
    expect_equal(gpu$objective, cpu$objective, tolerance = 1e-9)
    expect_equal(gpu$proportions, cpu$proportions, tolerance = 1e-6)
    expect_equal(gpu$z, cpu$z, tolerance = 1e-6)
    for (k in 1:2) {
      sig <- function(par) tcrossprod(par$loadings) + diag(par$uniquenesses)
      expect_equal(sig(gpu$components[[k]]), sig(cpu$components[[k]]),
                   tolerance = 1e-5)
    }
  }
})

# Factor fits on chunks, on a future plan and on a cluster ---------------------

# GH rows with Sigma = F F' + diag(D), F d x 2.
cuda_factor_rows <- function(n, d, seed = 5L) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * 2L), d, 2L)
  rgh(n, stats::rnorm(d), stats::rnorm(d) * 0.3,
      factor_cov(f, stats::runif(d, 0.3, 1)), 1, 2, 1)
}

cuda_factor_chunks <- function(x, w, k = 3L) {
  idx <- split(seq_len(nrow(x)), rep(seq_len(k), length.out = nrow(x)))
  unname(lapply(idx, function(i) list(x = x[i, ], weights = w[i])))
}

factor_sigma <- function(fit) {
  tcrossprod(fit$parameters$loadings) + diag(fit$parameters$uniquenesses)
}

test_that("chunked factor fits with backend = 'cuda' without a device", {
  skip_if(is.null(cuda_device_skip_reason()), "a CUDA device is present")
  cls <- cuda_unavailable_class()
  x <- cuda_factor_rows(400L, 5L)
  data <- ghmix_data(cuda_factor_chunks(x, rep(1:2, 200)))
  # the CUDA error of a full-Sigma fit, no longer ghmix_error_factor_mode
  expect_error(fit_nig(data, factors = 1, backend = "cuda"), class = cls)
  expect_error(fit_gh(data, factors = 2, backend = "cuda"), class = cls)
  expect_error(fit_nig(data, backend = "cuda"), class = cls)
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  full <- tryCatch(fit_nig(data, backend = "cuda", cluster = "future"),
                   error = identity)
  fac <- tryCatch(fit_nig(data, factors = 1, backend = "cuda",
                          cluster = "future"),
                  error = identity)
  expect_s3_class(full, "ghmix_error")
  expect_identical(class(fac), class(full))
  expect_false(inherits(fac, "ghmix_error_factor_mode"))
  expect_match(conditionMessage(fac), 'backend = "cuda"')
})

# What src/cuda/host.cu says after a sticky CUDA error (tests/c
# test_cuda_host.cc checks that side: the message, and that every later
# call gives it).
cuda_fault_message <- paste(
  "running the E-step kernel failed: an illegal memory access was",
  "encountered (cudaErrorIllegalAddress). The GPU's CUDA context is lost",
  "for this process: restart R to use the GPU again (backend = \"cpu\"",
  "still works)"
)

# Puts the functions `values` in the package's namespace in place of its
# own; returns the function that puts its own back.
cuda_stand_in <- function(values) {
  ns <- asNamespace("ghmix")
  old <- mget(names(values), envir = ns)
  set <- function(values) {
    for (nm in names(values)) {
      unlockBinding(nm, ns)
      assign(nm, values[[nm]], envir = ns)
      lockBinding(nm, ns)
    }
  }
  set(values)
  function() set(old)
}

# A stand-in for the GPU at the R level: `cuda_require` says one device,
# and the factor engine's device data and E-step (factor_cuda_data(),
# factor_cuda_estep_raw()) run the CPU's ffi_mix_estep_factor() on the rows
# they hold; each call is counted in `seen`.  Returns the function that
# restores the package's own (the calling test runs it on exit).
cuda_factor_stand_in <- function(seen, fault_at = Inf) {
  seen$created <- 0L
  seen$freed <- 0L
  seen$esteps <- 0L
  stand_in <- list(
    cuda_require = function(call) 1L,
    factor_cuda_data = function(x, weights, device) {
      seen$created <- seen$created + 1L
      list(handle = list(x = x, weights = weights), dim = dim(x),
           free = function() seen$freed <- seen$freed + 1L)
    },
    factor_cuda_estep_raw = function(data, args) {
      seen$esteps <- seen$esteps + 1L
      if (seen$esteps >= fault_at) {
        # as src/r_errors.c signals the fault src/cuda/host.cu reports
        ghmix:::abort_status(cuda_fault_message, "cuda_fault")
      }
      .Call(ghmix:::ffi_mix_estep_factor, data$handle$x, data$handle$weights,
            args$center, args$loadings, args$uniquenesses, args$gamma,
            args$pab, args$what, FALSE, 1L)
    }
  )
  cuda_stand_in(stand_in)
}

test_that("chunked factor fits take each chunk's E-step to the GPU engine", {
  x <- cuda_factor_rows(600L, 5L)
  w <- rep(c(0.5, 1, 0.75), length.out = nrow(x))
  data <- ghmix_data(cuda_factor_chunks(x, w))
  # (GH: 40 iterations, not converged; the same on both)
  ctl_gh <- ghmix_control(max_iter = 40L)
  cpu_nig <- fit_nig(data, factors = 2)
  cpu_gh <- suppressWarnings(fit_gh(data, factors = 1, control = ctl_gh))
  seen <- new.env()
  restore <- cuda_factor_stand_in(seen)
  on.exit(restore(), add = TRUE)
  gpu_nig <- fit_nig(data, factors = 2, backend = "cuda")
  # every chunk at every E-step on the device, its memory freed each time
  expect_gt(seen$esteps, 3L * cpu_nig$iterations)
  expect_identical(seen$esteps %% 3L, 0L)
  expect_identical(seen$created, seen$esteps)
  expect_identical(seen$freed, seen$created)
  # the chunks' sums in chunk order: the CPU's numbers
  expect_identical(gpu_nig$parameters, cpu_nig$parameters)
  expect_identical(gpu_nig$loglik, cpu_nig$loglik)
  expect_identical(gpu_nig$iterations, cpu_nig$iterations)
  gpu_gh <- suppressWarnings(fit_gh(data, factors = 1, backend = "cuda",
                                    control = ctl_gh))
  expect_identical(gpu_gh$parameters, cpu_gh$parameters)
  expect_identical(gpu_gh$loglik, cpu_gh$loglik)
  if (!is.null(cuda_device_skip_reason())) {
    # a full-Sigma chunked fit never reaches the factor engine
    n <- seen$esteps
    expect_error(fit_nig(data, backend = "cuda"), "built without CUDA|device",
                 class = "ghmix_error_chunk")
    expect_identical(seen$esteps, n)
  }
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  fut <- fit_nig(data, factors = 2, backend = "cuda", cluster = "future")
  expect_identical(fut$parameters, cpu_nig$parameters)
  expect_identical(seen$freed, seen$created)
})

test_that("chunked and cluster factor fits: cuda matches cpu", {
  skip_without_cuda_device()
  x <- cuda_factor_rows(3000L, 12L)
  w <- rep(c(0.5, 1, 2), 1000L)
  data <- ghmix_data(cuda_factor_chunks(x, w))
  for (fam in list(fit_nig, fit_gh)) {
    cpu <- fam(data, factors = 2)
    gpu <- fam(data, factors = 2, backend = "cuda")
    mem <- fam(x, factors = 2, weights = w, backend = "cuda")
    expect_identical(gpu$backend, "cuda")
    expect_equal(gpu$loglik, cpu$loglik, tolerance = 1e-9)
    expect_equal(gpu$parameters$mu, cpu$parameters$mu, tolerance = 1e-5)
    expect_equal(factor_sigma(gpu), factor_sigma(cpu), tolerance = 1e-5)
    # the sums of the chunks' E-steps on the GPU: those of all the rows
    expect_equal(gpu$loglik, mem$loglik, tolerance = 1e-9)
  }
  cpu <- fit_nig(data, factors = 2)
  skip_on_os("windows")
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster can start here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  # the workers keep their chunks on the GPU for the whole fit
  on_cl <- fit_nig(data, factors = 2, backend = "cuda", cluster = cl,
                   threads = 1L)
  expect_identical(on_cl$distributed$mode, "cluster")
  expect_equal(on_cl$loglik, cpu$loglik, tolerance = 1e-9)
  expect_equal(factor_sigma(on_cl), factor_sigma(cpu), tolerance = 1e-5)
})

test_that("a device fault is a classed error that says to restart R", {
  e <- tryCatch(ghmix:::abort_status(cuda_fault_message, "cuda_fault"),
                error = identity)
  expect_identical(class(e)[1:3], c("ghmix_error_cuda_fault",
                                    "ghmix_error_cuda", "ghmix_error"))
  # a fit whose E-step faults on the GPU stops with it: no retry, no
  # other start or M-step swallows it, and the device memory is freed
  x <- cuda_factor_rows(600L, 5L)
  data <- ghmix_data(cuda_factor_chunks(x, rep(1, nrow(x))))
  seen <- new.env()
  restore <- cuda_factor_stand_in(seen, fault_at = 5L)
  on.exit(restore(), add = TRUE)
  e <- tryCatch(fit_nig(data, factors = 2, backend = "cuda"),
                error = identity)
  # (the chunk's error, which keeps the fault's classes)
  expect_s3_class(e, "ghmix_error_chunk")
  expect_s3_class(e, "ghmix_error_cuda_fault")
  expect_s3_class(e, "ghmix_error_cuda")
  expect_match(conditionMessage(e), "restart R")
  expect_match(conditionMessage(e), "illegal memory access", fixed = TRUE)
  expect_identical(seen$esteps, 5L)
  expect_identical(seen$freed, seen$created)
  # (a handler for ghmix_error_cuda sees it too)
  caught <- tryCatch(fit_nig(data, factors = 2, backend = "cuda"),
                     ghmix_error_cuda = function(e) "caught")
  expect_identical(caught, "caught")
})

# The factor mixture's GPU engine at the R level, with the device's one
# pass (factor_cuda_estep_mixture_raw()) standing in as the CPU's one pass
# over the same rows (ffi_factor_estep_mixture, the same raw statistics
# and rows).
cuda_factor_mixture_stand_in <- function(seen) {
  seen$passes <- 0L
  seen$uploads <- 0L
  stand_in <- list(
    cuda_require = function(call) 1L,
    factor_cuda_data = function(x, weights, device) {
      list(handle = list(x = x, weights = weights), dim = dim(x),
           free = function() NULL)
    },
    factor_cuda_weights = function(data, w) seen$uploads <- seen$uploads + 1L,
    factor_cuda_estep_mixture_raw = function(data, pars, props, what, rows) {
      seen$passes <- seen$passes + 1L
      ghmix:::mixture_factor_raw(data$handle$x, data$handle$weights, pars,
                                 props, what, rows, 1L)
    }
  )
  cuda_stand_in(stand_in)
}

test_that("factor mixtures on the GPU: one device pass per E-step", {
  dat <- cuda_factor_mixture_data()
  ctl <- ghmix_control(max_iter = 30L)
  set.seed(3)
  cpu <- suppressWarnings(fit_nig(dat$x, components = 2, factors = 1,
                                  weights = dat$w, control = ctl))
  seen <- new.env()
  restore <- cuda_factor_mixture_stand_in(seen)
  on.exit(restore(), add = TRUE)
  set.seed(3)
  gpu <- suppressWarnings(fit_nig(dat$x, components = 2, factors = 1,
                                  weights = dat$w, control = ctl,
                                  backend = "cuda"))
  # the weights stay on the device, and every E-step (of the starts too)
  # was the device's one pass
  expect_identical(seen$uploads, 0L)
  expect_gte(seen$passes, gpu$iterations)
  # the same numbers as the CPU's fit
  expect_identical(gpu$loglik, cpu$loglik)
  expect_identical(gpu$components, cpu$components)
  expect_identical(gpu$proportions, cpu$proportions)
  expect_identical(gpu$z, cpu$z)
})
