# Penalised mixtures of factor-analytic members (`components`, `factors`
# and `shrink` together).

# Two clusters of factor-GH rows in d = 6 with one factor each.
fshr_sim <- function(n = 600, d = 6, seed = 5) {
  set.seed(seed)
  lab <- rep(1:2, length.out = n)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in 1:2) {
    i <- which(lab == k)
    f <- matrix(stats::rnorm(d), d, 1L)
    sigma <- tcrossprod(f) + diag(stats::runif(d, 0.3, 1), d)
    mu <- c(6 * (k - 1), rep(0, d - 1))
    x[i, ] <- rgh(length(i), mu, stats::rnorm(d) * 0.2, sigma, -0.5, 1.5, 1.5)
  }
  x
}

# The fit with the same random starts (set.seed) and without the warnings
# of a fit stopped by max_iter.
fshr_fit <- function(x, ..., seed = 1) {
  set.seed(seed)
  withCallingHandlers(
    fit_nig(x, components = 2, factors = 1, ...),
    ghmix_warning_convergence = function(w) invokeRestart("muffleWarning")
  )
}

fshr_sigma <- function(par) {
  tcrossprod(par$loadings) + diag(par$uniquenesses, length(par$mu))
}

# The objective written out: the mixture log-likelihood from dgh() with
# Sigma_k = F_k F_k' + D_k, plus for each component the prior's profile
# P*(Sigma) = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d) + d]
# (R/shrink.R), T the target in the data's units.
fshr_objective <- function(x, fit, target, w = rep(1, nrow(x))) {
  d <- ncol(x)
  k <- fit$shrink$weight
  pen <- vapply(fit$components, function(par) {
    sigma <- fshr_sigma(par)
    tr <- sum(diag(solve(sigma, target)))
    -(k / 2) * (as.numeric(determinant(sigma)$modulus) + d * log(tr / d) + d)
  }, 0)
  fshr_loglik(x, fit, w) + sum(pen)
}

fshr_loglik <- function(x, fit, w = rep(1, nrow(x))) {
  dens <- vapply(seq_len(fit$G), function(k) {
    par <- fit$components[[k]]
    fit$proportions[[k]] *
      dgh(x, par$mu, par$gamma, fshr_sigma(par), par$p, par$a, par$b)
  }, numeric(nrow(x)))
  sum(w * log(rowSums(dens)))
}

# A rank-one plus diagonal target with correlations between all columns.
fshr_target <- function(d) {
  f <- seq(1, 2, length.out = d)
  tcrossprod(f) + diag(seq(0.5, 1.5, length.out = d))
}

test_that("factor mixtures with shrink: the objective never decreases", {
  x <- fshr_sim()
  fit <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50))
  ob <- fit$trace$objective
  expect_true(all(diff(ob) >= -1e-9 * abs(ob[-1]) |
                    fit$trace$step[-1] == "drop"))
  expect_gt(length(ob), 3L)
  expect_equal(fit$objective, ob[[length(ob)]])
  expect_equal(fit$shrink$weight, 50)
  expect_identical(fit$shrink$type, "diagonal")
  # the penalty pulls away from the maximum-likelihood fit
  ml <- fshr_fit(x)
  expect_lt(fit$loglik, ml$loglik)
  expect_lt(fit$objective, fit$loglik)
})

