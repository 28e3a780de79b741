#' The generalized inverse Gaussian distribution
#'
#' Density, distribution function, quantile function and random generation
#' for the generalized inverse Gaussian (GIG) distribution with parameters
#' `p`, `a` and `b`.
#'
#' The GIG distribution with parameters \eqn{p}, \eqn{a \ge 0}{a >= 0} and
#' \eqn{b \ge 0}{b >= 0} has density
#' \deqn{f(y) = \frac{(a/b)^{p/2}}{2 K_p(\sqrt{ab})} y^{p-1}
#'   \exp\left(-\frac{a y + b/y}{2}\right), \quad y > 0,}{
#'   f(y) = (a/b)^(p/2) / (2 K_p(sqrt(ab))) y^(p-1) exp(-(a y + b/y)/2),
#'   y > 0,}
#' where \eqn{K_p} is the modified Bessel function of the second kind. It is
#' the mixing distribution of the generalized hyperbolic family: \eqn{p =
#' -1/2} gives the inverse Gaussian (the mixing law of the normal inverse
#' Gaussian). In the notation of \pkg{ghyp} and \pkg{GIGrvg}, \eqn{\lambda =
#' p}, \eqn{\chi = b}, \eqn{\psi = a}. Two limits are valid parameter sets:
#' \eqn{b = 0} with \eqn{p > 0} is the gamma distribution with shape \eqn{p}
#' and rate \eqn{a/2}, and \eqn{a = 0} with \eqn{p < 0} is the inverse gamma
#' distribution with shape \eqn{-p} and scale \eqn{b/2} (\eqn{1/Y} is gamma
#' with shape \eqn{-p} and rate \eqn{b/2}).
#'
#' The functions follow the conventions of base R's distribution functions
#' such as [dgamma()]: numeric arguments are recycled to the length of the
#' longest (a zero-length argument gives a zero-length result), and the
#' result takes the attributes of the first argument that has that length.
#' `NA` stays `NA`. Invalid parameters (`a < 0`, `b < 0`, `a = b = 0`,
#' `a = 0` with `p >= 0`, `b = 0` with `p <= 0`, or any of them infinite)
#' give `NaN` with a warning, as do probabilities outside \eqn{[0, 1]} in
#' `qgig()`. The density is 0 for \eqn{x \le 0}{x <= 0} (but at \eqn{x = 0}
#' in the gamma limit it is the limit from the right, as for `dgamma()`);
#' `pgig()` is 0 for \eqn{q \le 0}{q <= 0} and 1 at `Inf`; `qgig()` gives 0
#' for probability 0 and `Inf` for probability 1.
#'
#' **Accuracy.** The functions work in the variable \eqn{\log(y/m)}{log(y/m)},
#' where \eqn{m} is the mode of the density of \eqn{\log Y}{log Y}, and
#' compute the normalising integral and the tail probabilities by
#' double-exponential quadrature (Takahasi and Mori 1974) in log space,
#' without going through \eqn{K_p}: so the density is accurate to a few
#' units in the last place of its logarithm even where
#' \eqn{\log K_p(\sqrt{ab})}{log K_p(sqrt(ab))} is in the thousands
#' (\eqn{\sqrt{ab} = 10^4}{sqrt(ab) = 1e4}, or tiny \eqn{\sqrt{ab}}{sqrt(ab)}
#' with large \eqn{|p|}). `pgig()` integrates the requested tail directly,
#' so `lower.tail = FALSE` has no cancellation, and `log.p = TRUE` is
#' computed in log space (finite far beyond the range of doubles). Against
#' 40-digit references both tails are accurate to about \eqn{10^{-14}}
#' relative. `qgig()` inverts `pgig()` by Newton's method on the logarithm
#' of the tail (which is concave), safeguarded by bisection.
#'
#' **Random variates.** `rgig()` uses the algorithms of
#' H\enc{ö}{o}rmann and Leydold (2014): the ratio-of-uniforms method with a
#' shift by the mode when \eqn{|p| > 2} or
#' \eqn{\sqrt{ab} > 3}{sqrt(ab) > 3}, without shift for moderate
#' parameters, and their rejection method with a three-piece hat
#' for the region that is not T-concave (\eqn{|p| < 1}, small
#' \eqn{\sqrt{ab}}{sqrt(ab)}); the gamma and inverse-gamma limits use the
#' shifted ratio-of-uniforms method for the gamma distribution (with
#' Stuart's \eqn{U^{1/p}}{U^(1/p)} step for shapes at most 1). Where
#' \eqn{a} or \eqn{b} is tiny or huge (down to the subnormals, up to the
#' largest double) or \eqn{|p|} is huge, the same methods run in the
#' variable of the mode with their constants in logs, and a law narrower
#' than the rounding of its mode (\eqn{\sqrt{p^2 + ab} > 2^{106}}{sqrt(p^2 +
#' ab) > 2^106}) gives the mode; every draw takes a bounded expected number
#' of trials, and one that would need more than \eqn{10^4} (not seen with
#' valid parameters) is `NaN` with the warning "NAs produced". It draws
#' from R's uniform generator, so [set.seed()] makes the draws
#' reproducible; it runs on R's thread (R's generator is not thread-safe),
#' and an interrupt stops it within a fraction of a second.
#'
#' @param x,q Numeric vector of quantiles.
#' @param prob Numeric vector of probabilities.
#' @param n Number of observations. If `length(n) > 1`, the length is taken
#'   to be the number required.
#' @param p Numeric vector of the index parameter (any real number; \eqn{p
#'   > 0} when `b = 0`, \eqn{p < 0} when `a = 0`).
#' @param a,b Numeric vectors of the non-negative parameters multiplying
#'   \eqn{y} and \eqn{1/y} in the exponent (not both zero).
#' @param log,log.p If `TRUE`, densities and probabilities are given as
#'   their logarithms.
#' @param lower.tail If `TRUE` (the default), probabilities are
#'   \eqn{P(Y \le x)}{P(Y <= x)}, otherwise \eqn{P(Y > x)}.
#' @inheritParams ghmix-params
#' @return `dgig()` gives the density, `pgig()` the distribution function,
#'   `qgig()` the quantile function and `rgig()` random deviates, as double
#'   vectors. The length of the result is `n` for `rgig()` and the length of
#'   the longest numeric argument for the others.
#' @references
#' H\enc{ö}{o}rmann, W. and Leydold, J. (2014). Generating generalized inverse
#' Gaussian random variates. *Statistics and Computing* 24, 547--557.
#' \doi{10.1007/s11222-013-9387-3}
#'
#' Takahasi, H. and Mori, M. (1974). Double exponential formulas for
#' numerical integration. *Publications of the Research Institute for
#' Mathematical Sciences, Kyoto University* 9, 721--741.
#' @family GIG functions
#' @seealso [dgamma()] for the gamma limit; [log_besselK()] for the Bessel
#'   function in the normalising constant.
#' @name GIG
#' @examples
#' dgig(c(0.5, 1, 2), p = -0.5, a = 2, b = 1)
#' pgig(1, p = 2, a = 1, b = 1)
#' pgig(1, p = 2, a = 1, b = 1, lower.tail = FALSE)
#' qgig(c(0.05, 0.5, 0.95), p = 2, a = 1, b = 1)
#'
#' # the gamma limit (b = 0) agrees with dgamma()
#' dgig(2, p = 3, a = 2, b = 0)
#' dgamma(2, shape = 3, rate = 1)
#'
#' # far tails, where the naive formulas overflow or cancel
#' dgig(1, p = 0.5, a = 1e4, b = 1e4, log = TRUE)
#' pgig(1e-3, p = 0.5, a = 1, b = 1, log.p = TRUE)
#'
#' set.seed(1)
#' y <- rgig(1000, p = -0.5, a = 2, b = 1)
#' mean(y)
#' sqrt(1 / 2) * besselK(sqrt(2), 0.5) / besselK(sqrt(2), -0.5)
NULL

