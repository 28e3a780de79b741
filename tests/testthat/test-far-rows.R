# Fits with one row far from the rest (issue 17, item 10): the true
# maximum, against references computed here in base R only: the
# univariate GH log density from its closed form (the normal mixture over
# GIG(p, a, b), integrated: 2 (B/A)^(lambda/2) K_lambda(sqrt(AB)), DLMF
# 10.32.10), with besselK(expon.scaled = TRUE) and the exponent
# r gamma / sigma^2 - sqrt(AB) taken without cancellation, maximised by
# nlminb and Nelder-Mead from fixed starts in (mu, gamma, log a, log b)
# (sigma = 1: the det gauge in robust units), evaluated in the balanced
# gauge a = b.

far_hypot <- function(u, v) {
  m <- pmax(u, v)
  ifelse(m == 0, 0, m * sqrt(1 + (pmin(u, v) / m)^2))
}

# log f(x) of GH(mu, gamma, sigma, p, a, b), d = 1 (a = 0: p < 0)
far_ldgh <- function(x, mu, gamma, sigma, p, a, b) {
  r <- x - mu
  lam <- p - 0.5
  s_r <- abs(r) / sigma
  s_g <- abs(gamma) / sigma
  s_a <- sqrt(a + s_g^2)
  s_b <- far_hypot(sqrt(b), s_r)
  w <- s_a * s_b
  same <- r * gamma > 0
  # r gamma / sigma^2 - w: (r gamma / sigma^2)^2 - w^2 =
  # -(ab + a r^2 / sigma^2 + b gamma^2 / sigma^2)
  num <- a * b + (sqrt(a) * s_r)^2 + b * s_g^2
  expo <- ifelse(same, -num / (s_r * s_g + w), -(s_r * s_g + w))
  log_c <- if (a > 0) {
    om <- sqrt(a) * sqrt(b)
    (p / 2) * (log(a) - log(b)) - log(2) -
      (log(besselK(om, abs(p), expon.scaled = TRUE)) - om)
  } else {
    -p * log(b / 2) - lgamma(-p)
  }
  log_c - 0.5 * log(2 * pi) - log(sigma) + log(2) +
    lam * (log(s_b) - log(s_a)) +
    log(besselK(w, abs(lam), expon.scaled = TRUE)) + expo
}

# sum of log f over z (robust units) at th = (mu, gamma, log a, log b)
# (NIG) or (mu, gamma, log b, log(-p)) (skew-t)
far_ref_ll <- function(z, family, th) {
  if (!all(is.finite(th))) {
    return(-Inf)
  }
  v <- if (family == "nig") {
    sc <- exp((th[3] - th[4]) / 2)
    om <- exp((th[3] + th[4]) / 2)
    far_ldgh(z, th[1], th[2] / sc, 1 / sqrt(sc), -0.5, om, om)
  } else {
    far_ldgh(z, th[1], th[2], 1, -exp(th[4]), 0, exp(th[3]))
  }
  s <- sum(v)
  if (is.finite(s)) s else -Inf
}

far_ref_max <- function(z, family, starts) {
  f <- function(th) {
    v <- suppressWarnings(-far_ref_ll(z, family, th))
    if (is.finite(v)) v else 1e300
  }
  best <- Inf
  for (st in starts) {
    par <- st
    for (r in 1:2) {
      o <- stats::nlminb(par, f, control = list(eval.max = 5000,
                                                iter.max = 3000,
                                                rel.tol = 1e-15))
      if (all(is.finite(o$par))) par <- o$par
      par <- stats::optim(par, f, control = list(maxit = 4000,
                                                 reltol = 1e-15))$par
    }
    best <- min(best, f(par))
  }
  -best
}

far_data <- function(dist) {
  set.seed(1)
  x <- stats::rnorm(200)
  med <- stats::median(x)
  sp <- stats::IQR(x) / 1.349
  list(x = c(x, med + dist * sp), z = c((x - med) / sp, dist), sp = sp)
}

far_fit <- function(fun, x) {
  w <- character()
  f <- withCallingHandlers(fun(x), warning = function(cnd) {
    w <<- c(w, class(cnd)[1L])
    invokeRestart("muffleWarning")
  })
  list(fit = f, warnings = w)
}

test_that("one far row: the NIG fit reaches the maximum (D = 1e13, 1e300)", {
  for (dist in c(1e13, 1e300)) {
    dat <- far_data(dist)
    lt <- -2 * log(dist) + 2 * log(200)
    ref <- far_ref_max(dat$z, "nig", list(c(0, 0.05, lt, -1), c(0, 0, 0, 0)))
    ref <- ref - length(dat$z) * log(dat$sp)
    r <- far_fit(fit_nig, dat$x)
    expect_true(r$fit$converged)
    # no ghmix_warning_range / _convergence (the mean gauge holds a = b)
    expect_false(any(grepl("range|convergence", r$warnings)))
    expect_equal(r$fit$loglik, ref, tolerance = 1e-9)
    p <- r$fit$parameters
    expect_equal(sum(dnig(dat$x, p$mu, p$gamma, sqrt(drop(p$sigma)), p$a,
                          p$b, log = TRUE)), r$fit$loglik, tolerance = 1e-9)
  }
})

test_that("one far row: skew-t and GH fits reach the maximum", {
  # (the GH maximum lies on its skew-t boundary a = 0 here: the GH fit
  # matches the skew-t reference)
  for (dist in c(1e13, 1e300)) {
    dat <- far_data(dist)
    ref <- far_ref_max(dat$z, "skewt", list(c(0, 0.05, 0, 0),
                                            c(0, 0.05, 1, 1)))
    ref <- ref - length(dat$z) * log(dat$sp)
    for (fun in list(fit_skewt, fit_gh)) {
      r <- far_fit(fun, dat$x)
      expect_true(r$fit$converged)
      expect_false(any(grepl("range|convergence", r$warnings)))
      expect_equal(r$fit$loglik, ref, tolerance = 1e-9)
    }
  }
})

test_that("one value 1e300 beside rt(300, 5) * 0.01: NIG and skew-t maxima", {
  set.seed(13)
  x <- c(stats::rt(300, 5) * 0.01 + 0.001, 1e300)
  med <- stats::median(x)
  sp <- stats::IQR(x) / 1.349
  z <- (x - med) / sp
  dist <- z[[301L]]
  lt <- -2 * log(dist) + 2 * log(300)
  refs <- list(
    nig = far_ref_max(z, "nig", list(c(0, 0.05, lt, -1))),
    skewt = far_ref_max(z, "skewt", list(c(0, 0.05, 0, 0), c(0, 0.05, 1, 1)))
  )
  for (fam in names(refs)) {
    r <- far_fit(if (fam == "nig") fit_nig else fit_skewt, x)
    expect_true(r$fit$converged)
    expect_equal(r$fit$loglik, refs[[fam]] - length(z) * log(sp),
                 tolerance = 1e-9)
  }
})

test_that("the direct stage is not used for ordinary data", {
  set.seed(2)
  x <- rgh(300, gamma = 0.3)
  f <- fit_nig(x)
  expect_false("direct" %in% f$trace$step)
})
