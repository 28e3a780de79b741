# Online EM with `factors = r` and with `shrink`, and the units of a stream
# whose data need the standardisation of R/fit_scaling.R.
#
# Factors.  The factor M-step (R/fit_factor.R) needs S beta' and diag S
# with beta = F' Sigma^-1 at the parameters of the E-step; the E-step
# gives sxx_proj = S_t beta_t' for its own beta_t, and a running average
# of S_t beta_t' over batches with changing beta_t is no function of the
# running average of S.  Online EM (Cappe and Moulines 2009) needs
# statistics whose average is the target: here those of the complete data
# (x, f, Y) of the factor model
#   x | f, Y ~ N(mu + gamma Y + F f, Y D),  f | Y ~ N(0, Y I_r)
# (the latent f of factor-analysis EM: Rubin and Thayer 1982; its online
# form as in the incremental EM for mixtures of factor analysers,
# Ghahramani and Hinton 1996, Tech. Rep. CRG-TR-96-1, Toronto).  Given x
# and Y, f ~ N(beta (u - gamma Y), Y (I - beta F)), u = x - mu, so the
# E-step's sums give, with e = E[1/Y | x] and v the row weights,
#   a_uf = sum v E[(1/Y) u f']  = sxx_proj - sx (beta gamma)',
#   b_if = sum v E[(1/Y) f]     = beta (sxw - tau gamma),
#   b_f  = sum v E[f]           = beta (sx - s_y gamma),
#   b_ff = sum v E[(1/Y) f f']  = tau (I - beta F) + beta sxx_proj
#          - (beta sx)(beta gamma)' - (beta gamma)(beta sx)'
#          + s_y (beta gamma)(beta gamma)'
#   (the last three terms: beta sum v E[(1/Y)(u - gamma Y)(u - gamma Y)']
#   beta', with sxx_proj = S beta'),
# and diag S (sxx_diag), O(d r) numbers in all.  Their running averages
# are kept with the others (per unit weight); the M-step is the complete-
# data one given the new mu and gamma (ECM, as the batch fit): with
# r = u - mu_u - gamma Y the residual at the new location,
#   C = sum v E[(1/Y) r f'] = a_uf - mu_u b_if' - gamma b_f',
#   F_new = C b_ff^-1,  D_new = diag(sum v E[(1/Y) r r']) - rowSums(F_new * C)
# (over tau).  At a fixed point (mu_u = 0, gamma unchanged) C = tau S beta'
# and b_ff = tau (I - beta F + beta S beta') with S the effective scatter
# of full_sigma(): the batch factor M-step (factor_fa_step()), so
# the fixed points are those of the batch fit.  When mu moves by c,
# a_uf -> a_uf - c b_if' and diag S as online_move() moves S; when Y ->
# k Y (the gauge), F -> F / sqrt(k) and so f -> sqrt(k) f: a_uf and b_if
# are divided by sqrt(k), b_f multiplied, b_ff unchanged.  F is not
# rotated during the stream (the statistics are in its basis); the fit
# reports it rotated (factor_result()).
#
# Shrink.  The penalised M-step of a batch fit (R/shrink.R) is that of S
# with W the weight of the rows; online, S is the M-step's Sigma from the
# running averages and W the weight of the rows seen so far, so that the
# stream tracks the penalised fit of all its rows (k pseudo-observations
# against W rows); the target and the rule's weight come from the first
# batch.  With factors, the penalised FA step of R/penalty.R on S* =
# S + lambda (T / c* - S), lambda = k / (W + k), needs S* beta' and
# I - beta F + beta S* beta' (and diag S*), which are linear in S: the
# averages C / tau, b_ff / tau and the diagonal are taken by the same
# lambda toward T beta' / c*, I - beta F + beta T beta' / c* and
# diag(T) / c* (the k pseudo-observations' complete-data statistics, at
# the parameters of the E-step, whose beta it gives).  At a fixed point
# (C = tau S beta', b_ff = tau (I - beta F + beta S beta')) that is the
# batch penalised step with W rows, so the fixed points are those of the
# penalised batch factor fit of rows of weight W.
#
# Fixed.  mu, p and gamma = 0 are held as in the batch M-step: the
# location with mu held (location_mu_held()), p by fixed_mstep_sub();
# the same conditional steps, so the same fixed points.
#
# Units.  Where the first batch needs the standardisation (or update()
# continues a fit that had it), the stream is fitted in its units: each
# batch is standardised with the same centre and scale, the state's
# parameters and statistics are in those units, and the batches'
# log-likelihoods are taken back to the data's (less tau sum(log s)).

# The fields of a factor E-step that a batch fit keeps for update().
online_factor_fields <- c("sxx_diag", "sxx_proj", "proj")

