# Constraints (issue 26, design 3.5): parameters held fixed during a fit
# (fit_gh(fixed = ), R/fit_fixed_family.R for what each family holds) and
# gamma = 0 (symmetric = TRUE), for every covariance structure.  p and mu
# are held by conditional M-steps (ECM, Meng and Rubin 1993, Biometrika
# 80, 267-278: each maximises the expected complete-data log-likelihood
# over the free parameters, so the likelihood still never falls) and
# imposed on every point the EM evaluates (mix_point()), SQUAREM
# extrapolations included.  a, b and a gamma other than 0 change under
# the scaling Y -> sY that the gauge fixes: they are held in the reported
# gauge E[Y] = 1 (the last section).  The M-step's parts
# (constraints_location(), constraints_mixing(),
# constraints_profiled_mstep()) are called by mstep_member() (R/mstep.R).

# The argument ---------------------------------------------------------------

# fixed, checked: NULL or a list of mu, gamma, p, a, b in the data's units;
# gamma = 0 is turned into args$symmetric by the caller.
check_fixed <- function(fixed, d, call) {
  if (is.null(fixed)) {
    return(NULL)
  }
  known <- c("mu", "gamma", "p", "a", "b")
  if (!fixed_list_ok(fixed, known)) {
    abort_argument(
      sprintf("`fixed` must be NULL or a named list of some of %s.",
              paste0("`", known, "`", collapse = ", ")),
      call
    )
  }
  for (nm in names(fixed)) check_fixed_element(fixed[[nm]], nm, d, call)
  check_fixed_mixing(fixed, call)
  fixed
}

# p, a and b together over-determine the mixing law (E[Y] = 1 leaves two
# of them); a* with p needs p < a* / 2, b* with p needs p > -1 - b* / 2
# (gauge_p_range()).
check_fixed_mixing <- function(fixed, call) {
  if (all(c("p", "a", "b") %in% names(fixed))) {
    model_refuse("fixed_all_mixing", call)
  }
  if (is.null(fixed$p)) {
    return(invisible())
  }
  range <- gauge_p_range(fixed)
  if (fixed$p <= range[[1L]] || fixed$p >= range[[2L]]) {
    model_refuse("fixed_p_range", call, range,
                 if (is.null(fixed$a)) "b" else "a",
                 if (is.null(fixed$a)) fixed$b else fixed$a)
  }
}

# a, b and a gamma other than 0 are held in the gauge E[Y] = 1: not with
# gauge = "det", symmetric = TRUE or online EM.
check_fixed_mode <- function(fixed, args, call) {
  if (!fixed_in_gauge(fixed)) {
    return(invisible())
  }
  why <- if (!identical(args$gauge, "mean")) {
    'gauge = "mean" (the default)'
  } else if (!is.null(fixed$gamma) && isTRUE(args$symmetric)) {
    "symmetric = FALSE (`fixed$gamma` is not 0)"
  } else if (!is.null(args$control$online)) {
    "the full EM (not `control$online`)"
  }
  if (!is.null(why)) model_refuse("fixed_gauge", call, why)
}

fixed_list_ok <- function(fixed, known) {
  is.list(fixed) && !is.data.frame(fixed) && length(fixed) > 0L &&
    fixed_names_ok(names(fixed), known)
}

fixed_names_ok <- function(nms, known) {
  !is.null(nms) && all(nms %in% known) && anyDuplicated(nms) == 0L
}

# mu: d numbers; gamma: d, or one 0; p, a, b: one.
fixed_size <- function(v, nm, d) {
  zero <- length(v) == 1L && isTRUE(v == 0)
  if (nm == "mu" || (nm == "gamma" && !zero)) d else 1L
}

check_fixed_element <- function(v, nm, d, call) {
  size <- fixed_size(v, nm, d)
  if (!is.numeric(v) || is.factor(v) || length(v) != size ||
        !all(is.finite(v))) {
    abort_argument(
      sprintf("`fixed$%s` must be %s.", nm,
              if (size == 1L) "a single finite number" else
                sprintf("%d finite numbers", size)),
      call
    )
  }
  check_fixed_gauge(v, nm, call)
}

