# Standard errors of a fit from the observed information.
#
# The parameter vector theta of the family (before the gauge): mu, gamma
# (unless symmetric), the distinct entries of sigma (lower triangle, column
# by column: Sigma[1,1], Sigma[1,2], ..., Sigma[1,d], Sigma[2,2], ...) and
# the mixing parameters the family leaves free (mix_family()$free).
#
# Score (Fisher's identity): the gradient of the observed log-likelihood is
# the posterior expectation of the complete-data score, a function of the
# E-step sums at theta.  The observed information J is minus the Jacobian of
# that score, by central differences (2 k E-steps for k parameters).  J is
# singular along the orbit of the scaling (gamma, sigma, a, b) -> (gamma / s,
# sigma / s, a / s, b s); the covariance of the gauge-fixed estimate
# N(theta) = set_gauge(theta, gauge) is G (J + c v v')^-1 G', with v the
# orbit's tangent and G the Jacobian of N, for any c > 0 (G v = 0 makes the
# result independent of c).

#' Covariance matrix of the estimates of a GH-family fit
#'
#' The asymptotic covariance of the maximum-likelihood estimates from the
#' observed information, for the parameters as reported in the fit's gauge:
#' \eqn{\mu}, \eqn{\gamma} (unless the fit is symmetric), the distinct
#' entries of \eqn{\Sigma}, and the mixing parameters the family leaves free
#' (`p` for GH, VG and skew-t; `a` and/or `b`). A penalised fit (`shrink`)
#' has none: an error of class `ghmix_error_shrink`.
#'
#' The score of the observed log-likelihood is computed analytically by
#' Fisher's identity (the posterior expectation of the complete-data score,
#' from one E-step); the observed information is minus its Jacobian, by
#' central differences. That costs about \eqn{2k} E-steps for \eqn{k}
#' parameters (\eqn{k = 2d + d(d+1)/2 + 3} at most), i.e. about as much as
#' \eqn{k} EM iterations. The information is singular along the scaling
#' \eqn{(\gamma, \Sigma, a, b) \to (\gamma/s, \Sigma/s, a/s, bs)} that the
#' gauge removes; the covariance is that of the gauge-fixed estimates (the
#' delta method through the map onto the gauge), so it has rank `df`, one
#' less than its number of rows: in the `"det"` gauge
#' \eqn{\det\Sigma = 1} ties the entries of \eqn{\Sigma} together (for
#' \eqn{d = 1}, \eqn{\Sigma = 1} has standard error 0), and in the `"mean"`
#' gauge \eqn{E[Y] = 1} ties the mixing parameters together (for NIG,
#' \eqn{a = b}).
#'
#' For a fit with parameters held (`fit_gh(fixed = )`, [fit_hyperbolic()]),
#' the information is that of the free parameters only (the held ones at
#' their values): the covariance of the constrained estimates, with rows and
#' columns of 0 for those held (`mu`, `gamma`, `p`, `a`, `b`). Where `a`,
#' `b` or a nonzero `gamma` are held (in the gauge \eqn{E[Y] = 1}), the
#' information is that of the constrained likelihood along the (curved) set
#' of parameters with \eqn{E[Y] = 1} and the held values, and the mixing
#' parameter \eqn{E[Y] = 1} determines has a variance of its own.
#'
#' For a factor-analytic fit (`factors = r`), the parameters are
#' \eqn{\mu}, \eqn{\gamma}, the loadings \eqn{F} (column by column, in the
#' reported rotation: \eqn{F' D^{-1} F} diagonal and decreasing, each
#' column's largest entry positive), the uniquenesses \eqn{D} and the
#' mixing parameters, named `"F[name,Fk]"` and `"D[name]"` for \eqn{F} and
#' \eqn{D}. The information is singular along the rotations of \eqn{F} as
#' well as along the scaling; the covariance is that of the estimates under
#' the \eqn{r(r-1)/2} constraints of the rotation and the gauge (Silvey's
#' constrained information, Silvey 1959, \emph{Ann. Math. Statist.} 30,
#' 389--407), of rank `df`. Parameters held (`fixed`) are treated as for a
#' full \eqn{\Sigma}: rows and columns of 0 (none for `gamma = 0`, the
#' symmetric fit), the information of the free parameters, and with `a`,
#' `b` or a nonzero `gamma` held that along the set with \eqn{E[Y] = 1}
#' and the held values, where the scaling is no longer a null direction
#' (only the rotations are); the rank is still `df`. The score costs
#' \eqn{O(d r)} per row (no \eqn{d \times d}{d x d} matrix); the
#' information has \eqn{k = 3d + d r + 3} rows at most, and fits with
#' \eqn{k > 5000} are refused (an error of class `ghmix_error_factor_mode`;
#' `summary()` then shows no standard errors). A mixture of factor members
#' (`components` with `factors`:
#' [ghmix_mixture]) has the same treatment per component: the mixture's
#' information, singular along each component's scaling and rotations,
#' with the constraints of each component's rotation and gauge (rank
#' `df`; \eqn{k} counts all the components' parameters and the \eqn{G -
#' 1} free proportions).
#'
#' Standard errors are meaningful only at a maximum: for a fit that did not
#' converge, or where the information is not positive definite, `vcov()`
#' warns (class `ghmix_warning_vcov`); in the second case, and for a GH fit
#' on the boundary of the family (\eqn{a = 0} or \eqn{b = 0}, the skew-t
#' and variance-gamma limits), the result is all `NA`.
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param cluster Where the E-steps run, as in [fit_nig()]: `NULL` here (a
#'   fit of chunked data reads its chunks one at a time), a `parallel`
#'   cluster or `"future"` (for full and factor fits alike: the rows of a
#'   fit in memory are split among the workers, and their sums added in
#'   chunk order).
#' @param ... Not used.
#' @return A symmetric matrix with rows and columns named `"mu[name]"`,
#'   `"gamma[name]"`, `"Sigma[name1,name2]"`, `"p"`, `"a"`, `"b"` (those
#'   that the fit estimates), where the names are the data's column names.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' sqrt(diag(vcov(fit)))
vcov.ghmix_fit <- function(object, cluster = NULL, ...) {
  vcov_check_shrink(object, sys.call())
  if (!is.null(object$factors)) {
    return(factor_vcov(object, cluster, sys.call()))
  }
  sc <- object$scaling
  if (!is.null(sc)) {
    # a standardised fit: in its units, then by the (linear) change of units
    # (a held parameter's rows stay 0)
    out <- stats::vcov(fit_std_view(object), cluster = cluster)
    lf <- scaling_log_factors(sc, object$family, object$symmetric)
    out[] <- out * exp(outer(lf, lf, "+"))
    return(out)
  }
  nm <- fit_vcov_names(colnames(object$data), object$family,
                       object$symmetric)
  na_cov <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  if (vcov_warn_fit(object)) {
    return(na_cov)
  }
  par <- object$parameters
  family <- object$family
  symmetric <- object$symmetric
  engine <- fit_engine(object, cluster) # the data, or its chunks
  on.exit(engine$free())
  theta <- fit_pack(par, family, symmetric)
  free <- fit_free(object, nm)
  steps <- fit_steps(par, family, symmetric)
  if (fixed_in_gauge(object$fixed)) {
    return(vcov_gauge_held(object, engine, par, nm, steps, na_cov))
  }
  info <- fit_information(engine, par, family, symmetric, steps, free)
  cov_theta <- fit_gauge_inverse(
    info, fit_orbit(par, family, symmetric)[free], steps[free]
  )
  if (is.null(cov_theta)) {
    warn_vcov(paste(
      "the observed information is not positive definite (the fit is not",
      "at a maximum of the likelihood); no standard errors"
    ))
    return(na_cov)
  }
  jac <- fit_gauge_jacobian(theta, par, family, symmetric, object$gauge,
                            steps, free)
  out <- na_cov
  out[] <- 0
  cov_free <- jac %*% cov_theta %*% t(jac)
  out[free, free] <- (cov_free + t(cov_free)) / 2
  out
}

warn_vcov <- function(message) {
  ghmix_warn(message, class = "ghmix_warning_vcov")
}

# The warnings of vcov() before the information: a fit that did not
# converge; a GH fit on the boundary of the family (TRUE: no standard
# errors).
vcov_warn_fit <- function(object) {
  par <- object$parameters
  if (!isTRUE(object$converged)) {
    warn_vcov(sprintf(
      paste(
        "the fit did not converge (%s); standard errors at its last",
        "parameters are not those of a maximum"
      ),
      object$message
    ))
  }
  if (object$family == "gh" && (par$a == 0 || par$b == 0)) {
    warn_vcov(sprintf(
      paste(
        "the GH fit lies on the boundary of the family (%s = 0: the %s",
        "limit), where the information is not defined; no standard errors",
        "(fit that limit with %s)"
      ),
      if (par$a == 0) "a" else "b",
      if (par$a == 0) "skew-t" else "variance gamma",
      if (par$a == 0) "fit_skewt()" else "fit_vg()"
    ))
    return(TRUE)
  }
  FALSE
}

# Packing --------------------------------------------------------------------

fit_vcov_names <- function(vars, family, symmetric) {
  idx <- which(lower.tri(diag(length(vars)), diag = TRUE), arr.ind = TRUE)
  c(
    sprintf("mu[%s]", vars),
    if (!symmetric) sprintf("gamma[%s]", vars),
    sprintf("Sigma[%s,%s]", vars[idx[, 2L]], vars[idx[, 1L]]),
    mix_family(family)$free
  )
}

# TRUE for the coordinates of theta (named nm) that the fit estimates:
# not mu or p where `fixed` holds them.
fit_free <- function(object, nm) {
  held <- names(object$fixed)
  free <- rep(TRUE, length(nm))
  if ("mu" %in% held) free[seq_along(object$parameters$mu)] <- FALSE
  if ("p" %in% held) free[nm == "p"] <- FALSE
  free
}

fit_pack <- function(par, family, symmetric) {
  sigma <- par$sigma
  unname(c(
    par$mu, if (!symmetric) par$gamma,
    sigma[lower.tri(sigma, diag = TRUE)],
    unlist(par[mix_family(family)$free])
  ))
}

# The parameter list at theta; fixed parameters (gamma of a symmetric fit,
# the mixing parameters the family fixes) are taken from par.
fit_unpack <- function(theta, par, family, symmetric) {
  d <- length(par$mu)
  par$mu[] <- theta[seq_len(d)]
  k <- d
  if (!symmetric) {
    par$gamma[] <- theta[k + seq_len(d)]
    k <- k + d
  }
  m <- d * (d + 1L) / 2L
  low <- lower.tri(par$sigma, diag = TRUE)
  sigma <- par$sigma
  sigma[low] <- theta[k + seq_len(m)]
  sigma[upper.tri(sigma)] <- t(sigma)[upper.tri(sigma)]
  par$sigma <- sigma
  free <- mix_family(family)$free
  for (i in seq_along(free)) {
    par[[free[i]]] <- theta[k + m + i]
  }
  par
}

# Tangent of the scaling orbit s -> (gamma / s, sigma / s, a / s, b s) at
# s = 1, in theta's coordinates.
fit_orbit <- function(par, family, symmetric) {
  orbit <- par
  orbit$mu[] <- 0
  orbit$gamma <- -par$gamma
  orbit$sigma <- -par$sigma
  orbit$p <- 0
  orbit$a <- -par$a
  orbit$b <- par$b
  fit_pack(orbit, family, symmetric)
}

# Step sizes of the finite differences and natural scales of theta's
# coordinates: Y's own scale m (sqrt(b / a), or the mean of the gamma or
# inverse-gamma limit), X's spread sqrt(m Sigma_jj) for mu, gamma's
# sqrt(Sigma_jj / m), sqrt(Sigma_jj Sigma_kk) for Sigma_jk, relative steps
# for a and b, absolute ones for p (relative where its sign is fixed).
fit_steps <- function(par, family, symmetric, h = 1e-4) {
  m <- fit_y_scale(par)
  sd_x <- sqrt(diag(par$sigma))
  scale <- list(
    mu = sqrt(m) * sd_x, gamma = sd_x / sqrt(m),
    sigma = tcrossprod(sd_x), p = family_get(family)$step_p(par),
    a = par$a, b = par$b
  )
  h * fit_pack(scale, family, symmetric)
}

# Y's own scale: sqrt(b / a), or the mean of the gamma or inverse-gamma
# limit.
fit_y_scale <- function(par) {
  if (par$a > 0 && par$b > 0) {
    sqrt(par$b / par$a)
  } else if (par$b == 0) {
    2 * par$p / par$a
  } else {
    par$b / (-2 * par$p)
  }
}

# Score ----------------------------------------------------------------------

# The analytic score of the observed log-likelihood at par from the E-step
# statistics st at par (sums taken about par$mu).
fit_score <- function(st, par) {
  n <- st$tau # the rows, or the sum of their weights
  prec <- chol2inv(chol(par$sigma))
  gam <- par$gamma
  s_y <- st$s_y
  u_sum <- st$sx
  mm <- st$sxx - tcrossprod(u_sum, gam) - tcrossprod(gam, u_sum) +
    s_y * tcrossprod(gam)
  # d/dSigma as a symmetric matrix; by the distinct entries that is twice
  # the off-diagonal and once the diagonal
  g_sigma <- -n / 2 * prec + prec %*% mm %*% prec / 2
  g_sigma <- 2 * g_sigma
  diag(g_sigma) <- diag(g_sigma) / 2
  score <- list(
    mu = drop(prec %*% (st$sxw - n * gam)),
    gamma = drop(prec %*% (u_sum - s_y * gam)),
    sigma = g_sigma
  )
  c(score, fit_score_mixing(st, par$p, par$a, par$b))
}

# d/d(p, a, b) of the complete-data log-likelihood's expectation: n times
# the derivatives of the GIG log normalising constant c(p, a, b) plus the
# sums of the sufficient statistics (log y, -y / 2, -1 / (2 y)).
fit_score_mixing <- function(st, p, a, b) {
  n <- st$tau
  if (b == 0) {
    # gamma limit: c = p log(a / 2) - lgamma(p)
    return(list(
      p = n * (log(a / 2) - digamma(p)) + st$s_log,
      a = n * p / a - st$s_y / 2, b = NA_real_
    ))
  }
  if (a == 0) {
    # inverse-gamma limit: c = -p log(b / 2) - lgamma(-p)
    return(list(
      p = n * (-log(b / 2) + digamma(-p)) + st$s_log,
      a = NA_real_, b = -n * p / b - st$s_inv / 2
    ))
  }
  w <- sqrt(a * b)
  dk <- attr(log_besselK(w, p, gradient = TRUE, threads = 1L), "gradient")
  list(
    p = n * (log(a / b) / 2 - dk[1L, "nu"]) + st$s_log,
    a = n * (p / (2 * a) - sqrt(b / a) * dk[1L, "x"] / 2) - st$s_y / 2,
    b = n * (-p / (2 * b) - sqrt(a / b) * dk[1L, "x"] / 2) - st$s_inv / 2
  )
}

# The score at par, or NULL where the E-step fails.
fit_score_at <- function(engine, par, family, symmetric) {
  st <- mix_estep(engine, par, mix_what(family))
  if (is.null(st) || st$n_bad > 0) {
    return(NULL)
  }
  fit_pack(fit_score(st, par), family, symmetric)
}

# Information ----------------------------------------------------------------

# Observed information of the free coordinates of theta (those held stay
# at par's values): minus the central-difference Jacobian of their score,
# symmetrised.  NULL where a shifted point is not a valid parameter set.
fit_information <- function(engine, par, family, symmetric, steps,
                            free = TRUE) {
  theta <- fit_pack(par, family, symmetric)
  free <- rep_len(free, length(theta))
  score_at <- function(th) {
    theta[free] <- th
    score <- fit_score_at(engine, fit_unpack(theta, par, family, symmetric),
                          family, symmetric)
    if (is.null(score)) NULL else score[free]
  }
  jac <- central_jacobian(score_at, theta[free], steps[free],
                          progress = TRUE)
  if (is.null(jac)) {
    return(NULL)
  }
  -(jac + t(jac)) / 2
}

# The Jacobian of fun (a vector, as long as theta unless told) at theta by
# central differences with the steps given; NULL where fun gives NULL.
# progress: a progress signal per column (R/progress.R), for the
# information's Jacobians (two E-steps a column).
central_jacobian <- function(fun, theta, steps, progress = FALSE) {
  k <- length(theta)
  jac <- matrix(NA_real_, k, k)
  signal <- if (progress) ghmix_progressor(k) else function(...) NULL
  for (i in seq_len(k)) {
    up <- theta
    dn <- theta
    up[i] <- up[i] + steps[i]
    dn[i] <- dn[i] - steps[i]
    f_up <- fun(up)
    f_dn <- fun(dn)
    if (is.null(f_up) || is.null(f_dn)) {
      return(NULL)
    }
    column <- (f_up - f_dn) / (2 * steps[i])
    if (i == 1L && length(column) != k) {
      jac <- matrix(NA_real_, length(column), k)
    }
    jac[, i] <- column
    signal("vcov: observed information")
  }
  jac
}

# (J + c v v')^-1, computed in the coordinates theta / steps, where the
# entries of J are of comparable size; NULL unless positive definite.
fit_gauge_inverse <- function(info, orbit, steps) {
  if (is.null(info) || !all(is.finite(info))) {
    return(NULL)
  }
  info_s <- info * tcrossprod(steps)
  orbit_s <- orbit / steps
  # (no null direction where orbit has no columns)
  cc <- if (length(orbit_s) > 0L) mean(diag(info_s)) / sum(orbit_s^2) else 0
  aug <- info_s + cc * tcrossprod(orbit_s)
  r <- tryCatch(chol(aug), error = function(e) NULL)
  if (is.null(r) || min(diag(r))^2 <= 1e-13 * max(diag(r))^2) {
    return(NULL)
  }
  chol2inv(r) * tcrossprod(steps)
}

# Jacobian of theta -> set_gauge(theta, gauge) in the free coordinates
# (the gauge leaves mu and p as they are), by central differences.
fit_gauge_jacobian <- function(theta, par, family, symmetric, gauge, steps,
                               free = TRUE) {
  free <- rep_len(free, length(theta))
  norm_at <- function(th) {
    full <- theta
    full[free] <- th
    fit_pack(set_gauge(fit_unpack(full, par, family, symmetric), gauge),
             family, symmetric)[free]
  }
  central_jacobian(norm_at, theta[free], steps[free])
}
