# Online (stochastic-approximation) EM over mini-batches (Cappe and
# Moulines 2009, J. R. Statist. Soc. B 71, 593-613): running averages of
# the normalised E-step statistics, s_bar <- (1 - g_t) s_bar + g_t s_t / n_t,
# and the batch EM's M-step (mstep_member()) from s_bar after each batch.
#
# The state of a stream is list(par, s, t, ...): par the parameters (in
# the data's units and the det gauge, det Sigma = 1) and s the averaged
# statistics (per unit weight: tau = 1) taken about par as an E-step at par
# would take them (u = x - par$mu; the deviation statistics about
# c = sqrt(b / a) of par, src/core/estep.h).  After each M-step s is moved
# to the new parameters (online_move()), so that the next batch's E-step
# statistics, taken at them, are averaged with statistics of the same
# origin and the same scale of Y.  An online fit is the warm-up batch fit
# of its first batch continued by update() over the others.

#' Settings of online (stochastic-approximation) EM
#'
#' `ghmix_online()` makes the `online` setting of [ghmix_control()]: with
#' it, [fit_nig()], [fit_gh()], [fit_vg()], [fit_skewt()] (and the fitters
#' built on them, such as [fit_hyperbolic()] and [fit_student()]) fit by
#' one pass of online EM over mini-batches of the rows, never holding more
#' than one batch, instead of iterating over all rows.
#'
#' @section Algorithm: Online EM (Cappe and Moulines 2009) keeps running
#'   averages \eqn{\bar s} of the E-step statistics per unit weight
#'   (the weighted sums of \eqn{E[1/Y|x]}, \eqn{E[Y|x]},
#'   \eqn{E[\log Y|x]}, \eqn{u}, \eqn{E[1/Y|x] u} and
#'   \eqn{E[1/Y|x] u u'} with \eqn{u = x - \mu}, divided by the batch's
#'   sum of weights \eqn{n_t}). Batch \eqn{t} (\eqn{t = 2, 3, \dots})
#'   gets one E-step at the current parameters, then
#'   \deqn{\bar s \leftarrow (1 - g_t)\,\bar s + g_t\, s(\mathrm{batch}_t)
#'   / n_t,}{s_bar <- (1 - g_t) s_bar + g_t s(batch_t) / n_t,}
#'   and the parameters are the batch EM's M-step from \eqn{\bar s}. The
#'   statistics of each E-step are about the current \eqn{\mu} and in the
#'   current scale of \eqn{Y}; \eqn{\bar s} is moved to the new parameters
#'   after each M-step (exactly: \eqn{\sum v e (u - c)(u - c)' = S_{xx} -
#'   S_{xw} c' - c S_{xw}' + S_{inv} c c'} for a shift \eqn{c} of
#'   \eqn{\mu}, and the matching rescaling for the gauge).
#'
#'   The first batch is fitted by `warmup` iterations of the batch EM
#'   (from `start`, or the default start; for `fit_gh()` first `warmup`
#'   iterations of the NIG), and its E-step statistics at the result are
#'   the first \eqn{\bar s} (\eqn{t = 1}).
#'
#' @section Step sizes and convergence: `step = "robbins-monro"` (default)
#'   takes \eqn{g_t = (t + t_0)^{-\kappa}} with \eqn{\kappa \in (0.5, 1]}:
#'   then \eqn{\sum g_t = \infty} and \eqn{\sum g_t^2 < \infty}, and for a
#'   stationary stream the parameters converge to a stationary point of
#'   the likelihood (almost surely, under the regularity conditions of
#'   Cappe and Moulines 2009). \eqn{\kappa = 1}, \eqn{t_0 = 0} is the
#'   running mean of the batches' statistics (each batch weighted
#'   equally); smaller \eqn{\kappa} forgets the early batches faster, at
#'   the price of more noise: the estimate then behaves like a batch fit
#'   on the last \eqn{t^\kappa} or so batches. With the defaults
#'   (\eqn{\kappa = 0.6}, \eqn{t_0 = 0}, batches of 1e4 rows, a warm-up of
#'   10 batch EM iterations) one pass over 1e5 to 2e5 simulated NIG or GH
#'   rows (d = 1 and 3) reaches a mean log-likelihood within 1e-3 per row
#'   of the batch fit of the same rows (the tests), and one pass over 2e6
#'   NIG rows (d = 3) within 1e-5 (`bench/online.R`). `step = "forget"`
#'   takes the fixed \eqn{g_t = } `rate`: exponential forgetting, with an
#'   effective memory of about `1 / rate` batches, for drifting data; it
#'   does not converge but tracks.
#'
#' @section Result: An online fit is a fit of the usual class (e.g.
#'   `c("ghmix_fit_nig", "ghmix_fit_online", "ghmix_fit")`), so `print()`,
#'   `summary()`, `coef()`, `logLik()`, `AIC()`, `BIC()`, `predict()` (with
#'   `newdata`) and `simulate()` work. It differs from a batch fit in:
#'   * `trace`: one row per batch: `batch`, `rows`, `weight` (the sum of
#'     the batch's weights), `loglik` and `mean_loglik` (its log-likelihood
#'     at the parameters *before* its update: an out-of-sample figure; for
#'     the first batch, at the warm-up fit) and `gain` (\eqn{g_t});
#'   * `loglik` (and `logLik()`): the sum of the batches' `loglik`, the
#'     prequential log-likelihood of the stream. It is below the maximised
#'     log-likelihood of the same rows, so `AIC()` and `BIC()` from it
#'     compare online fits of the same stream, not online with batch fits;
#'   * `iterations`: the batches; `converged` is `NA` (there is no
#'     convergence test); `nobs` and `nrow` count all the rows seen;
#'   * `vcov()` (and the standard errors of `summary()`): the observed
#'     information estimated on the last batch, which the fit keeps, scaled
#'     by the rows seen (an estimate that assumes a stationary stream);
#'   * `data` is a matrix of no rows (the rows are not kept), so `fitted()`
#'     and `predict()` without `newdata` give an error of class
#'     `ghmix_error_online`;
#'   * `online`: the state of the stream (the batch count `t`, the averaged
#'     statistics `s`, the parameters `par` they are about, the `schedule`,
#'     the last batch), from which [update.ghmix_fit()] continues.
#'
#'   Its memory is that of one batch, whatever the length of the stream;
#'   only the trace grows (one row per batch). Bad batches are errors of
#'   class `ghmix_error_batch` (a function that returns something other
#'   than numbers, a batch with another number of columns) with the batch
#'   number as field `batch`; `cluster` and `components` other than 1 are
#'   not supported with online EM.
#'
#' @section Factors, shrinkage and units: With `factors = r` the stream
#'   keeps, instead of \eqn{E[1/Y|x] u u'}, the running averages of the
#'   complete-data statistics of the factor model \eqn{x | f, Y \sim
#'   N(\mu + \gamma Y + F f, Y D)}{x | f, Y ~ N(mu + gamma Y + F f, Y
#'   D)}, \eqn{f | Y \sim N(0, Y I_r)}{f | Y ~ N(0, Y I_r)}: the
#'   diagonal of \eqn{\sum E[1/Y|x] u u'} and the sums of
#'   \eqn{E[u f'/Y]}, \eqn{E[f/Y]}, \eqn{E[f]} and \eqn{E[f f'/Y]}
#'   given \eqn{x}, O(d r) numbers (never a \eqn{d \times d}{d x d}
#'   matrix), from the factor E-step of each batch; the M-step of
#'   \eqn{F} and \eqn{D} is the factor-analysis EM step (Rubin and Thayer
#'   1982) from those averages, and its fixed points are those of the
#'   batch factor fit. One pass over 2e5 simulated factor-GH rows (d =
#'   20, r = 2, batches of 1e4) reaches a mean log-likelihood within 1e-3
#'   per row of the batch factor fit (the tests). The loadings are
#'   reported in the rotation of the batch fit; the stream keeps them
#'   unrotated. `shrink` takes the penalised M-step of the batch fit (see
#'   [ghmix_shrink()]) on the running averages, with \eqn{W} the weight
#'   of the rows seen so far, so that the fit tracks the penalised fit of
#'   all the rows; the target (`"diagonal"`, `"identity"`) and the rule's
#'   weight (`weight = NULL`) come from the first batch, `weight = "cv"`
#'   is an error, and `objective` is `loglik` plus the penalty at the last
#'   parameters. With `factors` and `shrink`, the averaged complete-data
#'   statistics are pulled toward those of the \eqn{k}
#'   pseudo-observations of the target at the current parameters (the
#'   scatter \eqn{T/c^*}; weight \eqn{\lambda = k/(W + k)}), so that
#'   the fixed points are those of the penalised batch factor fit of
#'   rows of weight \eqn{W}. `fixed` holds `mu`, `p` and `gamma = 0`
#'   (with or without `factors`) by the conditional M-steps of the batch
#'   fit, whose fixed points they share; `a`, `b` and a nonzero `gamma`
#'   need the batch EM. Where the
#'   first batch needs the standardisation of the Units section of
#'   [fit_nig()] (or [update.ghmix_fit()] continues a fit that had it),
#'   every batch is fitted standardised with the same centre and scales
#'   and the fit has `scaling` as a batch fit has.
#'
#' @param batch_size Rows per batch for a matrix (or data frame, or
#'   vector) `x`: a whole number, 1 or more. The chunks of a [ghmix_data()]
#'   `x` and the batches returned by a function `x` are taken as they come.
#' @param step `"robbins-monro"` (default) or `"forget"`; see the Step
#'   sizes section.
#' @param kappa The exponent of the Robbins-Monro step size: a number in
#'   \eqn{(0.5, 1]}.
#' @param t0 The offset of the Robbins-Monro step size: a finite number,
#'   0 or more.
#' @param rate The step size of `step = "forget"`: a number in
#'   \eqn{(0, 1]}.
#' @param warmup Batch EM iterations on the first batch: a whole number,
#'   0 or more (0: its E-step statistics at the start).
#' @return An object of class `"ghmix_online"`.
#' @references Cappe, O. and Moulines, E. (2009). On-line
#'   expectation-maximization algorithm for latent data models. *Journal
#'   of the Royal Statistical Society B* 71, 593-613. Rubin, D. B. and
#'   Thayer, D. T. (1982). EM algorithms for ML factor analysis.
#'   *Psychometrika* 47, 69-76. Ghahramani, Z. and Hinton, G. E. (1996).
#'   The EM algorithm for mixtures of factor analyzers. Technical Report
#'   CRG-TR-96-1, University of Toronto.
#' @seealso [fit_nig()], [ghmix_control()], [update.ghmix_fit()]
#' @concept fitting
#' @export
#' @examples
#' set.seed(1)
#' x <- rgh(2e4, p = -0.5, a = 1, b = 1, gamma = 0.2)
#' ctl <- ghmix_control(online = ghmix_online(batch_size = 5000))
#' fit <- fit_nig(x, control = ctl)
#' fit$trace
#' # a stream: a function that returns the next batch, NULL at the end
#' k <- 0
#' more <- function() {
#'   k <<- k + 1
#'   if (k > 4) NULL else rgh(5000, p = -0.5, a = 1, b = 1, gamma = 0.2)
#' }
#' fit2 <- update(fit, more)
#' nobs(fit2)
ghmix_online <- function(batch_size = 1e4, step = c("robbins-monro", "forget"),
                         kappa = 0.6, t0 = 0, rate = 0.05, warmup = 10L) {
  call <- sys.call()
  if (!is_count(batch_size) || batch_size > .Machine$integer.max) {
    abort_argument(
      "`batch_size` must be a whole number from 1 to .Machine$integer.max.",
      call
    )
  }
  step <- check_choice(step, c("robbins-monro", "forget"), "step", call)
  online_check_number(kappa, "kappa", c(0.5, 1), "in (0.5, 1]", call)
  check_tolerance(t0, "t0", call)
  online_check_number(rate, "rate", c(0, 1), "in (0, 1]", call)
  if (!(identical(warmup, 0) || identical(warmup, 0L) || is_count(warmup)) ||
        warmup > .Machine$integer.max) {
    abort_argument(
      sprintf(
        "`warmup` must be a whole number from 0 to %d (iterations), not %s.",
        .Machine$integer.max, format_arg_value(warmup)
      ),
      call
    )
  }
  structure(
    list(batch_size = as.double(batch_size), step = step, kappa = kappa,
         t0 = t0, rate = rate, warmup = as.integer(warmup)),
    class = "ghmix_online"
  )
}

