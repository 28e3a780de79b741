#' Value at risk and expected shortfall of GH laws
#'
#' Value at risk (VaR) and expected shortfall (ES) of a univariate
#' `"ghmix_law"` or of portfolios \eqn{S = w'X} of a multivariate one (the
#' law of \eqn{w'X} is univariate GH: [transform()]), at any levels;
#' `es_attribution()` splits the ES of one portfolio into the
#' contributions of its assets and gives its gradient in the weights.
#'
#' **Sign convention.** `level` is the probability \eqn{\alpha}{alpha} of
#' the tail, e.g. 0.01, and results are in the units of \eqn{X}, as in
#' ghyp's `ESghyp()`:
#' * `type = "return"` (the default): \eqn{X} is a return (or profit),
#'   the risk is its lower tail: \eqn{\mathrm{VaR}_\alpha = q_\alpha}{VaR =
#'   q(alpha)}, the \eqn{\alpha}{alpha}-quantile ([qgh()]), and
#'   \eqn{\mathrm{ES}_\alpha = E[X \mid X \le q_\alpha]}{ES = E[X | X <=
#'   q(alpha)]}; both are usually negative (a loss of 3% is -0.03);
#' * `type = "loss"`: \eqn{X} is a loss, the risk is its upper tail:
#'   \eqn{\mathrm{VaR}_\alpha = q_{1-\alpha}}{VaR = q(1 - alpha)} and
#'   \eqn{\mathrm{ES}_\alpha = E[X \mid X > q_{1-\alpha}]}{ES = E[X | X >
#'   q(1 - alpha)]} (ghyp's `ESghyp(1 - alpha, distr = "loss")`).
#'
#' To report the loss of a return law as a positive number, negate the
#' `"return"` results (or give the law of \eqn{-X}: `transform(law, -1)`).
#'
#' **Method.** The quantile agrees with [qgh()] to about
#' \eqn{10^{-14}}{1e-14} relative. The partial
#' moment comes from the normal mixture: given \eqn{Y = y}, \eqn{X} is
#' normal with mean \eqn{\mu + y\gamma}{mu + y gamma} and variance
#' \eqn{y\sigma^2}{y sigma^2}, so with \eqn{z = (q - \mu - y\gamma) /
#' (\sigma\sqrt{y})}{z = (q - mu - y gamma) / (sigma sqrt(y))}
#' \deqn{E[(q - X)^+] = E_Y\left[\sigma\sqrt{Y}\,(\phi(z) + z\Phi(z))
#'   \right],}{E[(q - X)^+] = E_Y[sigma sqrt(Y) (phi(z) + z Phi(z))],}
#' and \eqn{\mathrm{ES}_\alpha = q - E[(q - X)^+]/\alpha}{ES = q - E[(q -
#' X)^+] / alpha}: a one-dimensional integral over the GIG law of
#' \eqn{Y}, of a positive integrand (no cancellation however far the
#' tail), by double-exponential quadrature in \eqn{\log Y}{log Y} centred
#' on its peak (`src/core/gh_risk.c`). Against integrate() and against
#' 30-digit mpmath references the relative error is below
#' \eqn{10^{-10}}{1e-10} at levels from \eqn{10^{-4}}{1e-4} to 0.2. The ES
#' is finite when the mean of the tail is: always for \eqn{a > 0}, and for
#' the skew-t (\eqn{a = 0}, \eqn{\nu = -2p} degrees of freedom) when
#' \eqn{\nu > 1} with \eqn{\gamma = 0} (Student's t), when \eqn{\nu > 2}
#' on its heavy side (the tail toward which \eqn{\gamma} points, of power
#' \eqn{\nu / 2}{nu / 2}) and always on its light side (an exponential
#' tail). Where it is infinite, `expected_shortfall()` gives `-Inf`
#' (`type = "return"`) or `Inf` (`type = "loss"`), and `es_attribution()`
#' an error of class `ghmix_error_infinite`. The power tails of \eqn{Y}
#' are integrated to the end; where they fall too slowly for the
#' quadrature (\eqn{\nu} within about \eqn{10^{-3}}{1e-3} of those
#' limits) the ES is `NaN`.
#' The quantile is found by Newton's method on the distribution
#' function from the same integral; the results are `NaN` where it does
#' not converge and for laws beyond the method's reach (the mixing law's
#' scale, the mode of \eqn{\log Y}{log Y}, outside \eqn{e^{\pm 300}}{e^(+-300)},
#' or \eqn{\sqrt{p^2 + ab} > 10^{100}}{sqrt(p^2 + ab) > 1e100}).
#'
#' **Attribution.** ES is positively homogeneous in the weights, so
#' (Euler) \eqn{\mathrm{ES}(w) = \sum_j w_j \partial\mathrm{ES}/\partial
#' w_j}{ES(w) = sum_j w_j dES/dw_j}, with \eqn{\partial\mathrm{ES}/
#' \partial w_j = E[X_j \mid S \le q]}{dES/dw_j = E[X_j | S <= q]} (Tasche
#' 1999). Given \eqn{Y}, \eqn{E[X_j \mid S, Y] = \mu_j + Y\gamma_j +
#' \beta_j (S - w'\mu - Yw'\gamma)}{E[X_j | S, Y] = mu_j + Y gamma_j +
#' beta_j (S - w'mu - Y w'gamma)} with \eqn{\beta = \Sigma w / w'\Sigma
#' w}{beta = Sigma w / w' Sigma w} (free of \eqn{Y}), so the gradient
#' needs one more integral, \eqn{E[Y; S \le q]}{E[Y; S <= q]}; the
#' contributions \eqn{w_j \partial\mathrm{ES}/\partial w_j}{w_j dES/dw_j}
#' add up to the ES to rounding.
#'
#' @param law A `"ghmix_law"` from [gh_law()].
#' @param level Tail probabilities \eqn{\alpha}{alpha} in (0, 1).
#' @param weights `NULL` for a univariate `law`; else portfolio weights: a
#'   vector of length \eqn{d} (one portfolio) or a matrix with \eqn{d}
#'   columns, one portfolio per row. `es_attribution()`: one vector.
#' @param type `"return"` (default) or `"loss"`: see Details.
#' @inheritParams ghmix-params
#' @return `value_at_risk()`, `expected_shortfall()`: a vector with one
#'   value per level (one law or one portfolio), or a matrix with one row
#'   per portfolio (row of `weights`) and one column per level.
#'   `es_attribution()`: a list with `level`, `var`, `es` (vectors, one
#'   value per level) and `gradient` and `contributions` (matrices with one
#'   row per level and one column per asset; each row of `contributions`
#'   adds up to `es`).
#' @references
#' Tasche, D. (1999). Risk contributions and performance measurement.
#' Working paper, Technische Universitaet Muenchen.
#'
#' McNeil, A. J., Frey, R. and Embrechts, P. (2005). *Quantitative Risk
#' Management: Concepts, Techniques and Tools*. Princeton University Press.
#' Sections 2.2 and 6.3.
#' @family GH distribution
#' @export
#' @examples
#' law <- gh_law(mu = 0.001, gamma = -0.002, sigma = 0.01, p = -0.5,
#'               a = 1, b = 1)
#' value_at_risk(law, c(0.01, 0.05))
#' expected_shortfall(law, c(0.01, 0.05))
#' expected_shortfall(law, 0.01, type = "loss") # the upper tail
#'
#' r <- diff(log(EuStockMarkets))
#' law4 <- gh_law(fit_nig(r))
#' w <- c(0.4, 0.2, 0.2, 0.2)
#' expected_shortfall(law4, 0.01, weights = w)
#' expected_shortfall(law4, 0.01, weights = rbind(w, rep(0.25, 4)))
#' att <- es_attribution(law4, w, 0.01)
#' att$contributions
#' sum(att$contributions)
value_at_risk <- function(law, level = 0.01, weights = NULL,
                          type = c("return", "loss"),
                          threads = ghmix_threads()) {
  r <- risk_setup(law, level, weights, type, threads, sys.call())
  out <- risk_call(r, shortfall = FALSE)
  risk_shape(r$sign * out[seq_len(length(r$mu) * length(r$level))], r)
}

