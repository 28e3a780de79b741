# Confidence intervals of every fit: Wald intervals from vcov() on the
# parametrisation coef() reports, and profile-likelihood intervals of the
# mixing law's shape parameters by refits with the parameter held
# (`fixed =`, R/constraints.R, R/fit_fixed_family.R).

#' Confidence intervals for the parameters of a GH-family fit
#'
#' Wald intervals \eqn{\hat\theta \pm z_{(1 + \mathrm{level})/2}\,
#' \mathrm{se}} for every parameter, from [vcov()][vcov.ghmix_fit()] (the
#' observed information), on the parametrisation that
#' [coef()][coef.ghmix_fit()] reports by default (`"ghmix"`, in the fit's
#' gauge) and named as [vcov()][vcov.ghmix_fit()] and [tidy()][ghmix_tidiers]
#' name them (`"mu[name]"`, `"Sigma[name1,name2]"`, `"p"`, ...; for a
#' mixture `"component_k:..."` and `"proportion[k]"`); or, with `method =
#' "profile"`, profile-likelihood intervals of the mixing law's shape
#' parameters.
#'
#' Wald intervals are symmetric about the estimate, and poor where the
#' likelihood is not close to quadratic: for a shape parameter near the
#' edge of its range (a GH `p` where the data are close to the skew-t or
#' variance-gamma limit, the degrees of freedom of a t, `a` and `b` near
#' 0), a Wald interval can run out of the parameter space. The profile
#' interval is the set of values \eqn{v} with \eqn{2(\hat\ell -
#' \ell_p(v)) \le \chi^2_{1}(\mathrm{level})}, \eqn{\ell_p(v)} the
#' log-likelihood maximised over the other parameters with the shape
#' parameter held at \eqn{v} (a refit of the same data with `fixed`, from
#' the fit's parameters); its ends are found by bracketing outwards from
#' the estimate in steps of the Wald standard error (on the log scale for
#' a parameter of one sign: `a`, `b`, the VG's `p`, the skew-t's `-p`)
#' and [stats::uniroot()]. Where the profile stays below the threshold
#' out to a factor \eqn{e^{8}} from the estimate (on that scale; 40 units
#' for the GH's `p`), the end is reported as the edge of the range (`0`,
#' `Inf`, `-Inf`): the data do not bound the parameter (the degrees of
#' freedom of nearly normal data, for instance). Where a refit fails or
#' does not converge, that end is `NA` with a warning of class
#' `ghmix_warning_profile`. The parameters that can be profiled are
#' those the fit estimates of `p` (GH, VG, skew-t, Student-t; the
#' skew-t's degrees of freedom are \eqn{\nu = -2p}), and `a` and `b` in
#' the gauge \eqn{E[Y] = 1} (GH and NIG; the VG's `a = 2p` and the
#' skew-t's `b = -2(p + 1)` follow from `p` there). Each end costs some
#' 10 to 20 refits. Profiles need the rows: they are not available for
#' online fits (an error of class `ghmix_error_online`), mixtures,
#' penalised fits and the Gaussian fit (errors of class
#' `ghmix_error_argument`).
#'
#' Parameters held by `fixed` have `NA` intervals (they are not
#' estimated). A penalised fit (`shrink`) has no standard errors, so its
#' Wald intervals are `NA`.
#'
#' @param object A fit (one distribution, factor, online, mixture or
#'   [fit_gaussian()]).
#' @param parm The parameters: names (as [vcov()][vcov.ghmix_fit()] names
#'   them) or positions; by default all (Wald) or all the shape parameters
#'   the fit estimates (`"profile"`).
#' @param level The confidence level, in (0, 1).
#' @param method `"wald"` (default) or `"profile"`.
#' @param ... Not used.
#' @return A matrix with one row per parameter and columns of the lower
#'   and upper limits labelled in percent (as [stats::confint()]), with
#'   attribute `method`.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' confint(fit)
#' \donttest{
#' t_fit <- fit_student(r[, "DAX"])
#' confint(t_fit, "p", method = "profile") # nu = -2p
#' }
confint.ghmix_fit <- function(object, parm = NULL, level = 0.95,
                              method = c("wald", "profile"), ...) {
  call <- sys.call()
  check_level(level, "level", call)
  method <- check_choice(method, c("wald", "profile"), "method", call)
  if (method == "profile") {
    return(confint_profile(object, parm, level, call))
  }
  tab <- tidy_table(object)
  keep <- confint_parm(parm, tab$name, call)
  out <- wald_limits(tab$estimate[keep], tab$se[keep], level)
  dimnames(out) <- list(tab$name[keep], confint_columns(level))
  structure(out, method = "wald")
}

