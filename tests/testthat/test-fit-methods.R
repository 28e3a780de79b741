# S3 methods of the fit objects: print, summary, coef, logLik, nobs, vcov,
# fitted, predict, simulate, plot; the analytic score and the standard
# errors.

r <- diff(log(EuStockMarkets))

# X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z from rgig and rnorm.
draw_mix <- function(n, par) {
  d <- length(par$mu)
  y <- rgig(n, par$p, par$a, par$b)
  z <- matrix(stats::rnorm(n * d), n, d) %*% chol(par$sigma)
  x <- outer(y, par$gamma) + sqrt(y) * z
  x <- sweep(x, 2L, par$mu, "+")
  colnames(x) <- names(par$mu)
  x
}

true_par <- function(d, p, a, b) {
  vars <- c("u", "v", "w")[seq_len(d)]
  sigma <- matrix(0.4, d, d) + diag(seq(0.6, 1.4, length.out = d), d)
  dimnames(sigma) <- list(vars, vars)
  list(
    mu = stats::setNames(seq(0.5, -0.5, length.out = d), vars),
    gamma = stats::setNames(seq(-0.4, 0.3, length.out = d), vars),
    sigma = sigma, p = p, a = a, b = b
  )
}

quiet <- function(expr) suppressWarnings(expr)
# EuStockMarkets has 25 repeated rows: the skew-t fits warn about them
ties_known <- function(expr) {
  withCallingHandlers(expr, ghmix_warning_ties = function(w) {
    invokeRestart("muffleWarning")
  })
}

mix_label <- function(fit) {
  c(nig = "NIG", gh = "GH", vg = "VG", skewt = "skew-t")[[fit$family]]
}

fits <- local({
  set.seed(11)
  x_gh <- draw_mix(1500L, true_par(1L, 0.5, 2, 1))
  set.seed(11)
  x_gh2 <- draw_mix(1500L, true_par(2L, 1.5, 3, 0.4))
  list(
    nig_1 = fit_nig(r[, "DAX"]),
    nig_4 = fit_nig(r),
    nig_sym_2 = fit_nig(r[, c("DAX", "SMI")], symmetric = TRUE),
    nig_det_4 = fit_nig(r, gauge = "det"),
    gh_1 = quiet(fit_gh(x_gh)),
    gh_2 = quiet(fit_gh(x_gh2)),
    vg_1 = quiet(fit_vg(r[, "SMI"])),
    vg_4 = quiet(fit_vg(r)),
    skewt_1 = ties_known(fit_skewt(r[, "DAX"])),
    skewt_4 = ties_known(fit_skewt(r))
  )
})

test_that("print and summary show the fit", {
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    out <- paste(utils::capture.output(print(fit)), collapse = "\n")
    expect_match(out, mix_label(fit), fixed = TRUE, info = nm)
    expect_match(out, "Log-likelihood", info = nm)
    expect_match(out, "AIC", info = nm)
    s <- quiet(summary(fit))
    expect_s3_class(s, "summary.ghmix_fit")
    expect_identical(
      colnames(s$coefficients), c("Estimate", "Std. Error")
    )
    expect_identical(
      rownames(s$coefficients),
      ghmix:::names_nat(colnames(fit$data), fit$family, fit$symmetric)
    )
    expect_identical(nrow(s$coefficients), as.integer(fit$df + 1L))
    expect_equal(s$loglik, fit$loglik)
    out <- utils::capture.output(print(s))
    expect_true(any(grepl("Std. Error", out, fixed = TRUE)), info = nm)
    expect_true(any(grepl("Timings", out, fixed = TRUE)), info = nm)
  }
  out <- utils::capture.output(print(fits$nig_1))
  expect_true(any(grepl("sigma: .*scale", out)))
  expect_true(any(grepl("repeat another row", out)))
  out <- utils::capture.output(print(fits$vg_4))
  expect_true(any(grepl("Did not converge", out)))
})

