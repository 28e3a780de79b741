# S3 methods of the mixture fits (class c("ghmix_mixture_<family>",
# "ghmix_mixture")).

mixture_label <- function(x) {
  sprintf("%d-component %s mixture", x$G, fit_label(x))
}

#' Methods for GH mixture fits
#'
#' Fits with `components` other than 1 (see [fit_nig()]) are of class
#' `c("ghmix_mixture_<family>", "ghmix_mixture")`. `print()` shows the
#' proportions and each component's parameters, the log-likelihood and
#' criteria, and the table of criteria when several numbers of components
#' were compared. `summary()` gives per-component parameter tables with
#' standard errors from `vcov()`. `vcov()` is the asymptotic covariance of
#' all the estimates from the observed information (its score analytic by
#' Fisher's identity, its Jacobian by central differences: about \eqn{2k}
#' E-steps for \eqn{k} free parameters), by the delta method for each
#' component's parameters as reported (data units, the fit's gauge, named
#' `"component_k:mu[name]"` etc. as [vcov.ghmix_fit()] names them) and
#' the proportions (`"proportion[k]"`); like one distribution's, it has
#' the rank of the free parameters (the gauges and the sum of the
#' proportions tie some together). For a mixture of factor members
#' (`factors`) each component's parameters are those of a factor fit's
#' `vcov()` (`"component_k:F[name,Fj]"`, `"component_k:D[name]"`), under
#' its rotation's constraints as well. Of a fit of chunked data the
#' E-steps of the information read the chunks again (here, or on the
#' workers of `cluster`: a `parallel` cluster or `"future"`), and
#' `cluster` sends the E-steps of any fit to the workers, for full and
#' factor members alike: the same matrix as from the rows in memory, up to
#' rounding. Where the information is not positive definite (or a GH
#' component is at a = 0 or b = 0) it is all `NA` with a warning of class
#' `ghmix_warning_vcov`, which also warns for a fit
#' that did not converge. `coef()` gives one component's parameters in any
#' parametrisation of [coef.ghmix_fit()] (`component = k`), or all of them
#' with the proportions. `logLik()` carries `df` and `nobs`, so
#' [stats::AIC()] and [stats::BIC()] work. `predict()` gives the membership
#' probabilities, the MAP class or the mixture density at new rows (of a
#' fit of chunked data, at the fitted rows: its chunks read again);
#' `fitted()` the membership probabilities of the rows fitted.
#' `simulate()` draws data sets of the fitted size with the component of
#' each row as attribute `"component"`. `update()` without `newdata`
#' re-evaluates the fit's call with the arguments given, as
#' [stats::update()] does; with `newdata` it is an error (class
#' `ghmix_error_argument`): online EM, which continues a fit over new rows
#' ([update.ghmix_fit()]), fits one distribution, so a mixture is refitted
#' on all the rows (with `start = fit` to start from it).
#'
#' @param x,object A mixture fit.
#' @param digits Significant digits to show.
#' @param component `NULL` (all components) or the number of a component.
#' @param parametrization As for [coef.ghmix_fit()].
#' @param newdata Rows as for [predict.ghmix_fit()]; `NULL`: the rows
#'   fitted.
#' @param type `"membership"` (an n x G matrix), `"class"` (the component
#'   of highest membership) or `"density"` (the mixture density).
#' @param threads Threads for the per-row computations.
#' @param cluster Where the E-steps of `vcov()` run, as for
#'   [vcov.ghmix_fit()].
#' @param nsim,seed As for [simulate.ghmix_fit()].
#' @param ... `coef()` with `component`: passed to [coef.ghmix_fit()]
#'   (`sigma = TRUE` adds a factor component's \eqn{\Sigma}); otherwise not
#'   used.
#' @return `print()`: `x`, invisibly. `summary()`: an object of class
#'   `"summary.ghmix_mixture"`. `coef()`: a list. `logLik()`: a `"logLik"`
#'   object. `predict()`, `fitted()`: a matrix or vector. `simulate()`: as
#'   [simulate.ghmix_fit()], each data set with attribute `"component"`.
#'   `update()` without `newdata`: the refitted mixture.
#' @name ghmix_mixture
#' @family fitting
#' @examples
#' fit <- fit_nig(faithful, components = 2)
#' fit
#' coef(fit, component = 1, parametrization = "ghyp")
#' table(predict(fit, type = "class"))
NULL

