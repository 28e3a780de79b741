# fit_gh(fixed = ) with a, b or a nonzero gamma held in the reported gauge
# E[Y] = 1 (R/constraints.R), against a direct maximisation by nlminb
# of sum(dgh(log = TRUE)) over the free parameters in that gauge, written
# here from the GIG mean E[Y] = sqrt(b / a) K_{p+1}(w) / K_p(w) with base
# R's besselK(): mixing laws of mean 1 as (p, log w), a = w R, b = w / R
# (R = K_{p+1}(w) / K_p(w)), or, with a (b) held, b (a) the root of
# E[Y] = 1 and, with both held, p the root.

gauge_test_mean <- function(p, a, b) {
  w <- sqrt(a * b)
  sqrt(b / a) * besselK(w, p + 1, TRUE) / besselK(w, p, TRUE)
}

# The mixing law of mean 1 from its free coordinates th (fixed: what is
# held).
gauge_test_mixing <- function(th, fixed) {
  if (!is.null(fixed$a) && !is.null(fixed$b)) {
    p <- stats::uniroot(
      function(p) log(gauge_test_mean(p, fixed$a, fixed$b)), c(-1, 1),
      extendInt = "upX", tol = 1e-13
    )$root
    return(list(p = p, a = fixed$a, b = fixed$b, th = th))
  }
  p <- if (is.null(fixed$p)) th[[1L]] else fixed$p
  th <- if (is.null(fixed$p)) th[-1L] else th
  if (!is.null(fixed$a) || !is.null(fixed$b)) {
    solve_other <- function(lv) {
      ab <- if (is.null(fixed$a)) c(exp(lv), fixed$b) else c(fixed$a, exp(lv))
      log(gauge_test_mean(p, ab[[1L]], ab[[2L]]))
    }
    lv <- stats::uniroot(solve_other, c(-1, 1), extendInt = "yes",
                         tol = 1e-13)$root
    ab <- if (is.null(fixed$a)) c(exp(lv), fixed$b) else c(fixed$a, exp(lv))
    return(list(p = p, a = ab[[1L]], b = ab[[2L]], th = th))
  }
  w <- exp(th[[1L]])
  r <- besselK(w, p + 1, TRUE) / besselK(w, p, TRUE)
  list(p = p, a = w * r, b = w / r, th = th[-1L])
}

# The parameters at th: the mixing coordinates first, then mu, gamma (the
# free ones) and the Cholesky factor of Sigma (log diagonal).
gauge_test_par <- function(th, fixed, d) {
  mix <- gauge_test_mixing(th, fixed)
  th <- mix$th
  take <- function(k) {
    v <- th[seq_len(k)]
    th <<- th[-seq_len(k)]
    v
  }
  mu <- if (is.null(fixed$mu)) take(d) else fixed$mu
  gamma <- if (is.null(fixed$gamma)) take(d) else fixed$gamma
  l <- matrix(0, d, d)
  l[lower.tri(l, diag = TRUE)] <- take(d * (d + 1L) / 2L)
  diag(l) <- exp(diag(l))
  list(mu = mu, gamma = gamma, sigma = tcrossprod(l), p = mix$p,
       a = mix$a, b = mix$b)
}

gauge_test_theta <- function(par, fixed) {
  l <- t(chol(par$sigma))
  diag(l) <- log(diag(l))
  c(if (is.null(fixed$p) && (is.null(fixed$a) || is.null(fixed$b))) par$p,
    if (is.null(fixed$a) && is.null(fixed$b)) log(sqrt(par$a * par$b)),
    if (is.null(fixed$mu)) par$mu, if (is.null(fixed$gamma)) par$gamma,
    l[lower.tri(l, diag = TRUE)])
}

gauge_test_loglik <- function(x, par) {
  sum(dgh(x, mu = par$mu, gamma = par$gamma, sigma = par$sigma, p = par$p,
          a = par$a, b = par$b, log = TRUE))
}

