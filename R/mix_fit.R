# Finite mixtures of G members of a GH family (model-based clustering): the
# fits of `components = G` (or a set of G, selected by BIC or ICL) on
# fit_nig(), fit_gh(), fit_vg() and fit_skewt().
#
# The EM works on the rows standardised by their column means and standard
# deviations (z = (x - center) / scale), with each component in the det
# gauge there; the result is reported in the data's units and the gauge
# asked for.  Each iteration is one call of the mixture E-step
# (mixture_estep_fun(): per-component sums and the mixture log-likelihood),
# then the one-component M-step (mstep_member()) of each component with
# its membership weights, and proportions pi_k = tau_k / sum(tau).

# The mixtures of the G of spec$G (model_spec()), the best by its criterion.
mix_fit_components <- function(x, start, spec) {
  family <- spec$family
  g_all <- spec$G
  nstart <- spec$nstart
  criterion <- spec$criterion
  args <- spec$args
  weights <- spec$weights
  call <- spec$call
  if (!is.null(args$cluster) || inherits(x, "ghmix_data")) {
    return(mixture_chunked_components(x, g_all, family, nstart, criterion,
                                      start, args, weights, call))
  }
  data <- mixture_memory_data(x, args$na_rm, weights, args, g_all, call)
  g_all <- mixture_components_regular(g_all, data,
                                      cov_get(args$factors)$collinear, call)
  if (!is.null(start) && !inherits(start, "ghmix_mixture") &&
        length(data$dropped) > 0L && length(start) == NROW(x)) {
    start <- start[-data$dropped]
  }
  fits <- progress_lapply(g_all, function(g) {
    mixture_best_of_starts(start, family, function(s) {
      mixture_fit_g(data, g, family, nstart, s, args, call)
    })
  }, progress_label_g)
  mixture_chosen(fits, criterion)
}

# The rows in memory of a mixture and their weights (mix_data()), the
# columns checked for collinearity within the clusters of the largest G
# (full members) or not at all (factor members).
mixture_memory_data <- function(x, na_rm, weights, args, g_all, call) {
  collinear <- if (cov_get(args$factors)$collinear) max(g_all) else FALSE
  data <- mix_data(x, na_rm, call, collinear = collinear)
  data$weights <- weights_in_sums(mix_weights(weights, data, call))
  mix_check_weighted_shape(data$x, data$weights, call, collinear = collinear)
  data
}

# fit(start), or, for a start that is a mixture fit of another family
# (whose mixing laws mix_start_sub() replaces), the better (objective,
# then log-likelihood) of fit(start) and fit(NULL), the default starts:
# such a start is never worse than none.  The warnings of the fit kept
# are given, the other's are dropped.
mixture_best_of_starts <- function(start, family, fit) {
  if (!inherits(start, "ghmix_mixture") || start$family == family) {
    return(fit(start))
  }
  runs <- lapply(list(start, NULL), function(s) {
    held <- list()
    out <- withCallingHandlers(fit(s), warning = function(w) {
      held[[length(held) + 1L]] <<- w
      invokeRestart("muffleWarning")
    })
    list(fit = out, held = held)
  })
  score <- vapply(runs, function(r) {
    f <- r$fit
    if (is.null(f$objective)) f$loglik else f$objective
  }, 0)
  best <- runs[[if (isTRUE(score[2L] > score[1L])) 2L else 1L]]
  for (w in best$held) warning(w)
  best$fit
}

# The numbers of components to fit: without G = 1 (with a warning) where
# the rows are collinear as one distribution's but not within the
# clusters of the larger G (clusters far apart), for which
# mix_check_shape() let them through: one Sigma would be singular.
mixture_components_regular <- function(g_all, data, collinear, call) {
  if (any(c(!collinear, g_all[[1L]] != 1L, length(g_all) == 1L,
            ncol(data$x) == 1L))) {
    return(g_all)
  }
  x <- data$x
  if (!is.null(data$weights)) x <- x[data$weights > 0, , drop = FALSE]
  cm <- mix_cor_bulk(x)
  if (!all(is.finite(cm)) || !cor_singular(cm)) {
    return(g_all)
  }
  ghmix_warn(
    paste(
      "G = 1 is left out: the columns of `x` are collinear as one",
      "distribution's (their correlation matrix is singular), though not",
      "within the clusters of the mixtures."
    ),
    class = "ghmix_warning_component", call = call
  )
  g_all[-1L]
}

