# Penalised (shrinkage) EM (`shrink =`, ghmix_shrink(), R/shrink.R): weight
# 0 is the unpenalised fit, a large weight gives the target's shape, the
# penalised objective never decreases, d close to n gives a well-conditioned
# Sigma, the Ledoit-Wolf intensity against the formula written out row by
# row, and bad input is a classed error naming `shrink`.

# Daily log returns without repeated rows (ties make the GH and VG
# likelihoods unbounded).
shrink_data <- function(n = 600) {
  r <- diff(log(EuStockMarkets))
  r[!duplicated(r), ][seq_len(n), ]
}

shrink_fitters <- list(nig = fit_nig, gh = fit_gh, vg = fit_vg,
                       skewt = fit_skewt)

shrink_fit <- function(f, ...) suppressWarnings(f(...))

# n rows of a symmetric NIG with equicorrelated Sigma (correlation rho) and
# mixing GIG(-1/2, a, a).
shrink_equicorrelated <- function(n, d, rho, a, seed) {
  set.seed(seed)
  y <- rgig(n, p = -0.5, a = a, b = a)
  sqrt(y) * (matrix(rnorm(n * d), n) %*% chol((1 - rho) * diag(d) + rho))
}

test_that("weight 0 is the unpenalised fit, to the bit", {
  x <- shrink_data()
  for (fam in names(shrink_fitters)) {
    f <- shrink_fitters[[fam]]
    plain <- shrink_fit(f, x)
    zero <- shrink_fit(f, x, shrink = 0)
    expect_identical(zero$parameters, plain$parameters)
    expect_identical(zero$loglik, plain$loglik)
    expect_identical(zero$iterations, plain$iterations)
    expect_identical(zero$objective, zero$loglik)
    expect_identical(zero$trace$objective, plain$trace$loglik)
    expect_identical(zero$shrink$weight, 0)
    expect_null(plain$objective)
    expect_null(plain$shrink)
    expect_null(plain$trace$objective)
  }
})

test_that("a very large weight gives Sigma of the target's shape", {
  x <- shrink_data()
  d <- ncol(x)
  for (fam in names(shrink_fitters)) {
    f <- shrink_fitters[[fam]]
    diag_fit <- shrink_fit(f, x, shrink = 1e10)
    r <- cov2cor(diag_fit$parameters$sigma)
    expect_lt(max(abs(r - diag(d))), 1e-6)
    # the variances keep the proportions of the sample variances
    v <- diag(diag_fit$parameters$sigma)
    expect_equal(v / v[[1L]], diag(stats::cov(x)) / stats::var(x[, 1L]),
                 tolerance = 1e-6)
    sph <- shrink_fit(f, x, shrink = ghmix_shrink("identity", 1e10))
    s <- sph$parameters$sigma
    expect_lt(max(abs(s / mean(diag(s)) - diag(d))), 1e-6)
  }
  target <- 0.5^abs(outer(1:d, 1:d, "-")) * 1e-4
  own <- fit_nig(x, shrink = ghmix_shrink(target, 1e10))
  s <- own$parameters$sigma
  expect_lt(max(abs(s / s[1, 1] - target / target[1, 1])), 1e-6)
  expect_identical(own$shrink$type, "matrix")
  expect_identical(own$shrink$target, target)
})

test_that("the penalised objective never decreases, accelerated or not", {
  x <- shrink_data()
  for (fam in names(shrink_fitters)) {
    for (acc in c(TRUE, FALSE)) {
      for (sh in list(ghmix_shrink(), ghmix_shrink("identity", 200))) {
        fit <- shrink_fit(shrink_fitters[[fam]], x, shrink = sh,
                          control = ghmix_control(accelerate = acc))
        tr <- fit$trace$objective
        expect_true(all(is.finite(tr)))
        expect_gte(min(diff(tr)), -1e-12 * abs(fit$objective))
        expect_identical(fit$objective, tr[[length(tr)]])
        expect_identical(fit$loglik, fit$trace$loglik[[length(tr)]])
        expect_true(fit$converged)
      }
    }
  }
})

