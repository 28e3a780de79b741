# Issue 17: GH and skew-t fits in d = 2 and 3 (and NIG fits in d = 3)
# with one row far from the rest go on by the direct maximisation
# (R/fit_extreme.R), as NIG fits in d = 2 do.
# Reference: the GH log density in base R only, from the closed form (the
# normal mixture over GIG(p, a, b) integrated: 2 ((b + Q) / (a + G))^(lam/2)
# K_lam(sqrt((a + G)(b + Q))), lam = p - d/2, DLMF 10.32.10; the GIG's
# normaliser, or the inverse gamma's for a = 0) with
# besselK(expon.scaled = TRUE) and the exponent B - omega taken without
# cancellation on the heavy side, -(a (b + Q) + G b + G |z_perp|^2) /
# (B + omega), z_perp = z - (B / G) g formed from z; then nlminb() of that
# log-likelihood from several starts about the fit.

# log f of GH(mu, gamma, sigma, p, a, b) at the rows of x (any d), base R
mv_ref_ldgh <- function(x, mu, gamma, sigma, p, a, b) {
  d <- ncol(x)
  l <- t(chol(sigma))
  z <- forwardsolve(l, t(x) - mu)
  g <- forwardsolve(l, gamma)
  q <- colSums(z * z)
  big_g <- sum(g * g)
  bz <- drop(crossprod(g, z))
  omega <- sqrt(a + big_g) * sqrt(b + q)
  perp <- if (big_g > 0) z - outer(g, bz / big_g) else z
  num <- a * (b + q) + big_g * b + big_g * colSums(perp * perp)
  expo <- ifelse(bz > 0, -num / (bz + omega), bz - omega)
  lam <- p - d / 2
  log_c <- if (a > 0) {
    w <- sqrt(a) * sqrt(b)
    (p / 2) * (log(a) - log(b)) - log(2) -
      (log(besselK(w, abs(p), expon.scaled = TRUE)) - w)
  } else {
    -p * log(b / 2) - lgamma(-p)
  }
  log_c - (d / 2) * log(2 * pi) - sum(log(diag(l))) + log(2) +
    (lam / 2) * (log(b + q) - log(a + big_g)) +
    log(besselK(omega, abs(lam), expon.scaled = TRUE)) + expo
}

# v = (mu, gamma, lower Cholesky factor (log diagonal), mixing): GH
# (p, log a, log b), NIG (log a, log b), skew-t (log(-p), log b)
mv_ref_par <- function(v, d, family) {
  m <- d * (d + 1) / 2
  l <- matrix(0, d, d)
  l[lower.tri(l, TRUE)] <- v[2 * d + seq_len(m)]
  diag(l) <- exp(diag(l))
  s <- v[-seq_len(2 * d + m)]
  mix <- switch(family,
    gh = list(p = s[1], a = exp(s[2]), b = exp(s[3])),
    nig = list(p = -0.5, a = exp(s[1]), b = exp(s[2])),
    skewt = list(p = -exp(s[1]), a = 0, b = exp(s[2]))
  )
  c(list(mu = v[seq_len(d)], gamma = v[d + seq_len(d)],
         sigma = tcrossprod(l)), mix)
}

mv_ref_loglik <- function(v, x, family) {
  p <- mv_ref_par(v, ncol(x), family)
  r <- sum(mv_ref_ldgh(x, p$mu, p$gamma, p$sigma, p$p, p$a, p$b))
  if (is.finite(r)) r else -Inf
}

mv_ref_theta <- function(p, family) {
  l <- t(chol(p$sigma))
  diag(l) <- log(diag(l))
  mix <- switch(family,
    gh = c(p$p, log(max(p$a, 1e-300)), log(p$b)),
    nig = c(log(p$a), log(p$b)),
    skewt = c(log(-p$p), log(p$b))
  )
  c(p$mu, p$gamma, l[lower.tri(l, TRUE)], mix)
}

# the same with gamma = M w, w[1] along the far row x_far, the others
# across it in units of 1 / sqrt(|x_far|): nlminb() cannot follow the far
# row's ridge in gamma (width ~ |x_far|^(-1/2)) in gamma's own coordinates
mv_ref_ridge <- function(x_far) {
  r <- sqrt(sum(x_far^2))
  u <- x_far / r
  across <- qr.Q(qr(cbind(u, diag(length(u)))))[, -1L, drop = FALSE]
  cbind(u, across / sqrt(r))
}

mv_ref_to_ridge <- function(v, m) {
  i <- nrow(m) + seq_len(nrow(m))
  v[i] <- solve(m, v[i])
  v
}

mv_ref_max_ridge <- function(w0, x, family, m) {
  i <- nrow(m) + seq_len(nrow(m))
  far_nlminb_max(w0, function(t) {
    t[i] <- m %*% t[i]
    mv_ref_loglik(t, x, family)
  })
}

# The fit is the direct maximum, equals the reference at its parameters,
# and nlminb() of the reference from three starts about it (each
# coordinate moved by +-0.01; the mixing parameters moved by 0.5) finds
# nothing higher, the best as high.
mv_ref_check <- function(family, x) {
  r <- far_fit_det(get(paste0("fit_", family), asNamespace("ghmix")), x)
  f <- r$fit
  expect_null(r$warned)
  expect_true(f$converged)
  expect_identical(utils::tail(f$trace$step, 1L), "direct")
  v <- mv_ref_theta(f$parameters, family)
  ll <- mv_ref_loglik(v, x, family)
  expect_equal(f$loglik, ll, tolerance = 1e-10)
  m <- mv_ref_ridge(x[nrow(x), ])
  w <- mv_ref_to_ridge(v, m)
  k <- length(w) - 0:1
  pert <- rep(c(1, -1), length.out = length(w))
  starts <- list(w + 0.01 * pert, w - 0.01 * pert,
                 replace(w, k, w[k] + c(0.5, -0.5)))
  best <- vapply(starts, mv_ref_max_ridge, 0, x = x, family = family, m = m)
  expect_true(all(best <= ll + 1e-9 * abs(ll)))
  expect_gt(max(best), ll - 1e-9 * abs(ll))
  f
}

mv_ref_bulk <- function() {
  set.seed(1)
  matrix(stats::rnorm(400), 200, 2) %*% matrix(c(1, 0.3, 0, 1), 2)
}

test_that("d = 2 skew-t fits with a far row reach the maximum", {
  mv_ref_check("skewt", rbind(mv_ref_bulk(), 1e13 * c(1, -1 / 3)))
})

test_that("d = 2 GH fits with a far row reach the maximum (a = 0 limit)", {
  x <- rbind(mv_ref_bulk(), 1e18 * c(1, -1 / 3))
  g <- mv_ref_check("gh", x)
  # the GH's maximum lies on its skew-t boundary: the skew-t fit is as high
  s <- mv_ref_check("skewt", x)
  expect_equal(g$loglik, s$loglik, tolerance = 1e-10)
})

test_that("d = 3 skew-t and NIG fits with a far row reach the maximum", {
  set.seed(2)
  x <- rbind(matrix(stats::rnorm(600), 200, 3), 1e13 * c(1, -0.5, 0.25))
  mv_ref_check("skewt", x)
  mv_ref_check("nig", x)
})
