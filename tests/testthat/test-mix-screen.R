# The screening of mixture starts on a sample of the rows (R/mix_screen.R):
# on more than 2000 rows the starts are ranked on 1000 rows, and the EM on
# every row continues from the chosen start's parameters there, so the fit
# reaches the maximum of the screening on every row
# (options(ghmix.mixture_screen = FALSE), the reference).

screen_rows <- function(n, seed) {
  set.seed(seed)
  lab <- sample(3L, n, replace = TRUE, prob = c(0.3, 0.3, 0.4))
  x <- matrix(0, n, 3L)
  for (k in 1:3) {
    i <- which(lab == k)
    x[i, ] <- sim_mixture(length(i), c(-5, 0, 5)[k] + c(0, 1, -1),
                          c(0.5, -0.5, 0) * (k - 2), diag(3) / 2 + 0.2,
                          -0.5, 1, 1)
  }
  x
}

screen_fit <- function(x, screen, ...) {
  old <- options(ghmix.mixture_screen = screen)
  on.exit(options(old))
  set.seed(4)
  suppressWarnings(fit_nig(x, components = 3, ...))
}

test_that("screening on a sample reaches the maximum of screening every row", {
  x <- screen_rows(3000L, 21L)
  ref <- screen_fit(x, FALSE, nstart = 3)
  fit <- screen_fit(x, TRUE, nstart = 3)
  expect_true(fit$converged)
  # the same maximum (here from another of the tied starts)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-10)
  expect_equal(fit$components, ref$components, tolerance = 1e-6)
  expect_equal(fit$proportions, ref$proportions, tolerance = 1e-6)
  dens <- vapply(1:3, function(k) {
    ck <- fit$components[[k]]
    fit$proportions[[k]] * dgh(x, ck$mu, ck$gamma, ck$sigma, ck$p, ck$a, ck$b)
  }, numeric(nrow(x)))
  expect_equal(fit$loglik, sum(log(rowSums(dens))), tolerance = 1e-10)
  # near copies of an earlier partition are not screened (here hclust's of
  # kmeans'); the others are ranked by their log-likelihood on 1000 rows
  expect_lt(nrow(fit$starts), nrow(ref$starts))
  expect_false("hclust" %in% fit$starts$start)
  expect_equal(max(fit$starts$loglik) / fit$loglik, 1000 / 3000,
               tolerance = 0.05)
  w <- rep(1:2, length.out = nrow(x))
  fit_w <- screen_fit(x, TRUE, nstart = 3, weights = w)
  # integer weights: the fit of the replicated rows (the same maximum)
  rep_fit <- screen_fit(x[rep(seq_len(nrow(x)), w), ], TRUE, nstart = 3)
  expect_equal(fit_w$loglik, rep_fit$loglik, tolerance = 1e-10)
})

test_that("up to 2000 rows every row screens the starts", {
  x <- screen_rows(2000L, 22L)
  ref <- screen_fit(x, FALSE, nstart = 3)
  fit <- screen_fit(x, TRUE, nstart = 3)
  expect_identical(fit$starts, ref$starts)
  expect_identical(fit$loglik, ref$loglik)
  expect_null(ghmix:::mixture_screen_sample(2000L))
  idx <- ghmix:::mixture_screen_sample(4996L)
  expect_identical(idx, seq(1, 4996, by = 5))
})

test_that("the agreement of two partitions and the early stop", {
  agree <- ghmix:::mixture_screen_agreement
  a <- rep(1:3, each = 100)
  # the same partition under other names
  expect_identical(agree(a, c(3L, 1L, 2L)[a], 3L), 1)
  # one row of 300 moved to another cluster
  b <- a
  b[[1L]] <- 2L
  expect_identical(agree(a, b, 3L), 299 / 300)
  # two clusters of a matched to the same one of b: no matching
  expect_identical(agree(a, rep(1L, 300L), 3L), 0)
  labels <- list(a, c(2L, 3L, 1L)[a], rep(1:3, 100L), b)
  expect_identical(ghmix:::mixture_screen_distinct(labels, 3L),
                   labels[c(1L, 3L)])
  behind <- ghmix:::mixture_screen_behind
  ctx <- list(screen_bar = -10)
  old <- list(objective = -20)
  new <- list(objective = -15)
  # -15 + 1 * 5 reaches the bar; with no cycle left it does not
  expect_false(behind(ctx, old, new, 1L))
  expect_true(behind(ctx, old, new, 0L))
  expect_false(behind(list(), old, new, 0L))
})

test_that("a small cluster is not lost to the size of the screening sample", {
  # 100 of 5000 rows: about 20 of the 1000 screened, fewer than a d = 5
  # NIG component's free parameters, but a component of 100 rows of all
  set.seed(23)
  n_k <- c(2450L, 2450L, 100L)
  x <- do.call(rbind, lapply(1:3, function(k) {
    sim_mixture(n_k[[k]], c(-6, 0, 6)[k] + seq(0, 1, length.out = 5),
                rep(0.3, 5) * (k - 2), diag(5) / 2, -0.5, 1, 1)
  }))
  x <- x[sample.int(nrow(x)), ]
  expect_lt(20, ghmix:::model_df("nig", FALSE, 5L))
  ref <- screen_fit(x, FALSE, nstart = 2)
  fit <- screen_fit(x, TRUE, nstart = 2)
  expect_identical(ref$G, 3L)
  expect_identical(fit$G, 3L)
  expect_equal(sort(colSums(fit$z)), sort(colSums(ref$z)), tolerance = 1e-6)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-10)
})

test_that("a start does not depend on the names the seed gives its clusters", {
  x <- screen_rows(3000L, 21L)
  z <- scale(x)
  # k-means under two seeds: the same partition, its clusters named
  # differently (on main, the components came in another order)
  starts <- lapply(c(5L, 99L), function(seed) {
    set.seed(seed)
    ghmix:::mixture_starts(z, 3L, "nig", 0L, NULL, NULL, NULL)$kmeans
  })
  expect_identical(starts[[1L]], starts[[2L]])
  # component k of the start is the cluster of the first row with label k
  set.seed(5)
  lab <- stats::kmeans(z, 3L, iter.max = 50L, nstart = 1L)$cluster
  first <- unique(lab)
  for (k in 1:3) {
    expect_equal(starts[[1L]]$pars[[k]]$mu, colMeans(z[lab == first[[k]], ]),
                 ignore_attr = TRUE, tolerance = 1e-14)
  }
})