#' @rdname ghmix_mixture
#' @export
print.ghmix_mixture <- function(x, digits = max(3L, getOption("digits") - 3L),
                                ...) {
  check_digits(digits, sys.call())
  cat(sprintf("<ghmix mixture> %s, d = %d, %s; gauge %s\n",
              mixture_label(x), x$d, fit_n_label(x), fit_gauge_label(x$gauge)))
  cat("\n")
  print(signif(mixture_table(x), digits))
  cat(sprintf(
    "\nLog-likelihood %s (df = %d); AIC %s, BIC %s, ICL %s\n",
    format(x$loglik, digits = max(digits, 8L)), as.integer(x$df),
    format(x$AIC, digits = max(digits, 8L)),
    format(x$BIC, digits = max(digits, 8L)),
    format(x$ICL, digits = max(digits, 8L))
  ))
  cat(mixture_status_line(x), "\n", sep = "")
  mixture_print_extra(x, digits)
  invisible(x)
}

# One column per component: proportion, mu, gamma, the diagonal of Sigma
# (its first 8 coordinates) and p, a, b.
mixture_table <- function(x) {
  show <- seq_len(min(x$d, 8L))
  cols <- lapply(seq_len(x$G), function(k) {
    par <- x$components[[k]]
    c(proportion = x$proportions[[k]],
      stats::setNames(par$mu[show], paste0("mu[", names(par$mu)[show], "]")),
      stats::setNames(par$gamma[show],
                      paste0("gamma[", names(par$mu)[show], "]")),
      stats::setNames(cov_of(par)$sigma_diag(par)[show],
                      paste0("Sigma[", names(par$mu)[show], ",",
                             names(par$mu)[show], "]")),
      p = par$p, a = par$a, b = par$b)
  })
  out <- do.call(cbind, cols)
  colnames(out) <- paste("component", seq_len(x$G))
  out
}

mixture_status_line <- function(x) {
  sprintf(
    "%s after %d iteration%s from the %s start%s",
    if (isTRUE(x$converged)) "Converged" else "Did not converge",
    x$iterations, plural(seq_len(x$iterations)), x$start,
    if (isTRUE(x$converged)) "." else paste0(": ", x$message, ".")
  )
}

mixture_print_extra <- function(x, digits) {
  if (!is.null(x$factors)) {
    cat(sprintf(
      "Each Sigma_k = F_k F_k' + diag(D_k) with %s (see coef(, component)).\n",
      mixture_factor_label(x$factors)
    ))
  }
  if (!is.null(x$shrink)) {
    cat(shrink_line(x), "\n", sep = "")
  }
  mixture_limits_lines(x)
  if (length(x$restarts) > 0L) {
    cat(sprintf(
      "The EM from the best start lost a component; tried again from: %s.\n",
      paste(x$restarts, collapse = ", ")
    ))
  }
  if (!is.null(x$dropped)) {
    cat(sprintf("Dropped %d degenerate component%s (see $dropped).\n",
                nrow(x$dropped), plural(seq_len(nrow(x$dropped)))))
  }
  if (!is.null(x$criteria)) {
    cat(sprintf("\nSelected G = %d by %s (the lowest) among G = %s:\n",
                x$G, toupper(x$criterion),
                paste(x$criteria$asked, collapse = ", ")))
    print(x$criteria, digits = max(digits, 8L), row.names = FALSE)
  }
}

#' @rdname ghmix_mixture
#' @export
summary.ghmix_mixture <- function(object, ...) {
  tab <- mixture_summary_tables(object)
  structure(
    list(proportions = object$proportions, proportions_se = tab$prop_se,
         has_se = tab$has_se, coefficients = tab$tables,
         label = mixture_label(object), loglik = object$loglik,
         df = object$df, nobs = object$nobs, n_label = fit_n_label(object),
         AIC = object$AIC,
         BIC = object$BIC, ICL = object$ICL,
         sizes = tabulate(object$classification, object$G),
         status = mixture_status_line(object), criteria = object$criteria,
         criterion = object$criterion, G = object$G,
         shrink = object$shrink, objective = object$objective,
         restarts = object$restarts, factors = object$factors,
         se_note = tab$note, limits = object$limits,
         direct = object$direct),
    class = "summary.ghmix_mixture"
  )
}