# The model arguments of an online fit (`factors`, `shrink`), checked when
# its first batch is read.
online_model_args <- function(args, model, call) {
  args$factors <- check_factors(model$factors, call)
  args$shrink <- shrink_arg(model$shrink, call)
  if (identical(args$shrink$weight, "cv")) {
    model_refuse("shrink_cv_online", call)
  }
  args
}

# E-step statistics st in the data's units (the log-likelihood less
# tau sum(log s)) where the stream is standardised.
online_units <- function(st, scaling) {
  if (is.null(scaling)) {
    return(st)
  }
  st$loglik <- st$loglik - st$tau * sum(log(scaling$scale))
  st
}

# The complete-data statistics of the factor model (the header) from a
# factor E-step at par.
online_factor_latent <- function(st, par) {
  f <- par$loadings
  r <- ncol(f)
  beta <- if (r == 0L) matrix(0, 0L, length(par$mu)) else st$proj
  bg <- drop(beta %*% par$gamma)
  bx <- drop(beta %*% st$sx)
  bsb <- beta %*% st$sxx_proj
  b_ff <- st$tau * (diag(r) - beta %*% f) + bsb - tcrossprod(bx, bg) -
    tcrossprod(bg, bx) + st$s_y * tcrossprod(bg)
  c(
    st[setdiff(online_stat_names, "sxx")],
    list(
      sxx_diag = st$sxx_diag,
      a_uf = st$sxx_proj - tcrossprod(st$sx, bg),
      b_if = drop(beta %*% st$sxw) - st$tau * bg,
      b_f = bx - st$s_y * bg,
      b_ff = (b_ff + t(b_ff)) / 2
    )
  )
}

# The factor M-step from the averaged complete-data statistics (the
# header): mu, gamma and the mixing law as mstep_member() (with the
# parameters of state$fixed held: R/constraints.R), then F and D,
# penalised by pen (online_factor_prior(); NULL: none).
online_factor_mstep <- function(s, par, state, pen = NULL) {
  loc <- constraints_location(s, par, state)
  n <- s$tau
  dg <- s$sxx_diag / n
  for (term in factor_scatter_terms(loc)) {
    dg <- dg + term[[1L]] * term[[2L]] * term[[3L]]
  }
  cf <- (s$a_uf - tcrossprod(loc$mu_u, s$b_if) -
           tcrossprod(loc$gamma, s$b_f)) / n
  b_ff <- s$b_ff / n
  if (!is.null(pen)) {
    cf <- pen$step(cf, pen$tb)
    b_ff <- pen$step(b_ff, pen$b_target)
    dg <- pen$step(dg, pen$t_diag)
  }
  f_new <- if (ncol(cf) == 0L) cf else t(solve(b_ff, t(cf)))
  dd <- dg - rowSums(f_new * cf)
  c(list(mu = loc$mu, gamma = loc$gamma, loadings = f_new,
         uniquenesses = pmax(dd, factor_uniq_floor * dg)),
    fixed_mstep_sub(s, par, state))
}

# Parameters an E-step can take.
online_valid <- function(par) {
  if (!is.null(par$loadings)) {
    return(!is.null(factor_woodbury(par)))
  }
  !is.null(.Call(ffi_chol_lower, par$sigma)) && gig_valid(par$p, par$a, par$b)
}

# The prior of a penalised batch fit, for update() (shrink_setup()'s form;
# a factor fit's: factor_shrink_target()'s).
online_prior_of <- function(object) {
  sh <- object$shrink
  if (is.null(sh)) {
    return(NULL)
  }
  if (!is.null(object$factors)) {
    given <- is.matrix(sh$target)
    return(c(sh, list(target_diag = if (given) diag(sh$target) else
      sh$target, target_fit = if (given) sh$target, d = object$d,
      factor = TRUE)))
  }
  sc <- object$scaling
  fit <- if (is.null(sc)) sh$target else sh$target / tcrossprod(sc$scale)
  c(sh, list(target_fit = fit, chol_target = .Call(ffi_chol_lower, fit),
             d = object$d))
}

# The prior's record and the objective (loglik + P* at the last
# parameters, in the data's units as mix_result() has it) of an online fit.
online_shrink_result <- function(fit, state) {
  prior <- state$prior
  pen <- online_penalty(state$par, prior)
  shift <- if (is.null(state$scaling)) 0 else
    penalty_shift(prior, sum(log(state$scaling$scale)))
  fit$objective <- fit$loglik + pen - shift
  fit$shrink <- shrink_result(prior)
  fit
}

# The fit's scaling (mix_result()'s form) from the stream's, with par the
# parameters in its units and in the fit's gauge; NULL when unscaled.
online_result_scaling <- function(scaling, par, gauge, call) {
  if (is.null(scaling)) {
    return(NULL)
  }
  sc <- scaling
  sc$log_k <- scaling_log_k(sc, gauge)
  sc$parameters <- par
  scaling_check(scaling_to_user(par, sc, sc$log_k), par, call)
  sc
}
