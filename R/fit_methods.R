# S3 methods of the fit objects (class c("ghmix_fit_<family>", "ghmix_fit")).

fit_label <- function(x) {
  sprintf(
    "%s%s", fit_family_label(x),
    if (isTRUE(x$symmetric)) " (symmetric)" else ""
  )
}

fit_gauge_label <- function(gauge) {
  if (identical(gauge, "det")) "det(Sigma) = 1" else "E[Y] = 1"
}

fit_status_line <- function(x) {
  if (!is.null(x$online)) {
    return(online_status_line(x))
  }
  t_total <- x$timings[["total"]]
  sprintf(
    "%s after %d iteration%s (%d E-steps, %.3g s)%s",
    if (isTRUE(x$converged)) "Converged" else "Did not converge",
    x$iterations, plural(seq_len(x$iterations)),
    as.integer(x$timings[["esteps"]]), t_total,
    if (isTRUE(x$converged)) "." else paste0(": ", x$message, ".")
  )
}

fit_ties_line <- function(x) {
  if (is.null(x$ties) || x$ties == 0L) {
    return(NULL)
  }
  sprintf(
    "Note: %s row%s of the data repeat%s another row (ties%s).",
    format(x$ties, digits = 7L, scientific = FALSE),
    if (x$ties == 1) "" else "s", if (x$ties == 1) "s" else "",
    if (isTRUE(x$weighted)) ", counted by weight" else ""
  )
}

# The rows fitted (fits made before `nrow` was kept: nobs).
fit_nrow <- function(x) if (is.null(x$nrow)) x$nobs else x$nrow

# "n = 1234", or for a weighted fit its rows and the sum of the weights.
fit_n_label <- function(x) {
  if (!isTRUE(x$weighted)) {
    return(sprintf("n = %d", as.integer(fit_nrow(x))))
  }
  sprintf("n = %.0f rows (weighted: sum of weights %s)", fit_nrow(x),
          format(x$nobs, digits = 10L))
}

#' Print a GH-family fit
#'
#' Shows the family, the dimension and number of observations, the
#' parameters (for \eqn{d = 1} also the scale \eqn{\sqrt{\Sigma}}), the
#' log-likelihood with AIC and BIC, and the convergence status.
#'
#' @param x A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param digits Significant digits to show.
#' @param ... Not used.
#' @return `x`, invisibly.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit_nig(r[, c("DAX", "SMI")])
print.ghmix_fit <- function(x, digits = max(3L, getOption("digits") - 3L),
                            ...) {
  check_digits(digits, sys.call())
  par <- x$parameters
  d <- x$d
  cat(sprintf(
    "<ghmix fit> %s distribution, d = %d, %s; gauge %s\n",
    fit_label(x), d, fit_n_label(x), fit_gauge_label(x$gauge)
  ))
  loc <- rbind(mu = par$mu, gamma = par$gamma)
  colnames(loc) <- names(par$mu)
  show <- seq_len(min(d, 8L))
  cat("\n")
  print(signif(loc[, show, drop = FALSE], digits))
  if (d > length(show)) {
    cat(sprintf("  ... and %d more columns\n", d - length(show)))
  }
  cov_get(x$factors)$print_sigma(x, digits)
  cat(sprintf(
    "mixing GIG: p = %s, a = %s, b = %s\n",
    format(par$p, digits = digits), format(par$a, digits = digits),
    format(par$b, digits = digits)
  ))
  ll <- stats::logLik(x)
  cat(sprintf(
    "\nLog-likelihood %s (df = %d); AIC %s, BIC %s\n",
    format(x$loglik, digits = max(digits, 8L)), as.integer(x$df),
    format(stats::AIC(ll), digits = max(digits, 8L)),
    format(stats::BIC(ll), digits = max(digits, 8L))
  ))
  if (!is.null(x$shrink)) cat(shrink_line(x), "\n", sep = "")
  cat(fit_status_line(x), "\n", sep = "")
  ties <- fit_ties_line(x)
  if (!is.null(ties)) cat(ties, "\n", sep = "")
  invisible(x)
}

