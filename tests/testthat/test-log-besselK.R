# Semantics of log_besselK() compared with base R's besselK(). The accuracy
# tests against mpmath references are in test-bessel-accuracy.R.

test_that("values agree with log(besselK()) for moderate arguments", {
  x <- rep(c(0.1, 0.5, 1, 2, 5, 10, 30), each = 7)
  nu <- rep(c(0, 0.3, 0.5, 1, 2.5, 5, 10), times = 7)
  expect_equal(log_besselK(x, nu), log(besselK(x, nu)), tolerance = 1e-10)
  # K_{-nu} = K_nu
  expect_equal(log_besselK(x, -nu), log_besselK(x, nu), tolerance = 1e-12)
})

test_that("values are finite where besselK() overflows or underflows", {
  expect_identical(besselK(1e-10, 200), Inf)
  expect_true(is.finite(log_besselK(1e-10, 200)))
  expect_identical(besselK(1e4, 1), 0)
  expect_true(is.finite(log_besselK(1e4, 1)))
  # log K_nu(x) ~ -x + log(sqrt(pi / (2 x))) for large x
  expect_equal(log_besselK(1e4, 0.5), -1e4 + 0.5 * log(pi / 2e4),
               tolerance = 1e-12)
})

test_that("recycling and length follow besselK()", {
  expect_length(log_besselK(1:3 + 0.5, 1), 3L)
  expect_length(log_besselK(1, 1:3 + 0.5), 3L)
  expect_length(log_besselK(1:3 + 0.5, 1:2), 3L)
  expect_length(log_besselK(1:2 + 0.5, 1:5), 5L)
  expect_equal(
    log_besselK(c(1, 2, 3), c(0.5, 1.5)),
    log(besselK(c(1, 2, 3), c(0.5, 1.5))),
    tolerance = 1e-10
  )
  expect_identical(log_besselK(numeric(), 1), numeric())
  expect_identical(log_besselK(1, numeric()), numeric())
  expect_identical(log_besselK(c(a = 1, b = 2), numeric()), numeric())
  expect_identical(log_besselK(numeric(), 1, gradient = TRUE),
                   structure(numeric(), gradient = matrix(
                     numeric(), 0L, 2L, dimnames = list(NULL, c("x", "nu"))
                   )))
})

test_that("attributes are kept as besselK() keeps them", {
  same_attr <- function(x, nu) {
    expect_identical(attributes(log_besselK(x, nu)),
                     attributes(besselK(x, nu)))
  }
  named <- c(a = 1, b = 2, c = 3)
  m <- matrix(c(1.5, 2.5, 3.5, 4.5), 2, dimnames = list(c("r", "s"), NULL))
  same_attr(named, 1)
  same_attr(1, named)
  same_attr(c(u = 1, v = 2), named)
  same_attr(c(x = 1, y = 2), c(a = 1, b = 2)) # tie: x wins
  same_attr(1:2, c(a = 1, b = 2))
  same_attr(m, 1)
  same_attr(1, m)
  same_attr(m, 1:5)
  same_attr(c(p = 1, q = 2, r = 3), m)
  same_attr(structure(c(1, 2), class = "foo", extra = "z"), 1)
  same_attr(named, numeric())
  expect_named(log_besselK(named, 1, gradient = TRUE), names(named))
  # a stale "gradient" attribute on the input is not carried over
  g <- log_besselK(c(0.1, 0.2), 1, gradient = TRUE)
  expect_null(attr(log_besselK(g, 1), "gradient"))
})

test_that("integer and logical input work as in besselK()", {
  expect_identical(log_besselK(2L, 1L), log_besselK(2, 1))
  expect_identical(log_besselK(TRUE, 1), log_besselK(1, 1))
})

test_that("non-numeric input is an error naming the argument", {
  expect_error(log_besselK("a", 1), class = "ghmix_error_argument")
  expect_error(log_besselK("a", 1), "`x` must be numeric")
  expect_error(log_besselK(1, "a"), "`nu` must be numeric")
  expect_error(log_besselK(1 + 1i, 1), "`x` must be numeric, not complex")
  expect_error(log_besselK(factor(1:2), 1), "`x` must be numeric, not factor")
  expect_error(log_besselK(list(1), 1), "`x`")
  expect_error(log_besselK(NULL, 1), "`x` must be numeric, not NULL")
  expect_error(log_besselK(1, 1, gradient = NA), "`gradient`")
  expect_error(log_besselK(1, 1, gradient = c(TRUE, FALSE)), "`gradient`")
  # base R agrees that these are errors
  expect_error(besselK("a", 1))
  expect_error(besselK(factor(1:2), 1))
})

test_that("NA, NaN, x <= 0 and infinities follow base R", {
  x <- c(-1, 0, NA, NaN, Inf)
  expect_warning(v <- log_besselK(x, 1), "NaNs produced")
  expect_identical(v, c(NaN, Inf, NA, NaN, -Inf))
  expect_identical(is.na(v), is.na(suppressWarnings(besselK(x, 1))))
  # NA stays NA (not NaN), in x and in nu
  expect_true(is.na(log_besselK(NA, 1)) && !is.nan(log_besselK(NA, 1)))
  expect_true(is.na(log_besselK(1, NA)) && !is.nan(log_besselK(1, NA)))
  expect_true(is.nan(log_besselK(NaN, 1)))
  expect_true(is.nan(log_besselK(1, NaN)))
  # NA input alone gives no warning
  expect_silent(log_besselK(c(NA, 1, NaN), 1))
  # infinite order: K is infinite
  expect_identical(log_besselK(1, c(Inf, -Inf)), c(Inf, Inf))
  expect_warning(log_besselK(Inf, Inf), "NaNs produced")
  # x = 0 and x < 0 with a gradient
  expect_warning(
    g <- attr(log_besselK(c(0, -1), 1, gradient = TRUE), "gradient"),
    "NaNs produced"
  )
  expect_identical(g[[1, "x"]], -Inf)
  expect_true(all(is.nan(g[2, ])))
})

test_that("gradient = TRUE adds an n x 2 matrix with columns x and nu", {
  x <- c(0.5, 1, 2, 4)
  v <- log_besselK(x, 1.5, gradient = TRUE)
  g <- attr(v, "gradient")
  expect_true(is.matrix(g))
  expect_identical(dim(g), c(4L, 2L))
  expect_identical(colnames(g), c("x", "nu"))
  # the value is the same with or without the gradient (to rounding)
  expect_equal(as.vector(v), log_besselK(x, 1.5), tolerance = 1e-14)
  # d/dx log K_nu(x) = -K_{nu-1}(x) / K_nu(x) - nu / x
  expect_equal(
    g[, "x"],
    -besselK(x, 0.5) / besselK(x, 1.5) - 1.5 / x,
    tolerance = 1e-10
  )
  # d/dnu log K_nu at nu = 0 vanishes (K is even in nu)
  g0 <- attr(log_besselK(x, 0, gradient = TRUE), "gradient")
  expect_equal(g0[, "nu"], rep(0, 4), tolerance = 1e-12)
  # a rough check of d/dnu against a central difference of base R
  h <- 1e-5
  fd <- (log(besselK(x, 1.5 + h)) - log(besselK(x, 1.5 - h))) / (2 * h)
  expect_equal(g[, "nu"], fd, tolerance = 1e-6)
})
