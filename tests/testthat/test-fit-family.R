# Fixed parameters (fit_gh(fixed = )), the hyperbolic, Student-t and
# Gaussian fits, fit_families() and anova().

fit_loglik <- function(fit, x) {
  par <- fit$parameters
  sum(dgh(x, par$mu, par$gamma, par$sigma, par$p, par$a, par$b, log = TRUE))
}

test_that("fit_gh(fixed = list(p = )) holds p, counts df and is an EM fit", {
  set.seed(1)
  x <- rgh(2000, mu = 0.1, gamma = 0.3, sigma = 1, p = 1.3, a = 2, b = 1)
  fit <- fit_gh(x, fixed = list(p = 1.3))
  free <- fit_gh(x)
  expect_true(fit$converged)
  expect_identical(fit$parameters$p, 1.3)
  expect_identical(fit$df, free$df - 1)
  expect_identical(fit$fixed, list(p = 1.3))
  expect_equal(fit$loglik, fit_loglik(fit, x), tolerance = 1e-10)
  expect_lte(fit$loglik, free$loglik + 1e-6)
  expect_false(is.unsorted(fit$trace$loglik[-1], strictly = FALSE))
  expect_match(format(fit_label(fit)), "GH \\(p = 1.3\\)")
})

test_that("GH with p = -1/2 fixed is the NIG fit", {
  set.seed(2)
  x <- matrix(rgh(1500, mu = c(0, 1), gamma = c(0.2, -0.1),
                  sigma = diag(2), p = -0.5, a = 1, b = 1), ncol = 2)
  fit <- fit_gh(x, fixed = list(p = -0.5))
  nig <- fit_nig(x)
  expect_equal(fit$loglik, nig$loglik, tolerance = 1e-8)
  expect_identical(fit$df, nig$df)
  expect_equal(fit$parameters$a, nig$parameters$a, tolerance = 1e-4)
})

test_that("fixed mu is held exactly, with or without gamma", {
  set.seed(3)
  x <- matrix(rgh(1500, mu = c(0, 1), gamma = c(0.2, -0.1),
                  sigma = diag(2), p = 0.5, a = 1, b = 1), ncol = 2)
  fit <- fit_gh(x, fixed = list(mu = c(0, 1), p = 0.5))
  expect_identical(unname(fit$parameters$mu), c(0, 1))
  expect_identical(fit$df, fit_gh(x)$df - 3)
  expect_equal(fit$loglik, fit_loglik(fit, x), tolerance = 1e-10)
  sym <- fit_gh(x, fixed = list(mu = c(0, 1), gamma = 0))
  expect_true(sym$symmetric)
  expect_identical(unname(sym$parameters$gamma), c(0, 0))
  expect_identical(unname(sym$parameters$mu), c(0, 1))
  # mu in the data's units, also when the fit is standardised
  big <- fit_gh(x * 1e100, fixed = list(mu = c(0, 1e100)))
  expect_equal(unname(big$parameters$mu), c(0, 1e100), tolerance = 1e-15)
})

test_that("fixed parameters out of the domain: classed errors naming them", {
  x <- rgh(200, p = 1, a = 1, b = 1)
  bad <- list(
    list(list(p = NA), "fixed\\$p"), list(list(p = c(1, 2)), "fixed\\$p"),
    list(list(p = "1"), "fixed\\$p"), list(list(p = Inf), "fixed\\$p"),
    list(list(mu = c(0, 1)), "fixed\\$mu"), list(list(a = -1), "fixed\\$a"),
    list(list(b = 0), "fixed\\$b"),
    list(list(gamma = c(1, 2)), "fixed\\$gamma"),
    list(list(q = 1), "`fixed`"), list(1.3, "`fixed`"),
    list(list(p = 1, p = 2), "`fixed`")
  )
  for (case in bad) {
    expect_error(fit_gh(x, fixed = case[[1]]), case[[2]],
                 class = "ghmix_error_argument")
  }
  fit <- fit_hyperbolic(x)
  expect_identical(unname(vcov(fit)["p", "p"]), 0) # (test-vcov-fixed.R)
})

