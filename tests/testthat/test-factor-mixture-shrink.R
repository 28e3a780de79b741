# Penalised mixtures of factor-analytic members (`components`, `factors`
# and `shrink` together).

# Two clusters of factor-GH rows in d = 6 with one factor each.
fshr_sim <- function(n = 600, d = 6, seed = 5) {
  set.seed(seed)
  lab <- rep(1:2, length.out = n)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in 1:2) {
    i <- which(lab == k)
    f <- matrix(stats::rnorm(d), d, 1L)
    sigma <- tcrossprod(f) + diag(stats::runif(d, 0.3, 1), d)
    mu <- c(6 * (k - 1), rep(0, d - 1))
    x[i, ] <- rgh(length(i), mu, stats::rnorm(d) * 0.2, sigma, -0.5, 1.5, 1.5)
  }
  x
}

# The fit with the same random starts (set.seed) and without the warnings
# of a fit stopped by max_iter.
fshr_fit <- function(x, ..., seed = 1) {
  set.seed(seed)
  withCallingHandlers(
    fit_nig(x, components = 2, factors = 1, ...),
    ghmix_warning_convergence = function(w) invokeRestart("muffleWarning")
  )
}

fshr_sigma <- function(par) {
  tcrossprod(par$loadings) + diag(par$uniquenesses, length(par$mu))
}

# The objective written out: the mixture log-likelihood from dgh() with
# Sigma_k = F_k F_k' + D_k, plus for each component the prior's profile
# P*(Sigma) = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d) + d]
# (R/shrink.R), T the target in the data's units.
fshr_objective <- function(x, fit, target, w = rep(1, nrow(x))) {
  d <- ncol(x)
  k <- fit$shrink$weight
  pen <- vapply(fit$components, function(par) {
    sigma <- fshr_sigma(par)
    tr <- sum(diag(solve(sigma, target)))
    -(k / 2) * (as.numeric(determinant(sigma)$modulus) + d * log(tr / d) + d)
  }, 0)
  fshr_loglik(x, fit, w) + sum(pen)
}

fshr_loglik <- function(x, fit, w = rep(1, nrow(x))) {
  dens <- vapply(seq_len(fit$G), function(k) {
    par <- fit$components[[k]]
    fit$proportions[[k]] *
      dgh(x, par$mu, par$gamma, fshr_sigma(par), par$p, par$a, par$b)
  }, numeric(nrow(x)))
  sum(w * log(rowSums(dens)))
}

# A rank-one plus diagonal target with correlations between all columns.
fshr_target <- function(d) {
  f <- seq(1, 2, length.out = d)
  tcrossprod(f) + diag(seq(0.5, 1.5, length.out = d))
}

test_that("factor mixtures with shrink: the objective never decreases", {
  x <- fshr_sim()
  fit <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50))
  ob <- fit$trace$objective
  expect_true(all(diff(ob) >= -1e-9 * abs(ob[-1]) |
                    fit$trace$step[-1] == "drop"))
  expect_gt(length(ob), 3L)
  expect_equal(fit$objective, ob[[length(ob)]])
  expect_equal(fit$shrink$weight, 50)
  expect_identical(fit$shrink$type, "diagonal")
  # the penalty pulls away from the maximum-likelihood fit
  ml <- fshr_fit(x)
  expect_lt(fit$loglik, ml$loglik)
  expect_lt(fit$objective, fit$loglik)
})

test_that("factor mixtures with shrink: the objective is the formula's", {
  x <- fshr_sim()
  d <- ncol(x)
  fit <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50))
  t_diag <- apply(x, 2L, stats::var)
  expect_equal(unname(fit$shrink$target), unname(t_diag), tolerance = 1e-12)
  expect_equal(fit$objective, fshr_objective(x, fit, diag(t_diag, d)),
               tolerance = 1e-9)
  expect_equal(fit$loglik, fshr_loglik(x, fit), tolerance = 1e-9)
  tt <- fshr_target(d)
  fit_m <- fshr_fit(x, shrink = ghmix_shrink(tt, weight = 30))
  expect_identical(fit_m$shrink$type, "matrix")
  expect_equal(fit_m$objective, fshr_objective(x, fit_m, tt),
               tolerance = 1e-9)
  fit_i <- fshr_fit(x, shrink = ghmix_shrink("identity", weight = 30))
  expect_equal(fit_i$objective,
               fshr_objective(x, fit_i, diag(mean(t_diag), d)),
               tolerance = 1e-9)
  # row weights: the weighted log-likelihood, the target the weighted
  # variances (frequency-weight divisor)
  w <- rep(c(1, 3), length.out = nrow(x))
  fit_w <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50),
                    weights = w)
  m_w <- colSums(x * w) / sum(w)
  t_w <- colSums(w * sweep(x, 2L, m_w)^2) / (sum(w) - 1)
  expect_equal(unname(fit_w$shrink$target), unname(t_w), tolerance = 1e-10)
  expect_equal(fit_w$objective, fshr_objective(x, fit_w, diag(t_w), w),
               tolerance = 1e-9)
  expect_output(print(fit_w), "Penalised fit \\(shrink\\): target diagonal")
})

test_that("factor mixtures with shrink: weight 0 is the unpenalised fit", {
  x <- fshr_sim()
  ml <- fshr_fit(x)
  zero <- fshr_fit(x, shrink = 0)
  expect_identical(zero$components, ml$components)
  expect_identical(zero$proportions, ml$proportions)
  expect_identical(zero$loglik, ml$loglik)
  expect_identical(zero$objective, ml$loglik)
  expect_identical(zero$trace$loglik, ml$trace$loglik)
})

test_that("factor mixtures with shrink: a large weight gives T's shape", {
  x <- fshr_sim()
  d <- ncol(x)
  tt <- fshr_target(d)
  fit <- fshr_fit(x, shrink = ghmix_shrink(tt, weight = 1e7))
  for (par in fit$components) {
    sigma <- fshr_sigma(par)
    ratio <- diag(sigma) / diag(tt)
    expect_lt(max(abs(ratio / mean(ratio) - 1)), 1e-3)
    expect_lt(max(abs(stats::cov2cor(sigma) - stats::cov2cor(tt))), 1e-3)
  }
  # toward "diagonal": no correlation left (F F' diagonal, see
  # ghmix_shrink()); the unpenalised fit has large ones
  fit_d <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 1e7))
  ml <- fshr_fit(x)
  off <- function(fit) {
    max(vapply(fit$components, function(par) {
      r <- stats::cov2cor(fshr_sigma(par))
      max(abs(r[row(r) != col(r)]))
    }, 0))
  }
  expect_lt(off(fit_d), 1e-3)
  expect_gt(off(ml), 0.3)
})

test_that("factor mixtures with shrink: the rule's weight is divided by G", {
  x <- fshr_sim()
  one <- fit_nig(x, factors = 1, shrink = ghmix_shrink())
  fit <- fshr_fit(x, shrink = ghmix_shrink())
  expect_identical(fit$shrink$rule, "ledoit-wolf")
  expect_equal(fit$shrink$intensity, one$shrink$intensity, tolerance = 1e-12)
  expect_equal(fit$shrink$weight, one$shrink$weight / 2, tolerance = 1e-12)
  expect_error(fshr_fit(x, shrink = ghmix_shrink(weight = "cv")),
               class = "ghmix_error_shrink")
  expect_error(fshr_fit(x, shrink = ghmix_shrink(diag(3), weight = 1)),
               class = "ghmix_error_shrink")
})