test_that("the objective is the log-likelihood plus P*", {
  x <- shrink_data()
  fit <- fit_nig(x, shrink = ghmix_shrink("identity", 30))
  s <- fit$parameters$sigma
  d <- ncol(x)
  tr <- sum(diag(solve(s, fit$shrink$target)))
  pen <- -15 * (determinant(s)$modulus + d * log(tr / d) + d)
  expect_equal(fit$objective, fit$loglik + as.numeric(pen),
               tolerance = 1e-12)
  # free of the gauge
  det_fit <- fit_nig(x, shrink = ghmix_shrink("identity", 30),
                     gauge = "det")
  expect_equal(det_fit$objective, fit$objective, tolerance = 1e-10)
  # the penalised fit has the higher objective, the unpenalised the higher
  # log-likelihood
  plain <- fit_nig(x)
  s0 <- plain$parameters$sigma
  tr0 <- sum(diag(solve(s0, fit$shrink$target)))
  obj0 <- plain$loglik -
    15 * (as.numeric(determinant(s0)$modulus) + d * log(tr0 / d) + d)
  expect_gt(fit$objective, obj0)
  expect_gt(plain$loglik, fit$loglik)
})

test_that("d close to n: the penalised Sigma is well conditioned", {
  x <- shrink_equicorrelated(60, 50, 0.3, 1, seed = 11)
  plain <- shrink_fit(fit_nig, x, symmetric = TRUE)
  pen <- shrink_fit(fit_nig, x, symmetric = TRUE, shrink = ghmix_shrink())
  kappa_of <- function(f) {
    ev <- eigen(cov2cor(f$parameters$sigma), only.values = TRUE)$values
    max(ev) / min(ev)
  }
  # the truth's condition number is 1 + d rho / (1 - rho) = 22.4; the
  # unpenalised fit's is in the thousands
  expect_gt(kappa_of(plain), 1000)
  expect_lt(kappa_of(pen), 100)
  expect_gt(pen$shrink$intensity, 0.1)
  expect_true(all(diff(pen$trace$objective) >= -1e-12 * abs(pen$objective)))
})

test_that("the Ledoit-Wolf intensity and weight of the rule", {
  x <- shrink_data(300)
  n <- nrow(x)
  for (tgt in c("identity", "diagonal")) {
    fit <- fit_nig(x, shrink = ghmix_shrink(tgt))
    rho <- lw_direct(x, tgt)
    expect_equal(fit$shrink$intensity, rho, tolerance = 1e-10)
    expect_equal(fit$shrink$weight, n * rho / (1 - rho), tolerance = 1e-10)
    expect_identical(fit$shrink$rule, "ledoit-wolf")
  }
  # weights: the rows replicated
  set.seed(3)
  w <- sample(0:3, n, replace = TRUE)
  fw <- fit_nig(x, weights = w, shrink = ghmix_shrink())
  rho_rep <- lw_direct(x[rep(seq_len(n), w), ], "diagonal")
  expect_equal(fw$shrink$intensity, rho_rep, tolerance = 1e-10)
  expect_equal(fw$shrink$weight, sum(w) * rho_rep / (1 - rho_rep),
               tolerance = 1e-10)
  # the diagonal rule is free of the columns' units
  xs <- sweep(x, 2L, c(1, 10, 1e3, 0.1), "*")
  expect_equal(fit_nig(xs, shrink = ghmix_shrink())$shrink$intensity,
               lw_direct(x, "diagonal"), tolerance = 1e-10)
})

test_that("the rule's intensity against simulated truths", {
  # (the rule is set before the EM: one iteration of these normal rows)
  rule <- function(x, target) {
    ctl <- ghmix_control(max_iter = 1L)
    suppressWarnings(fit_nig(x, shrink = target, control = ctl))$shrink
  }
  set.seed(4)
  # truth = the target: the sample covariance is all noise, rho near 1
  white <- matrix(rnorm(200 * 10), 200)
  expect_gt(rule(white, "identity")$intensity, 0.9)
  # strong correlation and many rows: little shrinkage
  z <- matrix(rnorm(20000 * 4), 20000) %*% chol(0.2 * diag(4) + 0.8)
  expect_lt(rule(z, "diagonal")$intensity, 0.01)
})

