# broom-style tidiers (the generics package's tidy(), glance(), augment())
# of every fit: one distribution (full, factor, online, Gaussian) and
# mixtures, on the parametrisation and the names of vcov().

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' Tidy summaries of GH-family fits (broom's tidy, glance, augment)
#'
#' Methods of the [generics][generics::tidy] `tidy()`, `glance()` and
#' `augment()` that the broom package and its users call, for every fit:
#' one distribution ([fit_nig()] and the other fitters, factor fits,
#' online fits, [fit_gaussian()]) and mixtures (`components`). ghmix
#' imports only the generics package; the results are tibbles where the
#' tibble package is installed, data frames otherwise.
#'
#' `tidy()` has one row per parameter, in the parametrisation of
#' [coef()][coef.ghmix_fit()] (`"ghmix"`, in the fit's gauge) and named as
#' [vcov()][vcov.ghmix_fit()] names them: `"mu[name]"`, `"gamma[name]"`,
#' `"Sigma[name1,name2]"` (the lower triangle), for a factor fit
#' `"F[name,Fk]"` and `"D[name]"`, and the mixing parameters the family
#' estimates (`"p"`, `"a"`, `"b"`). Columns: `term`, `estimate`,
#' `std.error` (from [vcov()][vcov.ghmix_fit()]: the observed information;
#' `NA` for a penalised fit, whose `vcov()` is an error, and for a
#' parameter held by `fixed`), `statistic` and `p.value` (the Wald
#' \eqn{z = } estimate / std.error and its two-sided normal p-value, for
#' the parameters whose value 0 is an interior point of the parameter
#' space and a hypothesis of interest: \eqn{\mu}, \eqn{\gamma} (0: the
#' symmetric law), the off-diagonal entries of \eqn{\Sigma}, the loadings
#' and the GH's `p`; `NA` for the others: scales, `a`, `b`, the `p` of
#' VG and skew-t, proportions) and with `conf.int = TRUE` `conf.low` and
#' `conf.high`, the Wald interval of [confint()][confint.ghmix_fit()]. For
#' a mixture, `component` gives the component (`term` without the
#' `"component_k:"` prefix of `vcov()`), and the proportions are the rows
#' with `term = "proportion"`.
#'
#' `glance()` has one row: `logLik`, `AIC`, `BIC`, `ICL` (the BIC plus
#' twice the entropy of the memberships; the BIC for one distribution),
#' `nobs`, `df` (the number of free parameters), `G` (1 for one
#' distribution), `family` (`"nig"`, `"gh"`, `"vg"`, `"skewt"` or
#' `"gaussian"`), `symmetric`, `converged` (`NA` for an online fit) and
#' `iterations` (online: the batches).
#'
#' `augment()` returns the rows with, for one distribution, `.density` (the
#' fitted density, [predict()][predict.ghmix_fit()]) and `.mahalanobis`
#' (the squared Mahalanobis-type distance \eqn{(x - \mu)'\Sigma^{-1}(x -
#' \mu)} in the fit's gauge, as [stats::mahalanobis()] gives it: under
#' the fitted law \eqn{\Sigma} is the covariance only up to the mixing
#' law's scale, so it ranks the rows rather than follows a chi-square);
#' for a mixture `.density` (the mixture's), `.class` (the component of
#' highest membership), `.uncertainty` (1 minus that membership), the
#' memberships `.prob_1`, ..., `.prob_G` and `.mahalanobis` to the
#' component of `.class`. The rows: `newdata` if given, else `data` (a
#' data frame or matrix holding the fit's columns, by name or, with as
#' many columns, by position; its other columns are kept), else the rows
#' fitted. Rows with missing values get `NA`. Row names, where the rows
#' have them, are the column `.rownames`. An online fit keeps no rows and
#' a fit of chunked data ([ghmix_data()]) keeps them out of memory:
#' `augment()` of those needs `data` or `newdata` (an error of class
#' `ghmix_error_online` or `ghmix_error_chunked` otherwise).
#'
#' @param x A fit: from [fit_nig()], [fit_gh()], [fit_vg()],
#'   [fit_skewt()], [fit_hyperbolic()], [fit_student()] (one distribution
#'   or a mixture) or [fit_gaussian()].
#' @param conf.int `TRUE` adds the Wald interval (`conf.low`, `conf.high`).
#' @param conf.level The level of the interval.
#' @param data,newdata Rows to augment (see Details).
#' @param ... Not used.
#' @return A tibble (or data frame).
#' @seealso [confint()][confint.ghmix_fit()], [vcov()][vcov.ghmix_fit()],
#'   [summary()][summary.ghmix_fit()].
#' @family fitting
#' @name ghmix_tidiers
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' tidy(fit, conf.int = TRUE)
#' glance(fit)
#' head(augment(fit))
#' # compare families in one table
#' fits <- list(NIG = fit, t = fit_student(r[, "DAX"]))
#' do.call(rbind, lapply(fits, glance))
#' mix <- fit_nig(faithful, components = 2)
#' tidy(mix)
#' table(augment(mix)$.class)
NULL