#' Summarise a GH-family fit
#'
#' The estimates with standard errors from the observed information (see
#' [vcov.ghmix_fit()], which costs about \eqn{2k} E-steps for \eqn{k}
#' parameters), the log-likelihood, information criteria, convergence,
#' gauge and timings.
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param x A `"summary.ghmix_fit"` object.
#' @param digits Significant digits to show.
#' @param ... Not used.
#' @return `summary()`: an object of class `"summary.ghmix_fit"`, a list with
#'   `coefficients` (a matrix with columns `Estimate` and `Std. Error`, one
#'   row per free parameter in the fit's gauge, named as in
#'   [vcov.ghmix_fit()]), `family`, `label`, `symmetric`, `d`, `loglik`,
#'   `aic`, `bic`, `df`, `nobs`, `nrow`, `weighted`, `iterations`,
#'   `converged`, `message`,
#'   `gauge`, `timings`, `backend`, `threads`, `ties` and `call`. Its
#'   `print()` method returns it invisibly.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' summary(fit_nig(r[, "DAX"]))
summary.ghmix_fit <- function(object, ...) {
  coefs <- if (is.null(object$factors)) {
    cov <- if (is.null(object$shrink)) stats::vcov(object) else
      shrink_vcov_na(object)
    est <- pack_nat(object$parameters, object$family, object$symmetric)
    se <- sqrt(pmax(diag(cov), 0))
    structure(cbind(Estimate = est, `Std. Error` = se),
              dimnames = list(rownames(cov), c("Estimate", "Std. Error")))
  } else {
    factor_summary_coefs(object)
  }
  ll <- stats::logLik(object)
  structure(
    list(
      coefficients = coefs, family = object$family, label = fit_label(object),
      symmetric = object$symmetric, d = object$d, loglik = object$loglik,
      aic = stats::AIC(ll), bic = stats::BIC(ll), df = object$df,
      nobs = object$nobs, nrow = fit_nrow(object),
      weighted = isTRUE(object$weighted), iterations = object$iterations,
      converged = object$converged, message = object$message,
      gauge = object$gauge, timings = object$timings,
      backend = object$backend, threads = object$threads,
      ties = object$ties, call = object$call,
      online = object$online["schedule"], shrink = object$shrink,
      objective = object$objective, factors = object$factors
    ),
    class = "summary.ghmix_fit"
  )
}

#' @rdname summary.ghmix_fit
#' @export
print.summary.ghmix_fit <- function(x,
                                    digits = max(3L, getOption("digits") - 3L),
                                    ...) {
  check_digits(digits, sys.call())
  cat(sprintf(
    "%s distribution fitted by EM, d = %d, %s\n", x$label, x$d,
    fit_n_label(x)
  ))
  if (!is.null(x$call)) {
    cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n", sep = "")
  }
  cov_get(x$factors)$summary_header(x)
  print(signif(x$coefficients, digits))
  cat(sprintf(
    "\nLog-likelihood %s, df = %d, AIC %s, BIC %s\n",
    format(x$loglik, digits = max(digits, 8L)), as.integer(x$df),
    format(x$aic, digits = max(digits, 8L)),
    format(x$bic, digits = max(digits, 8L))
  ))
  if (!is.null(x$shrink)) cat(shrink_line(x), "\n", sep = "")
  cat(fit_status_line(x), "\n", sep = "")
  tm <- x$timings
  cat(sprintf(
    "Timings: total %.3g s, E-steps %.3g s, M-steps %.3g s; %s, %d thread%s\n",
    tm[["total"]], tm[["estep"]], tm[["mstep"]], x$backend,
    as.integer(x$threads), plural(seq_len(x$threads))
  ))
  if (identical(x$backend, "cuda") && tm[["esteps"]] > 0) {
    cat(sprintf(
      "Kernel launches: %d (%.3g per E-step)\n",
      as.integer(tm[["launches"]]), tm[["launches"]] / tm[["esteps"]]
    ))
  }
  ties <- fit_ties_line(x)
  if (!is.null(ties)) cat(ties, "\n", sep = "")
  invisible(x)
}

#' Log-likelihood, number of observations, posterior moments of a fit
#'
#' `logLik()` returns the maximised log-likelihood with attributes `df` (the
#' number of free parameters) and `nobs`, so that [stats::AIC()] and
#' [stats::BIC()] work; `nobs()` the number of rows fitted (after any
#' `na.rm` dropping), or for a fit with `weights` the sum of the weights
#' (frequency weights: the observations the rows stand for; the rows are
#' `object$nrow`); `fitted()` the posterior moments of the mixing
#' variable for each row of the data: \eqn{E[Y|x]}, \eqn{E[1/Y|x]} and
#' \eqn{E[\log Y|x]} (in the fit's gauge; large \eqn{E[Y|x]} flag rows in
#' the tails).
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param ... Not used.
#' @return `logLik()`: an object of class `"logLik"`. `nobs()`: an integer
#'   (a number for a weighted fit).
#'   `fitted()`: an \eqn{n \times 3}{n x 3} matrix with columns `"E[Y|x]"`,
#'   `"E[1/Y|x]"`, `"E[log Y|x]"` (one row per fitted row; rows dropped by
#'   `na.rm` are not included).
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' logLik(fit)
#' AIC(fit)
#' BIC(fit)
#' nobs(fit)
#' head(fitted(fit))
logLik.ghmix_fit <- function(object, ...) {
  structure(
    object$loglik, df = object$df, nobs = object$nobs, class = "logLik"
  )
}

