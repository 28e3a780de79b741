# Mixing parameters held at tiny values (issue 31, item 8): a from 1e-50
# to 1e-300 (d = 1 and 2) gives the skew-t fit (its limit a = 0: the
# reference, fit by fit_skewt()), b = 1e-300 the VG fit; a subnormal value
# is an error naming it; never a raw uniroot() error.

test_that("fixed a from 1e-20 to 1e-300: the skew-t fit", {
  r <- diff(log(EuStockMarkets))
  for (d in 1:2) {
    x <- r[, seq_len(d)]
    ref <- suppressWarnings(fit_skewt(x))
    for (a in c(1e-20, 1e-50, 1e-300)) {
      fit <- suppressWarnings(fit_gh(x, fixed = list(a = a)))
      label <- sprintf("a = %g, d = %d", a, d)
      expect_true(fit$converged, label = label)
      expect_identical(fit$parameters$a, a)
      # the log-likelihoods within the EM's tolerance (per row)
      expect_lt(abs(fit$loglik - ref$loglik) / nrow(r), 1e-7, label = label)
      expect_equal(fit$parameters$p, ref$parameters$p, tolerance = 1e-3,
                   label = label)
    }
  }
})

test_that("fixed b = 1e-300: the VG fit", {
  r <- diff(log(EuStockMarkets))[, 1]
  ref <- suppressWarnings(fit_vg(r))
  fit <- suppressWarnings(fit_gh(r, fixed = list(b = 1e-300)))
  expect_true(fit$converged)
  expect_lt(abs(fit$loglik - ref$loglik) / length(r), 1e-7)
})

test_that("a subnormal a or b is an error naming it", {
  r <- diff(log(EuStockMarkets))[, 1]
  for (nm in c("a", "b")) {
    err <- expect_error(fit_gh(r, fixed = stats::setNames(list(5e-324), nm)),
                        class = "ghmix_error_argument")
    expect_match(conditionMessage(err), sprintf("`fixed$%s`", nm),
                 fixed = TRUE)
  }
})
