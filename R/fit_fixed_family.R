# Parameters held in the fits of every family (fit_nig(), fit_vg(),
# fit_skewt(), fit_student(), fit_hyperbolic(), fit_gaussian(): `fixed =`),
# by the machinery of fit_gh(fixed = ) (R/constraints.R): what each
# family may hold, and the conditional M-steps of the gamma and
# inverse-gamma mixing laws (VG: b = 0, skew-t: a = 0), where the GIG's
# (p, w, c) form of R/constraints.R's gauge section has w = 0.
#
# VG, Y ~ Gamma(shape p, rate a / 2):       E[Y] = 2 p / a,
#   Q_G = (p - 1) ell - a eta / 2 + p log(a / 2) - lgamma(p);
# skew-t, Y ~ InvGamma(shape -p, scale b / 2): E[Y] = b / (2 (-p - 1)),
#   Q_G = (p - 1) ell - b delta / 2 - p log(b / 2) - lgamma(-p)
# (ell = E log Y, eta = E Y, delta = E 1/Y from the E-step).  With p held,
# the maximisers are a = 2 p / eta and b = -2 p / delta.  With gamma* = g0
# held in the gauge E[Y] = 1, gamma = g0 / k (k = E[Y]) and Q = Q_N(g0 / k)
# + Q_G is maximised over log k and the free p (on log p, or
# log(-1 - p): E[Y] is finite only for p < -1), as for GH.

# The names each family's fitter takes in `fixed` (before nu becomes p).
fixed_family_names <- function(family) {
  switch(family,
    gh = c("mu", "gamma", "p", "a", "b"),
    nig = c("mu", "gamma", "a", "b"),
    vg = c("mu", "gamma", "p"),
    skewt = c("mu", "gamma", "p", "nu"),
    gaussian = "mu"
  )
}

# `fixed` as the fit of `family` takes it: names that family holds, nu as
# p = -nu / 2, p on the family's side of 0 (VG p > 0, skew-t p < 0), at
# most one of a, b for the NIG.  The values are checked further by
# check_fixed() once the dimension is known.  fixed_p: a p the fitter
# itself holds (the hyperbolic's), which `fixed` may not name.
fixed_for_family <- function(fixed, family, call, fixed_p = NULL) {
  if (is.null(fixed)) {
    return(if (is.null(fixed_p)) NULL else list(p = fixed_p))
  }
  known <- setdiff(fixed_family_names(family), if (!is.null(fixed_p)) "p")
  if (!fixed_list_ok(fixed, known)) {
    abort_argument(
      sprintf("`fixed` must be NULL or a named list of some of %s%s.",
              paste0("`", known, "`", collapse = ", "),
              fixed_family_note(family, fixed_p)),
      call
    )
  }
  fixed <- fixed_nu_to_p(fixed, call)
  if (identical(family, "nig") && all(c("a", "b") %in% names(fixed))) {
    abort_argument(
      paste(
        "`fixed` holds at most one of `a` and `b` for the NIG: with",
        "E[Y] = 1 its mixing law has a = b."
      ),
      call
    )
  }
  check_fixed_p_side(fixed$p, family, call)
  if (!is.null(fixed_p)) fixed <- c(list(p = fixed_p), fixed)
  fixed
}

fixed_family_note <- function(family, fixed_p) {
  if (!is.null(fixed_p)) {
    return(" (p is the hyperbolic's own; fit_gh(fixed = ) holds another p)")
  }
  switch(family,
    nig = " (p is -1/2 for the NIG; fit_gh(fixed = ) holds another p)",
    skewt = " (nu = -2p, the degrees of freedom)",
    ""
  )
}

# nu (the t's degrees of freedom, positive) as p = -nu / 2.
fixed_nu_to_p <- function(fixed, call) {
  if (is.null(fixed$nu)) {
    return(fixed)
  }
  if (!is.null(fixed$p)) {
    abort_argument(
      "`fixed` may hold `nu` or `p` (nu = -2p), not both.", call
    )
  }
  nu <- fixed$nu
  if (!is.numeric(nu) || length(nu) != 1L || !isTRUE(is.finite(nu) &&
                                                       nu > 0)) {
    abort_argument("`fixed$nu` must be a single positive number.", call)
  }
  fixed$nu <- NULL
  c(fixed, list(p = -nu / 2))
}

check_fixed_p_side <- function(p, family, call) {
  if (!is_single_finite(p)) {
    return(invisible()) # (check_fixed() names the bad value)
  }
  if (family == "vg" && p <= 0) {
    abort_argument("`fixed$p` must be positive for the variance gamma.", call)
  }
  if (family == "skewt" && p >= 0) {
    abort_argument(
      "`fixed$p` must be negative for the skew-t (nu = -2p > 0).", call
    )
  }
}

