# Members of the family with a fit of their own (hyperbolic, Student-t,
# Gaussian), the fit of a set of families ranked by AIC or BIC (as ghyp's
# stepAIC.ghyp), and likelihood-ratio tests between nested fits (anova()).

# The family's name as printed: "hyperbolic" for a GH fit with p fixed at
# (d + 1) / 2, "GH (p = 1.3)" for another fixed p.
fit_family_label <- function(x) {
  p <- x$fixed$p
  if (identical(x$family, "gh") && !is.null(p)) {
    return(if (p == (x$d + 1) / 2) "hyperbolic" else
      sprintf("GH (p = %s)", format(p, digits = 6L)))
  }
  label <- mix_family(x$family)$label
  if (!is.null(p) && identical(x$family, "vg")) {
    return(sprintf("%s (p = %s)", label, format(p, digits = 6L)))
  }
  if (!is.null(p) && identical(x$family, "skewt")) {
    return(sprintf("%s (nu = %s)", label, format(-2 * p, digits = 6L)))
  }
  label
}

fit_dim <- function(x) if (is.null(dim(x))) 1L else dim(x)[[2L]]

#' Fit the hyperbolic, Student-t and Gaussian members of the GH family
#'
#' `fit_hyperbolic()` is [fit_gh()] with \eqn{p = (d + 1)/2} held fixed (the
#' hyperbolic law: for \eqn{d = 1}, \eqn{p = 1}, whose log-density is a
#' hyperbola); `fit_student()` is [fit_skewt()] with `symmetric = TRUE`
#' (the multivariate Student-t with \eqn{\nu = -2p} degrees of freedom);
#' `fit_gaussian()` the normal law, the limit of the family as
#' \eqn{a, b \to \infty} with \eqn{E[Y] = 1}: closed-form maximum likelihood
#' (the column means and the covariance with divisor \eqn{n}), no EM.
#' With `shrink`, `fit_gaussian()` maximises the same gauge-free objective
#' \eqn{\ell + P^*(\Sigma)} as the other fits (see [ghmix_shrink()]; the
#' limit of theirs): \eqn{\Sigma = (nS + kT/c)/(n + k)} at the root
#' \eqn{c} of \eqn{c = \mathrm{tr}(\Sigma^{-1}T)/d}, one equation in the
#' eigenvalues of \eqn{T^{-1}S}, and `objective` and `shrink` are added to
#' the fit.
#'
#' @inheritParams fit_nig
#' @return `fit_hyperbolic()` and `fit_student()`: fits as [fit_gh()] and
#'   [fit_skewt()] return (the hyperbolic fit has `fixed = list(p = )`).
#'   `fit_gaussian()`: an object of class `"ghmix_fit_gaussian"` with
#'   `parameters` (`mu`, `sigma`), `loglik`, `df`, `nobs`, `d`,
#'   `na_action`, and methods `print()`, `coef()`, `logLik()` (so `AIC()`,
#'   `BIC()`), `nobs()` and `anova()`.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' AIC(fit_hyperbolic(r[, "DAX"]), fit_student(r[, "DAX"]),
#'     fit_gaussian(r[, "DAX"]))
fit_hyperbolic <- function(x, symmetric = FALSE, start = NULL,
                           control = ghmix_control(),
                           gauge = c("mean", "det"), na.rm = FALSE, # nolint
                           backend = c("cpu", "cuda"),
                           threads = ghmix_threads(), device = 0L,
                           cluster = NULL, weights = NULL, shrink = NULL,
                           fixed = NULL) {
  call <- sys.call()
  fit_dispatch(
    "gh", x, symmetric, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, 1L, 5L, "bic", shrink, NULL, call,
    fixed = fixed_for_family(fixed, "gh", call, (fit_dim(x) + 1) / 2)
  )
}