# The one fit, or the best by the criterion.
mixture_chosen <- function(fits, criterion) {
  if (length(fits) == 1L) {
    return(fits[[1L]])
  }
  mixture_select(fits, criterion)
}

# The E-step of a fit on the GPU: mixture_estep() on the rows of handle
# (its x, the same rows in this process, is not read).
mixture_estep_cuda <- function(handle, device) {
  function(x, pars, props, weights = NULL, what, rows = FALSE, threads) {
    mixture_estep(handle, pars, props, weights, what, rows, threads,
                  backend = "cuda", device = device)
  }
}

# The fit of one G (G = 1: today's fit, as a one-component mixture).
mixture_fit_g <- function(data, g, family, nstart, start, args, call) {
  if (g == 1L) {
    return(mixture_fit_one(data, family, args, call))
  }
  if (!is.null(args$factors)) {
    return(mixture_factor_fit_g(data, g, family, nstart, start, args, call))
  }
  # (rows whose scale needs it fitted standardised, R/fit_scaling.R)
  fitted <- mix_fitted_rows(data$x, data$weights)
  x <- fitted$x
  std <- fitted$std
  z <- sweep(sweep(x, 2L, std$center), 2L, std$scale, "/")
  ctx <- list(family = family, symmetric = args$symmetric,
              control = args$control, threads = args$threads, call = call,
              estep = mixture_estep_fun(), weights = data$weights)
  # (the unit of all the rows, also where the starts are screened on some)
  ctx$unit <- mixture_unit(ctx)
  mixture_shrink_check_scaling(args$shrink, fitted$scaling, call)
  ctx$shrink <- mixture_shrink_setup(args$shrink, x, std, data$weights, g,
                                     call)
  if (args$backend == "cuda") {
    # the standardised rows copied to the GPU once for the whole fit
    handle <- .Call(ffi_cuda_mix_data_create, z, args$device)
    on.exit(.Call(ffi_cuda_mix_data_free, handle), add = TRUE)
    ctx$estep <- mixture_estep_cuda(handle, args$device)
  }
  # (the GPU's E-step reads the rows on the device; a prior's strength is
  # that of the whole sample; the option, for tests: screen every row)
  ctx$screen <- args$backend == "cpu" && is.null(ctx$shrink) &&
    !isFALSE(getOption("ghmix.mixture_screen"))
  best <- mixture_best_start(z, g, family, nstart, start, std, ctx)
  em <- mixture_em_restarts(z, g, best, ctx, args$control)
  args$prior <- ctx$shrink
  fit <- mixture_result(em, x, std, family, args, data, call)
  fit <- mixture_unscale(fit, fitted$scaling, data$x, call, ctx$shrink)
  fit$asked <- g
  fit
}

mixture_fit_one <- function(data, family, args, call) {
  fit <- mix_fit(data$x, family, args$symmetric, NULL, args$control,
                 args$gauge, FALSE, args$backend, args$threads,
                 args$device, call, weights = data$weights,
                 shrink = args$shrink, factors = args$factors)
  out <- mixture_from_single(fit, data$dropped)
  out$asked <- 1L
  out
}

