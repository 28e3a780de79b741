# Penalised factor-analytic fits (`shrink =` with `factors = r`,
# R/penalty.R): weight 0 is the unpenalised factor fit, the reported
# objective against a dense base-R computation (Sigma = F F' + D, its log
# det and solve, the GH density by besselK, the prior's formula of
# R/shrink.R), the objective's trace never decreases, a large weight gives
# Sigma of the target's shape, d close to n, the weight rules, and bad
# input.

# n rows of a factor NIG (r factors, d columns) with a skewness gradient.
fshrink_data <- function(n, d, r, seed, a = 2, f_scale = 1) {
  set.seed(seed)
  f <- matrix(rnorm(d * r), d, r) * f_scale
  dd <- runif(d, 0.5, 1.5)
  y <- rgig(n, p = -0.5, a = a, b = a)
  z <- matrix(rnorm(n * r), n) %*% t(f) +
    matrix(rnorm(n * d), n) * rep(sqrt(dd), each = n)
  x <- 0.1 + outer(y, seq(-0.2, 0.2, length.out = d)) + sqrt(y) * z
  colnames(x) <- paste0("v", seq_len(d))
  x
}

fshrink_fitters <- list(nig = fit_nig, gh = fit_gh, vg = fit_vg,
                        skewt = fit_skewt)

fshrink_sigma <- function(fit) {
  tcrossprod(fit$loadings) + diag(fit$uniquenesses, fit$d)
}

# The GH log density (a, b > 0) of the rows x in base R: the normal
# variance-mean mixture integrated over Y ~ GIG(p, a, b) (DESIGN.md
# section 2), with besselK.
fshrink_log_density <- function(x, par, sigma) {
  d <- ncol(x)
  u <- t(x) - par$mu
  si <- solve(sigma)
  q <- colSums(u * (si %*% u))
  g <- sum(par$gamma * (si %*% par$gamma))
  ug <- colSums(u * drop(si %*% par$gamma))
  nu <- par$p - d / 2
  big_a <- par$a + g
  big_b <- par$b + q
  w <- sqrt(big_a * big_b)
  w0 <- sqrt(par$a * par$b)
  log_k <- function(z, v) log(besselK(z, abs(v), expon.scaled = TRUE)) - z
  (par$p / 2) * log(par$a / par$b) - d / 2 * log(2 * pi) -
    as.numeric(determinant(sigma)$modulus) / 2 - log_k(w0, par$p) + ug +
    log_k(w, nu) + (nu / 2) * log(big_b / big_a)
}

# loglik + P*(Sigma) of R/shrink.R's header, densely.
fshrink_objective <- function(fit, x) {
  s <- fshrink_sigma(fit)
  tt <- fit$shrink$target
  if (is.null(dim(tt))) tt <- diag(tt, length(tt))
  d <- ncol(x)
  tr <- sum(diag(solve(s, tt)))
  pen <- -fit$shrink$weight / 2 *
    (as.numeric(determinant(s)$modulus) + d * log(tr / d) + d)
  sum(fshrink_log_density(x, fit$parameters, s)) + pen
}

test_that("weight 0 is the unpenalised factor fit, to the bit", {
  x <- fshrink_data(300, 6, 2, seed = 1)
  for (fam in names(fshrink_fitters)) {
    f <- fshrink_fitters[[fam]]
    plain <- suppressWarnings(f(x, factors = 2))
    zero <- suppressWarnings(f(x, factors = 2, shrink = 0))
    expect_identical(zero$parameters, plain$parameters)
    expect_identical(zero$loglik, plain$loglik)
    expect_identical(zero$iterations, plain$iterations)
    expect_identical(zero$objective, zero$loglik)
    expect_identical(zero$trace$objective, plain$trace$loglik)
    expect_identical(zero$shrink$weight, 0)
    expect_null(plain$objective)
  }
})