# A number in the interval (range[1], range[2]].
online_check_number <- function(v, arg, range, text, call) {
  ok <- is.numeric(v) && !is.factor(v) && length(v) == 1L &&
    isTRUE(v > range[[1L]] && v <= range[[2L]])
  if (!ok) abort_argument(sprintf("`%s` must be a number %s.", arg, text), call)
}

#' @export
print.ghmix_online <- function(x, ...) {
  cat(sprintf(
    "<ghmix_online> batches of %.0f rows, %s, warm-up %d iterations\n",
    x$batch_size, online_schedule_label(x), x$warmup
  ))
  invisible(x)
}

online_schedule_label <- function(x) {
  if (x$step == "forget") {
    return(sprintf("forgetting at rate %g", x$rate))
  }
  sprintf("Robbins-Monro step (t + %g)^-%g", x$t0, x$kappa)
}

# g_t of batch t (t >= 2: batch 1 is the warm-up, g_1 = 1).
online_gain <- function(schedule, t) {
  if (schedule$step == "forget") {
    return(schedule$rate)
  }
  (t + schedule$t0)^-schedule$kappa
}

# The fit ------------------------------------------------------------------

# mix_fit() with control$online: the warm-up fit of the first batch, then
# the others (online_continue()).
online_fit <- function(x, family, symmetric, start, control, gauge, na_rm,
                       backend, threads, device, call, cluster, weights,
                       fixed, model = list()) {
  t_start <- proc.time()[[3]]
  if (!is.null(cluster)) model_refuse("online_cluster", call)
  args <- model_options(symmetric, control, gauge, na_rm, backend, threads,
                   device, NULL, call)
  stream <- online_stream(x, weights, control$online$batch_size, call)
  first <- online_next(stream, args$na_rm, call)
  if (is.null(first)) {
    abort_argument("`x` gave no rows to fit.", call)
  }
  online_check_first(first, control$online$batch_size, call)
  args <- online_model_args(args, model, call)
  warm <- online_warmup(first, family, start, args, fixed, call)
  state <- online_state(warm$point, warm$ctx, control$online, first, t = 1)
  state$clock <- warm$clock
  online_report_first(state, control$trace)
  state <- online_continue(state, stream, warm$ctx, args, call)
  online_result(state, warm$ctx, args, call, t_start)
}

