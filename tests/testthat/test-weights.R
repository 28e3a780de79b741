# Observation (frequency) weights of the single-component fits: integer
# weights are the rows replicated, a weight of 0 the row dropped, weights
# all 1 the unweighted fit; bad weights are classed errors naming
# `weights`; the same weighted fit on 1 and 2 threads.

weights_data <- function() {
  r <- diff(log(EuStockMarkets))[1:700, c("DAX", "FTSE")]
  set.seed(5)
  w <- sample(0:3, nrow(r), replace = TRUE)
  list(x = r, w = w, replicated = r[rep(seq_len(nrow(r)), w), ])
}

weights_fitters <- list(nig = fit_nig, gh = fit_gh, vg = fit_vg,
                        skewt = fit_skewt)

# The largest |a - b| / (1 + |b|) over the parameters standardised by the
# columns' scales (as the stopping rule measures them).
weights_par_change <- function(fit, ref) {
  s <- sqrt(diag(ref$parameters$sigma))
  std <- function(par) {
    mix <- unlist(par[ghmix:::mix_family(ref$family)$free])
    mix[mix > 0] <- log(mix[mix > 0])
    c(par$mu / s, par$gamma / s, par$sigma / tcrossprod(s), mix)
  }
  max(abs(std(fit$parameters) - std(ref$parameters)) /
        (1 + abs(std(ref$parameters))))
}

test_that("integer weights give the fit of the replicated rows", {
  dat <- weights_data()
  for (fam in names(weights_fitters)) {
    f <- weights_fitters[[fam]]
    fw <- suppressWarnings(f(dat$x, weights = dat$w, threads = 1L))
    fr <- suppressWarnings(f(dat$replicated, threads = 1L))
    expect_lte(abs(fw$loglik - fr$loglik) / abs(fr$loglik), 1e-10)
    expect_lte(weights_par_change(fw, fr), 10 * fr$control$param_tol)
    expect_identical(fw$nobs, sum(as.double(dat$w)))
    expect_identical(fw$nrow, nrow(dat$x))
    expect_identical(fw$weights, as.double(dat$w))
    expect_equal(BIC(fw), BIC(fr), tolerance = 1e-10)
    expect_identical(fw$converged, fr$converged)
  }
})

test_that("a weight of 0 is the row dropped; all-ones weights change nothing", {
  dat <- weights_data()
  w <- rep(1, nrow(dat$x))
  w[c(3, 50, 400)] <- 0
  fw <- fit_nig(dat$x, weights = w, threads = 1L)
  fd <- fit_nig(dat$x[w > 0, ], threads = 1L)
  expect_lte(abs(fw$loglik - fd$loglik) / abs(fd$loglik), 1e-10)
  expect_lte(weights_par_change(fw, fd), 10 * fd$control$param_tol)
  # an outlier of weight 0 adds nothing
  x_out <- rbind(dat$x, c(DAX = 5, FTSE = -3))
  f_out <- fit_nig(x_out, weights = c(rep(1, nrow(dat$x)), 0), threads = 1L)
  f_in <- fit_nig(dat$x, threads = 1L)
  expect_equal(f_out$loglik, f_in$loglik, tolerance = 1e-10)
  # all ones: the unweighted fit, bit for bit
  ones <- suppressWarnings(
    fit_gh(dat$x, weights = rep(1L, nrow(dat$x)), threads = 1L)
  )
  plain <- suppressWarnings(fit_gh(dat$x, threads = 1L))
  expect_identical(ones$parameters, plain$parameters)
  expect_identical(ones$loglik, plain$loglik)
  expect_identical(ones$trace, plain$trace)
})

test_that("non-integer weights scale the likelihood", {
  dat <- weights_data()
  f1 <- fit_nig(dat$x, weights = dat$w, threads = 1L)
  f2 <- fit_nig(dat$x, weights = dat$w / 4, threads = 1L)
  expect_equal(f2$loglik, f1$loglik / 4, tolerance = 1e-8)
  expect_lte(weights_par_change(f2, f1), 10 * f1$control$param_tol)
  expect_identical(f2$nobs, sum(dat$w / 4))
})

