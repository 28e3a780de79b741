# Mixtures whose EM crawls (issue 14): on small data (faithful, MixGHD's
# banknote and bankruptcy) a component's Sigma tends to a nearly singular
# matrix, along whose null direction X - mu is spread by Y gamma alone,
# while a GH member's mixing law sits at (or next to) its skew-t or VG
# limit; the EM gains 1e-8 .. 1e-6 per row per iteration there (its rate
# of convergence tends to 1) and ran to max_iter.  A mixture's EM that has
# not converged after mixture_direct_after iterations therefore goes on by a
# direct quasi-Newton maximisation (stats::nlminb(), PORT) of the mixture
# log-likelihood over the EM's vector theta (pack_all_em(): log-Cholesky
# Sigma, log a, log b, log proportion ratios), with the analytic score of
# Fisher's identity (fit_score() of each component's membership-weighted
# E-step sums, as vcov() takes it), and the EM then resumes from its
# maximum (taken only where its log-likelihood is at least the EM's): the
# EM's own test decides convergence there.

# The EM iterations after which a mixture that has not converged is
# maximised directly.
mixture_direct_after <- 200L

# Whether the fit goes on by the direct maximisation after iteration iter.
mixture_direct_applies <- function(ctx, iter, max_iter, final) {
  all(final, iter == mixture_direct_after, iter < max_iter,
      is.null(ctx$factors), is.null(ctx$shrink),
      is.null(ctx$nobs))
}

# The EM's run (cur, trace, iter, step_max), with a step "direct" to the
# direct maximum where mixture_direct_applies() and that is above cur.
mixture_direct_jump <- function(run, ctx, max_iter, final) {
  if (!mixture_direct_applies(ctx, run$iter, max_iter, final)) {
    return(run)
  }
  direct <- mixture_direct(run$cur, ctx)
  if (is.null(direct)) {
    return(run)
  }
  list(cur = direct, trace = mixture_trace_add(run$trace, direct, "direct"),
       iter = run$iter + 1L, step_max = 1)
}

# The state at the direct maximum from cur, or NULL where it is not above
# cur (or fails): nlminb() again from its maximum while that gains more
# than the EM's tolerance (it stops early along the flat directions here,
# as in fit_extreme()), at most mixture_direct_restarts times.
mixture_direct <- function(cur, ctx) {
  best <- cur
  for (i in seq_len(mixture_direct_restarts)) {
    nxt <- mixture_direct_once(best, ctx)
    if (is.null(nxt) || !(nxt$objective >= best$objective)) break
    gain <- nxt$objective - best$objective
    best <- nxt
    if (gain <= ctx$control$tol * mixture_nobs(ctx$z, ctx)) break
  }
  if (identical(best, cur)) NULL else best
}

mixture_direct_restarts <- 4L

# One nlminb() from cur: the state at its end (NULL where it fails).  It
# minimises the objective per row of the smallest weight (ctx$unit), so
# that its steps do not depend on the scale of the weights.
mixture_direct_once <- function(cur, ctx) {
  memo <- new.env(parent = emptyenv())
  at <- function(theta) {
    if (!identical(theta, memo$theta)) {
      memo$theta <- theta
      memo$state <- tryCatch(mixture_from_theta(theta, cur, ctx),
                             error = function(e) NULL)
    }
    memo$state
  }
  opt <- tryCatch(
    stats::nlminb(
      cur$theta,
      function(theta) {
        st <- at(theta)
        if (is.null(st) || !st$ok) Inf else -st$objective / ctx$unit
      },
      function(theta) {
        st <- at(theta)
        if (is.null(st) || !st$ok) {
          0 * theta
        } else {
          -mixture_direct_score(st, ctx, ctx$unit)
        }
      },
      control = list(iter.max = 1000L, eval.max = 2000L, rel.tol = 1e-13)
    ),
    error = function(e) NULL
  )
  if (is.null(opt)) {
    return(NULL)
  }
  best <- at(opt$par)
  if (is.null(best) || !best$ok) NULL else best
}