# The largest log-likelihood nlminb finds from the fit's answer and from
# two other starts (the fit's answer moved).
gauge_test_direct <- function(x, fit, fixed) {
  d <- NCOL(x)
  nll <- function(th) {
    v <- tryCatch(-gauge_test_loglik(x, gauge_test_par(th, fixed, d)),
                  error = function(e) Inf)
    if (is.finite(v)) v else Inf
  }
  th0 <- gauge_test_theta(fit$parameters, fixed)
  starts <- list(th0, th0 + 0.1, th0 - 0.05 * seq_along(th0) / length(th0))
  best <- -Inf
  for (s in starts) {
    opt <- stats::nlminb(s, nll, control = list(rel.tol = 1e-13,
                                                eval.max = 2000L,
                                                iter.max = 1000L))
    best <- max(best, -opt$objective)
  }
  best
}

gauge_test_data <- function(d) {
  set.seed(160 + d)
  g <- c(0.4, -0.3)[seq_len(d)]
  s <- matrix(c(1, 0.3, 0.3, 0.8), 2L)[seq_len(d), seq_len(d)]
  x <- rgh(600, mu = rep(0.1, d), gamma = g, sigma = s, p = 0.5, a = 1.5,
           b = 1)
  if (d == 1L) x else matrix(x, ncol = d)
}

gauge_test_cases <- function(d) {
  g <- c(0.5, -0.2)[seq_len(d)]
  list(list(a = 2), list(b = 0.7), list(a = 2, b = 0.7), list(gamma = g),
       list(gamma = g, p = 1))
}

gauge_test_check <- function(x, fixed) {
  d <- NCOL(x)
  fit <- fit_gh(x, fixed = fixed)
  expect_true(fit$converged)
  par <- fit$parameters
  # the fixed values are those reported, in the gauge E[Y] = 1
  for (nm in names(fixed)) {
    expect_identical(unname(par[[nm]]), fixed[[nm]])
    expect_identical(unname(coef(fit)[[nm]]), fixed[[nm]])
  }
  expect_equal(gig_mean(par$p, par$a, par$b), 1, tolerance = 1e-10)
  expect_equal(fit$loglik, gauge_test_loglik(x, par), tolerance = 1e-10)
  direct <- gauge_test_direct(x, fit, fixed)
  expect_lte(abs(fit$loglik - direct) / abs(direct), 1e-6)
  # each held scalar removes one degree of freedom
  expect_identical(fit$df, fit_gh(x)$df - sum(lengths(fixed)))
  # the EM never decreases the log-likelihood
  ll <- fit$trace$loglik
  expect_true(all(diff(ll) >= -1e-10 * abs(ll[-1L])))
  fit
}

test_that("fixed a, b, a and b, gamma, gamma and p: d = 1", {
  x <- gauge_test_data(1L)
  for (fixed in gauge_test_cases(1L)) gauge_test_check(x, fixed)
})

test_that("fixed a, b, a and b, gamma, gamma and p: d = 2", {
  skip_on_cran()
  x <- gauge_test_data(2L)
  for (fixed in gauge_test_cases(2L)) gauge_test_check(x, fixed)
})

test_that("fixed a with p, and gamma with mu and a", {
  x <- gauge_test_data(1L)
  gauge_test_check(x, list(a = 2, p = 0.3))
  gauge_test_check(x, list(gamma = 0.5, mu = 0.1, a = 2))
})

test_that("standardised data: fixed values in the data's units", {
  x <- gauge_test_data(2L) * 1e100
  fit <- fit_gh(x, fixed = list(gamma = c(0.5e100, -0.2e100), a = 2))
  expect_identical(unname(fit$parameters$gamma), c(0.5e100, -0.2e100))
  expect_identical(fit$parameters$a, 2)
  small <- fit_gh(x / 1e100, fixed = list(gamma = c(0.5, -0.2), a = 2))
  expect_equal(fit$loglik + 1200 * log(1e100), small$loglik,
               tolerance = 1e-8)
})

