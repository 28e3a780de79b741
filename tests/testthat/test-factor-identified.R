# Factors that are not identified (issue 31, item 9): with (d - r)^2 < d +
# r (Ledermann's bound) the factor model is the full Sigma, so df counts
# at most the full Sigma's d (d + 1) / 2 (the reference: the df of the
# full-Sigma fit, whose log-likelihood it reaches), the fit warns, and
# vcov() says why it has no standard errors.

test_that("df of factors = d - 1 is that of the full Sigma", {
  set.seed(1)
  x5 <- matrix(rt(2000, 6), 400) %*% matrix(runif(25), 5)
  classes <- function(expr) {
    cls <- character()
    value <- withCallingHandlers(expr, warning = function(w) {
      cls <<- c(cls, class(w))
      invokeRestart("muffleWarning")
    })
    list(value = value, classes = cls)
  }
  full <- suppressWarnings(fit_nig(x5))
  for (r in 3:4) {
    res <- classes(fit_nig(x5, factors = r))
    fit <- res$value
    expect_true("ghmix_warning_factors" %in% res$classes)
    expect_identical(fit$df, full$df)
    # the full Sigma's log-likelihood bounds it (D > 0 is a constraint)
    expect_lte(fit$loglik, full$loglik + 1e-6 * nrow(x5))
    msgs <- character()
    v <- withCallingHandlers(vcov(fit), ghmix_warning_vcov = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    expect_true(any(grepl("not identified", msgs)))
    expect_true(all(is.na(v)))
  }
  # identified: r <= 2 in d = 5, df as before (d r + d - r (r - 1) / 2
  # for F and D), no such warning
  for (r in 1:2) {
    res <- classes(fit_nig(x5, factors = r))
    expect_false("ghmix_warning_factors" %in% res$classes)
    expect_identical(res$value$df,
                     full$df - 15 + (5 * r + 5 - r * (r - 1) / 2))
  }
})

test_that("the identification rule", {
  ident <- ghmix:::factor_identified
  expect_true(ident(5, 2))
  expect_false(ident(5, 3))
  # just identified: 6 parameters, as many as Sigma's
  expect_true(ident(3, 1))
  expect_false(ident(3, 2))
  # 6 factors in d = 10: as many parameters as Sigma
  expect_true(ident(10, 6))
  expect_false(ident(10, 7))
  # df never above the full Sigma's
  for (d in 2:8) {
    for (r in seq_len(d - 1L)) {
      expect_lte(ghmix:::model_df("nig", FALSE, d, r),
                 ghmix:::model_df("nig", FALSE, d))
    }
  }
})