#' @rdname ghmix_tidiers
#' @export
tidy.ghmix_fit <- function(x, conf.int = FALSE, conf.level = 0.95, # nolint
                           ...) {
  call <- sys.call()
  check_flag(conf.int, "conf.int", call)
  check_level(conf.level, "conf.level", call)
  tab <- tidy_table(x)
  out <- data.frame(term = tab$term, stringsAsFactors = FALSE)
  if (!is.null(tab$component)) out$component <- tab$component
  out$estimate <- tab$estimate
  out$std.error <- tab$se
  out$statistic <- ifelse(tab$tested, tab$estimate / tab$se, NA_real_)
  out$p.value <- 2 * stats::pnorm(-abs(out$statistic))
  if (conf.int) {
    lim <- wald_limits(tab$estimate, tab$se, conf.level)
    out$conf.low <- lim[, 1L]
    out$conf.high <- lim[, 2L]
  }
  tidy_frame(out)
}

#' @rdname ghmix_tidiers
#' @export
tidy.ghmix_mixture <- tidy.ghmix_fit

#' @rdname ghmix_tidiers
#' @export
tidy.ghmix_fit_gaussian <- tidy.ghmix_fit

#' @rdname ghmix_tidiers
#' @export
glance.ghmix_fit <- function(x, ...) {
  ll <- stats::logLik(x)
  bic <- stats::BIC(ll)
  mixture <- inherits(x, "ghmix_mixture")
  tidy_frame(data.frame(
    logLik = as.double(ll), AIC = stats::AIC(ll), BIC = bic,
    ICL = if (mixture) x$ICL else bic, nobs = x$nobs,
    df = as.integer(x$df), G = if (mixture) as.integer(x$G) else 1L,
    family = x$family, symmetric = isTRUE(x$symmetric),
    converged = as.logical(x$converged),
    iterations = as.integer(x$iterations), stringsAsFactors = FALSE
  ))
}

#' @rdname ghmix_tidiers
#' @export
glance.ghmix_mixture <- glance.ghmix_fit

#' @rdname ghmix_tidiers
#' @export
glance.ghmix_fit_gaussian <- glance.ghmix_fit

#' @rdname ghmix_tidiers
#' @export
augment.ghmix_fit <- function(x, data = NULL, newdata = NULL, ...) {
  call <- sys.call()
  rows <- augment_rows(x, data, newdata, call)
  m <- rows$x
  out <- rows$frame
  if (inherits(x, "ghmix_mixture")) {
    z <- stats::predict(x, m, type = "membership")
    cls <- max.col(z, "first")
    cls[!stats::complete.cases(z)] <- NA_integer_
    out$.density <- unname(stats::predict(x, m, type = "density"))
    out$.class <- cls
    out$.uncertainty <- 1 - apply(z, 1L, max)
    for (k in seq_len(x$G)) out[[sprintf(".prob_%d", k)]] <- unname(z[, k])
    out$.mahalanobis <- augment_mixture_distance(x, m, cls)
  } else {
    out$.density <- unname(augment_density(x, m))
    out$.mahalanobis <- law_mahalanobis(m, x$parameters)
  }
  tidy_frame(out)
}

