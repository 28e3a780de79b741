# The EM iteration, with SQUAREM acceleration (Varadhan and Roland 2008,
# Scand. J. Statist. 35, 335-353) guarded so that the objective of the
# accepted parameters never decreases: the log-likelihood, or with a prior
# (ctx$shrink, R/shrink.R) the log-likelihood plus its penalty.

# One evaluation: parameters normalised (standardised det gauge), the
# Cholesky factor of their sigma, their vector theta, and the E-step
# statistics at them (NULL if unusable).  Run
# some 40 times in a small fit, so kept to a few vectorised operations.
mix_point <- function(par, ctx) {
  if (!is.null(ctx$factors)) {
    return(factor_point(par, ctx))
  }
  if (!is.null(ctx$fixed)) par <- fixed_impose(par, ctx$fixed)
  z <- to_std(par, ctx$std)
  chol_z <- .Call(ffi_chol_lower, z$sigma)
  if (is.null(chol_z) || !gig_valid(par$p, par$a, par$b)) {
    return(list(par = par, ok = FALSE, st = NULL, loglik = NA_real_,
                objective = NA_real_))
  }
  tri <- mix_tri_index(ctx, length(z$mu))
  log_diag <- log(chol_z[tri$diag])
  s <- exp(2 * sum(log_diag) / length(z$mu))
  chol_z <- chol_z / sqrt(s)
  z <- apply_scale(z, s)
  par <- from_std(z, ctx$std)
  t0 <- proc.time()[[3]]
  chol_l <- chol_z * ctx$std$scale
  st <- mix_estep(ctx$engine, par, ctx$what, chol_l = chol_l)
  ctx$clock$estep <- ctx$clock$estep + proc.time()[[3]] - t0
  ctx$clock$esteps <- ctx$clock$esteps + 1L
  if (!is.null(st$launches)) {
    ctx$clock$launches <- ctx$clock$launches + st$launches
  }
  ok <- !is.null(st) && st$n_bad == 0 && is.finite(st$loglik)
  chol_v <- chol_z[tri$lower]
  chol_v[tri$lower_diag] <- log_diag - 0.5 * log(s)
  loglik <- if (ok) st$loglik else NA_real_
  pt <- list(
    par = par, chol_l = chol_l,
    theta = pack_em(z, ctx$family, ctx$symmetric, chol_v),
    st = st, ok = ok, loglik = loglik, objective = loglik
  )
  penalty_point(pt, loglik, list(par), list(st), ctx$shrink, list(chol_l))
}

# Positions of the lower triangle and the diagonal in a d x d matrix (and of
# the diagonal within the lower triangle), cached in the context.
mix_tri_index <- function(ctx, d) {
  if (is.null(ctx$tri)) {
    lower <- which(lower.tri(diag(d), diag = TRUE))
    dg <- seq.int(1L, d * d, by = d + 1L)
    ctx$tri <- list(lower = lower, diag = dg, lower_diag = match(dg, lower))
  }
  ctx$tri
}

mix_update <- function(pt, ctx) {
  t0 <- proc.time()[[3]]
  par <- mstep_member(pt$st, pt$par, ctx,
                      penalty_arg(ctx$shrink, pt$st$tau, pt$shrink_tr))
  ctx$clock$mstep <- ctx$clock$mstep + proc.time()[[3]] - t0
  mix_point(par, ctx)
}

mix_em <- function(par0, ctx) {
  ctl <- ctx$control
  n <- ctx$nobs
  pt <- mix_point(par0, ctx)
  if (!pt$ok) {
    ghmix_abort(
      "The starting values give a non-finite log-likelihood; supply `start`.",
      class = "ghmix_error_start", call = ctx$call
    )
  }
  trace <- mix_trace_new(ctl$max_iter)
  trace <- mix_trace_add(trace, 1L, pt, "start", NA_real_)
  step_max <- 1
  status <- list(
    converged = FALSE, message = "maximum number of iterations reached"
  )
  iter <- 0L
  while (iter < ctl$max_iter) {
    iter <- iter + 1L
    nxt <- mix_cycle(pt, ctx, step_max)
    if (!nxt$ok) {
      status <- list(converged = FALSE, message = nxt$message)
      if (isTRUE(nxt$stop)) iter <- iter - 1L # (pt is the last point)
      break
    }
    step_max <- nxt$step_max
    # (a double index: iter + 1 exceeds the integers at max_iter =
    # .Machine$integer.max)
    trace <- mix_trace_add(trace, iter + 1, nxt$pt, nxt$kind, nxt$alpha)
    if (!is.null(ctx$progress)) ctx$progress(iter, nxt) # the trace line
    sing <- mix_singular(nxt$pt, ctx)
    if (!is.null(sing)) {
      # keep the last point before the singularity: the runaway one is no fit
      status <- list(converged = FALSE, message = sing)
      break
    }
    done <- em_converged(pt, nxt$pt, n + shrink_rows(ctx$shrink), ctl)
    pt <- nxt$pt
    if (done) {
      status <- list(converged = TRUE, message = "converged")
      break
    }
  }
  list(
    point = pt, iterations = iter, status = status,
    trace = mix_trace_frame(trace, iter + 1, n, !is.null(ctx$shrink))
  )
}