test_that("factor mixtures with shrink: the objective is the formula's", {
  x <- fshr_sim()
  d <- ncol(x)
  fit <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50))
  t_diag <- apply(x, 2L, stats::var)
  expect_equal(unname(fit$shrink$target), unname(t_diag), tolerance = 1e-12)
  expect_equal(fit$objective, fshr_objective(x, fit, diag(t_diag, d)),
               tolerance = 1e-9)
  expect_equal(fit$loglik, fshr_loglik(x, fit), tolerance = 1e-9)
  tt <- fshr_target(d)
  fit_m <- fshr_fit(x, shrink = ghmix_shrink(tt, weight = 30))
  expect_identical(fit_m$shrink$type, "matrix")
  expect_equal(fit_m$objective, fshr_objective(x, fit_m, tt),
               tolerance = 1e-9)
  fit_i <- fshr_fit(x, shrink = ghmix_shrink("identity", weight = 30))
  expect_equal(fit_i$objective,
               fshr_objective(x, fit_i, diag(mean(t_diag), d)),
               tolerance = 1e-9)
  # row weights: the weighted log-likelihood, the target the weighted
  # variances (frequency-weight divisor)
  w <- rep(c(1, 3), length.out = nrow(x))
  fit_w <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 50),
                    weights = w)
  m_w <- colSums(x * w) / sum(w)
  t_w <- colSums(w * sweep(x, 2L, m_w)^2) / (sum(w) - 1)
  expect_equal(unname(fit_w$shrink$target), unname(t_w), tolerance = 1e-10)
  expect_equal(fit_w$objective, fshr_objective(x, fit_w, diag(t_w), w),
               tolerance = 1e-9)
  expect_output(print(fit_w), "Penalised fit \\(shrink\\): target diagonal")
})

test_that("factor mixtures with shrink: weight 0 is the unpenalised fit", {
  x <- fshr_sim()
  ml <- fshr_fit(x)
  zero <- fshr_fit(x, shrink = 0)
  expect_identical(zero$components, ml$components)
  expect_identical(zero$proportions, ml$proportions)
  expect_identical(zero$loglik, ml$loglik)
  expect_identical(zero$objective, ml$loglik)
  expect_identical(zero$trace$loglik, ml$trace$loglik)
})

test_that("factor mixtures with shrink: a large weight gives T's shape", {
  x <- fshr_sim()
  d <- ncol(x)
  tt <- fshr_target(d)
  fit <- fshr_fit(x, shrink = ghmix_shrink(tt, weight = 1e7))
  for (par in fit$components) {
    sigma <- fshr_sigma(par)
    ratio <- diag(sigma) / diag(tt)
    expect_lt(max(abs(ratio / mean(ratio) - 1)), 1e-3)
    expect_lt(max(abs(stats::cov2cor(sigma) - stats::cov2cor(tt))), 1e-3)
  }
  # toward "diagonal": no correlation left (F F' diagonal, see
  # ghmix_shrink()); the unpenalised fit has large ones
  fit_d <- fshr_fit(x, shrink = ghmix_shrink("diagonal", weight = 1e7))
  ml <- fshr_fit(x)
  off <- function(fit) {
    max(vapply(fit$components, function(par) {
      r <- stats::cov2cor(fshr_sigma(par))
      max(abs(r[row(r) != col(r)]))
    }, 0))
  }
  expect_lt(off(fit_d), 1e-3)
  expect_gt(off(ml), 0.3)
})

test_that("factor mixtures with shrink: the rule's weight is divided by G", {
  x <- fshr_sim()
  one <- fit_nig(x, factors = 1, shrink = ghmix_shrink())
  fit <- fshr_fit(x, shrink = ghmix_shrink())
  expect_identical(fit$shrink$rule, "ledoit-wolf")
  expect_equal(fit$shrink$intensity, one$shrink$intensity, tolerance = 1e-12)
  expect_equal(fit$shrink$weight, one$shrink$weight / 2, tolerance = 1e-12)
  expect_error(fshr_fit(x, shrink = ghmix_shrink(weight = "cv")),
               class = "ghmix_error_shrink")
  expect_error(fshr_fit(x, shrink = ghmix_shrink(diag(3), weight = 1)),
               class = "ghmix_error_shrink")
})

# Chunked data, clusters and data that need standardising ---------------------

fshr_tight <- ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 3000L)

fshr_rel <- function(a, b) max(abs(a - b) / pmax(1, abs(b)))

# The same penalised fit to tol: objective, log-likelihood, proportions,
# components, memberships and the prior's record.
expect_same_fshr <- function(fit, ref, tol = 1e-8) {
  expect_true(fit$converged)
  expect_equal(fit$nobs, ref$nobs)
  expect_lte(abs(fit$objective - ref$objective) / abs(ref$objective), tol)
  expect_lte(abs(fit$loglik - ref$loglik) / abs(ref$loglik), tol)
  expect_lte(fshr_rel(fit$proportions, ref$proportions), tol)
  expect_lte(fshr_rel(unlist(fit$components), unlist(ref$components)), tol)
  expect_lte(max(abs(fit$z - ref$z)), tol)
  expect_equal(fit$shrink$weight, ref$shrink$weight, tolerance = 1e-12)
  expect_equal(fit$shrink$target, ref$shrink$target, tolerance = 1e-10)
}

