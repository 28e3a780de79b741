# The slow cases of issue 31 bounded (their time is measured by
# bench/slow_cases.R, not here): the fold fits of weight = "cv" run at
# most 200 EM iterations (the reference: the same fold fit with
# ghmix_control(max_iter = 200)), and report how many converged; a
# mixture's restart stops at its first drop, with the same fit as before.

test_that("weight = \"cv\": fold fits of at most 200 iterations", {
  set.seed(1)
  f0 <- matrix(rnorm(100))
  x <- f0 %*% t(c(1, 0.8, 0.6, 0.4)) + matrix(rnorm(400), 100) * 0.5
  fit <- suppressWarnings(fit_nig(x, factors = 1,
                                  shrink = ghmix_shrink(weight = "cv")))
  cv <- fit$shrink$cv
  expect_identical(names(cv), c("intensity", "cv_loglik", "converged"))
  expect_true(all(cv$converged >= 0L & cv$converged <= 5L))
  # Gaussian rows: the NIG creeps to its normal limit, no fold converges
  expect_true(any(cv$converged < 5L))
  fold <- (seq_len(100) - 1L) %% 5L + 1L
  held <- 0
  for (f in 1:5) {
    train <- fold != f
    k <- sum(train) * 0.05 / 0.95
    ff <- suppressWarnings(fit_nig(x[train, ], factors = 1, shrink = k,
                                   control = ghmix_control(max_iter = 200)))
    expect_lte(ff$iterations, 200L)
    held <- held + sum(predict(ff, x[!train, ], type = "log_density"))
  }
  expect_equal(cv$cv_loglik[cv$intensity == 0.05], held, tolerance = 1e-10)
})

test_that("a mixture's restarts stop at their first drop; the fit is kept", {
  set.seed(1)
  x <- c(rnorm(60), rnorm(60, 5), rnorm(60, 10))
  rec <- new.env()
  rec$runs <- list()
  keep <- function(r) rec$runs[[length(rec$runs) + 1L]] <- r
  trace(ghmix:::mixture_em, exit = bquote(
    if (final) .(keep)(returnValue())
  ), where = asNamespace("ghmix"), print = FALSE)
  on.exit(untrace(ghmix:::mixture_em, where = asNamespace("ghmix")))
  set.seed(101)
  fit <- suppressWarnings(fit_nig(x, components = 10, nstart = 5))
  runs <- rec$runs
  expect_gte(length(runs), 2L)  # the first run dropped: restarts
  for (r in runs[-1L]) {
    # a restart that dropped stopped at the iteration of its drop
    if (length(r$pars) < 10L) {
      expect_identical(r$iterations, max(r$dropped$iteration))
    }
  }
  expect_identical(nrow(fit$dropped), 10L - fit$G)
})
