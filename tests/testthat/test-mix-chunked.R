# Mixtures of chunked data, on a PSOCK cluster and under a future plan: the
# in-memory fit of the same rows.

# Two NIG clusters in d = 2, and the same rows as three chunks.
mix_chunked_sim <- function(seed = 5L) {
  set.seed(seed)
  rbind(sim_mixture(300, c(-4, 0), c(1, 0), diag(2), -0.5, 2, 2),
        sim_mixture(400, c(3, 2), c(-1, 0.5), diag(c(1, 0.5)), -0.5, 2, 2))
}

mix_chunks <- function(x, w = NULL) {
  idx <- list(1:200, 201:450, 451:700)
  lapply(idx, function(i) {
    if (is.null(w)) x[i, ] else list(x = x[i, ], weights = w[i])
  })
}

# Run to the maximum, so that two fits whose sums are added in another
# order (and so take other SQUAREM steps) end at the same point.
mix_tight <- ghmix_control(tol = 1e-15, param_tol = 1e-13, max_iter = 3000L)

max_rel <- function(a, b) max(abs(a - b) / pmax(1, abs(b)))

# The same fit to 1e-10 relative: log-likelihood, proportions, components,
# memberships.
expect_same_mixture <- function(fit, ref, tol = 1e-10) {
  expect_s3_class(fit, class(ref))
  expect_true(fit$converged)
  expect_identical(fit$G, ref$G)
  expect_identical(fit$nobs, ref$nobs)
  expect_lte(abs(fit$loglik - ref$loglik) / abs(ref$loglik), tol)
  expect_lte(max_rel(fit$proportions, ref$proportions), tol)
  expect_lte(max_rel(unlist(fit$components), unlist(ref$components)), tol)
  expect_identical(names(fit$components[[1L]]$mu),
                   names(ref$components[[1L]]$mu))
  expect_lte(max(abs(fit$z - ref$z)), tol)
  expect_identical(fit$classification, ref$classification)
  expect_lte(abs(fit$ICL - ref$ICL) / abs(ref$ICL), tol)
}

test_that("a chunked mixture is the in-memory fit of its rows", {
  skip_on_cran()
  x <- mix_chunked_sim()
  set.seed(1)
  ref <- fit_nig(x, components = 2, control = mix_tight)
  set.seed(1)
  fit <- fit_nig(ghmix_data(mix_chunks(x)), components = 2,
                 control = mix_tight)
  expect_same_mixture(fit, ref)
  expect_s3_class(fit$data, "ghmix_data")
  expect_equal(vcov(fit), vcov(ref), tolerance = 1e-6)
  expect_identical(predict(fit, type = "class"), ref$classification)
  expect_equal(predict(fit), unname(ref$z), tolerance = 1e-10,
               ignore_attr = TRUE)
  expect_error(plot(fit), class = "ghmix_error_chunked")
  # weights that come with the chunks
  set.seed(3)
  w <- sample(0:3, nrow(x), replace = TRUE)
  set.seed(1)
  ref_w <- fit_nig(x, components = 2, weights = w, control = mix_tight)
  set.seed(1)
  fit_w <- fit_nig(ghmix_data(mix_chunks(x, w)), components = 2,
                   control = mix_tight)
  expect_same_mixture(fit_w, ref_w)
  expect_equal(fit_w$nobs, sum(w))
  # several G, selected by BIC
  set.seed(1)
  ref_g <- fit_nig(x, components = 1:2, control = mix_tight)
  set.seed(1)
  fit_g <- fit_nig(ghmix_data(mix_chunks(x)), components = 1:2,
                   control = mix_tight)
  expect_identical(fit_g$G, ref_g$G)
  expect_lte(max_rel(fit_g$criteria$BIC, ref_g$criteria$BIC), 1e-10)
})

test_that("mixtures on a PSOCK cluster and a future plan", {
  skip_on_cran()
  skip_if_not_installed("future")
  x <- mix_chunked_sim()
  set.seed(1)
  ref <- fit_nig(x, components = 2, control = mix_tight)
  cl <- parallel::makePSOCKcluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  set.seed(1)
  fit <- fit_nig(x, components = 2, control = mix_tight, cluster = cl,
                 threads = 1L)
  expect_same_mixture(fit, ref)
  set.seed(1)
  fit_ch <- fit_nig(ghmix_data(mix_chunks(x)), components = 2,
                    control = mix_tight, cluster = cl, threads = 1L)
  expect_same_mixture(fit_ch, ref)
  expect_identical(fit_ch$distributed$mode, "cluster")
  expect_identical(fit_ch$distributed$workers, 2L)
  expect_identical(fit_ch$distributed$chunks, 3L)
  expect_equal(vcov(ref, cluster = cl), vcov(ref), tolerance = 1e-6)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  set.seed(1)
  fit_fu <- fit_nig(x, components = 2, control = mix_tight,
                    cluster = "future")
  expect_same_mixture(fit_fu, ref)
})

