#' Factor-analytic dispersion matrices
#'
#' `factor_cov()` describes \eqn{\Sigma = F F' + \mathrm{diag}(D)}{Sigma =
#' F F' + diag(D)} by its \eqn{d \times r}{d x r} loadings \eqn{F} and its
#' \eqn{d} uniquenesses \eqn{D}, without forming the \eqn{d \times d}{d x d}
#' matrix. [dgh()] and [rgh()] take it as `sigma`: the density by the
#' Woodbury identity (\eqn{O(d r)} per row), the draws as
#' \eqn{X = \mu + Y\gamma + \sqrt{Y}(F z_1 + D^{1/2} z_2)}{X = mu + Y gamma +
#' sqrt(Y) (F z1 + sqrt(D) z2)} with independent standard normal
#' \eqn{z_1, z_2}. `as.matrix()` forms \eqn{\Sigma}.
#'
#' @param loadings The \eqn{d \times r}{d x r} numeric matrix \eqn{F} of
#'   finite loadings, \eqn{0 \le r < d}{0 <= r < d} (a vector is one
#'   column; \eqn{r = 0}, a \eqn{d \times 0}{d x 0} matrix, is a diagonal
#'   \eqn{\Sigma}).
#' @param uniquenesses The \eqn{d} positive finite uniquenesses \eqn{D}.
#' @param x A `"ghmix_factor_cov"` object.
#' @param ... Not used.
#' @return `factor_cov()`: an object of class `"ghmix_factor_cov"`, a list
#'   with `loadings` and `uniquenesses`. `dim()`: `c(d, d)`;
#'   `as.matrix()`: \eqn{\Sigma}.
#' @seealso [dgh()], [rgh()]; the fits' `factors` argument ([fit_gh()]).
#' @concept GH distribution
#' @export
#' @examples
#' f <- cbind(c(1, 0.8, 0.6, 0.4))
#' s <- factor_cov(f, c(0.5, 0.4, 0.3, 0.2))
#' s
#' x <- rbind(c(0, 0, 0, 0), c(1, 1, 0, -1))
#' dgh(x, mu = rep(0, 4), sigma = s, log = TRUE)
#' dgh(x, mu = rep(0, 4), sigma = as.matrix(s), log = TRUE)
#' head(rgh(5, mu = rep(0, 4), sigma = s))
factor_cov <- function(loadings, uniquenesses) {
  call <- sys.call()
  check_numeric(loadings, "loadings", call = call)
  check_numeric(uniquenesses, "uniquenesses", call = call)
  if (!is.matrix(loadings)) loadings <- matrix(loadings, ncol = 1L)
  storage.mode(loadings) <- "double"
  d <- nrow(loadings)
  r <- ncol(loadings)
  if (d < 1L || r >= d) {
    abort_argument(
      sprintf(
        "`loadings` must be d x r with r < d; it is %d x %d.", d, r
      ),
      call
    )
  }
  if (!all(is.finite(loadings))) {
    abort_argument("`loadings` must be finite.", call)
  }
  if (length(uniquenesses) != d) {
    abort_argument(
      sprintf(
        "`uniquenesses` must have length %d (the rows of `loadings`), not %d.",
        d, length(uniquenesses)
      ),
      call
    )
  }
  if (!all(is.finite(uniquenesses) & uniquenesses > 0)) {
    abort_argument("`uniquenesses` must be positive and finite.", call)
  }
  structure(
    list(loadings = loadings, uniquenesses = as.double(uniquenesses)),
    class = "ghmix_factor_cov"
  )
}

#' @rdname factor_cov
#' @export
print.ghmix_factor_cov <- function(x, ...) {
  d <- nrow(x$loadings)
  r <- ncol(x$loadings)
  cat(sprintf(
    "<ghmix_factor_cov> %d x %d: F F' + diag(D) with %d factor%s\n", d, d,
    r, plural(seq_len(r))
  ))
  show <- seq_len(min(d, 8L))
  if (r > 0L) {
    cat("loadings:\n")
    print(signif(x$loadings[show, , drop = FALSE], 4L))
  }
  cat("uniquenesses:", format(signif(x$uniquenesses[show], 4L)))
  cat(if (d > length(show)) sprintf(" ... (%d)\n", d) else "\n")
  invisible(x)
}

