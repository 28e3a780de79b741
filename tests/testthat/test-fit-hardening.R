# The fitters and their methods under hostile settings (issues 13 and 17):
# controls, starts, ties, data of any units, argument errors.

set.seed(21)
x_h <- rgh(400, gamma = 0.4)

# The value of expr, whose warnings must include one of class `class`
# (the others are muffled too).
value_warned <- function(expr, class) {
  seen <- character()
  val <- withCallingHandlers(expr, warning = function(w) {
    seen <<- c(seen, class(w))
    invokeRestart("muffleWarning")
  })
  expect(class %in% seen, sprintf("no warning of class %s", class))
  val
}

test_that("ghmix_control() checks max_iter and the tolerances", {
  expect_s3_class(ghmix_control(max_iter = .Machine$integer.max),
                  "ghmix_control")
  expect_identical(ghmix_control(max_iter = 1e9)$max_iter, 1000000000L)
  for (v in list(0, 2.5, 1e10, .Machine$integer.max + 1, NA, "5", Inf)) {
    expect_error(ghmix_control(max_iter = v), "`max_iter`",
                 class = "ghmix_error_argument")
  }
  for (arg in c("tol", "param_tol", "singular_tol")) {
    for (v in list(-1, Inf, NaN, NA, "a", c(1, 2))) {
      args <- stats::setNames(list(v), arg)
      expect_error(do.call(ghmix_control, args), sprintf("`%s`", arg),
                   class = "ghmix_error_argument")
    }
  }
  expect_s3_class(ghmix_control(tol = 0, param_tol = 0), "ghmix_control")
  expect_error(ghmix_control(singular_tol = 0), "`singular_tol`",
               class = "ghmix_error_argument")
})

test_that("tol = 0 runs max_iter iterations; the trace grows past its start", {
  ctl <- ghmix_control(tol = 0, max_iter = 150L)
  f <- value_warned(fit_nig(x_h, control = ctl),
                    "ghmix_warning_convergence")
  expect_identical(f$iterations, 150L)
  expect_false(f$converged)
  expect_identical(nrow(f$trace), 151L)
  expect_identical(f$trace$iteration, 0:150)
  expect_true(all(is.finite(f$trace$loglik)))
  # the same fit as the default's, run further
  g <- fit_nig(x_h)
  expect_equal(f$loglik, g$loglik, tolerance = 1e-9)
  h <- value_warned(fit_nig(x_h, control = ghmix_control(param_tol = 0,
                                                         max_iter = 30L)),
                    "ghmix_warning_convergence")
  expect_identical(h$iterations, 30L)
})

test_that("a list start is checked element by element", {
  bad <- list(
    list(list(mu = "a"), "`mu`"), list(list(gamma = 1:2), "`gamma`"),
    list(list(sigma = NA), "`sigma`"), list(list(a = 1:2), "`a`"),
    list(list(b = NA), "`b`"), list(list(a = -1), "`a`"),
    list(list(b = 0), "`b`"), list(list(Mu = 0), "`Mu`"),
    list(list(mu = 0, mu = 1), "`mu`"), list(list(1, 2), "named list")
  )
  for (case in bad) {
    expect_error(fit_nig(x_h, start = case[[1L]]), case[[2L]],
                 class = "ghmix_error_argument")
  }
  expect_error(fit_gh(x_h, start = list(p = c(1, 2))), "`p`",
               class = "ghmix_error_argument")
  expect_error(fit_gh(x_h, start = list(p = 1, b = 0, a = 0)), "`start`",
               class = "ghmix_error_argument")
  expect_error(fit_vg(x_h, start = list(p = -1)), "`p`.*VG",
               class = "ghmix_error_argument")
  expect_error(fit_skewt(x_h, start = list(p = 1)), "`p`.*skew-t",
               class = "ghmix_error_argument")
  expect_error(fit_skewt(x_h, start = list(a = Inf)), "`a`",
               class = "ghmix_error_argument")
  # valid starts: a list (fixed parameters replaced) and fits of any family
  f <- fit_nig(x_h, start = list(mu = 0.1, a = 2, b = 2, p = 3))
  expect_equal(f$loglik, fit_nig(x_h)$loglik, tolerance = 1e-9)
  vg <- suppressWarnings(fit_vg(x_h, start = f))
  expect_s3_class(vg, "ghmix_fit_vg")
})

test_that("ties: the NIG warns once n/(d + 1) rows sit at one point", {
  set.seed(3)
  few <- c(rep(0, 30), stats::rt(300, 4))
  expect_no_warning(fit_nig(few))
  many <- c(rep(0, 700), stats::rnorm(300))
  w <- NULL
  f <- withCallingHandlers(
    fit_nig(many, control = ghmix_control(max_iter = 300L)),
    warning = function(cnd) {
      w <<- c(w, class(cnd)[1L])
      invokeRestart("muffleWarning")
    }
  )
  expect_true("ghmix_warning_ties" %in% w)
  expect_false(f$converged)
  expect_match(f$message, "singularity")
  expect_true(all(is.finite(unlist(f$parameters))))
  # a repeated point and a skew-t: warned
  value_warned(fit_skewt(few), "ghmix_warning_ties")
})