#' @rdname value_at_risk
#' @export
expected_shortfall <- function(law, level = 0.01, weights = NULL,
                               type = c("return", "loss"),
                               threads = ghmix_threads()) {
  r <- risk_setup(law, level, weights, type, threads, sys.call())
  out <- risk_call(r, shortfall = TRUE)
  size <- length(r$mu) * length(r$level)
  es <- out[seq_len(size)] -
    out[size + seq_len(size)] / rep(r$level, each = length(r$mu))
  risk_shape(r$sign * es, r)
}

#' @rdname value_at_risk
#' @export
es_attribution <- function(law, weights, level = 0.01,
                           type = c("return", "loss"),
                           threads = ghmix_threads()) {
  call <- sys.call()
  check_law(law, call)
  if (is.matrix(weights) && nrow(weights) != 1L) {
    abort_argument("`weights` must be one vector of portfolio weights.", call)
  }
  r <- risk_setup(law, level, drop(weights), type, threads, call)
  out <- risk_call(r, shortfall = TRUE, y_mass = TRUE)
  alpha <- r$level
  q <- out[1L, , 1L]
  loss <- out[1L, , 2L]
  y_mass <- out[1L, , 3L]
  w <- drop(r$weights)
  mu <- r$sign * law$mu
  gamma <- r$sign * law$gamma
  # (E[Y; S <= q] enters with the skewness only: for a symmetric law it
  # may be infinite while the gradient is not)
  if (all(gamma == 0)) y_mass[] <- 0
  risk_check_finite(loss, y_mass, alpha, call)
  beta <- drop(law$sigma %*% w) / r$sigma^2
  # E[X_j 1{S <= q}] in the frame of the lower tail (sign applied)
  tail_s <- q * alpha - loss - r$mu * alpha - r$gamma * y_mass
  grad <- (outer(alpha, mu) + outer(y_mass, gamma) + outer(tail_s, beta)) /
    alpha
  grad <- r$sign * grad
  dimnames(grad) <- list(risk_level_names(alpha), names(law$mu))
  list(
    level = alpha, var = r$sign * q,
    es = r$sign * (q - loss / alpha), gradient = grad,
    contributions = grad * rep(w, each = length(alpha))
  )
}

