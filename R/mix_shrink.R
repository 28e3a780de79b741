# Penalised (shrinkage) mixtures: every component's Sigma_k gets the prior
# of R/shrink.R with the same k pseudo-observations and target T, so the
# objective is loglik + sum_k P*(Sigma_k).  The expected complete-data
# log-likelihood of a mixture is a sum over the components, each with its
# own Sigma_k, so the MAP-EM argument of R/shrink.R holds component by
# component: the M-step of Sigma_k is (W_k S_k + k T / c*_k) / (W_k + k)
# with W_k = sum_i tau_ik and c*_k = tr(Sigma_k^-1 T) / d at the current
# Sigma_k, and the objective never decreases.  The weight rules give the
# pooled rows' k divided by G (a component of average size is then shrunk
# with the rule's intensity); weight = "cv" is for one distribution.
# Factor members (Sigma_k = F_k F_k' + D_k) take the factor form of the
# prior (R/factor_shrink.R): P* by Woodbury from the E-step's logdet and
# proj, the M-step on the penalised scatter (mixture_member_mstep()).

# The prior of a mixture fit in the standardised units z of the EM (std:
# the rows' center, scale and covariance; x: the rows in memory, or NULL).
mixture_shrink_setup <- function(spec, x, std, weights, g, call) {
  if (is.null(spec)) {
    return(NULL)
  }
  mixture_shrink_check_cv(spec, call)
  d <- length(std$scale)
  src <- list(
    engine = list(d = d), std = list(cov = std$cov / tcrossprod(std$scale)),
    scaling = list(center = std$center, scale = std$scale), stored = x,
    weights = weights,
    nobs = if (is.null(weights)) NROW(x) else sum(weights)
  )
  prior <- shrink_setup(spec, src, call)
  if (prior$rule != "given") prior$weight <- prior$weight / g
  prior
}

# The prior of a full mixture fitted in the units of a scaling
# (R/fit_scaling.R): the diagonal target only, which is equivariant (the
# others are in the data's units, beyond the doubles there).
mixture_shrink_check_scaling <- function(spec, scaling, call) {
  if (is.null(spec) || is.null(scaling) || identical(spec$target, "diagonal")) {
    return(invisible())
  }
  model_refuse("shrink_target_scaled", call)
}

mixture_shrink_check_cv <- function(spec, call) {
  if (identical(spec$weight, "cv")) model_refuse("shrink_cv_components", call)
}

# The prior of a factor mixture (R/factor_shrink.R's, with r factors):
# its target and rule taken on the rows x (in memory, or NULL: chunks;
# nobs: their weight) in the data's units (as for one factor fit), then
# the target moved to the units z of the EM (std: the rows' center and
# scale) and the rule's weight divided by G.  prior$target stays in the
# data's units (the fit's record).  Rows fitted in the units of a scaling
# (R/fit_scaling.R) take them in the units of mixture_factor_target_units().
mixture_factor_shrink_setup <- function(spec, x, std, weights, g, r, call,
                                        scaling = NULL, nobs = NULL) {
  if (is.null(spec)) {
    return(NULL)
  }
  mixture_shrink_check_cv(spec, call)
  units <- mixture_factor_target_units(spec, x, std, scaling, call)
  src <- list(
    engine = list(d = length(std$scale)), std = units$std, stored = units$x,
    weights = weights,
    nobs = if (!is.null(nobs)) nobs else if (is.null(weights)) NROW(x) else
      sum(weights)
  )
  prior <- shrink_setup(spec, src, call, factors = r)
  s <- unname(units$std$scale)
  prior$target_diag <- prior$target_diag / s^2
  if (!is.null(prior$target_fit)) {
    prior$target_fit <- prior$target_fit / tcrossprod(s)
  }
  if (is.character(spec$target)) {
    # the record in the data's units (which may underflow or overflow)
    prior$target <- prior$target * units$record^2
  }
  prior$target_log_c <- units$log_c
  if (prior$rule != "given") prior$weight <- prior$weight / g
  prior
}

