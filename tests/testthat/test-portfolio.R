# portfolio_optimize(), efficient_frontier(): on d = 3 against a grid
# search over the simplex, the closed forms, constraints, classed errors.

port_law <- function() {
  s <- matrix(c(1, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 0.8), 3) * 1e-4
  gh_law(mu = c(0.001, 0.002, 0.0005), gamma = c(-0.001, 0.0005, 0),
         sigma = s, p = -0.5, a = 1, b = 1)
}

# The simplex {w >= 0, sum w = 1} in steps of `step`.
port_grid <- function(step = 0.01) {
  g <- as.matrix(expand.grid(seq(0, 1, step), seq(0, 1, step)))
  g <- g[rowSums(g) <= 1 + 1e-12, ]
  unname(cbind(g, pmax(0, 1 - rowSums(g))))
}

port_grid_risk <- function(law, g, risk, level = 0.01) {
  switch(risk,
    sd = sqrt(rowSums((g %*% vcov(law)) * g)),
    es = -expected_shortfall(law, level, weights = g),
    var = -value_at_risk(law, level, weights = g)
  )
}

test_that("long-only minima match a grid search over the simplex", {
  law <- port_law()
  g <- port_grid(0.01)
  for (risk in c("sd", "es", "var")) {
    vals <- port_grid_risk(law, g, risk)
    i <- which.min(vals)
    o <- portfolio_optimize(law, risk = risk, long_only = TRUE)
    expect_s3_class(o, "ghmix_portfolio")
    expect_lt(max(abs(o$weights - g[i, ])), 0.01)
    expect_lte(o$risk, vals[i] * (1 + 1e-9))
    expect_equal(sum(o$weights), 1, tolerance = 1e-12)
    expect_true(all(o$weights >= 0))
  }
})

test_that("long-only tangency and target portfolios match the grid", {
  law <- port_law()
  g <- port_grid(0.005)
  m <- drop(g %*% mean(law))
  for (risk in c("sd", "es")) {
    vals <- port_grid_risk(law, g, risk)
    i <- which.max((m - 0.0002) / vals)
    o <- portfolio_optimize(law, risk = risk, type = "tangency",
                            risk_free = 0.0002, long_only = TRUE)
    expect_lt(max(abs(o$weights - g[i, ])), 0.01)
    expect_gte((o$mean - 0.0002) / o$risk,
               (m[i] - 0.0002) / vals[i] * (1 - 1e-6))
    target <- 0.0015
    o <- portfolio_optimize(law, risk = risk, type = "target",
                            target_return = target, long_only = TRUE)
    expect_equal(o$mean, target, tolerance = 1e-10)
    near <- abs(m - target) < 2e-6
    j <- which(near)[which.min(vals[near])]
    expect_lt(max(abs(o$weights - g[j, ])), 0.02)
    expect_lte(o$risk, vals[j] * (1 + 1e-3))
  }
})

test_that("sd optima without bounds are the closed forms", {
  law <- port_law()
  v <- vcov(law)
  m <- mean(law)
  one <- rep(1, 3)
  o <- portfolio_optimize(law)
  w <- solve(v, one) / sum(solve(v, one))
  expect_equal(unname(o$weights), w, tolerance = 1e-12)
  o <- portfolio_optimize(law, type = "tangency", risk_free = 1e-4,
                          budget = 2)
  w <- solve(v, m - 1e-4)
  expect_equal(unname(o$weights), 2 * w / sum(w), tolerance = 1e-12)
  # the target portfolio from the Lagrange conditions
  o <- portfolio_optimize(law, type = "target", target_return = 0.003)
  expect_equal(sum(o$weights), 1, tolerance = 1e-12)
  expect_equal(o$mean, 0.003, tolerance = 1e-12)
  grad <- drop(v %*% o$weights)
  a <- cbind(one, m)
  expect_lt(max(abs(grad - a %*% qr.solve(a, grad))), 1e-15)
})