#' @rdname confint.ghmix_fit
#' @export
confint.ghmix_mixture <- confint.ghmix_fit

#' @rdname confint.ghmix_fit
#' @export
confint.ghmix_fit_gaussian <- confint.ghmix_fit

check_level <- function(level, arg, call) {
  ok <- is.numeric(level) && length(level) == 1L && isTRUE(level > 0 &&
                                                             level < 1)
  if (!ok) {
    abort_argument(sprintf("`%s` must be a single number in (0, 1).", arg),
                   call)
  }
}

# est -/+ z se, a two-column matrix.
wald_limits <- function(est, se, level) {
  z <- stats::qnorm((1 + level) / 2)
  cbind(est - z * se, est + z * se)
}

# "2.5 %" and "97.5 %", as stats::confint() labels them.
confint_columns <- function(level) {
  a <- (1 + c(-1, 1) * level) / 2
  paste(format(100 * a, trim = TRUE, scientific = FALSE, digits = 3L), "%")
}

# The positions of parm among the names (all where NULL).
confint_parm <- function(parm, names, call) {
  if (is.null(parm)) {
    return(seq_along(names))
  }
  idx <- confint_positions(parm, names)
  if (length(parm) == 0L || anyNA(idx) || any(idx < 1L | idx > length(names))) {
    abort_argument(
      sprintf(
        "`parm` must be names or positions of the parameters: %s.",
        paste0('"', utils::head(names, 12L), '"', collapse = ", ")
      ),
      call
    )
  }
  idx
}

# parm's positions (NA where it is neither names nor whole numbers).
confint_positions <- function(parm, names) {
  if (is.character(parm)) {
    return(match(parm, names))
  }
  whole <- is.numeric(parm) && isTRUE(all(parm == round(parm)))
  if (whole) as.integer(parm) else NA_integer_
}

# Profiles -------------------------------------------------------------------

confint_profile <- function(object, parm, level, call) {
  confint_profile_check(object, call)
  shape <- profile_shape_names(object)
  if (is.null(parm)) parm <- shape
  if (!is.character(parm) || length(parm) == 0L || !all(parm %in% shape)) {
    abort_argument(
      sprintf(
        'With method = "profile", `parm` must name shape parameters of %s: %s.',
        "this fit", if (length(shape) == 0L) "it has none" else
          paste0('"', shape, '"', collapse = ", ")
      ),
      call
    )
  }
  tab <- tidy_table(object)
  crit <- stats::qchisq(level, 1)
  out <- t(vapply(parm, function(nm) {
    i <- match(nm, tab$name)
    profile_limits(object, nm, tab$estimate[[i]], tab$se[[i]], crit)
  }, c(0, 0)))
  dimnames(out) <- list(parm, confint_columns(level))
  structure(out, method = "profile")
}

confint_profile_check <- function(object, call) {
  if (inherits(object, "ghmix_fit_online")) {
    online_no_rows('confint(method = "profile")')
  }
  why <- if (inherits(object, "ghmix_mixture")) {
    "a mixture (refits with a parameter held are fits of one distribution)"
  } else if (identical(object$family, "gaussian")) {
    "the Gaussian fit (it has no shape parameter)"
  } else if (!is.null(object$shrink)) {
    "a penalised fit (the profile of a posterior mode is no likelihood's)"
  }
  if (!is.null(why)) {
    abort_argument(
      sprintf('confint(method = "profile") is not available for %s.', why),
      call
    )
  }
}

# The shape parameters the fit estimates and a refit can hold: p (GH, VG,
# skew-t), a and b in the gauge E[Y] = 1 (GH, NIG).
profile_shape_names <- function(object) {
  free <- setdiff(mix_family(object$family)$free, names(object$fixed))
  if (!identical(object$gauge, "mean") ||
        !object$family %in% c("gh", "nig")) {
    free <- setdiff(free, c("a", "b"))
  }
  if (object$family == "gh" && sum(c("p", "a", "b") %in%
                                     names(object$fixed)) >= 1L) {
    # (two of p, a, b held with E[Y] = 1 fix the third)
    free <- free[vapply(free, function(nm) {
      length(union(nm, intersect(names(object$fixed), c("p", "a", "b")))) < 3L
    }, NA)]
  }
  free
}

