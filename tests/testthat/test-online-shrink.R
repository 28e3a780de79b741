# Online EM with `shrink` (the penalised M-step on the running averages)
# and online EM / update() of data that need the internal standardisation
# (R/fit_online_factor.R, R/fit_scaling.R).

online_shrink_sim <- function(n, d = 3L, seed = 5L) {
  par <- sim_params(d, "nig", seed)
  set.seed(seed)
  sim_mixture(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
}

online_shrink_ctl <- function(...) ghmix_control(online = ghmix_online(...))

online_shrink_target <- matrix(c(2, 0.5, 0, 0.5, 1, 0.3, 0, 0.3, 1.5), 3L)

test_that("online shrink with weight 0 is online EM without shrink", {
  x <- online_shrink_sim(3e4)
  ctl <- online_shrink_ctl(batch_size = 5000)
  plain <- fit_nig(x, control = ctl)
  zero <- fit_nig(x, control = ctl, shrink = ghmix_shrink(weight = 0))
  expect_identical(zero$parameters, plain$parameters)
  expect_identical(zero$trace, plain$trace)
  expect_identical(zero$objective, zero$loglik)
  expect_identical(zero$shrink$weight, 0)
})

test_that("online shrink with a large weight gives the target's shape", {
  x <- online_shrink_sim(3e4)
  ctl <- online_shrink_ctl(batch_size = 5000)
  tt <- online_shrink_target
  fit <- fit_nig(x, control = ctl, shrink = ghmix_shrink(tt, weight = 1e9))
  ratio <- fit$parameters$sigma[tt != 0] / tt[tt != 0]
  expect_lt(diff(range(ratio)) / mean(ratio), 1e-4)
  expect_lt(max(abs(fit$parameters$sigma[tt == 0])), 1e-4 * mean(ratio))
  diag_fit <- fit_nig(x, control = ctl, shrink = ghmix_shrink(weight = 1e9))
  cor <- stats::cov2cor(diag_fit$parameters$sigma)
  expect_lt(max(abs(cor[upper.tri(cor)])), 1e-4)
  # the objective: the prequential log-likelihood plus P*(Sigma) at the
  # last parameters, P* computed here from its formula
  s <- fit$parameters$sigma
  pen <- -(1e9 / 2) * (determinant(s)$modulus + 3 * log(sum(diag(
    solve(s, tt)
  )) / 3) + 3)
  expect_equal(fit$objective, fit$loglik + as.numeric(pen), tolerance = 1e-10)
  expect_identical(fit$shrink$type, "matrix")
  expect_error(vcov(fit), class = "ghmix_error_shrink")
})

test_that("online shrink is near the penalised batch fit of the rows", {
  skip_on_cran()
  x <- online_shrink_sim(1e5)
  tt <- online_shrink_target
  online <- fit_nig(x, control = online_shrink_ctl(),
                    shrink = ghmix_shrink(tt, weight = 2000))
  batch <- fit_nig(x, shrink = ghmix_shrink(tt, weight = 2000))
  ll <- function(fit) mean(predict(fit, x, type = "log_density"))
  expect_lt(abs(ll(batch) - ll(online)), 1e-3)
  # the rule's weight comes from the first batch
  rule <- fit_nig(x[1:3e4, ], control = online_shrink_ctl(batch_size = 1e4),
                  shrink = ghmix_shrink())
  first <- fit_nig(x[1:1e4, ], shrink = ghmix_shrink())
  expect_equal(rule$shrink$weight, first$shrink$weight)
  expect_error(fit_nig(x, control = online_shrink_ctl(),
                       shrink = ghmix_shrink(weight = "cv")),
               '"cv"', class = "ghmix_error_shrink")
})

test_that("update() of a penalised batch fit keeps its prior", {
  x <- online_shrink_sim(3e4)
  tt <- online_shrink_target
  fit <- fit_nig(x[1:1e4, ], shrink = ghmix_shrink(tt, weight = 1e9))
  cont <- update(fit, x[10001:30000, ],
                 online = ghmix_online(batch_size = 5000))
  expect_identical(cont$shrink$weight, 1e9)
  ratio <- cont$parameters$sigma[tt != 0] / tt[tt != 0]
  expect_lt(diff(range(ratio)) / mean(ratio), 1e-4)
})

# 1e200 times the rows: the data need the standardisation (a standard
# deviation beyond 2^128); the fits must be those of the rows as they are,
# in the units of the data.
test_that("update() of a fit on data scaled by 1e200 equals that unscaled", {
  x <- online_shrink_sim(4e4)
  k <- 1e200
  big <- x * k
  shift <- 3 * log(k) # the log density moves by -d log(k)
  # converged far below the default param_tol = 1e-6: the two first fits
  # take different roundings (z = (x - c) / s against x), and at the default
  # tolerances they stop ~1e-6 apart along the likelihood's flat directions
  # (seen with OpenBLAS), which the comparisons below at 1e-9 would catch
  tight <- ghmix_control(tol = 1e-15, param_tol = 1e-13)
  fit_big <- suppressWarnings(fit_nig(big[1:1e4, ], control = tight))
  expect_false(is.null(fit_big$scaling))
  fit <- fit_nig(x[1:1e4, ], control = tight)
  on <- ghmix_online(batch_size = 5000)
  cont_big <- suppressWarnings(update(fit_big, big[10001:40000, ],
                                      online = on))
  cont <- update(fit, x[10001:40000, ], online = on)
  expect_false(is.null(cont_big$scaling))
  expect_equal(cont_big$parameters$mu, cont$parameters$mu * k,
               tolerance = 1e-9)
  expect_equal(cont_big$parameters$gamma, cont$parameters$gamma * k,
               tolerance = 1e-9)
  expect_equal(cont_big$parameters[c("p", "a", "b")],
               cont$parameters[c("p", "a", "b")], tolerance = 1e-9)
  expect_equal(cont_big$loglik, cont$loglik - 4e4 * shift, tolerance = 1e-12)
  expect_equal(cont_big$trace$loglik, cont$trace$loglik - c(1e4, 5000,
               5000, 5000, 5000, 5000, 5000) * shift, tolerance = 1e-12)
  rows <- x[1:20, ]
  expect_equal(predict(cont_big, rows * k, type = "log_density"),
               predict(cont, rows, type = "log_density") - shift,
               tolerance = 1e-9)
  # an online fit whose first batch needs the standardisation, and its
  # continuation
  ctl <- online_shrink_ctl(batch_size = 5000)
  one_big <- suppressWarnings(fit_nig(big[1:2e4, ], control = ctl))
  one <- fit_nig(x[1:2e4, ], control = ctl)
  expect_equal(one_big$parameters$mu, one$parameters$mu * k,
               tolerance = 1e-9)
  expect_equal(one_big$loglik, one$loglik - 2e4 * shift, tolerance = 1e-12)
  two_big <- suppressWarnings(update(one_big, big[20001:40000, ]))
  two <- update(one, x[20001:40000, ])
  expect_equal(predict(two_big, rows * k, type = "log_density"),
               predict(two, rows, type = "log_density") - shift,
               tolerance = 1e-9)
})