# The warm-up fit needs a first batch of more than d + 1 rows (of positive
# weight): an error that names the batch and batch_size, not `x`.
online_check_first <- function(first, batch_size, call) {
  d <- ncol(first$x)
  n <- if (is.null(first$w)) nrow(first$x) else sum(first$w > 0)
  if (n > d + 1L) {
    return(invisible())
  }
  ghmix_abort(
    sprintf(
      paste(
        "The first batch of `x` has %d row%s%s; the warm-up fit of online EM",
        "needs more than d + 1 = %d: raise `batch_size` of ghmix_online()",
        "(now %s), or give the first batch more rows."
      ),
      n, plural(seq_len(n)), if (is.null(first$w)) "" else
        " of positive weight", d + 1L, format(batch_size)
    ),
    class = c("ghmix_error_batch", "ghmix_error_argument"), call = call,
    batch = 1
  )
}

# The batch fit of the first batch, for control$online$warmup iterations;
# its last point (parameters and E-step statistics) and context.
online_warmup <- function(first, family, start, args, fixed, call) {
  args$weights <- first$w
  src <- fit_source(first$x, args, call)
  on.exit(src$engine$free())
  args$fixed <- check_fixed(fixed, src$engine$d, call)
  check_fixed_mode(args$fixed, args, call)
  if (fixed_gamma_zero(args$fixed)) args$symmetric <- TRUE
  args$prior <- shrink_setup(args$shrink, src, call, NULL, args$factors)
  mix_warn_ties(src$ties, family, call, src$nobs)
  args$control$max_iter <- max(1L, args$control$online$warmup)
  args$control$trace <- FALSE
  state <- new.env(parent = emptyenv())
  if (is.null(start) && family_get(family)$start_family != family) {
    nig <- online_warmup_stage(src, "nig", NULL, fixed_none(args), call,
                               state)
    start <- mix_start_internal(nig$em$point$par, src$scaling)
  }
  run <- online_warmup_stage(src, family, start, args, call, state)
  ctx <- run$ctx
  ctx$engine <- NULL
  ctx$rows <- NULL
  ctx$fixed_user <- args$fixed
  ctx$scaling <- src$scaling
  list(point = run$em$point, ctx = ctx, clock = ctx$clock)
}

