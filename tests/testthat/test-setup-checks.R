# The checks every fit runs, in their faster forms (issue 29, item 4),
# against plain-R computations of what they check.

far_rows_reference <- function(x, limit) {
  dist <- rep(0, nrow(x))
  for (j in seq_len(ncol(x))) {
    center <- stats::median(x[, j])
    q <- stats::quantile(x[, j], c(0.25, 0.75), names = FALSE)
    spread <- (q[2L] / 2 - q[1L] / 2) * 2 / 1.349
    if (!(is.finite(spread) && spread > 0)) next
    dist <- pmax(dist, abs(x[, j] / spread - center / spread))
  }
  rows <- which(dist > limit)
  list(rows = rows, distance = dist[rows])
}

# The repeated rows by pasting each row: list(n_repeated, counts) with the
# counts of the repeated points in the order of their rows sorted.
ties_reference <- function(x, w) {
  key <- apply(x, 1L, function(r) {
    paste(format(r + 0, digits = 17L), collapse = " ")
  })
  wt <- if (is.null(w)) rep(1, nrow(x)) else w
  unit <- if (is.null(w)) 1 else min(w[w > 0])
  counts <- tapply(wt, factor(key, unique(key)), sum)
  first <- x[match(names(counts), key), , drop = FALSE]
  keep <- counts > unit
  ord <- do.call(order, lapply(seq_len(ncol(x)), function(j) first[, j]))
  ord <- ord[keep[ord]]
  list(n_repeated = sum(counts[keep]) / unit - sum(keep),
       counts = unname(as.vector(counts[ord])))
}

test_that("far_rows() finds the plain computation's rows, and only those", {
  set.seed(29)
  found <- 0L
  for (k in 1:150) {
    n <- sample(5:300, 1L)
    d <- sample(1:4, 1L)
    x <- matrix(stats::rt(n * d, 2) * 10^stats::runif(1L, -100, 100), n, d)
    if (k %% 2L == 0L) {
      far <- sample(n, sample(1:3, 1L))
      x[far, sample(d, 1L)] <- 10^stats::runif(1L, 5, 300)
    }
    if (k %% 7L == 0L) x[, 1L] <- rep_len(c(0, 0, 0, 1), n) # IQR 0
    for (limit in c(2^10, 2^26)) {
      ref <- far_rows_reference(x, limit)
      got <- ghmix:::far_rows(x, limit)
      expect_identical(got, ref)
      found <- found + (length(ref$rows) > 0L)
    }
  }
  expect_gt(found, 50L) # the cases include far rows
})

test_that("far_rows()' cache gives the same rows at either limit", {
  x <- cbind(c(stats::rnorm(99), 1e9), stats::rnorm(100))
  cache <- new.env(parent = emptyenv())
  a <- ghmix:::far_rows(x, 2^26, cache)
  expect_false(is.null(cache$spreads))
  expect_identical(ghmix:::far_rows(x, 2^10, cache),
                   far_rows_reference(x, 2^10))
  expect_identical(a, far_rows_reference(x, 2^26))
  expect_identical(a$rows, 100L)
})

test_that("ties are counted as among all rows, weighted or not", {
  set.seed(4)
  for (k in 1:60) {
    n <- sample(10:200, 1L)
    d <- sample(1:4, 1L)
    x <- matrix(round(stats::rnorm(n * d), sample(c(1L, 8L), 1L)), n, d)
    x[sample(n, n %/% 4L), ] <- rep(x[1L, ], each = n %/% 4L)
    w <- if (k %% 3L == 0L) sample(c(0.5, 1, 2, 3), n, TRUE)
    std <- list(center = colMeans(x), scale = apply(x, 2L, stats::sd))
    got <- ghmix:::mix_ties(x, w, std = std)
    ref <- ties_reference(x, w)
    expect_equal(got$n_repeated, ref$n_repeated)
    expect_equal(as.vector(got$counts), ref$counts)
    expect_identical(got, ghmix:::mix_ties(x, w))
  }
})

test_that("fits report the ties and far rows of the data", {
  set.seed(5)
  x <- matrix(stats::rnorm(400), 200, 2)
  x[1:30, ] <- 0
  fit <- suppressWarnings(fit_gh(x, control = ghmix_control(max_iter = 5)))
  expect_identical(fit$ties, 29L)
  # (d = 6: beyond the direct maximisation's d, the EM's result stands)
  y <- rbind(matrix(stats::rnorm(600), 100, 6), c(1e12, rep(0, 5)))
  w <- tryCatch(fit_nig(y, control = ghmix_control(max_iter = 2)),
                ghmix_warning_range = function(w) w)
  expect_s3_class(w, "ghmix_warning_range")
  expect_identical(w$rows, 101L)
})

test_that("na_rows() names the rows with NA, NaN or infinite values", {
  x <- matrix(stats::rnorm(12), 6, 2, dimnames = list(letters[1:6], NULL))
  expect_identical(ghmix:::na_rows(x), which(rowSums(!is.finite(x)) > 0L))
  x[2, 1] <- NA
  x[4, 2] <- Inf
  x[5, 1] <- -Inf
  expect_identical(unname(ghmix:::na_rows(x)), c(2L, 4L, 5L))
  x[] <- 1e308 # the sum overflows: the rows are still finite
  expect_length(ghmix:::na_rows(x), 0L)
})
