# A mixture started from a mixture fit of another family (issue 31, item
# 5): the mixing laws are moved into the family with Y on the start's
# scale (E[Y] as the start's, so 1 in the gauge "mean"), no component
# collapses, and the fit is at least as good as the one from the default
# starts (the reference).

test_that("the start's laws keep the scale of Y", {
  sub <- function(p, a, b, family) {
    unlist(ghmix:::mix_start_sub(list(p = p, a = a, b = b), list(), family))
  }
  # a VG law of mean 1 as a NIG: mean 1 (gig_mean(), closed form for both)
  nig <- sub(7.5, 15, 0, "nig")
  expect_identical(nig[[1L]], -0.5)
  expect_equal(gig_mean(nig[[1L]], nig[[2L]], nig[[3L]]), 1, tolerance = 1e-12)
  # a NIG law of mean 2 as a VG and as a skew-t: mean 2
  a <- 3
  b <- uniroot(function(b) gig_mean(-0.5, a, b) - 2, c(1e-3, 1e3),
               tol = 1e-14)$root
  m <- sub(-0.5, a, b, "vg")
  expect_equal(gig_mean(m[[1L]], m[[2L]], m[[3L]]), 2, tolerance = 1e-10)
  # as a skew-t it keeps p = -1/2 (E[Y] infinite): the geometric mean
  m <- sub(-0.5, a, b, "skewt")
  eta <- gig_expectation(c(-0.5, m[[1L]]), c(a, m[[2L]]), c(b, m[[3L]]))
  expect_equal(eta[2L, "E_log_y"], eta[1L, "E_log_y"], tolerance = 1e-12)
  # the same family: unchanged, bit for bit
  expect_identical(sub(-0.5, a, b, "nig"), c(-0.5, a, b))
  # a skew-t of 2 degrees of freedom (E[Y] infinite) as a NIG: the same
  # geometric mean exp(E[log Y])
  m <- sub(-1, 0, 2, "nig")
  eta <- gig_expectation(c(-1, m[[1L]]), c(0, m[[2L]]), c(2, m[[3L]]))
  expect_equal(eta[2L, "E_log_y"], eta[1L, "E_log_y"], tolerance = 1e-12)
})

test_that("a start from another family's mixture: no worse than none", {
  set.seed(1)
  x2 <- rbind(matrix(rnorm(200), 100), matrix(rnorm(200, 5), 100))
  fits <- list(nig = fit_nig, vg = fit_vg, skewt = fit_skewt, gh = fit_gh)
  set.seed(1)
  from <- lapply(fits[c("vg", "nig", "gh")], function(f) {
    suppressWarnings(f(x2, components = 2))
  })
  pairs <- list(c("nig", "vg"), c("nig", "gh"), c("vg", "nig"),
                c("skewt", "nig"))
  for (pr in pairs) {
    set.seed(2)
    def <- suppressWarnings(fits[[pr[1L]]](x2, components = 2))
    set.seed(2)
    fit <- suppressWarnings(fits[[pr[1L]]](x2, components = 2,
                                           start = from[[pr[2L]]]))
    expect_identical(fit$G, 2L, label = paste(pr, collapse = " from "))
    expect_gte(fit$loglik, def$loglik - 1e-8 * 200)
    expect_null(fit$dropped)
  }
  # the issue's numbers: G = 2 at about -688.9 (not G = 1 at -814.5)
  fit <- suppressWarnings(fit_nig(x2, components = 2, start = from$vg))
  expect_gt(fit$loglik, -690)
})