test_that("standardised data: the objective moves with the units", {
  x <- shrink_data(400)
  d <- ncol(x)
  f1 <- fit_nig(x, shrink = 25)
  big <- 1e150
  f2 <- suppressWarnings(fit_nig(x * big, shrink = 25))
  expect_false(is.null(f2$scaling))
  n <- nrow(x)
  expect_equal(f2$objective, f1$objective - (n + 25) * d * log(big),
               tolerance = 1e-9)
  expect_equal(f2$parameters$sigma / big^2, f1$parameters$sigma,
               tolerance = 1e-6)
  expect_equal(f2$shrink$target / big^2, f1$shrink$target, tolerance = 1e-12)
})

test_that("the family fits, fixed parameters and d = 1", {
  x <- shrink_data()
  for (f in list(fit_hyperbolic, fit_student)) {
    fit <- shrink_fit(f, x, shrink = ghmix_shrink(weight = 40))
    expect_identical(fit$shrink$weight, 40)
    expect_gte(min(diff(fit$trace$objective)), -1e-12 * abs(fit$objective))
  }
  nig <- fit_nig(x, shrink = 40)
  gh <- shrink_fit(fit_gh, x, shrink = 40)
  expect_gte(gh$objective, nig$objective - 1e-9 * abs(nig$objective))
  held <- fit_gh(x, fixed = list(mu = colMeans(x)), shrink = 40)
  expect_identical(unname(held$parameters$mu), unname(colMeans(x)))
  # d = 1: P* is a constant, the fit the unpenalised one; the rule gives 0
  one <- fit_nig(x[, 1L], shrink = 40)
  plain <- fit_nig(x[, 1L])
  expect_equal(one$parameters, plain$parameters, tolerance = 1e-8)
  expect_identical(one$iterations, plain$iterations)
  rule <- fit_nig(x[, 1L], shrink = ghmix_shrink())
  expect_identical(rule$shrink$intensity, 0)
  expect_identical(rule$shrink$weight, 0)
  expect_identical(rule$parameters, plain$parameters)
})

test_that("print, summary and vcov of a penalised fit", {
  fit <- fit_nig(shrink_data(), shrink = ghmix_shrink())
  expect_output(print(fit), "Penalised fit \\(shrink\\): target diagonal")
  s <- summary(fit)
  expect_true(all(is.na(s$coefficients[, "Std. Error"])))
  expect_output(print(s), "no standard errors")
  expect_output(print(s), "objective")
  expect_error(vcov(fit), class = "ghmix_error_shrink")
  expect_identical(logLik(fit)[[1L]], fit$loglik)
  expect_output(print(ghmix_shrink()), "Ledoit-Wolf")
  expect_output(print(ghmix_shrink("identity", 3)), "identity, weight 3")
})

test_that("chunked data take a given weight; the rule needs the rows", {
  x <- shrink_data()
  chunks <- ghmix_data(list(x[1:300, ], x[301:600, ]))
  fc <- fit_nig(chunks, shrink = 25)
  fm <- fit_nig(x, shrink = 25)
  expect_equal(fc$objective, fm$objective, tolerance = 1e-8)
  expect_error(fit_nig(chunks, shrink = ghmix_shrink()),
               class = "ghmix_error_shrink")
  expect_error(fit_nig(chunks, shrink = ghmix_shrink(weight = "cv")),
               class = "ghmix_error_shrink")
})

test_that("bad shrink input is a classed error naming shrink", {
  x <- shrink_data(200)
  d <- ncol(x)
  bad <- list(
    "foo", -1, NA_real_, Inf, c(1, 2), list(), TRUE,
    matrix(1, 2, 2), diag(d + 1), -diag(d),
    matrix(c(1, 0.5, 0, 1), 2), diag(c(1, 1, 1, NA))
  )
  for (b in bad) {
    expect_error(fit_nig(x, shrink = b), "shrink",
                 class = "ghmix_error_shrink")
  }
  expect_error(ghmix_shrink(weight = -2), "weight",
               class = "ghmix_error_shrink")
  expect_error(ghmix_shrink(weight = "CV"), class = "ghmix_error_shrink")
  expect_error(ghmix_shrink(target = "full"), "target",
               class = "ghmix_error_shrink")
  expect_error(ghmix_shrink(target = diag(c(1, -1))),
               class = "ghmix_error_shrink")
  expect_error(fit_nig(x, shrink = ghmix_shrink(diag(d + 1))), "4 x 4",
               class = "ghmix_error_shrink")
  cv <- ghmix_shrink(weight = "cv")
  expect_error(fit_nig(x, components = 2, shrink = cv), "cv",
               class = "ghmix_error_shrink")
  expect_error(fit_gh(x, components = 2:3, shrink = cv),
               class = "ghmix_error_shrink")
})

