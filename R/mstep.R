# The M-step of one component (issue 26, design 3.7): from the weighted
# statistics st of its E-step at par (the single fit's, a mixture
# member's, or online EM's averages), the location step and the mixing
# step of its constraints (R/constraints.R) and the covariance step of
# its structure (the cov table's mstep, R/cov.R), penalised by pen
# (penalty_arg(), R/penalty.R; NULL: no prior).  model: the fit's family,
# symmetric and fixed (internal units: fixed_internal()).  A nonzero gamma
# held in the gauge E[Y] = 1 profiles the scale out first
# (constraints_profiled_mstep()).
mstep_member <- function(st, par, model, pen = NULL) {
  cov <- cov_of(par)
  fixed <- model$fixed
  if (fixed_gamma_held(fixed)) {
    return(constraints_profiled_mstep(st, par, fixed, cov, pen))
  }
  loc <- constraints_location(st, par, model)
  out <- c(loc[c("mu", "gamma")], cov$mstep(st, loc, par, pen),
           constraints_mixing(st, par, model))
  # (a step in the gauge E[Y] = 1 gives gamma par's names, as the
  # profiled one does)
  if (fixed_in_gauge(fixed)) names(out$gamma) <- names(par$gamma)
  out
}