is_single_finite <- function(v) {
  is.numeric(v) && length(v) == 1L && isTRUE(is.finite(v))
}

# TRUE for the families whose mixing law is a gamma or inverse gamma.
fixed_on_limit <- function(family) {
  !is.null(family) && family %in% c("vg", "skewt")
}

# The internal `fixed` of an EM of `family` (fixed_internal()), with the
# family for the M-steps (and for the NIG held in the gauge, its p).
fixed_internal_family <- function(fixed, scaling, family) {
  if (identical(family, "nig") && fixed_in_gauge(fixed)) {
    fixed$p <- -0.5
  }
  out <- fixed_internal(fixed, scaling)
  if (!is.null(out)) out$family <- family
  out
}

# The M-step of a gamma (VG) or inverse-gamma (skew-t) mixing law with p
# held: list(p, a, b).
fixed_sub_limit <- function(st, family, p) {
  if (family == "vg") {
    list(p = p, a = 2 * p / (st$s_y / st$tau), b = 0)
  } else {
    list(p = p, a = 0, b = -2 * p / (st$s_inv / st$tau))
  }
}

# E[Y] of the family's law at (p, a, b) (Inf for a skew-t with p >= -1).
limit_mean <- function(family, p, a, b) {
  if (family == "vg") {
    return(2 * p / a)
  }
  if (p < -1) b / (2 * (-1 - p)) else Inf
}

# The mixing parameters at p and k = E[Y].
limit_law <- function(family, p, k) {
  if (family == "vg") {
    list(p = p, a = 2 * p / k, b = 0)
  } else {
    list(p = p, a = 0, b = 2 * k * (-1 - p))
  }
}

limit_q_mixing <- function(family, law, m) {
  p <- law$p
  if (family == "vg") {
    (p - 1) * m$ell - law$a * m$eta / 2 + p * log(law$a / 2) - lgamma(p)
  } else {
    (p - 1) * m$ell - law$b * m$delta / 2 - p * log(law$b / 2) - lgamma(-p)
  }
}

# p from its search variable (log p, or log(-1 - p)) and back.
limit_p <- function(family, v) if (family == "vg") exp(v) else -1 - exp(v)
limit_p_var <- function(family, p) {
  if (family == "vg") log(p) else log(-1 - p)
}

# Q at the search variables v = (p's variable unless held, log k).
limit_gauge_q <- function(v, fixed, m) {
  family <- fixed$family
  free_p <- is.null(fixed$p)
  p <- if (free_p) limit_p(family, v[[1L]]) else fixed$p
  k <- exp(v[[length(v)]])
  law <- limit_law(family, p, k)
  if (!is.finite(k) || k <= 0 || !gig_valid(law$p, law$a, law$b)) {
    return(list(q = -Inf))
  }
  normal_at <- if (is.null(m$normal_at)) gauge_normal_full else m$normal_at
  nrm <- normal_at(fixed$gamma / k, m, !is.null(fixed$mu))
  q <- nrm$q + limit_q_mixing(family, law, m)
  c(list(q = if (is.finite(q)) q else -Inf, k = k, normal = nrm), law)
}

# gauge_search() for a VG or skew-t with gamma* held: the maximiser of Q
# from par's variables, kept only where Q does not fall (a GEM step).
limit_gauge_search <- function(par, fixed, m) {
  family <- fixed$family
  k0 <- limit_mean(family, par$p, par$a, par$b)
  v0 <- c(if (is.null(fixed$p)) limit_p_var(family, par$p), log(k0))
  gauge_improve(limit_gauge_q(v0, fixed, m), v0,
                function(v) limit_gauge_q(v, fixed, m),
                rep(-Inf, length(v0)), rep(Inf, length(v0)))
}

# gauge_impose() for a VG or skew-t: gamma = g0 / E[Y] (p already
# imposed); an invalid p where E[Y] is not finite (the point is refused).
limit_gauge_impose <- function(par, fixed) {
  k <- limit_mean(fixed$family, par$p, par$a, par$b)
  if (!is.finite(k) || k <= 0) {
    par$p <- NaN
    return(par)
  }
  par$gamma[] <- fixed$gamma / k
  par
}

# The arguments of a fit without the held parameters: the NIG stage that
# starts a GH fit is fitted free (its p is not the GH's).
fixed_none <- function(args) {
  args["fixed"] <- list(NULL)
  args
}