#' @rdname factor_cov
#' @export
dim.ghmix_factor_cov <- function(x) rep(nrow(x$loadings), 2L)

#' @rdname factor_cov
#' @export
as.matrix.ghmix_factor_cov <- function(x, ...) {
  factor_sigma(x$loadings, x$uniquenesses)
}

# Sigma = F F' + diag(D) (the d x d matrix: only where it is asked for).
factor_sigma <- function(f, dd) {
  s <- tcrossprod(f)
  diag(s) <- diag(s) + dd
  s
}

# The density of the rows x (n x d, all finite) at mu, gamma, Sigma =
# F F' + diag(D) and p, a, b (valid): the package's per-row GH density
# from Q and B (ffi_dgh_rows), Q and B by the Woodbury identity; d = 1 by
# the univariate functions, as dgh() does.
dgh_factor_rows <- function(x, par, log, threads) {
  if (ncol(x) == 1L) {
    return(dgh1_call(x[, 1L], par$mu, par$gamma, sqrt(par$uniquenesses),
                     par$p, par$a, par$b, log, "cpu", 0L, threads))
  }
  wb <- factor_woodbury(par)
  qb <- factor_quad(x - rep(par$mu, each = nrow(x)), par, wb)
  out <- .Call(ffi_dgh_rows, as.double(qb$q), as.double(qb$b), ncol(x),
               as.double(par$p), as.double(par$a), as.double(par$b), wb$gsg,
               wb$logdet, log, threads)
  # far out on the heavy side (B - omega cancels; C marks those rows): the
  # factor E-step's rows, which have the exact form (src/core/factor.c)
  heavy <- seq_along(out) %in% attr(out, "heavy")
  attr(out, "heavy") <- NULL
  if (any(heavy)) {
    rows <- factor_estep(x[heavy, , drop = FALSE], par, mix_what_rows(),
                         rows = TRUE, threads = threads)$rows
    lf <- rows[, estep_row_columns()[["loglik"]]]
    out[heavy] <- if (log) lf else exp(lf)
  }
  out
}

# dgh() with sigma a factor_cov().
dgh_factor <- function(x, mu, gamma, sigma, p, a, b, log, backend, device,
                       threads, call) {
  x <- gh_as_matrix(x, sigma, call)
  d <- ncol(x)
  par <- factor_gh_params(mu, gamma, sigma, p, a, b, d, call)
  backend <- check_backend(backend, call = call, device = device)
  if (backend == "cuda") model_refuse("factor_cov_cuda", call)
  if (gig_invalid(p, a, b)) {
    warning(simpleWarning("NaNs produced", call))
    return(stats::setNames(rep(NaN, nrow(x)), rownames(x)))
  }
  ok <- rowSums(!is.finite(x)) == 0L
  out <- rep(NA_real_, nrow(x))
  out[ok] <- dgh_factor_rows(x[ok, , drop = FALSE], par, log, threads)
  dgh_nonfinite_rows(out, x, log)
}

# The parameters of dgh() and rgh() with a factor_cov() sigma of dimension
# d, checked: list(mu, gamma, loadings, uniquenesses, p, a, b).
factor_gh_params <- function(mu, gamma, sigma, p, a, b, d, call) {
  if (nrow(sigma$loadings) != d) {
    abort_argument(
      sprintf("`sigma` is %d x %d, but `x` has %d columns.",
              nrow(sigma$loadings), nrow(sigma$loadings), d),
      call
    )
  }
  chk <- check_ghmv_params(mu, gamma, diag(1, d), FALSE, p, a, b, d, call)
  list(mu = chk$mu, gamma = chk$gamma, loadings = sigma$loadings,
       uniquenesses = sigma$uniquenesses, p = p, a = a, b = b)
}

# rgh() with sigma a factor_cov().
rgh_factor <- function(n, mu, gamma, sigma, p, a, b, call) {
  d <- nrow(sigma$loadings)
  par <- factor_gh_params(mu, gamma, sigma, p, a, b, d, call)
  invalid <- gig_invalid(p, a, b)
  if (invalid) { # NaN draws (the NIG's variates consumed)
    par$p <- -0.5
    par$a <- par$b <- 1
  }
  x <- cov_draw(n, par)
  if (invalid && n > 0) {
    x[] <- NaN
    warning(simpleWarning("NaNs produced", call))
  }
  colnames(x) <- names(mu)
  x
}
