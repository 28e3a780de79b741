# dgh(), pgh(), qgh(), rgh() and the NIG conveniences: accuracy against
# mpmath references (tools/make_gh_fixtures.py), closed forms of special
# cases, properties, base-R semantics, the sampler, classed errors.

gh_fixture <- function() {
  ref <- utils::read.csv(testthat::test_path("fixtures", "gh_dist_ref.csv"),
                         stringsAsFactors = FALSE)
  # the exact doubles, from the hexadecimal columns (lists: ';')
  hex <- function(v) as.numeric(strsplit(v, ";", fixed = TRUE)[[1L]])
  for (v in c("p", "a", "b")) {
    ref[[v]] <- as.numeric(ref[[paste0(v, "_hex")]])
  }
  for (v in c("mu", "gamma", "sigma", "x")) {
    ref[[v]] <- lapply(ref[[paste0(v, "_hex")]], hex)
  }
  ref
}

gh_uni <- function(ref) {
  u <- ref[ref$kind == "uni", ]
  for (v in c("mu", "gamma", "sigma", "x")) {
    u[[v]] <- vapply(u[[v]], function(e) e[[1L]], numeric(1))
  }
  u
}

# |error| relative to max(1, |reference|): for a log-probability this is the
# relative error of the probability itself while |log P| <= 1
gh_rel_err <- function(x, ref) {
  ifelse(x == ref, 0, abs(x - ref) / pmax(1, abs(ref)))
}

test_that("dgh matches the mpmath log densities (d = 1)", {
  u <- gh_uni(gh_fixture())
  got <- dgh(u$x, u$mu, u$gamma, u$sigma, u$p, u$a, u$b, log = TRUE)
  err <- gh_rel_err(got, u$logpdf)
  # sqrt(ab) = 1000: log f ~ -1 is the sum of log-Bessel terms ~ +-1000,
  # which costs ~1e-13 absolute
  big <- sqrt(u$a * u$b) >= 1000
  expect_lt(max(err[!big]), 1e-13)
  expect_lt(max(err[big]), 3e-13)
  # the far tails (|x - mu| >= 1e3 sigma) are in the fixture
  expect_gt(sum(abs(u$x - u$mu) >= 1e3 * u$sigma), 50)
  ok <- u$logpdf > -700 & u$logpdf < 700
  expect_equal(dgh(u$x[ok], u$mu[ok], u$gamma[ok], u$sigma[ok], u$p[ok],
                   u$a[ok], u$b[ok]),
               exp(u$logpdf[ok]), tolerance = 1e-12)
})

test_that("pgh matches the mpmath tails to 1e-12, both tails, in log", {
  u <- gh_uni(gh_fixture())
  lo <- pgh(u$x, u$mu, u$gamma, u$sigma, u$p, u$a, u$b, log.p = TRUE)
  up <- pgh(u$x, u$mu, u$gamma, u$sigma, u$p, u$a, u$b, lower.tail = FALSE,
            log.p = TRUE)
  expect_lt(max(gh_rel_err(lo, u$log_lower)), 1e-12)
  expect_lt(max(gh_rel_err(up, u$log_upper)), 1e-12)
  # tails far below the doubles' range are there too
  expect_true(any(u$log_lower < -1e5) && any(u$log_upper < -1e5))
  ok <- u$log_lower > -700
  expect_equal(pgh(u$x[ok], u$mu[ok], u$gamma[ok], u$sigma[ok], u$p[ok],
                   u$a[ok], u$b[ok]),
               exp(u$log_lower[ok]), tolerance = 1e-12)
  ok <- u$log_upper > -700
  expect_equal(pgh(u$x[ok], u$mu[ok], u$gamma[ok], u$sigma[ok], u$p[ok],
                   u$a[ok], u$b[ok], lower.tail = FALSE),
               exp(u$log_upper[ok]), tolerance = 1e-12)
})

