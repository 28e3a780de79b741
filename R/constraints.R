# The constraints' part of the M-step (mstep_member(), R/mstep.R): mu
# held, p held and the parameters held in the reported gauge E[Y] = 1 (a,
# b, a nonzero gamma: R/fit_fixed_gauge.R), for every covariance
# structure.  Each is a conditional M-step (ECM, Meng and Rubin 1993,
# Biometrika 80, 267-278): it maximises the expected complete-data
# log-likelihood over the free parameters, so the likelihood never falls.

# The location step: mix_mstep_location() (R/fit_model.R), or with mu
# held location_mu_held(); model: family, symmetric, fixed.
constraints_location <- function(st, par, model) {
  if (is.null(model$fixed$mu)) {
    mix_mstep_location(st, par, model$symmetric)
  } else {
    location_mu_held(st, par, model$symmetric)
  }
}

# mix_mstep_location()'s result with mu held (the E-step's statistics are
# about it): gamma = mean u / mean E Y (0 when symmetric) and no move of
# mu, so that Sigma is the weighted scatter about mu + Y gamma.
location_mu_held <- function(st, par, symmetric) {
  n <- st$tau
  xbar <- st$sx / n
  eta <- st$s_y / n
  gamma <- if (symmetric) rep(0, length(xbar)) else xbar / eta
  list(mu = par$mu, gamma = gamma, mu_u = rep(0, length(xbar)),
       delta = st$s_inv / n, eta = eta, xbar = xbar, xw = st$sxw / n,
       held = FALSE)
}

# The mixing step: a*, b* held by gauge_search() (R/fit_fixed_gauge.R),
# else fixed_mstep_sub().
constraints_mixing <- function(st, par, model) {
  if (fixed_in_gauge(model$fixed)) {
    return(gauge_mixing(gauge_search(st, par, model$fixed)))
  }
  fixed_mstep_sub(st, par, model)
}

# The M-step of the mixing parameters, p held where model$fixed holds it.
fixed_mstep_sub <- function(st, par, model) {
  p <- model$fixed$p
  if (is.null(p)) {
    return(mix_mstep_sub(st, par, model$family))
  }
  if (fixed_on_limit(model$family)) {
    # (the gamma and inverse-gamma laws: see fit_fixed_family.R)
    return(fixed_sub_limit(st, model$family, p))
  }
  n <- st$tau
  sub <- .Call(ffi_mix_subordinator_fixed_p, p,
               c(st$s_log / n, st$s_inv / n, st$s_y / n),
               c(par$p, par$a, par$b))
  list(p = sub$p, a = sub$a, b = sub$b)
}

# TRUE when fixed holds a gamma other than 0 (in the gauge E[Y] = 1).
fixed_gamma_held <- function(fixed) {
  !is.null(fixed$gamma) && any(fixed$gamma != 0)
}

# The M-step with a nonzero gamma* = g0 held in the gauge E[Y] = 1
# (R/fit_fixed_gauge.R), as two conditional steps.  First gauge_search()
# over log k (k = E[Y], gamma = g0 / k), the free mixing parameters, mu
# and Sigma's part that the structure profiles out (its gauge_profile():
# the full Sigma itself, Q_N = -log det M(gamma) / 2; a factor Sigma's
# scale s, factor_gauge_normal()); then the covariance step of the
# structure at the new mu and gamma (its mstep_profiled()).  Each step
# raises Q, so the iteration is a GEM; its fixed points are stationary
# points of the likelihood with gamma* held.
constraints_profiled_mstep <- function(st, par, fixed, cov, pen) {
  best <- gauge_search(st, par, fixed, cov$gauge_profile(st, par))
  m <- gauge_means(st)
  mu_u <- best$normal$mu_u
  loc <- list(mu = par$mu + mu_u, gamma = fixed$gamma / best$k, mu_u = mu_u,
              delta = m$delta, eta = m$eta, xbar = m$xbar, xw = m$xw,
              held = TRUE)
  names(loc$gamma) <- names(par$gamma)
  c(loc[c("mu", "gamma")], cov$mstep_profiled(best, st, loc, par, pen),
    gauge_mixing(best))
}
