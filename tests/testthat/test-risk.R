# value_at_risk(), expected_shortfall(), es_attribution(): against
# integrate() of x * dgh and mpmath references (tools/make_risk_fixtures.py),
# the Euler allocation and the gradient, portfolios, classed errors.

risk_laws <- function() {
  list(
    nig = gh_law(mu = 0.1, gamma = 0.5, sigma = 2, p = -0.5, a = 1, b = 1),
    nig_neg = gh_law(mu = 0.1, gamma = -0.5, sigma = 2, p = -0.5, a = 1,
                     b = 1),
    gh = gh_law(mu = -1, gamma = -0.3, sigma = 0.7, p = 1.7, a = 2, b = 0.4),
    vg = gh_law(mu = 0, gamma = 0.2, sigma = 1, p = 1.5, a = 3, b = 0),
    skewt = gh_law(mu = 0.5, gamma = 0.4, sigma = 1, p = -3, a = 0, b = 6),
    skewt_neg = gh_law(mu = 0.5, gamma = -0.4, sigma = 1, p = -3, a = 0,
                       b = 6),
    near_normal = gh_law(gamma = 0.1, p = -0.5, a = 1e4, b = 1e4),
    returns = gh_law(mu = 0.001, gamma = -0.002, sigma = 0.01, p = -1,
                     a = 1.5, b = 1)
  )
}

# E[X | X <= q] by integrate() of x dgh(x) (in panels towards q)
es_integrate <- function(law, alpha) {
  q <- qgh(alpha, law)
  s <- sqrt(vcov(law)[[1L]])
  f <- function(x) x * dgh(x, law)
  cuts <- c(-Inf, q - c(50, 10, 2) * s, q)
  if (law$mu < q) cuts <- sort(c(cuts, law$mu)) # the VG's kink
  sum(vapply(seq_len(length(cuts) - 1L), function(i) {
    stats::integrate(f, cuts[i], cuts[i + 1L], rel.tol = 1e-13,
                     subdivisions = 2000L)$value
  }, numeric(1))) / alpha
}

levels_test <- c(1e-4, 1e-3, 0.01, 0.05, 0.2)

test_that("ES matches integrate() of x dgh to 1e-8 relative", {
  for (law in risk_laws()) {
    es <- expected_shortfall(law, levels_test)
    ref <- vapply(levels_test, function(a) es_integrate(law, a), numeric(1))
    expect_lt(max(abs(es / ref - 1)), 1e-8)
    # the upper tail of X is the lower tail of -X
    up <- expected_shortfall(law, levels_test, type = "loss")
    ref_up <- -vapply(levels_test, function(a) {
      es_integrate(transform(law, -1), a)
    }, numeric(1))
    expect_lt(max(abs(up / ref_up - 1)), 1e-8)
  }
})

test_that("VaR is the quantile of qgh()", {
  lv <- c(1e-10, levels_test, 0.5, 0.9)
  for (law in risk_laws()) {
    expect_equal(value_at_risk(law, lv), qgh(lv, law), tolerance = 1e-12)
    expect_equal(value_at_risk(law, lv, type = "loss"),
                 qgh(lv, law, lower.tail = FALSE), tolerance = 1e-12)
  }
})

test_that("VaR and ES match the mpmath references", {
  expect_risk_fixture("risk_ref.csv")
})

risk_mv_law <- function() {
  s <- matrix(c(1, 0.3, -0.2, 0.1, 0.3, 2, 0.4, 0, -0.2, 0.4, 1.5, 0.2,
                0.1, 0, 0.2, 0.8), 4) * 1e-4
  gh_law(mu = c(a = 1, b = 2, c = -1, d = 0.5) * 1e-3,
         gamma = c(-2, 1, -1, 0.5) * 1e-3, sigma = s, p = -1, a = 2, b = 1)
}