check_fixed_gauge <- function(v, nm, call) {
  if (nm %in% c("a", "b") && v <= 0) {
    abort_argument(sprintf("`fixed$%s` must be positive.", nm), call)
  }
  if (nm %in% c("a", "b") && v < .Machine$double.xmin) {
    # (a subnormal: below the doubles' precision, the limit itself)
    abort_argument(
      sprintf(
        paste(
          "`fixed$%s` must be at least 2.2e-308 (the smallest normal",
          "double), not %g; %s = 0 is the %s limit: %s."
        ),
        nm, v, nm, if (nm == "a") "skew-t" else "variance gamma",
        if (nm == "a") "fit_skewt()" else "fit_vg()"
      ),
      call
    )
  }
}

# The fixed values in the units the rows are fitted in (scaling: NULL or
# that of the fit, R/fit_scaling.R), as the EM imposes them.
fixed_internal <- function(fixed, scaling) {
  if (fixed_gamma_zero(fixed)) fixed$gamma <- NULL
  if (length(fixed) == 0L) {
    return(NULL)
  }
  fixed <- lapply(fixed, as.double)
  for (nm in intersect(names(fixed), c("mu", "gamma"))) {
    if (!is.null(scaling)) {
      v <- matrix(fixed[[nm]], 1L)
      fixed[[nm]] <- drop(if (nm == "mu") scaling_apply(v, scaling) else
        v / scaling$scale)
    }
  }
  fixed$law <- gauge_law(fixed)
  fixed
}

fixed_impose <- function(par, fixed) {
  if (!is.null(fixed$mu)) par$mu[] <- fixed$mu
  if (!is.null(fixed$p)) par$p <- fixed$p
  if (fixed_in_gauge(fixed)) par <- gauge_impose(par, fixed)
  par
}

# The fit's record of its fixed parameters (in the data's units) and its
# degrees of freedom less those held.
fixed_result <- function(fit, fixed) {
  if (is.null(fixed)) {
    return(fit)
  }
  fit$fixed <- fixed
  # (the EM's standardisation and gauge may round them by an ulp)
  held <- intersect(names(fixed), c("mu", "gamma", "p", "a", "b"))
  if (fixed_gamma_zero(fixed)) {
    held <- setdiff(held, "gamma") # symmetric: model_df() counts it
  }
  for (nm in held) fit$parameters[[nm]][] <- as.double(fixed[[nm]])
  fit$df <- fit$df - sum(lengths(fixed[held]))
  fit
}

# TRUE when fixed holds gamma = 0 (the symmetric fit).
fixed_gamma_zero <- function(fixed) {
  !is.null(fixed$gamma) && all(fixed$gamma == 0)
}

# The M-step's parts ---------------------------------------------------------

# The location step: mix_mstep_location() (R/fit_model.R), or with mu
# held location_mu_held(); model: family, symmetric, fixed.
constraints_location <- function(st, par, model) {
  if (is.null(model$fixed$mu)) {
    mix_mstep_location(st, par, model$symmetric)
  } else {
    location_mu_held(st, par, model$symmetric)
  }
}

# mix_mstep_location()'s result with mu held (the E-step's statistics are
# about it): gamma = mean u / mean E Y (0 when symmetric) and no move of
# mu, so that Sigma is the weighted scatter about mu + Y gamma.
location_mu_held <- function(st, par, symmetric) {
  n <- st$tau
  xbar <- st$sx / n
  eta <- st$s_y / n
  gamma <- if (symmetric) rep(0, length(xbar)) else xbar / eta
  list(mu = par$mu, gamma = gamma, mu_u = rep(0, length(xbar)),
       delta = st$s_inv / n, eta = eta, xbar = xbar, xw = st$sxw / n,
       held = FALSE)
}

# The mixing step: a*, b* held by gauge_search() (below), else
# fixed_mstep_sub().
constraints_mixing <- function(st, par, model) {
  if (fixed_in_gauge(model$fixed)) {
    return(gauge_mixing(gauge_search(st, par, model$fixed)))
  }
  fixed_mstep_sub(st, par, model)
}

# The M-step of the mixing parameters, p held where model$fixed holds it.
fixed_mstep_sub <- function(st, par, model) {
  p <- model$fixed$p
  if (is.null(p)) {
    return(mix_mstep_sub(st, par, model$family))
  }
  if (fixed_on_limit(model$family)) {
    # (the gamma and inverse-gamma laws: see fit_fixed_family.R)
    return(fixed_sub_limit(st, model$family, p))
  }
  n <- st$tau
  sub <- .Call(ffi_mix_subordinator_fixed_p, p,
               c(st$s_log / n, st$s_inv / n, st$s_y / n),
               c(par$p, par$a, par$b))
  list(p = sub$p, a = sub$a, b = sub$b)
}