# The scale a parameter is searched on: t = log(s v) for one of sign s,
# identity for the GH's p; its range there (the bracketing's reach).
profile_scale <- function(object, nm) {
  sign <- if (nm %in% c("a", "b")) 1 else switch(object$family,
    vg = 1, skewt = -1, 0
  )
  if (sign == 0) {
    return(list(to = identity, from = identity, reach = 40))
  }
  list(to = function(v) log(sign * v), from = function(t) sign * exp(t),
       reach = 8)
}

# The lower and upper ends of the profile interval of nm.
profile_limits <- function(object, nm, est, se, crit) {
  sc <- profile_scale(object, nm)
  t0 <- sc$to(est)
  # the Wald standard error on the search scale (delta method), as step
  step <- if (is.finite(se) && se > 0) {
    se * abs(sc$to(est + se * 1e-3) - t0) / (se * 1e-3)
  } else {
    0.1
  }
  step <- min(max(step, 1e-3), sc$reach / 8)
  dev_at <- profile_deviance(object, nm)
  ends <- c(profile_end(dev_at, sc, t0, -step, crit),
            profile_end(dev_at, sc, t0, step, crit))
  # (lower first: the skew-t's p decreases as log(-p) grows)
  if (sc$from(1) < sc$from(0)) rev(ends) else ends
}

# 2 (loglik - profile loglik) at v, the refit with nm held at v (NA where
# the refit fails, does not converge or exceeds the fit).
profile_deviance <- function(object, nm) {
  function(v) {
    fit <- profile_refit(object, nm, v)
    if (is.null(fit) || !isTRUE(fit$converged)) {
      return(NA_real_)
    }
    dev <- 2 * (object$loglik - fit$loglik)
    # (a refit above the fit by more than its tolerance: the fit was not
    # the maximum)
    if (dev < -1e-6 * max(1, abs(object$loglik))) NA_real_ else max(dev, 0)
  }
}

# One end: out from t0 by step, doubling, until the deviance exceeds crit,
# then the root between the last two points; the edge of the range (0 or
# +-Inf) where it stays below crit out to sc$reach.
profile_end <- function(dev_at, sc, t0, step, crit) {
  inside <- c(t0, 0) # (the point and its deviance)
  dist <- abs(step)
  while (dist <= sc$reach) {
    t <- t0 + sign(step) * dist
    dev <- dev_at(sc$from(t))
    if (is.na(dev)) {
      return(profile_failed(sc$from(t)))
    }
    if (dev >= crit) {
      ends <- rbind(inside, c(t, dev))[order(c(inside[[1L]], t)), ]
      root <- tryCatch(
        stats::uniroot(function(u) dev_at(sc$from(u)) - crit, ends[, 1L],
                       f.lower = ends[1L, 2L] - crit,
                       f.upper = ends[2L, 2L] - crit,
                       tol = 1e-6 * abs(step))$root,
        error = function(e) NULL
      )
      return(if (is.null(root)) profile_failed(sc$from(t)) else
        sc$from(root))
    }
    inside <- c(t, dev)
    dist <- 2 * dist
  }
  sc$from(sign(step) * Inf) # the edge of the range: unbounded
}

profile_failed <- function(v) {
  ghmix_warn(
    sprintf(
      paste(
        "the refit with the parameter held at %s failed or did not",
        "converge; that end of the profile interval is NA"
      ),
      format(v, digits = 6L)
    ),
    class = "ghmix_warning_profile"
  )
  NA_real_
}

# The fit of the same rows with nm also held at v, from the fit's
# parameters (NULL where it fails).
profile_refit <- function(object, nm, v) {
  fixed <- object$fixed
  fixed[[nm]] <- v
  tryCatch(
    suppressWarnings(mix_fit(
      object$data, object$family, isTRUE(object$symmetric), object,
      profile_control(object$control), object$gauge, FALSE, object$backend,
      object$threads,
      0L, sys.call(), NULL, object$weights, fixed = fixed,
      factors = object$factors
    )),
    ghmix_error = function(e) NULL
  )
}

# The fit's control, silent.
profile_control <- function(control) {
  if (is.null(control)) control <- ghmix_control()
  control$trace <- FALSE
  control
}
