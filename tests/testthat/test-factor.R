# Factor-analytic GH: Sigma = F F' + diag(D) (issue 15).

factor_sub <- function(family) {
  switch(family,
    gh = list(p = 1.3, a = 2, b = 0.7),
    nig = list(p = -0.5, a = 2, b = 1),
    vg = list(p = 2, a = 3, b = 0),
    skewt = list(p = -3, a = 0, b = 4)
  )
}

factor_random_par <- function(d, r, family) {
  c(list(mu = stats::rnorm(d) * 0.1, gamma = stats::rnorm(d) * 0.2,
         loadings = matrix(stats::rnorm(d * r), d, r),
         uniquenesses = stats::runif(d, 0.2, 2)),
    factor_sub(family))
}

test_that("the factor density equals the full density (every family)", {
  set.seed(2)
  worst <- 0
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (d in c(1:6, 10, 20, 35, 50)) {
      for (r in 0:min(5, d - 1)) {
        par <- factor_random_par(d, r, family)
        s <- factor_cov(par$loadings, par$uniquenesses)
        x <- rgh(40, mu = par$mu, gamma = 2 * par$gamma, sigma = s,
                 p = par$p, a = par$a, b = par$b)
        lf <- dgh(x, par$mu, par$gamma, s, par$p, par$a, par$b, log = TRUE)
        ls <- dgh(x, par$mu, par$gamma, as.matrix(s), par$p, par$a, par$b,
                  log = TRUE)
        worst <- max(worst, abs(lf - ls) / pmax(1, abs(ls)))
      }
    }
  }
  expect_lt(worst, 1e-12)
})

test_that("factor_cov() describes F F' + diag(D) and refuses bad input", {
  f <- cbind(c(1, 0.5, 0.2), c(0, 1, -1))
  s <- factor_cov(f, c(1, 2, 3))
  expect_s3_class(s, "ghmix_factor_cov")
  expect_identical(dim(s), c(3L, 3L))
  expect_equal(as.matrix(s), tcrossprod(f) + diag(c(1, 2, 3)))
  expect_output(print(s), "2 factors")
  expect_equal(as.matrix(factor_cov(matrix(0, 3, 0), 1:3)), diag(1:3))
  err <- "ghmix_error_argument"
  expect_error(factor_cov(matrix(1, 3, 3), rep(1, 3)), class = err,
               regexp = "loadings")
  expect_error(factor_cov(f, c(1, 2)), class = err, regexp = "uniquenesses")
  expect_error(factor_cov(f, c(1, 0, 2)), class = err,
               regexp = "uniquenesses")
  expect_error(factor_cov(f, c(1, NA, 2)), class = err,
               regexp = "uniquenesses")
  expect_error(factor_cov(f * Inf, 1:3), class = err, regexp = "loadings")
  expect_error(factor_cov("a", 1:3), class = err, regexp = "loadings")
  expect_error(dgh(matrix(0, 2, 4), mu = rep(0, 4), sigma = s), class = err,
               regexp = "sigma")
  expect_error(rgh(2, mu = rep(0, 4), sigma = s), class = err,
               regexp = "mu")
})

test_that("dgh() with a factor_cov(): rows that are not finite, invalid GIG", {
  s <- factor_cov(matrix(1, 3, 1), rep(1, 3))
  x <- rbind(c(NA, 1, 1), c(Inf, 1, 1), c(0, 0, 0), c(NaN, 0, 0))
  out <- dgh(x, mu = rep(0, 3), sigma = s)
  ref <- dgh(x, mu = rep(0, 3), sigma = as.matrix(s))
  expect_identical(is.na(out), is.na(ref))
  expect_equal(out[2:3], ref[2:3], tolerance = 1e-12)
  expect_warning(dgh(x, mu = rep(0, 3), sigma = s, b = -1), "NaN")
})

test_that("rgh() with a factor_cov() draws the factor model", {
  set.seed(3)
  f <- cbind(c(1, 0.5, 0.2, 0), c(0, 1, -1, 0.5))
  s <- factor_cov(f, c(0.5, 0.4, 0.3, 0.2))
  x <- rgh(2e4, mu = 1:4, gamma = c(0.1, 0, -0.1, 0), sigma = s,
           p = -0.5, a = 1, b = 1)
  expect_identical(dim(x), c(2e4L, 4L))
  # E X = mu + gamma E Y, Cov X = E Y Sigma + Var Y gamma gamma'
  ey <- gig_mean(-0.5, 1, 1)
  vy <- gig_var(-0.5, 1, 1)
  g <- c(0.1, 0, -0.1, 0)
  expect_equal(colMeans(x), 1:4 + g * ey, tolerance = 0.05)
  expect_equal(stats::cov(x), ey * as.matrix(s) + vy * tcrossprod(g),
               tolerance = 0.05)
})

test_that("factor_estep_r equals mix_estep with the formed Sigma", {
  set.seed(1)
  d <- 6
  n <- 300
  x <- matrix(stats::rnorm(n * d), n, d)
  w <- stats::runif(n)
  w[1:5] <- 0
  what <- ghmix:::mix_what_rows()
  for (family in c("gh", "nig", "vg", "skewt")) {
    for (r in c(0, 2)) {
      par <- factor_random_par(d, r, family)
      fe <- ghmix:::factor_estep_r(x, par, what, weights = w, rows = TRUE)
      pf <- c(par[c("mu", "gamma")],
              list(sigma = tcrossprod(par$loadings) + diag(par$uniquenesses)),
              par[c("p", "a", "b")])
      me <- ghmix:::mix_estep(ghmix:::mix_engine_cpu(x, 1L, w), pf, what,
                              rows = TRUE)
      for (nm in c("n", "tau", "loglik", "s_inv", "s_y", "s_log",
                   "s_inv_dev", "s_y_dev", "n_bad", "sx", "sxw", "rows")) {
        expect_equal(fe[[nm]], me[[nm]], tolerance = 1e-12,
                     ignore_attr = TRUE, info = paste(family, r, nm))
      }
      expect_equal(fe$sxx_diag, diag(me$sxx), tolerance = 1e-12)
      if (r > 0) {
        expect_equal(fe$sxx_proj, me$sxx %*% t(fe$proj), tolerance = 1e-12)
        sig_inv <- solve(pf$sigma)
        expect_equal(fe$proj, t(par$loadings) %*% sig_inv, tolerance = 1e-12)
      }
      expect_equal(fe$logdet, ghmix:::logdet(pf$sigma), tolerance = 1e-12)
      expect_equal(fe$gsg, sum(par$gamma * solve(pf$sigma, par$gamma)),
                   tolerance = 1e-12)
    }
  }
  # not usable: NULL
  par <- factor_random_par(d, 2, "nig")
  bad <- par
  bad$uniquenesses[2] <- 0
  expect_null(ghmix:::factor_estep_r(x, bad, what))
  bad <- par
  bad$a <- -1
  expect_null(ghmix:::factor_estep_r(x, bad, what))
  # the stand-in factor_estep() is the R one until the C E-step is merged
  expect_equal(ghmix:::factor_estep(x, par, what)$loglik,
               ghmix:::factor_estep_r(x, par, what)$loglik)
})
