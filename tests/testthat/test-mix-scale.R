# Mixtures of data on a scale beyond the doubles (issue 31, item 4): rows
# times 1e-200 are fitted standardised, as one distribution is, and give
# the fit of the rows themselves (the reference) moved to their units.

scale_mix_data <- function() {
  set.seed(2)
  x <- rbind(matrix(rt(200, 6), 100), matrix(rt(200, 6) + 6, 100))
  list(x = x, labels = rep(1:2, each = 100))
}

expect_scaled_mixture <- function(tiny, ref, k, n, d) {
  expect_identical(tiny$G, ref$G)
  expect_equal(tiny$loglik, ref$loglik - n * d * log(k), tolerance = 1e-9)
  # (memberships of rows between the clusters move most between two
  # stopping points of the EM: 2e-5 under OpenBLAS)
  expect_lt(max(abs(tiny$z - ref$z)), 1e-4)
  # the components' means mu + gamma E[Y] (gauge E[Y] = 1)
  mean_of <- function(par) par$mu + par$gamma
  for (j in seq_len(ref$G)) {
    expect_lt(max(abs(mean_of(tiny$components[[j]]) / k -
                        mean_of(ref$components[[j]]))), 1e-5)
    expect_equal(tiny$scaling$parameters[[j]]$p, ref$components[[j]]$p)
  }
  expect_equal(tiny$proportions, ref$proportions, tolerance = 1e-5)
}

test_that("mixtures of rows times 1e-200 fit, and equal the fit of the rows", {
  dat <- scale_mix_data()
  k <- 1e-200
  run <- function(x, ...) {
    set.seed(1)
    suppressWarnings(fit_nig(x, components = 2, ...))
  }
  ref <- run(dat$x)
  expect_true(ref$converged)
  tiny <- run(dat$x * k)
  expect_scaled_mixture(tiny, ref, k, 200, 2)
  # the true labels as the start
  expect_scaled_mixture(run(dat$x * k, start = dat$labels),
                        run(dat$x, start = dat$labels), k, 200, 2)
  # d = 1; and one column rescaled
  expect_scaled_mixture(run(dat$x[, 1] * k), run(dat$x[, 1]), k, 200, 1)
  one <- dat$x
  one[, 2] <- one[, 2] * k
  f_one <- run(one)
  expect_equal(f_one$loglik, ref$loglik - 200 * log(k), tolerance = 1e-9)
  # predict() in the data's units: the memberships of the rows
  expect_lt(max(abs(predict(tiny, dat$x[1:20, ] * k) - ref$z[1:20, ])),
            1e-4)
  # no covariance where Sigma underflows: a classed error
  expect_error(vcov(tiny), class = "ghmix_error_scale")
})

test_that("tiny rows: several components, and shrink", {
  dat <- scale_mix_data()
  k <- 1e-200
  set.seed(1)
  sel <- suppressWarnings(fit_nig(dat$x * k, components = 1:2))
  expect_identical(sel$G, 2L)
  run <- function(x) {
    set.seed(1)
    suppressWarnings(fit_nig(x, components = 2, shrink = 5))
  }
  ref <- run(dat$x)
  tiny <- run(dat$x * k)
  # the objective: n log-densities and G priors of weight 5, each moved
  # by -d log(k)
  expect_equal(tiny$objective, ref$objective - (200 + 2 * 5) * 2 * log(k),
               tolerance = 1e-9)
  expect_equal((tiny$components[[1L]]$mu + tiny$components[[1L]]$gamma) / k,
               ref$components[[1L]]$mu + ref$components[[1L]]$gamma,
               tolerance = 1e-5)
  expect_error(fit_nig(dat$x * k, components = 2, shrink = "identity"),
               class = "ghmix_error_shrink")
})
