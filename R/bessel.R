#' Logarithm of the modified Bessel function of the second kind
#'
#' `log_besselK(x, nu)` computes \eqn{\log K_\nu(x)}{log K_nu(x)}, the
#' logarithm of the modified Bessel function of the second kind, for
#' \eqn{x > 0} and any real order \eqn{\nu}{nu}, without overflow or
#' underflow: it is finite wherever \eqn{x} and \eqn{\nu}{nu} are, including
#' tiny \eqn{x} with large \eqn{|\nu|}{|nu|}, where `besselK()` returns `Inf`,
#' and large \eqn{x}, where it returns 0. With `gradient = TRUE` it also
#' returns the derivatives of \eqn{\log K_\nu(x)}{log K_nu(x)} in \eqn{x} and
#' in \eqn{\nu}{nu}, computed analytically (no finite differences).
#'
#' The arguments are recycled as by [besselK()]: the result has length
#' `max(length(x), length(nu))`, or 0 if either is empty, and takes the
#' attributes (names, dimensions, ...) of `x` if `x` has that length, else
#' those of `nu`. As in base R, `NA` stays `NA`, \eqn{x < 0} gives `NaN` with
#' a warning, \eqn{x = 0} gives `Inf` and \eqn{x = \infty}{x = Inf} gives
#' `-Inf`. \eqn{K_{-\nu} = K_\nu}{K_(-nu) = K_nu}.
#'
#' @param x Numeric vector of arguments, \eqn{x \ge 0}{x >= 0}.
#' @param nu Numeric vector of orders (any real number).
#' @param gradient If `TRUE`, attach the derivatives as attribute
#'   `"gradient"`: a matrix with one row per value and columns `"x"`
#'   (\eqn{\partial/\partial x \log K_\nu(x)}{d/dx log K_nu(x)}) and `"nu"`
#'   (\eqn{\partial/\partial\nu \log K_\nu(x)}{d/dnu log K_nu(x)}).
#' @inheritParams ghmix-params
#' @return A double vector of \eqn{\log K_\nu(x)}{log K_nu(x)} values, with
#'   attribute `"gradient"` when `gradient = TRUE`.
#' @seealso [besselK()] in base R, which returns \eqn{K_\nu(x)}{K_nu(x)}
#'   itself (or \eqn{e^x K_\nu(x)}{exp(x) K_nu(x)}).
#' @family Bessel functions
#' @export
#' @examples
#' log_besselK(c(0.1, 1, 10), nu = 2.5)
#' log(besselK(c(0.1, 1, 10), nu = 2.5))
#'
#' # where besselK() overflows or underflows
#' besselK(1e-10, 200)
#' log_besselK(1e-10, 200)
#' besselK(1e4, 1)
#' log_besselK(1e4, 1)
#'
#' # derivatives in x and nu
#' log_besselK(c(a = 1, b = 2), nu = 0.5, gradient = TRUE)
log_besselK <- function(x, nu, gradient = FALSE, # nolint: object_name_linter.
                        backend = c("cpu", "cuda"), device = 0L,
                        threads = ghmix_threads()) {
  call <- sys.call()
  check_numeric(x, "x", call = call)
  check_numeric(nu, "nu", call = call)
  check_flag(gradient, "gradient", call = call)
  device <- check_device(device, call = call)
  backend <- check_backend(backend, call = call, device = device)
  threads <- check_threads(threads, call = call)

  nx <- length(x)
  nnu <- length(nu)
  n <- if (nx == 0L || nnu == 0L) 0 else max(nx, nnu)
  out <- .Call(ffi_log_besselK, as.double(x), as.double(nu), gradient,
               threads, device_arg(backend, device))
  grad <- attr(out, "gradient", exact = TRUE)
  if (n > 0) {
    # base R keeps the attributes of the argument as long as the result,
    # x first
    keep <- attributes(if (nx == n) x else nu)
    keep$gradient <- NULL
    attributes(out) <- keep
  }
  if (gradient) {
    colnames(grad) <- c("x", "nu")
    attr(out, "gradient") <- grad
  }
  if (anyNA(out) && nans_produced(out, x, nu, n)) {
    warning(simpleWarning("NaNs produced", call))
  }
  out
}

# TRUE when some NaN in `out` did not come from an NA/NaN input.
nans_produced <- function(out, x, nu, n) {
  bad_in <- is.na(rep_len(as.double(x), n)) | is.na(rep_len(as.double(nu), n))
  any(is.nan(as.double(out)) & !bad_in)
}