# fit_stage() for the warm-up iterations (0: the start's own point).
online_warmup_stage <- function(src, family, start, args, call, state) {
  if (args$control$online$warmup > 0L) {
    return(fit_stage(src, family, start, args, call, state, "warm-up"))
  }
  ctx <- mix_context(src, family, args, call)
  pt <- mix_point(stage_start(src, start, family, args, call), ctx)
  if (!pt$ok) {
    ghmix_abort(
      "The starting values give a non-finite log-likelihood; supply `start`.",
      class = "ghmix_error_start", call = call
    )
  }
  list(em = list(point = pt), ctx = ctx)
}

# The state of a stream from a point of a batch fit (par and its E-step
# statistics st, about par) that counts as t batches of the schedule.
online_state <- function(point, ctx, schedule, batch, t) {
  st <- online_units(point$st, ctx$scaling)
  par <- point$par
  s <- cov_of(par)$online_stats(st, par)
  scale <- gauge_scale(par, "det")
  list(
    par = apply_scale(par, scale), s = online_scale(s, scale, par), t = t,
    schedule = schedule, family = ctx$family, symmetric = ctx$symmetric,
    fixed = ctx$fixed, factors = ctx$factors, prior = ctx$shrink,
    scaling = ctx$scaling[c("center", "scale")],
    d = length(par$mu), names = names(par$mu),
    loglik = st$loglik, nobs = st$tau, nrow = st$n, batches = 1,
    dropped = 0, weighted = !is.null(batch$w),
    trace = online_trace_add(NULL, 1, st, 1), last = batch,
    clock = list(estep = 0, mstep = 0, esteps = 0L)
  )
}

# The batches of the stream, one online_step() each.
online_continue <- function(state, stream, ctx, args, call) {
  trace <- args$control$trace
  repeat {
    b <- online_next(stream, args$na_rm, call, state$d)
    if (is.null(b)) break
    if (nrow(b$x) == 0L) next
    state <- online_step(state, b, ctx, args, call)
    if (trace) online_report(state)
  }
  state$dropped <- state$dropped + stream$dropped
  state
}

# One batch: its E-step at the current parameters, the running average and
# the M-step.
online_step <- function(state, batch, ctx, args, call) {
  t0 <- proc.time()[[3]]
  par <- state$par
  st <- online_estep(state, batch, args)
  if (is.null(st) || st$n_bad > 0 || !is.finite(st$loglik)) {
    online_abort_batch(
      state, "its log-likelihood at the current parameters is not finite",
      call
    )
  }
  st <- online_units(st, state$scaling)
  t1 <- proc.time()[[3]]
  t <- state$t + 1
  g <- online_gain(state$schedule, t)
  s <- online_average(state$s, cov_of(par)$online_stats(st, par), g)
  w_seen <- state$nobs + st$tau
  new <- online_mstep(s, par, st, state, w_seen)
  if (!online_valid(new)) {
    online_abort_batch(state, "the M-step gave invalid parameters", call)
  }
  s <- online_move(s, par, new)
  scale <- gauge_scale(new, "det")
  state$par <- apply_scale(new, scale)
  state$s <- online_scale(s, scale, new)
  state$t <- t
  state$batches <- state$batches + 1
  state$loglik <- state$loglik + st$loglik
  state$nobs <- state$nobs + st$tau
  state$nrow <- state$nrow + st$n
  state$weighted <- state$weighted || !is.null(batch$w)
  state$trace <- online_trace_add(state$trace, state$batches, st, g)
  state$last <- batch
  state$clock$estep <- state$clock$estep + t1 - t0
  state$clock$mstep <- state$clock$mstep + proc.time()[[3]] - t1
  state$clock$esteps <- state$clock$esteps + 1L
  state
}

