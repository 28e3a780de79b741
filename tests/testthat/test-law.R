# gh_law(): construction in every parametrisation, moments against
# numerical integration of dgh() (d = 1) and large simulations (d > 1),
# the GH functions taking the object, margins, classed errors.

law_cases <- function() {
  list(
    nig = gh_law(mu = 0.1, gamma = 0.5, sigma = 2, p = -0.5, a = 1, b = 1),
    gh = gh_law(mu = -1, gamma = -0.3, sigma = 0.7, p = 1.7, a = 2, b = 0.4),
    vg = gh_law(mu = 0, gamma = 0.2, sigma = 1, p = 1.5, a = 3, b = 0),
    skewt = gh_law(mu = 0.5, gamma = 0.4, sigma = 1, p = -6, a = 0, b = 10),
    sym = gh_law(mu = 0, gamma = 0, sigma = 1.3, p = 0.5, a = 1, b = 2)
  )
}

# E[g(X)] by integrate() of dgh, split at the mode region
law_integral <- function(law, g) {
  f <- function(x) g(x) * dgh(x, law)
  m <- mean(law)
  s <- sqrt(vcov(law)[[1L]])
  pieces <- c(-Inf, m - 5 * s, m, m + 5 * s, Inf)
  sum(vapply(seq_len(4L), function(i) {
    stats::integrate(f, pieces[i], pieces[i + 1L], rel.tol = 1e-12,
                     subdivisions = 1000L)$value
  }, numeric(1)))
}