test_that("fit_gaussian(shrink = ): the maximum of the penalised objective", {
  x <- shrink_data(300)
  n <- nrow(x)
  d <- ncol(x)
  plain <- fit_gaussian(x)
  zero <- fit_gaussian(x, shrink = 0)
  expect_identical(zero$parameters, plain$parameters)
  expect_identical(zero$loglik, plain$loglik)
  expect_identical(zero$objective, plain$loglik)
  for (sh in list(ghmix_shrink(), ghmix_shrink("identity", 100))) {
    fit <- fit_gaussian(x, shrink = sh)
    s <- plain$parameters$sigma
    tgt <- fit$shrink$target
    k <- fit$shrink$weight
    objective <- function(sigma) {
      ld <- as.numeric(determinant(sigma)$modulus)
      tr <- sum(diag(solve(sigma, tgt)))
      -n / 2 * (d * log(2 * pi) + ld + sum(diag(solve(sigma, s)))) -
        k / 2 * (ld + d * log(tr / d) + d)
    }
    sigma <- fit$parameters$sigma
    expect_equal(fit$objective, objective(sigma), tolerance = 1e-12)
    # the fixed point of the penalised step
    c_star <- sum(diag(solve(sigma, tgt))) / d
    expect_equal(sigma, (n * s + k * tgt / c_star) / (n + k),
                 tolerance = 1e-10)
    # a maximum: no nearby Sigma does better
    set.seed(8)
    for (i in 1:20) {
      e <- matrix(rnorm(d * d), d)
      e <- (e + t(e)) * 1e-3 * mean(diag(sigma))
      expect_lte(objective(sigma + e), fit$objective)
    }
    expect_output(print(fit), "Penalised fit")
  }
  big <- fit_gaussian(x, shrink = 1e10)
  expect_lt(max(abs(cov2cor(big$parameters$sigma) - diag(d))), 1e-6)
  expect_error(fit_gaussian(x, shrink = "bad"), class = "ghmix_error_shrink")
})

test_that("weight = \"cv\": the cross-validated intensity", {
  n <- 150
  x <- shrink_equicorrelated(n, 12, 0.2, 2, seed = 21)
  colnames(x) <- paste0("v", seq_len(12))
  fit <- suppressWarnings(fit_nig(x, symmetric = TRUE,
                                  shrink = ghmix_shrink(weight = "cv")))
  cv <- fit$shrink$cv
  expect_identical(fit$shrink$rule, "cv")
  expect_identical(cv$intensity, c(0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7))
  rho <- cv$intensity[which.max(cv$cv_loglik)]
  expect_identical(fit$shrink$intensity, rho)
  expect_equal(fit$shrink$weight, n * rho / (1 - rho), tolerance = 1e-14)
  expect_gt(rho, 0)
  # the fit is that of the chosen weight
  again <- fit_nig(x, symmetric = TRUE, shrink = fit$shrink$weight)
  expect_identical(again$parameters, fit$parameters)
  # one row of the table, computed fold by fold here
  fold <- (seq_len(n) - 1L) %% 5L + 1L
  held <- 0
  for (f in 1:5) {
    train <- fold != f
    k <- sum(train) * 0.1 / 0.9
    ff <- suppressWarnings(fit_nig(x[train, ], symmetric = TRUE,
                                   shrink = k))
    held <- held + sum(predict(ff, x[!train, ], type = "log_density"))
  }
  expect_equal(cv$cv_loglik[cv$intensity == 0.1], held, tolerance = 1e-12)
  expect_output(print(fit), "cross-validated")
  expect_output(print(ghmix_shrink(weight = "cv")), "cross-validation")
  expect_error(fit_gaussian(x, shrink = ghmix_shrink(weight = "cv")),
               class = "ghmix_error_shrink")
})
