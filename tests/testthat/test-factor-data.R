# Factor fits (`factors = r`) on chunked data, on a cluster, with `fixed`,
# and on data whose scale needs the internal standardisation.

fdata_sim <- function(n = 600L, d = 5L, r = 2L, seed = 5L) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r)
  dd <- stats::runif(d, 0.3, 1)
  x <- rgh(n, stats::rnorm(d), stats::rnorm(d) * 0.3, factor_cov(f, dd), 1,
           2, 1)
  colnames(x) <- paste0("v", seq_len(d))
  x
}

fdata_sigma <- function(fit) {
  f <- fit$parameters$loadings
  tcrossprod(f) + diag(fit$parameters$uniquenesses)
}

# The log-likelihood of the rows x at the GH law mu, gamma, Sigma = F F' +
# diag(D), GIG(p, a, b) (density prop. to y^(p-1) exp(-(a y + b / y) / 2)),
# in base R from the normal mean-variance mixture integral
# int y^(l-1) exp(-(A y + B / y) / 2) dy = 2 (B / A)^(l/2) K_l(sqrt(A B))
# (DLMF 10.32.10), with the full d x d Sigma.
fdata_loglik <- function(x, par) {
  d <- ncol(x)
  sigma <- tcrossprod(par$loadings) + diag(par$uniquenesses, d)
  si <- solve(sigma)
  u <- x - rep(par$mu, each = nrow(x))
  q <- rowSums((u %*% si) * u)
  g <- drop(crossprod(par$gamma, si %*% par$gamma))
  lam <- par$p - d / 2
  big_a <- par$a + g
  big_b <- par$b + q
  z <- sqrt(big_a * big_b)
  log_k <- function(z, nu) log(besselK(z, nu, expon.scaled = TRUE)) - z
  w <- sqrt(par$a * par$b)
  sum(-d / 2 * log(2 * pi) - as.numeric(determinant(sigma)$modulus) / 2 +
        drop(u %*% (si %*% par$gamma)) + par$p / 2 * log(par$a / par$b) -
        log_k(w, par$p) + lam / 2 * log(big_b / big_a) + log_k(z, lam))
}

# The base-R log-likelihood at par moved by eps in random directions of
# the elements named in `free`: the largest over `k` such moves.
fdata_perturbed <- function(x, par, free, eps, k = 12L, seed = 5L) {
  set.seed(seed)
  best <- -Inf
  for (i in seq_len(k)) {
    at <- par
    for (nm in free) {
      v <- at[[nm]]
      step <- eps * stats::rnorm(length(v)) * pmax(abs(v), 0.1)
      at[[nm]] <- if (nm %in% c("uniquenesses", "a", "b")) {
        v * exp(step / pmax(abs(v), 0.1))
      } else {
        v + step
      }
    }
    best <- max(best, fdata_loglik(x, at))
  }
  best
}

ctl_tight <- ghmix_control(tol = 1e-11, param_tol = 1e-7)