online_abort_batch <- function(state, why, call) {
  ghmix_abort(
    sprintf("Online EM stopped at batch %.0f of the stream: %s.",
            state$batches + 1, why),
    class = c("ghmix_error_online_step", "ghmix_error_batch"), call = call,
    batch = state$batches + 1, parameters = state$par
  )
}

# The E-step of a batch at the current parameters (in the units of the
# state's scaling).
online_estep <- function(state, batch, args) {
  x <- batch$x
  if (!is.null(state$scaling)) x <- scaling_apply(x, state$scaling)
  w <- weights_in_sums(batch$w)
  if (!is.null(state$factors)) {
    return(factor_estep(x, state$par, mix_what(state$family), w,
                        threads = args$threads, backend = args$backend,
                        device = args$device))
  }
  engine <- mix_engine(x, args$backend, args$threads, args$device, w)
  on.exit(engine$free())
  mix_estep(engine, state$par, mix_what(state$family))
}

# The batch EM's M-step (mstep_member()) from the averaged statistics s
# at par, penalised toward the prior with w the weight of the rows seen
# (st: the batch's E-step at par), as the structure's online_mstep()
# (R/cov.R) takes it.  The held parameters are imposed after it.
online_mstep <- function(s, par, st, state, w) {
  new <- cov_of(par)$online_mstep(s, par, st, state, w)
  if (is.null(state$fixed)) new else fixed_impose(new, state$fixed)
}

# The statistics of an E-step (estep_decode_one()) per unit weight.
online_stat_names <- c("s_inv", "s_y", "s_log", "s_inv_dev", "s_y_dev", "sx",
                       "sxw", "sxx")

online_normalise <- function(st) {
  s <- lapply(st[online_stat_names], function(v) v / st$tau)
  s$tau <- 1
  s
}

online_average <- function(s, new, g) {
  for (nm in setdiff(names(s), "tau")) {
    s[[nm]] <- (1 - g) * s[[nm]] + g * new[[nm]]
  }
  s
}

# s (about par) as an E-step at par_new would take it: about par_new$mu
# (the structure's online_move(), R/cov.R), and the deviation
# statistics about c_new = sqrt(b / a) of par_new (r = c_new / c):
# c_new e - 1 = r (c e - 1) + (r - 1), e / c_new - 1 =
# (e / c - 1) / r + (1 / r - 1).
online_move <- function(s, par, par_new) {
  shift <- par_new$mu - par$mu
  s <- cov_of(par)$online_move(s, shift)
  s$sxw <- s$sxw - s$s_inv * shift
  s$sx <- s$sx - shift
  r <- online_dev_scale(par_new) / online_dev_scale(par)
  s$s_inv_dev <- r * s$s_inv_dev + (r - 1)
  s$s_y_dev <- s$s_y_dev / r + (1 / r - 1)
  s
}

# ghmix_mix_dev_scale() (src/core/mixture.c).
online_dev_scale <- function(par) {
  if (par$a > 0 && par$b > 0 && is.finite(par$a) && is.finite(par$b)) {
    sqrt(par$b) / sqrt(par$a)
  } else {
    1
  }
}

# s under Y -> k Y (apply_scale(par, k); par: either side, for its
# structure); the deviations are unchanged.
online_scale <- function(s, k, par) {
  s$s_inv <- s$s_inv / k
  s$sxw <- s$sxw / k
  s <- cov_of(par)$online_scale(s, k)
  s$s_y <- s$s_y * k
  s$s_log <- s$s_log + log(k)
  s
}

# The trace: one row per batch (a matrix that doubles as it fills; n rows
# used), with the batch's log-likelihood at the parameters before its
# update.
online_trace_cols <- c("batch", "rows", "weight", "loglik", "mean_loglik",
                       "gain")

online_trace_add <- function(tr, batch, st, g) {
  if (is.null(tr)) {
    tr <- list(m = matrix(NA_real_, 64L, 6L), n = 0L)
  }
  if (tr$n == nrow(tr$m)) {
    tr$m <- rbind(tr$m, matrix(NA_real_, nrow(tr$m), 6L))
  }
  tr$n <- tr$n + 1L
  tr$m[tr$n, ] <- c(batch, st$n, st$tau, st$loglik, st$loglik / st$tau, g)
  tr
}