test_that("the objective is the dense base-R loglik + P*", {
  x <- fshrink_data(400, 6, 2, seed = 6)
  d <- ncol(x)
  user <- 0.5^abs(outer(1:d, 1:d, "-"))
  cases <- list(
    list(r = 2, shrink = 30), list(r = d - 1L, shrink = 30),
    list(r = 2, shrink = ghmix_shrink("identity", 80)),
    list(r = d - 1L, shrink = ghmix_shrink("identity", 80)),
    list(r = 2, shrink = ghmix_shrink(user, 50)),
    list(r = 1, shrink = ghmix_shrink())
  )
  for (cs in cases) {
    for (f in list(fit_nig, fit_gh)) {
      fit <- suppressWarnings(f(x, factors = cs$r, shrink = cs$shrink))
      expect_equal(fit$objective, fshrink_objective(fit, x),
                   tolerance = 1e-10)
      expect_equal(fit$loglik,
                   sum(fshrink_log_density(x, fit$parameters,
                                           fshrink_sigma(fit))),
                   tolerance = 1e-10)
      expect_true(fit$converged)
    }
  }
  # the targets as kept: the sample variances, their mean, the matrix
  fd <- fit_nig(x, factors = 2, shrink = 10)
  expect_equal(fd$shrink$target, unname(apply(x, 2L, stats::var)),
               tolerance = 1e-12)
  fi <- fit_nig(x, factors = 2, shrink = ghmix_shrink("identity", 10))
  expect_equal(fi$shrink$target, rep(mean(apply(x, 2L, stats::var)), d),
               tolerance = 1e-12)
  fm <- fit_nig(x, factors = 2, shrink = ghmix_shrink(user, 10))
  expect_identical(fm$shrink$target, user)
  expect_identical(fm$shrink$type, "matrix")
  # free of the gauge; the penalised fit has the higher objective, the
  # unpenalised the higher log-likelihood
  det_fit <- fit_nig(x, factors = 2, shrink = 10, gauge = "det")
  expect_equal(det_fit$objective, fd$objective, tolerance = 1e-10)
  plain <- fit_nig(x, factors = 2)
  plain$shrink <- fd$shrink
  expect_gt(fd$objective, fshrink_objective(plain, x))
  expect_gt(plain$loglik, fd$loglik)
})

test_that("the penalised objective never decreases, accelerated or not", {
  x <- fshrink_data(300, 6, 2, seed = 3)
  for (fam in names(fshrink_fitters)) {
    for (acc in c(TRUE, FALSE)) {
      for (sh in list(ghmix_shrink(), ghmix_shrink("identity", 200))) {
        fit <- suppressWarnings(fshrink_fitters[[fam]](
          x, factors = 2, shrink = sh,
          control = ghmix_control(accelerate = acc)
        ))
        tr <- fit$trace$objective
        expect_true(all(is.finite(tr)))
        expect_gte(min(diff(tr)), -1e-12 * abs(fit$objective))
        expect_identical(fit$objective, tr[[length(tr)]])
        expect_identical(fit$loglik, fit$trace$loglik[[length(tr)]])
      }
    }
  }
})

test_that("a very large weight gives Sigma of the target's shape", {
  x <- fshrink_data(300, 6, 2, seed = 4)
  d <- ncol(x)
  for (fam in c("nig", "gh")) {
    f <- fshrink_fitters[[fam]]
    big <- suppressWarnings(f(x, factors = 2, shrink = 1e10))
    # F F' becomes diagonal (the loadings' correlations vanish; a factor
    # may still load on one column alone, which a diagonal Sigma allows)
    s <- fshrink_sigma(big)
    expect_lt(max(abs(cov2cor(s) - diag(d))), 1e-6)
    v <- diag(s)
    expect_equal(unname(v / v[[1L]]),
                 unname(apply(x, 2L, stats::var) / stats::var(x[, 1L])),
                 tolerance = 1e-6)
    sph <- suppressWarnings(f(x, factors = 2,
                              shrink = ghmix_shrink("identity", 1e10)))
    s <- fshrink_sigma(sph)
    expect_lt(max(abs(s / mean(diag(s)) - diag(d))), 1e-6)
  }
  plain <- fit_nig(x, factors = 2)
  expect_gt(max(abs(cov2cor(fshrink_sigma(plain)) - diag(d))), 0.1)
})