test_that("chunked mixtures start from rows taken evenly through the chunks", {
  x <- mix_chunked_sim()
  opts <- ghmix:::chunk_options("cpu", 1L, 0L, NULL, NULL)
  eng <- ghmix:::chunk_engine(ghmix_data(mix_chunks(x)), opts, na_rm = FALSE)
  on.exit(eng$free(), add = TRUE)
  sub <- ghmix:::mixture_chunk_sample(eng$data, 10L)
  expect_identical(unname(sub$x), unname(x[round(seq(1, 700,
                                                        length.out = 10)), ]))
  expect_null(sub$w)
  expect_identical(unname(ghmix:::mixture_chunk_sample(eng$data, 1e4)$x),
                   unname(x))
  expect_error(fit_nig(ghmix_data(mix_chunks(x)), components = 2,
                       weights = rep(1, 700)),
               "come with the chunks", class = "ghmix_error_argument")
})

test_that("more rows than the starts read: the same maximum", {
  skip_on_cran()
  set.seed(7)
  x <- rbind(sim_mixture(2500, c(-4, 0), c(1, 0), diag(2), -0.5, 2, 2),
             sim_mixture(3500, c(3, 2), c(-1, 0.5), diag(c(1, 0.5)), -0.5, 2,
                         2))
  x <- x[sample(nrow(x)), ]
  expect_gt(nrow(x), ghmix:::mixture_sample_max)
  set.seed(1)
  ref <- fit_nig(x, components = 2, control = mix_tight)
  chunks <- lapply(split(seq_len(6000), rep(1:4, each = 1500)), function(i) {
    x[i, ]
  })
  set.seed(1)
  fit <- fit_nig(ghmix_data(unname(chunks)), components = 2,
                 control = mix_tight)
  expect_same_mixture(fit, ref)
})

test_that("chunks without weights among weighted ones count each row once", {
  skip_on_cran()
  x <- mix_chunked_sim()
  set.seed(3)
  w <- sample(0:3, nrow(x), replace = TRUE)
  w[c(1:200, 451:700)] <- 1
  # only the second chunk carries weights (ghmix_data(): the others' rows
  # count once each, as in a single-distribution fit)
  chunks <- mix_chunks(x)
  chunks[[2L]] <- list(x = chunks[[2L]], weights = w[201:450])
  data <- ghmix_data(chunks)
  opts <- ghmix:::chunk_options("cpu", 1L, 0L, NULL, NULL)
  eng <- ghmix:::chunk_engine(data, opts, na_rm = FALSE)
  on.exit(eng$free(), add = TRUE)
  sub <- ghmix:::mixture_chunk_sample(eng$data, 1e4)
  expect_identical(sub$w, w)
  expect_identical(ghmix:::mixture_chunk_sample(eng$data, 10L)$w,
                   w[round(seq(1, 700, length.out = 10))])
  one <- fit_nig(data)
  expect_equal(one$loglik, fit_nig(x, weights = w)$loglik,
               tolerance = 1e-10)
  set.seed(1)
  ref <- fit_nig(x, components = 2, weights = w, control = mix_tight)
  set.seed(1)
  fit <- fit_nig(data, components = 2, control = mix_tight)
  expect_same_mixture(fit, ref)
  expect_identical(fit$weights, w)
  expect_equal(fit$nobs, sum(w))
  set.seed(1)
  ref_f <- muffle_factors(fit_nig(x, components = 2, factors = 1,
                                  weights = w, control = mix_tight))
  set.seed(1)
  fit_f <- muffle_factors(fit_nig(data, components = 2, factors = 1,
                                  control = mix_tight))
  expect_true(fit_f$converged)
  expect_equal(fit_f$nobs, sum(w))
  expect_lte(abs(fit_f$loglik - ref_f$loglik) / abs(ref_f$loglik), 1e-10)
  expect_lte(max_rel(unlist(fit_f$components), unlist(ref_f$components)),
             1e-6)
  expect_identical(fit_f$classification, ref_f$classification)
})
