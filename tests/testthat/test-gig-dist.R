# dgig(), pgig(), qgig(), rgig(): accuracy against 40-digit mpmath references
# (tools/make_gig_fixtures.py), closed forms, base-R semantics, the sampler.

fixture <- function() {
  ref <- utils::read.csv(testthat::test_path("fixtures", "gig_dist_ref.csv"),
                         stringsAsFactors = FALSE)
  # the exact doubles, from the hexadecimal columns
  for (v in c("p", "a", "b", "x")) {
    ref[[v]] <- as.numeric(ref[[paste0(v, "_hex")]])
  }
  ref
}

# |error| relative to max(1, |reference|): for a log-probability this is the
# relative error of the probability itself while |log P| <= 1
rel_err <- function(x, ref) {
  ifelse(x == ref, 0, abs(x - ref) / pmax(1, abs(ref)))
}

test_that("dgig matches the mpmath log densities to 1e-13", {
  ref <- fixture()
  got <- dgig(ref$x, ref$p, ref$a, ref$b, log = TRUE)
  err <- rel_err(got, ref$logpdf)
  expect_lt(max(err), 1e-13)
  # on the natural scale too, where the density is a normal double
  ok <- ref$logpdf > -700 & ref$logpdf < 700
  expect_equal(dgig(ref$x[ok], ref$p[ok], ref$a[ok], ref$b[ok]),
               exp(ref$logpdf[ok]), tolerance = 1e-12)
})

test_that("pgig matches the mpmath tails to 1e-12, both tails, in log", {
  ref <- fixture()
  lo <- pgig(ref$x, ref$p, ref$a, ref$b, log.p = TRUE)
  up <- pgig(ref$x, ref$p, ref$a, ref$b, lower.tail = FALSE, log.p = TRUE)
  expect_lt(max(rel_err(lo, ref$log_lower)), 1e-12)
  expect_lt(max(rel_err(up, ref$log_upper)), 1e-12)
  # within the range of doubles, the probabilities themselves
  ok <- ref$log_lower > -700
  expect_equal(pgig(ref$x[ok], ref$p[ok], ref$a[ok], ref$b[ok]),
               exp(ref$log_lower[ok]), tolerance = 1e-12)
  ok <- ref$log_upper > -700
  expect_equal(
    pgig(ref$x[ok], ref$p[ok], ref$a[ok], ref$b[ok], lower.tail = FALSE),
    exp(ref$log_upper[ok]), tolerance = 1e-12
  )
})

test_that("qgig inverts pgig to 1e-10", {
  ref <- fixture()
  # (a tail whose log is within rounding of 0 does not determine x)
  lo <- ref$log_lower < -1e-6
  up <- ref$log_upper < -1e-6
  q1 <- qgig(ref$log_lower[lo], ref$p[lo], ref$a[lo], ref$b[lo], log.p = TRUE)
  q2 <- qgig(ref$log_upper[up], ref$p[up], ref$a[up], ref$b[up],
             lower.tail = FALSE, log.p = TRUE)
  expect_lt(max(abs(q1 / ref$x[lo] - 1)), 1e-10)
  expect_lt(max(abs(q2 / ref$x[up] - 1)), 1e-10)
  # from the values pgig computes, on the natural scale (at points where
  # neither tail is so close to 1 that a double cannot tell it from 1)
  for (par in list(c(0.5, 1, 1), c(-3, 2, 0.5), c(2, 1, 0), c(-2, 0, 1))) {
    x <- qgig(c(1e-4, 0.1, 0.5, 0.9, 0.999), par[1], par[2], par[3])
    pr <- pgig(x, par[1], par[2], par[3])
    expect_equal(qgig(pr, par[1], par[2], par[3]), x, tolerance = 1e-10)
    pr <- pgig(x, par[1], par[2], par[3], lower.tail = FALSE)
    expect_equal(qgig(pr, par[1], par[2], par[3], lower.tail = FALSE), x,
                 tolerance = 1e-10)
  }
})

