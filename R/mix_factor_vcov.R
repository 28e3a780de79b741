# Standard errors of factor mixtures (`components = G` with `factors = r`,
# R/mix_factor.R): the mixture information of R/mix_vcov.R with the
# factor parametrisation and null directions of R/factor_vcov.R.
#
# theta: each component's factor_vcov_pack() vector (mu, gamma unless
# symmetric, vec(F), D, the free mixing parameters) in the standardised
# units of factor_moments(), then eta_k = log(pi_k / pi_1), k = 2..G.  The
# score is analytic by Fisher's identity: component k's block is
# factor_score_at() of its membership-weighted factor E-step sums
# (mixture_factor_estep()), and d loglik / d eta_k = sum_i w_i (tau_ik -
# pi_k).  The information J is minus its central-difference Jacobian; it
# is singular along each component's scaling orbit and its r(r-1)/2
# rotations (factor_vcov_null(), zero outside the component's block).  The
# reported parameters N(theta) (each component in the data's units, the
# fit's gauge and the documented rotation; the G proportions) satisfy the
# constraints that pick one point of each orbit, so, as for one factor fit
# (Silvey's bordered information), their covariance is dN (J + V V')^-1
# dN' with V the null directions (dN V = 0): of rank G (df of one factor
# fit) + G - 1, the fit's df.

mixture_factor_vcov <- function(object, cluster, call) {
  nm <- mixture_factor_vcov_names(object)
  factor_check_vcov_size(length(nm) - 1L, call)
  na_cov <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  if (mixture_vcov_warn_fit(object) || factor_vcov_unidentified(object)) {
    return(na_cov)
  }
  src <- mixture_factor_vcov_source(object, cluster)
  on.exit(src$free())
  pars_z <- lapply(object$components, to_std, std = src$std)
  steps <- mixture_factor_vcov_steps(pars_z, object)
  theta <- mixture_factor_vcov_theta(pars_z, object$proportions, object)
  jac <- central_jacobian(function(th) {
    mixture_factor_score_at(src, th, pars_z, object)
  }, theta, steps, progress = TRUE)
  info <- if (is.null(jac)) NULL else -(jac + t(jac)) / 2
  cov_theta <- fit_gauge_inverse(info, mixture_factor_vcov_null(pars_z,
                                                                object),
                                 steps)
  if (is.null(cov_theta)) {
    mixture_vcov_warn_singular()
    return(na_cov)
  }
  norm <- mixture_factor_vcov_jacobian(pars_z, object, src$std, steps)
  out <- norm %*% cov_theta %*% t(norm)
  out <- (out + t(out)) / 2
  dimnames(out) <- list(nm, nm)
  out
}

# "component_k:<name>" with the names of one factor fit's vcov()
# (factor_vcov_names()), then "proportion[k]".
mixture_factor_vcov_names <- function(object) {
  one <- factor_vcov_names(colnames(object$data), object$factors,
                           object$family, object$symmetric)
  c(
    unlist(lapply(seq_len(object$G), function(k) {
      paste0("component_", k, ":", one)
    })),
    sprintf("proportion[%d]", seq_len(object$G))
  )
}

# Where the E-steps of vcov() run, in the units of std (the fit's rows'
# column means and standard deviations): the fit's rows in memory, or
# (chunked data, or a cluster) each chunk's share where it is read
# (fit_engine(), mixture_factor_estep_engine()), as the EM of a chunked
# factor mixture runs them.
mixture_factor_vcov_source <- function(object, cluster) {
  x <- object$data
  w <- weights_in_sums(object$weights)
  what <- mix_what(object$family)
  if (is.null(cluster) && !inherits(x, "ghmix_data")) {
    std <- factor_moments(x, w)
    z <- mixture_standardise(x, std)
    return(list(std = std, free = engine_holds_nothing,
                estep = function(pars, props) {
                  mixture_factor_estep(z, pars, props, w, what,
                                       threads = object$threads)
                }))
  }
  engine <- fit_engine(object, cluster)
  std <- if (inherits(x, "ghmix_data")) {
    chunk_std(engine$summary, engine$data$names)[c("center", "scale")]
  } else {
    factor_moments(x, w)
  }
  estep <- mixture_factor_estep_engine(list(engine = engine, std = std))
  list(std = std, free = engine$free,
       estep = function(pars, props) estep(NULL, pars, props, what = what))
}