# TRUE when fixed holds a gamma other than 0 (in the gauge E[Y] = 1).
fixed_gamma_held <- function(fixed) {
  !is.null(fixed$gamma) && any(fixed$gamma != 0)
}

# The M-step with a nonzero gamma* = g0 held in the gauge E[Y] = 1
# (below), as two conditional steps.  First gauge_search()
# over log k (k = E[Y], gamma = g0 / k), the free mixing parameters, mu
# and Sigma's part that the structure profiles out (its gauge_profile():
# the full Sigma itself, Q_N = -log det M(gamma) / 2; a factor Sigma's
# scale s, factor_gauge_normal()); then the covariance step of the
# structure at the new mu and gamma (its mstep_profiled()).  Each step
# raises Q, so the iteration is a GEM; its fixed points are stationary
# points of the likelihood with gamma* held.
constraints_profiled_mstep <- function(st, par, fixed, cov, pen) {
  best <- gauge_search(st, par, fixed, cov$gauge_profile(st, par))
  m <- gauge_means(st)
  mu_u <- best$normal$mu_u
  loc <- list(mu = par$mu + mu_u, gamma = fixed$gamma / best$k, mu_u = mu_u,
              delta = m$delta, eta = m$eta, xbar = m$xbar, xw = m$xw,
              held = TRUE)
  names(loc$gamma) <- names(par$gamma)
  c(loc[c("mu", "gamma")], cov$mstep_profiled(best, st, loc, par, pen),
    gauge_mixing(best))
}

# Held in the gauge E[Y] = 1 -------------------------------------------------

# Parameters held in the reported gauge E[Y] = 1 (fit_gh(fixed = ), gauge
# "mean"): a, b and a gamma other than 0, alone or with mu and p.
#
# The M-step (ECM: Meng and Rubin 1993, Biometrika 80, 267-278).  Write the
# mixing law as GIG(p, w / c, w c): w = sqrt(a b) and p are free of the
# gauge, c = sqrt(b / a) is its scale (Y -> sY takes c to s c).  With
# R = K_{p+1}(w) / K_p(w) the mean is k = E[Y] = c R (DLMF 10.25; the GIG
# mean of DESIGN.md section 2), and the parameters reported in the gauge
# E[Y] = 1 are
#   a* = a k = w R,  b* = b / k = w / R,  gamma* = k gamma,  Sigma* = k Sigma.
# So a* and b* constrain (p, w) only, and gamma* = g0 ties gamma = g0 / k to
# the scale.  From the E-step's means (delta = E 1/Y, eta = E Y,
# ell = E log Y, and those of u = x - mu), the expected complete-data
# log-likelihood is Q = Q_N(mu, gamma, Sigma) + Q_G(p, w, c), with
#   Q_G = (p - 1) ell - w eta / (2 c) - w c delta / 2 - log K_p(w) - p log c
#   Q_N = -log|Sigma| / 2 - tr(Sigma^-1 M) / 2,
#   M = E[(u - m - Y gamma)(u - m - Y gamma)' / Y], m the move of mu.
# Each M-step maximises Q over the free parameters, the scale c included:
# - gamma free: mu, gamma, Sigma by the closed forms of the plain M-step;
#   dQ_G/dc = 0 is w delta c^2 + 2 p c - w eta = 0 (its positive root);
#   w is w(p), the root of w R = a* (or w / R = b*), or fixed with p where
#   two of p, a*, b* are held; the free p by a 1-D maximisation.
# - gamma* = g0: given k, m = (E[u / Y] - gamma) / delta (0 with mu held)
#   and Sigma = M, so Q_N = -log|M(g0 / k)| / 2 - d / 2; Q is maximised over
#   log k and the free ones of p and log w, with c = k / R.
# The search starts at the current parameters, and its answer is kept only
# where Q does not fall below theirs: each step is a generalised M-step, so
# the likelihood never decreases.

# TRUE when fixed (internal or the user's) holds a, b or a gamma other than 0.
fixed_in_gauge <- function(fixed) {
  !is.null(fixed$a) || !is.null(fixed$b) ||
    (!is.null(fixed$gamma) && any(fixed$gamma != 0))
}