test_that("a chunked factor fit equals the in-memory factor fit", {
  x <- fdata_sim()
  ref <- fit_nig(x, factors = 2, control = ctl_tight)
  chunks <- lapply(split(seq_len(nrow(x)), rep(1:4, each = 150)),
                   function(i) x[i, , drop = FALSE])
  fit <- fit_nig(ghmix_data(unname(chunks)), factors = 2, control = ctl_tight)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
  expect_equal(fdata_sigma(fit), fdata_sigma(ref), tolerance = 1e-6)
  expect_identical(fit$factors, 2L)
  expect_identical(fit$df, ref$df)
  expect_s3_class(fit$data, "ghmix_data")
  # the same log-likelihood in base R at the fitted parameters
  expect_equal(fdata_loglik(x, fit$parameters), fit$loglik, tolerance = 1e-10)
  # CSV files, read out of core at every E-step (GH: the NIG start first)
  dir <- tempfile("ghmix-fdata-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  files <- file.path(dir, sprintf("part%d.csv", 1:3))
  for (i in 1:3) {
    rows <- (i - 1L) * 200L + seq_len(200L)
    utils::write.table(x[rows, ], files[i], sep = ",", row.names = FALSE,
                       col.names = FALSE)
  }
  ref_gh <- fit_gh(x, factors = 1, control = ctl_tight)
  csv <- fit_gh(ghmix_data(files), factors = 1, control = ctl_tight)
  expect_equal(csv$loglik, ref_gh$loglik, tolerance = 1e-8)
  expect_equal(fdata_sigma(csv), fdata_sigma(ref_gh), tolerance = 1e-6,
               ignore_attr = TRUE)
  # vcov() reads the chunks: the in-memory fit's standard errors
  v <- vcov(fit)
  v0 <- vcov(ref)
  expect_equal(sqrt(diag(v)), sqrt(diag(v0)), tolerance = 1e-4)
})

test_that("a factor fit on a 2-worker PSOCK cluster equals the in-memory one", {
  skip_on_cran()
  skip_on_os("windows")
  cl <- tryCatch(parallel::makePSOCKcluster(2L), error = function(e) NULL)
  skip_if(is.null(cl), "no PSOCK cluster can start here")
  on.exit(parallel::stopCluster(cl), add = TRUE)
  x <- fdata_sim()
  ref <- fit_gh(x, factors = 2, control = ctl_tight)
  fit <- fit_gh(x, factors = 2, cluster = cl, threads = 1L,
                control = ctl_tight)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
  expect_equal(fdata_sigma(fit), fdata_sigma(ref), tolerance = 1e-6)
  expect_identical(fit$distributed$mode, "cluster")
  expect_identical(fit$distributed$workers, 2L)
  chunks <- list(x[1:250, ], x[251:450, ], x[451:600, ])
  fit2 <- fit_nig(ghmix_data(chunks), factors = 2, cluster = cl,
                  threads = 1L, control = ctl_tight)
  ref2 <- fit_nig(x, factors = 2, control = ctl_tight)
  expect_equal(fit2$loglik, ref2$loglik, tolerance = 1e-8)
  expect_equal(fdata_sigma(fit2), fdata_sigma(ref2), tolerance = 1e-6)
})

test_that("a factor fit on a future plan equals the in-memory one", {
  skip_on_cran()
  skip_if_not_installed("future")
  x <- fdata_sim()
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  ref <- fit_nig(x, factors = 2, control = ctl_tight)
  fit <- fit_nig(ghmix_data(list(x[1:300, ], x[301:600, ])), factors = 2,
                 cluster = "future", control = ctl_tight)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
  expect_equal(fdata_sigma(fit), fdata_sigma(ref), tolerance = 1e-6)
  expect_identical(fit$distributed$mode, "future")
})

test_that("fixed mu and p are held, the rest maximises the likelihood", {
  x <- fdata_sim(400L, d = 4L, r = 1L, seed = 4L)
  free_fit <- fit_gh(x, factors = 1, control = ctl_tight)
  m0 <- unname(round(free_fit$parameters$mu, 1))
  fit <- fit_gh(x, factors = 1, fixed = list(mu = m0), control = ctl_tight)
  expect_true(fit$converged)
  expect_identical(unname(fit$parameters$mu), m0)
  par <- fit$parameters
  ll <- fdata_loglik(x, par)
  expect_equal(fit$loglik, ll, tolerance = 1e-10)
  free <- c("gamma", "loadings", "uniquenesses", "p", "a", "b")
  expect_gte(ll, fdata_perturbed(x, par, free, 1e-3))
  # the held mu is not the maximum over mu
  expect_gt(free_fit$loglik, ll)
  expect_identical(fit$df, free_fit$df - 4L)
  # mu and p held
  fit2 <- fit_gh(x, factors = 1, fixed = list(mu = m0, p = 1.5),
                 control = ctl_tight)
  expect_identical(unname(fit2$parameters$mu), m0)
  expect_identical(fit2$parameters$p, 1.5)
  ll2 <- fdata_loglik(x, fit2$parameters)
  expect_equal(fit2$loglik, ll2, tolerance = 1e-10)
  free2 <- c("gamma", "loadings", "uniquenesses", "a", "b")
  expect_gte(ll2, fdata_perturbed(x, fit2$parameters, free2, 1e-3))
  # p alone, and gamma = 0 (symmetric), on chunks
  fit3 <- fit_gh(ghmix_data(list(x[1:200, ], x[201:400, ])), factors = 1,
                 fixed = list(p = -1, gamma = 0), control = ctl_tight)
  expect_identical(fit3$parameters$p, -1)
  expect_true(fit3$symmetric)
  expect_true(all(fit3$parameters$gamma == 0))
  ll3 <- fdata_loglik(x, fit3$parameters)
  expect_equal(fit3$loglik, ll3, tolerance = 1e-10)
  expect_gte(ll3, fdata_perturbed(x, fit3$parameters,
                                  c("mu", "loadings", "uniquenesses", "a",
                                    "b"), 1e-3))
})

test_that("fixed a is held in the gauge E[Y] = 1", {
  x <- fdata_sim(400L, d = 4L, r = 1L, seed = 4L)
  fit <- fit_gh(x, factors = 1, fixed = list(a = 2), control = ctl_tight)
  par <- fit$parameters
  expect_identical(par$a, 2)
  # E[Y] = sqrt(b / a) K_{p+1}(w) / K_p(w), w = sqrt(a b) (DLMF 10.25)
  w <- sqrt(par$a * par$b)
  expect_equal(sqrt(par$b / par$a) * besselK(w, par$p + 1) /
                 besselK(w, par$p), 1, tolerance = 1e-8)
  ll <- fdata_loglik(x, par)
  expect_equal(fit$loglik, ll, tolerance = 1e-10)
  # the free parameters other than the mixing law (whose moves would leave
  # a = 2 in the gauge E[Y] = 1)
  expect_gte(ll, fdata_perturbed(x, par, c("mu", "gamma", "loadings",
                                           "uniquenesses"), 1e-3))
  # p moved, b the root of E[Y] = 1 at a = 2: lower
  for (dp in c(-0.02, 0.02)) {
    at <- par
    at$p <- par$p + dp
    mean_y <- function(lb) {
      b <- exp(lb)
      w <- sqrt(2 * b)
      log(sqrt(b / 2) * besselK(w, at$p + 1) / besselK(w, at$p))
    }
    at$b <- exp(stats::uniroot(mean_y, log(par$b) + c(-2, 2),
                               tol = 1e-12)$root)
    expect_lt(fdata_loglik(x, at), ll)
  }
})

# Rows of a GH law with Sigma = sig and gamma = g0 / E[Y] in the gauge
# E[Y] = 1 (gamma* = g0): GIG(-0.5, 1, 1) has mean 1 (sqrt(b / a) K_{1/2} /
# K_{-1/2} = 1, DLMF 10.39.2).
fdata_gamma_sim <- function(n, mu, g0, sig, seed) {
  set.seed(seed)
  y <- rgig(n, -0.5, 1, 1)
  d <- length(mu)
  rep(mu, each = n) + outer(y, g0) +
    sqrt(y) * (matrix(stats::rnorm(n * d), n, d) %*% chol(sig))
}

test_that("a nonzero fixed gamma with factors: d = 2, r = 1 is the full fit", {
  # every positive definite 2 x 2 Sigma is F F' + diag(D) with r = 1 and
  # D > 0 (F = (t^1/2, s12 / t^1/2) for any s12^2 / s22 < t < s11), so the
  # factor fit with gamma* held maximises the likelihood the full-Sigma fit
  # with the same gamma* does: the same maximum, to the fits' convergence
  g0 <- c(0.4, -0.3)
  x <- fdata_gamma_sim(1500L, c(1, -1), g0,
                       matrix(c(1, 0.5, 0.5, 2), 2L), seed = 3L)
  colnames(x) <- c("v1", "v2")
  ctl <- ghmix_control(tol = 1e-13, param_tol = 1e-7, max_iter = 5000L)
  for (fx in list(list(gamma = g0), list(gamma = g0, mu = c(1, -1)),
                  list(gamma = g0, a = 1.5))) {
    full <- fit_gh(x, fixed = fx, control = ctl)
    # (r = 1 in d = 2 is not identified: the full Sigma, with a warning)
    fac <- withCallingHandlers(
      fit_gh(x, factors = 1, fixed = fx, control = ctl),
      ghmix_warning_factors = function(w) invokeRestart("muffleWarning")
    )
    expect_true(fac$converged)
    expect_identical(unname(fac$parameters$gamma), g0)
    if (!is.null(fx$mu)) expect_identical(unname(fac$parameters$mu), fx$mu)
    if (!is.null(fx$a)) expect_identical(fac$parameters$a, fx$a)
    expect_equal(fac$loglik, full$loglik, tolerance = 1e-10)
    expect_equal(fdata_loglik(x, fac$parameters), fac$loglik,
                 tolerance = 1e-10)
    expect_equal(unname(fdata_sigma(fac)), unname(full$parameters$sigma),
                 tolerance = 1e-6)
    # (p and a, b lie along the likelihood's flattest directions: the two
    # fits stop some 1e-6 apart there, relative 1e-4 for a p near 0)
    expect_equal(fac$parameters[c("mu", "p", "a", "b")],
                 full$parameters[c("mu", "p", "a", "b")], tolerance = 1e-4)
    # each iteration a GEM step
    expect_gte(min(diff(fac$trace$loglik)), -1e-9 * abs(fac$loglik))
  }
})

test_that("a nonzero fixed gamma with factors beats the truth, on chunks too", {
  d <- 5L
  f <- c(1, 0.8, -0.6, 0.5, 0.9)
  dd <- c(0.5, 0.8, 0.6, 1, 0.7)
  g0 <- c(0.3, -0.2, 0.1, 0, 0.4)
  mu <- seq_len(d) / 10
  x <- fdata_gamma_sim(1000L, mu, g0, tcrossprod(f) + diag(dd), seed = 8L)
  colnames(x) <- paste0("v", seq_len(d))
  fit <- fit_gh(x, factors = 1, fixed = list(gamma = g0), control = ctl_tight)
  expect_true(fit$converged)
  expect_identical(unname(fit$parameters$gamma), g0)
  par <- fit$parameters
  # E[Y] = 1 in the reported gauge
  w <- sqrt(par$a * par$b)
  expect_equal(sqrt(par$b / par$a) * besselK(w, par$p + 1) /
                 besselK(w, par$p), 1, tolerance = 1e-8)
  ll <- fdata_loglik(x, par)
  expect_equal(fit$loglik, ll, tolerance = 1e-10)
  truth <- list(mu = mu, gamma = g0, loadings = matrix(f), uniquenesses = dd,
                p = -0.5, a = 1, b = 1)
  expect_gt(ll, fdata_loglik(x, truth))
  expect_gte(ll, fdata_perturbed(x, par, c("mu", "loadings", "uniquenesses"),
                                 1e-3))
  # gamma* held is not the free maximum
  expect_gt(fit_gh(x, factors = 1, control = ctl_tight)$loglik, ll)
  expect_identical(fit$df, fit_gh(x, factors = 1)$df - d)
  chunks <- ghmix_data(list(x[1:400, ], x[401:1000, ]))
  on_chunks <- fit_gh(chunks, factors = 1, fixed = list(gamma = g0),
                      control = ctl_tight)
  expect_equal(on_chunks$loglik, fit$loglik, tolerance = 1e-10)
  expect_equal(fdata_sigma(on_chunks), fdata_sigma(fit), tolerance = 1e-6)
  # data scaled by 1e-200 (fitted standardised): the same fit
  tiny <- suppressWarnings(fit_gh(x * 1e-200, factors = 1,
                                  fixed = list(gamma = g0 * 1e-200),
                                  control = ctl_tight))
  expect_equal(tiny$loglik, fit$loglik - 1000 * d * log(1e-200),
               tolerance = 1e-10)
  expect_equal(unname(tiny$parameters$gamma), g0 * 1e-200, tolerance = 1e-12)
  # with shrink: gamma* held, the objective never decreases
  pen <- fit_gh(x, factors = 1, fixed = list(gamma = g0), shrink = 200,
                control = ctl_tight)
  expect_identical(unname(pen$parameters$gamma), g0)
  expect_gte(min(diff(pen$trace$objective)), -1e-9 * abs(pen$objective))
  # not with online EM (as for a full Sigma) or symmetric = TRUE
  expect_error(
    fit_gh(x, factors = 1, fixed = list(gamma = g0),
           control = ghmix_control(online = ghmix_online(batch_size = 500))),
    "full EM", class = "ghmix_error_argument"
  )
  expect_error(fit_gh(x, factors = 1, fixed = list(gamma = g0),
                      symmetric = TRUE),
               "symmetric", class = "ghmix_error_argument")
})

test_that("data scaled by 1e-200 and 1e200 give the unscaled fit", {
  x <- fdata_sim(500L, d = 4L, r = 1L, seed = 4L)
  ref <- fit_nig(x, factors = 1, control = ctl_tight)
  n <- nrow(x)
  d <- ncol(x)
  for (s in c(1e-200, 1e200)) {
    fit <- suppressWarnings(fit_nig(x * s, factors = 1, control = ctl_tight))
    expect_true(fit$converged)
    expect_equal(fit$loglik, ref$loglik - n * d * log(s), tolerance = 1e-10)
    sc <- fit$scaling
    z <- sc$parameters
    expect_equal(unname(sc$center + sc$scale * z$mu),
                 unname(s * ref$parameters$mu), tolerance = 1e-6)
    expect_equal(unname(z$gamma * sc$scale),
                 unname(s * ref$parameters$gamma), tolerance = 1e-6)
    expect_equal(unname(z$loadings * sc$scale), unname(s * ref$loadings),
                 tolerance = 1e-6)
    expect_equal(unname(fit$loadings), unname(s * ref$loadings),
                 tolerance = 1e-6)
    # D in logs (s^2 D over- or underflows)
    expect_equal(unname(log(z$uniquenesses) + 2 * log(sc$scale)),
                 unname(log(ref$uniquenesses) + 2 * log(s)),
                 tolerance = 1e-10)
    expect_equal(fit$parameters[c("a", "b")], ref$parameters[c("a", "b")],
                 tolerance = 1e-6)
  }
  # a moderate scale whose parameters are all doubles, with vcov()
  s <- 1e-50
  fit <- fit_nig(x * s, factors = 1, control = ctl_tight)
  expect_false(is.null(fit$scaling))
  expect_equal(fit$uniquenesses, s^2 * ref$uniquenesses, tolerance = 1e-6)
  v <- vcov(fit)
  v0 <- vcov(ref)
  k <- c(rep(s, 3 * d), rep(s^2, d), 1, 1)
  expect_equal(sqrt(diag(v)) / k, sqrt(diag(v0)), tolerance = 1e-4)
  expect_equal(predict(fit, type = "log_density"),
               predict(ref, type = "log_density") - d * log(s),
               tolerance = 1e-8)
})