# The trace starts small and doubles as the iterations need it (never
# allocated at max_iter + 1: max_iter may be .Machine$integer.max).
mix_trace_new <- function(max_iter) {
  size <- min(max_iter + 1, 64)
  list(
    loglik = rep(NA_real_, size), objective = rep(NA_real_, size),
    step = rep(NA_character_, size), alpha = rep(NA_real_, size)
  )
}

mix_trace_add <- function(trace, i, pt, kind, alpha) {
  if (i > length(trace$loglik)) {
    size <- 2 * length(trace$loglik)
    for (nm in names(trace)) length(trace[[nm]]) <- size
  }
  trace$loglik[i] <- pt$loglik
  trace$objective[i] <- pt$objective
  trace$step[i] <- kind
  trace$alpha[i] <- alpha
  trace
}

# The trace as a data frame (with the column objective for a penalised
# fit), as data.frame() makes it, without its checks (a tenth of a small
# fit's time).
mix_trace_frame <- function(trace, m, n, penalised = FALSE) {
  keep <- seq_len(m)
  out <- structure(
    list(iteration = keep - 1L, loglik = trace$loglik[keep],
         mean_loglik = trace$loglik[keep] / n, step = trace$step[keep],
         alpha = trace$alpha[keep]),
    row.names = .set_row_names(m), class = "data.frame"
  )
  if (penalised) out$objective <- trace$objective[keep]
  out
}

# One accepted move from pt: a plain EM step, or a SQUAREM step when it
# gives at least the objective of two EM steps.  An EM step never lowers
# the objective in exact arithmetic; one that lowers it by more than
# rounding (mix_step_falls()) has met the limit of its own rounding (one
# far row's sums cancelling ten digits of the others', as with a row of
# 1e12 among N(0, 1) rows), so that the EM stops at the last point it
# improved on rather than accept a lower one.
mix_cycle <- function(pt, ctx, step_max) {
  p1 <- mix_update(pt, ctx)
  if (!p1$ok) {
    return(list(ok = FALSE, message = mix_fail_message(p1, ctx)))
  }
  if (mix_step_falls(pt, p1)) {
    return(list(ok = FALSE, stop = TRUE, message = paste(
      "the EM stopped where its step no longer increases the",
      "log-likelihood beyond its rounding; the last parameters are returned"
    )))
  }
  if (!ctx$control$accelerate) {
    return(list(ok = TRUE, pt = p1, kind = "em", alpha = NA_real_,
                step_max = step_max))
  }
  p2 <- mix_update(p1, ctx)
  if (!p2$ok || mix_step_falls(p1, p2)) {
    return(list(ok = TRUE, pt = p1, kind = "em", alpha = NA_real_,
                step_max = step_max))
  }
  mix_squarem(pt, p1, p2, ctx, step_max)
}

# Whether the objective falls from old to new by more than 1e-9 of it.
mix_step_falls <- function(old, new) {
  isTRUE(new$objective < old$objective - 1e-9 * abs(old$objective))
}

# The SQUAREM step (em_squarem()) from pt through the EM steps p1, p2; a
# factor fit tries its block candidate too (factor_squarem_block()).
mix_squarem <- function(pt, p1, p2, ctx, step_max) {
  sq <- em_squarem(pt, p1, p2, step_max, function(theta, r, v, alpha, raw) {
    par <- from_std(unpack_em(theta, ctx$family, ctx$symmetric,
                              length(pt$par$mu), ctx$factors), ctx$std)
    px <- mix_point(par, ctx)
    if (!is.null(ctx$factors) && raw < alpha) {
      px <- factor_squarem_block(px, pt, r, v, alpha, ctx)
    }
    px
  })
  list(ok = TRUE, pt = if (sq$take == "squarem") sq$state else p2,
       kind = sq$take, alpha = sq$alpha, step_max = sq$step_max)
}

mix_fail_message <- function(pt, ctx) {
  if (!is.null(pt$st) && pt$st$n_bad > 0) {
    return(sprintf(
      paste(
        "the EM step reached parameters where the density of %d row%s is",
        "infinite or zero (a singularity of the likelihood); the last",
        "finite parameters are returned"
      ),
      pt$st$n_bad, plural(seq_len(pt$st$n_bad))
    ))
  }
  paste(
    "the EM step failed (non-finite or invalid parameters); the last valid",
    "parameters are returned"
  )
}