test_that("the density integrates to 1", {
  pars <- list(c(0.5, 1, 1), c(-0.5, 2, 3), c(50, 1, 1), c(-50, 1, 1),
               c(2, 1e-6, 1e-6), c(0.5, 1e4, 1e4), c(3, 1e-4, 1e4),
               c(2, 3, 0), c(-2, 0, 3))
  for (par in pars) {
    m <- qgig(0.5, par[1], par[2], par[3])
    # over log y, centred at the median
    f <- function(u) {
      exp(dgig(m * exp(u), par[1], par[2], par[3], log = TRUE) + log(m) + u)
    }
    total <- integrate(f, -Inf, 0, rel.tol = 1e-12)$value +
      integrate(f, 0, Inf, rel.tol = 1e-12)$value
    expect_equal(total, 1, tolerance = 1e-8, label = deparse(par))
  }
})

test_that("the gamma and inverse-gamma limits are dgamma and pgamma", {
  x <- c(1e-5, 0.01, 0.5, 1, 3, 10, 40)
  for (shape in c(0.3, 1, 2.5, 20)) {
    expect_equal(dgig(x, shape, 3, 0), dgamma(x, shape, rate = 1.5),
                 tolerance = 1e-13)
    expect_equal(dgig(x, shape, 3, 0, log = TRUE),
                 dgamma(x, shape, rate = 1.5, log = TRUE), tolerance = 1e-13)
    expect_equal(pgig(x, shape, 3, 0, log.p = TRUE),
                 pgamma(x, shape, rate = 1.5, log.p = TRUE), tolerance = 1e-12)
    expect_equal(pgig(x, shape, 3, 0, lower.tail = FALSE),
                 pgamma(x, shape, rate = 1.5, lower.tail = FALSE),
                 tolerance = 1e-12)
    # inverse gamma: 1/Y ~ gamma(shape, rate b/2)
    expect_equal(dgig(x, -shape, 0, 3),
                 dgamma(1 / x, shape, rate = 1.5) / x^2, tolerance = 1e-13)
    expect_equal(pgig(x, -shape, 0, 3),
                 pgamma(1 / x, shape, rate = 1.5, lower.tail = FALSE),
                 tolerance = 1e-12)
    expect_equal(pgig(x, -shape, 0, 3, lower.tail = FALSE, log.p = TRUE),
                 pgamma(1 / x, shape, rate = 1.5, log.p = TRUE),
                 tolerance = 1e-12)
  }
  # at x = 0 the gamma limit is dgamma's limit from the right
  expect_identical(dgig(0, c(0.5, 1, 2), 2, 0), dgamma(0, c(0.5, 1, 2), 1))
})

test_that("p = -1/2 is the inverse Gaussian, with its closed-form cdf", {
  a <- 2
  b <- 3
  mu <- sqrt(b / a)
  lambda <- b
  x <- c(0.05, 0.2, 0.5, 1, 1.3, 2, 4)
  s <- sqrt(lambda / x)
  cdf <- pnorm(s * (x / mu - 1)) + exp(2 * lambda / mu) *
    pnorm(-s * (x / mu + 1))
  expect_equal(pgig(x, -0.5, a, b), cdf, tolerance = 1e-12)
  dens <- sqrt(lambda / (2 * pi * x^3)) *
    exp(-lambda * (x - mu)^2 / (2 * mu^2 * x))
  expect_equal(dgig(x, -0.5, a, b), dens, tolerance = 1e-13)
})

test_that("recycling, lengths and attributes follow dgamma", {
  expect_length(dgig(1:3, 1, 1, 1), 3L)
  expect_length(dgig(1, c(0.5, 1), 1:4, 1), 4L)
  expect_equal(dgig(c(1, 2, 3, 4), c(1, 2), 1, 1),
               c(dgig(1, 1, 1, 1), dgig(2, 2, 1, 1), dgig(3, 1, 1, 1),
                 dgig(4, 2, 1, 1)))
  expect_identical(dgig(numeric(), 1, 1, 1), numeric())
  expect_identical(pgig(1, numeric(), 1, 1), numeric())
  expect_identical(qgig(c(a = 0.5), 1, 1, numeric()), numeric())
  same_attr <- function(x, s, r) {
    expect_identical(attributes(dgig(x, s, r, 0)),
                     attributes(dgamma(x, s, r / 2)))
    expect_identical(attributes(pgig(x, s, r, 0)),
                     attributes(pgamma(x, s, r / 2)))
  }
  m <- matrix(c(0.5, 1, 2, 3), 2, dimnames = list(c("r", "s"), NULL))
  same_attr(c(a = 1, b = 2), 1, 1)
  same_attr(1, c(x = 1, y = 2), 1)
  same_attr(c(u = 1, v = 2), c(x = 1, y = 2), 1)
  same_attr(m, 2, 1)
  same_attr(1, m, 1)
  same_attr(1, 1, m)
  same_attr(1:2, 1, c(a = 1, b = 2))
  expect_identical(attributes(qgig(c(a = 0.5), 1, 1, 1)),
                   attributes(qgamma(c(a = 0.5), 1, 1)))
})

