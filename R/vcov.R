# Standard errors of fits and mixtures from the observed information (one
# implementation for every covariance structure, G >= 1, `fixed`).
#
# theta: the parameters as pack_nat()/pack_all() lay them out (R/packing.R;
# mixtures in the standardised units of their EM, then eta_k = log(pi_k /
# pi_1)).  Score (Fisher's identity): the gradient of the observed
# log-likelihood is the posterior expectation of the complete-data score,
# a function of the E-step sums at theta (score_nat(); eta_k: sum_i w_i
# (tau_ik - pi_k)).  The observed information J is minus the Jacobian of
# that score, by central differences (2 k E-steps for k parameters).  J is
# singular along each component's null directions (null_nat(): the orbit
# of the scaling (gamma, Sigma, a, b) -> (gamma / s, Sigma / s, a / s,
# b s), and the structure's rotations).  The reported parameters N(theta)
# (the gauge, the structure's report form, the data's units) are the one
# point of theta's orbit that satisfies those constraints, so their
# covariance by the delta method is dN (J + c V V')^-1 dN' with V the null
# directions (dN V = 0 makes it independent of c > 0).  That is the
# covariance of the constrained maximum-likelihood estimate of Silvey's
# bordered (Lagrangian) information (Silvey 1959, Ann. Math. Statist. 30,
# 389-407, section 6): the leading block of [J H'; H 0]^-1, H the
# constraints' gradients, equals P J^- P' with P the projection along V
# onto H's null space, and P = dN.  Its rank is the fit's df.
#
# With parameters held (`fixed`), theta is replaced by a chart of the free
# ones: without mu and p where held (V as before), or, with a, b or a
# nonzero gamma held in the gauge E[Y] = 1 (R/constraints.R), also
# without the mixing parameter k that E[Y] = 1 determines.  There the
# estimates lie on the set C of parameters with E[Y] = 1 and the held
# values, of dimension df, whose tangent T is made of the unit vectors of
# the chart's coordinates, where a coordinate j of the mixing law also
# moves k by -(dE[Y]/dj) / (dE[Y]/dk) (the implicit function theorem).  C
# is curved and the score is not 0 on it (only T' times it is), so the
# information on the chart is minus the Jacobian of T' score along C
# itself (k solved at each point); the scaling moves E[Y] or the held
# values, so only the rotations are null directions.
#
# The report map dN, by strategy (each keeps its bits): numeric through
# set_gauge() and the structure's report form (one distribution; with a
# scaling, then the linear change of units by analytic factors), the
# tangent T itself for a Sigma in the gauge E[Y] = 1 (its report form is
# the point itself), numeric through from_std(), set_gauge() and the report
# form per component for mixtures, with the proportions' softmax Jacobian.

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
  vcov_observed(object, cluster, sys.call())
}

#' @rdname ghmix_mixture
#' @export
vcov.ghmix_mixture <- function(object, cluster = NULL, ...) {
  vcov_check_shrink(object, sys.call()) # a posterior mode: no SEs
  mixture_vcov_check_scale(object, sys.call())
  vcov_observed(object, cluster, sys.call())
}

# The covariance matrix of vcov(); log_scale: NULL, or the logs of the
# units' factors of a standardised fit's columns (the report form's signs
# are those of the user's units).
vcov_observed <- function(object, cluster, call, log_scale = NULL) {
  mixture <- inherits(object, "ghmix_mixture")
  if (!mixture && !is.null(object$scaling)) {
    return(vcov_scaled(object, cluster, call))
  }
  nm <- if (mixture) names_all(object) else
    names_fit(object$parameters, object$family, object$symmetric)
  na_cov <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  if (vcov_refused(object, length(nm) - mixture, call)) {
    return(na_cov)
  }
  ch <- if (mixture) vcov_chart_mixture(object, cluster, call) else
    vcov_chart_fit(object, cluster, log_scale, call)
  on.exit(ch$free())
  jac <- central_jacobian(ch$score, ch$theta, ch$steps, progress = TRUE)
  info <- if (is.null(jac)) NULL else -(jac + t(jac)) / 2
  inv <- vcov_inverse(info, ch$null, ch$steps)
  out <- if (!is.null(inv)) ch$report(inv)
  if (is.null(out)) {
    warn_vcov(sprintf(
      paste(
        "the observed information%s is not positive definite (the fit is",
        "not at a maximum of the likelihood); no standard errors"
      ),
      if (mixture) " of the mixture" else ""
    ))
    return(na_cov)
  }
  dimnames(out) <- list(nm, nm)
  out
}