#' @rdname fit_hyperbolic
#' @export
fit_student <- function(x, start = NULL, control = ghmix_control(),
                        gauge = c("mean", "det"), na.rm = FALSE, # nolint
                        backend = c("cpu", "cuda"),
                        threads = ghmix_threads(), device = 0L,
                        cluster = NULL, weights = NULL, shrink = NULL,
                        factors = NULL, fixed = NULL) {
  fit_dispatch(
    "skewt", x, TRUE, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, 1L, 5L, "bic", shrink, factors, sys.call(),
    fixed = fixed
  )
}

#' @rdname fit_hyperbolic
#' @export
fit_gaussian <- function(x, na.rm = FALSE, shrink = NULL, # nolint
                         fixed = NULL) {
  call <- sys.call()
  shrink <- shrink_arg(shrink, call)
  fixed <- fixed_for_family(fixed, "gaussian", call)
  if (inherits(x, "ghmix_data")) model_refuse("gaussian_chunks", call)
  data <- mix_data(x, na.rm, call)
  x <- data$x
  n <- nrow(x)
  d <- ncol(x)
  fixed <- check_fixed(fixed, d, call)
  mu <- if (is.null(fixed)) colMeans(x) else
    stats::setNames(as.double(fixed$mu), colnames(x))
  dev <- x - rep(mu, each = n)
  sigma <- crossprod(dev) / n
  chol_l <- .Call(ffi_chol_lower, sigma)
  if (is.null(chol_l)) {
    abort_argument("`x` has a singular covariance matrix.", call)
  }
  # the normal log-likelihood at its maximum: -n/2 (d log 2 pi + log det S
  # + d)
  loglik <- -n / 2 * (d * log(2 * pi) + 2 * sum(log(diag(chol_l))) + d)
  fit <- structure(
    list(
      parameters = list(mu = mu, sigma = sigma), family = "gaussian",
      symmetric = TRUE, loglik = loglik, nobs = n, d = d,
      df = d + d * (d + 1L) / 2L, converged = TRUE, iterations = 0L,
      na_action = data$dropped, data = x, call = call
    ),
    class = "ghmix_fit_gaussian"
  )
  fit <- fixed_result(fit, fixed)
  if (is.null(shrink)) fit else shrink_gaussian(fit, x, shrink, call)
}

#' @export
print.ghmix_fit_gaussian <- function(x, digits = 4L, ...) {
  cat(sprintf("Gaussian fit: d = %d, n = %d (closed form)\n\nmu:\n",
              x$d, x$nobs))
  print(signif(x$parameters$mu, digits))
  cat("\nSigma:\n")
  print(signif(x$parameters$sigma, digits))
  cat(sprintf(
    "\nLog-likelihood %s (df = %d); AIC %s, BIC %s\n",
    format(x$loglik, digits = max(digits, 8L)), as.integer(x$df),
    format(stats::AIC(stats::logLik(x)), digits = max(digits, 8L)),
    format(stats::BIC(stats::logLik(x)), digits = max(digits, 8L))
  ))
  if (!is.null(x$shrink)) cat(shrink_line(x), "\n", sep = "")
  invisible(x)
}

#' @export
logLik.ghmix_fit_gaussian <- function(object, ...) {
  structure(
    object$loglik, df = object$df, nobs = object$nobs, class = "logLik"
  )
}

#' @export
nobs.ghmix_fit_gaussian <- function(object, ...) object$nobs

#' @export
coef.ghmix_fit_gaussian <- function(object, ...) object$parameters