# A few EM cycles from each candidate start; the best log-likelihood
# (among those that kept all G components, if any did) is continued.
mixture_best_start <- function(z, g, family, nstart, start, std, ctx,
                               iters = 5L) {
  starts <- mixture_starts(z, g, family, nstart, start, std, ctx$call,
                           isTRUE(ctx$screen), ctx$factors)
  if (length(starts) == 0L) {
    ghmix_abort(
      sprintf(
        paste(
          "No start of %d components has clusters of d + 1 rows or more",
          "with a regular covariance; give `start` labels or fewer",
          "components."
        ),
        g
      ),
      class = "ghmix_error_start", call = ctx$call
    )
  }
  if (length(starts) == 1L && !is.null(start)) {
    return(c(starts[[1L]], list(table = NULL)))
  }
  idx <- attr(starts, "screen")
  z_s <- if (is.null(idx)) z else z[idx, , drop = FALSE]
  ctx_s <- mixture_screen_ctx(ctx, z, idx)
  runs <- progress_lapply(starts, function(s) {
    # (the drops' warnings held: given if the fit continues from this run)
    held <- list()
    em <- withCallingHandlers(
      mixture_em(z_s, s$pars, s$props, ctx_s, iters, FALSE, final = FALSE),
      ghmix_warning_component = function(w) {
        held[[length(held) + 1L]] <<- w
        invokeRestart("muffleWarning")
      },
      warning = function(w) invokeRestart("muffleWarning")
    )
    kept <- length(em$pars) == g
    if (!is.null(idx) && kept && is.finite(em$objective)) {
      ctx_s$screen_bar <<- max(ctx_s$screen_bar, em$objective)
    }
    list(pars = em$pars, props = em$props, label = s$label,
         loglik = em$objective, kept = kept,
         dropped = mixture_screen_dropped(em$dropped), held = held)
  }, function(s) paste("start:", s$label))
  ll <- vapply(runs, function(r) r$loglik, 0)
  kept <- vapply(runs, function(r) r$kept, NA)
  score <- ifelse(kept & is.finite(ll), ll, -Inf)
  if (all(score == -Inf)) score <- ifelse(is.finite(ll), ll, -Inf)
  best <- runs[[which.max(score)]]
  # the other starts that kept all G, best first: mixture_em_restarts()
  others <- setdiff(order(score, decreasing = TRUE), which.max(score))
  best$others <- runs[others[kept[others] & is.finite(ll[others])]]
  best$table <- data.frame(
    start = vapply(runs, function(r) r$label, ""),
    loglik = ll + mixture_screen_shift(z, z_s, ctx, ctx_s, std),
    components = vapply(runs, function(r) length(r$pars), 0L),
    stringsAsFactors = FALSE
  )
  best
}

# The drops of a screening run, at iteration 0 (before the EM proper).
mixture_screen_dropped <- function(dropped) {
  if (!is.null(dropped)) dropped$iteration <- 0L
  dropped
}

# The EM from the best start; where it drops a component, the EM again
# from the next best screened starts that kept all G (at most
# mixture_restarts_max of them), and the first run that keeps all G is
# the fit.  Runs that drop one are attempts: their warnings are held, and
# given only when no run keeps all G (the first run is then the fit).
mixture_em_restarts <- function(z, g, best, ctx, control) {
  # (a restart that drops a component is never the fit: it stops there)
  run <- function(s, restart = FALSE) {
    held <- list()
    em <- withCallingHandlers(
      mixture_em(z, s$pars, s$props, ctx, control$max_iter, control$trace,
                 stop_on_drop = restart),
      ghmix_warning_component = function(w) {
        held[[length(held) + 1L]] <<- w
        invokeRestart("muffleWarning")
      }
    )
    # (with the drops of the start's screening, if any)
    em$held <- c(s$held, held)
    em$dropped <- rbind(s$dropped, em$dropped)
    em$start <- s$label
    em
  }
  first <- run(best)
  em <- first
  tried <- character()
  for (s in utils::head(best$others, mixture_restarts_max)) {
    if (length(em$pars) == g) break
    tried <- c(tried, s$label)
    em <- run(s, restart = TRUE)
  }
  if (length(em$pars) < g) em <- first
  for (w in em$held) warning(w)
  em$held <- NULL
  em$restarts <- tried
  em$starts <- best$table
  em
}

# The most starts tried again after the best one drops a component.
mixture_restarts_max <- 3L

