r <- diff(log(EuStockMarkets))

test_that("fit_nig reaches ghyp's log-likelihood on EuStockMarkets", {
  fit <- fit_nig(r)
  expect_true(fit$converged)
  # ghyp::fit.NIGmv on the same data: 26373.10 (issue 4)
  expect_gte(fit$loglik, 26373.10 - 1e-6)
  expect_s3_class(fit, c("ghmix_fit_nig", "ghmix_fit"))
  expect_identical(names(fit$parameters$mu), colnames(r))
  expect_identical(dimnames(fit$parameters$sigma),
                   list(colnames(r), colnames(r)))
  # gauge "mean": E[Y] = 1
  expect_equal(gig_mean(fit$parameters$p, fit$parameters$a, fit$parameters$b),
               1, tolerance = 1e-12)
})

test_that("fit_nig reaches ghyp's fit.NIGuv log-likelihood on each column", {
  # ghyp 1.6.5 fit.NIGuv(silent = TRUE) on the same returns, printed to 4
  # decimals (see bench/README.md for the peer benchmark that produced them)
  ghyp_llh <- c(DAX = 5984.5785, SMI = 6182.1480, CAC = 5787.2607,
                FTSE = 6397.4001)
  for (col in names(ghyp_llh)) {
    fit <- fit_nig(r[, col])
    expect_true(fit$converged, info = col)
    expect_gte(fit$loglik, ghyp_llh[[col]] - 5e-5)
  }
})

test_that("the log-likelihood never decreases along the iterations", {
  for (acc in c(TRUE, FALSE)) {
    fit <- fit_nig(r, control = ghmix_control(accelerate = acc))
    ll <- fit$trace$loglik
    expect_true(all(diff(ll) >= -1e-9 * abs(ll[-1])), info = paste(acc))
  }
  fit <- suppressWarnings(fit_gh(r))
  ll <- fit$trace$loglik
  expect_true(all(diff(ll) >= -1e-9 * abs(ll[-1])))
})

test_that("fit_gh reaches at least fit_nig's log-likelihood", {
  nig <- fit_nig(r)
  gh <- suppressWarnings(fit_gh(r))
  expect_gte(gh$loglik, nig$loglik)
  dax_nig <- fit_nig(r[, "DAX"])
  dax_gh <- suppressWarnings(fit_gh(r[, "DAX"]))
  expect_gte(dax_gh$loglik, dax_nig$loglik)
})

test_that("d = 1 works from a vector, a one-column matrix and a data frame", {
  v <- as.numeric(r[, "SMI"])
  f1 <- fit_nig(v)
  f2 <- fit_nig(matrix(v, ncol = 1, dimnames = list(NULL, "SMI")))
  f3 <- fit_nig(data.frame(SMI = v))
  expect_equal(f1$loglik, f2$loglik, tolerance = 1e-12)
  expect_equal(f2$parameters, f3$parameters, tolerance = 1e-12)
  expect_identical(names(f3$parameters$mu), "SMI")
  expect_identical(f1$d, 1L)
})

test_that("ties: GH and VG warn; VG stops at the singularity", {
  expect_warning(fit_gh(r[, "DAX"]), class = "ghmix_warning_ties")
  expect_no_warning(fit_nig(r[, "DAX"]))
  w <- list()
  fit <- withCallingHandlers(
    fit_vg(r),
    warning = function(cnd) {
      w[[length(w) + 1L]] <<- cnd
      invokeRestart("muffleWarning")
    }
  )
  classes <- unlist(lapply(w, class))
  expect_true("ghmix_warning_ties" %in% classes)
  expect_true("ghmix_warning_convergence" %in% classes)
  expect_false(fit$converged)
  expect_match(fit$message, "singularity")
  expect_true(all(is.finite(unlist(fit$parameters))))
  # the returned loglik is the last one before the runaway step
  expect_lt(fit$loglik, max(fit$trace$loglik) + 1e-9)
})

