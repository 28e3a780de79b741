# vcov() of factor fits with parameters held (`fixed`, issue 15): rows and
# columns of 0 for those held (absent for gamma = 0, the symmetric fit), as
# for a full Sigma (test-vcov-fixed.R), and the free block against the
# central-difference Hessian of the plain-R log-likelihood (helper-fvcov.R)
# in a chart of the free parameters (F lower triangular; b held at its
# value where the scaling is free, else solved from E[Y] = 1), mapped to
# the reported parameters by the delta method.

fvfix_ctl <- function() {
  ghmix_control(tol = 1e-14, param_tol = 1e-12, max_iter = 5000L)
}

# The chart: mu, gamma (those not held), F's lower triangle (F rotated so
# that F[1, 2] = 0 for r = 2), D and the free ones of p and a; b is solved
# from E[Y] = 1 where a, b or a nonzero gamma are held (the gauge is then
# no orbit), else held.
fvfix_chart <- function(fit) {
  par <- fit$parameters
  f <- par$loadings
  if (ncol(f) == 2L) {
    rho <- sqrt(f[1, 1]^2 + f[1, 2]^2)
    f <- f %*% matrix(c(f[1, 1], f[1, 2], -f[1, 2], f[1, 1]) / rho, 2L, 2L)
  }
  held <- names(fit$fixed)
  low <- lower.tri(f, diag = TRUE)
  keep <- c(if (!"mu" %in% held) "mu",
            if (!fit$symmetric && !"gamma" %in% held) "gamma", "f", "dd")
  mix <- setdiff(c("p", "a"), held)
  parts <- list(mu = par$mu, gamma = par$gamma, f = f[low],
                dd = par$uniquenesses)
  list(psi = unname(c(unlist(parts[keep]), unlist(par[mix]))), keep = keep,
       mix = mix, low = low, f = f, par = par,
       solve_b = any(c("a", "b") %in% held) ||
         (!is.null(fit$fixed$gamma) && any(fit$fixed$gamma != 0)))
}

fvfix_unpsi <- function(psi, ch) {
  take <- function(k) {
    out <- psi[seq_len(k)]
    psi <<- psi[k + seq_len(length(psi) - k)]
    out
  }
  par <- ch$par
  out <- list(mu = par$mu, gamma = par$gamma, f = 0 * ch$f,
              dd = par$uniquenesses)
  for (nm in ch$keep) {
    if (nm == "f") out$f[ch$low] <- take(sum(ch$low)) else
      out[[nm]] <- take(length(par$mu))
  }
  mix <- par[c("p", "a", "b")]
  mix[ch$mix] <- as.list(psi)
  if (ch$solve_b) {
    lb <- stats::uniroot(function(lb) log(gig_mean(mix$p, mix$a, exp(lb))),
                         log(mix$b) + c(-0.5, 0.5), extendInt = "yes",
                         tol = 1e-15)$root
    mix$b <- exp(lb)
  }
  c(out, mix)
}

# The reported parameters (test-factor-vcov.R's fvcov_report(), gamma left
# out of a symmetric fit).
fvfix_report <- function(q, symmetric) {
  f <- q$f %*% eigen(crossprod(q$f, q$f / q$dd), symmetric = TRUE)$vectors
  top <- apply(f, 2L, function(v) v[which.max(abs(v))])
  f <- f %*% diag(sign(top), ncol(f))
  s <- 1 / gig_mean(q$p, q$a, q$b)
  c(q$mu, if (!symmetric) q$gamma / s, f / sqrt(s), q$dd / s, q$p, q$a / s,
    q$b * s)
}

fvfix_reference <- function(fit, hrel = 1e-3) {
  x <- fit$data
  ch <- fvfix_chart(fit)
  sd_x <- sqrt(diag(stats::cov(x)))
  scale <- list(mu = sd_x, gamma = sd_x, f = sd_x[row(ch$low)[ch$low]],
                dd = ch$par$uniquenesses)
  h <- hrel * c(unlist(scale[ch$keep]), abs(unlist(ch$par[ch$mix])))
  hess <- fvcov_hessian(function(p) fvcov_loglik(x, fvfix_unpsi(p, ch)),
                        ch$psi, h)
  report <- function(p) fvfix_report(fvfix_unpsi(p, ch), fit$symmetric)
  jac <- vapply(seq_along(ch$psi), function(i) {
    up <- ch$psi
    dn <- ch$psi
    up[i] <- up[i] + h[i] / 10
    dn[i] <- dn[i] - h[i] / 10
    (report(up) - report(dn)) / (2 * h[i] / 10)
  }, numeric(length(report(ch$psi))))
  jac %*% solve(-hess, t(jac))
}