# TRUE where vcov() gives no standard errors (its warnings say why); an
# error where the information of the k parameters would be too large.
vcov_refused <- function(object, k, call) {
  cov <- cov_get(object$factors)
  vcov_check_size(k, cov$vcov_max_k, call)
  warned <- if (inherits(object, "ghmix_mixture")) {
    mixture_vcov_warn_fit(object)
  } else {
    vcov_warn_fit(object)
  }
  warned || cov$vcov_unidentified(object)
}

# A standardised fit: in its units, then by the (linear) change of units
# (a held parameter's rows stay 0).
vcov_scaled <- function(object, cluster, call) {
  sc <- object$scaling
  out <- vcov_observed(fit_std_view(object), cluster, call, log(sc$scale))
  lf <- scaling_log_factors(sc, object$family, object$symmetric)
  out[] <- out * exp(outer(lf, lf, "+"))
  out
}

vcov_check_size <- function(k, max_k, call) {
  if (k > max_k) {
    factor_abort_mode(
      sprintf(
        paste(
          "vcov() of this factor fit would need the %d x %d observed",
          "information of its %d parameters; it is formed only for at most",
          "%d parameters (fewer columns or factors)."
        ),
        k, k, k, max_k
      ),
      call
    )
  }
}

# The chart of one distribution (see the top): theta, steps, score(th) (on
# the chart, NULL where an E-step fails), null (its directions on the
# chart), report(inv) (the covariance of the reported parameters from the
# inverse of the augmented information in the steps' units) and free().
vcov_chart_fit <- function(object, cluster, log_scale, call) {
  par <- object$parameters
  family <- object$family
  symmetric <- object$symmetric
  cov <- cov_get(object$factors)
  theta <- pack_nat(par, family, symmetric)
  steps <- steps_nat(par, family, symmetric)
  fx <- vcov_chart_fixed(object, null_nat(par, family, symmetric))
  chart <- fx$chart
  point <- function(th) {
    theta[chart] <- th
    fx$solve(unpack_nat(theta, par, family, symmetric))
  }
  src <- vcov_source_fit(object, cluster, call)
  score <- function(th) {
    q <- point(th)
    st <- if (!is.null(q)) src$estep(q)
    if (is.null(st) || st$n_bad > 0) {
      return(NULL)
    }
    score <- score_nat(st, q, family, symmetric)
    if (!is.null(score)) fx$project(q, score)
  }
  report_at <- function(q) {
    if (!fx$in_gauge) q <- set_gauge(q, object$gauge)
    if (!is.null(cov$report)) q <- cov$report(q, log_scale)
    pack_nat(q, family, symmetric)
  }
  report <- function(inv) {
    if (fx$in_gauge && is.null(cov$report)) {
      # analytic: the tangent of C
      t_s <- sweep(fx$tangent[, chart, drop = FALSE], 2L, steps[chart], "*")
      out <- t_s %*% inv %*% t(t_s)
      return((out + t(out)) / 2)
    }
    norm <- central_jacobian(function(th) {
      q <- point(th)
      if (!is.null(q)) report_at(q)
    }, theta[chart], steps[chart])
    vcov_delta(norm, inv, steps[chart])
  }
  list(theta = theta[chart], steps = steps[chart], score = score,
       null = fx$null, report = report, free = src$free)
}

# How `fixed` shapes the chart of one distribution (see the top): the
# coordinates it moves (chart), the null directions there (of null, all
# of theta's), solve(q) (q, or the point of C with q's chart
# coordinates), project(q, score) (the score on the chart) and tangent
# (T, in the gauge E[Y] = 1).
vcov_chart_fixed <- function(object, null) {
  fixed <- object$fixed
  nm <- names_fit(object$parameters, object$family, object$symmetric)
  if (!fixed_in_gauge(fixed)) {
    chart <- which(fit_free(object, nm))
    return(list(
      chart = chart, null = null[chart, , drop = FALSE], in_gauge = FALSE,
      solve = identity, project = function(q, score) score[chart]
    ))
  }
  tt <- vcov_gauge_tangent(fixed, object$parameters, nm)
  chart <- which(colSums(tt != 0) > 0)
  det <- vcov_gauge_determined(fixed, nm)
  list(
    chart = chart, in_gauge = TRUE, tangent = tt,
    # the scaling is no null direction
    null = null[chart, -1L, drop = FALSE],
    solve = function(q) vcov_gauge_solve(q, det),
    project = function(q, score) {
      drop(crossprod(vcov_gauge_tangent(fixed, q, nm), score))[chart]
    }
  )
}