online_trace_frame <- function(tr) {
  m <- tr$m[seq_len(tr$n), , drop = FALSE]
  colnames(m) <- online_trace_cols
  as.data.frame(m)
}

online_report_first <- function(state, trace) {
  if (trace) online_report(state, "warm-up fit")
}

online_report <- function(state, what = "before its update") {
  row <- state$trace$m[state$trace$n, ]
  message(sprintf(
    "batch %6.0f  rows %8.0f  mean loglik %.10g (%s)  gain %.4g",
    row[[1L]], row[[2L]], row[[5L]], what, row[[6L]]
  ))
}

# The fit object of a stream's state: the usual fit, class
# ghmix_fit_online too, with the state in `online`.
online_result <- function(state, ctx, args, call, t_start, timings = NULL) {
  par <- state$par
  gauge <- result_gauge(par, args$gauge, call)
  par <- set_gauge(par, gauge)
  names(par$mu) <- names(par$gamma) <- state$names
  if (is.null(state$factors)) {
    dimnames(par$sigma) <- list(state$names, state$names)
  }
  sc <- online_result_scaling(state$scaling, par, gauge, call)
  if (!is.null(sc)) par <- scaling_to_user(par, sc, sc$log_k)
  clock <- state$clock
  prev <- timings
  if (is.null(prev)) prev <- c(total = 0, estep = 0, mstep = 0, esteps = 0)
  fit <- list(
    parameters = par, family = state$family, symmetric = state$symmetric,
    gauge = gauge, loglik = state$loglik, nobs = state$nobs,
    nrow = state$nrow, d = state$d,
    df = model_df(state$family, state$symmetric, state$d, state$factors),
    iterations = as.integer(state$batches), converged = NA,
    message = "online EM: one pass over the batches",
    trace = online_trace_frame(state$trace),
    timings = c(
      total = prev[["total"]] + proc.time()[[3]] - t_start,
      estep = prev[["estep"]] + clock$estep,
      mstep = prev[["mstep"]] + clock$mstep,
      esteps = prev[["esteps"]] + clock$esteps, launches = 0
    ),
    ties = NULL, na_action = integer(),
    data = matrix(0, 0L, state$d, dimnames = list(NULL, state$names)),
    control = args$control, backend = args$backend, threads = args$threads,
    call = call
  )
  fit$scaling <- sc
  fit["weights"] <- list(NULL)
  fit$weighted <- state$weighted
  state$clock <- list(estep = 0, mstep = 0, esteps = 0L)
  fit$online <- state
  fit <- fixed_result(fit, ctx$fixed_user)
  if (!is.null(state$prior)) fit <- online_shrink_result(fit, state)
  fit <- cov_get(state$factors)$result(fit)
  class(fit) <- c(paste0("ghmix_fit_", state$family), "ghmix_fit_online",
                  "ghmix_fit")
  fit
}

# Sources of batches --------------------------------------------------------

# The batches of x: a matrix, data frame or vector (batch_size rows at a
# time, x[idx, , drop = FALSE], with weights[idx]), a ghmix_data
# description (its chunks, with their weights), or a function without
# arguments (its answers, NULL at the end).  An environment: next() gives
# the next raw batch as list(x, w) (w NULL or the weights), or NULL;
# index counts the batches given, dropped the rows na.rm dropped.
online_stream <- function(x, weights, batch_size, call, arg = "x") {
  stream <- new.env(parent = emptyenv())
  stream$arg <- arg
  stream$index <- 0
  stream$dropped <- 0
  if (is.function(x) || inherits(x, "ghmix_data")) {
    if (!is.null(weights)) model_refuse("weights_stream", call)
    stream$next_raw <- if (is.function(x)) {
      online_function_batches(x, stream, arg)
    } else {
      online_chunk_batches(x, stream)
    }
    stream$names <- if (is.function(x)) NULL else x$names
    return(stream)
  }
  stream$next_raw <- online_matrix_batches(x, weights, batch_size, call, arg)
  stream
}

online_matrix_batches <- function(x, weights, batch_size, call, arg) {
  if (is.data.frame(x) || is.numeric(x) && !is.factor(x)) {
    n <- NROW(x)
  } else {
    mix_as_matrix(x, call, arg) # the error naming it
  }
  if (!is.null(weights)) weights <- check_weights(weights, n, call)
  done <- 0
  function() {
    if (done >= n) {
      return(NULL)
    }
    idx <- seq.int(done + 1, min(done + batch_size, n))
    done <<- done + length(idx)
    rows <- if (is.null(dim(x))) x[idx] else x[idx, , drop = FALSE]
    list(x = mix_as_matrix(rows, call, arg), w = weights[idx])
  }
}

online_chunk_batches <- function(x, stream) {
  chunks <- x$chunks
  function() {
    i <- stream$index + 1
    if (i > length(chunks)) {
      return(NULL)
    }
    online_read(function() chunk_read(chunks[[i]]), i, "Chunk", stream$arg)
  }
}