test_that("qgh inverts the mpmath tails to 1e-10", {
  u <- gh_uni(gh_fixture())
  # (a tail whose log is within rounding of 0 does not determine x)
  lo <- u$log_lower < -1e-6
  up <- u$log_upper < -1e-6
  q1 <- qgh(u$log_lower[lo], u$mu[lo], u$gamma[lo], u$sigma[lo], u$p[lo],
            u$a[lo], u$b[lo], log.p = TRUE)
  q2 <- qgh(u$log_upper[up], u$mu[up], u$gamma[up], u$sigma[up], u$p[up],
            u$a[up], u$b[up], lower.tail = FALSE, log.p = TRUE)
  # relative to |x|, or to sigma near x = 0
  tol1 <- pmax(abs(u$x[lo]), u$sigma[lo])
  tol2 <- pmax(abs(u$x[up]), u$sigma[up])
  expect_lt(max(abs(q1 - u$x[lo]) / tol1), 1e-10)
  expect_lt(max(abs(q2 - u$x[up]) / tol2), 1e-10)
})

test_that("dgh matches the mpmath multivariate densities (d = 2, 3)", {
  ref <- gh_fixture()
  mv <- ref[ref$kind == "mv", ]
  expect_gt(nrow(mv), 20)
  got <- vapply(seq_len(nrow(mv)), function(i) {
    d <- mv$d[i]
    dgh(matrix(mv$x[[i]], 1L), mv$mu[[i]], mv$gamma[[i]],
        matrix(mv$sigma[[i]], d, d), mv$p[i], mv$a[i], mv$b[i], log = TRUE)
  }, numeric(1))
  err <- gh_rel_err(got, mv$logpdf)
  # the multivariate exponent B + log K_q cancels in a power tail: about
  # 1e-16 |B| absolute (|B| ~ 1e6 in the farthest skew-t row)
  far <- grepl("skewt", mv$label) & vapply(mv$x, function(v) max(abs(v)),
                                           numeric(1)) >= 1e6
  expect_lt(max(err[!far]), 1e-13)
  expect_lt(max(err[far]), 1e-10)
  # all rows of a set in one call (one Cholesky factor, threaded rows)
  for (lab in unique(mv$label)) {
    s <- mv[mv$label == lab, ]
    d <- s$d[1L]
    x <- do.call(rbind, s$x)
    got <- dgh(x, s$mu[[1L]], s$gamma[[1L]], matrix(s$sigma[[1L]], d, d),
               s$p[1L], s$a[1L], s$b[1L], log = TRUE, threads = 2)
    expect_lt(max(gh_rel_err(got, s$logpdf)[!far[mv$label == lab]]), 1e-13)
  }
})

test_that("special cases agree with their closed forms", {
  x <- c(-1e6, -1e3, -30, -2, -0.1, 0, 0.3, 1, 5, 100, 1e5)
  # Student t: a = 0, gamma = 0, p = -nu/2, b = nu
  for (nu in c(0.5, 1, 4, 30)) {
    expect_equal(dgh(x, p = -nu / 2, a = 0, b = nu, log = TRUE),
                 stats::dt(x, nu, log = TRUE), tolerance = 1e-13)
    expect_equal(pgh(x, p = -nu / 2, a = 0, b = nu, log.p = TRUE),
                 stats::pt(x, nu, log.p = TRUE), tolerance = 1e-12)
    expect_equal(pgh(x, p = -nu / 2, a = 0, b = nu, log.p = TRUE,
                     lower.tail = FALSE),
                 stats::pt(x, nu, log.p = TRUE, lower.tail = FALSE),
                 tolerance = 1e-12)
  }
  # symmetric variance gamma with p = 1: Laplace with scale 1 / sqrt(a)
  lap <- log(sqrt(2) / 2) - sqrt(2) * abs(x)
  expect_equal(dgh(x, p = 1, a = 2, b = 0, log = TRUE), lap,
               tolerance = 1e-14)
  expect_equal(pgh(x[x < 0], p = 1, a = 2, b = 0, log.p = TRUE),
               log(0.5) - sqrt(2) * abs(x[x < 0]), tolerance = 1e-13)
  # NIG density with base R's besselK where that is finite
  xs <- seq(-20, 20, by = 0.5)
  # (alpha, beta, delta) for a = 2, b = 3, gamma = 0.7, sigma = 1.5
  al <- sqrt(2 + (0.7 / 1.5)^2) / 1.5
  be <- 0.7 / 1.5^2
  de <- 1.5 * sqrt(3) # delta = sigma sqrt(b), b = 3
  r <- xs - 0.4
  nig <- al * de * besselK(al * sqrt(de^2 + r^2), 1) /
    (pi * sqrt(de^2 + r^2)) * exp(de * sqrt(al^2 - be^2) + be * r)
  expect_equal(dnig(xs, mu = 0.4, gamma = 0.7, sigma = 1.5, a = 2, b = 3),
               nig, tolerance = 1e-13)
})