test_that("logLik, AIC, BIC and nobs agree with the fit", {
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    ll <- logLik(fit)
    expect_s3_class(ll, "logLik")
    expect_equal(as.numeric(ll), fit$loglik)
    expect_identical(attr(ll, "df"), fit$df)
    expect_identical(nobs(fit), fit$nobs)
    expect_equal(AIC(fit), -2 * fit$loglik + 2 * fit$df)
    expect_equal(BIC(fit), -2 * fit$loglik + log(fit$nobs) * fit$df)
  }
  # df: mu, gamma, Sigma and the mixing parameters less the gauge
  expect_identical(fits$nig_4$df, 4 + 4 + 10 + 1)
  expect_identical(fits$nig_sym_2$df, 2 + 3 + 1)
  aic <- AIC(fits$nig_1, fits$skewt_1)
  expect_identical(aic$df, c(4, 4))
})

test_that("the sum of the fitted log-densities is the log-likelihood", {
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    expect_equal(sum(predict(fit, type = "log_density")), fit$loglik,
                 tolerance = 1e-10, info = nm)
  }
})

test_that("coef parametrisations convert and round-trip", {
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    par <- coef(fit)
    expect_named(par, c("mu", "gamma", "sigma", "p", "a", "b"))
    expect_equal(par$sigma, fit$parameters$sigma)
    # ghyp's chi/psi form, back
    gy <- coef(fit, parametrization = "ghyp")
    expect_named(gy, c("lambda", "chi", "psi", "mu", "sigma", "gamma"))
    sigma <- if (fit$d == 1L) matrix(gy$sigma^2) else gy$sigma
    expect_equal(unname(sigma), unname(par$sigma), tolerance = 1e-14)
    expect_equal(c(gy$lambda, gy$psi, gy$chi), c(par$p, par$a, par$b))
    expect_equal(unname(gy$mu), unname(par$mu))
    expect_equal(unname(gy$gamma), unname(par$gamma))
    # alpha.bar: E[W] = 1 fixes chi and psi from (lambda, alpha.bar)
    mean_y <- gig_mean(par$p, par$a, par$b)
    if (is.finite(mean_y)) {
      ab <- coef(fit, parametrization = "alpha.bar")
      expect_named(ab, c("lambda", "alpha.bar", "mu", "sigma", "gamma"))
      s <- 1 / mean_y
      expect_equal(ab$alpha.bar, sqrt(par$a * par$b), tolerance = 1e-12)
      if (ab$alpha.bar > 0) {
        lk <- log_besselK(ab$alpha.bar, ab$lambda + c(0, 1))
        psi <- ab$alpha.bar * exp(lk[2] - lk[1])
        expect_equal(psi, par$a / s, tolerance = 1e-10, info = nm)
        expect_equal(ab$alpha.bar^2 / psi, par$b * s, tolerance = 1e-10)
      }
      sig_ab <- if (fit$d == 1L) ab$sigma^2 else ab$sigma
      expect_equal(as.vector(sig_ab), as.vector(par$sigma / s),
                   tolerance = 1e-12)
      expect_equal(unname(ab$gamma), unname(par$gamma / s), tolerance = 1e-12)
    }
  }
})

test_that("the alpha form round-trips, is gauge-free, and has the limits", {
  back <- function(al) {
    # gauge Sigma = 1: gamma = beta, a = alpha^2 - beta^2, b = delta^2
    list(mu = al$mu, gamma = al$beta, sigma = 1, p = al$lambda,
         a = al$alpha^2 - al$beta^2, b = al$delta^2)
  }
  for (nm in c("nig_1", "gh_1", "vg_1", "skewt_1")) {
    fit <- fits[[nm]]
    al <- coef(fit, parametrization = "alpha")
    expect_named(al, c("lambda", "alpha", "beta", "delta", "mu"))
    par <- fit$parameters
    s <- par$sigma[[1]]
    bk <- back(al)
    # scale back to the fit's gauge: Sigma = s
    expect_equal(bk$gamma * s, unname(par$gamma), tolerance = 1e-12)
    expect_equal(bk$a * s, unname(par$a), tolerance = 1e-10, info = nm)
    expect_equal(bk$b / s, unname(par$b), tolerance = 1e-12, info = nm)
    expect_equal(bk$mu, unname(par$mu))
    expect_equal(bk$p, unname(par$p))
  }
  expect_identical(coef(fits$vg_1, parametrization = "alpha")$delta, 0)
  al_t <- coef(fits$skewt_1, parametrization = "alpha")
  expect_equal(al_t$alpha, abs(al_t$beta))
  # the same distribution in the det gauge gives the same alpha form
  det_fit <- fit_nig(r[, "DAX"], gauge = "det")
  expect_equal(coef(det_fit, parametrization = "alpha"),
               coef(fits$nig_1, parametrization = "alpha"), tolerance = 1e-6)
  expect_error(coef(fits$nig_4, parametrization = "alpha"),
               class = "ghmix_error_argument")
  # E[Y] infinite: no alpha.bar form
  heavy <- fits$skewt_1
  heavy$parameters$p <- -0.8
  heavy$gauge <- "det"
  expect_error(coef(heavy, parametrization = "alpha.bar"),
               class = "ghmix_error_argument")
})

