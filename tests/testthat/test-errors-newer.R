# Errors of the newer features that name the argument and the problem
# (issue 31, "Unhelpful errors"), instead of a raw error of base R or one
# that blames another argument.

errors_mixture <- function() {
  set.seed(1)
  x2 <- rbind(matrix(rnorm(200), 100), matrix(rnorm(200, 5), 100))
  list(x = x2, fit = suppressWarnings(fit_nig(x2, components = 2)))
}

expect_error_naming <- function(expr, arg, class = "ghmix_error_argument") {
  err <- expect_error(expr, class = class)
  expect_match(conditionMessage(err), arg, fixed = TRUE)
  invisible(err)
}

test_that("update() of a mixture with new rows; of a fit with weights all 0", {
  m <- errors_mixture()
  expect_error_naming(update(m$fit, m$x[1:50, ]), "`newdata`")
  # without newdata: the call re-evaluated (as stats::update() does)
  x2 <- m$x
  fit <- suppressWarnings(fit_nig(x2, components = 2))
  again <- suppressWarnings(update(fit, nstart = 0))
  expect_s3_class(again, "ghmix_mixture")
  r <- diff(log(EuStockMarkets))[, 1:2]
  f <- fit_nig(r[1:200, ])
  expect_error_naming(update(f, r[201:210, ], weights = rep(0, 10)),
                      "`weights`", class = "ghmix_error_batch")
})

test_that("more components than distinct rows", {
  x <- rbind(matrix(1, 5, 2), matrix(2, 5, 2), c(3, 4))
  expect_error_naming(fit_nig(x, components = 4), "`components`")
  expect_error_naming(fit_nig(c(rep(1, 10), rep(2, 10)), components = 3),
                      "`components`")
})

test_that("gh_law() of a factor fit is its law; of a mixture an error", {
  r <- diff(log(EuStockMarkets))
  ff <- suppressWarnings(fit_nig(r, factors = 1))
  law <- gh_law(ff)
  par <- ff$parameters
  expect_equal(unname(law$sigma),
               unname(tcrossprod(par$loadings) + diag(par$uniquenesses)))
  expect_equal(dgh(r[1:5, ], law, log = TRUE),
               unname(predict(ff, r[1:5, ], type = "log_density")),
               tolerance = 1e-10)
  m <- errors_mixture()
  expect_error_naming(gh_law(m$fit), "components")
  # one component is a law
  expect_s3_class(gh_law(m$fit$components[[1L]]), "ghmix_law")
})

test_that("online EM: a first batch too small names batch_size", {
  ctl <- ghmix_control(online = ghmix_online(batch_size = 1))
  set.seed(2)
  err <- expect_error(fit_nig(matrix(rnorm(200), 100), control = ctl),
                      class = "ghmix_error_batch")
  expect_match(conditionMessage(err), "`batch_size`", fixed = TRUE)
  expect_error_naming(ghmix_online(warmup = 1e10), "1e+10")
})

test_that("efficient_frontier(): the argument at fault", {
  l3 <- gh_law(mu = c(0.01, 0.012, 0.015), gamma = c(0, 0, 0),
               sigma = diag(3) * 1e-3, p = -0.5, a = 1, b = 1)
  expect_error_naming(efficient_frontier(l3, returns = c(0.012, NA)),
                      "position 2")
  leq <- gh_law(mu = c(0.01, 0.01, 0.01), gamma = c(0, 0, 0),
                sigma = diag(3) * 1e-3, p = -0.5, a = 1, b = 1)
  err <- expect_error_naming(efficient_frontier(leq), "`law`")
  expect_false(grepl("target_return", conditionMessage(err), fixed = TRUE))
})

test_that("huge weights and shrink weights", {
  x <- diff(log(EuStockMarkets))[, 1:2]
  expect_error_naming(fit_nig(x, shrink = 1e308), "`shrink`",
                      class = "ghmix_error_shrink")
  fit <- fit_nig(x, shrink = 1e6)
  expect_true(is.finite(fit$objective))
})