#' @rdname ghmix_tidiers
#' @export
augment.ghmix_mixture <- augment.ghmix_fit

#' @rdname ghmix_tidiers
#' @export
augment.ghmix_fit_gaussian <- augment.ghmix_fit

# Estimates ------------------------------------------------------------------

# One row per parameter (vcov()'s order): term (tidy()'s name), name
# (vcov()'s), component (NULL for one distribution), estimate, held (by
# `fixed`), tested (0 an interior null value: statistic and p-value) and
# se (NA where held or where there is no covariance).
tidy_table <- function(x) {
  tab <- if (inherits(x, "ghmix_mixture")) {
    tidy_mixture_terms(x)
  } else {
    tidy_single_terms(x)
  }
  cov <- tidy_vcov(x, tab$name)
  se <- sqrt(pmax(diag(cov), 0))
  se[tab$held] <- NA_real_
  tab$se <- unname(se)
  tab
}

# The terms of one distribution (full, factor or Gaussian).
tidy_single_terms <- function(x) {
  par <- x$parameters
  vars <- names(par$mu)
  d <- length(vars)
  if (identical(x$family, "gaussian")) {
    low <- lower_index(d)
    name <- gaussian_vcov_names(vars)
    est <- c(par$mu, par$sigma[lower.tri(par$sigma, diag = TRUE)])
    tested <- c(rep(TRUE, d), low[, 1L] != low[, 2L])
  } else if (!is.null(x$factors)) {
    name <- names_nat(vars, x$family, x$symmetric, x$factors)
    est <- pack_nat(par, x$family, x$symmetric)
    tested <- !startsWith(name, "D[") & !name %in% c("a", "b", "p")
  } else {
    name <- names_nat(vars, x$family, x$symmetric)
    est <- pack_nat(par, x$family, x$symmetric)
    low <- lower_index(d)
    tested <- c(rep(TRUE, d * (2L - x$symmetric)), low[, 1L] != low[, 2L],
                rep(FALSE, length(mix_family(x$family)$free)))
  }
  tested[name == "p"] <- identical(x$family, "gh")
  list(term = name, name = name, estimate = unname(est),
       held = tidy_held(x$fixed, name), tested = tested)
}

# The terms of a mixture: each component's as one distribution's, then
# the proportions.
tidy_mixture_terms <- function(x) {
  one <- lapply(seq_len(x$G), function(k) {
    tidy_single_terms(mixture_component_fit(x, k))
  })
  size <- length(one[[1L]]$term)
  name <- names_all(x)
  list(
    term = c(unlist(lapply(one, `[[`, "term")), rep("proportion", x$G)),
    name = name,
    component = c(rep(seq_len(x$G), each = size), seq_len(x$G)),
    estimate = c(unlist(lapply(one, `[[`, "estimate")), x$proportions),
    held = rep(FALSE, length(name)),
    tested = c(unlist(lapply(one, `[[`, "tested")), rep(FALSE, x$G))
  )
}

# TRUE for the terms held by `fixed` (mu, a nonzero gamma, p, a, b).
tidy_held <- function(fixed, name) {
  held <- name %in% intersect(names(fixed), c("p", "a", "b"))
  if (!is.null(fixed$mu)) held <- held | startsWith(name, "mu[")
  if (!is.null(fixed$gamma) && !fixed_gamma_zero(fixed)) {
    held <- held | startsWith(name, "gamma[")
  }
  held
}

