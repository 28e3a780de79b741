# Online EM with `factors = r` and `shrink` or `fixed` (R/fit_online_factor.R):
# the fixed points are those of the penalised / held batch factor fits,
# weight 0 is the unpenalised stream, held values stay exactly.

# Factor-NIG rows X = mu + gamma Y + sqrt(Y) (F z + e), Y ~ GIG(-0.5, 1, 1).
ofs_sim <- function(n, d, r, seed, f_scale = 1) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r) * f_scale
  dd <- stats::runif(d, 0.5, 1.5)
  y <- rgig(n, -0.5, 1, 1)
  z <- matrix(stats::rnorm(n * r), n, r) %*% t(f) +
    matrix(stats::rnorm(n * d), n, d) * rep(sqrt(dd), each = n)
  x <- rep(seq_len(d) / 10, each = n) +
    outer(y, rep(c(0.3, -0.2), length.out = d)) + sqrt(y) * z
  colnames(x) <- paste0("v", seq_len(d))
  x
}

ofs_ctl <- function(...) ghmix_control(online = ghmix_online(...))

ofs_sigma <- function(fit) {
  tcrossprod(fit$parameters$loadings) + diag(fit$parameters$uniquenesses)
}

ofs_rest <- function(fit) {
  unlist(fit$parameters[c("mu", "gamma", "p", "a", "b")])
}

# A stream of the rows x again and again: the first time with weights 1,
# the i-th with weights 2^-(i - 1), so that the weight of the rows seen
# tends to 2 n (from batch `from` on, counting batches as the stream does).
ofs_halving <- function(x, batches, from = 1L) {
  i <- from - 1L
  function() {
    i <<- i + 1L
    if (i >= from + batches) NULL else
      list(x = x, weights = rep(2^-(i - 1L), nrow(x)))
  }
}

test_that("online factors with shrink weight 0 are online factors", {
  x <- ofs_sim(1e4, 6L, 2L, seed = 3L)
  ctl <- ofs_ctl(batch_size = 2500)
  plain <- fit_nig(x, factors = 2L, control = ctl)
  zero <- fit_nig(x, factors = 2L, shrink = 0, control = ctl)
  expect_identical(zero$parameters, plain$parameters)
  expect_identical(zero$trace, plain$trace)
  expect_identical(zero$objective, zero$loglik)
  expect_identical(zero$shrink$weight, 0)
})

test_that("the penalised batch factor fit is the online fixed point", {
  x <- ofs_sim(2000L, 4L, 1L, seed = 4L, f_scale = 2)
  n <- nrow(x)
  tt <- diag(c(1, 2, 1, 2))
  sh <- ghmix_shrink(tt, 500)
  # the rows seen weigh 2 n in the end: the batch fit of weights 2
  batch <- fit_nig(x, factors = 1L, weights = rep(2, n), shrink = sh,
                   control = ghmix_control(tol = 1e-13, max_iter = 1e4))
  expect_true(batch$converged)
  # g = 1 from the batch fit, rows of weight 1e-12 (W = 2 n + 2e-9): stays
  step <- update(batch, x, weights = rep(1e-12, n),
                 online = ghmix_online(batch_size = n, step = "forget",
                                       rate = 1))
  expect_equal(ofs_sigma(step), ofs_sigma(batch), tolerance = 1e-7)
  expect_equal(ofs_rest(step), ofs_rest(batch), tolerance = 1e-7)
  # from the default start: g = 1 with the halving weights is the batch
  # EM's penalised step with W -> 2 n, which converges there (here within
  # 1e-6 of it by 75 steps; the batch fit is converged to some 1e-7)
  long <- fit_nig(ofs_halving(x, 100L), factors = 1L, shrink = sh,
                  control = ofs_ctl(step = "forget", rate = 1, warmup = 20L))
  expect_equal(long$nobs, batch$nobs)
  expect_equal(ofs_sigma(long), ofs_sigma(batch), tolerance = 1e-6)
  expect_equal(ofs_rest(long), ofs_rest(batch), tolerance = 1e-6)
  # objective: the prequential log-likelihood plus P*(Sigma) of R/shrink.R
  # at the last parameters, formed densely here
  s <- ofs_sigma(long)
  pen <- -(500 / 2) * (as.numeric(determinant(s)$modulus) +
                         4 * log(sum(diag(solve(s, tt))) / 4) + 4)
  expect_equal(long$objective, long$loglik + pen, tolerance = 1e-10)
  expect_equal(long$objective - long$loglik, batch$objective - batch$loglik,
               tolerance = 1e-6)
  expect_identical(long$shrink$type, "matrix")
  # its continuation by update() is the same stream
  half <- fit_nig(ofs_halving(x, 50L), factors = 1L, shrink = sh,
                  control = ofs_ctl(step = "forget", rate = 1, warmup = 20L))
  cont <- update(half, ofs_halving(x, 50L, from = 51L))
  expect_identical(cont$parameters, long$parameters)
  expect_identical(cont$objective, long$objective)
})