# Checked arguments: the univariate laws (mu, gamma, sigma vectors, one per
# portfolio) in the frame of the lower tail (sign -1: the law of -X).
risk_setup <- function(law, level, weights, type, threads, call) {
  check_law(law, call)
  check_numeric(level, "level", call = call)
  if (length(level) == 0L || anyNA(level) || any(level <= 0 | level >= 1)) {
    abort_argument("`level` must be probabilities in (0, 1).", call)
  }
  type <- check_choice(type, c("return", "loss"), "type", call)
  threads <- check_threads(threads, call = call)
  sign <- if (type == "loss") -1 else 1
  law <- unclass(law) # (`$` of a classed list looks for a method: slower)
  if (is.null(weights) && length(law$mu) == 1L) {
    # (the same numbers as the weights' matrix products with w = 1)
    return(list(
      level = as.double(level), mu = sign * law$mu[[1L]],
      gamma = sign * law$gamma[[1L]], sigma = sqrt(law$sigma[[1L]]),
      pab = c(law$p, law$a, law$b), sign = sign, weights = NULL,
      many = FALSE, threads = threads
    ))
  }
  w <- risk_weights(weights, law_dim(law), call)
  mu <- drop(w %*% law$mu)
  gamma <- drop(w %*% law$gamma)
  sigma <- sqrt(rowSums((w %*% law$sigma) * w))
  list(
    level = as.double(level), mu = sign * mu, gamma = sign * gamma,
    sigma = sigma, pab = c(law$p, law$a, law$b), sign = sign,
    weights = w, many = is.matrix(weights), threads = threads
  )
}

# An error where the tail has no finite mean (a skew-t of at most 1 degree
# of freedom, or 2 on its heavy side): no ES, so no attribution.
# E[Y; S <= q] is infinite where Y's mean is and the tail is not the light
# side (a skewed law of at most 2 degrees of freedom): the gradient is.
risk_check_finite <- function(loss, y_mass, alpha, call) {
  levels <- function(inf) {
    paste(format(alpha[inf], digits = 6L), collapse = ", ")
  }
  if (any(is.infinite(loss))) {
    ghmix_abort(
      sprintf(
        paste(
          "The expected shortfall of this portfolio is infinite at `level`",
          "%s (its tail has no finite mean: a skew-t with at most 1 degree",
          "of freedom, or 2 on its heavy side), so it has no attribution."
        ),
        levels(is.infinite(loss))
      ),
      class = "ghmix_error_infinite", call = call
    )
  }
  if (any(is.infinite(y_mass))) {
    ghmix_abort(
      sprintf(
        paste(
          "The gradient of the expected shortfall is infinite at `level` %s:",
          "E[Y | tail] is infinite (a skewed law with at most 2 degrees of",
          "freedom), so the contributions of the skewed assets are too."
        ),
        levels(is.infinite(y_mass))
      ),
      class = "ghmix_error_infinite", call = call
    )
  }
}

# The weights as a matrix with d columns (the identity for a univariate
# law without weights).
risk_weights <- function(weights, d, call) {
  if (is.null(weights)) {
    if (d != 1L) {
      abort_argument(
        sprintf("`weights` must be given for a law of dimension %d.", d),
        call
      )
    }
    return(matrix(1))
  }
  check_numeric(weights, "weights", call = call)
  w <- if (is.matrix(weights)) weights else matrix(weights, 1L)
  if (ncol(w) != d || nrow(w) == 0L) {
    abort_argument(
      sprintf(
        "`weights` must have length %d (the dimension of the law), not %d.",
        d, if (is.matrix(weights)) ncol(weights) else length(weights)
      ),
      call
    )
  }
  storage.mode(w) <- "double"
  if (anyNA(w) || any(is.infinite(w)) || any(rowSums(w != 0) == 0)) {
    abort_argument("`weights` must be finite and not all 0.", call)
  }
  w
}

risk_call <- function(r, shortfall, y_mass = FALSE) {
  out <- .Call(ffi_gh_risk, r$level, as.double(r$mu), as.double(r$gamma),
               as.double(r$sigma), as.double(r$pab), shortfall, y_mass,
               r$threads)
  dim(out) <- c(length(r$mu), length(r$level), 3L)
  out
}

# One value per level, or a portfolios x levels matrix.
risk_shape <- function(v, r) {
  if (!r$many) {
    return(as.vector(v))
  }
  matrix(v, length(r$mu), length(r$level),
         dimnames = list(rownames(r$weights), risk_level_names(r$level)))
}

risk_level_names <- function(level) format(level, digits = 6L)