# The asymptotic covariance of the normal MLE (the inverse Fisher
# information): Var(mu) = Sigma / n, Cov(S_ij, S_kl) = (S_ik S_jl + S_il
# S_jk) / n, mu and Sigma independent (Anderson 2003, An Introduction to
# Multivariate Statistical Analysis, 3rd ed., theorem 3.4.4); rows of 0
# for a mu held by `fixed`.
#' @export
vcov.ghmix_fit_gaussian <- function(object, ...) {
  vcov_check_shrink(object, sys.call())
  s <- object$parameters$sigma
  d <- nrow(s)
  n <- object$nobs
  low <- lower_index(d)
  i <- low[, 1L]
  j <- low[, 2L]
  cov_s <- (outer(i, i, function(a, b) s[cbind(a, b)]) *
              outer(j, j, function(a, b) s[cbind(a, b)]) +
              outer(i, j, function(a, b) s[cbind(a, b)]) *
              outer(j, i, function(a, b) s[cbind(a, b)])) / n
  cov_mu <- if (is.null(object$fixed$mu)) s / n else 0 * s
  nm <- gaussian_vcov_names(names(object$parameters$mu))
  out <- matrix(0, length(nm), length(nm), dimnames = list(nm, nm))
  out[seq_len(d), seq_len(d)] <- cov_mu
  out[-seq_len(d), -seq_len(d)] <- cov_s
  out
}

gaussian_vcov_names <- function(vars) {
  low <- lower_index(length(vars))
  c(sprintf("mu[%s]", vars),
    sprintf("Sigma[%s,%s]", vars[low[, 2L]], vars[low[, 1L]]))
}

#' Fit a set of GH-family members and rank them by AIC or BIC
#'
#' Fits each family in `families`, asymmetric and symmetric as `symmetric`
#' asks, to the same data and returns them ranked by the criterion, as
#' ghyp's `stepAIC.ghyp()` does. The GH and hyperbolic fits start from the
#' NIG fit of the same symmetry (so the GH log-likelihood is at least the
#' NIG's; it can end at a local maximum below the hyperbolic's).
#' The Student-t is the symmetric skew-t, and the Gaussian has no
#' asymmetric form: with the default arguments 11 distinct models are
#' fitted (GH, NIG, hyperbolic, VG, skew-t, each asymmetric and symmetric,
#' and the Gaussian).
#'
#' Fits that did not converge (a VG or GH fit running into the singularity
#' at repeated rows, for instance: see the ties section of [fit_gh()]) are
#' ranked after those that did, whatever their criterion, so `best` is a
#' converged fit where there is one.
#'
#' Warnings of the fits (convergence, gauge) are collected, not signalled:
#' they are in the result's `warnings`; a fit that fails with an error is a
#' row with `NA` log-likelihood and its message in `errors`.
#'
#' @inheritParams fit_nig
#' @param families Any of `"gh"`, `"nig"`, `"hyperbolic"`, `"vg"`,
#'   `"skewt"` (with `symmetric = TRUE`: the Student-t) and `"gaussian"`.
#' @param symmetric The symmetries to fit: `c(FALSE, TRUE)` (default), or
#'   one of them.
#' @param criterion `"AIC"` (default) or `"BIC"`: the ranking and the best
#'   fit.
#' @param ... Further arguments of the fits ([fit_nig()]): `control`,
#'   `gauge`, `na.rm`, `backend`, `threads`, `device`.
#' @return An object of class `"ghmix_families"`: `table` (a data frame
#'   with `model`, `family`, `symmetric`, `loglik`, `df`, `AIC`, `BIC`,
#'   `converged`, ranked by the criterion), `best` (the best fit),
#'   `fits` (all fits, named as `table$model`), `criterion`, `warnings`
#'   and `errors`.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' sel <- fit_families(r[, "DAX"], families = c("nig", "vg", "gaussian"))
#' sel
#' anova(sel$fits[["NIG (symmetric)"]], sel$fits[["NIG"]])
fit_families <- function(x, families = c("gh", "nig", "hyperbolic", "vg",
                                         "skewt", "gaussian"),
                         symmetric = c(FALSE, TRUE),
                         criterion = c("AIC", "BIC"), ...) {
  call <- sys.call()
  check_families(families, symmetric, call)
  criterion <- check_choice(criterion, c("AIC", "BIC"), "criterion", call)
  runs <- families_runs(x, families, symmetric, list(...))
  table <- families_table(runs$fits)
  table <- table[order(!table$converged, table[[criterion]], na.last = TRUE),
                 , drop = FALSE]
  rownames(table) <- NULL
  structure(
    list(table = table, best = runs$fits[[table$model[[1L]]]],
         fits = runs$fits[table$model], criterion = criterion,
         warnings = runs$warnings, errors = runs$errors),
    class = "ghmix_families"
  )
}