# EM from (pars, props) for at most max_iter cycles, each a plain EM step
# or, with control$accelerate, a SQUAREM extrapolation (Varadhan and
# Roland 2008) over two EM steps, taken only when its log-likelihood is at
# least theirs: the log-likelihood never decreases.  Components that
# degenerate are dropped with a warning (mixture_degenerate()); with
# stop_on_drop, the EM stops at the first drop.
mixture_em <- function(z, pars, props, ctx, max_iter, trace_on,
                       final = TRUE, stop_on_drop = FALSE) {
  n <- mixture_nobs(z, ctx)
  ctx$z <- z
  ctx$min_size <- mixture_min_size(ctx)
  ctx$unit <- mixture_unit(ctx)
  cur <- mixture_state(lapply(pars, set_gauge, gauge = "det"), props, ctx)
  trace <- list(loglik = cur$es$loglik, objective = cur$objective,
                g = length(pars), step = "start")
  dropped <- NULL
  status <- list(converged = FALSE,
                 message = "maximum number of iterations reached")
  iter <- 0L
  step_max <- 1
  while (cur$ok && iter < max_iter) {
    iter <- iter + 1L
    nxt <- mixture_cycle(cur, ctx, step_max)
    if (!is.null(nxt$dropped)) {
      dropped <- rbind(dropped, cbind(iteration = iter, nxt$dropped))
    }
    if (!nxt$state$ok) {
      status$message <- nxt$message
      break
    }
    step_max <- nxt$step_max
    trace <- mixture_trace_add(trace, nxt$state, nxt$kind)
    mixture_trace_message(trace_on, iter, nxt)
    # (a screened start clearly behind, or a drop with stop_on_drop: stop)
    behind <- mixture_screen_behind(ctx, cur, nxt$state, max_iter - iter) ||
      (stop_on_drop && !is.null(nxt$dropped))
    done <- nxt$kind != "drop" &&
      em_converged(cur, nxt$state,
                        n + mixture_shrink_rows(ctx$shrink, length(pars)),
                        ctx$control)
    cur <- nxt$state
    if (done) {
      status <- list(converged = TRUE, message = "converged")
      break
    }
    if (behind) break
    run <- mixture_direct_jump(list(cur = cur, trace = trace, iter = iter,
                                    step_max = step_max), ctx, max_iter, final)
    cur <- run$cur
    trace <- run$trace
    iter <- run$iter
    step_max <- run$step_max
  }
  mixture_em_result(cur, iter, status, dropped, trace, ctx, final)
}

mixture_trace_message <- function(trace_on, iter, nxt) {
  if (trace_on) {
    message(sprintf("iter %4d  G %d  loglik %.10g  (%s)", iter,
                    length(nxt$state$pars), nxt$state$es$loglik, nxt$kind))
  }
}

mixture_trace_add <- function(trace, state, kind) {
  trace$loglik <- c(trace$loglik, state$es$loglik)
  trace$objective <- c(trace$objective, state$objective)
  trace$g <- c(trace$g, length(state$pars))
  trace$step <- c(trace$step, kind)
  trace
}

# The rows (or their weight) the likelihood counts: ctx$nobs where the
# E-steps run over chunks (z is then the rows the starts came from).
mixture_nobs <- function(z, ctx) {
  if (!is.null(ctx$nobs)) {
    return(ctx$nobs)
  }
  if (is.null(ctx$weights)) nrow(z) else sum(ctx$weights)
}

# The EM's result (with the memberships of an E-step at the end when final).
mixture_em_result <- function(cur, iter, status, dropped, trace, ctx, final) {
  if (!cur$ok && final) {
    ghmix_abort(
      "The mixture's starting values give a non-finite log-likelihood.",
      class = "ghmix_error_start", call = ctx$call
    )
  }
  es <- if (final) {
    ctx$estep(ctx$z, cur$pars, cur$props, weights = ctx$weights,
              what = mix_what(ctx$family), rows = TRUE, threads = ctx$threads)
  } else {
    cur$es
  }
  out <- list(pars = cur$pars, props = cur$props,
              objective = if (cur$ok) cur$objective else -Inf,
              dropped = dropped)
  if (!final) {
    # (a screening run: mixture_best_start() reads no more)
    return(out)
  }
  frame <- data.frame(iteration = seq_along(trace$loglik) - 1L,
                      loglik = trace$loglik, components = trace$g,
                      step = trace$step, stringsAsFactors = FALSE)
  if (!is.null(ctx$shrink)) frame$objective <- trace$objective
  list(pars = cur$pars, props = cur$props,
       loglik = if (cur$ok) es$loglik else -Inf,
       objective = if (cur$ok) cur$objective else -Inf, z = es$rows$tau,
       row_weights = es$rows$weights,
       iterations = iter, status = status, dropped = dropped,
       trace = frame)
}

# The parameters, their E-step, their vector theta (pack_all_em()) and
# whether the E-step is usable.
mixture_state <- function(pars, props, ctx) {
  es <- ctx$estep(ctx$z, pars, props, weights = ctx$weights,
                  what = mix_what(ctx$family), threads = ctx$threads)
  state <- list(pars = pars, props = props, es = es,
                ok = !is.null(es) && is.finite(es$loglik) && es$n_bad == 0,
                theta = pack_all_em(pars, props, ctx$family,
                                    ctx$symmetric))
  mixture_shrink_point(state, ctx)
}