online_function_batches <- function(fun, stream, arg) {
  function() {
    i <- stream$index + 1
    res <- fun()
    if (is.null(res)) {
      return(NULL)
    }
    if (!is_numeric_chunk(res) && !is_weighted_list(res)) {
      ghmix_abort(
        sprintf(
          paste(
            "The batch function `%s` returned %s at batch %.0f; it must",
            "return a numeric matrix, data frame or vector (or list(x = ,",
            "weights = )), or NULL at the end."
          ),
          arg, type_name(res), i
        ),
        class = c("ghmix_error_batch", "ghmix_error_argument"), call = NULL,
        batch = i
      )
    }
    online_read(function() chunk_weights_split(res, NULL), i, "Batch", arg)
  }
}

# A batch read by read() (a matrix with attribute weights, or an error
# that becomes one of class ghmix_error_batch naming batch i).
online_read <- function(read, i, what, arg) {
  x <- tryCatch(read(), error = function(e) {
    if (inherits(e, "ghmix_error")) stop(e)
    ghmix_abort(
      sprintf("%s %.0f of `%s` cannot be used: %s.", what, i, arg,
              conditionMessage(e)),
      class = c("ghmix_error_batch", "ghmix_error_argument"), call = NULL,
      batch = i
    )
  })
  w <- attr(x, "weights")
  attr(x, "weights") <- NULL
  list(x = x, w = w)
}

# The next batch of the stream, checked (d columns, as the first batch;
# rows with NA, NaN or Inf dropped by na.rm, else an error), or NULL.
online_next <- function(stream, na_rm, call, d = NULL) {
  b <- stream$next_raw()
  if (is.null(b)) {
    return(NULL)
  }
  stream$index <- stream$index + 1
  i <- stream$index
  if (is.null(d)) {
    if (!is.null(stream$names)) colnames(b$x) <- stream$names
    if (is.null(colnames(b$x))) {
      colnames(b$x) <- if (ncol(b$x) == 1L) "x" else
        paste0("x", seq_len(ncol(b$x)))
    }
  } else if (ncol(b$x) != d) {
    ghmix_abort(
      sprintf(
        "Batch %.0f of `%s` has %d column%s; the fit has %d.", i,
        stream$arg, ncol(b$x), plural(seq_len(ncol(b$x))), d
      ),
      class = c("ghmix_error_batch", "ghmix_error_argument"), call = call,
      batch = i
    )
  }
  bad <- na_rows(b$x)
  if (length(bad) > 0L) {
    if (!na_rm) {
      abort_argument(
        sprintf(
          paste(
            "Batch %.0f of `%s` has %d row%s with NA, NaN or infinite values",
            "(%s of the batch); use `na.rm = TRUE` to drop them."
          ),
          i, stream$arg, length(bad), plural(bad), row_list(bad)
        ),
        call
      )
    }
    b$x <- b$x[-bad, , drop = FALSE]
    if (!is.null(b$w)) b$w <- b$w[-bad]
    stream$dropped <- stream$dropped + length(bad)
  }
  if (!is.null(b$w) && !any(b$w > 0)) {
    ghmix_abort(
      sprintf(
        paste(
          "The `weights` of batch %.0f of `%s` are all 0: the batch has",
          "nothing to fit (leave it out of the stream)."
        ),
        i, stream$arg
      ),
      class = c("ghmix_error_batch", "ghmix_error_argument"), call = call,
      batch = i
    )
  }
  b
}

# update() ------------------------------------------------------------------

