# A fit and the law it estimates: mean() of a fit is its law's mean.

#' The mean of the fitted distribution
#'
#' A fit is an estimate: [coef()][coef.ghmix_fit()] gives the estimated
#' parameters, [vcov()][vcov.ghmix_fit()] the covariance of those
#' estimates and [confint()][confint.ghmix_fit()] their intervals. The
#' distribution it estimates is a law, [gh_law()]`(fit)`, with `mean()`,
#' `vcov()` (the covariance matrix of \eqn{X}), quantiles ([qgh()]) and
#' risk measures. `mean(fit)` is, as for ghyp's fits (which are laws), the
#' mean of the fitted law: \eqn{\mu + E[Y]\gamma}, that of
#' `mean(gh_law(fit))`; for a mixture the proportion-weighted mean of its
#' components, for [fit_gaussian()] \eqn{\mu}. `vcov(fit)` stays the
#' covariance of the estimates; the law's covariance is
#' `vcov(gh_law(fit))`.
#'
#' @param x A fit from [fit_nig()] and the other fitters (one distribution,
#'   factor, online or mixture) or [fit_gaussian()].
#' @param ... Not used.
#' @return The mean vector, named by the data's columns (`Inf` or `NaN`
#'   where it does not exist: a skew-t with \eqn{\nu \le 1}).
#' @seealso [gh_law()]
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r)
#' mean(fit)        # the fitted law's mean, as mean(gh_law(fit))
#' colMeans(r)      # the sample's
#' sqrt(diag(vcov(fit)))[1:4] # standard errors of the estimates of mu
mean.ghmix_fit <- function(x, ...) {
  mean.ghmix_law(x$parameters)
}

#' @rdname mean.ghmix_fit
#' @export
mean.ghmix_mixture <- function(x, ...) {
  means <- vapply(x$components, mean.ghmix_law, x$components[[1L]]$mu)
  out <- if (is.matrix(means)) drop(means %*% x$proportions) else
    sum(means * x$proportions)
  stats::setNames(out, names(x$components[[1L]]$mu))
}

#' @rdname mean.ghmix_fit
#' @export
mean.ghmix_fit_gaussian <- function(x, ...) x$parameters$mu