test_that("the density integrates to 1 and pgh is its integral", {
  pars <- list(
    c(-0.5, 1, 1, 0.5), c(1.5, 2, 1, -0.3), c(2, 2, 0, 0.5),
    c(0.3, 1, 0, 0.4), c(-2, 0, 4, 1), c(-1.5, 0, 3, 0),
    c(0.5, 1000, 1000, 0.5), c(50, 1, 1, 0.1), c(-0.5, 1, 1e-6, 0.2)
  )
  for (par in pars) {
    f <- function(x) dgh(x, gamma = par[4], p = par[1], a = par[2], b = par[3])
    m <- qgh(0.5, gamma = par[4], p = par[1], a = par[2], b = par[3])
    tot <- stats::integrate(f, -Inf, m, rel.tol = 1e-10, subdivisions = 1000L,
                            stop.on.error = FALSE)$value +
      stats::integrate(f, m, Inf, rel.tol = 1e-10, subdivisions = 1000L,
                       stop.on.error = FALSE)$value
    expect_equal(tot, 1, tolerance = 1e-7, info = paste(par, collapse = " "))
    # pgh between two quantiles is the integral of the density
    qs <- qgh(c(0.2, 0.7), gamma = par[4], p = par[1], a = par[2], b = par[3])
    if (par[3] > 0 || qs[1] > 0 || qs[2] < 0) {
      piece <- stats::integrate(f, qs[1], qs[2], rel.tol = 1e-12)$value
      expect_equal(piece, 0.5, tolerance = 1e-9)
    }
  }
})

test_that("pgh and qgh are consistent: round trips, monotone, tails sum to 1", {
  pars <- list(
    c(-0.5, 1, 1, 0.5), c(1.5, 2, 1, -0.3), c(2, 2, 0, 0.5),
    c(0.3, 1, 0, -0.4), c(-2, 0, 4, 1), c(-0.5, 0, 1, 2),
    c(0.5, 1000, 1000, 0.5), c(-50, 1, 1, -0.1), c(2, 1e-4, 1e4, -0.05)
  )
  pr <- c(1e-300, 1e-20, 1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-9)
  for (par in pars) {
    info <- paste(par, collapse = " ")
    q <- qgh(pr, mu = 1, gamma = par[4], sigma = 2, p = par[1], a = par[2],
             b = par[3])
    expect_true(all(diff(q) > 0), info = info)
    back <- pgh(q, mu = 1, gamma = par[4], sigma = 2, p = par[1], a = par[2],
                b = par[3])
    expect_equal(back, pr, tolerance = 1e-11, info = info)
    pr2 <- c(1e-6, 0.01, 0.2, 0.5, 0.8)
    expect_equal(qgh(pr2, mu = 1, gamma = par[4], sigma = 2, p = par[1],
                     a = par[2], b = par[3], lower.tail = FALSE),
                 qgh(1 - pr2, mu = 1, gamma = par[4], sigma = 2, p = par[1],
                     a = par[2], b = par[3]),
                 tolerance = 1e-8, info = info)
    lp <- c(-1e4, -500, -50, -2)
    ql <- qgh(lp, mu = 1, gamma = par[4], sigma = 2, p = par[1], a = par[2],
              b = par[3], log.p = TRUE, lower.tail = FALSE)
    # (a power tail reaches exp(-500) only beyond the largest double)
    expect_true(all(is.finite(ql[3:4])), info = info)
    ok <- is.finite(ql)
    expect_equal(pgh(ql[ok], mu = 1, gamma = par[4], sigma = 2, p = par[1],
                     a = par[2], b = par[3], log.p = TRUE,
                     lower.tail = FALSE),
                 lp[ok], tolerance = 1e-12, info = info)
    x <- sort(c(q[is.finite(q)], seq(-30, 30, length.out = 41)))
    lo <- pgh(x, mu = 1, gamma = par[4], sigma = 2, p = par[1], a = par[2],
              b = par[3])
    up <- pgh(x, mu = 1, gamma = par[4], sigma = 2, p = par[1], a = par[2],
              b = par[3], lower.tail = FALSE)
    expect_true(all(diff(lo) >= 0), info = info)
    expect_equal(lo + up, rep(1, length(x)), tolerance = 1e-14, info = info)
  }
})

