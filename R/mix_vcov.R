# Standard errors of mixture fits from the observed information, as
# R/fit_vcov.R does for one distribution.
#
# The information is that of the unconstrained vector theta: each
# component's fit_pack() vector (in the standardised units the EM works
# in), then eta_k = log(pi_k / pi_1), k = 2..G.  Its score is analytic by
# Fisher's identity: component k's block is fit_score() of its
# membership-weighted E-step sums, and d loglik / d eta_k = sum_i w_i
# (tau_ik - pi_k).  The information is minus the central-difference
# Jacobian of the score; it is singular along each component's scaling
# orbit (fit_orbit()), which fit_gauge_inverse() removes, and the delta
# method takes the covariance to the reported parameters: each component
# in the data's units and the fit's gauge, and the G proportions.

#' @rdname ghmix_mixture
#' @export
vcov.ghmix_mixture <- function(object, cluster = NULL, ...) {
  vcov_check_shrink(object, sys.call()) # a posterior mode: no SEs
  mixture_vcov_check_scale(object, sys.call())
  if (!is.null(object$factors)) {
    return(mixture_factor_vcov(object, cluster, sys.call()))
  }
  nm <- mixture_vcov_names(object)
  na_cov <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  if (mixture_vcov_warn_fit(object)) {
    return(na_cov)
  }
  pars <- object$components
  src <- mixture_vcov_source(object, cluster)
  on.exit(src$free())
  pars_z <- lapply(pars, to_std, std = src$std)
  steps <- mixture_vcov_steps(pars_z, object)
  info <- mixture_information(src, pars_z, object, steps)
  orbit <- mixture_vcov_orbits(pars_z, object)
  cov_theta <- fit_gauge_inverse(info, orbit, steps)
  if (is.null(cov_theta)) {
    mixture_vcov_warn_singular()
    return(na_cov)
  }
  jac <- mixture_vcov_jacobian(pars_z, object, src$std, steps)
  out <- jac %*% cov_theta %*% t(jac)
  out <- (out + t(out)) / 2
  dimnames(out) <- list(nm, nm)
  out
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

mixture_vcov_warn_singular <- function() {
  warn_vcov(paste(
    "the observed information of the mixture is not positive definite",
    "(the fit is not at a maximum of the likelihood); no standard errors"
  ))
}

# "component_k:<name>" for each component's parameters (as vcov() of one
# distribution names them), then "proportion[k]".
mixture_vcov_names <- function(object) {
  one <- fit_vcov_names(colnames(object$data), object$family,
                        object$symmetric)
  c(
    unlist(lapply(seq_len(object$G), function(k) {
      paste0("component_", k, ":", one)
    })),
    sprintf("proportion[%d]", seq_len(object$G))
  )
}

# Where the E-steps of vcov() run, in the standardised units of the EM
# (mixture_fit_g()): the fit's rows in memory, or (chunked data, or a
# cluster) the engine of fit_engine() (mixture_estep_engine()).
mixture_vcov_source <- function(object, cluster) {
  x <- object$data
  w <- weights_in_sums(object$weights)
  what <- mix_what(object$family)
  if (is.null(cluster) && !inherits(x, "ghmix_data")) {
    std <- mix_moments(x, w)
    z <- mixture_standardise(x, std)
    return(list(
      std = std, free = engine_holds_nothing,
      estep = function(pars, props) {
        mixture_estep(z, pars, props, w, what, threads = object$threads)
      }
    ))
  }
  engine <- fit_engine(object, cluster)
  std <- if (inherits(x, "ghmix_data")) {
    chunk_std(engine$summary, engine$data$names)
  } else {
    mix_moments(x, w)
  }
  estep <- mixture_estep_engine(list(engine = engine, std = std))
  list(
    std = std, free = engine$free,
    estep = function(pars, props) estep(NULL, pars, props, what = what)
  )
}

mixture_vcov_steps <- function(pars, object) {
  c(
    unlist(lapply(pars, fit_steps, family = object$family,
                  symmetric = object$symmetric)),
    rep(1e-4, object$G - 1L)
  )
}

# The scaling orbit of each component, one column each (zero outside its
# block).
mixture_vcov_orbits <- function(pars, object) {
  blocks <- lapply(pars, fit_orbit, family = object$family,
                   symmetric = object$symmetric)
  size <- length(blocks[[1L]])
  out <- matrix(0, object$G * size + object$G - 1L, object$G)
  for (k in seq_len(object$G)) {
    out[(k - 1L) * size + seq_len(size), k] <- blocks[[k]]
  }
  out
}

mixture_vcov_theta <- function(pars, props, object) {
  c(
    unlist(lapply(pars, fit_pack, family = object$family,
                  symmetric = object$symmetric)),
    log(props[-1L] / props[[1L]])
  )
}

# The components' parameter lists and the proportions at theta.
mixture_vcov_unpack <- function(theta, pars, object) {
  g <- length(pars)
  size <- (length(theta) - (g - 1L)) / g
  comps <- lapply(seq_len(g), function(k) {
    fit_unpack(theta[(k - 1L) * size + seq_len(size)], pars[[k]],
               object$family, object$symmetric)
  })
  w <- exp(c(0, theta[g * size + seq_len(g - 1L)]))
  list(pars = comps, props = w / sum(w))
}

# The score at theta (NULL where the E-step fails): each component's
# fit_score() from its sums, then sum_i w_i (tau_ik - pi_k), k = 2..G.
mixture_score_at <- function(src, theta, pars, object) {
  at <- mixture_vcov_unpack(theta, pars, object)
  es <- src$estep(at$pars, at$props)
  if (is.null(es) || es$n_bad > 0) {
    return(NULL)
  }
  taus <- vapply(es$components, function(st) st$tau, 0)
  c(
    unlist(lapply(seq_along(at$pars), function(k) {
      fit_pack(fit_score(es$components[[k]], at$pars[[k]]), object$family,
               object$symmetric)
    })),
    taus[-1L] - sum(taus) * at$props[-1L]
  )
}

mixture_information <- function(src, pars, object, steps) {
  theta <- mixture_vcov_theta(pars, object$proportions, object)
  jac <- central_jacobian(function(th) {
    mixture_score_at(src, th, pars, object)
  }, theta, steps, progress = TRUE)
  if (is.null(jac)) {
    return(NULL)
  }
  -(jac + t(jac)) / 2
}

# The Jacobian of theta -> the reported parameters: each component's block
# by central differences through from_std() and set_gauge(), the
# proportions' analytically (d pi_j / d eta_k = pi_j (delta_jk - pi_k)).
mixture_vcov_jacobian <- function(pars, object, std, steps) {
  g <- object$G
  size <- length(fit_orbit(pars[[1L]], object$family, object$symmetric))
  jac <- matrix(0, g * size + g, g * size + g - 1L)
  for (k in seq_len(g)) {
    at <- (k - 1L) * size + seq_len(size)
    norm_at <- function(th) {
      par <- fit_unpack(th, pars[[k]], object$family, object$symmetric)
      fit_pack(set_gauge(from_std(par, std), object$gauge), object$family,
               object$symmetric)
    }
    jac[at, at] <- central_jacobian(
      norm_at, fit_pack(pars[[k]], object$family, object$symmetric),
      steps[at]
    )
  }
  props <- object$proportions
  soft <- diag(props, g) - tcrossprod(props)
  jac[g * size + seq_len(g), g * size + seq_len(g - 1L)] <- soft[, -1L]
  jac
}
