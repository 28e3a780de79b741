# Standard errors of mixture fits (vcov.ghmix_mixture()).

# Two well-separated NIG clusters in d = 2 (u shifted by 12 standard
# deviations; v skewed).
sim_separated <- function(seed) {
  set.seed(seed)
  x <- rbind(matrix(rnorm(600), 300) + 8, matrix(rnorm(800), 400) * 0.5 - 4)
  x[, 2] <- x[, 2] + rexp(700)
  colnames(x) <- c("u", "v")
  x
}

test_that("separated components have the standard errors of single fits", {
  x <- sim_separated(1)
  fit <- fit_nig(x, components = 2)
  v <- vcov(fit)
  expect_equal(dim(v), c(20L, 20L))
  expect_equal(v, t(v))
  expect_equal(rownames(v)[c(1L, 20L)], c("component_1:mu[u]",
                                          "proportion[2]"))
  se <- sqrt(diag(v))
  for (k in 1:2) {
    single <- fit_nig(x[fit$classification == k, ])
    mix <- se[startsWith(names(se), paste0("component_", k, ":"))]
    expect_equal(unname(mix), unname(sqrt(diag(vcov(single)))),
                 tolerance = 1e-3)
  }
  # the proportions: binomial standard errors (the memberships are 0 or 1)
  p1 <- fit$proportions[[1L]]
  expect_equal(unname(se[19:20]), rep(sqrt(p1 * (1 - p1) / 700), 2),
               tolerance = 1e-6)
  s <- summary(fit)
  expect_equal(unname(s$coefficients[[2L]][, "Std. Error"]),
               unname(se[10:18]))
  expect_output(print(s), "standard error")
})

# A NIG sample in d = 2 (skewed, heavy-tailed: the fits converge).
sim_nig <- function(n, seed) {
  set.seed(seed)
  sim_mixture(n, c(1, -1), c(0.5, -0.3), matrix(c(1, 0.3, 0.3, 0.8), 2),
              -0.5, 1, 1)
}

test_that("a one-component mixture has the single fit's covariance", {
  x <- sim_nig(500, 2)
  single <- fit_gh(x)
  expect_true(single$converged)
  mix <- ghmix:::mixture_from_single(single, NULL)
  v <- vcov(mix)
  k <- nrow(v) - 1L
  expect_equal(unname(v[seq_len(k), seq_len(k)]), unname(vcov(single)),
               tolerance = 1e-4)
  expect_equal(unname(v[k + 1L, ]), rep(0, k + 1L))
})

test_that("a singular information gives NA with a classed warning", {
  x <- sim_nig(300, 3)
  one <- fit_nig(x)
  expect_true(one$converged)
  # two copies of the one-component maximum: the likelihood does not depend
  # on the proportions there
  start <- rep(1:2, each = 150)
  two <- suppressWarnings(
    fit_nig(x, components = 2, start = start,
            control = ghmix_control(max_iter = 1))
  )
  two$components <- rep(list(one$parameters), 2)
  two$proportions <- c(0.5, 0.5)
  two$converged <- TRUE
  expect_warning(v <- vcov(two), "not positive definite",
                 class = "ghmix_warning_vcov")
  expect_true(all(is.na(v)))
  expect_warning(s <- summary(two), class = "ghmix_warning_vcov")
  expect_output(print(s), "No standard errors")
  gh <- suppressWarnings(
    fit_gh(x, components = 2, start = start,
           control = ghmix_control(max_iter = 1))
  )
  gh$components[[1L]]$a <- 0
  gh$converged <- TRUE
  expect_warning(v <- vcov(gh), "boundary", class = "ghmix_warning_vcov")
  expect_true(all(is.na(v)))
})