#' @rdname logLik.ghmix_fit
#' @importFrom stats nobs
#' @export
nobs.ghmix_fit <- function(object, ...) {
  object$nobs
}

#' @rdname logLik.ghmix_fit
#' @param backend,device,threads Where `fitted()` computes the rows (see
#'   [predict.ghmix_fit()]): `"cpu"` by default, whatever backend the fit
#'   was made with; `backend = "cuda"` on a GPU.
#' @export
fitted.ghmix_fit <- function(object, backend = c("cpu", "cuda"), device = 0L,
                             threads = ghmix_threads(), ...) {
  fit_rows(object, object$data, "moments", backend, device, threads,
           sys.call())
}

#' Densities and posterior moments of a fitted distribution at new points
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param newdata Points: a numeric vector (\eqn{d = 1}), matrix or data
#'   frame with \eqn{d} columns (matched by name when all the fit's column
#'   names are present and neither set of names repeats a name; otherwise by
#'   position). `NULL` (default): the data fitted. Rows with missing or
#'   infinite values give `NA`.
#' @param type `"density"`, `"log_density"`, or `"moments"` (the posterior
#'   moments \eqn{E[Y|x]}, \eqn{E[1/Y|x]}, \eqn{E[\log Y|x]} of the mixing
#'   variable, as [fitted()][fitted.ghmix_fit()]).
#' @inheritParams ghmix-params
#' @param ... Not used.
#' @details `backend = "cuda"` computes the rows on a GPU, one thread per
#'   row (its triangular solve, or a factor fit's Woodbury forms, then the
#'   density and the moments), in one kernel launch; the results agree
#'   with the CPU's to rounding. The
#'   default is `"cpu"` whatever backend the fit was made with: a fit made
#'   with `backend = "cuda"` does not move `predict()` or `fitted()` to the
#'   GPU unless asked.
#' @return A numeric vector with one value per row for the densities, an
#'   \eqn{n \times 3}{n x 3} matrix for the moments.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' predict(fit, c(-0.02, 0, 0.02))
#' integrate(function(x) predict(fit, x), -Inf, Inf)
#' predict(fit, c(-0.05, 0.05), type = "moments")
predict.ghmix_fit <- function(object, newdata = NULL,
                              type = c("density", "log_density", "moments"),
                              backend = c("cpu", "cuda"), device = 0L,
                              threads = ghmix_threads(), ...) {
  type <- check_choice(type, c("density", "log_density", "moments"), "type",
                       sys.call())
  x <- if (is.null(newdata)) {
    object$data
  } else {
    fit_newdata(newdata, colnames(object$data), sys.call())
  }
  fit_rows(object, x, type, backend, device, threads, sys.call())
}

fit_newdata <- function(newdata, vars, call) {
  if (is.null(dim(newdata)) && length(vars) > 1L &&
        length(newdata) == length(vars)) {
    # one point of a multivariate fit
    newdata <- matrix(newdata, nrow = 1L, dimnames = list(NULL, names(newdata)))
  }
  had_names <- !is.null(colnames(newdata))
  x <- mix_as_matrix(newdata, call, "newdata")
  if (ncol(x) != length(vars)) {
    abort_argument(
      sprintf(
        "`newdata` must have %d column%s, like the data fitted; it has %d.",
        length(vars), plural(vars), ncol(x)
      ),
      call
    )
  }
  if (had_names && fit_names_match(vars, colnames(x))) {
    x <- x[, vars, drop = FALSE]
  }
  colnames(x) <- vars
  x
}

# Columns are matched by name only where the names say which is which.
fit_names_match <- function(vars, names) {
  !anyDuplicated(vars) && !anyDuplicated(names) && all(vars %in% names)
}

