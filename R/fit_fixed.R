# Parameters held fixed during a GH fit (fit_gh(fixed = )): p and mu, held
# by conditional M-steps (ECM, Meng and Rubin 1993, Biometrika 80, 267-278:
# each maximises the expected complete-data log-likelihood over the free
# parameters, so the likelihood still never falls) and imposed on every
# point the EM evaluates (mix_point()), SQUAREM extrapolations included.
# gamma = 0 is symmetric = TRUE.  a, b and a gamma other than 0 change
# under the scaling Y -> sY that the gauge fixes: they are held in the
# reported gauge E[Y] = 1, by the M-step of R/fit_fixed_gauge.R.

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