fshr_chunks <- function(x) {
  lapply(list(1:200, 201:400, 401:nrow(x)), function(i) x[i, ])
}

test_that("factor mixtures with shrink on chunks: the in-memory fit", {
  x <- fshr_sim()
  for (spec in list(ghmix_shrink("diagonal", weight = 50),
                    ghmix_shrink(fshr_target(ncol(x)), weight = 30))) {
    ref <- fshr_fit(x, shrink = spec, control = fshr_tight)
    fit <- fshr_fit(ghmix_data(fshr_chunks(x)), shrink = spec,
                    control = fshr_tight)
    expect_same_fshr(fit, ref)
    expect_identical(fit$distributed$chunks, 3L)
    expect_identical(fit$shrink$type, ref$shrink$type)
  }
  # row weights that come with the chunks: the target their weighted
  # variances, as in memory
  set.seed(3)
  w <- sample(0:3, nrow(x), replace = TRUE)
  chunks <- Map(function(rows, i) list(x = rows, weights = w[i]),
                fshr_chunks(x), list(1:200, 201:400, 401:nrow(x)))
  spec <- ghmix_shrink("diagonal", weight = 50)
  expect_same_fshr(fshr_fit(ghmix_data(chunks), shrink = spec,
                            control = fshr_tight),
                   fshr_fit(x, shrink = spec, weights = w,
                            control = fshr_tight))
  # the weight rules need the rows in memory
  expect_error(fshr_fit(ghmix_data(fshr_chunks(x)), shrink = "diagonal"),
               "rows in memory", class = "ghmix_error_shrink")
})

test_that("factor mixtures with shrink under a future plan or a cluster", {
  skip_on_cran()
  x <- fshr_sim()
  spec <- ghmix_shrink("diagonal", weight = 50)
  ref <- fshr_fit(x, shrink = spec, control = fshr_tight)
  if (requireNamespace("future", quietly = TRUE)) {
    old <- future::plan(future::sequential)
    on.exit(future::plan(old), add = TRUE)
    fit <- fshr_fit(ghmix_data(fshr_chunks(x)), shrink = spec,
                    control = fshr_tight, cluster = "future")
    expect_same_fshr(fit, ref)
    expect_identical(fit$distributed$mode, "future")
  }
  skip_on_os("windows")
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster can start here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  # a matrix split over the workers: the weight rule has its rows
  ref_lw <- fshr_fit(x, shrink = "diagonal", control = fshr_tight)
  fit <- fshr_fit(x, shrink = "diagonal", control = fshr_tight, cluster = cl,
                  threads = 1L)
  expect_same_fshr(fit, ref_lw)
  expect_identical(fit$shrink$rule, "ledoit-wolf")
  expect_identical(fit$distributed$mode, "cluster")
  # and one that needs the standardisation
  small <- x * 1e-200
  ref_s <- suppressWarnings(fshr_fit(small, shrink = spec,
                                     control = fshr_tight))
  fit_s <- suppressWarnings(fshr_fit(small, shrink = spec,
                                     control = fshr_tight, cluster = cl,
                                     threads = 1L))
  expect_identical(fit_s$scaling[c("center", "scale")],
                   ref_s$scaling[c("center", "scale")])
  ref_s$components <- ref_s$scaling$parameters
  fit_s$components <- fit_s$scaling$parameters
  expect_same_fshr(fit_s, ref_s)
})