# log K_nu(x), on the CPU.
gauge_log_k <- function(x, nu) {
  .Call(ffi_log_besselK, as.double(x), as.double(nu), FALSE, 1L, NULL)
}

gauge_log_ratio <- function(p, w) gauge_log_k(w, p + 1) - gauge_log_k(w, p)

# The range of p where a* (p < a* / 2) or b* (p > -1 - b* / 2) can be held:
# w R = 2 p + w K_{p-1} / K_p > 2 p, and w / R = w R_{-p-1} > -2 p - 2
# (DLMF 10.29.1, K_{-nu} = K_nu).
gauge_p_range <- function(fixed) {
  c(if (is.null(fixed$b)) -Inf else -1 - fixed$b / 2,
    if (is.null(fixed$a)) Inf else fixed$a / 2)
}

gauge_p_inside <- function(p, fixed) {
  range <- gauge_p_range(fixed)
  is.finite(p) && p > range[[1L]] && p < range[[2L]]
}

# w at p (fixed$law, the root of w R = a* or w / R = b*, or NA outside
# gauge_p_range()); NULL when w is free.
gauge_w <- function(p, fixed) {
  if (!is.null(fixed$law)) {
    return(fixed$law[[2L]])
  }
  if (is.null(fixed$a) && is.null(fixed$b)) {
    return(NULL)
  }
  if (!gauge_p_inside(p, fixed)) {
    return(NA_real_)
  }
  # log(w R) - log a*, or log(w / R) - log b*: increasing in log w
  side <- if (is.null(fixed$a)) -1 else 1
  target <- log(if (is.null(fixed$a)) fixed$b else fixed$a)
  f <- function(lw) lw + side * gauge_log_ratio(p, exp(lw)) - target
  gauge_w_root(f, target)
}

# The root of f (increasing in log w) from target +- 1, its exp; NA where
# it is not a normal double: a* or b* of 1e-50 to 1e-300, held with a p
# next to 0 (w ~ a*^(1 / -2p) for -1 < p < 0, DLMF 10.30.2), or b* = 5e-324
# (target + 1 below the doubles): the p search of the M-step avoids it.
gauge_w_root <- function(f, target) {
  lo <- log(.Machine$double.xmin)
  start <- target + c(-1, 1)
  if (start[[1L]] < lo) {
    if (!isTRUE(f(lo) < 0)) {
      return(NA_real_)
    }
    start <- lo + c(0, 1)
  }
  root <- tryCatch(
    stats::uniroot(f, start, extendInt = "upX", tol = 1e-14,
                   maxiter = 2000L)$root,
    error = function(e) NA_real_
  )
  w <- exp(root)
  if (!isTRUE(w >= .Machine$double.xmin) || !is.finite(w)) NA_real_ else w
}

# The law (p, w) where two of p, a*, b* are held: w = sqrt(a* b*) and
# R_p(w) = sqrt(a* / b*) (R increases with p from 0 to Inf), or w(p).
gauge_law <- function(fixed) {
  if (!is.null(fixed$a) && !is.null(fixed$b)) {
    w <- sqrt(fixed$a * fixed$b)
    target <- log(fixed$a / fixed$b) / 2
    p <- stats::uniroot(function(p) gauge_log_ratio(p, w) - target,
                        c(-1, 1), extendInt = "upX", tol = 1e-14,
                        maxiter = 2000L)$root
    return(c(p, w))
  }
  if (!is.null(fixed$p) && (!is.null(fixed$a) || !is.null(fixed$b))) {
    return(c(fixed$p, gauge_w(fixed$p, fixed)))
  }
  NULL
}

# The scale c maximising Q_G at (p, w): the positive root of
# w delta c^2 + 2 p c - w eta, in the form without cancellation.
gauge_best_c <- function(p, w, m) {
  s <- sqrt(p^2 + w^2 * m$eta * m$delta)
  if (p >= 0) w * m$eta / (p + s) else (s - p) / (w * m$delta)
}

gauge_q_mixing <- function(p, w, c, m) {
  (p - 1) * m$ell - w * m$eta / (2 * c) - w * c * m$delta / 2 -
    gauge_log_k(w, p) - p * log(c)
}

# The E-step's means (about the current mu).
gauge_means <- function(st) {
  n <- st$tau
  list(delta = st$s_inv / n, eta = st$s_y / n, ell = st$s_log / n,
       xbar = st$sx / n, xw = st$sxw / n, sxx = st$sxx / n)
}