test_that("the alpha form gives the classical NIG density", {
  fit <- fits$nig_1
  al <- coef(fit, parametrization = "alpha")
  x <- c(-0.05, -0.01, 0, 0.003, 0.02, 0.08)
  q <- sqrt(al$delta^2 + (x - al$mu)^2)
  dens <- al$alpha * al$delta * besselK(al$alpha * q, 1) / (pi * q) *
    exp(al$delta * sqrt(al$alpha^2 - al$beta^2) + al$beta * (x - al$mu))
  expect_equal(unname(predict(fit, x)), dens, tolerance = 1e-10)
})

test_that("dgh with the converted parameters gives the fitted density", {
  skip_if_not(exists("dgh", envir = asNamespace("ghmix")), "no dgh yet")
  dgh <- get("dgh", envir = asNamespace("ghmix"))
  for (nm in c("nig_1", "gh_1", "vg_1", "skewt_1", "nig_4", "skewt_4")) {
    fit <- fits[[nm]]
    gy <- coef(fit, parametrization = "ghyp")
    x <- fit$data[c(1, 10, 100, 1000), , drop = FALSE]
    if (fit$d == 1L) x <- x[, 1]
    expect_equal(
      dgh(x, gy$mu, gy$gamma, gy$sigma, gy$lambda, gy$psi, gy$chi, log = TRUE),
      unname(predict(fit, x, type = "log_density")),
      tolerance = 1e-10, info = nm
    )
  }
})

test_that("predict: densities, log-densities, moments, newdata", {
  for (nm in c("nig_1", "gh_1", "vg_1", "skewt_1")) {
    fit <- fits[[nm]]
    x <- fit$data[, 1]
    grid <- seq(min(x), max(x), length.out = 7)
    expect_equal(predict(fit, grid),
                 exp(predict(fit, grid, type = "log_density")))
    lo <- fit$parameters$mu[[1]]
    tot <- stats::integrate(function(t) predict(fit, t), -Inf, lo)$value +
      stats::integrate(function(t) predict(fit, t), lo, Inf)$value
    expect_equal(tot, 1, tolerance = 1e-6, info = nm)
  }
  fit <- fits$nig_4
  expect_equal(predict(fit, r[1:20, 4:1]), predict(fit, r[1:20, ]))
  expect_equal(predict(fit, as.data.frame(r[1:5, ])), predict(fit, r[1:5, ]))
  expect_equal(unname(predict(fit, r[3, ])), unname(predict(fit, r[3:4, ])[1]))
  nd <- r[1:4, ]
  nd[2, 3] <- NA
  dens <- predict(fit, nd)
  expect_true(is.na(dens[2]) && all(is.finite(dens[-2])))
  expect_error(predict(fit, r[1:4, 1:3]), class = "ghmix_error_argument")
  mom <- predict(fit, nd, type = "moments")
  expect_identical(dim(mom), c(4L, 3L))
  expect_true(all(is.na(mom[2, ])))
})

test_that("fitted: posterior moments of the mixing variable", {
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    m <- fitted(fit)
    expect_identical(dim(m), c(fit$nobs, 3L))
    expect_identical(colnames(m), c("E[Y|x]", "E[1/Y|x]", "E[log Y|x]"))
    expect_equal(m, predict(fit, type = "moments"))
    # Jensen: E[Y] E[1/Y] >= 1, log E[Y] >= E[log Y]
    expect_true(all(m[, 1] * m[, 2] >= 1 - 1e-12), info = nm)
    expect_true(all(log(m[, 1]) >= m[, 3] - 1e-12), info = nm)
  }
  # at the NIG maximum (a, b free, E[Y] = 1) the mean of E[Y | x] is E[Y]
  expect_equal(mean(fitted(fits$nig_4)[, 1]), 1, tolerance = 1e-5)
})