#' @rdname GIG
#' @export
dgig <- function(x, p, a, b, log = FALSE, threads = ghmix_threads()) {
  call <- sys.call()
  check_numeric(x, "x", call = call)
  check_gig_params(p, a, b, call)
  check_flag(log, "log", call = call)
  threads <- check_threads(threads, call = call)
  out <- .Call(ffi_dgig, as.double(x), as.double(p), as.double(a),
               as.double(b), log, threads)
  gig_finish(out, list(x, p, a, b), call)
}

#' @rdname GIG
#' @export
pgig <- function(q, p, a, b, lower.tail = TRUE, log.p = FALSE, # nolint
                 threads = ghmix_threads()) {
  call <- sys.call()
  threads <- check_gig_tail(q, "q", p, a, b, lower.tail, log.p, threads, call)
  out <- .Call(ffi_pgig, as.double(q), as.double(p), as.double(a),
               as.double(b), lower.tail, log.p, threads)
  gig_finish(out, list(q, p, a, b), call)
}

#' @rdname GIG
#' @export
qgig <- function(prob, p, a, b, lower.tail = TRUE, log.p = FALSE, # nolint
                 threads = ghmix_threads()) {
  call <- sys.call()
  threads <- check_gig_tail(prob, "prob", p, a, b, lower.tail, log.p, threads,
                            call)
  out <- .Call(ffi_qgig, as.double(prob), as.double(p), as.double(a),
               as.double(b), lower.tail, log.p, threads)
  gig_finish(out, list(prob, p, a, b), call)
}