test_that("hyperbolic, Student-t and Gaussian fits", {
  set.seed(4)
  x <- matrix(rgh(1000, mu = c(0, 0, 0), gamma = c(0.3, 0, -0.3),
                  sigma = diag(3) + 0.5, p = 2, a = 1, b = 1), ncol = 3)
  hyp <- fit_hyperbolic(x)
  expect_identical(hyp$parameters$p, 2)
  expect_identical(hyp$df, fit_gh(x)$df - 1)
  expect_match(capture.output(print(hyp))[1], "hyperbolic")
  st <- fit_student(x)
  expect_true(st$symmetric)
  expect_identical(st$family, "skewt")
  g <- fit_gaussian(x)
  s <- stats::cov(x) * (nrow(x) - 1) / nrow(x)
  ll <- sum(vapply(seq_len(nrow(x)), function(i) {
    z <- x[i, ] - colMeans(x)
    -0.5 * (3 * log(2 * pi) + log(det(s)) + sum(z * solve(s, z)))
  }, 0))
  expect_equal(g$loglik, ll, tolerance = 1e-12)
  expect_equal(g$df, 9)
  expect_equal(AIC(g), -2 * ll + 18, tolerance = 1e-12)
  expect_equal(BIC(g), -2 * ll + log(1000) * 9, tolerance = 1e-12)
  expect_identical(nobs(g), 1000L)
  expect_output(print(g), "Gaussian fit")
  expect_equal(fit_gaussian(x[, 1])$loglik,
               sum(dnorm(x[, 1], mean(x[, 1]), sqrt(s[1, 1]), log = TRUE)),
               tolerance = 1e-12)
  expect_error(fit_gaussian(c(1, NA)), class = "ghmix_error_argument")
})

test_that("anova() tests nested fits and refuses others", {
  set.seed(5)
  x <- rgh(3000, gamma = 0.5, p = -0.5, a = 1, b = 1)
  sym <- fit_nig(x, symmetric = TRUE)
  nig <- fit_nig(x)
  gh <- fit_gh(x)
  tab <- anova(gh, sym, nig)
  expect_s3_class(tab, "anova")
  expect_identical(tab$Df, c(sym$df, nig$df, gh$df))
  expect_equal(tab$Chisq[2], 2 * (nig$loglik - sym$loglik))
  expect_equal(tab$`Pr(>Chisq)`[2],
               pchisq(2 * (nig$loglik - sym$loglik), 1, lower.tail = FALSE))
  expect_warning(anova(fit_vg(x), gh), class = "ghmix_warning_boundary")
  expect_warning(anova(fit_gaussian(x), sym), class = "ghmix_warning_boundary")
  expect_error(anova(fit_vg(x), nig), "not nested",
               class = "ghmix_error_argument")
  expect_error(anova(nig, fit_nig(x[-1])), class = "ghmix_error_argument")
  expect_error(anova(nig), class = "ghmix_error_argument")
  expect_silent(anova(fit_hyperbolic(x), gh))
})

# The truths: each family's law at n = 1e4 (d = 1); the selection by BIC
# must pick it, or a model nested in it with the same log-likelihood
# (within 2: BIC then prefers the smaller).
test_that("fit_families() picks the true family at n = 1e4", {
  skip_on_cran()
  truths <- list(
    NIG = list(p = -0.5, a = 1, b = 1, gamma = 0.5),
    `NIG (symmetric)` = list(p = -0.5, a = 1, b = 1, gamma = 0),
    hyperbolic = list(p = 1, a = 2, b = 0.5, gamma = 0.5),
    VG = list(p = 1.5, a = 3, b = 0, gamma = 0.5),
    `skew-t` = list(p = -3, a = 0, b = 4, gamma = 0.8),
    `Student-t` = list(p = -2.5, a = 0, b = 3, gamma = 0),
    `GH (symmetric)` = list(p = -3, a = 4, b = 12, gamma = 0)
  )
  for (name in names(truths)) {
    tr <- truths[[name]]
    set.seed(10)
    x <- rgh(1e4, mu = 0, gamma = tr$gamma, sigma = 1, p = tr$p, a = tr$a,
             b = tr$b)
    sel <- suppressWarnings(fit_families(x, criterion = "BIC"))
    best <- sel$table$model[[1]]
    if (best != name) {
      truth_fit <- sel$fits[[name]]
      expect_false(is.na(fit_nesting(sel$best, truth_fit)), label = name)
      expect_lt(abs(sel$best$loglik - truth_fit$loglik), 2, label = name)
    } else {
      expect_identical(best, name)
    }
  }
  set.seed(11)
  sel <- fit_families(rnorm(1e4), families = c("nig", "gaussian"),
                      criterion = "BIC")
  expect_identical(sel$table$model[[1]], "Gaussian")
})

test_that("fit_families() checks its arguments and prints", {
  x <- rnorm(300)
  expect_error(fit_families(x, families = "ghx"), "families",
               class = "ghmix_error_argument")
  expect_error(fit_families(x, symmetric = NA), "symmetric",
               class = "ghmix_error_argument")
  sel <- fit_families(x, families = c("nig", "gaussian"), symmetric = TRUE)
  expect_identical(sort(sel$table$model), c("Gaussian", "NIG (symmetric)"))
  expect_output(print(sel), "ranked by AIC")
  expect_identical(names(sel$table),
                   c("model", "family", "symmetric", "loglik", "df", "AIC",
                     "BIC", "converged"))
})