test_that("special values follow base R", {
  # NA stays NA, without a warning
  expect_silent(out <- dgig(c(1, NA, NaN), 1, 1, 1))
  expect_identical(is.na(out), c(FALSE, TRUE, TRUE))
  expect_true(is.na(dgig(1, NA, 1, 1)) && !is.nan(dgig(1, NA, 1, 1)))
  expect_silent(pgig(1, 1, NA_real_, 1))
  expect_silent(qgig(NA, 1, 1, 1))
  # outside the support
  expect_identical(dgig(c(-1, 0, Inf), 1, 1, 1), c(0, 0, 0))
  expect_identical(dgig(c(-1, 0, Inf), 1, 1, 1, log = TRUE), rep(-Inf, 3))
  expect_identical(pgig(c(-Inf, -1, 0, Inf), 1, 1, 1), c(0, 0, 0, 1))
  expect_identical(pgig(c(0, Inf), 1, 1, 1, lower.tail = FALSE), c(1, 0))
  expect_identical(pgig(c(0, Inf), 1, 1, 1, log.p = TRUE), c(-Inf, 0))
  expect_identical(qgig(c(0, 1), 1, 1, 1), c(0, Inf))
  expect_identical(qgig(c(0, 1), 1, 1, 1, lower.tail = FALSE), c(Inf, 0))
  expect_identical(qgig(c(-Inf, 0), 1, 1, 1, log.p = TRUE), c(0, Inf))
  # far tails stay finite in log space
  # P(Y <= x) ~ exp(-b / (2 x)) as x -> 0
  v <- pgig(1e-3, 0.5, 1, 1, log.p = TRUE)
  expect_true(v < -500 && v > -520)
  expect_true(is.finite(dgig(1, 0.5, 1e4, 1e4, log = TRUE)))
  expect_true(is.finite(dgig(1e-3, 50, 1, 1e-12, log = TRUE)))
})

test_that("invalid parameters give NaN with a warning", {
  bad <- list(c(1, -1, 1), c(1, 1, -1), c(1, 0, 0), c(1, 0, 1), c(0, 0, 1),
              c(-1, 1, 0), c(0, 1, 0), c(Inf, 1, 1), c(1, Inf, 1),
              c(1, 1, Inf))
  for (par in bad) {
    expect_warning(v <- dgig(1, par[1], par[2], par[3]), "NaNs produced")
    expect_true(is.nan(v))
    expect_warning(v <- pgig(1, par[1], par[2], par[3]), "NaNs produced")
    expect_true(is.nan(v))
    expect_warning(v <- qgig(0.5, par[1], par[2], par[3]), "NaNs produced")
    expect_true(is.nan(v))
    expect_warning(v <- rgig(2, par[1], par[2], par[3]), "NAs produced")
    expect_true(all(is.nan(v)))
  }
  expect_warning(v <- qgig(c(-0.1, 0.5, 1.1), 1, 1, 1), "NaNs produced")
  expect_identical(is.nan(v), c(TRUE, FALSE, TRUE))
  expect_warning(qgig(0.1, 1, 1, 1, log.p = TRUE), "NaNs produced")
  # the valid elements of a vector are still computed
  expect_warning(v <- dgig(1, 1, c(1, -1), 1))
  expect_equal(v[1], dgig(1, 1, 1, 1))
})