# The covariance of the estimates, or NA where there is none: a penalised
# fit (a posterior mode), a factor fit beyond vcov()'s size.
tidy_vcov <- function(x, name) {
  big <- !is.null(x$factors) && length(name) - 1L > factor_vcov_max_k
  if (!is.null(x$shrink) || big) {
    return(matrix(NA_real_, length(name), length(name)))
  }
  stats::vcov(x)
}

# Positions (row, column) of the lower triangle of a d x d matrix, column
# by column (the order of vcov()'s Sigma terms).
lower_index <- function(d) {
  which(lower.tri(diag(d), diag = TRUE), arr.ind = TRUE)
}

# A tibble where the tibble package is installed, else the data frame.
tidy_frame <- function(out) {
  rownames(out) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) {
    return(tibble::as_tibble(out))
  }
  out
}

# augment() ------------------------------------------------------------------

# The rows to augment: the numeric matrix x of the fit's columns and the
# frame the new columns go into (newdata, data, or the rows fitted).
augment_rows <- function(fit, data, newdata, call) {
  vars <- colnames(fit$data)
  given <- if (!is.null(newdata)) newdata else data
  arg <- if (!is.null(newdata)) "newdata" else "data"
  if (is.null(given)) {
    augment_need_rows(fit, call)
    given <- fit$data
  }
  frame <- as.data.frame(if (is.null(dim(given))) {
    stats::setNames(list(as.vector(given)), vars)
  } else {
    given
  }, stringsAsFactors = FALSE, optional = TRUE)
  cols <- if (ncol(frame) != length(vars) && all(vars %in% names(frame))) {
    frame[vars]
  } else {
    frame
  }
  if (ncol(cols) != length(vars)) {
    abort_argument(
      sprintf(
        "`%s` must hold the fit's %d column%s (%s), by name or position.",
        arg, length(vars), plural(vars), paste(vars, collapse = ", ")
      ),
      call
    )
  }
  x <- fit_newdata(as.matrix(cols), vars, call)
  rn <- rownames(given)
  if (!is.null(rn) && !identical(rn, as.character(seq_len(nrow(frame))))) {
    frame <- cbind(data.frame(.rownames = rn, stringsAsFactors = FALSE),
                   frame)
  }
  list(x = x, frame = frame)
}

augment_need_rows <- function(fit, call) {
  if (inherits(fit, "ghmix_fit_online")) {
    online_no_rows("augment() without `data` or `newdata`")
  }
  fit_need_rows(fit, "augment() without `data` or `newdata`", call)
}

# The fitted density at the rows of m (the Gaussian's in closed form).
augment_density <- function(fit, m) {
  if (!identical(fit$family, "gaussian")) {
    return(stats::predict(fit, m))
  }
  par <- fit$parameters
  d <- length(par$mu)
  logdet <- 2 * sum(log(diag(chol(par$sigma))))
  exp(-(d * log(2 * pi) + logdet + law_mahalanobis(m, par)) / 2)
}

# Each row's distance to the component of its class.
augment_mixture_distance <- function(fit, m, cls) {
  out <- rep(NA_real_, nrow(m))
  for (k in unique(cls[!is.na(cls)])) {
    rows <- which(cls == k)
    out[rows] <- law_mahalanobis(m[rows, , drop = FALSE],
                                 fit$components[[k]])
  }
  out
}

# (x - mu)' Sigma^-1 (x - mu) for the rows of m (NA where not finite;
# the covariance structure's mahalanobis()).
law_mahalanobis <- function(m, par) {
  u <- sweep(m, 2L, par$mu)
  ok <- rowSums(!is.finite(u)) == 0L
  out <- rep(NA_real_, nrow(m))
  if (!any(ok)) {
    return(out)
  }
  out[ok] <- cov_of(par)$mahalanobis(u[ok, , drop = FALSE], par)
  out
}