check_families <- function(families, symmetric, call) {
  all_families <- c("gh", "nig", "hyperbolic", "vg", "skewt", "gaussian")
  if (!families_ok(families, all_families)) {
    abort_argument(
      sprintf("`families` must be distinct elements of %s.",
              paste0('"', all_families, '"', collapse = ", ")),
      call
    )
  }
  if (!is.logical(symmetric) || !families_ok(symmetric, c(FALSE, TRUE))) {
    abort_argument("`symmetric` must be FALSE, TRUE or both.", call)
  }
}

families_ok <- function(v, choices) {
  length(v) > 0L && all(v %in% choices) && anyDuplicated(v) == 0L
}

# The fits, in an environment (fits, warnings, errors) filled by
# families_run(): NIG first within each symmetry, as the start of GH and
# hyperbolic.
families_runs <- function(x, families, symmetric, dots) {
  out <- new.env(parent = emptyenv())
  out$fits <- list()
  out$warnings <- list()
  out$errors <- list()
  mixed <- setdiff(families, "gaussian")
  out$progress <- ghmix_progressor(families_count(families, symmetric))
  for (sym in symmetric) families_symmetry(out, x, mixed, sym, dots)
  if ("gaussian" %in% families) {
    families_run(out, "Gaussian", fit_gaussian,
                 list(x, na.rm = isTRUE(dots$na.rm)))
  }
  out$progress <- NULL
  as.list(out)
}

# The number of fits families_runs() makes (the NIG of each symmetry is
# fitted as the start of GH and hyperbolic too).
families_count <- function(families, symmetric) {
  mixed <- setdiff(families, "gaussian")
  per_symmetry <- length(intersect(c("hyperbolic", "gh", "vg", "skewt"),
                                   mixed)) +
    any(c("nig", "gh", "hyperbolic") %in% mixed)
  length(symmetric) * per_symmetry + ("gaussian" %in% families)
}

# The fits of one symmetry.
families_symmetry <- function(out, x, mixed, sym, dots) {
  suffix <- if (sym) " (symmetric)" else ""
  nig_name <- paste0("NIG", suffix)
  nig <- if (any(c("nig", "gh", "hyperbolic") %in% mixed)) {
    families_run(out, nig_name, fit_nig, c(list(x, symmetric = sym), dots))
  }
  funs <- list(hyperbolic = fit_hyperbolic, gh = fit_gh, vg = fit_vg,
               skewt = fit_skewt)
  names <- c(hyperbolic = paste0("hyperbolic", suffix),
             gh = paste0("GH", suffix), vg = paste0("VG", suffix),
             skewt = if (sym) "Student-t" else "skew-t")
  for (fam in intersect(names(funs), mixed)) {
    # (GH from NIG as fit_gh() does: from the hyperbolic fit, a GH fit of
    # data with ties can run into their singularity)
    start <- if (fam %in% c("gh", "hyperbolic") &&
                   inherits(nig, "ghmix_fit")) list(start = nig)
    args <- c(list(x, symmetric = sym), start, dots)
    families_run(out, names[[fam]], funs[[fam]], args)
  }
  if (!"nig" %in% mixed) out$fits[nig_name] <- NULL
}

families_run <- function(out, name, fun, args) {
  got <- families_try(fun, args)
  out$progress(name)
  if (length(got$warnings) > 0L) out$warnings[[name]] <- got$warnings
  if (!is.null(got$error)) out$errors[[name]] <- got$error
  out$fits[name] <- list(got$fit)
  got$fit
}

