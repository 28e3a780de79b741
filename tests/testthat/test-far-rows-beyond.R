# Issue 17: fits in d = 2 with one row beyond 2^64 robust spreads, where
# the E-step's and dgh()'s log density of that row are rounded (a rounding
# of the row moves it by ~ |g| eps^2 |z| / 2, 1e68 at |z| = 1e100), go on
# by the direct maximisation with that row's log density in closed form
# (R/fit_extreme_far.R).  References, in base R only:
# - the far row's asymptotic log density along gamma, DLMF 10.40.2
#   (K_nu(w) ~ sqrt(pi / (2w)) e^-w) in the normal mixture over GIG
#   (DLMF 10.32.10): with lam = p - d/2, g = L^-1 gamma, z = L^-1 (x - mu),
#   log f = log c(p, a, b) - (d/2) log(2 pi) - log|L| + log 2
#           + lam log(|z| / |g|) + log(sqrt(pi / 2) / sqrt(|g| |z|))
#           + O(1 / |z|),
#   which for the NIG (p = -1/2) makes the maximum's log-likelihood
#   ll(D) = ll(D0) - ((d + 2) / 2) log(D / D0) + O(n / D0), with ll(D0)
#   at D0 = 1e13 checked against the full base-R likelihood
#   (test-far-rows-mv-gh.R's method);
# - for the skew-t (a = 0, p fitted), the base-R likelihood of the other
#   rows plus that asymptotic term, maximised by nlminb() from several
#   starts about the fit.

beyond_bulk <- function() {
  set.seed(1)
  matrix(stats::rnorm(400), 200, 2) %*% matrix(c(1, 0.3, 0, 1), 2)
}

beyond_fit <- function(fit_fun, x) {
  r <- far_fit_det(fit_fun, x)
  expect_null(r$warned)
  expect_true(r$fit$converged)
  expect_identical(utils::tail(r$fit$trace$step, 1L), "direct")
  r$fit
}

test_that("d = 2 NIG fits with a row beyond 2^64 follow the asymptote", {
  bulk <- beyond_bulk()
  dists <- c(1e13, 1e30, 1e100, 1e300)
  ll <- vapply(dists, function(dist) {
    beyond_fit(fit_nig, rbind(bulk, c(dist, 0)))$loglik
  }, 0)
  # ll at 1e13 is the base-R maximum (test-far-rows-mv.R), -708.73
  expect_equal(ll[-1L], ll[[1L]] - 2 * log(dists[-1L] / dists[[1L]]),
               tolerance = 1e-9)
})

# the skew-t log-likelihood in base R: the rows but the last by the closed
# form (DLMF 10.32.10, with besselK(expon.scaled = TRUE)), the last, far
# along gamma, by its asymptote; v = (mu, t, lower Cholesky factor (log
# diagonal), log(-p), log b), gamma = t u with u the far row's direction
beyond_skewt_ll <- function(v, x) {
  n <- nrow(x)
  far <- x[n, ]
  dist <- sqrt(sum((far / max(abs(far)))^2)) * max(abs(far))
  u <- far / dist
  l <- matrix(c(exp(v[4]), v[5], 0, exp(v[6])), 2)
  p <- -exp(v[7])
  b <- exp(v[8])
  mu <- v[1:2]
  gamma <- v[3] * u
  bulk <- x[-n, , drop = FALSE]
  z <- forwardsolve(l, t(bulk) - mu)
  g <- forwardsolve(l, gamma)
  q <- colSums(z * z)
  big_g <- sum(g * g)
  bz <- drop(crossprod(g, z))
  omega <- sqrt(big_g) * sqrt(b + q)
  lam <- p - 1
  log_c <- -p * log(b / 2) - lgamma(-p)
  f <- log_c - log(2 * pi) - sum(log(diag(l))) + log(2) +
    (lam / 2) * (log(b + q) - log(big_g)) +
    log(besselK(omega, abs(lam), expon.scaled = TRUE)) + bz - omega
  # |z| = dist |L^-1 (u - mu / dist)|, |g| = t |L^-1 u|
  log_z <- log(dist) + log(sqrt(sum(forwardsolve(l, u - mu / dist)^2)))
  log_g <- log(sqrt(big_g))
  f_far <- log_c - log(2 * pi) - sum(log(diag(l))) + log(2) +
    lam * (log_z - log_g) + 0.5 * log(pi / 2) - 0.5 * (log_g + log_z)
  r <- unname(sum(f) + f_far)
  if (v[3] > 0 && is.finite(r)) r else -Inf
}

test_that("d = 2 skew-t and GH fits with a row at 1e100, 1e300: maxima", {
  bulk <- beyond_bulk()
  for (dist in c(1e100, 1e300)) {
    x <- rbind(bulk, dist * c(1, -1 / 3))
    s <- beyond_fit(fit_skewt, x)
    g <- beyond_fit(fit_gh, x)
    expect_equal(g$loglik, s$loglik, tolerance = 1e-10)
    par <- s$parameters
    u <- x[nrow(x), ] / sqrt(sum((x[nrow(x), ] / dist)^2)) / dist
    l <- t(chol(par$sigma))
    v <- c(par$mu, sum(par$gamma * u), log(l[1, 1]), l[2, 1], log(l[2, 2]),
           log(-par$p), log(par$b))
    ll <- beyond_skewt_ll(v, x)
    expect_equal(s$loglik, ll, tolerance = 1e-10)
    pert <- rep(c(1, -1), length.out = length(v))
    starts <- list(v + 0.01 * pert, v - 0.01 * pert,
                   replace(v, 7:8, v[7:8] + c(0.5, -0.5)))
    best <- vapply(starts, far_nlminb_max, 0,
                   ll = function(t) beyond_skewt_ll(t, x))
    expect_true(all(best <= ll + 1e-9 * abs(ll)))
    expect_gt(max(best), ll - 1e-9 * abs(ll))
  }
})