test_that("simulate: size, reproducibility, RNG state, moments", {
  fit <- fits$nig_1
  s1 <- simulate(fit, nsim = 3, seed = 123)
  s2 <- simulate(fit, nsim = 3, seed = 123)
  expect_identical(s1, s2)
  expect_s3_class(s1, "data.frame")
  expect_identical(dim(s1), c(fit$nobs, 3L))
  expect_identical(names(s1), c("sim_1", "sim_2", "sim_3"))
  expect_identical(attr(s1, "seed")[[1]], 123)
  # a given seed leaves the caller's stream alone
  set.seed(5)
  u1 <- stats::runif(2)
  set.seed(5)
  invisible(simulate(fit, seed = 1))
  expect_identical(stats::runif(2), u1)
  # seed = NULL continues the stream, as stats::simulate
  set.seed(7)
  a <- simulate(fit)
  set.seed(7)
  b <- simulate(fit)
  expect_identical(a, b)
  expect_false(identical(a$sim_1, simulate(fit)$sim_1))
  m <- simulate(fits$nig_4, nsim = 2, seed = 1)
  expect_type(m, "list")
  expect_identical(dim(m$sim_2), c(fits$nig_4$nobs, 4L))
  expect_identical(colnames(m$sim_1), colnames(r))
  # the mean of the draws is mu + gamma E[Y] (E[Y] = 1 in this gauge)
  big <- unlist(simulate(fit, nsim = 20, seed = 2))
  par <- fit$parameters
  se <- stats::sd(big) / sqrt(length(big))
  expect_lt(abs(mean(big) - (par$mu + par$gamma)), 4 * se)
})

test_that("plot draws each panel in base graphics", {
  skip_if_not(exists("qgh", envir = asNamespace("ghmix")), "no qgh yet")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  # the QQ plots (qgh) take most of the time: all panels for two families
  for (nm in c("nig_1", "vg_1")) {
    expect_invisible(plot(fits[[nm]]))
  }
  for (nm in c("gh_1", "skewt_1")) {
    expect_invisible(plot(fits[[nm]], which = 1:2))
  }
  set.seed(3)
  u <- stats::runif(1)
  set.seed(3)
  expect_invisible(plot(fits$nig_4, which = 2, nsim = 2000))
  expect_identical(stats::runif(1), u)
  expect_invisible(plot(fits$skewt_4, which = 2, nsim = 1000, seed = NULL))
  expect_invisible(plot(fits$gh_2, which = 1))
  expect_error(plot(fits$nig_4, which = 3), class = "ghmix_error_argument")
  expect_error(plot(fits$nig_1, which = 0), class = "ghmix_error_argument")
})

test_that("vcov: names, shape, gauge constraints, warnings", {
  v <- vcov(fits$nig_4)
  k <- as.integer(fits$nig_4$df + 1)
  expect_identical(dim(v), c(k, k))
  expect_identical(
    rownames(v)[c(1, 5, 9, 10, 19, 20)],
    c("mu[DAX]", "gamma[DAX]", "Sigma[DAX,DAX]", "Sigma[DAX,SMI]", "a", "b")
  )
  expect_equal(v, t(v))
  expect_true(all(diag(v) > 0))
  # gauge E[Y] = 1 for NIG is a = b: identical rows
  expect_equal(v["a", ], v["b", ], tolerance = 1e-8)
  # gauge det(Sigma) = 1: the variance of log det Sigma vanishes
  vd <- vcov(fits$nig_det_4)
  sig <- fits$nig_det_4$parameters$sigma
  grad_logdet <- 2 * solve(sig)
  diag(grad_logdet) <- diag(grad_logdet) / 2
  g <- grad_logdet[lower.tri(sig, diag = TRUE)]
  idx <- grep("^Sigma", rownames(vd))
  # relative to the bound sum |g_i| |V_ij| |g_j| of |g' V g|
  expect_lte(abs(drop(g %*% vd[idx, idx] %*% g)),
             1e-8 * drop(abs(g) %*% abs(vd[idx, idx]) %*% abs(g)))
  # mu does not depend on the gauge
  expect_equal(vd[1:4, 1:4], v[1:4, 1:4], tolerance = 1e-4)
  expect_identical(
    rownames(vcov(fits$nig_sym_2)),
    c("mu[DAX]", "mu[SMI]", "Sigma[DAX,DAX]", "Sigma[DAX,SMI]",
      "Sigma[SMI,SMI]", "a", "b")
  )
  expect_identical(rownames(vcov(fits$gh_1))[4:6], c("p", "a", "b"))
  expect_identical(rownames(vcov(fits$vg_1))[4:5], c("p", "a"))
  expect_identical(rownames(vcov(fits$skewt_1))[4:5], c("p", "b"))
  # not converged (and not at a maximum): classed warnings
  classes <- character()
  withCallingHandlers(
    vcov(fits$vg_4),
    warning = function(cnd) {
      classes <<- c(classes, class(cnd))
      invokeRestart("muffleWarning")
    }
  )
  expect_true("ghmix_warning_vcov" %in% classes)
  edge <- fits$gh_1
  edge$parameters$a <- 0
  edge$parameters$p <- -3
  expect_warning(ve <- vcov(edge), class = "ghmix_warning_vcov")
  expect_true(all(is.na(ve)))
})