#' Continue a fit on new rows (online EM)
#'
#' `update(fit, newdata)` continues a fit of [fit_nig()], [fit_gh()],
#' [fit_vg()] or [fit_skewt()] over new rows by online EM (see
#' [ghmix_online()]), without revisiting the rows already fitted: for an
#' online fit, its running averages of the E-step statistics and its step
#' size schedule go on where they stopped, so that `update()` of an online
#' fit of the first half of a stream with the second half gives the
#' online fit of the whole stream (the same numbers, with the same
#' batches); a batch fit keeps the E-step statistics of its last
#' iteration (per unit weight), which start the running averages, and
#' counts as `nrow / batch_size` batches of the schedule (at least 1).
#' Without `newdata`, `update()` re-evaluates the fit's call with the
#' arguments given, as [stats::update()] does.
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()] (of one distribution, in memory or chunked; also with
#'   `factors`, `shrink`, or data that were standardised, see the Units
#'   section of [fit_nig()]: the new rows are standardised as the old).
#' @param newdata The new rows, as `x` of an online fit: a numeric matrix,
#'   data frame or vector (split into batches of `batch_size` rows), a
#'   [ghmix_data()] description (one batch per chunk), or a function
#'   without arguments that returns the next batch (NULL at the end).
#' @param ... Without `newdata`: the arguments of the fit to change (see
#'   [stats::update()]); otherwise not used.
#' @param weights `NULL`, or one weight per row of a matrix `newdata`.
#' @param na.rm `TRUE` drops rows with `NA`, `NaN` or infinite values.
#' @param online `NULL` (default): the schedule of an online fit, or
#'   `ghmix_online()` for a batch fit; or a [ghmix_online()] object, whose
#'   settings replace the schedule from here on (the batch count and the
#'   running averages go on).
#' @param trace `TRUE` prints one line per batch.
#' @inheritParams ghmix-params
#' @return An online fit (class `"ghmix_fit_online"` besides the fit's
#'   own): see the Result section of [ghmix_online()].
#' @seealso [ghmix_online()], [fit_nig()]
#' @concept fitting
#' @importFrom stats update
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[1:1000, ])
#' fit2 <- update(fit, r[1001:1858, ],
#'                online = ghmix_online(batch_size = 200))
#' fit2$trace
update.ghmix_fit <- function(object, newdata, ..., weights = NULL,
                             na.rm = FALSE, online = NULL, trace = FALSE, # nolint
                             backend = c("cpu", "cuda"),
                             threads = ghmix_threads(), device = 0L) {
  if (missing(newdata)) {
    return(NextMethod())
  }
  t_start <- proc.time()[[3]]
  call <- sys.call()
  if (!is.null(online) && !inherits(online, "ghmix_online")) {
    abort_argument("`online` must be NULL or made by ghmix_online().", call)
  }
  state <- online_state_of(object, online, call)
  if (!is.null(online)) state$schedule <- online
  control <- object$control
  control$trace <- trace
  control$online <- state$schedule
  args <- model_options(object$symmetric, control, object$gauge, na.rm, backend,
                   threads, device, NULL, call)
  ctx <- list(family = state$family, symmetric = state$symmetric,
              fixed = state$fixed, fixed_user = object$fixed)
  stream <- online_stream(newdata, weights, state$schedule$batch_size, call,
                          "newdata")
  state <- online_continue(state, stream, ctx, args, call)
  fit <- online_result(state, ctx, args, call, t_start,
                       if (inherits(object, "ghmix_fit_online")) object$timings)
  fit
}

# The stream state a fit continues from.
online_state_of <- function(object, online, call) {
  if (inherits(object, "ghmix_fit_online")) {
    return(object$online)
  }
  fin <- object$final_estep
  if (is.null(fin)) {
    abort_argument(
      paste(
        "This fit cannot be continued by update(): it keeps no final E-step",
        "statistics."
      ),
      call
    )
  }
  schedule <- if (is.null(online)) ghmix_online() else online
  sc <- object$scaling
  ctx <- list(family = object$family, symmetric = object$symmetric,
              fixed = fixed_internal_family(object$fixed, sc, object$family),
              factors = object$factors, shrink = online_prior_of(object),
              scaling = sc)
  st <- online_state(fin, ctx, schedule, list(x = NULL, w = NULL),
                     t = max(1, fit_nrow(object) / schedule$batch_size))
  st$loglik <- object$loglik
  st$nobs <- object$nobs
  st$nrow <- fit_nrow(object)
  st$weighted <- isTRUE(object$weighted)
  st$names <- colnames(object$data)
  st$last <- NULL
  st
}

# The last point of a batch fit (mix_result()): its parameters and E-step
# statistics, from which update() starts.
online_final <- function(point) {
  keep <- c("n", "tau", "loglik", online_stat_names, online_factor_fields)
  list(par = point$par, st = point$st[intersect(keep, names(point$st))])
}

# Methods -------------------------------------------------------------------

# The status line of print() and summary().
online_status_line <- function(x) {
  sprintf(
    "Online EM over %d batch%s (%s; %.3g s).",
    as.integer(x$iterations), if (x$iterations == 1L) "" else "es",
    online_schedule_label(x$online$schedule), x$timings[["total"]]
  )
}

#' @export
vcov.ghmix_fit_online <- function(object, ...) {
  last <- object$online$last
  if (is.null(last$x)) {
    ghmix_abort(
      "This online fit keeps no batch to estimate the information on.",
      class = "ghmix_error_online", call = sys.call()
    )
  }
  one <- object
  class(one) <- setdiff(class(object), "ghmix_fit_online")
  one$data <- last$x
  one$weights <- last$w
  one$nrow <- nrow(last$x)
  one$nobs <- if (is.null(last$w)) nrow(last$x) else sum(last$w)
  one$online <- NULL
  one$converged <- TRUE # (no convergence test: the last parameters)
  stats::vcov(one, ...) * (one$nobs / object$nobs)
}

#' @export
fitted.ghmix_fit_online <- function(object, ...) {
  online_no_rows("fitted()")
}

#' @export
predict.ghmix_fit_online <- function(object, newdata = NULL, ...) {
  if (is.null(newdata)) online_no_rows("predict() without `newdata`")
  NextMethod()
}

#' @export
plot.ghmix_fit_online <- function(x, which = "trace", ...) {
  if (!identical(which, "trace")) {
    online_no_rows(sprintf('plot(which = "%s")', which[[1L]]))
  }
  plot_online_trace(x)
  invisible(x)
}

online_no_rows <- function(what) {
  ghmix_abort(
    sprintf("%s needs the rows fitted; an online fit keeps none.", what),
    class = "ghmix_error_online", call = NULL
  )
}