test_that("sigma is a scale in one dimension and Sigma as a matrix", {
  x <- c(-3, -0.5, 0, 1, 4)
  expect_equal(dgh(x, mu = 1, gamma = 0.3, sigma = 2),
               dgh((x - 1) / 2, gamma = 0.15) / 2, tolerance = 1e-14)
  expect_identical(dgh(x, sigma = matrix(4)), dgh(x, sigma = 2))
  expect_identical(pgh(x, sigma = matrix(4)), pgh(x, sigma = 2))
  expect_identical(unname(dgh(matrix(x), mu = 1, gamma = 0.3,
                              sigma = matrix(4))),
                   dgh(x, mu = 1, gamma = 0.3, sigma = 2))
  # a vector x of length d with a d x d Sigma is one observation
  sig <- matrix(c(2, 0.3, 0.3, 1), 2)
  expect_identical(dgh(c(1, 2), sigma = sig),
                   dgh(rbind(c(1, 2)), sigma = sig))
  # a data frame of numeric columns, row names carried through
  df <- data.frame(u = c(0, 1, -2), v = c(1, 0.5, 3), row.names = c("a", "b",
                                                                    "c"))
  out <- dgh(df, gamma = c(0.1, -0.2), sigma = sig)
  expect_named(out, c("a", "b", "c"))
  expect_equal(unname(out),
               unname(dgh(as.matrix(df), gamma = c(0.1, -0.2), sigma = sig)))
})

test_that("the multivariate density is equivariant under affine maps", {
  sig <- matrix(c(2, 0.5, 0.1, 0.5, 1, -0.2, 0.1, -0.2, 0.5), 3)
  mu <- c(0, 1, -1)
  g <- c(0.3, 0, -0.2)
  set.seed(3)
  x <- matrix(stats::rnorm(30), 10)
  amat <- matrix(c(1, 0.5, 0, -0.2, 2, 0.1, 0.3, 0, 1.5), 3)
  cc <- c(5, -1, 2)
  for (pab in list(c(-0.5, 1, 1), c(2, 1, 0), c(-2, 0, 4), c(1.5, 2, 0.5))) {
    y <- x %*% t(amat) + rep(cc, each = nrow(x))
    lhs <- dgh(y, amat %*% mu + cc, amat %*% g,
               amat %*% sig %*% t(amat), pab[1], pab[2],
               pab[3], log = TRUE)
    rhs <- dgh(x, mu, g, sig, pab[1], pab[2], pab[3], log = TRUE) -
      log(abs(det(amat)))
    expect_equal(lhs, rhs, tolerance = 1e-12)
  }
  # the scale invariance (gamma, Sigma, a, b) -> (gamma/s, Sigma/s, a/s, b s)
  expect_equal(dgh(x, mu, g / 3, sig / 3, 1.5, 2 / 3, 1.5),
               dgh(x, mu, g, sig, 1.5, 2, 0.5), tolerance = 1e-13)
  # d = 2 with the identity and gamma = 0 depends on |x| only
  r <- c(0.5, 2, 7)
  expect_equal(dgh(cbind(r, 0)), dgh(cbind(r / sqrt(2), r / sqrt(2))),
               tolerance = 1e-14)
})

test_that("results do not depend on the number of threads", {
  x <- seq(-20, 20, length.out = 3001)
  expect_identical(dgh(x, gamma = 0.4, threads = 1),
                   dgh(x, gamma = 0.4, threads = 2))
  xs <- x[seq(1, 3001, by = 30)]
  expect_identical(pgh(xs, gamma = c(0.4, -1), p = c(-0.5, 2), threads = 1),
                   pgh(xs, gamma = c(0.4, -1), p = c(-0.5, 2), threads = 2))
  pr <- seq(0.01, 0.99, length.out = 41)
  expect_identical(qgh(pr, gamma = 0.4, threads = 1),
                   qgh(pr, gamma = 0.4, threads = 2))
  m <- cbind(x, rev(x))
  expect_identical(dgh(m, gamma = c(1, -1), threads = 1),
                   dgh(m, gamma = c(1, -1), threads = 2))
})