test_that("weighted fits are bit-identical on 1 and 2 threads", {
  set.seed(3)
  x <- matrix(rt(2e4, 5), ncol = 2, dimnames = list(NULL, c("a", "b")))
  w <- stats::runif(nrow(x), 0, 3)
  f1 <- fit_nig(x, weights = w, threads = 1L)
  f2 <- fit_nig(x, weights = w, threads = 2L)
  expect_identical(f1$parameters, f2$parameters)
  expect_identical(f1$trace, f2$trace)
})

test_that("na.rm drops the weights of the rows it drops", {
  dat <- weights_data()
  x <- dat$x
  x[c(2, 9), 1] <- NA
  fw <- fit_nig(x, weights = dat$w, na.rm = TRUE, threads = 1L)
  fk <- fit_nig(x[-c(2, 9), ], weights = dat$w[-c(2, 9)], threads = 1L)
  expect_identical(fw$parameters, fk$parameters)
  expect_identical(fw$weights, as.double(dat$w[-c(2, 9)]))
  expect_identical(fw$na_action, c(2L, 9L))
})

test_that("bad weights are classed errors naming `weights`", {
  x <- diff(log(EuStockMarkets))[1:100, 1]
  n <- length(x)
  bad <- list(
    c(-1, rep(1, n - 1)), c(NA, rep(1, n - 1)), c(NaN, rep(1, n - 1)),
    c(Inf, rep(1, n - 1)), rep(1, n - 1), rep(1, n + 1), rep("1", n),
    rep(0, n), matrix(1, n, 1), factor(rep(1, n)), as.list(rep(1, n)),
    rep(TRUE, n)
  )
  for (fam in names(weights_fitters)) {
    for (w in bad) {
      err <- expect_error(weights_fitters[[fam]](x, weights = w),
                          class = "ghmix_error_argument")
      expect_match(conditionMessage(err), "`weights`", fixed = TRUE)
    }
  }
  # all the positive weights on rows dropped by na.rm
  x_na <- c(x, NA)
  err <- expect_error(
    fit_nig(x_na, weights = c(rep(0, n), 1), na.rm = TRUE),
    class = "ghmix_error_argument"
  )
  expect_match(conditionMessage(err), "`weights`", fixed = TRUE)
  # too few rows of positive weight: the error of too few rows
  expect_error(fit_nig(x, weights = c(1, 1, rep(0, n - 2))),
               class = "ghmix_error_argument")
})

test_that("weighted ties: a row of weight 2 is a tie with itself", {
  set.seed(8)
  x <- matrix(rnorm(400), ncol = 2)
  w <- rep(1, 200)
  w[17] <- 2
  expect_true("ghmix_warning_ties" %in% warning_classes(fit_vg(x, weights = w)))
  expect_false("ghmix_warning_ties" %in% warning_classes(fit_vg(x)))
  f <- suppressWarnings(fit_vg(x, weights = w, threads = 1L))
  expect_identical(f$ties, 1)
})

test_that("vcov of a weighted fit is that of the replicated rows", {
  dat <- weights_data()
  fw <- fit_nig(dat$x, weights = dat$w, threads = 1L)
  fr <- fit_nig(dat$replicated, threads = 1L)
  vw <- vcov(fw)
  vr <- vcov(fr)
  expect_equal(vw, vr, tolerance = 1e-4)
})

test_that("print and summary say the fit is weighted; predict ignores it", {
  dat <- weights_data()
  fw <- fit_nig(dat$x, weights = dat$w, threads = 1L)
  out <- capture.output(print(fw))
  expect_match(out[1L], sprintf("weighted: sum of weights %d", sum(dat$w)),
               fixed = TRUE)
  s <- capture.output(print(summary(fw)))
  expect_match(s[1L], "weighted", fixed = TRUE)
  expect_identical(nobs(fw), sum(as.double(dat$w)))
  expect_identical(nrow(fitted(fw)), nrow(dat$x))
  expect_length(predict(fw, dat$x[1:5, ]), 5L)
  sims <- simulate(fw, seed = 1)
  expect_identical(nrow(sims[[1L]]), nrow(dat$x))
})

test_that("the weighted E-step on the CUDA backend equals the CPU's", {
  info <- ghmix_info()
  skip_if(!info$cuda || nrow(info$devices) == 0L, "no CUDA device")
  dat <- weights_data()
  fc <- fit_nig(dat$x, weights = dat$w, backend = "cuda")
  fp <- fit_nig(dat$x, weights = dat$w, threads = 1L)
  expect_lte(abs(fc$loglik - fp$loglik) / abs(fp$loglik), 1e-10)
})

