#' Parameters of a GH-family fit in several parametrisations
#'
#' `coef()` returns the fitted parameters of a fit from [fit_nig()],
#' [fit_gh()], [fit_vg()] or [fit_skewt()] as a list, in ghmix's own form
#' or in those of the ghyp package and of the univariate GH literature.
#'
#' ghmix's model is \eqn{X = \mu + Y\gamma + \sqrt{Y}\Sigma^{1/2}Z} with
#' \eqn{Y \sim \mathrm{GIG}(p, a, b)}, density proportional to
#' \eqn{y^{p-1}\exp(-(ay + b/y)/2)}. The parametrisations:
#'
#' * `"ghmix"`: `list(mu, gamma, sigma, p, a, b)` as fitted, in the fit's
#'   gauge (`sigma` is the \eqn{d \times d}{d x d} matrix \eqn{\Sigma}, also
#'   for \eqn{d = 1}).
#' * `"ghyp"`: ghyp's chi/psi form `list(lambda, chi, psi, mu, sigma,
#'   gamma)` with \eqn{\lambda = p}, \eqn{\chi = b}, \eqn{\psi = a} (ghyp's
#'   mixing variable \eqn{W \sim \mathrm{GIG}(\lambda, \chi, \psi)} has
#'   density proportional to \eqn{w^{\lambda-1}\exp(-(\chi/w + \psi w)/2)}),
#'   in the fit's gauge. As in ghyp, `sigma` is the matrix \eqn{\Sigma} for
#'   \eqn{d > 1} and the scale \eqn{\sqrt{\Sigma}} (a number) for \eqn{d = 1}.
#' * `"alpha.bar"`: ghyp's `list(lambda, alpha.bar, mu, sigma, gamma)` with
#'   \eqn{\bar\alpha = \sqrt{ab}}, in the gauge \eqn{E[Y] = 1} (which defines
#'   that form; an error when \eqn{E[Y]} is infinite, i.e. a skew-t with
#'   \eqn{p \ge -1}). `sigma` as for `"ghyp"`.
#' * `"alpha"`: for \eqn{d = 1} only, the classical
#'   `list(lambda, alpha, beta, delta, mu)` of the density with
#'   \eqn{X = \mu + \beta W + \sqrt{W} Z}, \eqn{W \sim
#'   \mathrm{GIG}(\lambda, \delta^2, \alpha^2 - \beta^2)}: with
#'   \eqn{s = \Sigma}, \eqn{\beta = \gamma/s}, \eqn{\delta = \sqrt{bs}},
#'   \eqn{\alpha = \sqrt{a/s + \beta^2}}. These do not depend on the gauge.
#'   Variance gamma has \eqn{\delta = 0}, the skew-t \eqn{\alpha = |\beta|}.
#'
#' @param object A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param parametrization One of `"ghmix"` (default), `"ghyp"`,
#'   `"alpha.bar"` and `"alpha"`.
#' @param sigma For a factor fit (`factors`, see [fit_gh()]), whose
#'   `"ghmix"` list has the `loadings` \eqn{F} and `uniquenesses` \eqn{D} in
#'   place of `sigma`: `TRUE` adds `sigma`, the \eqn{d \times d}{d x d}
#'   matrix \eqn{F F' + \mathrm{diag}(D)} (formed for \eqn{d \le 2000}
#'   only, as for the other parametrisations, which give `sigma`). Ignored
#'   for other fits.
#' @param ... Not used.
#' @return A named list of parameters (see Details).
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' coef(fit)
#' coef(fit, parametrization = "ghyp")
#' str(coef(fit, parametrization = "alpha"))
coef.ghmix_fit <- function(object,
                           parametrization = c("ghmix", "ghyp", "alpha.bar",
                                               "alpha"),
                           sigma = FALSE, ...) {
  parametrization <- check_choice(
    parametrization, c("ghmix", "ghyp", "alpha.bar", "alpha"),
    "parametrization", sys.call()
  )
  check_flag(sigma, "sigma", sys.call())
  if (sigma || parametrization != "ghmix") {
    object <- cov_get(object$factors)$full_view(object, sys.call())
  }
  par <- object$parameters
  par$a <- unname(par$a)
  par$b <- unname(par$b)
  par$p <- unname(par$p)
  sc <- object$scaling
  if (!is.null(sc) && parametrization %in% c("alpha.bar", "alpha")) {
    # a standardised fit: in its units, then back in the data's
    out <- stats::coef(fit_std_view(object), parametrization = parametrization)
    return(coef_from_std(out, par, sc, parametrization))
  }
  switch(parametrization,
    ghmix = par,
    ghyp = c(
      list(lambda = par$p, chi = par$b, psi = par$a),
      coef_ghyp_location(par, fit_column_sd(object))
    ),
    alpha.bar = coef_alpha_bar(par, sys.call()),
    alpha = coef_alpha(par, sys.call())
  )
}

# mu, sigma, gamma as ghyp has them (sigma a scale for d = 1: sd).
coef_ghyp_location <- function(par, sd = sqrt(par$sigma[[1L]])) {
  d <- length(par$mu)
  if (d == 1L) {
    return(list(
      mu = unname(par$mu), sigma = unname(sd[[1L]]),
      gamma = unname(par$gamma)
    ))
  }
  list(mu = par$mu, sigma = par$sigma, gamma = par$gamma)
}

# coef() of the standardised view of a fit (out) in the data's units (par:
# the fit's parameters there); alpha.bar's gauge E[Y] = 1 does not depend
# on the units.
coef_from_std <- function(out, par, sc, parametrization) {
  s <- unname(sc$scale)
  out$mu <- par$mu
  if (parametrization == "alpha") {
    out$alpha <- out$alpha / s
    out$beta <- out$beta / s
    out$delta <- out$delta * s
    out$mu <- unname(out$mu)
    return(out[c("lambda", "alpha", "beta", "delta", "mu")])
  }
  out$gamma <- out$gamma * s
  out$sigma <- if (length(s) == 1L) out$sigma * s else
    out$sigma * tcrossprod(s)
  if (length(s) == 1L) out$mu <- unname(out$mu)
  out
}

coef_alpha_bar <- function(par, call) {
  if (!is.finite(gig_mean_value(par$p, par$a, par$b))) {
    abort_argument(
      paste(
        'parametrization = "alpha.bar" needs E[Y] = 1, but E[Y] is infinite',
        "for this fit (a skew-t with p >= -1)."
      ),
      call
    )
  }
  par <- set_gauge(par, "mean")
  c(
    list(lambda = par$p, alpha.bar = sqrt(par$a * par$b)),
    coef_ghyp_location(par)
  )
}

coef_alpha <- function(par, call) {
  if (length(par$mu) != 1L) {
    abort_argument(
      sprintf(
        paste(
          'parametrization = "alpha" is for univariate fits; this fit has',
          "d = %d (use \"ghyp\" or \"alpha.bar\")."
        ),
        length(par$mu)
      ),
      call
    )
  }
  s <- par$sigma[[1L]]
  beta <- unname(par$gamma) / s
  list(
    lambda = par$p, alpha = sqrt(par$a / s + beta^2), beta = beta,
    delta = sqrt(par$b * s), mu = unname(par$mu)
  )
}
