# Issue 17: NIG fits in d = 2 with one row far from the rest go on by the
# direct maximisation (R/fit_extreme.R), as univariate fits do.  Reference:
# the NIG log-likelihood in base R only, from the closed form (DLMF
# 10.32.10) with K_{1/2} and K_{3/2} in closed form (DLMF 10.39.2, 10.47.9:
# K_{3/2}(x) = sqrt(pi / (2x)) e^-x (1 + 1/x)) and the exponent B - omega
# taken without cancellation on the heavy side, -(a (b + Q) + G b + G
# |z_perp|^2) / (B + omega), z_perp = z - (B / G) g formed from z; then
# nlminb() of that log-likelihood from fixed starts about the fit.

# log f of the NIG (p = -1/2) in d = 2 at the rows of x
mv_far_ldnig <- function(x, mu, gamma, sigma, a, b) {
  l <- t(chol(sigma))
  z <- forwardsolve(l, t(x) - mu)
  g <- forwardsolve(l, gamma)
  q <- colSums(z * z)
  big_g <- sum(g * g)
  bz <- drop(crossprod(g, z))
  omega <- sqrt(a + big_g) * sqrt(b + q)
  perp <- z - outer(g, bz / big_g)
  num <- a * (b + q) + big_g * b + big_g * colSums(perp * perp)
  expo <- ifelse(bz > 0, -num / (bz + omega), bz - omega)
  w <- sqrt(a) * sqrt(b)
  # c(p, a, b) with log K_{1/2}(w) = (1/2) log(pi / (2w)) - w
  log_c <- -0.25 * (log(a) - log(b)) - log(2) -
    (0.5 * log(pi / (2 * w)) - w)
  # - c(q, A, b + Q), q = -3/2: (q/2) log((b + Q) / A) + log 2 + log K
  log_k_scaled <- 0.5 * log(pi / (2 * omega)) + log1p(1 / omega)
  log_c - log(2 * pi) - sum(log(diag(l))) - 0.75 *
    (log(b + q) - log(a + big_g)) + log(2) + log_k_scaled + expo
}

mv_far_loglik <- function(v, x) {
  l <- matrix(c(exp(v[5]), v[6], 0, exp(v[7])), 2)
  sum(mv_far_ldnig(x, v[1:2], v[3:4], tcrossprod(l), exp(v[8]),
                   exp(v[9])))
}

# (mu, gamma, log L11, L21, log L22, log a, log b) in the det gauge
mv_far_theta <- function(p) {
  s <- sqrt(det(p$sigma))
  l <- t(chol(p$sigma / s))
  c(p$mu, p$gamma / s, log(l[1, 1]), l[2, 1], log(l[2, 2]), log(p$a / s),
    log(p$b * s))
}

mv_far_fit <- function(x) {
  warned <- NULL
  f <- withCallingHandlers(
    fit_nig(x),
    warning = function(w) {
      warned <<- c(warned, class(w))
      invokeRestart("muffleWarning")
    }
  )
  list(fit = f, warned = warned)
}

test_that("d = 2 NIG fits with a far row reach the maximum", {
  set.seed(1)
  bulk <- matrix(stats::rnorm(400), 200, 2) %*% matrix(c(1, 0.3, 0, 1), 2)
  x <- rbind(bulk, c(1e13, 0))
  r <- mv_far_fit(x)
  f <- r$fit
  expect_null(r$warned)
  expect_true(f$converged)
  expect_identical(utils::tail(f$trace$step, 1L), "direct")
  v <- mv_far_theta(f$parameters)
  ll <- mv_far_loglik(v, x)
  expect_equal(f$loglik, ll, tolerance = 1e-10)
  # the direct maximum of the reference from fixed starts about the fit
  # (each coordinate moved by +-0.01): none higher, the best as high
  best <- vapply(c(-1, 1), function(s) {
    v0 <- v + s * 0.01 * c(1, -1, 1, 1, -1, 1, 1, -1, 1)
    -stats::nlminb(v0, function(t) {
      r <- -mv_far_loglik(t, x)
      if (is.finite(r)) r else .Machine$double.xmax
    }, control = list(eval.max = 4000L, iter.max = 2000L,
                      rel.tol = 1e-14))$objective
  }, 0)
  expect_true(all(best <= ll + 1e-9 * abs(ll)))
  expect_gt(max(best), ll - 1e-9 * abs(ll))
})

test_that("d = 2 rows beyond 2^64 robust spreads are fitted too", {
  # (they kept the EM's warning before the far row's closed form,
  # R/fit_extreme_far.R; the reference: the NIG's asymptote in the far
  # row's distance, log-likelihood - 2 log D: test-far-rows-beyond.R)
  set.seed(1)
  bulk <- matrix(stats::rnorm(400), 200, 2) %*% matrix(c(1, 0.3, 0, 1), 2)
  r <- mv_far_fit(rbind(bulk, c(1e100, 0)))
  expect_null(r$warned)
  expect_true(r$fit$converged)
  near <- mv_far_fit(rbind(bulk, c(1e13, 0)))$fit
  expect_equal(r$fit$loglik, near$loglik - 2 * log(1e87), tolerance = 1e-9)
})

test_that("a far row off the axes is not taken for collinear columns", {
  # the row (D, -D/3) makes the sample correlation -1 in doubles; the
  # columns of the bulk are not collinear, so the fit goes on (and reaches
  # the base-R likelihood at its parameters)
  set.seed(1)
  bulk <- matrix(stats::rnorm(400), 200, 2) %*% matrix(c(1, 0.3, 0, 1), 2)
  x <- rbind(bulk, c(1e13, -1e13 / 3))
  expect_lt(stats::cor(x)[1, 2], -1 + 1e-12)
  r <- mv_far_fit(x)
  expect_true(r$fit$converged)
  expect_equal(r$fit$loglik, mv_far_loglik(mv_far_theta(r$fit$parameters), x),
               tolerance = 1e-10)
  # truly collinear columns are still an error, with or without a far row
  y <- cbind(bulk, bulk[, 1] - bulk[, 2])
  expect_error(fit_nig(y), "collinear", class = "ghmix_error_argument")
  expect_error(fit_nig(rbind(y, c(1e13, 0, 1e13))), "collinear",
               class = "ghmix_error_argument")
})