test_that("base-R semantics: recycling, attributes, NA, Inf, boundaries", {
  expect_length(dgh(numeric()), 0)
  expect_length(pgh(1:3, mu = numeric()), 0)
  expect_equal(dgh(c(0, 1), mu = c(0, 1, 2, 3)),
               dgh(c(0, 1, 0, 1), mu = c(0, 1, 2, 3)))
  x <- matrix(c(-1, 0, 1, 2), 2, dimnames = list(c("r1", "r2"), NULL))
  expect_identical(attributes(pgh(c(a = 1, b = 2))), list(names = c("a", "b")))
  # a matrix of quantiles: pgh keeps its attributes as pnorm does
  expect_identical(dim(pgh(x)), c(2L, 2L))
  expect_identical(dgh(c(NA, NaN, Inf, -Inf)), c(NA, NaN, 0, 0))
  expect_identical(dgh(-Inf, log = TRUE), -Inf)
  expect_identical(pgh(c(-Inf, Inf, NA)), c(0, 1, NA))
  expect_identical(pgh(Inf, lower.tail = FALSE, log.p = TRUE), -Inf)
  expect_identical(qgh(c(0, 1)), c(-Inf, Inf))
  expect_identical(qgh(c(-Inf, 0), log.p = TRUE), c(-Inf, Inf))
  expect_identical(qgh(NA_real_), NA_real_)
  expect_warning(out <- qgh(c(-0.5, 0.5, 2)), "NaNs produced")
  expect_true(is.nan(out[1]) && is.nan(out[3]) && !is.nan(out[2]))
  expect_identical(dgh(1, mu = NA), NA_real_)
  expect_identical(dgh(1, p = NA), NA_real_)
  # multivariate rows with NA, NaN, Inf
  m <- rbind(c(0, 0), c(NA, 1), c(NaN, 1), c(Inf, 0), c(1, 1))
  out <- dgh(m, gamma = c(0.5, 0))
  expect_true(is.na(out[2]) && !is.nan(out[2]))
  expect_true(is.nan(out[3]))
  expect_identical(out[4], 0)
  expect_true(all(is.finite(out[c(1, 5)])))
  # the variance-gamma singularity at mu (b = 0, p <= d/2)
  expect_identical(dgh(0, p = 0.3, a = 1, b = 0), Inf)
  expect_equal(pgh(0, p = 0.3, a = 1, b = 0), 0.5, tolerance = 1e-15)
})

test_that("the NIG conveniences are dgh etc. with p = -1/2", {
  x <- c(-2, 0, 0.5, 3)
  expect_identical(dnig(x, 1, 0.5, 2, 1.5, 0.7),
                   dgh(x, 1, 0.5, 2, -0.5, 1.5, 0.7))
  expect_identical(pnig(x, 1, 0.5, 2, 1.5, 0.7, lower.tail = FALSE),
                   pgh(x, 1, 0.5, 2, -0.5, 1.5, 0.7, lower.tail = FALSE))
  expect_identical(qnig(c(0.1, 0.9), 1, 0.5, 2, 1.5, 0.7),
                   qgh(c(0.1, 0.9), 1, 0.5, 2, -0.5, 1.5, 0.7))
  m <- rbind(c(0, 1), c(-1, 2))
  expect_identical(dnig(m, gamma = c(0.5, 0)), dgh(m, gamma = c(0.5, 0)))
  set.seed(2)
  a <- rnig(5, 1, 0.5, 2, 1.5, 0.7)
  set.seed(2)
  expect_identical(a, rgh(5, 1, 0.5, 2, -0.5, 1.5, 0.7))
})

test_that("rgh draws have the closed-form moments and distribution", {
  set.seed(42)
  n <- 2e5
  for (par in list(c(-0.5, 1, 1), c(2, 2, 0), c(1.5, 2, 0.5))) {
    ey <- gig_mean(par[1], par[2], par[3])
    vy <- gig_var(par[1], par[2], par[3])
    x <- rgh(n, mu = 1, gamma = 0.5, sigma = 2, p = par[1], a = par[2],
             b = par[3])
    m <- 1 + 0.5 * ey
    v <- 4 * ey + 0.25 * vy
    expect_lt(abs(mean(x) - m), 5 * sqrt(v / n))
    expect_equal(stats::var(x), v, tolerance = 0.03)
  }
  # multivariate: mean mu + E[Y] gamma, covariance E[Y] Sigma +
  # Var(Y) gamma gamma'
  sig <- matrix(c(1, 0.4, 0.4, 2), 2)
  g <- c(0.5, -1)
  x <- rgh(n, mu = c(1, 2), gamma = g, sigma = sig, p = 1.5, a = 2, b = 1)
  expect_identical(dim(x), c(as.integer(n), 2L))
  ey <- gig_mean(1.5, 2, 1)
  vy <- gig_var(1.5, 2, 1)
  cv <- ey * sig + vy * tcrossprod(g)
  expect_lt(max(abs(colMeans(x) - (c(1, 2) + ey * g)) / sqrt(diag(cv) / n)),
            5)
  expect_equal(stats::cov(x), cv, tolerance = 0.03)
  # reproducible with set.seed
  set.seed(7)
  a <- rgh(10, gamma = 0.3)
  set.seed(7)
  expect_identical(rgh(10, gamma = 0.3), a)
  expect_identical(rgh(0), numeric())
  expect_length(rgh(c(5, 6, 7)), 3)
})