# Per component its estimates with standard errors from vcov(), and the
# proportions' standard errors: none at a posterior mode (`shrink`), nor
# for factor mixtures with more parameters than vcov() forms.
mixture_summary_tables <- function(object) {
  k <- length(names_all(object)) - 1L
  big <- !is.null(object$factors) && k > factor_vcov_max_k
  se <- if (is.null(object$shrink) && !big) {
    sqrt(pmax(diag(stats::vcov(object)), 0))
  } else {
    rep(NA_real_, k + 1L)
  }
  size <- length(se) %/% object$G - 1L
  tables <- lapply(seq_len(object$G), function(g) {
    est <- pack_nat(object$components[[g]], object$family, object$symmetric)
    out <- cbind(Estimate = est,
                 `Std. Error` = unname(se[(g - 1L) * size + seq_len(size)]))
    rownames(out) <- names_nat(colnames(object$data), object$family,
                               object$symmetric, object$factors)
    out
  })
  list(tables = tables, has_se = !all(is.na(se)),
       prop_se = unname(se[object$G * size + seq_len(object$G)]),
       note = if (big) {
         sprintf("vcov() is formed for at most %d parameters; this fit has %d",
                 factor_vcov_max_k, k)
       })
}

#' @rdname ghmix_mixture
#' @export
print.summary.ghmix_mixture <- function(x,
                                        digits = max(3L,
                                                     getOption("digits") - 3L),
                                        ...) {
  cat(sprintf("%s, %s\n", x$label, x$n_label))
  for (k in seq_along(x$coefficients)) {
    cat(sprintf(
      "\nComponent %d: proportion %s (standard error %s), %d rows classified\n",
      k, format(x$proportions[[k]], digits = digits),
      format(x$proportions_se[[k]], digits = digits), x$sizes[[k]]
    ))
    print(signif(x$coefficients[[k]], digits))
  }
  if (!is.null(x$se_note)) {
    cat(sprintf("(No standard errors: %s.)\n", x$se_note))
  } else if (!x$has_se && is.null(x$shrink)) {
    cat("(No standard errors: see the warning of vcov().)\n")
  }
  cat(sprintf(
    "\nLog-likelihood %s (df = %d); AIC %s, BIC %s, ICL %s\n%s\n",
    format(x$loglik, digits = max(digits, 8L)), as.integer(x$df),
    format(x$AIC, digits = max(digits, 8L)),
    format(x$BIC, digits = max(digits, 8L)),
    format(x$ICL, digits = max(digits, 8L)), x$status
  ))
  mixture_print_extra(x, digits)
  invisible(x)
}

#' @rdname ghmix_mixture
#' @export
coef.ghmix_mixture <- function(object, component = NULL,
                               parametrization = c("ghmix", "ghyp",
                                                   "alpha.bar", "alpha"),
                               ...) {
  if (is.null(component)) {
    return(list(
      proportions = object$proportions,
      components = lapply(seq_len(object$G), function(k) {
        stats::coef(object, k, parametrization)
      })
    ))
  }
  if (!is.numeric(component) || length(component) != 1L ||
        !isTRUE(component %in% seq_len(object$G))) {
    abort_argument(
      sprintf("`component` must be one of 1 to %d.", object$G), sys.call()
    )
  }
  stats::coef(mixture_component_fit(object, component),
              parametrization = parametrization, ...)
}

# Component k as a fit of one distribution (for coef()).
mixture_component_fit <- function(object, k) {
  structure(
    list(parameters = object$components[[k]], family = object$family,
         symmetric = object$symmetric, gauge = object$gauge, d = object$d,
         scaling = NULL, factors = object$factors),
    class = c(paste0("ghmix_fit_", object$family), "ghmix_fit")
  )
}

#' @rdname ghmix_mixture
#' @export
logLik.ghmix_mixture <- function(object, ...) {
  structure(object$loglik, df = object$df, nobs = object$nobs,
            class = "logLik")
}

