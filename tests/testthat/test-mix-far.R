# Clusters far apart (issue 31, item 7): two clusters 1e3 to 1e8 spreads
# apart, in both columns (the pooled columns collinear to the doubles) or
# in one, fit as two components; the reference is the two clusters'
# separate fits (their log-likelihoods plus n log(1/2) for the equal
# proportions, the memberships being 0 or 1 to the doubles).

far_clusters <- function() {
  set.seed(3)
  list(a = matrix(rt(400, 5), 200), b = matrix(rt(400, 5), 200))
}

test_that("far clusters: G = 2 at the separate fits' log-likelihood", {
  cl <- far_clusters()
  fa <- fit_nig(cl$a)
  fb <- fit_nig(cl$b)
  ref <- fa$loglik + fb$loglik + 400 * log(0.5)
  for (shift in c(1e3, 1e5, 1e6, 1e8)) {
    for (cols in list(1:2, 1L)) {
      b <- cl$b
      b[, cols] <- b[, cols] + shift
      fit <- fit_nig(rbind(cl$a, b), components = 2)
      label <- sprintf("shift %g in %d column(s)", shift, length(cols))
      expect_identical(fit$G, 2L, label = label)
      expect_true(fit$converged, label = label)
      expect_equal(fit$loglik, ref, tolerance = 1e-6, label = label)
      expect_equal(fit$proportions, c(0.5, 0.5), tolerance = 1e-12)
      expect_equal(fit$components[[2L]]$mu,
                   fb$parameters$mu + replace(c(0, 0), cols, shift),
                   tolerance = 1e-6, ignore_attr = TRUE)
    }
  }
})

test_that("far clusters with the true labels as the start", {
  cl <- far_clusters()
  b <- cl$b
  b[, 1L] <- b[, 1L] + 1e6
  fit <- fit_nig(rbind(cl$a, b), components = 2, start = rep(1:2, each = 200))
  expect_identical(fit$G, 2L)
  expect_null(fit$dropped)
  # the issue's normal clusters: G = 2 at about -698.08, not G = 1 at
  # -3208.7 (a component dropped as singular in the pooled units)
  set.seed(3)
  a <- matrix(rnorm(200), 100)
  b <- matrix(rnorm(200), 100)
  b[, 1L] <- b[, 1L] + 1e6
  fit <- suppressWarnings(fit_nig(rbind(a, b), components = 2,
                                  start = rep(1:2, each = 100)))
  expect_identical(fit$G, 2L)
  expect_gt(fit$loglik, -699)
})

test_that("truly collinear columns are still an error; G = 1 is left out", {
  x <- rnorm(200)
  expect_error(fit_nig(cbind(x, 2 * x + 1), components = 2),
               "collinear", class = "ghmix_error_argument")
  cl <- far_clusters()
  x2 <- rbind(cl$a, cl$b + 1e6)
  # one distribution of both clusters: a singular Sigma
  expect_error(fit_nig(x2), "collinear", class = "ghmix_error_argument")
  expect_warning(fit <- fit_nig(x2, components = 1:2),
                 class = "ghmix_warning_component")
  expect_identical(fit$G, 2L)
})