# The fit of x and that of x * s + t are the same fit, transformed.
expect_units_free <- function(f, g, s, t = 0, tol = 1e-6, tol_ll = 1e-9) {
  pf <- f$parameters
  pg <- g$parameters
  expect_equal(unname((pg$mu - t) / s), unname(pf$mu), tolerance = tol)
  expect_equal(unname(pg$gamma / s), unname(pf$gamma), tolerance = tol)
  expect_equal(c(pg$a, pg$b), c(pf$a, pf$b), tolerance = tol)
  expect_equal(g$loglik + g$nobs * sum(log(s)), f$loglik,
               tolerance = tol_ll)
  expect_equal(g$trace$loglik[1L] + g$nobs * sum(log(s)),
               f$trace$loglik[1L], tolerance = tol_ll)
}

test_that("fits are free of units across the standardisation threshold", {
  f <- fit_nig(x_h)
  expect_null(f$scaling)
  # 2^-127 and 1e5: fitted as they are; 2^-129, 1e-200, 1e200 and a
  # shift of 1e9 sd: standardised
  for (s in c(2^-127, 1e5, 2^-129, 1e-200, 1e200)) {
    g <- suppressWarnings(fit_nig(x_h * s))
    expect_identical(is.null(g$scaling), s %in% c(2^-127, 1e5), info = s)
    expect_true(g$converged, info = s)
    expect_units_free(f, g, s)
    al_f <- coef(f, parametrization = "alpha")
    al_g <- coef(g, parametrization = "alpha")
    expect_equal(c(al_g$alpha * s, al_g$beta * s, al_g$delta / s),
                 c(al_f$alpha, al_f$beta, al_f$delta), tolerance = 1e-6,
                 info = s)
    expect_equal(coef(g, parametrization = "ghyp")$sigma / s,
                 coef(f, parametrization = "ghyp")$sigma, tolerance = 1e-6)
    pts <- c(-1, 0.5, 3)
    expect_equal(predict(g, pts * s, type = "log_density") + log(s),
                 predict(f, pts, type = "log_density"), tolerance = 1e-6)
    expect_equal(fitted(g), fitted(f), tolerance = 1e-5)
    if (s^4 > 1e-300 && s^4 < 1e300) {
      # (the variances of Sigma ~ s^4 Var(Sigma_z) are doubles)
      se_f <- sqrt(diag(vcov(f)))
      se_g <- sqrt(diag(vcov(g)))
      expect_equal(se_g / c(s, s, s^2, 1, 1), se_f, tolerance = 1e-3,
                   info = s)
    }
    sim <- simulate(g, seed = 1)
    expect_true(all(is.finite(sim$sim_1)))
    expect_equal(stats::sd(sim$sim_1 / s), stats::sd(x_h), tolerance = 0.3)
  }
  # GH (which starts from the fitted NIG, in the standardised units)
  gh <- suppressWarnings(fit_gh(x_h))
  gh_s <- suppressWarnings(fit_gh(x_h * 1e-200))
  expect_false(is.null(gh_s$scaling))
  expect_equal(gh_s$loglik + 400 * log(1e-200), gh$loglik, tolerance = 1e-7)
  expect_equal(gh_s$parameters$p, gh$parameters$p, tolerance = 1e-3)
  # Sigma = 1e400 is not a double: said, and kept in standardised units
  g <- value_warned(fit_nig(x_h * 1e200), "ghmix_warning_scale")
  expect_identical(g$parameters$sigma[[1L]], Inf)
  expect_output(print(g), "sigma: ")
  # a shift of 1e9 standard deviations
  # (x_h + 1e9 rounds x_h by up to 6e-8: the fits agree to about that)
  g <- fit_nig(x_h + 1e9)
  expect_false(is.null(g$scaling))
  expect_units_free(f, g, 1, 1e9, tol = 1e-5, tol_ll = 1e-7)
  # two columns on different scales, in the det gauge too
  set.seed(8)
  xx <- rgh(300, mu = c(0, 0), gamma = c(0.3, -0.2),
            sigma = matrix(c(1, 0.4, 0.4, 1), 2))
  sc <- c(1e-170, 1e100)
  for (gauge in c("mean", "det")) {
    f2 <- fit_nig(xx, gauge = gauge)
    g2 <- suppressWarnings(fit_nig(sweep(xx, 2L, sc, "*"), gauge = gauge))
    expect_equal(g2$loglik + 300 * sum(log(sc)), f2$loglik, tolerance = 1e-9)
    expect_equal(unname(g2$parameters$mu / sc), unname(f2$parameters$mu),
                 tolerance = 1e-6)
    expect_equal(predict(g2, sweep(xx[1:5, ], 2L, sc, "*"),
                         type = "log_density") + sum(log(sc)),
                 predict(f2, xx[1:5, ], type = "log_density"),
                 tolerance = 1e-6)
    # E[Y|x] is free of units in the mean gauge; in the det gauge Y's
    # scale is fixed by det Sigma = 1 in the data's units
    if (gauge == "mean") {
      expect_equal(fitted(g2), fitted(f2), tolerance = 1e-5)
    }
  }
  expect_equal(unname(g2$parameters$sigma[2L, 2L] / sc[2L]^2 * 1e-170^2),
               0)
})