test_that("raw and central moments match integrate() of dgh (d = 1)", {
  for (law in law_cases()) {
    raw <- gh_moment(law, 1:4)
    ref <- vapply(1:4, function(k) law_integral(law, function(x) x^k),
                  numeric(1))
    expect_equal(raw, ref, tolerance = 1e-8)
    m <- ref[1L]
    cen <- gh_moment(law, 1:4, central = TRUE)
    ref_c <- vapply(1:4, function(k) {
      law_integral(law, function(x) (x - m)^k)
    }, numeric(1))
    expect_equal(cen[1L], 0)
    expect_equal(cen[2:4], ref_c[2:4], tolerance = 1e-8)
    expect_equal(gh_skewness(law), ref_c[3L] / ref_c[2L]^1.5,
                 tolerance = 1e-8, ignore_attr = TRUE)
    expect_equal(gh_kurtosis(law), ref_c[4L] / ref_c[2L]^2 - 3,
                 tolerance = 1e-8, ignore_attr = TRUE)
    expect_equal(gh_kurtosis(law, excess = FALSE),
                 ref_c[4L] / ref_c[2L]^2, tolerance = 1e-8,
                 ignore_attr = TRUE)
    expect_equal(mean(law), m, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(vcov(law)[[1L]], ref_c[2L], tolerance = 1e-8)
  }
})

test_that("moments of higher order and those that do not exist", {
  law <- law_cases()$nig
  expect_equal(gh_moment(law, 6),
               law_integral(law, function(x) x^6), tolerance = 1e-8)
  # skew-t with 4 degrees of freedom: moments of order < df / 2 only (its
  # heavy tail is |x|^(-df/2 - 1))
  t4 <- gh_law(gamma = 0.1, p = -2, a = 0, b = 4)
  expect_true(is.finite(gh_moment(t4, 1)))
  expect_false(is.finite(gh_moment(t4, 2)))
  # Student t: mean mu, variance b / (2 (-p - 1)) sigma^2 = df / (df - 2)
  st <- gh_law(mu = 1, p = -3, a = 0, b = 6)
  expect_equal(gh_moment(st, 2, central = TRUE), 6 / 4)
  expect_equal(gh_kurtosis(st), 6 / (6 - 4))
  expect_equal(gh_skewness(st), 0, ignore_attr = TRUE)
})

test_that("mean and vcov are the closed forms and agree with simulation", {
  s <- matrix(c(1, 0.4, -0.2, 0.4, 2, 0.3, -0.2, 0.3, 0.5), 3)
  law <- gh_law(mu = c(x = 1, y = -1, z = 0), gamma = c(0.5, -0.2, 0.1),
                sigma = s, p = 1.2, a = 2, b = 1)
  ey <- gig_mean(1.2, 2, 1)
  vy <- gig_var(1.2, 2, 1)
  expect_equal(mean(law), c(x = 1, y = -1, z = 0) + ey * law$gamma)
  expect_equal(vcov(law), ey * s + vy * tcrossprod(law$gamma),
               ignore_attr = TRUE)
  expect_identical(dim(law), 3L)
  set.seed(11)
  n <- 2e5
  x <- rgh(n, law)
  expect_identical(colnames(x), c("x", "y", "z"))
  se_mean <- sqrt(diag(vcov(law)) / n)
  expect_lt(max(abs(colMeans(x) - mean(law)) / se_mean), 4.5)
  xc <- sweep(x, 2L, mean(law))
  for (i in 1:3) {
    for (j in i:3) {
      prod_ij <- xc[, i] * xc[, j]
      z <- (mean(prod_ij) - vcov(law)[i, j]) / (stats::sd(prod_ij) / sqrt(n))
      expect_lt(abs(z), 4.5)
    }
  }
  # third and fourth central moments of each margin
  k2 <- diag(vcov(law))
  k3 <- gh_skewness(law) * k2^1.5
  k4 <- (gh_kurtosis(law) + 3) * k2^2
  for (j in 1:3) {
    c3 <- xc[, j]^3
    c4 <- xc[, j]^4
    expect_lt(abs(mean(c3) - k3[[j]]) / (stats::sd(c3) / sqrt(n)), 4.5)
    expect_lt(abs(mean(c4) - k4[[j]]) / (stats::sd(c4) / sqrt(n)), 4.5)
  }
  # the margins' skewness is that of the univariate margin laws
  expect_equal(gh_skewness(law)[["y"]], gh_skewness(law["y"])[[1L]])
  expect_equal(gh_kurtosis(law)[2:3], c(gh_kurtosis(law[2]),
                                        gh_kurtosis(law[3])))
})

test_that("every parametrisation of coef() gives the fitted law", {
  r <- diff(log(EuStockMarkets))
  fit <- fit_nig(r[, "DAX"])
  law <- gh_law(fit)
  x <- c(-0.03, -0.005, 0, 0.01, 0.04)
  for (pz in c("ghmix", "ghyp", "alpha.bar", "alpha")) {
    other <- gh_law(coef(fit, parametrization = pz), parametrization = pz)
    expect_equal(dgh(x, other), dgh(x, law), tolerance = 1e-12)
    expect_equal(mean(other), mean(law), tolerance = 1e-12,
                 ignore_attr = TRUE)
  }
  fit4 <- fit_nig(r[1:500, ])
  law4 <- gh_law(fit4)
  for (pz in c("ghmix", "ghyp", "alpha.bar")) {
    other <- gh_law(coef(fit4, parametrization = pz), parametrization = pz)
    expect_equal(dgh(r[1:20, ], other), dgh(r[1:20, ], law4),
                 tolerance = 1e-12)
  }
  expect_identical(names(law4$mu), colnames(r))
  # alpha.bar = 0: the variance gamma and Student t limits, E[Y] = 1
  vg <- gh_law(list(lambda = 2, alpha.bar = 0, mu = 0, sigma = 1, gamma = 0),
               parametrization = "alpha.bar")
  expect_equal(c(vg$a, vg$b), c(4, 0))
  st <- gh_law(list(lambda = -3, alpha.bar = 0, mu = 0, sigma = 1,
                    gamma = 0), parametrization = "alpha.bar")
  expect_equal(gig_mean(st$p, st$a, st$b), 1)
  expect_identical(gh_law(law), law)
})

test_that("dgh, pgh, qgh, rgh and simulate take the law", {
  law <- law_cases()$gh
  x <- c(-3, -1, 0, 2)
  expect_identical(dgh(x, law),
                   dgh(x, -1, -0.3, 0.7, 1.7, 2, 0.4))
  expect_identical(dgh(x, law, log = TRUE),
                   dgh(x, -1, -0.3, 0.7, 1.7, 2, 0.4, log = TRUE))
  expect_identical(pgh(x, law, lower.tail = FALSE),
                   pgh(x, -1, -0.3, 0.7, 1.7, 2, 0.4, lower.tail = FALSE))
  expect_identical(qgh(c(0.01, 0.5), law),
                   qgh(c(0.01, 0.5), -1, -0.3, 0.7, 1.7, 2, 0.4))
  set.seed(3)
  a <- rgh(5, law)
  set.seed(3)
  expect_identical(a, rgh(5, -1, -0.3, 0.7, 1.7, 2, 0.4))
  expect_identical(simulate(law, 5, seed = 3), structure(a, seed = 3),
                   ignore_attr = TRUE)
  s <- matrix(c(2, 0.5, 0.5, 1), 2)
  law2 <- gh_law(mu = c(1, 2), gamma = c(0.1, 0), sigma = s)
  xm <- rbind(c(0, 0), c(1, 3))
  expect_identical(dgh(xm, law2), dgh(xm, c(1, 2), c(0.1, 0), s))
  set.seed(4)
  b <- rgh(3, law2)
  set.seed(4)
  expect_identical(b, rgh(3, c(1, 2), c(0.1, 0), s))
  expect_identical(dim(simulate(law2, 7)), c(7L, 2L))
})

test_that("margins by index and by name", {
  s <- matrix(c(1, 0.4, 0.1, 0.4, 2, 0.3, 0.1, 0.3, 0.5), 3)
  law <- gh_law(mu = c(a = 1, b = 2, c = 3), gamma = c(0.1, 0.2, 0.3),
                sigma = s, p = 2, a = 1, b = 0.5)
  m <- law[c("c", "a")]
  expect_identical(names(m$mu), c("c", "a"))
  expect_equal(m$sigma, s[c(3, 1), c(3, 1)], ignore_attr = TRUE)
  expect_identical(law[-2]$mu, c(a = 1, c = 3))
  u <- law[2]
  expect_identical(dim(u), 1L)
  set.seed(5)
  y <- rgh(2e4, law)[, 2]
  expect_gt(stats::ks.test(y, function(q) pgh(q, u))$p.value, 1e-3)
})

test_that("bad input gives classed errors naming the argument", {
  expect_error(gh_law(a = -1), "`a`", class = "ghmix_error_argument")
  expect_error(gh_law(b = -1), "`b`", class = "ghmix_error_argument")
  expect_error(gh_law(p = 1, a = 0, b = 1), "`p`",
               class = "ghmix_error_argument")
  expect_error(gh_law(p = c(1, 2)), "`p`", class = "ghmix_error_argument")
  expect_error(gh_law(sigma = -1), "`sigma`", class = "ghmix_error_argument")
  expect_error(gh_law(mu = c(0, 0), sigma = 2), "`sigma`",
               class = "ghmix_error_argument")
  expect_error(gh_law(mu = c(0, 0), sigma = matrix(c(1, 2, 2, 1), 2)),
               "`sigma`", class = "ghmix_error_argument")
  expect_error(gh_law(mu = c(0, Inf)), "`mu`", class = "ghmix_error_argument")
  expect_error(gh_law(mu = 0, gamma = c(1, 2, 3), sigma = diag(2)),
               "`gamma`", class = "ghmix_error_argument")
  expect_error(gh_law(list(lambda = 1), parametrization = "ghyp"), "`chi`",
               class = "ghmix_error_argument")
  expect_error(gh_law(list(mu = 0), parametrization = "nope"),
               "`parametrization`", class = "ghmix_error_argument")
  law <- gh_law(mu = c(0, 0))
  expect_error(gh_moment(law, 1), "`law`", class = "ghmix_error_argument")
  expect_error(gh_moment(law[1], 0), "`order`",
               class = "ghmix_error_argument")
  expect_error(gh_skewness(list()), "`law`", class = "ghmix_error_argument")
  expect_error(law[3], "`i`", class = "ghmix_error_argument")
  expect_error(pgh(0, law), "`mu`", class = "ghmix_error_argument")
  expect_error(simulate(law, 0), "`nsim`", class = "ghmix_error_argument")
})

test_that("print shows the family and parameters", {
  expect_output(print(law_cases()$nig), "NIG distribution, d = 1")
  expect_output(print(law_cases()$skewt), "skew-t")
  expect_output(print(gh_law(mu = c(0, 0))), "Sigma")
})

test_that("transform: change of variables for invertible A", {
  s <- matrix(c(1, 0.4, -0.2, 0.4, 2, 0.3, -0.2, 0.3, 0.5), 3)
  law <- gh_law(mu = c(1, -1, 0), gamma = c(0.5, -0.2, 0.1), sigma = s,
                p = 1.2, a = 2, b = 1)
  A <- rbind(c(1, 2, 0), c(0, 1, -1), c(0.5, 0, 3))
  b <- c(1, 2, 3)
  tl <- transform(law, A, b)
  set.seed(8)
  y <- matrix(stats::rnorm(30), 10) * 2
  x <- t(solve(A, t(y) - b))
  expect_equal(dgh(y, tl), dgh(x, law) / abs(det(A)), tolerance = 1e-12)
  expect_equal(mean(tl), drop(A %*% mean(law) + b), tolerance = 1e-12)
  expect_equal(vcov(tl), A %*% vcov(law) %*% t(A), tolerance = 1e-12,
               ignore_attr = TRUE)
  # univariate: a scale and a shift
  u <- transform(law[1], -2, b = 1)
  expect_equal(dgh(c(-1, 0, 2), u),
               dgh((1 - c(-1, 0, 2)) / 2, law[1]) / 2, tolerance = 1e-12)
})

test_that("transform: simulation agrees for non-square A (KS)", {
  s <- matrix(c(1, 0.4, 0.1, 0.4, 2, 0.3, 0.1, 0.3, 0.5), 3)
  law <- gh_law(mu = c(0, 1, 2), gamma = c(0.3, -0.4, 0.2), sigma = s,
                p = -1.5, a = 1, b = 2)
  A <- rbind(p1 = c(1, 1, 1), p2 = c(0.2, -0.5, 1))
  tl <- transform(law, A, b = c(0, -1))
  expect_identical(names(tl$mu), c("p1", "p2"))
  expect_identical(dim(tl), 2L)
  set.seed(9)
  x <- rgh(2e4, law)
  y <- x %*% t(A) + rep(c(0, -1), each = nrow(x))
  for (j in 1:2) {
    expect_gt(stats::ks.test(y[, j], function(q) pgh(q, tl[j]))$p.value,
              1e-3)
  }
  # the portfolio w'X from a weight vector
  w <- c(0.5, 0.3, 0.2)
  pf <- transform(law, w)
  expect_identical(dim(pf), 1L)
  expect_equal(pf$sigma[[1L]], drop(t(w) %*% s %*% w))
  expect_gt(stats::ks.test(drop(x %*% w), function(q) pgh(q, pf))$p.value,
            1e-3)
})

test_that("transform: bad maps are classed errors naming the argument", {
  law <- gh_law(mu = c(0, 0, 0))
  expect_error(transform(law, rbind(c(1, 1, 0), c(2, 2, 0))), "`A`",
               class = "ghmix_error_argument")
  expect_error(transform(law, diag(2)), "`A`",
               class = "ghmix_error_argument")
  expect_error(transform(law, matrix(1, 4, 3)), "`A`",
               class = "ghmix_error_argument")
  expect_error(transform(law, c(1, NA, 0)), "`A`",
               class = "ghmix_error_argument")
  expect_error(transform(law, "a"), "`A`", class = "ghmix_error_argument")
  expect_error(transform(law, c(1, 0, 0), b = c(1, 2)), "`b`",
               class = "ghmix_error_argument")
})

test_that("simulate() with a seed leaves the generator as it was", {
  law <- gh_law(gamma = 0.2)
  set.seed(2)
  before <- .Random.seed
  a <- simulate(law, 4, seed = 7)
  expect_identical(.Random.seed, before)
  expect_identical(a, simulate(law, 4, seed = 7))
  set.seed(7)
  expect_identical(as.vector(a), rgh(4, law))
  expect_identical(attr(a, "seed"), structure(7, kind = as.list(RNGkind())))
})