# The chart of a mixture: theta of all the components in the standardised
# units of the E-steps (src$std), then eta.
vcov_chart_mixture <- function(object, cluster, call) {
  family <- object$family
  symmetric <- object$symmetric
  g <- object$G
  cov <- cov_get(object$factors)
  src <- vcov_source_mixture(object, cluster, call)
  pars <- lapply(object$components, to_std, std = src$std)
  steps <- steps_all(pars, family, symmetric)
  score <- function(th) {
    at <- unpack_all(th, pars, family, symmetric)
    es <- src$estep(at$pars, at$props)
    if (is.null(es) || es$n_bad > 0) {
      return(NULL)
    }
    # (a component's rows are the mixture's: none is bad)
    scores <- lapply(seq_len(g), function(k) {
      score_nat(es$components[[k]], at$pars[[k]], family, symmetric)
    })
    if (any(vapply(scores, is.null, NA))) {
      return(NULL)
    }
    taus <- vapply(es$components, function(st) st$tau, 0)
    c(unlist(scores), taus[-1L] - sum(taus) * at$props[-1L])
  }
  report <- function(inv) {
    size <- length(pack_nat(pars[[1L]], family, symmetric))
    jac <- matrix(0, g * size + g, g * size + g - 1L)
    for (k in seq_len(g)) {
      at <- pack_block(k, size)
      jac[at, at] <- central_jacobian(function(th) {
        par <- unpack_nat(th, pars[[k]], family, symmetric)
        par <- set_gauge(from_std(par, src$std), object$gauge)
        if (!is.null(cov$report)) par <- cov$report(par, NULL)
        pack_nat(par, family, symmetric)
      }, pack_nat(pars[[k]], family, symmetric), steps[at])
    }
    # d pi_j / d eta_k = pi_j (delta_jk - pi_k)
    props <- object$proportions
    soft <- diag(props, g) - tcrossprod(props)
    jac[g * size + seq_len(g), g * size + seq_len(g - 1L)] <- soft[, -1L]
    vcov_delta(jac, inv, steps)
  }
  list(theta = pack_all(pars, object$proportions, family, symmetric),
       steps = steps, score = score, null = null_all(pars, family, symmetric),
       report = report, free = src$free)
}

# jac (inv in theta's units) jac', symmetric; NULL where jac is.
vcov_delta <- function(jac, inv, steps) {
  if (is.null(jac)) {
    return(NULL)
  }
  out <- jac %*% (inv * tcrossprod(steps)) %*% t(jac)
  (out + t(out)) / 2
}

