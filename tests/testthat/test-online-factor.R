# Online EM with `factors = r` (R/fit_online_factor.R): one pass against
# the batch factor fit of the same rows, the fixed point of the batch fit,
# update() as the continuation of the stream, bounded memory, bad input.

# Factor-GH rows from the definition: X = mu + gamma Y + sqrt(Y) (F z + e),
# z ~ N(0, I_r), e ~ N(0, diag(D)), Y ~ GIG(p, a, b).
online_factor_sim <- function(n, d, r, seed = 7L, p = -0.5, a = 1, b = 1) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r)
  dd <- stats::runif(d, 0.5, 1.5)
  y <- rgig(n, p, a, b)
  z <- matrix(stats::rnorm(n * r), n, r) %*% t(f) +
    matrix(stats::rnorm(n * d), n, d) * rep(sqrt(dd), each = n)
  x <- rep(seq_len(d) / 10, each = n) +
    outer(y, rep(c(0.3, -0.2), length.out = d)) + sqrt(y) * z
  colnames(x) <- paste0("v", seq_len(d))
  x
}

online_factor_ctl <- function(...) ghmix_control(online = ghmix_online(...))

online_factor_mean_ll <- function(fit, x) {
  mean(predict(fit, x, type = "log_density"))
}

test_that("one pass in batches of 1e4 is within 1e-3 per row of batch EM", {
  skip_on_cran()
  x <- online_factor_sim(2e5, 20L, 2L)
  online <- fit_gh(x, factors = 2L, control = online_factor_ctl())
  batch <- fit_gh(x, factors = 2L)
  expect_s3_class(online, c("ghmix_fit_gh", "ghmix_fit_online", "ghmix_fit"))
  expect_identical(online$factors, 2L)
  expect_identical(dim(online$loadings), c(20L, 2L))
  expect_identical(online$iterations, 20L)
  expect_identical(online$df, batch$df)
  gap <- online_factor_mean_ll(batch, x) - online_factor_mean_ll(online, x)
  expect_lt(abs(gap), 1e-3)
  # the density of the online factor fit is that of its full Sigma
  par <- online$parameters
  full <- par[c("mu", "gamma", "p", "a", "b")]
  full$sigma <- tcrossprod(par$loadings) + diag(par$uniquenesses)
  rows <- x[1:50, ]
  expect_equal(
    predict(online, rows, type = "log_density"),
    do.call(dgh, c(list(rows), full, list(log = TRUE))),
    tolerance = 1e-10
  )
  expect_equal(online$loglik, sum(online$trace$loglik))
  # NIG, symmetric and r = 1 take the same path
  nig <- fit_nig(x[1:5e4, 1:6], factors = 1L, symmetric = TRUE,
                 control = online_factor_ctl())
  expect_true(all(nig$parameters$gamma == 0))
  expect_identical(nig$iterations, 5L)
})

test_that("a step at the batch fit with g = 1 stays at the batch fit", {
  # at a fixed point of the batch EM, the M-step from the complete-data
  # statistics of the factor model is the batch factor M-step
  x <- online_factor_sim(2e4, 8L, 2L, seed = 3L)
  batch <- fit_nig(x, factors = 2L, control = ghmix_control(tol = 1e-12))
  step <- update(batch, x, online = ghmix_online(
    batch_size = 2e4, step = "forget", rate = 1
  ))
  sig <- function(fit) {
    tcrossprod(fit$parameters$loadings) + diag(fit$parameters$uniquenesses)
  }
  expect_equal(sig(step), sig(batch), tolerance = 1e-6)
  expect_equal(step$parameters$mu, batch$parameters$mu, tolerance = 1e-6)
  expect_equal(step$parameters$gamma, batch$parameters$gamma,
               tolerance = 1e-6)
  # and its batch's log-likelihood (before the step) is the batch fit's
  expect_equal(step$trace$loglik[[2L]], batch$loglik, tolerance = 1e-10)
})

