# The penalty of a fit with a prior (`shrink`, R/shrink.R): the objective
# loglik + sum_k P*(Sigma_k) and the penalised M-step of each component's
# Sigma, for every covariance structure (its cov table entry's
# penalty_parts(), R/cov.R), every G and online EM.
#
# Mixtures: the expected complete-data log-likelihood is a sum over the
# components, each with its own Sigma_k, so the MAP-EM argument of
# R/shrink.R holds component by component: the M-step of Sigma_k is (W_k
# S_k + k T / c*_k) / (W_k + k) with W_k = sum_i tau_ik and c*_k =
# tr(Sigma_k^-1 T) / d at the current Sigma_k, and the objective never
# decreases.  The weight rules give the pooled rows' k divided by G (a
# component of average size is then shrunk with the rule's intensity);
# weight = "cv" is for one distribution.
#
# Factor structure (Sigma = F F' + diag(D)), with no d x d matrix for the
# built-in targets ("diagonal", "identity": T kept as its diagonal t).
# P* from log det Sigma (the E-step's logdet) and tr(Sigma^-1 T) by
# Woodbury: Sigma^-1 = D^-1 - D^-1 F beta with beta = F' Sigma^-1 = M^-1
# F' D^-1 (the E-step's proj), so
#   tr(Sigma^-1 T) = sum(diag(T) / D) - sum((F / D) * (T beta')),
# O(d r) for a diagonal T (T beta' = t * beta'), O(d^2 r) for a matrix.
# The M-step is the factor-analysis EM step of R/fit_factor.R on the
# penalised scatter S* = S + lambda (T / c* - S), lambda = k / (W + k),
# c* = tr(Sigma^-1 T) / d at the current Sigma: it needs only
#   S* beta' = S beta' + lambda (T beta' / c* - S beta'),
#   diag S* = diag S + lambda (diag T / c* - diag S).
# Monotone: in the gauge c* (Sigma -> c* Sigma, where P = P*), the
# MAP-EM auxiliary function's Sigma part is -(W + k) / 2 [log det Sigma +
# tr(Sigma^-1 S*)] with S* the scatter of that gauge; one FA EM step on S*
# increases it (it is one EM step of the FA likelihood of S*; Rubin and
# Thayer 1982), mu, gamma and the mixing law maximise their own parts, so
# the step is a GEM step for loglik + P from the point in gauge c*, and
# loglik + P*(Sigma_new) >= loglik + P(Sigma_new in gauge c*) as in
# R/shrink.R.  The FA step is equivariant under (F, D, S) -> (s^1/2 F,
# s D, s S), so the step taken in the current gauge, on S + lambda (T / c*
# - S), is that step written back.  c* is held through the step (it is a
# function of the current point only), so re-estimating it each iteration
# keeps every iteration a GEM step for the objective.

# The objective and tr(Sigma_k^-1 T) ------------------------------------------

# x (an EM point or state) with its objective loglik + sum_k P*(Sigma_k)
# and shrink_tr, tr(Sigma_k^-1 T) of each component (for the next
# M-step's c*_k), for the components pars with E-steps sts; chols: the
# lower Cholesky factors of full Sigma_k where the path has them (NULL:
# t(chol(Sigma_k))).  Without a prior (or at an unusable x) x is
# returned as it is.
penalty_point <- function(x, loglik, pars, sts, prior, chols = NULL) {
  if (is.null(prior) || !x$ok) {
    return(x)
  }
  parts <- vapply(seq_along(pars), function(k) {
    cov_of(pars[[k]])$penalty_parts(pars[[k]], sts[[k]], prior, chols[[k]])
  }, c(0, 0))
  x$shrink_tr <- parts[2L, ]
  pen <- shrink_penalty(parts[1L, ], parts[2L, ], prior$d, prior$weight)
  x$objective <- loglik + sum(pen)
  x$ok <- is.finite(x$objective)
  x
}

# A mixture state (mixture_state()) with its objective: the
# log-likelihood, plus the penalties with a prior (penalty_point()).
mixture_shrink_point <- function(state, ctx) {
  es <- state$es
  if (state$ok) state$objective <- es$loglik
  penalty_point(state, es$loglik, state$pars, es$components, ctx$shrink)
}