test_that("d close to n: the penalised factor fit is well conditioned", {
  # loadings of scale 0.5: the truth's correlation matrix has condition
  # number 34.4, the unpenalised fit's 44.3
  x <- fshrink_data(60, 50, 3, seed = 11, f_scale = 0.5)
  kappa_of <- function(fit) {
    ev <- eigen(cov2cor(fshrink_sigma(fit)), symmetric = TRUE,
                only.values = TRUE)$values
    max(ev) / min(ev)
  }
  plain <- suppressWarnings(fit_nig(x, factors = 3, symmetric = TRUE))
  pen <- fit_nig(x, factors = 3, symmetric = TRUE, shrink = ghmix_shrink())
  expect_true(pen$converged)
  expect_gt(pen$shrink$intensity, 0.1)
  expect_true(plain$converged)
  expect_gt(kappa_of(plain), 40)
  expect_lt(kappa_of(pen), kappa_of(plain) / 2)
  expect_lt(kappa_of(pen), 20)
  u_ratio <- function(fit) min(fit$uniquenesses / apply(x, 2L, stats::var))
  expect_gt(u_ratio(pen), 1.5 * u_ratio(plain))
  expect_gte(min(diff(pen$trace$objective)), -1e-12 * abs(pen$objective))
})

test_that("the Ledoit-Wolf rule of a factor fit, without the d x d S", {
  x <- fshrink_data(200, 7, 2, seed = 5)
  n <- nrow(x)
  ctl <- ghmix_control(max_iter = 1L)
  rule <- function(...) {
    suppressWarnings(fit_nig(x, factors = 2, control = ctl, ...))$shrink
  }
  for (tgt in c("identity", "diagonal")) {
    sh <- rule(shrink = ghmix_shrink(tgt))
    rho <- lw_direct(x, tgt)
    expect_equal(sh$intensity, rho, tolerance = 1e-10)
    expect_equal(sh$weight, n * rho / (1 - rho), tolerance = 1e-10)
    expect_identical(sh$rule, "ledoit-wolf")
    # the full-Sigma fit's rule gives the same intensity
    full <- suppressWarnings(fit_nig(x, control = ctl,
                                     shrink = ghmix_shrink(tgt)))$shrink
    expect_equal(sh$intensity, full$intensity, tolerance = 1e-12)
  }
  # a user matrix: against the full-Sigma fit's rule
  user <- 0.3^abs(outer(1:7, 1:7, "-"))
  expect_equal(rule(shrink = ghmix_shrink(user))$intensity,
               suppressWarnings(fit_nig(x, control = ctl,
                                        shrink = ghmix_shrink(user))
               )$shrink$intensity,
               tolerance = 1e-12)
  # weights: the rows replicated
  set.seed(3)
  w <- sample(0:3, n, replace = TRUE)
  sw <- rule(weights = w, shrink = ghmix_shrink())
  rho_rep <- lw_direct(x[rep(seq_len(n), w), ], "diagonal")
  expect_equal(sw$intensity, rho_rep, tolerance = 1e-10)
  expect_equal(sw$weight, sum(w) * rho_rep / (1 - rho_rep),
               tolerance = 1e-10)
  # the sum of squares of S by blocks of columns
  y <- matrix(rnorm(50 * 9), 50)
  expect_equal(ghmix:::factor_frob2(y, w[1:50], cells = 20),
               sum(crossprod(y * w[1:50], y)^2), tolerance = 1e-13)
})

