# Penalised (shrinkage) mixtures: components = G with shrink = (R/penalty.R).
# References: the objective loglik + sum_k P*(Sigma_k) recomputed here in
# plain R from the reported parameters (P* in the header of R/shrink.R), the
# unpenalised fit, and the target's structure at a large weight.

# Two NIG clusters in d = 4 with correlated Sigma (seeded; 2n rows).
mshrink_data <- function(n = 300, seed = 11) {
  set.seed(seed)
  d <- 4
  s <- 0.6^abs(outer(1:d, 1:d, "-"))
  rbind(rgh(n, mu = rep(0, d), gamma = c(0.5, 0, 0, -0.3), sigma = s,
            p = -0.5, a = 2, b = 2),
        rgh(n, mu = rep(6, d), gamma = rep(0, d), sigma = diag(d),
            p = -0.5, a = 3, b = 3))
}

# P*(Sigma) = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d) + d].
mshrink_penalty <- function(sigma, target, k) {
  d <- nrow(sigma)
  -(k / 2) * (as.numeric(determinant(sigma)$modulus) +
                d * log(sum(diag(solve(sigma, target))) / d) + d)
}

# loglik + sum_k P*(Sigma_k) at a mixture's reported parameters, in plain R
# (the density by dgh(), the target in the data's units).
mshrink_objective <- function(fit, x, target, k) {
  dens <- Reduce(`+`, lapply(seq_len(fit$G), function(j) {
    par <- fit$components[[j]]
    fit$proportions[[j]] * dgh(x, par$mu, par$gamma, par$sigma, par$p,
                               par$a, par$b)
  }))
  sum(log(dens)) + sum(vapply(fit$components, function(par) {
    mshrink_penalty(par$sigma, target, k)
  }, 0))
}

mshrink_fit <- function(...) {
  set.seed(5)
  suppressWarnings(fit_nig(...))
}

test_that("shrink weight 0 gives the unpenalised mixture exactly", {
  x <- mshrink_data()
  ctl <- ghmix_control(max_iter = 40)
  plain <- mshrink_fit(x, components = 2, control = ctl)
  zero <- mshrink_fit(x, components = 2, control = ctl, shrink = 0)
  expect_identical(zero$components, plain$components)
  expect_identical(zero$proportions, plain$proportions)
  expect_identical(zero$loglik, plain$loglik)
  expect_equal(zero$objective, plain$loglik, tolerance = 1e-12)
  expect_null(plain$shrink)
  expect_identical(zero$shrink$weight, 0)
})

test_that("the penalised objective is right, never decreases and is maximal", {
  x <- mshrink_data()
  target <- diag(apply(x, 2, stats::var))
  k <- 40
  for (acc in c(TRUE, FALSE)) {
    fit <- mshrink_fit(x, components = 2, shrink = k,
                       control = ghmix_control(accelerate = acc))
    expect_equal(fit$objective, mshrink_objective(fit, x, target, k),
                 tolerance = 1e-9)
    expect_equal(fit$loglik, mshrink_objective(fit, x, target, 0),
                 tolerance = 1e-9)
    tr <- fit$trace$objective
    expect_true(all(diff(tr) >= -1e-8 * abs(tr[-1L])))
    expect_equal(tr[[length(tr)]], fit$objective, tolerance = 1e-9)
  }
  plain <- mshrink_fit(x, components = 2)
  # the unpenalised maximum is no better for the penalised objective, and
  # the penalised fit no better for the likelihood
  expect_gte(fit$objective, mshrink_objective(plain, x, target, k) - 1e-6)
  expect_gte(plain$loglik, fit$loglik - 1e-6)
  expect_lt(fit$loglik, plain$loglik)
})

test_that("a large weight gives each component the target's structure", {
  x <- mshrink_data()
  diagonal <- mshrink_fit(x, components = 2, shrink = 1e9)
  for (par in diagonal$components) {
    r <- stats::cov2cor(par$sigma)
    expect_lt(max(abs(r[upper.tri(r)])), 1e-5)
  }
  m <- diag(c(1, 2, 3, 4))
  user <- mshrink_fit(x, components = 2, shrink = ghmix_shrink(m, 1e9))
  for (par in user$components) {
    ratio <- diag(par$sigma) / diag(m)
    expect_lt(diff(range(ratio)) / mean(ratio), 1e-5)
    off <- par$sigma[upper.tri(par$sigma)]
    expect_lt(max(abs(off)) / max(diag(par$sigma)), 1e-5)
  }
})

test_that("the weight rule gives the pooled rule's weight over G", {
  x <- mshrink_data()
  single <- suppressWarnings(fit_nig(x, shrink = "diagonal"))
  mix <- mshrink_fit(x, components = 2, shrink = "diagonal")
  expect_identical(mix$shrink$rule, "ledoit-wolf")
  expect_equal(mix$shrink$intensity, single$shrink$intensity,
               tolerance = 1e-12)
  expect_equal(mix$shrink$weight, single$shrink$weight / 2, tolerance = 1e-12)
  both <- mshrink_fit(x, components = 1:2, shrink = 30)
  expect_identical(both$G, 2L)
  expect_identical(both$shrink$weight, 30)
  expect_true(is.data.frame(both$criteria))
})

test_that("penalised mixtures on chunks equal the in-memory fit", {
  x <- mshrink_data(200)
  mem <- mshrink_fit(x, components = 2, shrink = 25)
  chunks <- ghmix_data(list(x[1:150, ], x[151:300, ], x[301:400, ]))
  chunked <- mshrink_fit(chunks, components = 2, shrink = 25)
  expect_equal(chunked$objective, mem$objective, tolerance = 1e-8)
  expect_equal(chunked$loglik, mem$loglik, tolerance = 1e-8)
  expect_error(mshrink_fit(chunks, components = 2, shrink = "diagonal"),
               "weight", class = "ghmix_error_shrink")
})

test_that("methods of penalised mixtures report the prior", {
  x <- mshrink_data(150)
  fit <- mshrink_fit(x, components = 2, shrink = 20)
  expect_output(print(fit), "Penalised fit")
  expect_output(print(summary(fit)), "Penalised fit")
  expect_true(all(is.na(summary(fit)$coefficients[[1L]][, 2L])))
  expect_error(vcov(fit), "penalised", class = "ghmix_error_shrink")
  expect_true("objective" %in% names(fit$trace))
  expect_error(fit_nig(x, components = 2,
                       shrink = ghmix_shrink(weight = "cv")),
               "cv", class = "ghmix_error_shrink")
  expect_error(fit_gh(x, components = 2, shrink = ghmix_shrink(diag(3), 1)),
               "4 x 4", class = "ghmix_error_shrink")
})