# c(log det Sigma, tr(Sigma^-1 T)) of a full Sigma from its lower
# Cholesky factor chol_l (the source of each path's numbers: pass the
# factor the path holds).
penalty_parts_chol <- function(chol_l, prior) {
  c(2 * sum(log(diag(chol_l))),
    sum(forwardsolve(chol_l, prior$chol_target)^2))
}

# The same for a factor Sigma from its E-step st (logdet, proj: or
# factor_woodbury()'s) by Woodbury (the header).
penalty_parts_factor <- function(par, st, prior) {
  tb <- factor_target_times(prior, t(st$proj))
  c(st$logdet, factor_shrink_trace(par, tb, prior))
}

# T beta' (d x r) for the prior's target; beta_t = beta' (d x r).
factor_target_times <- function(prior, beta_t) {
  if (is.null(prior$target_fit)) {
    prior$target_diag * beta_t
  } else {
    prior$target_fit %*% beta_t
  }
}

# tr(Sigma^-1 T) at par (the header), from T beta' (tb; beta = F'
# Sigma^-1, the E-step's proj).
factor_shrink_trace <- function(par, tb, prior) {
  dd <- par$uniquenesses
  sum(prior$target_diag / dd) - sum((par$loadings / dd) * tb)
}

# The penalised M-step ---------------------------------------------------------

# The penalty's part of a component's M-step (pen of mstep_member()):
# the prior, the weight w of the component's rows and tr = tr(Sigma^-1 T)
# at its current Sigma; NULL without a prior.
penalty_arg <- function(prior, w, tr) {
  if (!is.null(prior)) list(prior = prior, w = w, tr = tr)
}

# A component's M-step Sigma, penalised by pen (penalty_arg(); NULL or
# d = 1: unchanged).
penalty_sigma <- function(sigma, pen) {
  if (is.null(pen) || pen$prior$d == 1L) {
    return(sigma)
  }
  prior <- pen$prior
  out <- shrink_sigma(sigma, prior$target_fit, prior$weight, pen$w,
                      pen$tr / prior$d)
  out <- (out + t(out)) / 2
  dimnames(out) <- dimnames(sigma)
  out
}

# The penalised scatter S* (factor_scatter()'s proj = S beta' and diag)
# of the factor M-step, beta = F' Sigma^-1 (proj) at the current
# parameters (the header); pen as for penalty_sigma().
penalty_scatter <- function(sc, beta, pen) {
  if (is.null(pen) || pen$prior$d == 1L) {
    return(sc)
  }
  prior <- pen$prior
  tb <- factor_target_times(prior, t(beta))
  c_star <- pen$tr / prior$d
  k <- prior$weight
  list(proj = shrink_sigma(sc$proj, tb, k, pen$w, c_star),
       diag = shrink_sigma(sc$diag, prior$target_diag, k, pen$w, c_star))
}

# The prior's part of the penalised factor M-step of online EM at the
# E-step st of the parameters par, with w the weight of the rows seen:
# the pseudo-observations' complete-data statistics at par, T beta' / c*,
# I - beta F + beta T beta' / c* and diag(T) / c* (c* = tr(Sigma^-1 T) /
# d), and step(a, b) = a + lambda (b - a), lambda = k / (w + k), which
# takes the averages a toward them; NULL without a prior or for d = 1.
online_factor_prior <- function(prior, st, par, w) {
  if (is.null(prior) || prior$d == 1L) {
    return(NULL)
  }
  r <- ncol(par$loadings)
  beta <- if (r == 0L) matrix(0, 0L, prior$d) else st$proj
  tb <- factor_target_times(prior, t(beta))
  c_star <- factor_shrink_trace(par, tb, prior) / prior$d
  k <- prior$weight
  list(
    tb = tb, t_diag = prior$target_diag,
    b_target = c_star * (diag(r) - beta %*% par$loadings) + beta %*% tb,
    step = function(a, b) shrink_sigma(a, b, k, w, c_star)
  )
}

# pen (penalty_arg()) of online EM's full M-step at the current
# parameters par, with w the weight of the rows seen so far.
online_penalty_arg <- function(par, prior, w) {
  if (is.null(prior)) {
    return(NULL)
  }
  chol_l <- .Call(ffi_chol_lower, par$sigma)
  penalty_arg(prior, w, penalty_parts_chol(chol_l, prior)[[2L]])
}