test_that("non-numeric input is an error naming the argument", {
  expect_error(dgig("a", 1, 1, 1), class = "ghmix_error_argument")
  expect_error(dgig("a", 1, 1, 1), "`x` must be numeric")
  expect_error(pgig(1, "p", 1, 1), "`p` must be numeric")
  expect_error(qgig(0.5, 1, list(1), 1), "`a` must be numeric")
  expect_error(qgig("0.5", 1, 1, 1), "`prob` must be numeric")
  expect_error(dgig(1, 1, 1, factor(1)), "`b` must be numeric, not factor")
  expect_error(pgig(1, 1, 1, 1, lower.tail = NA), "`lower.tail`")
  expect_error(pgig(1, 1, 1, 1, log.p = "yes"), "`log.p`")
  expect_error(dgig(1, 1, 1, 1, log = c(TRUE, FALSE)), "`log`")
  expect_error(dgig(1, 1, 1, 1, threads = 0), "`threads`")
  expect_error(rgig("3", 1, 1, 1), class = "ghmix_error_argument")
  expect_error(rgig(-1, 1, 1, 1), "`n` must be a non-negative number")
  expect_error(rgig(NA, 1, 1, 1), "`n`")
  expect_error(rgig(Inf, 1, 1, 1), "`n`")
  # a zero-length n is 0 draws, as rgamma(numeric(), 1) (issue 17); n
  # beyond the longest vector R holds is an error naming it
  expect_identical(rgig(numeric(), 1, 1, 1), numeric())
  expect_error(rgig(1e20, 1, 1, 1), "`n`", class = "ghmix_error_argument")
  expect_error(rgig(2, "1", 1, 1), "`p` must be numeric")
})

test_that("results do not depend on the thread count", {
  x <- seq(0.05, 8, length.out = 301)
  p <- rep(c(-1.5, 0.5, 2), length.out = 301)
  expect_identical(dgig(x, p, 1, 2, threads = 1), dgig(x, p, 1, 2, threads = 2))
  expect_identical(pgig(x, p, 1, 2, threads = 1), pgig(x, p, 1, 2, threads = 2))
  pr <- seq(0.01, 0.99, length.out = 101)
  expect_identical(qgig(pr, 0.5, 1, 2, threads = 1),
                   qgig(pr, 0.5, 1, 2, threads = 2))
})

test_that("rgig is reproducible with set.seed and follows rgamma's n", {
  set.seed(42)
  x <- rgig(100, 0.5, 1, 2)
  set.seed(42)
  expect_identical(rgig(100, 0.5, 1, 2), x)
  expect_length(rgig(c(5, 6, 7), 1, 1, 1), 3L)
  expect_length(rgig(2.7, 1, 1, 1), 2L)
  expect_identical(rgig(0, 1, 1, 1), numeric())
  expect_true(all(rgig(50, c(-2, 0.5, 3), c(1, 1, 2), c(0.5, 1, 0)) > 0))
  # invalid sets give NaN, the valid ones are still drawn
  expect_warning(v <- rgig(6, c(1, -1), c(1, 1), c(1, 0)), "NAs produced")
  expect_true(all(v[c(1, 3, 5)] > 0))
  expect_true(all(is.nan(v[c(2, 4, 6)])))
  expect_warning(v <- rgig(3, 1, numeric(), 1), "NAs produced")
  expect_identical(v, rep(NA_real_, 3))
  expect_warning(v <- rgig(2, NA, 1, 1), "NAs produced")
})

# A fixed-seed statistical test: with set.seed(20240601) each
# Kolmogorov-Smirnov p-value below is a fixed number; they were all above
# 0.01 when written, and a regression in the sampler or in pgig would make
# them collapse towards 0.
test_that("rgig passes Kolmogorov-Smirnov tests against pgig (fixed seed)", {
  pars <- list(
    c(0.5, 1, 1), c(-0.5, 2, 3), c(0, 1, 1), c(0.3, 0.01, 0.01),
    c(0.9, 1e-6, 1e-6), c(1.5, 0.01, 0.01), c(50, 1, 1), c(-50, 1e-3, 1e-9),
    c(1, 1e4, 1e4), c(-2.5, 1e8, 1), c(2, 3, 0), c(0.05, 1, 0),
    c(-2, 0, 3), c(-0.3, 0, 1)
  )
  set.seed(20240601)
  for (par in pars) {
    y <- rgig(1e5, par[1], par[2], par[3])
    expect_true(all(y > 0))
    pv <- suppressWarnings(
      stats::ks.test(y, pgig, par[1], par[2], par[3])$p.value
    )
    expect_gt(pv, 1e-3, label = paste("KS p-value for", deparse(par)))
  }
})