# One plain EM step from cur: the M-steps, the degenerate components
# dropped (with their warning), the new state.
mixture_em_step <- function(cur, ctx, warn = TRUE) {
  up <- mixture_mstep(cur$es, cur$pars, ctx, cur$shrink_tr)
  bad <- mixture_degenerate(up, ctx)
  out <- list(kind = "em", dropped = NULL)
  if (length(bad$which) > 0L) {
    out$dropped <- mixture_drop_warn(bad, cur$pars, ctx)
    up$pars <- up$pars[-bad$which]
    up$props <- up$props[-bad$which] / sum(up$props[-bad$which])
    up$failed <- up$failed[-bad$which]
    out$kind <- "drop"
  }
  if (any(up$failed)) {
    out$state <- list(ok = FALSE)
    out$message <- "the M-step failed; the last valid parameters are kept"
    return(out)
  }
  out$state <- mixture_state(up$pars, up$props, ctx)
  out$message <- "the E-step gave a non-finite log-likelihood"
  out
}

# An accepted move from cur (see mixture_em()).
mixture_cycle <- function(cur, ctx, step_max) {
  s1 <- mixture_em_step(cur, ctx)
  if (!s1$state$ok || s1$kind == "drop" || !ctx$control$accelerate) {
    return(c(s1, list(step_max = step_max)))
  }
  s2 <- mixture_em_step(s1$state, ctx)
  if (!s2$state$ok || s2$kind == "drop") {
    # (a drop in the second step waits for the next cycle's first)
    return(c(s1, list(step_max = step_max)))
  }
  mixture_squarem(cur, s1, s2, ctx, step_max)
}

# The SQUAREM step (em_squarem()) from cur through the EM steps s1, s2.
mixture_squarem <- function(cur, s1, s2, ctx, step_max) {
  sq <- em_squarem(cur, s1$state, s2$state, step_max, function(theta, ...) {
    mixture_from_theta(theta, cur, ctx)
  })
  if (sq$take == "em") return(c(s2, list(step_max = sq$step_max)))
  list(state = sq$state, kind = "squarem", dropped = NULL,
       step_max = sq$step_max)
}

mixture_from_theta <- function(theta, cur, ctx) {
  g <- length(cur$pars)
  size <- (length(theta) - (g - 1L)) / g
  pars <- lapply(seq_len(g), function(k) {
    par <- unpack_em(theta[pack_block(k, size)], ctx$family, ctx$symmetric,
                     length(cur$pars[[k]]$mu), ctx$factors)
    # (a full Sigma keeps its names; a factor one has none here)
    dimnames(par$sigma) <- dimnames(cur$pars[[k]]$sigma)
    par
  })
  w <- exp(c(0, theta[g * size + seq_len(g - 1L)]))
  if (!all(vapply(pars, mixture_par_ok, NA)) || !all(is.finite(w))) {
    return(NULL)
  }
  mixture_state(pars, w / sum(w), ctx)
}

# The M-step of every component from its statistics (mstep_member(),
# penalised with its membership weight and tr(Sigma_k^-1 T) at the
# current parameters), each put in the det gauge (NULL where the step
# fails), and the new proportions.
mixture_mstep <- function(es, pars, ctx, shrink_tr = NULL) {
  taus <- vapply(es$components, function(st) st$tau, 0)
  one <- function(k) {
    mstep_member(es$components[[k]], pars[[k]], ctx,
                 penalty_arg(ctx$shrink, taus[[k]], shrink_tr[[k]]))
  }
  ks <- seq_along(pars)
  # a full member's M-step has no side effects and gives no warnings: one
  # handler for all, and where one fails, each again under its own
  new <- if (is.null(ctx$factors)) {
    tryCatch(lapply(ks, one), error = function(e) NULL)
  }
  finish <- function(par) {
    if (is.null(par) || !mixture_par_ok(par)) NULL else set_gauge(par, "det")
  }
  new <- if (is.null(new)) {
    lapply(ks, function(k) finish(tryCatch(one(k), error = function(e) NULL)))
  } else {
    lapply(new, finish)
  }
  failed <- vapply(new, is.null, NA)
  list(pars = new, props = taus / sum(taus), taus = taus, failed = failed)
}