# P*(Sigma) at par of an online fit (from its own Cholesky or Woodbury
# factors).
online_penalty <- function(par, prior) {
  full <- is.null(par$loadings)
  parts <- cov_of(par)$penalty_parts(
    par, if (!full) factor_woodbury(par), prior,
    if (full) .Call(ffi_chol_lower, par$sigma)
  )
  shrink_penalty(parts[[1L]], parts[[2L]], prior$d, prior$weight)
}

# The prior in the units of a fit ----------------------------------------------

# The target part of the prior of a factor fit (shrink_setup()): target
# (the diagonal t as a vector for "diagonal" and "identity", else the
# matrix; the data's units, which are the fitted ones: factor fits are not
# standardised), target_diag (t), target_fit (the matrix, or NULL).
factor_shrink_target <- function(spec, src, call) {
  d <- src$engine$d
  v <- src$std$scale^2
  out <- list(
    type = if (is.character(spec$target)) spec$target else "matrix",
    target = NULL, target_diag = NULL, target_fit = NULL,
    weight = spec$weight, rule = "given", intensity = NA_real_, d = d,
    factor = TRUE
  )
  if (is.matrix(spec$target)) {
    out$target <- shrink_target(spec$target, NULL, rep(1, d), call)$user
    out$target_fit <- out$target
    out$target_diag <- diag(out$target)
    return(out)
  }
  t_diag <- if (spec$target == "diagonal") v else rep(mean(v), d)
  if (!all(is.finite(t_diag) & t_diag > 0)) {
    shrink_abort_target(call)
  }
  out$target <- out$target_diag <- unname(t_diag)
  out
}

# The prior of a mixture fit in the units z of its EM (std: the rows'
# center, scale and covariance; x: the rows in memory, or NULL: chunks;
# nobs: their weight, NULL: from x or the weights), with the rule's
# weight divided by G.  A full Sigma's target is taken in the units z; a
# factor Sigma's (factors = r): mixture_factor_prior().
mixture_shrink_setup <- function(spec, x, std, weights, g, call,
                                 factors = NULL, scaling = NULL,
                                 nobs = NULL) {
  if (is.null(spec)) {
    return(NULL)
  }
  mixture_shrink_check_cv(spec, call)
  if (is.null(nobs)) nobs <- if (is.null(weights)) NROW(x) else sum(weights)
  prior <- if (is.null(factors)) {
    src <- list(
      engine = list(d = length(std$scale)),
      std = list(cov = std$cov / tcrossprod(std$scale)),
      scaling = list(center = std$center, scale = std$scale), stored = x,
      weights = weights, nobs = nobs
    )
    shrink_setup(spec, src, call)
  } else {
    mixture_factor_prior(spec, x, std, weights, nobs, factors, scaling, call)
  }
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

# The prior of a factor mixture (factor_shrink_target()'s, with r
# factors): its target and rule taken on the rows x in the data's units
# (as for one factor fit), then the target moved to the units z of the EM
# (std: the rows' center and scale).  prior$target stays in the data's
# units (the fit's record).  Rows fitted in the units of a scaling
# (R/fit_scaling.R) take them in the units of
# mixture_factor_target_units().
mixture_factor_prior <- function(spec, x, std, weights, nobs, r, scaling,
                                 call) {
  units <- mixture_factor_target_units(spec, x, std, scaling, call)
  src <- list(
    engine = list(d = length(std$scale)), std = units$std, stored = units$x,
    weights = weights, nobs = nobs
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

# The pseudo-observations that the convergence rule adds to the rows.
mixture_shrink_rows <- function(prior, g) g * shrink_rows(prior)

# The penalties' part of the objective's shift from the fitted units to
# the data's: log det Sigma_k moves by 2 log_s (log_s: the sum of the
# logs of the columns' scales) in each of the G penalties (k / 2 each).
penalty_shift <- function(prior, log_s, g = 1L) {
  g * shrink_weight(prior) * log_s
}

# A mixture's objective in the data's units: the log-likelihood's shift,
# and the penalties'.
mixture_shrink_objective <- function(objective, prior, g, scale, shift) {
  objective - shift - penalty_shift(prior, sum(log(scale)), g)
}
