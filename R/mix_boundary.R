# Components of a GH mixture whose maximum lies on the boundary of the
# family (issue 14): the EM drives a component's sqrt(ab) to 0 (to
# 1e-149 within a few iterations on `faithful`), towards its skew-t limit
# (a = 0, p < 0) or its variance-gamma limit (b = 0, p > 0), while p and
# the rest crawl: the GH M-step's log a (or log b) jumps between tiny
# values, the extrapolation over it fails, and the fit ran to max_iter.
# There the component is continued in the limiting sub-family (its M-step
# that of fit_skewt() or fit_vg(), with a = 0 or b = 0 held), a move taken
# only when its log-likelihood is at least the last one's (the EM stays
# monotone).  At convergence the limit is kept only where it is a maximum
# in the direction of the interior (mixture_limit_score()); otherwise the
# component is a GH one again, for good.
#
# ctx$limits_on switches the rule on (GH members with a full Sigma, in the
# EM runs that give the fit); a state's `limits` is NULL (no component at
# a limit: the rule has not triggered) or per component "gh", "skewt",
# "vg" or "free" (released from its limit: GH, never put there again),
# with `limit_from`, the iteration each limit was taken at.

# The sqrt(ab) below which a GH member is taken to its limit: the GIG's
# density differs from its limit's by O(ab) there (p < -1 or p > 1).
mixture_limit_w <- 1e-8

# The gain of the score below which a limit is kept (per unit of E Y, or
# of E 1/Y, at the limit: mixture_limit_score()).
mixture_limit_tol <- 1e-6

mixture_limit_labels <- c(skewt = "skew-t (a = 0)", vg = "variance gamma (b = 0)")

# The family of component k's M-step.
mixture_limit_family <- function(limits, k, family) {
  if (is.null(limits) || !limits[[k]] %in% c("skewt", "vg")) {
    return(family)
  }
  limits[[k]]
}

# par with its limit's parameter held at 0 (after an extrapolation).
mixture_limit_impose <- function(par, limit) {
  if (identical(limit, "skewt")) par$a <- 0
  if (identical(limit, "vg")) par$b <- 0
  par
}

# The limits after pars, the result of a GH step from a state with limits
# `limits`: NULL when no GH member has reached one.
mixture_limit_candidates <- function(pars, limits) {
  if (is.null(limits)) limits <- rep("gh", length(pars))
  new <- vapply(seq_along(pars), function(k) {
    if (limits[[k]] != "gh") {
      return(limits[[k]])
    }
    mixture_limit_of(pars[[k]])
  }, "")
  if (identical(new, limits)) NULL else new
}

# "skewt", "vg" or "gh": the limit a member's (p, a, b) is at (in the det
# gauge of the standardised rows).
mixture_limit_of <- function(par) {
  w <- sqrt(par$a) * sqrt(par$b)
  if (!isTRUE(w < mixture_limit_w)) {
    return("gh")
  }
  if (par$p < -1 && par$a < par$b) {
    return("skewt")
  }
  if (par$p > 1 && par$b < par$a) {
    return("vg")
  }
  "gh"
}

# nxt, or, where nxt (a move from cur) takes a GH member to a limit, the EM
# step from cur with it in that limit's sub-family, when its objective is
# at least cur's and the limit is a maximum there (mixture_limit_ok()); a
# member whose limit is not, at that trial or later, is GH for good.
mixture_limit_try <- function(cur, nxt, ctx, iter) {
  if (!isTRUE(ctx$limits_on) || nxt$kind == "drop") {
    return(nxt)
  }
  if (!is.null(nxt$state$limits)) {
    nxt$state$limits <- mixture_limit_release(nxt$state)
  }
  cand <- mixture_limit_candidates(nxt$state$pars, nxt$state$limits)
  if (is.null(cand)) {
    return(nxt)
  }
  trial <- mixture_limit_trial(cur, nxt$state, cand, iter)
  step <- mixture_em_step(trial, ctx)
  if (step$state$ok && step$kind != "drop" &&
        identical(mixture_limit_release(step$state), cand) &&
        step$state$objective >= cur$objective) {
    step$kind <- "limit"
    return(c(step, list(step_max = 1)))
  }
  # (the members that would have gone to a limit stay GH)
  old <- nxt$state$limits
  new <- cand != (if (is.null(old)) rep("gh", length(cand)) else old)
  nxt$state$limits <- ifelse(new, "free", cand)
  nxt$state$limit_from <- trial$limit_from
  nxt$state$limit_from[new] <- NA_real_
  nxt
}