test_that("weight = \"cv\" with factors: fold fits of the factor model", {
  n <- 100
  x <- fshrink_data(n, 5, 1, seed = 7)
  fit <- suppressWarnings(fit_nig(x, factors = 1, symmetric = TRUE,
                                  shrink = ghmix_shrink(weight = "cv")))
  cv <- fit$shrink$cv
  expect_identical(fit$shrink$rule, "cv")
  rho <- cv$intensity[which.max(cv$cv_loglik)]
  expect_identical(fit$shrink$intensity, rho)
  expect_equal(fit$shrink$weight, n * rho / (1 - rho), tolerance = 1e-14)
  # one row of the table, fold by fold with factor fits
  fold <- (seq_len(n) - 1L) %% 5L + 1L
  held <- 0
  for (f in 1:5) {
    train <- fold != f
    k <- sum(train) * 0.2 / 0.8
    ff <- suppressWarnings(fit_nig(x[train, ], factors = 1, symmetric = TRUE,
                                   shrink = k))
    held <- held + sum(fshrink_log_density(x[!train, ], ff$parameters,
                                           fshrink_sigma(ff)))
  }
  expect_equal(cv$cv_loglik[cv$intensity == 0.2], held, tolerance = 1e-10)
  expect_output(print(fit), "cross-validated")
})

test_that("weights: a penalised factor fit of replicated rows", {
  x <- fshrink_data(150, 5, 1, seed = 12)
  set.seed(13)
  w <- sample(1:3, nrow(x), replace = TRUE)
  rep_x <- x[rep(seq_len(nrow(x)), w), ]
  for (sh in list(20, ghmix_shrink())) {
    fw <- fit_nig(x, factors = 1, weights = w, shrink = sh)
    fr <- suppressWarnings(fit_nig(rep_x, factors = 1, shrink = sh))
    expect_equal(fw$shrink$weight, fr$shrink$weight, tolerance = 1e-12)
    expect_equal(fw$shrink$target, fr$shrink$target, tolerance = 1e-12)
    expect_equal(fw$objective, fr$objective, tolerance = 1e-9)
    expect_equal(fshrink_sigma(fw), fshrink_sigma(fr), tolerance = 1e-6)
    expect_equal(fw$parameters$mu, fr$parameters$mu, tolerance = 1e-6)
  }
})

test_that("d = 1 (r = 0): P* is a constant, the fit the unpenalised one", {
  x <- fshrink_data(200, 2, 1, seed = 10)[, 1L]
  plain <- fit_nig(x, factors = 0)
  given <- fit_nig(x, factors = 0, shrink = 40)
  expect_identical(given$parameters, plain$parameters)
  expect_identical(given$iterations, plain$iterations)
  # P* = -(k / 2) (log T + 1) with T the sample variance
  expect_equal(given$objective - given$loglik,
               -20 * (log(stats::var(x)) + 1), tolerance = 1e-12)
  rule <- fit_nig(x, factors = 0, shrink = ghmix_shrink())
  expect_identical(rule$shrink$intensity, 0)
  expect_identical(rule$shrink$weight, 0)
  expect_identical(rule$parameters, plain$parameters)
})

test_that("print, summary and vcov of a penalised factor fit", {
  fit <- fit_nig(fshrink_data(300, 6, 2, seed = 8), factors = 2,
                 shrink = ghmix_shrink())
  expect_output(print(fit), "Penalised fit \\(shrink\\): target diagonal")
  expect_output(print(fit), "2 factors")
  s <- summary(fit)
  expect_true(all(is.na(s$coefficients[, "Std. Error"])))
  expect_output(print(s), "a penalised fit: no standard errors")
  expect_output(print(s), "objective")
  expect_error(vcov(fit), class = "ghmix_error_shrink")
  expect_identical(logLik(fit)[[1L]], fit$loglik)
})

test_that("bad shrink input with factors is a classed error", {
  x <- fshrink_data(100, 5, 1, seed = 9)
  d <- ncol(x)
  bad <- list(
    "foo", -1, NA_real_, Inf, c(1, 2), TRUE, matrix(1, 2, 2), diag(d + 1),
    -diag(d), ghmix_shrink(diag(d - 1), 3), ghmix_shrink(diag(2), 3)
  )
  for (b in bad) {
    expect_error(fit_nig(x, factors = 2, shrink = b), "shrink",
                 class = "ghmix_error_shrink")
  }
  expect_error(fit_nig(x, factors = 2, shrink = ghmix_shrink(diag(d + 1))),
               "5 x 5", class = "ghmix_error_shrink")
  # the errors of factor fits stay theirs
  expect_error(fit_nig(x, factors = d, shrink = 10),
               class = "ghmix_error_argument")
})