# Chunked data ----------------------------------------------------------------

# A weighted in-memory fit and the same rows and weights in 3 chunks (list
# chunks, .rds files with a weights column, headerless .csv files with it
# as column 3).
weights_chunks <- function(dir) {
  dat <- weights_data()
  w <- dat$w * 0.75
  idx <- split(seq_len(nrow(dat$x)), rep(1:3, length.out = nrow(dat$x)))
  rows <- unlist(idx, use.names = FALSE)
  rds <- file.path(dir, sprintf("part%d.rds", 1:3))
  csv <- file.path(dir, sprintf("part%d.csv", 1:3))
  for (i in 1:3) {
    xi <- cbind(dat$x[idx[[i]], ], wt = w[idx[[i]]])
    saveRDS(xi, rds[i])
    utils::write.table(xi, csv[i], sep = ",", row.names = FALSE,
                       col.names = FALSE)
  }
  list(
    x = dat$x, w = w,
    ref = fit_nig(dat$x[rows, ], weights = w[rows], threads = 1L),
    lists = ghmix_data(unname(lapply(idx, function(i) {
      list(x = dat$x[i, ], weights = w[i])
    }))),
    rds = ghmix_data(rds, weights = "wt"),
    csv = ghmix_data(csv, names = colnames(dat$x), weights = 3L)
  )
}

expect_same_weighted_fit <- function(fit, ref) {
  expect_lte(abs(fit$loglik - ref$loglik) / ref$nobs, 10 * ref$control$tol)
  expect_lte(weights_par_change(fit, ref), 10 * ref$control$param_tol)
  expect_equal(fit$nobs, ref$nobs, tolerance = 1e-12)
  expect_true(fit$weighted)
}

test_that("chunks carry weights: out of core as in memory", {
  dir <- tempfile("ghmix-weights-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  ch <- weights_chunks(dir)
  for (nm in c("lists", "rds", "csv")) {
    fit <- fit_nig(ch[[nm]], threads = 1L)
    expect_same_weighted_fit(fit, ch$ref)
  }
  expect_output(print(ch$rds), "weights: column wt")
  fit <- fit_nig(ch$rds, threads = 1L)
  expect_match(capture.output(print(fit))[1L], "weighted", fixed = TRUE)
  # fitted() reads the chunks without their weights column
  expect_identical(dim(fitted(fit)), c(nrow(ch$x), 3L))
  expect_equal(vcov(fit), vcov(ch$ref), tolerance = 1e-6)
  # weights on chunked data come with the chunks
  expect_error(fit_nig(ch$rds, weights = ch$w), class = "ghmix_error_argument")
  expect_error(ghmix_data(list(ch$x), weights = c("a", "b")),
               class = "ghmix_error_argument")
  # a chunk's bad weights: the chunk's error, naming the weights
  bad <- ghmix_data(list(list(x = ch$x, weights = -ch$w)))
  expect_error(fit_nig(bad), "weights", class = "ghmix_error_chunk")
  expect_error(fit_nig(ghmix_data(list(ch$x), weights = "nope")),
               "weights", class = "ghmix_error_chunk")
})

test_that("weighted fits on a cluster and a future plan", {
  skip_on_cran()
  dir <- tempfile("ghmix-weights-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  ch <- weights_chunks(dir)
  cl <- parallel::makePSOCKcluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  expect_same_weighted_fit(fit_nig(ch$rds, cluster = cl, threads = 1L),
                           ch$ref)
  # a weighted matrix on a cluster: the chunks carry the weights
  ref <- fit_nig(ch$x, weights = ch$w, threads = 1L)
  fit <- fit_nig(ch$x, weights = ch$w, cluster = cl, threads = 1L)
  expect_same_weighted_fit(fit, ref)
  expect_identical(fit$weights, ref$weights)
  expect_equal(vcov(ref, cluster = cl), vcov(ref), tolerance = 1e-6)
  skip_if_not_installed("future")
  old <- future::plan(future::multisession, workers = 2L)
  on.exit(future::plan(old), add = TRUE)
  expect_same_weighted_fit(fit_nig(ch$rds, cluster = "future", threads = 1L),
                           ch$ref)
})