# The score ------------------------------------------------------------------

# Central differences with one Richardson step.
num_grad <- function(f, x, h) {
  vapply(seq_along(x), function(i) {
    cd <- function(s) {
      up <- x
      dn <- x
      up[i] <- up[i] + s
      dn[i] <- dn[i] - s
      (f(up) - f(dn)) / (2 * s)
    }
    (4 * cd(h[i] / 2) - cd(h[i])) / 3
  }, 0)
}

test_that("the analytic score matches differences of the log-likelihood", {
  set.seed(21)
  cases <- list(
    list("nig", FALSE, true_par(2L, -0.5, 1.5, 1.5)),
    list("nig", TRUE, true_par(1L, -0.5, 1.5, 1.5)),
    list("gh", FALSE, true_par(2L, 1.5, 3, 0.4)),
    list("gh", FALSE, true_par(1L, -2.5, 0.5, 4)),
    list("vg", FALSE, true_par(2L, 3, 6, 0)),
    list("skewt", FALSE, true_par(3L, -4, 0, 6)),
    list("skewt", TRUE, true_par(1L, -4, 0, 6))
  )
  worst <- 0
  for (cs in cases) {
    family <- cs[[1]]
    symmetric <- cs[[2]]
    par <- cs[[3]]
    if (symmetric) par$gamma[] <- 0
    x <- draw_mix(400L, par)
    engine <- ghmix:::mix_engine_cpu(x, 1L)
    theta <- ghmix:::pack_nat(par, family, symmetric)
    steps <- ghmix:::steps_nat(par, family, symmetric)
    # a point away from the maximum: the score is far from zero there
    theta <- theta + 300 * steps * stats::rnorm(length(theta))
    at <- ghmix:::unpack_nat(theta, par, family, symmetric)
    st <- ghmix:::mix_estep(engine, at, ghmix:::mix_what(family))
    score <- ghmix:::score_nat(st, at, family, symmetric)
    loglik <- function(th) {
      q <- ghmix:::unpack_nat(th, par, family, symmetric)
      ghmix:::mix_estep(engine, q, 1L)$loglik
    }
    num <- num_grad(loglik, theta, 10 * steps)
    scale <- abs(num) + 1e-6 * max(abs(num))
    err <- max(abs(score - num) / scale)
    worst <- max(worst, err)
    expect_lt(err, 1e-6)
    expect_gt(max(abs(score * steps)), 1e-3)
  }
  expect_lt(worst, 1e-6)
})

# Standard errors ------------------------------------------------------------