test_that("the EM trace of data shifted by 1e16 never decreases", {
  set.seed(1)
  x <- stats::rt(300, 5) + 1e16
  for (fun in list(fit_nig, fit_skewt)) {
    f <- suppressWarnings(fun(x))
    tr <- f$trace$loglik
    expect_true(all(is.finite(tr)))
    expect_gte(min(diff(tr)), -1e-12 * max(abs(tr)))
  }
})

test_that("chunked data beyond the rule's limits are an argument error", {
  ch <- list(x_h[1:200] * 1e200, x_h[201:400] * 1e200)
  expect_error(fit_nig(ghmix_data(ch)), "own units",
               class = "ghmix_error_argument")
})

test_that("choices and digits of the methods are classed argument errors", {
  f <- fit_nig(x_h)
  for (v in list("x", NA, 1, c("ghyp", "alpha"))) {
    expect_error(coef(f, parametrization = v), "`parametrization`",
                 class = "ghmix_error_argument")
  }
  expect_identical(coef(f, parametrization = "alpha."),
                   coef(f, parametrization = "alpha.bar"))
  for (v in list("x", NA, 1)) {
    expect_error(predict(f, 0, type = v), "`type`",
                 class = "ghmix_error_argument")
    expect_error(ghmix_benchmark_backends(n = 10, d = 1L, family = v,
                                          backends = "cpu", reps = 1L),
                 "`family`", class = "ghmix_error_argument")
  }
  expect_identical(predict(f, 0, type = "log"),
                   predict(f, 0, type = "log_density"))
  for (v in list(0, -1, 23, 2.5, "a", NA)) {
    expect_error(print(f, digits = v), "`digits`",
                 class = "ghmix_error_argument")
    expect_error(print(summary(f), digits = v), "`digits`",
                 class = "ghmix_error_argument")
  }
  for (v in list(3e9, 2^31, Inf)) {
    expect_error(ghmix_benchmark_backends(n = v, backends = "cpu"), "`n`",
                 class = "ghmix_error_argument")
  }
  expect_error(predict(f, list(1, 2)), "`newdata`",
               class = "ghmix_error_argument")
  expect_error(fit_nig(matrix(numeric(), 10, 0)), "`x` has no columns",
               class = "ghmix_error_argument")
  expect_error(fit_nig(data.frame()), "`x` has no columns",
               class = "ghmix_error_argument")
})

test_that("predict() matches columns by name only where names are unique", {
  set.seed(2)
  xd <- rgh(300, mu = c(0, 1), sigma = matrix(c(1, 0.3, 0.3, 2), 2))
  colnames(xd) <- c("a", "a")
  f <- fit_nig(xd)
  expect_identical(predict(f, xd), predict(f))
  colnames(xd) <- c("u", "v")
  g <- fit_nig(xd)
  expect_identical(predict(g, xd[, 2:1]), predict(g, xd))
  dup <- xd
  colnames(dup) <- c("v", "v")
  expect_identical(predict(g, dup), predict(g, xd))
})

test_that("a start at the normal limit warns when the limit is no maximum", {
  set.seed(21)
  x <- cbind(stats::rt(400, 4), stats::rt(400, 4))
  w <- NULL
  f <- withCallingHandlers(
    fit_nig(x, start = list(a = 1e20, b = 1e20)),
    ghmix_warning_normal_limit = function(cnd) {
      w <<- cnd
      invokeRestart("muffleWarning")
    }
  )
  expect_s3_class(w, "ghmix_warning_normal_limit")
  expect_equal(w$sqrt_ab, sqrt(f$parameters$a * f$parameters$b))
  # the slope in Var(Y) at the limit against a difference quotient of the
  # NIG log-likelihood (E[Y] = 1, so a = b = 1 / Var(Y) to first order)
  par <- f$parameters
  ll <- function(v) {
    sum(dgh(x, par$mu, par$gamma, par$sigma, p = -0.5, a = 1 / v,
            b = 1 / v, log = TRUE))
  }
  v <- 1e-7
  expect_equal(w$slope, (ll(v) - ll(1e-12)) / (v - 1e-12), tolerance = 1e-3)
  expect_gt(w$slope, 0)
  # the default start reaches the NIG maximum, above the normal limit
  expect_gt(fit_nig(x)$loglik, f$loglik + 1)
  # normal data from the default start: no such warning
  set.seed(22)
  expect_no_warning(fit_nig(stats::rnorm(300)),
                    class = "ghmix_warning_normal_limit")
})