# cur with the limits cand (those new since nxt taken at iteration iter).
mixture_limit_trial <- function(cur, nxt, cand, iter) {
  from <- nxt$limit_from
  if (is.null(from)) from <- rep(NA_real_, length(cand))
  from[is.na(from) & cand %in% c("skewt", "vg")] <- iter
  cur$limits <- cand
  cur$limit_from <- from
  cur
}

# The score of the log-likelihood in the direction of the interior at a
# limit (Fisher's identity, per unit weight and relative): for the skew-t
# limit, d/da at a = 0 is sum_i tau_i (E Y - E[Y | x_i]) / 2, for the VG's
# d/db at b = 0 sum_i tau_i (E 1/Y - E[1/Y | x_i]) / 2 (the derivatives of
# log K_p(sqrt(ab)) near 0, DLMF 10.30.2, finite for p < -1 and p > 1).
mixture_limit_score <- function(st, par, limit) {
  if (limit == "skewt") {
    prior <- -par$b / (2 * (par$p + 1))
    return((prior - st$s_y / st$tau) / prior)
  }
  prior <- par$a / (2 * (par$p - 1))
  (prior - st$s_inv / st$tau) / prior
}

# The limits of a state, less those that are no maximum there (a score
# above mixture_limit_tol, or p at or beyond -1 or 1): "free".
mixture_limit_release <- function(state) {
  limits <- state$limits
  for (k in which(limits %in% c("skewt", "vg"))) {
    if (!mixture_limit_ok(state$es$components[[k]], state$pars[[k]],
                          limits[[k]])) {
      limits[[k]] <- "free"
    }
  }
  limits
}

mixture_limit_ok <- function(st, par, limit) {
  p_ok <- if (limit == "skewt") par$p < -1 else par$p > 1
  p_ok && isTRUE(mixture_limit_score(st, par, limit) <= mixture_limit_tol)
}

# The components at a limit at the end of an EM (NULL: none), as a table
# in the numbering of state$pars.
mixture_limit_table <- function(state) {
  at <- which(state$limits %in% c("skewt", "vg"))
  if (length(at) == 0L) {
    return(NULL)
  }
  data.frame(
    component = at, limit = state$limits[at],
    iteration = as.integer(state$limit_from[at]),
    p = vapply(state$pars[at], function(par) par$p, 0),
    score = vapply(at, function(k) {
      mixture_limit_score(state$es$components[[k]], state$pars[[k]],
                          state$limits[[k]])
    }, 0),
    stringsAsFactors = FALSE
  )
}

# The table in the fit's order of components `ord`, with a warning of
# class ghmix_warning_limit for each component at a limit.
mixture_limit_report <- function(tab, ord, call) {
  if (is.null(tab)) {
    return(NULL)
  }
  tab$component <- match(tab$component, ord)
  tab <- tab[order(tab$component), , drop = FALSE]
  rownames(tab) <- NULL
  for (i in seq_len(nrow(tab))) {
    ghmix_warn(
      sprintf(
        paste(
          "GH mixture component %d reached the %s limit of the GH family",
          "at iteration %d, where the likelihood's maximum lies; it was",
          "fitted in that sub-family (see $limits)."
        ),
        tab$component[[i]], mixture_limit_labels[[tab$limit[[i]]]],
        tab$iteration[[i]]
      ),
      class = "ghmix_warning_limit", call = call,
      component = tab$component[[i]], limit = tab$limit[[i]]
    )
  }
  tab
}

# state with the limits of cur (less its components `drop`).
mixture_limit_carry <- function(state, cur, drop = integer()) {
  if (is.null(cur$limits)) {
    return(state)
  }
  keep <- setdiff(seq_along(cur$limits), drop)
  state$limits <- cur$limits[keep]
  state$limit_from <- cur$limit_from[keep]
  state
}