test_that("passes with a decreasing step approach the penalised batch fit", {
  # 100 passes of the same 2000 rows in batches of 500, g_t = t^-0.6: the
  # batch fit of those rows with weights 100 (W = 2e5 in both).  The
  # running averages lag behind the parameters (the early batches' latent
  # statistics are at other loadings), so the stream is near, not at, the
  # fixed point: within 1e-4 per row of the penalised objective (1e-5
  # measured) and 2e-2 in Sigma (1e-2 measured); 30 passes: 4e-4, 8e-2.
  x <- ofs_sim(2000L, 4L, 1L, seed = 4L, f_scale = 2)
  n <- nrow(x)
  tt <- diag(c(1, 2, 1, 2))
  sh <- ghmix_shrink(tt, 500)
  passes <- 100L
  batch <- fit_nig(x, factors = 1L, weights = rep(passes, n), shrink = sh,
                   control = ghmix_control(tol = 1e-12))
  k <- 0L
  stream <- function() {
    k <<- k + 1L
    if (k > 4L * passes) NULL else x[(k - 1L) %% 4L * 500L + 1:500, ]
  }
  on <- fit_nig(stream, factors = 1L, shrink = sh,
                control = ofs_ctl(batch_size = 500))
  expect_identical(on$nobs, as.double(passes * n))
  objective <- passes * sum(predict(on, x, type = "log_density")) +
    on$objective - on$loglik
  expect_lt(abs(objective - batch$objective) / (passes * n), 1e-4)
  expect_lt(max(abs(ofs_sigma(on) - ofs_sigma(batch))), 2e-2)
  expect_lte(objective, batch$objective)
})

test_that("the rule's weight and the target come from the first batch", {
  x <- ofs_sim(6000L, 5L, 1L, seed = 6L)
  first <- fit_nig(x[1:2000, ], factors = 1L, shrink = ghmix_shrink())
  on <- fit_nig(x, factors = 1L, shrink = ghmix_shrink(),
                control = ofs_ctl(batch_size = 2000))
  expect_identical(on$shrink$rule, "ledoit-wolf")
  expect_equal(on$shrink$weight, first$shrink$weight, tolerance = 1e-12)
  expect_equal(on$shrink$target, first$shrink$target, tolerance = 1e-12)
  expect_identical(on$iterations, 3L)
  expect_error(
    fit_nig(x, factors = 1L, shrink = ghmix_shrink(weight = "cv"),
            control = ofs_ctl(batch_size = 2000)),
    class = "ghmix_error_shrink"
  )
})

test_that("online factors hold fixed mu, p and gamma = 0 at the batch fit", {
  x <- ofs_sim(1.2e4, 5L, 1L, seed = 3L)
  mu0 <- seq_len(5L) / 10
  ll <- function(fit) mean(predict(fit, x, type = "log_density"))
  for (fx in list(list(mu = mu0, p = -0.8), list(p = -0.3, gamma = 0))) {
    batch <- fit_gh(x, factors = 1L, fixed = fx,
                    control = ghmix_control(tol = 1e-12))
    # the batch fit is the fixed point (g = 1 from it)
    step <- update(batch, x, online = ghmix_online(
      batch_size = 1.2e4, step = "forget", rate = 1
    ))
    expect_equal(ofs_sigma(step), ofs_sigma(batch), tolerance = 1e-6)
    expect_equal(ofs_rest(step), ofs_rest(batch), tolerance = 1e-6)
    # one pass in batches of 3000: held exactly, near the batch fit
    on <- fit_gh(x, factors = 1L, fixed = fx,
                 control = ofs_ctl(batch_size = 3000))
    for (fit in list(step, on)) {
      for (nm in setdiff(names(fx), "gamma")) {
        expect_identical(unname(fit$parameters[[nm]]), fx[[nm]])
      }
      expect_identical(fit$df, batch$df)
    }
    expect_lt(abs(ll(batch) - ll(on)), 1e-3)
    expect_identical(on$symmetric, !is.null(fx$gamma))
    if (!is.null(fx$gamma)) expect_true(all(on$parameters$gamma == 0))
  }
  # with shrink too
  both <- fit_gh(x, factors = 1L, fixed = list(p = -0.8), shrink = 100,
                 control = ofs_ctl(batch_size = 3000))
  expect_identical(both$parameters$p, -0.8)
  expect_true(is.finite(both$objective))
  # a and b (and a nonzero gamma) are held only by the full EM
  expect_error(
    fit_gh(x, factors = 1L, fixed = list(a = 1),
           control = ofs_ctl(batch_size = 3000)),
    "full EM", class = "ghmix_error_argument"
  )
})