# v: rank df, exact 0 in the rows of held, the rest the reference's
fvfix_check <- function(fit, held, label) {
  expect_true(fit$converged)
  v <- vcov(fit)
  ev <- eigen(v, symmetric = TRUE, only.values = TRUE)$values
  expect_identical(sum(ev > 1e-9 * ev[1]), as.integer(fit$df), label = label)
  rows <- rownames(v) %in% held | sub("\\[.*", "", rownames(v)) %in% held
  expect_identical(unname(v[rows, , drop = FALSE]),
                   matrix(0, sum(rows), ncol(v)), label = label)
  ref <- fvfix_reference(fit)
  dimnames(ref) <- dimnames(v)
  free <- !rows
  expect_equal(sqrt(diag(v)[free]), sqrt(diag(ref)[free]),
               tolerance = 2e-3, label = label)
  expect_lt(max(abs(cov2cor(v[free, free]) - cov2cor(ref[free, free]))),
            1e-3, label = label)
  v
}

test_that("vcov() of factor fits with mu, p, gamma = 0 held", {
  x <- fvcov_sim(500, 4, 1, "gh", 11)
  ctl <- fvfix_ctl()
  mu <- signif(fit_gh(x, factors = 1, control = ctl)$parameters$mu, 2)
  fvfix_check(fit_gh(x, factors = 1, fixed = list(mu = mu), control = ctl),
              "mu", "mu")
  fvfix_check(fit_gh(x, factors = 1, fixed = list(p = 1), control = ctl),
              "p", "p")
  fit <- fit_gh(x, factors = 1, fixed = list(gamma = 0), control = ctl)
  v <- fvfix_check(fit, character(), "gamma = 0")
  expect_false(any(startsWith(rownames(v), "gamma[")))
})

test_that("vcov() of factor fits with a or a nonzero gamma held", {
  x <- fvcov_sim(500, 5, 2, "gh", 12)
  ctl <- fvfix_ctl()
  free <- fit_gh(x, factors = 2, control = ctl)$parameters
  fvfix_check(fit_gh(x, factors = 2, fixed = list(a = signif(free$a, 2)),
                     control = ctl), "a", "a")
  gam <- signif(free$gamma, 2)
  fvfix_check(fit_gh(x, factors = 2, fixed = list(gamma = gam),
                     control = ctl), "gamma", "gamma")
})

# For d = 3, r = 1 the factor model is the full-Sigma model (6 parameters
# for Sigma's 6; for d = 2 the factor model has 4 for 3 and is not
# identified: its information is singular along a ridge), so the
# covariance of mu, gamma, p, a, b, which does not depend on how Sigma is
# parametrised, is the full fit's with the same `fixed`.  The two fits
# differ by the EM's convergence: with p held their log-likelihoods agree
# to 1e-12 and the covariances to 6e-8 (relative to the standard errors);
# with a held (the gauge M-step converges more slowly) to 4e-10 and 9e-5,
# so 1e-6 and 1e-3 leave a margin of 10 or more.
test_that("vcov() of factor fits with fixed, d = 3, r = 1: the full fit's", {
  set.seed(5)
  x <- rgh(600, stats::rnorm(3), stats::rnorm(3) * 0.3,
           factor_cov(matrix(c(1, 0.8, 0.9)), c(0.5, 0.6, 0.4)), 1, 2, 1)
  colnames(x) <- paste0("v", 1:3)
  ctl <- fvfix_ctl()
  for (fx in list(list(p = 1), list(a = 2))) {
    vf <- vcov(fit_gh(x, factors = 1, fixed = fx, control = ctl))
    vs <- vcov(fit_gh(x, fixed = fx, control = ctl))
    keep <- c(sprintf("mu[v%d]", 1:3), sprintf("gamma[v%d]", 1:3), "p", "a",
              "b")
    held <- keep == names(fx)
    expect_identical(unname(vf[names(fx), ]), rep(0, nrow(vf)))
    se <- sqrt(diag(vs)[keep[!held]])
    diff <- (vf - vs)[keep[!held], keep[!held]] / tcrossprod(se)
    expect_lt(max(abs(diff)), if (names(fx) == "p") 1e-6 else 1e-3,
              label = names(fx))
  }
})

# Data scaled by 2^-200 are fitted standardised (R/fit_scaling.R): vcov()
# in those units and back, which is the unscaled fit's times 2^-200 per
# unit of x (mu, gamma, F; D twice) up to the two fits' convergence (with
# p held 4e-10, with a held 8e-6 relative to the standard errors).
test_that("vcov() of a standardised factor fit with fixed", {
  x <- fvcov_sim(400, 4, 1, "gh", 11)
  ctl <- fvfix_ctl()
  s <- 2^-200
  units <- c(rep(1, 12), rep(2, 4), 0, 0, 0)
  for (fx in list(list(a = 2), list(p = 1))) {
    fz <- fit_gh(x * s, factors = 1, fixed = fx, control = ctl)
    expect_false(is.null(fz$scaling))
    vz <- vcov(fz)
    v1 <- vcov(fit_gh(x, factors = 1, fixed = fx, control = ctl))
    expect_identical(unname(vz[names(fx), ]), rep(0, nrow(vz)))
    se <- sqrt(diag(v1))
    se[se == 0] <- 1
    diff <- (vz / s^outer(units, units, "+") - v1) / tcrossprod(se)
    expect_lt(max(abs(diff)), 1e-4, label = names(fx))
  }
})
