# Expected shortfall where the tail's mean is infinite or next to it (issue
# 31, item 2): +-Inf where it is infinite, the value to 1e-10 where it is
# finite but the power tail of Y is slow (references: 40-digit mpmath,
# tools/make_heavy_risk_fixtures.py, and the closed-form Student-t ES).

test_that("an infinite expected shortfall is -Inf (returns) or Inf (losses)", {
  cauchy <- gh_law(p = -0.5, a = 0, b = 1)
  expect_identical(expected_shortfall(cauchy, 0.05), -Inf)
  expect_identical(expected_shortfall(cauchy, 0.05, type = "loss"), Inf)
  # a skew-t of 2 degrees of freedom: infinite on its heavy side (the
  # upper tail, gamma > 0), finite on its light side
  st2 <- gh_law(gamma = 0.5, p = -1, a = 0, b = 2)
  expect_identical(expected_shortfall(st2, c(0.05, 0.01), type = "loss"),
                   c(Inf, Inf))
  light <- expected_shortfall(st2, c(0.05, 0.01))
  expect_true(all(is.finite(light)))
  expect_true(all(light < value_at_risk(st2, c(0.05, 0.01))))
  # t with 0.5 degrees of freedom; and t(1) as a portfolio of a
  # multivariate law
  expect_identical(expected_shortfall(gh_law(p = -0.25, a = 0, b = 0.5),
                                      c(0.05, 1e-4)), c(-Inf, -Inf))
  mv <- gh_law(mu = c(0, 0), gamma = c(0, 0), sigma = diag(2), p = -0.5,
               a = 0, b = 1)
  es <- expected_shortfall(mv, 0.05, weights = rbind(c(1, 1), c(1, -2)))
  expect_identical(as.vector(es), c(-Inf, -Inf))
  # the value at risk stays finite: Student's t quantile
  expect_equal(value_at_risk(gh_law(p = -0.25, a = 0, b = 0.5), 0.05),
               stats::qt(0.05, 0.5), tolerance = 1e-12)
})

test_that("no attribution of an infinite expected shortfall", {
  err <- expect_error(es_attribution(gh_law(p = -0.5, a = 0, b = 1), 1, 0.05),
                      class = "ghmix_error_infinite")
  expect_match(conditionMessage(err), "infinite", fixed = TRUE)
  mv <- gh_law(mu = c(0, 0), gamma = c(0.1, -0.2), sigma = diag(2),
               p = -0.9, a = 0, b = 1.8)
  expect_error(es_attribution(mv, c(0.5, 0.5), 0.05),
               class = "ghmix_error_infinite")
  # a symmetric t of 1.5 degrees of freedom: E[Y | tail] is infinite, but
  # the gradient is not, and the contributions add up to the ES
  sym <- gh_law(mu = c(0, 0), gamma = c(0, 0), sigma = diag(c(1, 2)),
                p = -0.75, a = 0, b = 1.5)
  att <- es_attribution(sym, c(0.5, 0.5), 0.05)
  expect_equal(sum(att$contributions), att$es, tolerance = 1e-12)
  expect_equal(att$es, expected_shortfall(sym, 0.05, weights = c(0.5, 0.5)),
               tolerance = 1e-13)
})

test_that("finite expected shortfall next to the infinite limit: to 1e-10", {
  expect_risk_fixture("heavy_risk_ref.csv", negated = TRUE)
  # Student's t, closed form (McNeil, Frey and Embrechts 2005, ex. 2.19)
  es_t <- function(nu, alpha) {
    q <- stats::qt(alpha, nu)
    -(nu + q^2) / (nu - 1) * stats::dt(q, nu) / alpha
  }
  for (nu in c(1.001, 1.02, 1.1, 3)) {
    law <- gh_law(p = -nu / 2, a = 0, b = nu)
    for (alpha in c(0.05, 1e-3)) {
      expect_lt(abs(expected_shortfall(law, alpha) / es_t(nu, alpha) - 1),
                1e-10)
    }
  }
})

test_that("too close to the limit for the quadrature: NaN", {
  es <- expected_shortfall(gh_law(p = -0.50005, a = 0, b = 1.0001), 0.05)
  expect_true(is.nan(es))
})
