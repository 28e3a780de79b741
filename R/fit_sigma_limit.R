# The boundary Sigma -> 0 of a univariate fit (issue 31, item 10).  With
# Sigma = sigma^2 -> 0 the law of X = mu + gamma Y + sigma sqrt(Y) Z tends
# to that of mu + gamma Y: the mixing law itself, shifted by mu and scaled
# (reflected where gamma < 0) by gamma.  Where the data are best described
# by it (faithful's eruption times: a NIG whose likelihood is flat in
# sigma below 1e-3, its supremum at sigma = 0) the EM creeps towards the
# boundary and stops at max_iter.  After an EM that did not converge, with
# d = 1, gamma != 0 and the normal part's share sigma^2 E[Y] / Var(X)
# below sigma_limit_share, the limit law is fitted by maximum likelihood
# (nlminb() over mu beyond the range of the rows, and the mixing law of
# Y' = |gamma| Y, whose scale absorbs |gamma|); where it is at least as
# likely as the EM's last point, the fit reports it: its message says that
# the supremum is at the boundary and what the law there is, and `limit`
# holds it.

sigma_limit_share <- 1e-3

# NULL, or list(message, limit): limit = list(law, loglik, mu, sign, p, a,
# b) in the data's units, the law of mu + sign Y', Y' ~ GIG(p, a, b).
sigma_limit <- function(em, ctx, src, family) {
  par <- em$point$par
  if (!sigma_limit_applies(em, ctx, src)) {
    return(NULL)
  }
  share <- sigma_limit_normal_share(par)
  if (!isTRUE(share < sigma_limit_share)) {
    return(NULL)
  }
  rows <- src$stored[, 1L]
  if (!is.null(src$scaling)) {
    rows <- (rows - src$scaling$center) / src$scaling$scale
  }
  w <- weights_in_sums(src$weights)
  lim <- sigma_limit_fit(rows, par, family, w)
  if (is.null(lim) || !(lim$loglik >= em$point$loglik)) {
    return(NULL)
  }
  lim <- sigma_limit_units(lim, src$scaling, src$nobs)
  list(limit = lim, message = sigma_limit_message(lim, share, family))
}

# An EM that did not converge, of one column in memory, without held
# parameters or a prior, at a valid point with gamma != 0.
sigma_limit_applies <- function(em, ctx, src) {
  all(c(!em$status$converged, ctx$engine$d == 1L, is.matrix(src$stored),
        is.null(ctx$fixed), is.null(ctx$shrink), isTRUE(em$point$ok),
        isTRUE(em$point$par$gamma != 0)))
}

# sigma^2 E[Y] / (sigma^2 E[Y] + gamma^2 Var(Y)), free of the gauge.
sigma_limit_normal_share <- function(par) {
  eta <- gig_expectation(par$p, par$a, par$b)
  m <- eta[1L, "E_y"]
  v <- gig_var(par$p, par$a, par$b)
  s2 <- drop(par$sigma)
  s2 * m / (s2 * m + par$gamma^2 * v)
}

# The maximum-likelihood fit of mu + sign Y' (Y' ~ GIG(p, a, b) with the
# family's constraints) to the rows x (weights w or NULL), from the EM's
# last parameters par: NULL where it fails.
sigma_limit_fit <- function(x, par, family, w) {
  sgn <- sign(par$gamma)
  end <- if (sgn > 0) min(x) else max(x)
  g <- abs(par$gamma)
  spread <- diff(range(x))
  v0 <- c(log(max(sgn * (end - par$mu), 1e-3 * spread)),
          sigma_limit_pack(par$p, par$a / g, par$b * g, family))
  unpack <- function(v) {
    c(list(mu = unname(end - sgn * exp(v[[1L]]))),
      sigma_limit_unpack(v[-1L], family))
  }
  loglik <- function(v) {
    u <- unpack(v)
    l <- suppressWarnings(dgig(sgn * (x - u$mu), u$p, u$a, u$b, log = TRUE))
    s <- if (is.null(w)) sum(l) else sum(w * l)
    if (is.finite(s)) s else -Inf
  }
  opt <- tryCatch(
    stats::nlminb(v0, function(v) -loglik(v),
                  control = list(rel.tol = 1e-13, iter.max = 1000L,
                                 eval.max = 2000L)),
    error = function(e) NULL
  )
  if (is.null(opt) || !is.finite(opt$objective)) {
    return(NULL)
  }
  c(unpack(opt$par), list(loglik = -opt$objective, sign = unname(sgn)))
}

# The mixing law's free parameters, in logs where positive.
sigma_limit_pack <- function(p, a, b, family) {
  switch(family,
    nig = c(log(a), log(b)),
    gh = c(p, log(a), log(b)),
    vg = c(log(p), log(a)),
    skewt = c(log(-p), log(b))
  )
}

sigma_limit_unpack <- function(v, family) {
  switch(family,
    nig = list(p = -0.5, a = exp(v[[1L]]), b = exp(v[[2L]])),
    gh = list(p = v[[1L]], a = exp(v[[2L]]), b = exp(v[[3L]])),
    vg = list(p = exp(v[[1L]]), a = exp(v[[2L]]), b = 0),
    skewt = list(p = -exp(v[[1L]]), a = 0, b = exp(v[[2L]]))
  )
}

# The limit in the data's units (sc: the fit's scaling, R/fit_scaling.R,
# or NULL): mu = c + s mu_z, Y' = s Y'_z, the log-likelihood less n log s.
sigma_limit_units <- function(lim, sc, nobs) {
  label <- c(nig = "inverse Gaussian", gh = "generalized inverse Gaussian",
             vg = "gamma", skewt = "inverse gamma")
  out <- lim[c("mu", "sign", "p", "a", "b", "loglik")]
  if (!is.null(sc)) {
    s <- sc$scale[[1L]]
    out$mu <- sc$center[[1L]] + s * lim$mu
    out$a <- lim$a / s
    out$b <- lim$b * s
    out$loglik <- lim$loglik - nobs * log(s)
  }
  out
}

sigma_limit_message <- function(lim, share, family) {
  law <- switch(family,
    nig = "an inverse Gaussian", gh = "a generalized inverse Gaussian",
    vg = "a gamma", skewt = "an inverse gamma"
  )
  sprintf(
    paste(
      "the likelihood's supremum is at the boundary Sigma -> 0 (the normal",
      "part's share of the variance fell to %.2g), where the %s is the law",
      "of mu + gamma Y: %s law %s at mu = %.7g (%s: p = %.6g, a = %.6g, b =",
      "%.6g), log-likelihood %.10g; `limit` holds it, and the parameters",
      "are the EM's last"
    ),
    share, mix_family(family)$label, law,
    if (lim$sign > 0) "shifted" else "reflected and shifted", lim$mu,
    if (lim$sign > 0) "mu + Y', Y'" else "mu - Y', Y'", lim$p, lim$a, lim$b,
    lim$loglik
  )
}