#' @rdname ghmix_mixture
#' @export
nobs.ghmix_mixture <- function(object, ...) object$nobs

#' @rdname ghmix_mixture
#' @export
predict.ghmix_mixture <- function(object, newdata = NULL,
                                  type = c("membership", "class", "density"),
                                  threads = ghmix_threads(), ...) {
  call <- sys.call()
  type <- check_choice(type, c("membership", "class", "density"), "type",
                       call)
  threads <- check_threads(threads, call = call)
  if (is.null(newdata) && inherits(object$data, "ghmix_data")) {
    return(chunk_rows(object, object$data, function(x) {
      mixture_predict_rows(object, x, type, threads)
    }))
  }
  x <- if (is.null(newdata)) {
    object$data
  } else {
    fit_newdata(newdata, colnames(object$data), call)
  }
  mixture_predict_rows(object, x, type, threads)
}

# (a fit with a scaling, R/fit_scaling.R: the rows in its units, the
# density less sum(log scale))
mixture_predict_rows <- function(object, x, type, threads) {
  ok <- rowSums(!is.finite(x)) == 0L
  z <- matrix(NA_real_, nrow(x), object$G,
              dimnames = list(rownames(x), colnames(object$z)))
  logf <- rep(NA_real_, nrow(x))
  sc <- object$scaling
  pars <- if (is.null(sc)) object$components else sc$parameters
  if (any(ok)) {
    rows <- x[ok, , drop = FALSE]
    if (!is.null(sc)) rows <- scaling_apply(rows, sc)
    mr <- mixture_rows_r(rows, pars, object$proportions, threads)
    z[ok, ] <- mr$z
    logf[ok] <- mr$logf
    if (!is.null(sc)) logf[ok] <- logf[ok] - sum(log(sc$scale))
  }
  switch(type,
    membership = z,
    class = stats::setNames(max.col(z, "first"), rownames(x)),
    density = stats::setNames(exp(logf), rownames(x))
  )
}

#' @rdname ghmix_mixture
#' @export
fitted.ghmix_mixture <- function(object, ...) object$z

#' @rdname ghmix_mixture
#' @export
simulate.ghmix_mixture <- function(object, nsim = 1, seed = NULL, ...) {
  if (!is_count(nsim)) {
    abort_argument("`nsim` must be a positive whole number.", sys.call())
  }
  with_sim_seed(seed, function() mixture_simulate(object, nsim))
}

mixture_simulate <- function(object, nsim) {
  sims <- lapply(seq_len(nsim), function(i) {
    mixture_draw(fit_nrow(object), object, colnames(object$data))
  })
  names(sims) <- paste0("sim_", seq_len(nsim))
  if (object$d > 1L) {
    return(sims)
  }
  structure(as.data.frame(lapply(sims, drop)),
            component = vapply(sims, attr, integer(fit_nrow(object)),
                               "component"))
}

# n draws of the mixture: the components by their proportions, then each
# component's rows.
# (a fit with a scaling: drawn in its units, then center + scale z)
mixture_draw <- function(n, object, vars) {
  lab <- sample.int(object$G, n, replace = TRUE, prob = object$proportions)
  x <- matrix(0, n, object$d, dimnames = list(NULL, vars))
  sc <- object$scaling
  pars <- if (is.null(sc)) object$components else sc$parameters
  for (k in seq_len(object$G)) {
    rows <- which(lab == k)
    x[rows, ] <- fit_draw(length(rows), pars[[k]], vars)
  }
  if (!is.null(sc)) {
    x[] <- rep(sc$center, each = n) + rep(sc$scale, each = n) * x
  }
  attr(x, "component") <- lab
  x
}

#' @rdname ghmix_mixture
#' @export
update.ghmix_mixture <- function(object, newdata, ...) {
  if (missing(newdata)) {
    return(NextMethod())
  }
  abort_argument(
    sprintf(
      paste(
        "update() with `newdata` continues a fit of one distribution by",
        "online EM; a mixture of %d components is refitted on all the rows:",
        "fit_%s(rbind(<old rows>, newdata), components = %d, start = fit)."
      ),
      object$G, object$family, object$G
    ),
    sys.call()
  )
}