# The units in which the target and rule of a factor mixture fitted in
# the units x_j = (y_j - c_j) / t_j of scaling (NULL: none) are taken:
# y / t_ref, t_ref a power of two (x times t / t_ref, the rows' std
# likewise).  "diagonal" is equivariant (t_ref = t_j for each column:
# the fitted units); "identity" and a matrix are not, so they are taken
# in the data's units up to the factor t_ref^2 (1e-400 is no double): the
# identity's mean variance is that of the data's columns, and a matrix
# target is read in the units y / t_ref, which is the data's units up to
# a positive factor that changes no fit (the prior sees T / c*).  log_c:
# the log of c in T = c diag(t) T_x diag(t) (T the target the objective
# uses: the record for "diagonal" and "identity", the matrix given);
# record: the factors of the columns from these units to the data's.
mixture_factor_target_units <- function(spec, x, std, scaling, call) {
  out <- list(x = x, std = std, log_c = 0, record = 1)
  if (is.null(scaling)) {
    return(out)
  }
  if (identical(spec$target, "diagonal")) {
    out$record <- unname(scaling$scale)
    return(out)
  }
  log_t <- log2(unname(scaling$scale))
  ref <- round(mean(log_t))
  u <- 2^(log_t - ref)
  if (!all(is.finite(u^2) & u^2 > 0 & is.finite(1 / u^2))) {
    model_refuse("shrink_target_scales", call)
  }
  out$std$scale <- std$scale * u
  if (!is.null(x)) out$x <- x * rep(u, each = nrow(x))
  out$record <- 2^ref
  if (is.matrix(spec$target)) out$log_c <- -2 * ref * log(2)
  out
}

# The state's objective (loglik plus the penalties; without a prior, the
# log-likelihood itself) and tr(Sigma_k^-1 T) of each component (for the
# next M-step's c*_k).
mixture_shrink_point <- function(state, ctx) {
  prior <- ctx$shrink
  if (!state$ok) {
    return(state)
  }
  state$objective <- state$es$loglik
  if (is.null(prior)) {
    return(state)
  }
  parts <- vapply(seq_along(state$pars), function(k) {
    mixture_shrink_parts(state$pars[[k]], state$es$components[[k]], prior)
  }, c(0, 0))
  state$shrink_tr <- parts[2L, ]
  pen <- shrink_penalty(parts[1L, ], parts[2L, ], prior$d, prior$weight)
  state$objective <- state$objective + sum(pen)
  state$ok <- is.finite(state$objective)
  state
}

# log det Sigma_k and tr(Sigma_k^-1 T) of component par (st: its E-step
# statistics; a factor member's from their logdet and proj, by Woodbury:
# factor_shrink_trace()).
mixture_shrink_parts <- function(par, st, prior) {
  if (!is.null(par$loadings)) {
    tb <- factor_target_times(prior, t(st$proj))
    return(c(st$logdet, factor_shrink_trace(par, tb, prior)))
  }
  chol_l <- t(chol(par$sigma))
  c(2 * sum(log(diag(chol_l))),
    sum(forwardsolve(chol_l, prior$chol_target)^2))
}

# Component k's M-step Sigma, penalised (d = 1: unchanged); tau: its
# membership weight, tr: tr(Sigma_k^-1 T) at the current Sigma_k.
mixture_shrink_sigma <- function(sigma, prior, tau, tr) {
  if (is.null(prior) || prior$d == 1L) {
    return(sigma)
  }
  out <- shrink_sigma(sigma, prior$target_fit, prior$weight, tau,
                      tr / prior$d)
  out <- (out + t(out)) / 2
  dimnames(out) <- dimnames(sigma)
  out
}

# The pseudo-observations that the convergence rule adds to the rows.
mixture_shrink_rows <- function(prior, g) g * shrink_rows(prior)

# The objective in the data's units: the log-likelihood's shift, and
# log det Sigma_k's (2 sum(log scale)) in each of the G penalties.
mixture_shrink_objective <- function(objective, prior, g, scale, shift) {
  objective - shift - g * shrink_weight(prior) * sum(log(scale))
}
