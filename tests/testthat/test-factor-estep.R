# The factor-analytic E-step (factor_estep(), src/core/factor.h): against
# the full-Sigma E-step with Sigma = F F' + D formed, against a plain-R
# computation (solve() of Sigma, besselK, gig_expectation()), unusable
# parameters, threads, and memory at d = 5000; on a GPU (where one is
# present), against the same full-Sigma E-step.

factor_case <- function(d, r, family, n = 60L, seed = d * 10L + r) {
  set.seed(seed)
  f <- matrix(runif(d * r, -1, 1), d, r)
  uniq <- runif(d, 0.3, 1.5)
  sigma <- tcrossprod(f) + diag(uniq, d)
  x <- matrix(rnorm(n * d), n, d) %*% chol(sigma) + 0.2
  pab <- switch(family,
    gh = c(0.7, 1.1, 1.3), nig = c(-0.5, 1.2, 0.9),
    vg = c(1.5, 2, 0), skewt = c(-2.5, 0, 3)
  )
  par <- list(mu = runif(d, -0.3, 0.3), gamma = runif(d, -0.4, 0.4),
              loadings = f, uniquenesses = uniq, p = pab[1], a = pab[2],
              b = pab[3])
  list(x = x, par = par, sigma = sigma, what = mix_what(family))
}

# max |a - b| relative to max |b| (1 for zeros), NaN in both equal.
block_err <- function(a, b) {
  a <- as.vector(a)
  b <- as.vector(b)
  both <- is.nan(a) & is.nan(b)
  if (length(b) == 0L || all(both)) {
    return(0)
  }
  max(abs(a - b)[!both]) / max(1e-300, max(abs(b[!both])))
}

expect_matches_full <- function(cs, weights = NULL, tol = 1e-12,
                                backend = "cpu") {
  par <- cs$par
  full_par <- c(par[c("mu", "gamma", "p", "a", "b")], list(sigma = cs$sigma))
  eng <- mix_engine_cpu(cs$x, 1L, weights)
  full <- mix_estep(eng, full_par, cs$what, rows = TRUE)
  fac <- factor_estep(cs$x, par, cs$what, weights = weights, rows = TRUE,
                      threads = 2L, backend = backend)
  scalars <- c("n", "tau", "loglik", "s_inv", "s_y", "s_log", "s_inv_dev",
               "s_y_dev", "n_bad")
  for (s in c(scalars, "sx", "sxw", "rows")) {
    expect_lte(block_err(fac[[s]], full[[s]]), tol, label = s)
  }
  expect_lte(block_err(fac$sxx_diag, diag(full$sxx)), tol)
  expect_lte(block_err(fac$sxx_proj, full$sxx %*% t(fac$proj)), tol)
  expect_lte(block_err(fac$proj, t(par$loadings) %*% solve(cs$sigma)), tol)
  expect_lte(abs(fac$logdet - c(determinant(cs$sigma)$modulus)), tol)
  sg <- solve(cs$sigma, par$gamma)
  expect_lte(block_err(fac$gsg, sum(par$gamma * sg)), tol)
  if (backend == "cpu") expect_null(fac$launches) else
    expect_identical(fac$launches, 2L)
  expect_identical(dim(fac$sxx_proj), c(ncol(cs$x), ncol(par$loadings)))
}

test_that("factor_estep() equals the full E-step with Sigma = F F' + D", {
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (d in c(1L, 2L, 3L, 7L, 20L, 50L)) {
      for (r in seq.int(0L, min(5L, d - 1L))) {
        cs <- factor_case(d, r, family)
        expect_matches_full(cs)
        w <- runif(nrow(cs$x), 0, 3)
        w[c(2L, 9L)] <- 0
        expect_matches_full(cs, weights = w)
      }
    }
  }
})

test_that("factor_estep() on a GPU equals the full E-step", {
  skip_if(!ghmix_info()$cuda || nrow(ghmix_info()$devices) == 0L,
          "no usable CUDA device")
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (dr in list(c(1L, 0L), c(3L, 1L), c(20L, 5L), c(50L, 3L))) {
      cs <- factor_case(dr[1L], dr[2L], family, n = 700L)
      cs$x[5L, 1L] <- NA
      expect_matches_full(cs, backend = "cuda")
      w <- runif(nrow(cs$x), 0, 3)
      w[c(2L, 9L)] <- 0
      expect_matches_full(cs, weights = w, backend = "cuda")
    }
  }
})