test_that("update() of a factor fit on the second half equals the whole pass", {
  x <- online_factor_sim(4e4, 10L, 2L, seed = 11L)
  ctl <- online_factor_ctl(batch_size = 5000)
  whole <- fit_gh(x, factors = 2L, control = ctl)
  half <- fit_gh(x[1:2e4, ], factors = 2L, control = ctl)
  cont <- update(half, x[20001:40000, ])
  expect_identical(cont$parameters, whole$parameters)
  expect_identical(cont$loglik, whole$loglik)
  expect_identical(cont$online$s, whole$online$s)
  expect_identical(cont$trace, whole$trace)
  # a batch factor fit continues from its final statistics
  fit <- fit_nig(x[1:1e4, ], factors = 2L)
  more <- update(fit, x[10001:40000, ],
                 online = ghmix_online(batch_size = 5000))
  expect_identical(more$factors, 2L)
  expect_identical(more$iterations, 7L)
  expect_equal(more$trace$gain[[2L]], 3^-0.6)
  expect_equal(more$loglik, fit$loglik + sum(more$trace$loglik[-1L]))
  ref <- fit_nig(x, factors = 2L)
  expect_lt(abs(online_factor_mean_ll(ref, x) -
                  online_factor_mean_ll(more, x)), 1e-3)
})

test_that("factor streams from chunks and with weights", {
  x <- online_factor_sim(2e4, 6L, 1L, seed = 5L)
  n <- nrow(x)
  ctl <- online_factor_ctl(batch_size = 4000)
  ref <- fit_nig(x, factors = 1L, control = ctl)
  idx <- split(seq_len(n), ceiling(seq_len(n) / 4000))
  chunks <- ghmix_data(lapply(idx, function(i) x[i, ]))
  expect_identical(fit_nig(chunks, factors = 1L, control = ctl)$parameters,
                   ref$parameters)
  ones <- fit_nig(x, factors = 1L, weights = rep(1, n), control = ctl)
  expect_identical(ones$parameters, ref$parameters)
  # weights 1, 2 against the rows repeated (the same batches: 4000 rows
  # of weight 6000 and their 6000 copies; the warm-up's principal-factor
  # start sees other rows, hence the tolerance)
  w <- rep(c(1, 2), n / 2)
  wfit <- fit_nig(x, factors = 1L, weights = w, control = ctl)
  copies <- fit_nig(x[rep(seq_len(n), w), ], factors = 1L,
                    control = online_factor_ctl(batch_size = 6000))
  expect_identical(wfit$nobs, sum(w))
  expect_equal(wfit$parameters$uniquenesses, copies$parameters$uniquenesses,
               tolerance = 1e-4)
  expect_equal(wfit$loglik, copies$loglik, tolerance = 1e-6)
})

test_that("memory of a factor stream does not grow with the batches", {
  ctl <- online_factor_ctl(warmup = 5L)
  # (the stream's 1e5 x 6 rows are 4.8 MB)
  expect_stream_memory(
    function(m, seed) online_factor_sim(m, 6L, 1L, seed = seed),
    function(stream) fit_nig(stream, factors = 1L, control = ctl), 1e5
  )
})

test_that("online factor fits give classed errors for what they do not take", {
  x <- online_factor_sim(3000, 5L, 1L)
  ctl <- online_factor_ctl(batch_size = 1000)
  expect_error(fit_nig(x, factors = 5L, control = ctl), "less than d",
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, factors = 1.5, control = ctl), "`factors`",
               class = "ghmix_error_argument")
  # (shrink and fixed with factors: test-online-factor-shrink.R)
  expect_error(fit_gh(x, factors = 1L, fixed = list(b = 1), control = ctl),
               "full EM", class = "ghmix_error_argument")
  # (without CUDA in the build, the backend's own error comes first)
  expect_error(fit_nig(x, factors = 1L, backend = "cuda", control = ctl),
               class = "ghmix_error")
  fit <- fit_nig(x, factors = 1L, control = ctl)
  # (no warm-up: the first batch's statistics at the principal-factor start)
  cold <- fit_nig(x, factors = 1L,
                  control = online_factor_ctl(batch_size = 1000, warmup = 0L))
  expect_identical(cold$iterations, 3L)
  expect_lt(abs(cold$loglik / 3000 - fit$loglik / 3000), 0.5)
  # (factor streams run on the GPU where one is built and present; here
  # the backend's own error)
  expect_error(update(fit, x, backend = "cuda"), class = "ghmix_error")
})