mixture_factor_vcov_theta <- function(pars, props, object) {
  c(
    unlist(lapply(pars, factor_vcov_pack, family = object$family,
                  symmetric = object$symmetric)),
    log(props[-1L] / props[[1L]])
  )
}

mixture_factor_vcov_steps <- function(pars, object) {
  c(
    unlist(lapply(pars, factor_vcov_steps, family = object$family,
                  symmetric = object$symmetric)),
    rep(1e-4, object$G - 1L)
  )
}

# The rows of component k's block of theta.
mixture_factor_block <- function(k, size) (k - 1L) * size + seq_len(size)

# The components' parameter lists and the proportions at theta.
mixture_factor_vcov_unpack <- function(theta, pars, object) {
  g <- length(pars)
  size <- (length(theta) - (g - 1L)) / g
  comps <- lapply(seq_len(g), function(k) {
    factor_vcov_unpack(theta[mixture_factor_block(k, size)], pars[[k]],
                       object$family, object$symmetric)
  })
  w <- exp(c(0, theta[g * size + seq_len(g - 1L)]))
  list(pars = comps, props = w / sum(w))
}

# The score at theta (NULL where an E-step fails).
mixture_factor_score_at <- function(src, theta, pars, object) {
  at <- mixture_factor_vcov_unpack(theta, pars, object)
  es <- src$estep(at$pars, at$props)
  if (is.null(es) || es$n_bad > 0) {
    return(NULL)
  }
  # (a component's rows are the mixture's: none is bad)
  scores <- lapply(seq_along(at$pars), function(k) {
    st <- es$components[[k]]
    st$n_bad <- 0
    factor_score_at(function(par) st, at$pars[[k]], object$family,
                    object$symmetric)
  })
  if (any(vapply(scores, is.null, NA))) {
    return(NULL)
  }
  taus <- vapply(es$components, function(st) st$tau, 0)
  c(unlist(scores), taus[-1L] - sum(taus) * at$props[-1L])
}

# The null directions: each component's of factor_vcov_null() in its block.
mixture_factor_vcov_null <- function(pars, object) {
  blocks <- lapply(pars, factor_vcov_null, family = object$family,
                   symmetric = object$symmetric)
  size <- nrow(blocks[[1L]])
  per <- ncol(blocks[[1L]])
  g <- object$G
  out <- matrix(0, g * size + g - 1L, g * per)
  for (k in seq_len(g)) {
    out[mixture_factor_block(k, size), mixture_factor_block(k, per)] <-
      blocks[[k]]
  }
  out
}

# The Jacobian of theta -> the reported parameters: each component's block
# by central differences through from_std(), set_gauge() and
# factor_rotate() (as mixture_result() reports it), the proportions'
# analytically (d pi_j / d eta_k = pi_j (delta_jk - pi_k)).
mixture_factor_vcov_jacobian <- function(pars, object, std, steps) {
  g <- object$G
  family <- object$family
  symmetric <- object$symmetric
  size <- length(factor_vcov_pack(pars[[1L]], family, symmetric))
  jac <- matrix(0, g * size + g, g * size + g - 1L)
  for (k in seq_len(g)) {
    at <- mixture_factor_block(k, size)
    norm_at <- function(th) {
      par <- factor_vcov_unpack(th, pars[[k]], family, symmetric)
      par <- set_gauge(from_std(par, std), object$gauge)
      factor_vcov_pack(factor_rotate(par), family, symmetric)
    }
    jac[at, at] <- central_jacobian(
      norm_at, factor_vcov_pack(pars[[k]], family, symmetric), steps[at]
    )
  }
  props <- object$proportions
  soft <- diag(props, g) - tcrossprod(props)
  jac[g * size + seq_len(g), g * size + seq_len(g - 1L)] <- soft[, -1L]
  jac
}