# The same at (p, a, b) where the sampler used to hang (issue 13; the
# bad-input findings' H1-H6 and tests/fuzz F1, F2, F5) and where the law is
# still wider than rounding: subnormal or tiny a or b, huge |p|, huge a and
# b, the limits with a tiny rate.
test_that("qgig at log-probabilities near -DBL_MAX: b/(2|L|), 2|L|/a", {
  big <- c(1e300, 1e308, .Machine$double.xmax)
  lo <- qgig(-big, 0.5, 1, 1, log.p = TRUE)
  # subnormal results carry fewer digits
  expect_equal(lo, 0.5 / big, tolerance = 1e-6)
  expect_equal(pgig(lo[1:2], 0.5, 1, 1, log.p = TRUE), -big[1:2],
               tolerance = 1e-12)
  expect_equal(qgig(-1e300, 0.5, 1, 1, log.p = TRUE, lower.tail = FALSE),
               2e300, tolerance = 1e-12)
  expect_identical(qgig(-big[2:3], 0.5, 1, 1, log.p = TRUE,
                        lower.tail = FALSE), c(Inf, Inf))
})

test_that("rgig at the repaired extremes passes Kolmogorov-Smirnov tests", {
  pars <- list(
    c(0.5, 1e-300, 1e-300), c(0.5, 1e-160, 1e-160), c(0, 1, 1e-310),
    c(2.5, 1e-300, 1), c(-0.9, 1e-310, 1), c(0.9, 1e-200, 1e-200),
    c(3, 1e-200, 1e-200), c(1.5, 1e-13, 1e-13), c(1, 1e-20, 1),
    c(1, 1e-300, 0), c(-1, 0, 1e-300), c(1, 1e10, 1e10),
    c(2.5, 1e12, 1e12), c(1e6, 1e-300, 1e-300), c(-1e6, 1, 1),
    c(1e9, 1, 1), c(50, 1e300, 1e-300)
  )
  set.seed(20240602)
  for (par in pars) {
    y <- rgig(1e4, par[1], par[2], par[3])
    expect_true(all(y > 0 & is.finite(y)))
    pv <- suppressWarnings(
      stats::ks.test(y, pgig, par[1], par[2], par[3])$p.value
    )
    expect_gt(pv, 1e-3, label = paste("KS p-value for", deparse(par)))
  }
})

test_that("the mean of rgig draws matches E[Y] from besselK", {
  ey <- function(p, a, b) {
    w <- sqrt(a * b)
    sqrt(b / a) * besselK(w, p + 1, expon.scaled = TRUE) /
      besselK(w, p, expon.scaled = TRUE)
  }
  pars <- list(c(0.5, 1, 1), c(-0.5, 2, 3), c(2, 0.1, 5), c(-3, 1, 10),
               c(0.2, 0.05, 0.05), c(1, 1000, 1000), c(20, 1, 1))
  set.seed(7)
  for (par in pars) {
    y <- rgig(2e5, par[1], par[2], par[3])
    se <- stats::sd(y) / sqrt(length(y))
    expect_lt(abs(mean(y) - ey(par[1], par[2], par[3])), 5 * se,
              label = paste("mean for", deparse(par)))
  }
  # gamma and inverse-gamma limits
  y <- rgig(2e5, 3, 2, 0)
  expect_lt(abs(mean(y) - 3), 5 * stats::sd(y) / sqrt(2e5))
  y <- rgig(2e5, -4, 0, 2)
  expect_lt(abs(mean(y) - 1 / 3), 5 * stats::sd(y) / sqrt(2e5))
})
