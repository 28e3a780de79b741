# Shared by test-factor-vcov.R and test-factor-vcov-fixed.R: data with a
# factor covariance, the plain-R log-likelihood of a factor model from
# dgh() with Sigma = F F' + diag(D), and its Hessian by central second
# differences.

fvcov_sim <- function(n, d, r, family, seed) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r)
  dd <- stats::runif(d, 0.3, 1)
  sub <- switch(family, nig = c(-0.5, 1.5, 1.5), gh = c(1, 2, 1))
  x <- rgh(n, stats::rnorm(d), stats::rnorm(d) * 0.3, factor_cov(f, dd),
           sub[1], sub[2], sub[3])
  colnames(x) <- paste0("v", seq_len(d))
  x
}

fvcov_loglik <- function(x, par) {
  sigma <- tcrossprod(par$f) + diag(par$dd)
  sum(dgh(x, par$mu, par$gamma, sigma, par$p, par$a, par$b, log = TRUE))
}

# The Hessian of ll at psi by central second differences with steps h and
# 2 h, then Richardson's extrapolation (the O(h^2) error cancels).
fvcov_hessian <- function(ll, psi, h) {
  k <- length(psi)
  hess_at <- function(h) {
    at <- function(i, j, si, sj) {
      p <- psi
      p[i] <- p[i] + si * h[i]
      p[j] <- p[j] + sj * h[j]
      ll(p)
    }
    hess <- matrix(0, k, k)
    for (i in seq_len(k)) {
      for (j in seq_len(i)) {
        hess[i, j] <- hess[j, i] <- (at(i, j, 1, 1) - at(i, j, 1, -1) -
                                       at(i, j, -1, 1) + at(i, j, -1, -1)) /
          (4 * h[i] * h[j])
      }
    }
    hess
  }
  (4 * hess_at(h) - hess_at(2 * h)) / 3
}