# Q_N's maximiser over mu (unless held) and Sigma at gamma.
gauge_normal_at <- function(gamma, m, mu_held) {
  mu_u <- if (mu_held) 0 * gamma else (m$xw - gamma) / m$delta
  r <- m$xbar - mu_u
  sigma <- m$sxx - tcrossprod(m$xw, mu_u) - tcrossprod(mu_u, m$xw) +
    m$delta * tcrossprod(mu_u) - tcrossprod(r, gamma) - tcrossprod(gamma, r) +
    m$eta * tcrossprod(gamma)
  list(mu_u = mu_u, sigma = (sigma + t(sigma)) / 2)
}

# gauge_normal_at() with Q_N at its Sigma (q).
gauge_normal_full <- function(gamma, m, mu_held) {
  nrm <- gauge_normal_at(gamma, m, mu_held)
  nrm$q <- gauge_q_normal(nrm$sigma)
  nrm
}

gauge_q_normal <- function(sigma) {
  ch <- .Call(ffi_chol_lower, sigma)
  if (is.null(ch)) -Inf else -sum(log(diag(ch)))
}

# The search variables of the M-step: p (free, not fixed by the law),
# log w (free: no a*, b*), log k (gamma held) or none of k (then c is
# gauge_best_c()).
gauge_unpack <- function(v, fixed, gamma_held) {
  i <- 0L
  take <- function() {
    i <<- i + 1L
    v[[i]]
  }
  p <- if (!is.null(fixed$law)) fixed$law[[1L]] else if (!is.null(fixed$p))
    fixed$p else take()
  w <- gauge_w(p, fixed)
  if (is.null(w)) w <- exp(take())
  list(p = p, w = w, k = if (gamma_held) exp(take()) else NULL)
}

gauge_pack <- function(par, fixed, gamma_held) {
  w <- sqrt(par$a * par$b)
  c(if (is.null(fixed$law) && is.null(fixed$p)) par$p,
    if (is.null(gauge_w(par$p, fixed))) log(w),
    if (gamma_held) log(sqrt(par$b / par$a) * exp(gauge_log_ratio(par$p, w))))
}

# Q at the search variables v, with the parameters it is at.
gauge_q <- function(v, fixed, m) {
  gamma_held <- !is.null(fixed$gamma)
  u <- gauge_unpack(v, fixed, gamma_held)
  if (!is.finite(u$w) || u$w <= 0) {
    return(list(q = -Inf))
  }
  if (gamma_held) {
    c <- u$k / exp(gauge_log_ratio(u$p, u$w))
    normal_at <- if (is.null(m$normal_at)) gauge_normal_full else m$normal_at
    nrm <- normal_at(fixed$gamma / u$k, m, !is.null(fixed$mu))
    q <- nrm$q + gauge_q_mixing(u$p, u$w, c, m)
  } else {
    c <- gauge_best_c(u$p, u$w, m)
    nrm <- NULL
    q <- gauge_q_mixing(u$p, u$w, c, m)
  }
  ok <- is.finite(q) && gauge_representable(u$p, u$w, c)
  list(q = if (ok) q else -Inf, p = u$p, w = u$w, c = c, k = u$k,
       normal = nrm)
}

# Whether the mixing law (p, w / c, w c), and the same in the gauge E[Y] =
# 1, (w R, w / R), have a and b that are normal doubles: with a* of 1e-50
# held, a p next to 0 takes w to 1e-180 and a below the doubles, where the
# search must not go (the maximum is near the skew-t limit, w ~ 1e-25).
gauge_representable <- function(p, w, c) {
  lo <- log(.Machine$double.xmin)
  hi <- log(.Machine$double.xmax)
  l <- log(w) + c(-log(c), log(c), gauge_log_ratio(p, w) * c(1, -1))
  all(is.finite(l) & l >= lo & l <= hi)
}

