# The boundary Sigma -> 0 of a univariate NIG (issue 31, item 10): for
# faithful's eruption times the likelihood's supremum is the law of mu +
# gamma Y, a reflected and shifted inverse Gaussian; the fit says so and
# its `limit` is that law's maximum-likelihood fit (the reference: a
# plain-R fit of the three-parameter shifted inverse Gaussian by optim(),
# with the closed-form density).

test_that("faithful's eruptions: the NIG's supremum at Sigma -> 0", {
  x <- faithful[, 1]
  warns <- character()
  fit <- withCallingHandlers(fit_nig(x), warning = function(w) {
    warns <<- c(warns, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_false(fit$converged)
  expect_match(fit$message, "boundary Sigma -> 0", fixed = TRUE)
  expect_match(fit$message, "inverse Gaussian", fixed = TRUE)
  expect_true(any(grepl("boundary Sigma -> 0", warns, fixed = TRUE)))
  lim <- fit$limit
  expect_identical(lim$sign, -1)
  expect_gte(lim$loglik, fit$loglik)
  # independent: X = mu - Y, Y inverse Gaussian (mean m, shape lambda)
  ig_loglik <- function(v) {
    mu <- max(x) + exp(v[1L])
    m <- exp(v[2L])
    lambda <- exp(v[3L])
    y <- mu - x
    sum(0.5 * log(lambda / (2 * pi * y^3)) - lambda * (y - m)^2 /
          (2 * m^2 * y))
  }
  opt <- stats::optim(c(log(0.3), log(2), log(4)), function(v) -ig_loglik(v),
                      method = "BFGS",
                      control = list(reltol = 1e-14, maxit = 1000L))
  opt <- stats::optim(opt$par, function(v) -ig_loglik(v),
                      control = list(reltol = 1e-14, maxit = 5000L))
  expect_equal(lim$loglik, -opt$value, tolerance = 1e-7)
  expect_equal(lim$loglik, -387.5468, tolerance = 1e-6)
  # the law's parameters: IG mean sqrt(b / a), shape b
  expect_equal(lim$mu, max(x) + exp(opt$par[1L]), tolerance = 1e-4)
  expect_equal(sqrt(lim$b / lim$a), exp(opt$par[2L]), tolerance = 1e-4)
  expect_equal(lim$b, exp(opt$par[3L]), tolerance = 1e-4)
})

test_that("no limit where the fit is interior", {
  r <- diff(log(EuStockMarkets))[, 1]
  expect_null(fit_nig(r)$limit)
  set.seed(1)
  expect_null(suppressWarnings(fit_nig(rnorm(300)))$limit)
})