# The penalised fit of x * m against that of x, with the target in the
# data's units: each P* = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d)
# + d] with Sigma -> m^2 Sigma moves by -k d log(m) where T -> m^2 T (the
# built-in targets, taken on the rows) and not at all where T is held (a
# matrix target, which for such data is given up to a positive factor:
# ghmix_shrink()); so the objective is the log-likelihood's shift -n d
# log(m) plus G times the first.
expect_scaled_fshr <- function(x, m, spec, moved) {
  ref <- fshr_fit(x, shrink = spec, control = fshr_tight)
  fit <- suppressWarnings(fshr_fit(x * m, shrink = spec,
                                   control = fshr_tight))
  n <- nrow(x)
  d <- ncol(x)
  k <- ref$shrink$weight
  expect_equal(fit$shrink$weight, k, tolerance = 1e-12)
  expect_true(fit$converged)
  expect_equal(fit$loglik, ref$loglik - n * d * log(m), tolerance = 1e-10)
  expect_equal(fit$objective,
               ref$objective - n * d * log(m) - moved * 2 * k * d * log(m),
               tolerance = 1e-10)
  expect_equal(fit$trace$objective[[length(fit$trace$objective)]],
               fit$objective)
  expect_equal(fit$proportions, ref$proportions, tolerance = 1e-7)
  expect_lte(max(abs(fit$z - ref$z)), 1e-7)
  # the record in the data's units, where that is a double
  t_m <- ref$shrink$target * if (moved) m^2 else 1
  if (all(is.finite(t_m) & t_m > 0)) {
    expect_equal(fit$shrink$target, t_m, tolerance = 1e-8)
  }
  sc <- fit$scaling
  for (j in 1:2) {
    par <- fit$components[[j]]
    want <- ref$components[[j]]
    expect_equal(par$loadings / m, want$loadings, tolerance = 1e-6)
    expect_equal(par$mu / m, want$mu, tolerance = 1e-7)
    log_d <- log(sc$parameters[[j]]$uniquenesses) + 2 * log(sc$scale)
    expect_equal(log_d - 2 * log(m), log(want$uniquenesses),
                 tolerance = 1e-6)
  }
  fit
}

test_that("factor mixtures with shrink on data that need standardising", {
  x <- fshr_sim()
  fit <- expect_scaled_fshr(x, 1e-200,
                            ghmix_shrink("diagonal", weight = 50), TRUE)
  expect_identical(fit$shrink$type, "diagonal")
  expect_scaled_fshr(x, 1e-200, ghmix_shrink("identity", weight = 30), TRUE)
  # the rule's intensity does not depend on the units
  expect_scaled_fshr(x, 1e100, ghmix_shrink("diagonal"), TRUE)
  expect_scaled_fshr(x, 1e-100, ghmix_shrink("identity", weight = 30), TRUE)
  tt <- fshr_target(ncol(x))
  fit_m <- expect_scaled_fshr(x, 1e-200, ghmix_shrink(tt, weight = 30),
                              FALSE)
  expect_identical(fit_m$shrink$target, tt)
})

test_that("factor mixtures with shrink: columns of scales far apart", {
  x <- fshr_sim()
  x[, 1] <- x[, 1] * 1e300
  x[, 2] <- x[, 2] * 1e-300
  expect_error(fshr_fit(x, shrink = ghmix_shrink("identity", weight = 5)),
               "too far apart", class = "ghmix_error_shrink")
  expect_error(fshr_fit(x, shrink = ghmix_shrink(diag(6), weight = 5)),
               "too far apart", class = "ghmix_error_shrink")
})

test_that("factor mixtures with shrink: summary() has no standard errors", {
  # a posterior mode: summary() prints the estimates without standard
  # errors (it called vcov(), which refuses penalised fits, and failed)
  x <- fshr_sim(n = 200, d = 3)
  for (r in 0:1) {
    set.seed(1)
    fit <- suppressWarnings(fit_nig(x, components = 2, factors = r,
                                    shrink = 5))
    s <- summary(fit)
    expect_s3_class(s, "summary.ghmix_mixture")
    expect_true(all(is.na(s$coefficients[[1L]][, 2L])))
    est <- s$coefficients[[1L]][, 1L]
    expect_identical(unname(est[paste0("mu[v", 1:3, "]")]),
                     unname(fit$components[[1L]]$mu))
    expect_output(print(s), "Penalised fit")
    expect_error(vcov(fit), class = "ghmix_error_shrink")
  }
})