test_that("factor_estep() equals a plain-R computation", {
  for (family in c("gh", "nig")) {
    cs <- factor_case(6L, 2L, family, n = 25L)
    par <- cs$par
    d <- ncol(cs$x)
    u <- sweep(cs$x, 2L, par$mu)
    si <- solve(cs$sigma)
    q <- rowSums((u %*% si) * u)
    bb <- c(u %*% si %*% par$gamma)
    gsg <- sum(par$gamma * (si %*% par$gamma))
    lognorm <- function(p, a, b) {
      (p / 2) * log(a / b) - log(2) - log(besselK(sqrt(a * b), p))
    }
    logdet <- c(determinant(cs$sigma)$modulus)
    pq <- par$p - d / 2
    aq <- par$a + gsg
    bq <- par$b + q
    loglik <- lognorm(par$p, par$a, par$b) - d / 2 * log(2 * pi) -
      logdet / 2 + bb - lognorm(pq, aq, bq)
    eta <- gig_expectation(rep(pq, length(q)), rep(aq, length(q)), bq)
    e_inv <- eta[, "E_inv_y"]
    fac <- factor_estep(cs$x, par, mix_what_rows(), rows = TRUE)
    tol <- 1e-10
    expect_lte(block_err(fac$rows[, 1L], loglik), tol)
    expect_lte(block_err(fac$rows[, 2L], e_inv), tol)
    expect_lte(block_err(fac$rows[, 3L], eta[, "E_y"]), tol)
    expect_lte(block_err(fac$rows[, 4L], eta[, "E_log_y"]), tol)
    expect_lte(block_err(fac$loglik, sum(loglik)), tol)
    expect_lte(block_err(fac$s_inv, sum(e_inv)), tol)
    expect_lte(block_err(fac$s_y, sum(eta[, "E_y"])), tol)
    expect_lte(block_err(fac$s_log, sum(eta[, "E_log_y"])), tol)
    expect_lte(block_err(fac$sx, colSums(u)), tol)
    expect_lte(block_err(fac$sxw, colSums(e_inv * u)), tol)
    s <- crossprod(u, e_inv * u)
    expect_lte(block_err(fac$sxx_diag, diag(s)), tol)
    proj <- t(par$loadings) %*% si
    expect_lte(block_err(fac$proj, proj), tol)
    expect_lte(block_err(fac$sxx_proj, s %*% t(proj)), tol)
    expect_lte(abs(fac$logdet - logdet), tol)
    expect_lte(block_err(fac$gsg, gsg), tol)
    expect_identical(fac$n, nrow(cs$x) + 0)
  }
})

test_that("factor_estep() is NULL for unusable parameters", {
  cs <- factor_case(5L, 2L, "gh", n = 10L)
  bad <- function(field, value) {
    par <- cs$par
    par[[field]] <- value
    expect_null(factor_estep(cs$x, par, cs$what), label = field)
  }
  bad("uniquenesses", replace(cs$par$uniquenesses, 2L, 0))
  bad("uniquenesses", replace(cs$par$uniquenesses, 2L, -1))
  bad("uniquenesses", replace(cs$par$uniquenesses, 2L, NA))
  bad("uniquenesses", replace(cs$par$uniquenesses, 2L, Inf))
  bad("loadings", replace(cs$par$loadings, 3L, NaN))
  bad("loadings", replace(cs$par$loadings, 3L, Inf))
  bad("mu", replace(cs$par$mu, 1L, Inf))
  bad("gamma", replace(cs$par$gamma, 1L, NA))
  bad("a", 0) # p > 0 with a = 0: not a GIG
  bad("b", -1)
  # M = I + F' D^-1 F overflows
  bad("uniquenesses", replace(cs$par$uniquenesses, 2L, 1e-320))
  expect_false(is.null(factor_estep(cs$x, cs$par, cs$what)))
})

test_that("factor_estep() gives the same bits on 1 and 2 threads", {
  cs <- factor_case(30L, 3L, "gh", n = 5000L)
  w <- runif(5000L)
  for (weights in list(NULL, w)) {
    one <- factor_estep(cs$x, cs$par, cs$what, weights, rows = TRUE,
                        threads = 1L)
    two <- factor_estep(cs$x, cs$par, cs$what, weights, rows = TRUE,
                        threads = 2L)
    expect_identical(one, two)
  }
})

test_that("a row of weight 0 adds nothing, not even to n_bad", {
  cs <- factor_case(4L, 1L, "vg", n = 20L)
  cs$x[3L, ] <- cs$par$mu # the variance-gamma singularity: a bad row
  w <- rep(1, 20L)
  expect_identical(factor_estep(cs$x, cs$par, cs$what)$n_bad, 1)
  w[3L] <- 0
  st <- factor_estep(cs$x, cs$par, cs$what, weights = w)
  expect_identical(st$n_bad, 0)
  expect_identical(st$n, 19)
})

# A field of /proc/self/status in kB (VmHWM: the peak resident memory),
# NA where there is none.
proc_status_kb <- function(field) {
  if (!file.exists("/proc/self/status")) {
    return(NA_real_)
  }
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"),
               value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}

# Resets VmHWM to the current resident memory (Linux >= 4.0); FALSE where
# that is not possible.
reset_peak_rss <- function() {
  tryCatch({
    writeLines("5", "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
}

test_that("the E-step at d = 5000, n = 2000, r = 5 needs no d x d matrix", {
  skip_on_cran()
  skip_if(is.na(proc_status_kb("VmHWM")), "no /proc/self/status")
  set.seed(5)
  d <- 5000L
  n <- 2000L
  r <- 5L
  f <- matrix(rnorm(d * r, sd = 0.3), d, r)
  x <- matrix(rnorm(n * d), n, d)
  par <- list(mu = numeric(d), gamma = rep(0.01, d), loadings = f,
              uniquenesses = rep(1, d), p = -1, a = 1, b = 1)
  gc()
  reset <- reset_peak_rss()
  before <- proc_status_kb(if (reset) "VmRSS" else "VmHWM")
  st <- factor_estep(x, par, mix_what("gh"), threads = 2L)
  after <- proc_status_kb("VmHWM")
  expect_identical(st$n, n + 0)
  expect_identical(dim(st$sxx_proj), c(d, r))
  # x is 80 MB and one d x d matrix would be 200 MB; the E-step's buffers
  # are O(slots d r + threads block d), about 12 MB here
  expect_lt((after - before) / 1024, 64)
  expect_lt(after / 1024, 1024)
})