test_that("NIG d = 1: vcov equals the inverse Hessian in a gauge chart", {
  set.seed(31)
  truth <- true_par(1L, -0.5, 1.5, 1.5)
  x <- draw_mix(3000L, truth)
  fit <- fit_nig(x, gauge = "det", start = truth)
  par <- fit$parameters
  expect_equal(par$sigma[[1]], 1)
  # the chart (mu, gamma, a, b) with Sigma = 1 fixes the gauge
  engine <- ghmix:::mix_engine_cpu(x, 1L)
  loglik <- function(th) {
    q <- par
    q$mu[] <- th[1]
    q$gamma[] <- th[2]
    q$a <- th[3]
    q$b <- th[4]
    ghmix:::mix_estep(engine, q, 1L)$loglik
  }
  theta <- c(par$mu, par$gamma, par$a, par$b)
  h <- 1e-3 * c(1, 1, par$a, par$b)
  hess <- matrix(0, 4, 4)
  for (i in 1:4) for (j in 1:4) {
    f <- function(si, sj) {
      th <- theta
      th[i] <- th[i] + si * h[i]
      th[j] <- th[j] + sj * h[j]
      loglik(th)
    }
    hess[i, j] <- (f(1, 1) - f(1, -1) - f(-1, 1) + f(-1, -1)) /
      (4 * h[i] * h[j])
  }
  cov_chart <- diag(h) %*% solve(-diag(h) %*% hess %*% diag(h)) %*% diag(h)
  v <- vcov(fit)
  keep <- c("mu[u]", "gamma[u]", "a", "b")
  expect_equal(unname(v[keep, keep]), cov_chart, tolerance = 1e-4)
  expect_equal(unname(v["Sigma[u,u]", ]), rep(0, 5), tolerance = 1e-12)
  # the same fit in the gauge E[Y] = 1: the delta method through the map
  # from the chart, (mu, gamma, a, b) -> (mu, s gamma, s, s a, b / s) where
  # s is the mean of Y
  to_mean <- function(th) {
    s <- gig_mean(-0.5, th[3], th[4])
    c(th[1], s * th[2], s, s * th[3], th[4] / s)
  }
  jac <- vapply(1:4, function(i) {
    up <- theta
    dn <- theta
    up[i] <- up[i] + h[i]
    dn[i] <- dn[i] - h[i]
    (to_mean(up) - to_mean(dn)) / (2 * h[i])
  }, numeric(5))
  # the same fit in the other gauge
  fit_mean <- fit
  fit_mean$parameters <- ghmix:::set_gauge(par, "mean")
  fit_mean$gauge <- "mean"
  expect_equal(unname(vcov(fit_mean)), unname(jac %*% cov_chart %*% t(jac)),
               tolerance = 1e-4)
  # and the estimates lie within a few standard errors of the truth
  z <- (ghmix:::pack_nat(fit_mean$parameters, "nig", FALSE) -
          ghmix:::pack_nat(truth, "nig", FALSE)) /
    sqrt(diag(vcov(fit_mean)))
  expect_true(all(abs(z) < 4))
})

test_that("NIG and skew-t d = 2: z-scores of the estimates against the truth", {
  set.seed(41)
  for (cs in list(list("nig", -0.5, 1.5, 1.5, 10000L),
                  list("skewt", -4, 0, 6, 4000L))) {
    truth <- true_par(2L, cs[[2]], cs[[3]], cs[[4]])
    # the truth in the gauge E[Y] = 1
    truth <- ghmix:::set_gauge(truth, "mean")
    x <- draw_mix(cs[[5]], truth)
    fit <- if (cs[[1]] == "nig") {
      fit_nig(x, start = truth)
    } else {
      fit_skewt(x, start = truth)
    }
    v <- vcov(fit)
    z <- (ghmix:::pack_nat(fit$parameters, cs[[1]], FALSE) -
            ghmix:::pack_nat(truth, cs[[1]], FALSE)) / sqrt(diag(v))
    expect_true(all(abs(z) < 4.5), info = cs[[1]])
    expect_lt(sqrt(mean(z^2)), 2.5)
  }
})

test_that("NIG d = 2: standard errors match a Monte Carlo", {
  set.seed(51)
  truth <- true_par(2L, -0.5, 1.5, 1.5)
  reps <- 30L
  est <- matrix(NA_real_, reps, 9L)
  se <- est
  for (i in seq_len(reps)) {
    fit <- fit_nig(draw_mix(2000L, truth), start = truth)
    est[i, ] <- ghmix:::pack_nat(fit$parameters, "nig", FALSE)
    se[i, ] <- sqrt(diag(vcov(fit)))
  }
  ratio <- apply(est, 2L, stats::sd) / colMeans(se)
  # the sd of 30 estimates is within about 13 % of the truth
  expect_true(all(ratio > 0.6 & ratio < 1.5))
  expect_gt(mean(ratio), 0.85)
  expect_lt(mean(ratio), 1.15)
})