# The weight of one row (weights_unit(); ctx$unit where the E-steps run
# over weighted chunks): effective sizes are counted in it, so that the
# drops do not depend on the scale of the weights.
mixture_unit <- function(ctx) {
  if (!is.null(ctx$unit)) {
    return(ctx$unit)
  }
  if (is.null(ctx$weights)) 1 else weights_unit(ctx$weights)
}

# The least effective size of a component that mixture_degenerate()
# keeps: d + 1 or its number of free parameters, whichever is larger.
mixture_min_size <- function(ctx) {
  d <- ncol(ctx$z)
  max(d + 1, model_df(ctx$family, ctx$symmetric, d, ctx$factors))
}

mixture_par_ok <- function(par) cov_of(par)$regular(par)

# The components to drop: effective size sum(tau_k) (on all rows, where
# the E-step ran on a screening sample) below the larger of
# d + 1 and the component's number of free parameters, a failed M-step
# (non-finite or invalid parameters) or a sigma that is not positive
# definite or has a condition number above 1e12 in the standardised units
# and as a correlation matrix (mixture_sigma_ok()): the degenerate
# solutions at which the likelihood runs away.  Sizes in rows of the
# smallest weight (mixture_unit()).
mixture_degenerate <- function(up, ctx) {
  taus <- mixture_screen_size(up$taus, ctx) / ctx$unit
  small <- taus < ctx$min_size
  which <- which(small | up$failed)
  if (length(which) == 0L) {
    return(list(which = which))
  }
  if (length(which) == length(up$pars)) {
    # keep the largest: a mixture needs one component
    which <- setdiff(which, which.max(taus))
  }
  reason <- ifelse(small[which], "too few rows",
                   "singular sigma or invalid parameters")
  list(which = which, reason = reason, size = taus[which])
}

mixture_drop_warn <- function(bad, pars, ctx) {
  for (i in seq_along(bad$which)) {
    ghmix_warn(
      sprintf(
        paste(
          "Mixture component %d of %d degenerated (%s: effective size",
          "%.3g rows) and was dropped."
        ),
        bad$which[[i]], length(pars), bad$reason[[i]], bad$size[[i]]
      ),
      class = "ghmix_warning_component", component = bad$which[[i]],
      call = ctx$call
    )
  }
  data.frame(component = bad$which, of = length(pars),
             reason = bad$reason, size = bad$size, stringsAsFactors = FALSE)
}

# The result in the data's units and the gauge asked for, components in
# the documented order.
mixture_result <- function(em, x, std, family, args, data, call) {
  w <- data$weights
  n <- if (is.null(w)) nrow(x) else sum(w)
  d <- ncol(x)
  pars <- lapply(em$pars, function(par) {
    cov <- cov_of(par)
    cov$name(cov$rotate(from_std(par, std)), colnames(x))
  })
  if (family_get(family)$limits) pars <- lapply(pars, gig_snap_limit)
  gauge <- mixture_gauge(pars, args$gauge, call)
  pars <- lapply(pars, set_gauge, gauge = gauge)
  ord <- mixture_order(pars, em$props)
  shift <- n * sum(log(std$scale))
  trace <- em$trace
  trace$loglik <- trace$loglik - shift
  if (!is.null(em$starts)) em$starts$loglik <- em$starts$loglik - shift
  fit <- list(
    components = pars[ord], proportions = em$props[ord], family = family,
    symmetric = args$symmetric, gauge = gauge, G = length(pars), d = d,
    nobs = n, loglik = em$loglik - shift,
    z = em$z[, ord, drop = FALSE], iterations = em$iterations,
    converged = em$status$converged, message = em$status$message,
    trace = trace, dropped = em$dropped, start = em$start,
    starts = em$starts, restarts = em$restarts, data = x,
    na_action = data$dropped,
    nrow = nrow(x), weights = w, weighted = !is.null(w),
    control = args$control, threads = args$threads, call = call,
    factors = args$factors
  )
  fit$limits <- mixture_limits(fit$components, family)
  fit$direct <- mixture_direct_iteration(em$trace)
  if (!is.null(args$prior)) {
    fit$objective <- mixture_shrink_objective(em$objective, args$prior,
                                              length(pars), std$scale, shift)
    fit$shrink <- shrink_result(args$prior)
    fit$trace$objective <- mixture_shrink_objective(
      trace$objective, args$prior, length(pars), std$scale, shift
    )
  }
  if (!fit$converged) {
    ghmix_warn(
      sprintf("%s mixture fit did not converge: %s.",
              mix_family(family)$label, fit$message),
      class = "ghmix_warning_convergence", call = call
    )
  }
  mixture_finish(fit)
}