#' @rdname GIG
#' @export
rgig <- function(n, p, a, b) {
  call <- sys.call()
  n <- check_n(n, call)
  check_gig_params(p, a, b, call)
  if (n == 0) {
    return(numeric())
  }
  if (length(p) == 0L || length(a) == 0L || length(b) == 0L) {
    warning(simpleWarning("NAs produced", call))
    return(rep(NA_real_, n))
  }
  out <- .Call(ffi_rgig, n, as.double(p), as.double(a), as.double(b))
  if (anyNA(out)) {
    warning(simpleWarning("NAs produced", call))
  }
  out
}

# Helpers ---------------------------------------------------------------------

check_gig_params <- function(p, a, b, call) {
  check_numeric(p, "p", call = call)
  check_numeric(a, "a", call = call)
  check_numeric(b, "b", call = call)
}

# The arguments of pgig() and qgig() (v is q or prob); returns the thread
# count.
check_gig_tail <- function(v, v_name, p, a, b, lower_tail, log_p, threads,
                           call) {
  check_numeric(v, v_name, call = call)
  check_gig_params(p, a, b, call)
  check_flag(lower_tail, "lower.tail", call = call)
  check_flag(log_p, "log.p", call = call)
  check_threads(threads, call = call)
}

# `n` as in base R's random generators: a vector of length > 1 means its
# length, a zero-length one 0 (as rgamma(numeric(), 1)); otherwise one
# non-negative finite number, truncated, at most the longest vector R holds.
check_n <- function(n, call) {
  numeric_like <- (is.numeric(n) || is.logical(n)) && !is.factor(n)
  if (numeric_like && length(n) != 1L) {
    return(as.double(length(n)))
  }
  if (!numeric_like || !isTRUE(n >= 0 && is.finite(n))) {
    abort_argument(
      paste(
        "`n` must be a non-negative number",
        "(or a vector, whose length is used)."
      ),
      call
    )
  }
  if (n > r_xlen_max) {
    abort_argument(
      sprintf("`n` must be at most %.0f (2^52), the longest vector R holds.",
              r_xlen_max),
      call
    )
  }
  floor(as.double(n))
}

# R_XLEN_T_MAX, the longest vector R can allocate.
r_xlen_max <- 2^52

# Attributes as base R's math functions give them (those of the first
# argument as long as the result), and the "NaNs produced" warning for NaN
# that did not come from NA/NaN input.
gig_finish <- function(out, args, call) {
  n <- length(out)
  if (n > 0L) {
    lens <- lengths(args)
    keep <- attributes(args[[which(lens == n)[[1L]]]])
    if (!is.null(keep)) {
      attributes(out) <- keep
    }
  }
  if (anyNA(out)) {
    bad_in <- Reduce(`|`, lapply(args, function(v) {
      is.na(rep_len(as.double(v), n))
    }))
    if (any(is.nan(as.double(out)) & !bad_in)) {
      warning(simpleWarning("NaNs produced", call))
    }
  }
  out
}