test_that("rgh passes a Kolmogorov-Smirnov test against pgh", {
  set.seed(20240607)
  for (par in list(c(-0.5, 1, 1, 0.5), c(0.3, 1, 0, -0.4),
                   c(-2, 0, 4, 1))) {
    x <- rgh(5000, mu = -1, gamma = par[4], sigma = 0.5, p = par[1],
             a = par[2], b = par[3])
    cdf <- function(q) {
      pgh(q, mu = -1, gamma = par[4], sigma = 0.5, p = par[1], a = par[2],
          b = par[3])
    }
    ks <- suppressWarnings(stats::ks.test(x, cdf))
    expect_gt(ks$p.value, 1e-3)
  }
})

test_that("bad input is a classed error naming the argument", {
  err <- function(expr, pattern) {
    expect_error(expr, pattern, class = "ghmix_error_argument")
  }
  # invalid parameter values: NaN with a warning, as base R's dnorm() (the
  # project lead's decision, issue 17; these were classed errors before)
  nan <- function(expr, want = NaN) {
    expect_warning(v <- expr, "^NaNs produced$")
    expect_identical(is.nan(v), is.nan(want))
  }
  err(dgh("a"), "`x` must be numeric")
  nan(dgh(1, a = -1))
  nan(dgh(1, b = c(1, -1)), c(1, NaN))
  nan(dgh(1, a = 0, b = 0))
  nan(dgh(1, p = 1, a = 0))
  nan(pgh(1, p = -1, b = 0))
  nan(qgh(0.5, p = Inf))
  nan(dgh(1, sigma = 0))
  nan(pgh(1, sigma = -2))
  nan(dgh(1, mu = Inf))
  err(dgh(1, gamma = "x"), "`gamma` must be numeric")
  err(dgh(1, log = NA), "`log` must be TRUE or FALSE")
  err(pgh(1, lower.tail = 2), "`lower.tail` must be TRUE or FALSE")
  err(dgh(1, threads = 0), "`threads`")
  err(pgh(1, sigma = diag(2)), "`sigma` is a 2 x 2 matrix")
  # multivariate
  sig <- matrix(c(1, 0.5, 0.5, 1), 2)
  x <- matrix(1:6, 3)
  err(dgh(x, mu = c(0, 0, 0), sigma = sig), "`mu` must have length 2")
  err(dgh(x, gamma = 1:3), "`gamma` must have length 2")
  err(dgh(x, sigma = diag(3)), "`sigma` must be a 2 x 2 matrix")
  err(dgh(x, sigma = 2), "`sigma` must be the 2 x 2 dispersion matrix")
  err(dgh(x, sigma = matrix(c(1, 2, 2, 1), 2)),
      "`sigma` must be positive definite")
  err(dgh(x, sigma = matrix(c(1, 0.5, 0.2, 1), 2)),
      "`sigma` must be symmetric")
  err(dgh(x, sigma = matrix(c(1, NA, NA, 1), 2)), "`sigma` must be finite")
  err(dgh(x, p = c(1, 2)), "`p` must be a single number")
  nan(dgh(x, a = -1), rep(NaN, 3))
  err(dgh(c(1, 2, 3), sigma = sig), "`x` has length 3")
  err(dgh(data.frame(u = 1, v = "a"), sigma = sig),
      "`x` must have numeric columns only")
  err(rgh(-1), "`n` must be a non-negative number")
  err(rgh(2, sigma = matrix(c(1, 2, 2, 1), 2)),
      "`sigma` must be positive definite")
  nan(rgh(2, a = 0, p = 1), c(NaN, NaN))
})