test_that("bad or over-determined fixed values are classed errors", {
  x <- gauge_test_data(2L)
  bad <- list(
    list(list(a = 0), "fixed\\$a"), list(list(a = -1), "fixed\\$a"),
    list(list(b = -2), "fixed\\$b"), list(list(gamma = 0.5), "fixed\\$gamma"),
    list(list(gamma = c(1, 2, 3)), "fixed\\$gamma"),
    list(list(p = 1, a = 2, b = 1), "`fixed`"),
    list(list(p = 1.5, a = 2), "fixed\\$p"),
    list(list(p = -2.5, b = 2), "fixed\\$p")
  )
  for (case in bad) {
    expect_error(fit_gh(x, fixed = case[[1]]), case[[2]],
                 class = "ghmix_error_argument")
  }
  expect_error(fit_gh(x, fixed = list(a = 2), gauge = "det"), "gauge",
               class = "ghmix_error_argument")
  expect_error(fit_gh(x, fixed = list(gamma = c(1, 0)), symmetric = TRUE),
               "symmetric", class = "ghmix_error_argument")
  online <- ghmix_control(online = ghmix_online(batch_size = 200))
  expect_error(fit_gh(x, fixed = list(b = 1), control = online),
               "control\\$online", class = "ghmix_error_argument")
})

# minus the log-likelihood (d = 1) at th = (the mixing coordinates of
# gauge_test_mixing(), mu, gamma unless held, Sigma: a 1 x 1 matrix, the
# variance, where a number would be the scale)
gauge_test_nll <- function(x, fixed) {
  function(th) {
    mix <- gauge_test_mixing(th, fixed)
    r <- mix$th
    gamma <- if (is.null(fixed$gamma)) r[[2L]] else fixed$gamma
    -sum(dgh(x, mu = r[[1L]], gamma = gamma, sigma = matrix(r[[length(r)]]),
             p = mix$p, a = mix$a, b = mix$b, log = TRUE))
  }
}

test_that("vcov with a or gamma held: optimHess of the dgh() likelihood", {
  x <- gauge_test_data(1L)
  fit <- fit_gh(x, fixed = list(a = 2))
  par <- fit$parameters
  v <- vcov(fit)
  dimnames(v) <- rep(list(c("mu", "gamma", "sigma", "p", "a", "b")), 2L)
  th <- c(par$p, par$mu, par$gamma, par$sigma)
  ref <- solve(stats::optimHess(th, gauge_test_nll(x, list(a = 2)),
                                control = list(ndeps = rep(1e-3, 4L))))
  keep <- c("p", "mu", "gamma", "sigma")
  expect_equal(unname(v[keep, keep]), unname(ref), tolerance = 1e-4)
  expect_identical(unname(v["a", ]), rep(0, 6))
  expect_gt(v["b", "b"], 0) # b moves with p on E[Y] = 1
  fit <- fit_gh(x, fixed = list(gamma = 0.5))
  par <- fit$parameters
  v <- vcov(fit)
  dimnames(v) <- rep(list(c("mu", "gamma", "sigma", "p", "a", "b")), 2L)
  th <- c(par$p, log(sqrt(par$a * par$b)), par$mu, par$sigma)
  ref <- solve(stats::optimHess(th, gauge_test_nll(x, list(gamma = 0.5)),
                                control = list(ndeps = rep(1e-3, 4L))))
  keep <- c("p", "mu", "sigma")
  # (p is weakly determined here, var(p) ~ 2.6: the reference's second
  # differences are good to a few 1e-4)
  expect_equal(unname(v[keep, keep]), unname(ref[c(1, 3, 4), c(1, 3, 4)]),
               tolerance = 1e-3)
  expect_identical(unname(v["gamma", ]), rep(0, 6))
  se <- summary(fit)$coefficients[, "Std. Error"]
  expect_equal(unname(se), sqrt(diag(unname(v))))
})

test_that("anova: a fit with a or gamma held nests only fits that hold them", {
  x <- gauge_test_data(1L)
  held <- fit_gh(x, fixed = list(a = 2))
  both <- fit_gh(x, fixed = list(a = 2, p = 0.3))
  out <- anova(both, held)
  expect_equal(out$Df[[2L]] - out$Df[[1L]], 1)
  expect_error(anova(fit_nig(x), held), class = "ghmix_error_argument")
  expect_error(anova(fit_gh(x, symmetric = TRUE),
                     fit_gh(x, fixed = list(gamma = 0.5))),
               class = "ghmix_error_argument")
})