test_that("portfolio ES is the ES of the portfolio's univariate law", {
  law <- risk_mv_law()
  w <- rbind(p1 = c(0.4, 0.3, 0.2, 0.1), p2 = c(1, -0.5, 0.25, 0.25))
  es <- expected_shortfall(law, c(0.01, 0.05), weights = w)
  expect_identical(dim(es), c(2L, 2L))
  expect_identical(rownames(es), c("p1", "p2"))
  for (k in 1:2) {
    pf <- transform(law, w[k, ])
    expect_equal(es[k, ], expected_shortfall(pf, c(0.01, 0.05)),
                 tolerance = 1e-13, ignore_attr = TRUE)
    expect_equal(unname(value_at_risk(law, 0.01, weights = w)[k, ]),
                 qgh(0.01, pf), tolerance = 1e-12)
    expect_equal(expected_shortfall(law, 0.01, weights = w[k, ]),
                 expected_shortfall(pf, 0.01))
  }
  # one thread or two: the same numbers
  w_many <- matrix(stats::runif(400), 100)
  expect_identical(
    expected_shortfall(law, 0.02, weights = w_many, threads = 1L),
    expected_shortfall(law, 0.02, weights = w_many, threads = 2L)
  )
})

test_that("ES contributions add up to the ES; the gradient is ES's", {
  law <- risk_mv_law()
  w <- c(0.4, 0.3, 0.2, 0.1)
  lv <- c(0.001, 0.01, 0.1)
  for (type in c("return", "loss")) {
    att <- es_attribution(law, w, lv, type = type)
    es <- expected_shortfall(law, lv, weights = w, type = type)
    expect_equal(att$es, es, tolerance = 1e-14)
    expect_equal(att$var, value_at_risk(law, lv, weights = w, type = type))
    expect_lt(max(abs(rowSums(att$contributions) - es) / abs(es)), 1e-10)
    expect_identical(colnames(att$gradient), c("a", "b", "c", "d"))
    # central differences of ES in each weight
    h <- 1e-5
    fd <- vapply(seq_along(w), function(j) {
      e <- replace(numeric(4), j, h)
      (expected_shortfall(law, lv, weights = w + e, type = type) -
         expected_shortfall(law, lv, weights = w - e, type = type)) / (2 * h)
    }, numeric(length(lv)))
    expect_lt(max(abs(att$gradient - fd)) / max(abs(fd)), 1e-6)
  }
  # a univariate law: the one contribution is the ES
  u <- risk_laws()$nig
  a1 <- es_attribution(u, 2, 0.01)
  expect_equal(drop(a1$contributions), 2 * expected_shortfall(u, 0.01),
               ignore_attr = TRUE)
})

test_that("E[X_j | S <= VaR] against simulation", {
  law <- risk_mv_law()
  w <- c(0.25, 0.25, 0.25, 0.25)
  att <- es_attribution(law, w, 0.05)
  set.seed(21)
  x <- rgh(4e5, law)
  s <- drop(x %*% w)
  tail <- x[s <= att$var, , drop = FALSE]
  se <- apply(tail, 2L, stats::sd) / sqrt(nrow(tail))
  expect_lt(max(abs(colMeans(tail) - att$gradient[1L, ]) / se), 5)
})

test_that("bad input gives classed errors naming the argument", {
  law <- risk_mv_law()
  u <- risk_laws()$nig
  for (bad in list(0, 1, -0.1, 1.5, NA, numeric(), "a")) {
    expect_error(expected_shortfall(u, bad), "`level`",
                 class = "ghmix_error_argument")
  }
  expect_error(value_at_risk(u, 2), "`level`",
               class = "ghmix_error_argument")
  expect_error(expected_shortfall(law, 0.01, weights = c(1, 1)),
               "`weights`", class = "ghmix_error_argument")
  expect_error(expected_shortfall(law, 0.01), "`weights`",
               class = "ghmix_error_argument")
  expect_error(expected_shortfall(law, 0.01, weights = matrix(1, 2, 3)),
               "`weights`", class = "ghmix_error_argument")
  expect_error(expected_shortfall(law, 0.01, weights = c(1, NA, 0, 0)),
               "`weights`", class = "ghmix_error_argument")
  expect_error(expected_shortfall(law, 0.01, weights = numeric(4)),
               "`weights`", class = "ghmix_error_argument")
  expect_error(es_attribution(law, c(1, 2), 0.01), "`weights`",
               class = "ghmix_error_argument")
  expect_error(es_attribution(law, matrix(1, 2, 4), 0.01), "`weights`",
               class = "ghmix_error_argument")
  expect_error(expected_shortfall(u, 0.01, type = "profit"), "`type`",
               class = "ghmix_error_argument")
  expect_error(expected_shortfall(list(), 0.01), "`law`",
               class = "ghmix_error_argument")
  expect_error(expected_shortfall(u, 0.01, threads = 0), "`threads`",
               class = "ghmix_error_argument")
})
