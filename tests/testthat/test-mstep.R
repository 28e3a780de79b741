# The one M-step of a component (mstep_member(), R/mstep.R), checked on
# E-step statistics against the closed forms written here: with mu held
# the full Sigma is the weighted scatter about mu + Y gamma, sxx / n -
# E[Y] gamma gamma' with gamma = mean(u) / E[Y], to the bit (the general
# expression at a zero move of mu); a prior of weight 0 leaves every
# structure's M-step as it is; and the conditional steps hold what they
# hold.

mstep_test_x <- function() {
  set.seed(7)
  x <- matrix(stats::rnorm(600), 200, 3) %*%
    chol(matrix(c(1, 0.4, 0.1, 0.4, 1, 0.2, 0.1, 0.2, 1), 3))
  x + rep(c(0.3, -0.2, 0.5), each = 200)
}

mstep_test_par <- function(d) {
  list(mu = c(0.1, 0, 0.2)[seq_len(d)], gamma = c(0.05, -0.1, 0)[seq_len(d)],
       sigma = diag(d), p = -0.5, a = 1.5, b = 1.5)
}

mstep_test_st <- function(x, par) {
  ghmix:::mix_estep(ghmix:::mix_engine_cpu(x, 1L), par, ghmix:::mix_what("gh"))
}

test_that("mu held: the full Sigma is sxx / n - eta gamma gamma' to the bit", {
  x <- mstep_test_x()
  par <- mstep_test_par(3L)
  st <- mstep_test_st(x, par)
  model <- list(family = "gh", symmetric = FALSE, fixed = list(mu = par$mu))
  out <- ghmix:::mstep_member(st, par, model)
  n <- st$tau
  eta <- st$s_y / n
  gamma <- (st$sx / n) / eta
  sigma <- st$sxx / n - eta * tcrossprod(gamma)
  expect_identical(out$mu, par$mu)
  expect_identical(unname(out$gamma), gamma)
  expect_identical(unname(out$sigma), unname((sigma + t(sigma)) / 2))
  # symmetric: gamma 0 and the scatter about mu
  model$symmetric <- TRUE
  sym <- ghmix:::mstep_member(st, par, model)
  expect_identical(unname(sym$gamma), rep(0, 3))
  expect_equal(unname(sym$sigma), unname(st$sxx / n), tolerance = 1e-15)
})

test_that("p held: the mixing step keeps p and moves a, b", {
  x <- mstep_test_x()
  par <- mstep_test_par(3L)
  st <- mstep_test_st(x, par)
  free <- ghmix:::mstep_member(st, par, list(family = "gh", symmetric = FALSE))
  held <- ghmix:::mstep_member(
    st, par, list(family = "gh", symmetric = FALSE, fixed = list(p = -0.5))
  )
  expect_identical(held$p, -0.5)
  expect_false(identical(free$p, -0.5))
  # the normal part does not depend on what the mixing step holds
  expect_identical(held[c("mu", "gamma", "sigma")],
                   free[c("mu", "gamma", "sigma")])
})

test_that("a prior of weight 0 leaves the M-step of both structures as it is", {
  x <- mstep_test_x()
  d <- 3L
  prior <- list(d = d, weight = 0, target_fit = diag(d),
                chol_target = diag(d), target_diag = rep(1, d))
  model <- list(family = "nig", symmetric = FALSE)
  par <- mstep_test_par(d)
  st <- mstep_test_st(x, par)
  pen <- ghmix:::penalty_arg(prior, st$tau, d)
  expect_identical(ghmix:::mstep_member(st, par, model, pen),
                   ghmix:::mstep_member(st, par, model))
  fpar <- par[c("mu", "gamma", "p", "a", "b")]
  fpar$loadings <- matrix(c(0.5, 0.3, 0.1), d, 1L)
  fpar$uniquenesses <- c(0.7, 0.9, 1)
  fst <- ghmix:::factor_estep(x, fpar, ghmix:::mix_what("nig"))
  expect_identical(ghmix:::mstep_member(fst, fpar, model, pen),
                   ghmix:::mstep_member(fst, fpar, model))
  # and a positive weight moves Sigma toward the target
  prior$weight <- 50
  pen <- ghmix:::penalty_arg(prior, st$tau, d)
  shrunk <- ghmix:::mstep_member(st, par, model, pen)$sigma
  plain <- ghmix:::mstep_member(st, par, model)$sigma
  off <- row(plain) != col(plain)
  expect_true(all(abs(shrunk[off]) < abs(plain[off])))
})
