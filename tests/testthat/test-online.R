# Online EM (ghmix_online(), update()): one pass over mini-batches against
# the batch fit of the same rows, the sources of batches, update() as the
# continuation of the stream, bounded memory, bad input.

online_sim <- function(n, d, family = "nig", seed = 21L) {
  par <- sim_params(d, family, seed)
  set.seed(seed)
  x <- sim_mixture(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
  if (d == 1L) x[, 1L] else x
}

online_ctl <- function(...) ghmix_control(online = ghmix_online(...))

online_mean_ll <- function(fit, x) {
  mean(predict(fit, x, type = "log_density"))
}

# The numbers of two online fits that must be the same.
expect_same_online <- function(a, b) {
  expect_identical(a$parameters, b$parameters)
  expect_identical(a$loglik, b$loglik)
  expect_identical(a$nobs, b$nobs)
  expect_identical(a$online$s, b$online$s)
  expect_identical(a$online$t, b$online$t)
  expect_identical(a$trace, b$trace)
}

# (2e5 rows for the NIG, 1e5 for the GH, whose batch fit is the slow part
# of this test; bench/online.R runs 2e6)
test_that("one pass in batches of 1e4 is within 1e-3 per row of batch EM", {
  skip_on_cran()
  cases <- list(c("nig", 1, 2e5), c("nig", 3, 2e5), c("gh", 1, 1e5),
                c("gh", 3, 1e5))
  for (case in cases) {
    family <- case[[1L]]
    d <- as.integer(case[[2L]])
    n <- as.numeric(case[[3L]])
    x <- online_sim(n, d, family)
    fitter <- if (family == "nig") fit_nig else fit_gh
    online <- fitter(x, control = online_ctl(batch_size = 1e4))
    batch <- suppressWarnings(fitter(x))
    gap <- online_mean_ll(batch, x) - online_mean_ll(online, x)
    expect_lt(abs(gap), 1e-3, label = paste(family, d))
    expect_s3_class(online, c(paste0("ghmix_fit_", family),
                              "ghmix_fit_online", "ghmix_fit"))
    expect_identical(online$iterations, as.integer(n / 1e4))
    expect_identical(online$nobs, n)
    # logLik: the sum of the batches' log-likelihoods before their update
    expect_equal(online$loglik, sum(online$trace$loglik))
  }
})

test_that("update() on the second half equals the pass over both halves", {
  x <- online_sim(4e4, 3)
  ctl <- online_ctl(batch_size = 5000)
  whole <- fit_nig(x, control = ctl)
  half <- fit_nig(x[1:2e4, ], control = ctl)
  cont <- update(half, x[20001:40000, ])
  expect_same_online(cont, whole)
  # a new schedule from here on: the batch count and averages go on
  other <- update(half, x[20001:40000, ], online = ghmix_online(
    batch_size = 1e4, step = "forget", rate = 0.3
  ))
  expect_identical(other$trace$batch, as.double(1:6))
  expect_identical(other$trace$gain[5:6], c(0.3, 0.3))
  expect_identical(other$online$t, 6)
  # the same with the forgetting schedule and with the GH (d = 1)
  ctl <- online_ctl(batch_size = 5000, step = "forget", rate = 0.2)
  y <- online_sim(4e4, 1, "gh")
  whole <- fit_gh(y, control = ctl)
  cont <- update(fit_gh(y[1:2e4], control = ctl), y[20001:40000])
  expect_same_online(cont, whole)
  expect_identical(unique(whole$trace$gain[-1L]), 0.2)
})

test_that("update() continues a batch fit from its final statistics", {
  x <- online_sim(3e4, 2)
  fit <- fit_nig(x[1:1e4, ])
  cont <- update(fit, x[10001:30000, ],
                 online = ghmix_online(batch_size = 5000))
  expect_s3_class(cont, "ghmix_fit_online")
  expect_identical(cont$nobs, 3e4)
  expect_identical(cont$iterations, 5L)
  # the batch fit counts as 1e4 / 5000 = 2 batches: the next gets g_3
  expect_equal(cont$trace$gain[[2L]], 3^-0.6)
  expect_equal(cont$loglik, fit$loglik + sum(cont$trace$loglik[-1L]))
  ref <- suppressWarnings(fit_nig(x))
  expect_lt(abs(online_mean_ll(ref, x) - online_mean_ll(cont, x)), 1e-3)
  # without newdata, update() re-evaluates the call, as stats::update()
  sym <- update(fit, symmetric = TRUE)
  expect_true(sym$symmetric)
  expect_false(inherits(sym, "ghmix_fit_online"))
})

test_that("function and ghmix_data sources equal the matrix source", {
  x <- online_sim(2.4e4, 3)
  ctl <- online_ctl(batch_size = 4000)
  ref <- fit_nig(x, control = ctl)
  idx <- split(seq_len(nrow(x)), ceiling(seq_len(nrow(x)) / 4000))
  k <- 0L
  next_batch <- function() {
    k <<- k + 1L
    if (k > length(idx)) NULL else x[idx[[k]], , drop = FALSE]
  }
  expect_same_online(fit_nig(next_batch, control = ctl), ref)
  chunks <- ghmix_data(lapply(idx, function(i) x[i, , drop = FALSE]))
  expect_same_online(fit_nig(chunks, control = ctl), ref)
  # weights: all 1 is the unweighted fit; weights in a column of the chunks
  # or list(x =, weights =) answers equal the weights argument
  w <- rep(c(1, 2, 0.5), length.out = nrow(x))
  expect_same_online(fit_nig(x, weights = rep(1, nrow(x)), control = ctl), ref)
  wref <- fit_nig(x, weights = w, control = ctl)
  expect_true(wref$weighted)
  expect_identical(wref$nobs, sum(w))
  wchunks <- ghmix_data(lapply(idx, function(i) cbind(x[i, ], w = w[i])),
                        weights = "w")
  expect_same_online(fit_nig(wchunks, control = ctl), wref)
  k <- 0L
  weighted_batch <- function() {
    k <<- k + 1L
    if (k > length(idx)) {
      return(NULL)
    }
    list(x = x[idx[[k]], ], weights = w[idx[[k]]])
  }
  expect_same_online(fit_nig(weighted_batch, control = ctl), wref)
})

test_that("memory does not grow with the number of batches", {
  ctl <- online_ctl(warmup = 5L)
  # (the stream's 1e5 x 2 rows are 1.6 MB)
  expect_stream_memory(function(m, seed) online_sim(m, 2, seed = seed),
                       function(stream) fit_nig(stream, control = ctl), 2e5)
})

test_that("online fits have the methods of fits", {
  x <- online_sim(2e4, 2)
  fit <- fit_nig(x, control = online_ctl(batch_size = 5000))
  expect_output(print(fit), "Online EM over 4 batches")
  s <- summary(fit)
  expect_output(print(s), "Online EM over 4 batches")
  expect_true(all(is.finite(s$coefficients[, "Std. Error"])))
  v <- vcov(fit)
  expect_identical(nrow(v), ncol(v))
  expect_true(all(is.finite(v)))
  expect_identical(coef(fit)$mu, fit$parameters$mu)
  expect_identical(as.numeric(logLik(fit)), fit$loglik)
  expect_identical(attr(logLik(fit), "df"), fit$df)
  expect_true(is.finite(AIC(fit)) && is.finite(BIC(fit)))
  expect_length(predict(fit, x[1:10, ]), 10L)
  expect_identical(dim(simulate(fit, seed = 1)[[1L]]), c(20000L, 2L))
  expect_error(predict(fit), class = "ghmix_error_online")
  expect_error(fitted(fit), class = "ghmix_error_online")
  # (the panels of the rows; plot(fit) draws the trace: test-tidy-plot.R)
  expect_error(plot(fit, which = "density"), class = "ghmix_error_online")
  # one trace line per batch
  msgs <- character()
  withCallingHandlers(
    fit_nig(x, control = ghmix_control(
      trace = TRUE, online = ghmix_online(batch_size = 5000)
    )),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  expect_length(msgs, 4L)
  expect_match(msgs[[2L]], "^batch +2 +rows +5000 +mean loglik")
})

test_that("the fitters built on fit_gh() take online EM", {
  x <- online_sim(2e4, 2, "gh")
  ctl <- online_ctl(batch_size = 5000)
  hyp <- fit_hyperbolic(x, control = ctl)
  expect_identical(hyp$parameters$p, 1.5)
  expect_s3_class(hyp, "ghmix_fit_online")
  st <- fit_student(x, control = ctl)
  expect_s3_class(st, "ghmix_fit_online")
  vg <- fit_vg(x, control = ctl)
  expect_identical(vg$parameters$b, 0)
  sk <- suppressWarnings(fit_skewt(x, control = ctl))
  expect_identical(sk$parameters$a, 0)
  sym <- fit_nig(x, symmetric = TRUE, control = ctl)
  expect_identical(sym$parameters$gamma, c(v1 = 0, v2 = 0))
})

test_that("bad input gives classed errors naming the argument", {
  expect_error(ghmix_online(batch_size = 0), "`batch_size`",
               class = "ghmix_error_argument")
  expect_error(ghmix_online(batch_size = 0.5), "`batch_size`",
               class = "ghmix_error_argument")
  expect_error(ghmix_online(batch_size = NA), "`batch_size`",
               class = "ghmix_error_argument")
  for (k in list(0.5, 1.01, -1, "a", NA, c(0.6, 0.7))) {
    expect_error(ghmix_online(kappa = k), "`kappa`",
                 class = "ghmix_error_argument")
  }
  expect_error(ghmix_online(rate = 0), "`rate`",
               class = "ghmix_error_argument")
  expect_error(ghmix_online(t0 = -1), "`t0`", class = "ghmix_error_argument")
  expect_error(ghmix_online(warmup = -1), "`warmup`",
               class = "ghmix_error_argument")
  expect_error(ghmix_online(step = "adam"), "`step`",
               class = "ghmix_error_argument")
  expect_error(ghmix_control(online = list(batch_size = 10)), "`online`",
               class = "ghmix_error_argument")
  x <- online_sim(3000, 3)
  ctl <- online_ctl(batch_size = 1000)
  k <- 0L
  varying <- function() {
    k <<- k + 1L
    if (k > 3L) NULL else x[1:1000, seq_len(if (k == 2L) 2L else 3L)]
  }
  expect_error(fit_nig(varying, control = ctl), "Batch 2 of `x` has 2 col",
               class = "ghmix_error_batch")
  k <- 0L
  odd <- function() {
    k <<- k + 1L
    if (k == 1L) x[1:1000, ] else list(1, 2)
  }
  expect_error(fit_nig(odd, control = ctl), "function `x` returned list",
               class = "ghmix_error_batch")
  expect_error(fit_nig(function() NULL, control = ctl), "`x` gave no rows",
               class = "ghmix_error_argument")
  y <- x
  y[1500, 2] <- NA
  expect_error(fit_nig(y, control = ctl), "Batch 2 of `x` has 1 row",
               class = "ghmix_error_argument")
  dropped <- fit_nig(y, control = ctl, na.rm = TRUE)
  expect_identical(dropped$nobs, 2999)
  expect_identical(dropped$online$dropped, 1)
  expect_error(fit_nig(x, components = 2L, control = ctl), "one distribution",
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, weights = 1:10, control = ctl), "`weights`",
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, backend = "cuda", control = ctl),
               class = "ghmix_error")
  fit <- fit_nig(x, control = ctl)
  expect_error(update(fit, x[, 1:2]), "Batch 1 of `newdata` has 2 col",
               class = "ghmix_error_batch")
  expect_error(update(fit, x, online = list()), "`online`",
               class = "ghmix_error_argument")
})