test_that("minimum ES without bounds: numerical optimum, checked by a grid", {
  law <- port_law()
  o <- portfolio_optimize(law, risk = "es")
  expect_equal(sum(o$weights), 1, tolerance = 1e-12)
  # the gradient of the ES is orthogonal to the budget plane
  grad <- es_attribution(law, o$weights, 0.01)$gradient[1L, ]
  expect_lt(max(abs(grad - mean(grad))), 1e-6 * max(abs(grad)))
  # a grid around the optimum, short positions allowed
  g <- as.matrix(expand.grid(o$weights[1] + seq(-0.05, 0.05, 0.005),
                             o$weights[2] + seq(-0.05, 0.05, 0.005)))
  g <- unname(cbind(g, 1 - rowSums(g)))
  vals <- port_grid_risk(law, g, "es")
  expect_lte(o$risk, min(vals) * (1 + 1e-10))
})

test_that("the efficient frontier is increasing and starts at the minimum", {
  law <- port_law()
  fr <- efficient_frontier(law, n = 6, risk = "es", long_only = TRUE)
  expect_s3_class(fr, "ghmix_frontier")
  expect_identical(names(fr), c("target", "mean", "risk", "X1", "X2", "X3"))
  expect_equal(fr$mean, fr$target, tolerance = 1e-10)
  expect_true(all(diff(fr$risk) > 0))
  o <- portfolio_optimize(law, risk = "es", long_only = TRUE)
  expect_equal(fr$risk[[1L]], o$risk, tolerance = 1e-8)
  fr2 <- efficient_frontier(law, returns = c(0.001, 0.002))
  expect_identical(nrow(fr2), 2L)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fr), fr)
  expect_output(print(o), "minimum es portfolio")
})

# The long-only solver (issue 31): constrOptim() stopped with "initial
# value in 'vmmin' is not finite" under some OpenBLAS kernels, where a
# weight within rounding of 0 came out of one BFGS run positive and went
# into the next negative.
test_that("the barrier solver ends strictly inside, at a boundary minimum", {
  # minimum of (z1 + 1)^2 + (z2 - 2)^2 over z1, z2 > 0: 1 at (0, 2)
  obj <- function(z) (z[1] + 1)^2 + (z[2] - 2)^2
  grad <- function(z) c(2 * (z[1] + 1), 2 * (z[2] - 2))
  res <- ghmix:::port_barrier(c(1, 1), obj, grad, ui = diag(2), ci = c(0, 0))
  expect_true(all(res$par > 0))
  expect_lt(res$par[1], 1e-6)
  expect_equal(res$par[2], 2, tolerance = 1e-5)
  expect_equal(res$value, 1, tolerance = 1e-10)
  # an end outside is pulled back towards the inner point
  slack <- function(z) z
  expect_identical(ghmix:::port_inside(c(-4e-16, 1), c(1, 1), slack) > 0,
                   c(TRUE, TRUE))
  expect_identical(ghmix:::port_inside(c(0.5, 1), c(1, 1), slack), c(0.5, 1))
})

test_that("bad input: classed errors naming the argument", {
  law <- port_law()
  err <- "ghmix_error_argument"
  expect_error(portfolio_optimize(1), class = err, regexp = "`law`")
  expect_error(portfolio_optimize(gh_law()), class = err, regexp = "`law`")
  expect_error(portfolio_optimize(law, risk = "cvar"), class = err,
               regexp = "`risk`")
  expect_error(portfolio_optimize(law, type = "max"), class = err,
               regexp = "`type`")
  expect_error(portfolio_optimize(law, level = 1.5), class = err,
               regexp = "`level`")
  expect_error(portfolio_optimize(law, type = "target"), class = err,
               regexp = "`target_return`")
  expect_error(portfolio_optimize(law, type = "target", target_return = 1,
                                  long_only = TRUE),
               class = err, regexp = "`target_return`")
  expect_error(portfolio_optimize(law, long_only = NA), class = err,
               regexp = "`long_only`")
  expect_error(portfolio_optimize(law, budget = -1, long_only = TRUE),
               class = err, regexp = "`budget`")
  expect_error(portfolio_optimize(law, type = "tangency", risk_free = 1),
               class = err, regexp = "`risk_free`")
  expect_error(portfolio_optimize(law, risk_free = c(1, 2)), class = err,
               regexp = "`risk_free`")
  expect_error(efficient_frontier(law, n = 1), class = err, regexp = "`n`")
  expect_error(efficient_frontier(law, returns = "a"), class = err,
               regexp = "`returns`")
  heavy <- gh_law(mu = c(0, 0), p = -1, a = 0, b = 2)
  expect_error(portfolio_optimize(heavy), class = err, regexp = "`law`")
})