# (J + c V V')^-1 computed in the coordinates theta / steps, where the
# entries of J are of comparable size, and left in them; NULL unless
# positive definite.
vcov_inverse <- function(info, null, steps) {
  if (is.null(info) || !all(is.finite(info))) {
    return(NULL)
  }
  info_s <- info * tcrossprod(steps)
  null_s <- null / steps
  aug <- if (length(null_s) > 0L) {
    info_s + mean(diag(info_s)) / sum(null_s^2) * tcrossprod(null_s)
  } else {
    info_s
  }
  r <- tryCatch(chol(aug), error = function(e) NULL)
  if (is.null(r) || min(diag(r))^2 <= 1e-13 * max(diag(r))^2) {
    return(NULL)
  }
  chol2inv(r)
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

# Sources --------------------------------------------------------------------

# The E-step of one distribution at the fit's rows: estep(par) over the
# rows in memory, or over the chunks of a chunked fit or a cluster, read
# here (fit_engine(); call: vcov()'s, for its errors); free() releases
# them.
vcov_source_fit <- function(object, cluster, call) {
  what <- mix_what(object$family)
  x <- object$data
  factor <- !is.null(object$factors)
  if (factor && !inherits(x, "ghmix_data") && is.null(cluster)) {
    w <- weights_in_sums(object$weights)
    return(list(free = engine_holds_nothing, estep = function(par) {
      factor_estep(x, par, what, w, threads = object$threads)
    }))
  }
  engine <- fit_engine(object, cluster, call)
  list(free = engine$free, estep = function(par) {
    if (factor) factor_estep_chunks(engine, par, what) else
      mix_estep(engine, par, what)
  })
}

# Where the E-steps of a mixture's vcov() run, in the standardised units
# std of its EM (the column moments of the fit's rows): the fit's rows in
# memory, or (chunked data, or a cluster) each chunk's share where it is
# read (fit_engine()), as the EM of a chunked mixture runs them.
vcov_source_mixture <- function(object, cluster, call) {
  x <- object$data
  w <- weights_in_sums(object$weights)
  what <- mix_what(object$family)
  factor <- !is.null(object$factors)
  moments <- if (factor) factor_moments else mix_moments
  if (is.null(cluster) && !inherits(x, "ghmix_data")) {
    std <- moments(x, w)
    z <- mixture_standardise(x, std)
    estep <- if (factor) mixture_factor_estep else mixture_estep
    return(list(std = std, free = engine_holds_nothing,
                estep = function(pars, props) {
                  estep(z, pars, props, w, what, threads = object$threads)
                }))
  }
  engine <- fit_engine(object, cluster, call)
  std <- if (inherits(x, "ghmix_data")) {
    std <- chunk_std(engine$summary, engine$data$names)
    if (factor) std[c("center", "scale")] else std
  } else {
    moments(x, w)
  }
  estep <- if (factor) mixture_factor_estep_engine else mixture_estep_engine
  estep <- estep(list(engine = engine, std = std))
  list(std = std, free = engine$free,
       estep = function(pars, props) estep(NULL, pars, props, what = what))
}

# Checks and warnings ---------------------------------------------------------

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

# A mixture whose parameters under- or overflow in the data's units (data
# on a scale beyond the doubles for them, fitted standardised: its
# `scaling`) has no covariance of them there.
mixture_vcov_check_scale <- function(object, call) {
  sc <- object$scaling
  lost <- !is.null(sc) && any(vapply(seq_along(sc$parameters), function(k) {
    scaling_lost(object$components[[k]], sc$parameters[[k]])
  }, NA))
  if (lost) {
    ghmix_abort(
      paste(
        "vcov() needs the mixture's parameters in the units of the data,",
        "where some of them under- or overflow (the fit's `scaling` holds",
        "them in standardised units); rescale the data and fit again."
      ),
      class = "ghmix_error_scale", call = call
    )
  }
}

# The warnings of a mixture's vcov() before the information: a fit that
# did not converge; a GH component on the boundary of the family (TRUE: no
# standard errors).
mixture_vcov_warn_fit <- function(object) {
  if (!isTRUE(object$converged)) {
    warn_vcov(sprintf(
      paste(
        "the mixture fit did not converge (%s); standard errors at its",
        "last parameters are not those of a maximum"
      ),
      object$message
    ))
  }
  pars <- object$components
  if (object$family == "gh" &&
        any(vapply(pars, function(p) p$a == 0 || p$b == 0, NA))) {
    warn_vcov(paste(
      "a GH component lies on the boundary of the family (a = 0 or b = 0),",
      "where the information is not defined; no standard errors"
    ))
    return(TRUE)
  }
  FALSE
}

# TRUE, with a warning, where the factors are not identified
# (factor_identified()): the information is singular beyond the rotations.
factor_vcov_unidentified <- function(object) {
  d <- object$d
  if (is.null(d)) d <- length(object$parameters$mu)
  r <- object$factors
  if (factor_identified(d, r)) {
    return(FALSE)
  }
  warn_vcov(sprintf(
    paste(
      "%d factors in d = %d are not identified ((d - r)^2 < d + r): the",
      "loadings are not unique, so they have no standard errors (fit",
      "factors = NULL for those of Sigma)"
    ),
    r, d
  ))
  TRUE
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

# The gauge E[Y] = 1 with held values (see the top) -------------------------

# The mixing parameter that E[Y] = 1 determines: b, or a where b is held
# (or the family has none: the VG), or p where both are; among those the
# fit estimates (its vcov() names nm).
vcov_gauge_determined <- function(fixed, nm) {
  setdiff(intersect(c("b", "a", "p"), nm), names(fixed))[[1L]]
}

# par with its parameter det moved so that E[Y] = 1 (NULL where no root).
vcov_gauge_solve <- function(par, det) {
  f <- function(v) {
    par[[det]] <- if (det == "p") v else exp(v)
    log(gig_mean_value(par$p, par$a, par$b))
  }
  v0 <- if (det == "p") par$p else log(par[[det]])
  root <- tryCatch(
    stats::uniroot(f, v0 + c(-0.1, 0.1), extendInt = "yes", tol = 1e-14,
                   maxiter = 2000L)$root,
    error = function(e) NULL
  )
  if (is.null(root)) {
    return(NULL)
  }
  par[[det]] <- if (det == "p") root else exp(root)
  par
}

# T as a square matrix (a column per coordinate of theta, 0 for those
# held or determined), before the steps' scaling.
vcov_gauge_tangent <- function(fixed, par, nm) {
  held <- nm %in% intersect(names(fixed), c("p", "a", "b")) |
    ("mu" %in% names(fixed) & startsWith(nm, "mu[")) |
    ("gamma" %in% names(fixed) & startsWith(nm, "gamma["))
  mix <- c("p", "a", "b")
  det <- vcov_gauge_determined(fixed, nm)
  tt <- diag(as.double(!held & nm != det), length(nm))
  grad <- vcov_gauge_mean_gradient(par)
  k <- match(det, nm)
  for (j in which(nm %in% mix & !held & nm != det)) {
    tt[k, j] <- -grad[[nm[[j]]]] / grad[[det]]
  }
  tt
}

# d E[Y] / d(p, a, b) by central differences (relative steps for a, b).
vcov_gauge_mean_gradient <- function(par) {
  v <- c(p = par$p, a = par$a, b = par$b)
  h <- 1e-5 * c(1, par$a, par$b)
  out <- vapply(seq_along(v), function(i) {
    up <- v
    dn <- v
    up[[i]] <- up[[i]] + h[[i]]
    dn[[i]] <- dn[[i]] - h[[i]]
    (gig_mean_value(up[[1L]], up[[2L]], up[[3L]]) -
       gig_mean_value(dn[[1L]], dn[[2L]], dn[[3L]])) / (2 * h[[i]])
  }, 0)
  stats::setNames(out, names(v))
}

# Scores ----------------------------------------------------------------------

# The analytic score of mu, gamma and a full Sigma (by its distinct
# entries) of the observed log-likelihood at par from the E-step
# statistics st at par (sums taken about par$mu).
fit_score_cov <- function(st, par) {
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
  list(
    mu = drop(prec %*% (st$sxw - n * gam)),
    gamma = drop(prec %*% (u_sum - s_y * gam)),
    sigma = g_sigma
  )
}

# fit_score_cov() and the mixing parameters' score (fit_score_mixing()).
fit_score <- function(st, par) {
  c(fit_score_cov(st, par), fit_score_mixing(st, par$p, par$a, par$b))
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

# The score of mu, gamma, F and D of a factor Sigma = F F' + diag(D) from
# the factor E-step's statistics st at par (sums about par$mu) and its
# Woodbury parts wb.  With G = dl/dSigma = (Sigma^-1 M Sigma^-1 - n
# Sigma^-1) / 2 as in fit_score_cov() (M = sum_i E[1/Y|x_i] u_i u_i' - s_u
# gamma' - gamma s_u' + s_y gamma gamma', u = x - mu): dl/dF = 2 G F and
# dl/dD = diag(G), from S beta' and diag(S) (beta' = Sigma^-1 F) with
# Sigma^-1 = D^-1 - (D^-1 F) beta by the Woodbury identity: O(d r^2), no
# d x d matrix.
factor_score <- function(st, par, wb) {
  n <- st$tau
  gam <- par$gamma
  dd <- par$uniquenesses
  sinv <- function(v) as.matrix(v) / dd - wb$fd %*% (wb$proj %*% v)
  beta_t <- t(wb$proj) # Sigma^-1 F
  g_beta <- drop(gam %*% beta_t)
  u_beta <- drop(st$sx %*% beta_t)
  # M beta' from S beta' and the rank-one terms of M
  m_beta <- st$sxx_proj - tcrossprod(st$sx, g_beta) -
    tcrossprod(gam, u_beta) + st$s_y * tcrossprod(gam, g_beta)
  si_u <- drop(sinv(st$sx))
  si_g <- drop(sinv(gam))
  bsb <- wb$proj %*% st$sxx_proj # beta S beta'
  diag_sms <- st$sxx_diag / dd^2 -
    2 * rowSums(st$sxx_proj * wb$fd) / dd +
    rowSums((wb$fd %*% bsb) * wb$fd) - 2 * si_u * si_g + st$s_y * si_g^2
  diag_si <- 1 / dd - rowSums(wb$fd * beta_t)
  list(
    mu = drop(sinv(st$sxw - n * gam)),
    gamma = si_u - st$s_y * si_g,
    loadings = sinv(m_beta) - n * beta_t,
    uniquenesses = (diag_sms - n * diag_si) / 2
  )
}