# One fit, its warnings collected and its error (a ghmix condition) caught.
families_try <- function(fun, args) {
  warnings <- character()
  fit <- tryCatch(
    withCallingHandlers(
      do.call(fun, args),
      warning = function(w) {
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    ),
    ghmix_error = function(e) e
  )
  if (inherits(fit, "error")) {
    return(list(fit = NULL, warnings = warnings,
                error = conditionMessage(fit)))
  }
  list(fit = fit, warnings = warnings, error = NULL)
}

families_table <- function(fits) {
  row <- function(name) {
    f <- fits[[name]]
    if (is.null(f)) {
      return(data.frame(model = name, family = NA_character_,
                        symmetric = NA, loglik = NA_real_, df = NA_integer_,
                        AIC = NA_real_, BIC = NA_real_, converged = FALSE))
    }
    ll <- stats::logLik(f)
    data.frame(
      model = name, family = f$family, symmetric = f$symmetric,
      loglik = f$loglik, df = as.integer(f$df), AIC = stats::AIC(ll),
      BIC = stats::BIC(ll), converged = isTRUE(f$converged)
    )
  }
  do.call(rbind, lapply(names(fits), row))
}

#' @export
print.ghmix_families <- function(x, digits = 6L, ...) {
  cat(sprintf("GH-family fits ranked by %s (n = %d):\n\n", x$criterion,
              x$best$nobs))
  tab <- x$table
  for (nm in c("loglik", "AIC", "BIC")) tab[[nm]] <- signif(tab[[nm]], digits)
  print(tab, row.names = FALSE)
  cat(sprintf("\nBest by %s: %s\n", x$criterion, x$table$model[[1L]]))
  if (length(x$warnings) > 0L) {
    cat(sprintf("Fits with warnings (see $warnings): %s\n",
                paste(names(x$warnings), collapse = ", ")))
  }
  if (length(x$errors) > 0L) {
    cat(sprintf("Fits that failed (see $errors): %s\n",
                paste(names(x$errors), collapse = ", ")))
  }
  invisible(x)
}

#' Likelihood-ratio tests between nested GH-family fits
#'
#' Ranks the fits by their degrees of freedom and tests each against the
#' next: the statistic \eqn{2(\ell_1 - \ell_0)} against the chi-square with
#' the difference of the degrees of freedom (Wilks 1938). Fits must be of
#' the same data (same `nobs`) and nested: a symmetric fit in the
#' asymmetric one of its family, NIG and fixed-p GH fits (hyperbolic) in
#' GH, VG and skew-t in GH, fits with fixed `mu` in those without, and the
#' Gaussian in every member. Where the smaller model lies on the boundary
#' of the larger one's parameter space (VG: \eqn{b = 0}, skew-t:
#' \eqn{a = 0}, Gaussian: \eqn{a, b \to \infty}), the chi-square reference
#' is only approximate and conservative (Self and Liang 1987, JASA 82,
#' 605-610: the law is a mixture of chi-squares of fewer degrees of
#' freedom), and `anova()` warns (class `ghmix_warning_boundary`).
#'
#' @param object,... Fits from the ghmix fitters (at least two in all).
#' @return An object of class `c("anova", "data.frame")`: one row per fit
#'   (named by the model) with `Df`, `logLik`, `AIC`, `BIC`, `Chisq`,
#'   `Chi Df` and `Pr(>Chisq)`.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))[, "DAX"]
#' anova(fit_nig(r, symmetric = TRUE), fit_nig(r), fit_gh(r))
anova.ghmix_fit <- function(object, ...) {
  call <- sys.call()
  fits <- c(list(object), list(...))
  if (length(fits) < 2L || !all(vapply(fits, fit_is_model, TRUE))) {
    abort_argument("anova() needs at least two ghmix fits.", call)
  }
  if (length(unique(vapply(fits, function(f) f$nobs, 0))) != 1L) {
    abort_argument("The fits must be of the same data (same nobs).", call)
  }
  fits <- fits[order(vapply(fits, function(f) f$df, 0))]
  kinds <- vapply(seq_along(fits)[-1L], function(i) {
    fit_nesting(fits[[i - 1L]], fits[[i]])
  }, "")
  if (anyNA(kinds)) {
    i <- which(is.na(kinds))[[1L]]
    abort_argument(
      sprintf("The fits are not nested: %s is not a special case of %s.",
              fit_name(fits[[i]]), fit_name(fits[[i + 1L]])),
      call
    )
  }
  if (any(kinds == "boundary")) {
    ghmix_warn(
      paste(
        "a smaller model lies on the boundary of the larger one's parameter",
        "space (VG, skew-t or Gaussian in GH); the chi-square p-value is",
        "approximate and conservative"
      ),
      class = "ghmix_warning_boundary", call = call
    )
  }
  anova_table(fits)
}

#' @export
anova.ghmix_fit_gaussian <- anova.ghmix_fit

fit_is_model <- function(f) {
  inherits(f, c("ghmix_fit", "ghmix_fit_gaussian"))
}

fit_name <- function(f) {
  if (identical(f$family, "gaussian")) "Gaussian" else fit_label(f)
}

anova_table <- function(fits) {
  ll <- vapply(fits, function(f) f$loglik, 0)
  df <- vapply(fits, function(f) as.double(f$df), 0)
  n <- fits[[1L]]$nobs
  chisq <- c(NA, 2 * diff(ll))
  chi_df <- c(NA, diff(df))
  pval <- stats::pchisq(chisq, chi_df, lower.tail = FALSE)
  pval[!is.na(chi_df) & chi_df == 0] <- NA
  tab <- data.frame(
    Df = df, logLik = ll,
    AIC = -2 * ll + 2 * df, BIC = -2 * ll + log(n) * df, Chisq = chisq,
    `Chi Df` = chi_df, `Pr(>Chisq)` = pval, check.names = FALSE,
    row.names = make.unique(vapply(fits, fit_name, ""))
  )
  structure(tab, heading = "Likelihood-ratio tests of nested GH-family fits\n",
            class = c("anova", "data.frame"))
}

# "interior" or "boundary" where `small` is a special case of `big`, NA
# where it is not.
fit_nesting <- function(small, big) {
  ks <- fit_key(small)
  kb <- fit_key(big)
  if (!fit_nesting_location(ks, kb) ||
        (kb$family == "gaussian" && ks$family != "gaussian")) {
    return(NA_character_)
  }
  if (kb$family == "gaussian") {
    return("interior")
  }
  if (ks$family == "gaussian") {
    return("boundary")
  }
  fit_nesting_mixing(ks, kb)
}

# gamma and mu: those held in the larger fit are held in the smaller (and
# a, b and a nonzero gamma, held in the gauge E[Y] = 1, at the same values).
fit_nesting_location <- function(ks, kb) {
  (ks$symmetric || !kb$symmetric) &&
    (is.null(kb$mu) || identical(kb$mu, ks$mu)) &&
    all(vapply(names(kb$held), function(nm) {
      identical(kb$held[[nm]], ks$held[[nm]])
    }, TRUE))
}

# The nesting of the mixing laws: the same family (p as free or the same),
# NIG or a fixed p in GH (interior), VG or skew-t in GH (boundary).
fit_nesting_mixing <- function(ks, kb) {
  same_p <- is.na(kb$p) || identical(kb$p, ks$p)
  if (ks$family == kb$family || (kb$family == "gh" && ks$family == "nig")) {
    return(if (same_p) "interior" else NA_character_)
  }
  if (kb$family == "gh" && is.na(kb$p)) {
    return("boundary")
  }
  NA_character_
}

# The family, symmetry, p (NA when free) and fixed mu (NULL when free).
fit_key <- function(f) {
  p <- if (identical(f$family, "nig")) -0.5 else NA_real_
  if (!is.null(f$fixed$p)) p <- as.double(f$fixed$p)
  mu <- f$fixed$mu
  held <- f$fixed[intersect(c("a", "b", "gamma"), names(f$fixed))]
  if (fixed_gamma_zero(f$fixed)) held$gamma <- NULL
  list(family = f$family, symmetric = isTRUE(f$symmetric), p = p,
       mu = if (!is.null(mu)) as.double(mu), held = lapply(held, as.double))
}