# d loglik / d theta at a state (theta as pack_all_em() packs it),
# divided by unit (from the E-step's sums divided by it, which do not
# overflow where the weights are near the largest doubles).
mixture_direct_score <- function(state, ctx, unit = 1) {
  es <- state$es
  if (unit != 1) {
    es$components <- lapply(es$components, function(st) {
      lapply(st, function(v) v / unit)
    })
  }
  comps <- lapply(seq_along(state$pars), function(k) {
    mixture_direct_score_k(es$components[[k]], state$pars[[k]], ctx)
  })
  taus <- vapply(es$components, function(st) st$tau, 0)
  unname(c(unlist(comps), taus[-1L] - sum(taus) * state$props[-1L]))
}

# One component's block: the score of (mu, gamma, Sigma, p, a, b)
# (fit_score()) by the chain rule in pack_em()'s coordinates.
mixture_direct_score_k <- function(st, par, ctx) {
  sc <- fit_score(st, par)
  c(sc$mu, if (!ctx$symmetric) sc$gamma, cov_of(par)$score_em(sc, par),
    mixture_direct_score_mixing(sc, par, ctx$family))
}

# The score of the family's mixing coordinates of theta (pack_em()):
# GH (p, log a, log b), NIG (log a, log b), VG (log p, log a), skew-t
# (log(-p), log b), from that of (p, a, b).
mixture_direct_score_mixing <- function(sc, par, family) {
  d_log_a <- if (par$a <= 1e-300) 0 else par$a * sc$a
  d_log_b <- if (par$b <= 1e-300) 0 else par$b * sc$b
  # (GH: a, b at or below 1e-300 are held at log 1e-300 in theta)
  family_get(family)$score(sc, par, d_log_a, d_log_b)
}

# The iteration of the step "direct" in a trace (NULL: none).
mixture_direct_iteration <- function(trace) {
  at <- trace$iteration[trace$step == "direct"]
  if (length(at) == 0L) NULL else at
}

# par with a = 0 (p < 0: the inverse gamma) or b = 0 (p > 0: the gamma)
# where its GIG law is that limit to double precision.  The EM lands at a
# limit exactly or at a or b of about 1e-300, as the rounding of its sums
# decides (under some BLAS kernels the latter: issue 31).  The law differs
# from its limit by a relative O((w / 2)^(2 min(|p|, 1))) in its
# normalising constant, w = sqrt(ab) (free of the gauge): K_p(w) is
# Gamma(|p|) (w / 2)^-|p| / 2 times 1 + (w / 2)^2 / (1 - |p|) + O((w / 2)^(2
# |p|)) (DLMF 10.25.2, 10.27.4), so below 2^-100 the two are one law.
gig_snap_limit <- function(par) {
  if (!(par$a > 0 && par$b > 0) || par$p == 0) {
    return(par)
  }
  log_half_w <- (log(par$a) + log(par$b)) / 2 - log(2)
  if (2 * min(abs(par$p), 1) * log_half_w > -100 * log(2)) {
    return(par)
  }
  if (par$p < 0) par$a <- 0 else par$b <- 0
  par
}

# The GH components at the skew-t (a = 0) or variance-gamma (b = 0) limit
# of the family, where a maximum may lie: NULL, or a data frame
# (component, limit).
mixture_limits <- function(pars, family) {
  if (!family_get(family)$limits) {
    return(NULL)
  }
  limit <- vapply(pars, function(par) {
    if (par$a == 0) "skew-t (a = 0)" else if (par$b == 0) {
      "variance gamma (b = 0)"
    } else {
      NA_character_
    }
  }, "")
  at <- which(!is.na(limit))
  if (length(at) == 0L) {
    return(NULL)
  }
  data.frame(component = at, limit = limit[at], stringsAsFactors = FALSE)
}

# The lines of print() and summary() on them.
mixture_limits_lines <- function(x) {
  if (!is.null(x$direct)) {
    cat(sprintf(paste(
      "The EM went on by a direct maximisation of the log-likelihood",
      "at iteration %d.\n"
    ), x$direct[[1L]]))
  }
  if (!is.null(x$limits)) {
    cat(sprintf("Component %d is at the %s limit of the GH family.\n",
                x$limits$component, x$limits$limit), sep = "")
  }
}