# df, criteria, classification and class of a mixture fit.
mixture_finish <- function(fit) {
  g <- length(fit$components)
  fit$G <- g
  fit$df <- (g - 1L) +
    g * model_df(fit$family, fit$symmetric, fit$d, fit$factors)
  z <- fit$z
  colnames(z) <- paste0("component_", seq_len(g))
  fit$z <- z
  zlz <- z * log(z)
  zlz[z == 0] <- 0
  entropy <- -sum(if (is.null(fit$weights)) zlz else fit$weights * zlz)
  fit$AIC <- -2 * fit$loglik + 2 * fit$df
  fit$BIC <- -2 * fit$loglik + log(fit$nobs) * fit$df
  fit$ICL <- fit$BIC + 2 * entropy
  fit$classification <- max.col(z, "first")
  fit$uncertainty <- 1 - z[cbind(seq_len(nrow(z)), fit$classification)]
  class(fit) <- c(paste0("ghmix_mixture_", fit$family), "ghmix_mixture")
  fit
}

# "mean" unless some component has an infinite E[Y] (a skew-t with
# p >= -1): then "det" for all, with a warning.
mixture_gauge <- function(pars, gauge, call) {
  if (gauge == "det") {
    return("det")
  }
  means <- vapply(pars, function(par) gig_mean_value(par$p, par$a, par$b), 0)
  if (all(is.finite(means))) {
    return("mean")
  }
  ghmix_warn(
    paste(
      "E[Y] is infinite for a fitted component's mixing distribution;",
      'parameters are reported in gauge = "det".'
    ),
    class = "ghmix_warning_gauge", call = call
  )
  "det"
}

# Components by the first coordinate of mu, then the following ones, then
# by decreasing proportion.
mixture_order <- function(pars, props) {
  keys <- lapply(seq_along(pars[[1L]]$mu), function(j) {
    vapply(pars, function(par) par$mu[[j]], 0)
  })
  do.call(order, c(keys, list(-props)))
}

# Today's single fit as a mixture of one component.
mixture_from_single <- function(fit, dropped) {
  out <- list(
    components = list(fit$parameters), proportions = 1, family = fit$family,
    symmetric = fit$symmetric, gauge = fit$gauge, G = 1L, d = fit$d,
    nobs = fit$nobs, loglik = fit$loglik, z = matrix(1, fit_nrow(fit), 1L),
    iterations = fit$iterations, converged = fit$converged,
    message = fit$message,
    trace = data.frame(iteration = fit$trace$iteration,
                       loglik = fit$trace$loglik, components = 1L,
                       step = fit$trace$step, stringsAsFactors = FALSE),
    dropped = NULL, start = "single fit", starts = NULL, data = fit$data,
    na_action = dropped, control = fit$control, threads = fit$threads,
    call = fit$call, nrow = fit_nrow(fit), weights = fit$weights,
    weighted = isTRUE(fit$weighted), factors = fit$factors
  )
  if (!is.null(fit$shrink)) {
    out$objective <- fit$objective
    out$shrink <- fit$shrink
    out$trace$objective <- fit$trace$objective
  }
  mixture_finish(out)
}

# The fit with the best criterion (the lowest BIC or ICL, in the
# convention of stats::BIC()), with the table of all.
mixture_select <- function(fits, criterion) {
  tab <- data.frame(
    G = vapply(fits, function(f) f$G, 0L),
    loglik = vapply(fits, function(f) f$loglik, 0),
    df = vapply(fits, function(f) f$df, 0),
    AIC = vapply(fits, function(f) f$AIC, 0),
    BIC = vapply(fits, function(f) f$BIC, 0),
    ICL = vapply(fits, function(f) f$ICL, 0),
    converged = vapply(fits, function(f) f$converged, NA)
  )
  tab$asked <- vapply(fits, function(f) f$asked, 0L)
  best <- which.min(tab[[toupper(criterion)]])
  fit <- fits[[best]]
  fit$criteria <- tab
  fit$criterion <- criterion
  fit
}