# Per-row results at the rows of x (NA for non-finite rows), on the
# backend asked for ("cpu" unless the caller says otherwise, never the fit's
# own behind the caller's back).
fit_rows <- function(object, x, type, backend, device, threads, call) {
  if (inherits(x, "ghmix_data")) {
    return(chunk_rows(object, x, function(chunk) {
      fit_rows(object, chunk, type, backend, device, threads, call)
    }))
  }
  device <- check_device(device, call)
  threads <- check_threads(threads, call = call)
  backend <- check_backend(backend, call, device)
  n <- nrow(x)
  ok <- rowSums(!is.finite(x)) == 0L
  col <- estep_row_columns()
  res <- matrix(NA_real_, n, length(col))
  sc <- object$scaling
  if (any(ok) && is.null(sc)) {
    res[ok, ] <- fit_rows_compute(object$parameters, x[ok, , drop = FALSE],
                                  backend, device, threads)
  } else if (any(ok)) {
    # a standardised fit: the rows in its units, the results back in x's
    z <- scaling_apply(x[ok, , drop = FALSE], sc)
    res[ok, ] <- scaling_rows(
      fit_rows_compute(sc$parameters, z, backend, device, threads), sc, col
    )
  }
  rn <- rownames(x)
  switch(type,
    density = stats::setNames(exp(res[, col[["loglik"]]]), rn),
    log_density = stats::setNames(res[, col[["loglik"]]], rn),
    moments = {
      out <- res[, col[c("y", "inv_y", "log_y")], drop = FALSE]
      dimnames(out) <- list(rn, c("E[Y|x]", "E[1/Y|x]", "E[log Y|x]"))
      out
    }
  )
}

# The E-step's per-row output (columns as estep_row_columns() says: log f,
# E[1/Y|x], E[Y|x], E[log Y|x]) at the finite rows of x: the E-step's rows
# on the CPU, the row kernel (one launch) on a GPU.
fit_rows_compute <- function(par, x, backend, device, threads) {
  cov_of(par)$rows(par, x, backend, device, threads)
}

#' Simulate data sets from a fitted GH-family distribution
#'
#' Draws `nsim` data sets of the fitted size from the fitted distribution
#' (\eqn{Y} by [rgig()], then \eqn{X = \mu + Y\gamma + \sqrt{Y}
#' \Sigma^{1/2}Z}), with R's random number generator as in
#' [stats::simulate()].
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param nsim Number of data sets.
#' @param seed `NULL` (use the current random number stream), or an integer
#'   passed to [set.seed()]; the generator's state is then restored
#'   afterwards, as in [stats::simulate()].
#' @param ... Not used.
#' @return For \eqn{d = 1}, a data frame with `nsim` columns `sim_1`, ...,
#'   of `nobs(object)` rows; for \eqn{d > 1}, a list of `nsim` matrices of
#'   `nobs(object)` rows and the data's columns (for a weighted fit the
#'   rows fitted, `object$nrow`: the weights are ignored). Either has an
#'   attribute `"seed"`: the state of the generator before the draws (or
#'   `seed` with the `RNGkind()` as attribute `kind`), as in
#'   [stats::simulate()].
#' @family fitting
#' @importFrom stats simulate
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' sims <- simulate(fit, nsim = 2, seed = 1)
#' sapply(sims, sd)
#' sd(r[, "DAX"])
simulate.ghmix_fit <- function(object, nsim = 1, seed = NULL, ...) {
  if (!is_count(nsim)) {
    abort_argument("`nsim` must be a positive whole number.", sys.call())
  }
  with_sim_seed(seed, function() fit_simulate(object, nsim))
}

# The draws of draw() under `seed` as stats::simulate() takes it (NULL: the
# current stream; otherwise set.seed(seed) and the generator's state
# restored afterwards), with the attribute "seed".
with_sim_seed <- function(seed, draw) {
  if (!exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
    stats::runif(1L)
  }
  if (is.null(seed)) {
    state <- get(".Random.seed", envir = globalenv())
  } else {
    saved <- get(".Random.seed", envir = globalenv())
    on.exit(assign(".Random.seed", saved, envir = globalenv()))
    set.seed(seed)
    state <- structure(seed, kind = as.list(RNGkind()))
  }
  out <- draw()
  attr(out, "seed") <- state
  out
}

fit_simulate <- function(object, nsim) {
  n <- fit_nrow(object)
  vars <- colnames(object$data)
  sc <- object$scaling
  sims <- lapply(seq_len(nsim), function(i) {
    if (is.null(sc)) {
      return(fit_draw(n, object$parameters, vars))
    }
    # a standardised fit: drawn in its units, x = c + s z
    z <- fit_draw(n, sc$parameters, vars)
    z * rep(sc$scale, each = n) + rep(sc$center, each = n)
  })
  names(sims) <- paste0("sim_", seq_len(nsim))
  if (object$d == 1L) as.data.frame(lapply(sims, drop)) else sims
}

# n draws of the mixture at par, an n x d matrix.
fit_draw <- function(n, par, vars) {
  x <- cov_draw(n, par)
  dimnames(x) <- list(NULL, vars)
  x
}