# The maximiser of Q over the search variables (gauge_q()), from par's;
# normal_at(gamma, m, mu_held): Q_N's part (NULL: gauge_normal_full(); a
# factor fit's: factor_gauge_normal()).
gauge_search <- function(st, par, fixed, normal_at = NULL) {
  m <- gauge_means(st)
  m$normal_at <- normal_at
  if (fixed_on_limit(fixed$family)) {
    # (the gamma and inverse-gamma laws: see fit_fixed_family.R)
    return(limit_gauge_search(par, fixed, m))
  }
  gamma_held <- !is.null(fixed$gamma)
  v0 <- gauge_pack(par, fixed, gamma_held)
  range <- gauge_p_range(fixed)
  free_p <- is.null(fixed$law) && is.null(fixed$p)
  gauge_improve(
    gauge_q(v0, fixed, m), v0, function(v) gauge_q(v, fixed, m),
    c(if (free_p) range[[1L]], rep(-Inf, length(v0) - free_p)),
    c(if (free_p) range[[2L]], rep(Inf, length(v0) - free_p))
  )
}

# The maximiser of q_at(v)$q from v0 (where q_at gives best) within the
# bounds, kept only where it is at least best's.
gauge_improve <- function(best, v0, q_at, lower, upper) {
  if (length(v0) == 0L) {
    return(best)
  }
  opt <- stats::nlminb(
    v0, function(v) {
      q <- q_at(v)$q
      if (is.finite(q)) -q else Inf
    },
    lower = lower, upper = upper,
    control = list(rel.tol = 1e-15, x.tol = 1e-12, eval.max = 400L,
                   iter.max = 300L)
  )
  cand <- q_at(opt$par)
  if (cand$q >= best$q) cand else best
}

# The mixing parameters at gauge_search()'s answer (a VG or skew-t's
# search gives them).
gauge_mixing <- function(best) {
  if (!is.null(best$a)) {
    return(best[c("p", "a", "b")])
  }
  list(p = best$p, a = best$w / best$c, b = best$w * best$c)
}

# The start par of a fit with one of a*, b* held and p free, where the
# start's p gives a law within 1e-8 of its limit (w(p) < 1e-8: a* = 1e-50
# held from a NIG start, p = -1/2, gives w = 1e-50, a law the EM cannot
# leave): p instead from the start's other one of a*, b* kept (gauge_law()
# of both; a* = 1e-50 with a NIG's b* = 1.5 gives p = -1.75, near the
# skew-t limit the fit tends to).  Otherwise par itself.
gauge_start <- function(par, fixed) {
  one <- xor(is.null(fixed$a), is.null(fixed$b))
  if (!one || !is.null(fixed$p) || !is.null(fixed$law) ||
        isTRUE(gauge_w(par$p, fixed) >= 1e-8)) {
    return(par)
  }
  ws <- sqrt(par$a * par$b)
  r <- exp(gauge_log_ratio(par$p, ws))
  law <- gauge_start_law(fixed, ws, r)
  if (is.null(law)) {
    return(par)
  }
  # the start's E[Y] = c R kept (Sigma and gamma are on its scale)
  c_new <- sqrt(par$b / par$a) * r / exp(gauge_log_ratio(law[[1L]], law[[2L]]))
  par$p <- law[[1L]]
  par$a <- law[[2L]] / c_new
  par$b <- law[[2L]] * c_new
  gauge_impose(par, fixed)
}

# (p, w) of gauge_law() with the held one of a*, b* and the start's other
# (w R or w / R of the start's w and R): NULL where it fails.
gauge_start_law <- function(fixed, ws, r) {
  kept <- if (is.null(fixed$a)) list(a = ws * r, b = fixed$b) else
    list(a = fixed$a, b = ws / r)
  law <- tryCatch(gauge_law(kept), error = function(e) NULL)
  if (is.null(law) || !all(is.finite(law)) || !isTRUE(law[[2L]] > 0)) NULL
  else law
}

# par moved onto the constraints (any gauge; its scale c is kept): p and w
# from the law, or w = w(p); gamma = g0 / E[Y].  Outside the range of p an
# invalid p (the point is then refused).
gauge_impose <- function(par, fixed) {
  if (fixed_on_limit(fixed$family)) {
    return(limit_gauge_impose(par, fixed))
  }
  p <- if (is.null(fixed$law)) par$p else fixed$law[[1L]]
  w <- gauge_w(p, fixed)
  if (is.null(w)) w <- sqrt(par$a * par$b)
  c <- sqrt(par$b / par$a)
  if (is.na(w) || !is.finite(c) || c <= 0) {
    par$p <- NaN
    return(par)
  }
  par$p <- p
  par$a <- w / c
  par$b <- w * c
  if (!is.null(fixed$gamma)) {
    par$gamma[] <- fixed$gamma / (c * exp(gauge_log_ratio(p, w)))
  }
  par
}