test_that("1 and 2 threads give the same fit", {
  set.seed(11)
  par <- sim_params(3, "nig", 11)
  x <- sim_mixture(20000, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
  # bit for bit: the E-step sums its rows in fixed slots, whatever the
  # number of threads (DESIGN.md, section 3)
  f1 <- fit_nig(x, threads = 1)
  f2 <- fit_nig(x, threads = 2)
  expect_identical(f1$loglik, f2$loglik)
  expect_identical(f1$parameters, f2$parameters)
  expect_identical(f1$trace, f2$trace)
  g1 <- suppressWarnings(fit_gh(x[1:3000, ], threads = 1))
  g2 <- suppressWarnings(fit_gh(x[1:3000, ], threads = 2))
  expect_identical(g1$parameters, g2$parameters)
})

test_that("E-steps with K_q tabulated agree with rows evaluated exactly", {
  # 20000 rows take the table (src/cpu/bessel_table.c); blocks of 2500 are
  # evaluated row by row (below MIX_TABLE_MIN_ROWS in src/cpu/mixture_cpu.c):
  # the statistics are additive over rows
  estep <- getFromNamespace("mix_estep", "ghmix")
  engine <- getFromNamespace("mix_engine_cpu", "ghmix")
  for (fam in c("gh", "nig", "vg")) {
    par <- sim_params(3, fam, 21)
    x <- sim_mixture(20000, par$mu, par$gamma, par$sigma, par$p, par$a,
                     par$b)
    if (fam == "nig") par$p <- -0.5 else par$p <- par$p + 0.3
    what <- if (fam == "nig") 1L else 3L
    whole <- unlist(estep(engine(x, 1L), par, what)[1:9])
    parts <- Reduce(`+`, lapply(split(seq_len(20000), rep(1:8, 2500)),
                                function(i) {
                                  unlist(estep(engine(x[i, ], 1L), par,
                                               what)[1:9])
                                }))
    expect_equal(whole, parts, tolerance = 1e-12, info = fam)
  }
})

test_that("fits are equivariant under x -> s x + t", {
  s <- 3.7
  shift <- c(1, -2, 0.5, 10)
  y <- sweep(s * r, 2L, shift, "+")
  for (fam in c("nig", "skewt")) {
    fit_fun <- get(paste0("fit_", fam))
    # EuStockMarkets has 25 repeated rows (holidays): the skew-t fit warns
    fit <- function(x) {
      warned <- FALSE
      out <- withCallingHandlers(fit_fun(x), ghmix_warning_ties = function(w) {
        warned <<- TRUE
        invokeRestart("muffleWarning")
      })
      expect_identical(warned, fam == "skewt", info = fam)
      out
    }
    f <- fit(r)
    g <- fit(y)
    pf <- f$parameters
    pg <- g$parameters
    expect_equal(pg$mu, s * pf$mu + shift, tolerance = 1e-6, info = fam)
    expect_equal(pg$gamma, s * pf$gamma, tolerance = 1e-6, info = fam)
    expect_equal(pg$sigma, s^2 * pf$sigma, tolerance = 1e-6, info = fam)
    expect_equal(c(pg$p, pg$a, pg$b), c(pf$p, pf$a, pf$b), tolerance = 1e-6,
                 info = fam)
    expect_equal(g$loglik, f$loglik - nrow(r) * ncol(r) * log(s),
                 tolerance = 1e-9, info = fam)
  }
})

test_that("gauges report the same distribution", {
  fm <- fit_nig(r, gauge = "mean")
  fd <- fit_nig(r, gauge = "det")
  expect_equal(fm$loglik, fd$loglik, tolerance = 1e-10)
  expect_equal(det(fd$parameters$sigma), 1, tolerance = 1e-10)
  s <- fm$parameters$a / fd$parameters$a
  expect_equal(fd$parameters$sigma, fm$parameters$sigma / s, tolerance = 1e-6)
  expect_equal(fd$parameters$gamma, fm$parameters$gamma / s, tolerance = 1e-6)
})

test_that("symmetric fits have gamma = 0 and lower likelihood", {
  f <- fit_nig(r)
  fs <- fit_nig(r, symmetric = TRUE)
  expect_identical(unname(fs$parameters$gamma), rep(0, 4))
  expect_lte(fs$loglik, f$loglik + 1e-8)
  expect_identical(fs$df, f$df - 4L)
})

test_that("start accepts a previous fit and a list", {
  f <- fit_nig(r)
  g <- fit_nig(r, start = f)
  expect_lte(g$iterations, 3L)
  expect_equal(g$loglik, f$loglik, tolerance = 1e-10)
  h <- suppressWarnings(
    fit_gh(r, start = list(p = -1), control = ghmix_control(max_iter = 5))
  )
  expect_s3_class(h, "ghmix_fit_gh")
  expect_error(fit_nig(r, start = list(mu = 1)), class = "ghmix_error_argument")
})

test_that("bad input gives classed errors that name the problem", {
  x <- as.matrix(r[1:200, ])
  x[c(3, 17), 2] <- NA
  expect_error(fit_nig(x), "2 rows with NA.*3, 17.*na.rm",
               class = "ghmix_error_argument")
  f <- fit_nig(x, na.rm = TRUE)
  expect_identical(f$nobs, 198L)
  expect_identical(f$na_action, c(3L, 17L))
  expect_error(fit_nig(as.matrix(r)[1:4, 1:3]), "more than d \\+ 1",
               class = "ghmix_error_argument")
  y <- as.matrix(r[1:200, ])
  y[, 3] <- 1
  expect_error(fit_nig(y), "constant column.*CAC",
               class = "ghmix_error_argument")
  y <- as.matrix(r[1:200, ])
  y[, 4] <- y[, 1] + 2 * y[, 2]
  expect_error(fit_nig(y), "collinear", class = "ghmix_error_argument")
  df <- data.frame(a = r[1:50, 1], b = letters[1:50])
  expect_error(fit_nig(df), "numeric columns only.*`b`",
               class = "ghmix_error_argument")
  expect_error(fit_nig("a"), "numeric", class = "ghmix_error_argument")
  expect_error(fit_nig(r, gauge = "x"), "gauge", class = "ghmix_error_argument")
  expect_error(fit_nig(r, control = list()), "ghmix_control",
               class = "ghmix_error_argument")
  expect_error(ghmix_control(tol = -1), "tol", class = "ghmix_error_argument")
  expect_error(fit_nig(r, threads = 0), "threads",
               class = "ghmix_error_argument")
})

test_that("backend = 'cuda' is an error of its own class, never a fallback", {
  if (ghmix_info()$cuda) {
    skip_if(NROW(ghmix_info()$devices) > 0, "a CUDA device is present")
    expect_error(fit_nig(r, backend = "cuda"), class = "ghmix_error_no_device")
  } else {
    expect_error(fit_nig(r, backend = "cuda"),
                 class = "ghmix_error_cuda_not_built")
  }
})

# Recovery of known parameters from large simulated samples (issue 4):
# the fitted log-likelihood is at least the one at the truth, and estimates
# are close to the truth.
recovery_case <- function(family, d, n, seed) {
  par <- sim_params(d, family, seed)
  x <- sim_mixture(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
  fit_fun <- get(paste0("fit_", family))
  fit <- suppressWarnings(fit_fun(x))
  list(fit = fit, par = par, x = x)
}

# z-scores of mu and gamma against the truth in the fit's gauge, with the
# standard errors of vcov()
recovery_z <- function(cs) {
  truth <- ghmix:::set_gauge(cs$par, cs$fit$gauge)
  se <- sqrt(diag(vcov(cs$fit)))
  est <- cs$fit$parameters
  nm <- names(est$mu)
  c((est$mu - truth$mu) / se[paste0("mu[", nm, "]")],
    (est$gamma - truth$gamma) / se[paste0("gamma[", nm, "]")])
}

test_that("simulated data: NIG, GH, VG, skew-t parameters are recovered", {
  skip_on_cran()
  cases <- expand.grid(family = c("nig", "gh", "vg", "skewt"), d = c(1, 3),
                       stringsAsFactors = FALSE)
  for (i in seq_len(nrow(cases))) {
    fam <- cases$family[i]
    d <- cases$d[i]
    cs <- recovery_case(fam, d, 1e5, 100 + i)
    info <- paste(fam, d)
    expect_true(cs$fit$converged, info = info)
    expect_gte(cs$fit$loglik, mixture_loglik(cs$x, cs$par, fam) - 1e-6)
    z <- recovery_z(cs)
    expect_true(all(is.finite(z)), info = info)
    expect_lt(max(abs(z)), 5, label = paste(info, "max |z|"))
    truth <- ghmix:::set_gauge(cs$par, cs$fit$gauge)
    sd_x <- sqrt(diag(truth$sigma))
    expect_lt(max(abs(cs$fit$parameters$sigma - truth$sigma) /
                    tcrossprod(sd_x)), 0.1, label = info)
  }
})

test_that("simulated data, d = 10: NIG and GH", {
  skip_on_cran()
  for (fam in c("nig", "gh")) {
    cs <- recovery_case(fam, 10, 1e5, 7)
    expect_true(cs$fit$converged, info = fam)
    expect_gte(cs$fit$loglik, mixture_loglik(cs$x, cs$par, fam) - 1e-6)
    sd_x <- sqrt(diag(cs$par$sigma))
    expect_lt(max(abs(cs$fit$parameters$mu - cs$par$mu) / sd_x), 0.1)
  }
})
