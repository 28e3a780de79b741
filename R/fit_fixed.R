# Parameters held fixed during a GH fit (fit_gh(fixed = )): p and mu, held
# by conditional M-steps (ECM, Meng and Rubin 1993, Biometrika 80, 267-278:
# each maximises the expected complete-data log-likelihood over the free
# parameters, so the likelihood still never falls) and imposed on every
# point the EM evaluates (mix_point()), SQUAREM extrapolations included.
# gamma = 0 is symmetric = TRUE.  A value of gamma other than 0, or of a or
# b, is not held: each changes under the scaling Y -> sY that the gauge
# fixes, so it would mean a different constraint in each gauge.

# fixed, checked: NULL or list(p = , mu = ) in the data's units; gamma = 0
# is turned into args$symmetric by the caller.
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
  fixed
}

fixed_list_ok <- function(fixed, known) {
  is.list(fixed) && !is.data.frame(fixed) && length(fixed) > 0L &&
    fixed_names_ok(names(fixed), known)
}

fixed_names_ok <- function(nms, known) {
  !is.null(nms) && all(nms %in% known) && anyDuplicated(nms) == 0L
}

# mu: d numbers; gamma: d, or one (0); p, a, b: one.
fixed_size <- function(v, nm, d) {
  if (nm == "mu" || (nm == "gamma" && length(v) != 1L)) d else 1L
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
  if (nm %in% c("a", "b") || (nm == "gamma" && any(v != 0))) {
    abort_argument(
      sprintf(
        paste(
          "`fixed$%s` cannot be held: it changes with the scale of Y that",
          "the gauge fixes; `fixed` holds p, mu and gamma = 0 (symmetric)."
        ),
        nm
      ),
      call
    )
  }
}

# The fixed values in the units the rows are fitted in (scaling: NULL or
# that of the fit, R/fit_scaling.R), as the EM imposes them.
fixed_internal <- function(fixed, scaling) {
  fixed <- fixed[intersect(names(fixed), c("mu", "p"))]
  if (length(fixed) == 0L) {
    return(NULL)
  }
  if (!is.null(fixed$mu)) {
    fixed$mu <- as.double(fixed$mu)
    if (!is.null(scaling)) {
      fixed$mu <- drop(scaling_apply(matrix(fixed$mu, 1L), scaling))
    }
  }
  if (!is.null(fixed$p)) fixed$p <- as.double(fixed$p)
  fixed
}

fixed_impose <- function(par, fixed) {
  if (!is.null(fixed$mu)) par$mu[] <- fixed$mu
  if (!is.null(fixed$p)) par$p <- fixed$p
  par
}

# The ECM M-step with the parameters of ctx$fixed held.
mix_mstep_fixed <- function(st, par, ctx) {
  fixed <- ctx$fixed
  out <- if (is.null(fixed$mu)) {
    mix_mstep_normal(st, par, ctx$symmetric)
  } else {
    mix_mstep_mu_held(st, par, ctx$symmetric)
  }
  n <- st$tau
  eta <- c(st$s_log / n, st$s_inv / n, st$s_y / n)
  start <- c(par$p, par$a, par$b)
  sub <- if (is.null(fixed$p)) {
    .Call(ffi_mix_subordinator, mix_family(ctx$family)$code,
          c(eta, st$s_inv_dev / n, st$s_y_dev / n), start)
  } else {
    .Call(ffi_mix_subordinator_fixed_p, fixed$p, eta, start)
  }
  c(out, list(p = sub$p, a = sub$a, b = sub$b))
}

# mu held (the E-step's statistics are about it): gamma = mean x / mean E Y
# (0 when symmetric), Sigma the weighted scatter about mu + Y gamma.
mix_mstep_mu_held <- function(st, par, symmetric) {
  n <- st$tau
  xbar <- st$sx / n
  eta <- st$s_y / n
  gamma <- if (symmetric) rep(0, length(xbar)) else xbar / eta
  sigma <- st$sxx / n - eta * tcrossprod(gamma)
  sigma <- (sigma + t(sigma)) / 2
  dimnames(sigma) <- dimnames(par$sigma)
  list(mu = par$mu, gamma = gamma, sigma = sigma)
}

# The fit's record of its fixed parameters (in the data's units) and its
# degrees of freedom less those held.
fixed_result <- function(fit, fixed) {
  if (is.null(fixed)) {
    return(fit)
  }
  fit$fixed <- fixed
  # (the EM's standardisation may round mu by an ulp)
  if (!is.null(fixed$mu)) fit$parameters$mu[] <- as.double(fixed$mu)
  fit$df <- fit$df - sum(lengths(fixed[intersect(names(fixed),
                                                 c("mu", "p"))]))
  fit
}
