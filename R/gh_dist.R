#' The generalized hyperbolic distribution
#'
#' Density, distribution function, quantile function and random generation
#' for the generalized hyperbolic (GH) family of normal variance-mean
#' mixtures and its special cases: normal inverse Gaussian (NIG), variance
#' gamma, skew-t and Student t. `dgh()` and `rgh()` work in any dimension;
#' `pgh()` and `qgh()` are univariate.
#'
#' A GH random vector is the normal variance-mean mixture
#' \deqn{X = \mu + Y\gamma + \sqrt{Y}\,\Sigma^{1/2} Z,\qquad
#'   Z \sim N(0, I_d),\quad Y \sim \mathrm{GIG}(p, a, b),}{
#'   X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z, Z ~ N(0, I_d),
#'   Y ~ GIG(p, a, b),}
#' with the mixing variable \eqn{Y} independent of \eqn{Z} and generalized
#' inverse Gaussian with density proportional to
#' \eqn{y^{p-1} \exp(-(a y + b/y)/2)}{y^(p-1) exp(-(a y + b/y)/2)} (see
#' [dgig()]). Its density is
#' \deqn{f(x) = \frac{(a/b)^{p/2}}{(2\pi)^{d/2}|\Sigma|^{1/2} K_p(\sqrt{ab})}
#'   \, e^{B} \left(\frac{b + Q}{A}\right)^{q/2}
#'   K_q\!\left(\sqrt{A (b + Q)}\right),}{
#'   f(x) = (a/b)^(p/2) / ((2 pi)^(d/2) |Sigma|^(1/2) K_p(sqrt(ab)))
#'   exp(B) ((b + Q)/A)^(q/2) K_q(sqrt(A (b + Q))),}
#' with \eqn{q = p - d/2}, \eqn{Q = (x-\mu)'\Sigma^{-1}(x-\mu)}{Q = (x -
#' mu)' Sigma^-1 (x - mu)}, \eqn{B = (x-\mu)'\Sigma^{-1}\gamma}{B = (x -
#' mu)' Sigma^-1 gamma} and \eqn{A = a + \gamma'\Sigma^{-1}\gamma}{A = a +
#' gamma' Sigma^-1 gamma} (Barndorff-Nielsen 1977; McNeil, Frey and
#' Embrechts 2005, section 3.2). The special cases are \eqn{p = -1/2}
#' (NIG: `dnig()` and friends), \eqn{b = 0} with \eqn{p > 0} (variance
#' gamma: gamma mixing), \eqn{a = 0} with \eqn{p < 0} (skew-t with
#' \eqn{-2p} degrees of freedom: inverse-gamma mixing; with \eqn{\gamma = 0}
#' the Student t). In the notation of \pkg{ghyp}, \eqn{\lambda = p},
#' \eqn{\chi = b} and \eqn{\psi = a}. The parameters are not identified:
#' \eqn{(\gamma, \Sigma, a, b)} and \eqn{(\gamma/s, \Sigma/s, a/s, b s)}
#' give the same distribution for every \eqn{s > 0}.
#'
#' **The meaning of `sigma`.** For a univariate distribution (`x` a vector,
#' `sigma` not a matrix) `sigma` is a *scale*, like the `sd` of [dnorm()]:
#' \eqn{\Sigma = \sigma^2}{Sigma = sigma^2}, so that `dgh(x, sigma = s)` is
#' `dgh(x / s) / s` when \eqn{\mu = \gamma = 0}. For a multivariate
#' distribution `sigma` is the \eqn{d \times d}{d x d} dispersion matrix
#' \eqn{\Sigma}{Sigma} itself, as the `sigma` of \pkg{mvtnorm} is a
#' covariance (it is the covariance of \eqn{X} given \eqn{Y = 1}). A
#' `sigma` given as a matrix is always \eqn{\Sigma}{Sigma}, even
#' \eqn{1 \times 1}{1 x 1}: `dgh(x, sigma = matrix(4))` is
#' `dgh(x, sigma = 2)`, so a fitted \eqn{\Sigma}{Sigma} can be passed as it
#' is.
#'
#' **Univariate use.** When `x` is a vector and `sigma` is not a matrix, the
#' arguments `x`, `mu`, `gamma`, `sigma`, `p`, `a` and `b` are recycled to
#' the length of the longest, as in [dnorm()], and the result takes the
#' attributes of the first argument of that length. `NA` and `NaN` stay
#' `NA` and `NaN`; `pgh()` is 0 and 1 at `-Inf` and `Inf`; `qgh()` gives
#' `-Inf` and `Inf` for probabilities 0 and 1 and `NaN` with a warning for
#' probabilities outside \eqn{[0, 1]}.
#'
#' **Multivariate use.** When `x` is a matrix or data frame (rows are
#' observations, columns the \eqn{d} coordinates), or `sigma` is a
#' \eqn{d \times d}{d x d} matrix with \eqn{d > 1} and `x` a vector of length
#' \eqn{d} (one observation), `mu` and `gamma` are vectors of length
#' \eqn{d} (or length 1, repeated), `sigma` the symmetric positive definite
#' matrix \eqn{\Sigma}{Sigma} (the identity when missing) and `p`, `a`, `b`
#' single numbers. The result has one value per row (named by the row
#' names); a row with `NA` gives `NA` and a row with an infinite coordinate
#' density 0. The quadratic forms come from one Cholesky factorisation and
#' a triangular solve of all rows at once (level-3 BLAS); the rows are
#' evaluated in parallel.
#'
#' **On a GPU.** `dgh()` and `dnig()` take `backend = "cuda"` (default
#' `"cpu"`): one GPU thread per value, in one kernel launch, runs the same
#' code as the CPU (univariate: the same cancellation-free exponent;
#' multivariate: each row's triangular solve, then its density), so the
#' results agree to rounding. `pgh()`, `qgh()` and `rgh()` run on the CPU
#' only.
#'
#' **Accuracy.** The density uses \eqn{\log K}{log K} computed in log space
#' ([log_besselK()]), so it is finite where the density underflows (far
#' tails, \eqn{\sqrt{ab}}{sqrt(ab)} in the thousands). In the univariate
#' case the exponent is rearranged on the heavy side so that \eqn{B} and
#' \eqn{\log K_q}{log K_q} do not cancel: the log density of a skew-t stays
#' accurate to about \eqn{10^{-15}}{1e-15} relative at
#' \eqn{|x| = 10^{6}}{|x| = 1e6} and beyond (the multivariate formula
#' loses about \eqn{10^{-16} |B|}{1e-16 |B|} absolute in a power tail).
#' `pgh()` integrates the density by double-exponential quadrature
#' (Takahasi and Mori 1974) from the point outward for the
#' smaller tail and over the pieces between the point, 0 and the mode for
#' the other one, so both tails are accurate relative to themselves
#' (`lower.tail = FALSE` has no cancellation, `log.p = TRUE` is finite far
#' beyond the range of doubles), power tails included. Against mpmath
#' references (`tools/make_gh_fixtures.py`) both tails are within about
#' \eqn{10^{-13}}{1e-13} relative and quantiles within \eqn{10^{-13}}{1e-13}
#' relative. `qgh()` inverts `pgh()` by Newton's method on the log of the
#' smaller tail, safeguarded by bisection. A first call for a parameter set
#' costs a few hundred density evaluations (the mode and the pieces around
#' it), each further point about a hundred, each quantile several times
#' that.
#'
#' **Random variates.** `rgh()` draws \eqn{Y} by [rgig()] and then
#' \eqn{Z} by [rnorm()], from R's generator, so [set.seed()] reproduces
#' the draws.
#'
#' @param x,q Numeric vector of quantiles; for `dgh()` also a matrix or data
#'   frame with one row per observation (multivariate).
#' @param prob Numeric vector of probabilities.
#' @param n Number of observations. If `length(n) > 1`, the length is taken
#'   to be the number required.
#' @param mu Location: a number (univariate) or a vector of length \eqn{d};
#'   or a distribution object from [gh_law()] in place of all the
#'   parameters (`dgh(x, law)`; univariate for `pgh()` and `qgh()`).
#' @param gamma Skewness: a number (univariate) or a vector of length
#'   \eqn{d}; 0 gives a symmetric distribution.
#' @param sigma Univariate: the scale, a positive number (standard-deviation
#'   like, \eqn{\Sigma = \sigma^2}{Sigma = sigma^2}). Multivariate: the
#'   \eqn{d \times d}{d x d} symmetric positive definite dispersion matrix
#'   \eqn{\Sigma}{Sigma}, or, for `dgh()` and `rgh()`, its factor form
#'   \eqn{F F' + \mathrm{diag}(D)}{F F' + diag(D)} made by [factor_cov()]
#'   (never formed: \eqn{O(d r)} per row). See Details.
#' @param p,a,b The parameters of the GIG mixing distribution (see
#'   [dgig()]): \eqn{a, b \ge 0}{a, b >= 0}, not both 0; \eqn{p < 0} when
#'   \eqn{a = 0}, \eqn{p > 0} when \eqn{b = 0}.
#' @param log,log.p If `TRUE`, densities and probabilities are given as
#'   their logarithms.
#' @param lower.tail If `TRUE` (the default), probabilities are
#'   \eqn{P(X \le x)}{P(X <= x)}, otherwise \eqn{P(X > x)}.
#' @inheritParams ghmix-params
#' @return `dgh()`: the density, a vector (one value per element of `x`, or
#'   per row of a multivariate `x`). `pgh()`, `qgh()`: probabilities and
#'   quantiles, vectors. `rgh()`: a vector of length `n` (univariate) or an
#'   `n` by \eqn{d} matrix (multivariate: when `sigma` is a matrix or `mu`
#'   or `gamma` has length \eqn{d > 1}).
#'
#' Invalid parameter values give `NaN` with a warning, as in base R's
#' [dnorm()] and in [dgig()]: a GIG parameter set outside the family
#' (\eqn{a < 0}, \eqn{b < 0}, \eqn{p}, \eqn{a} or \eqn{b} infinite,
#' \eqn{a = b = 0}, \eqn{a = 0} with \eqn{p \ge 0}, \eqn{b = 0} with
#' \eqn{p \le 0}), an infinite `mu` or `gamma` or a `sigma` that is not a
#' positive finite scale (univariate). Structural problems are errors of
#' class `ghmix_error_argument` naming the argument: non-numeric input, a
#' `sigma` that is not a symmetric positive definite matrix of the right
#' size (multivariate), lengths of `mu`, `gamma` that do not match the
#' dimension, `p`, `a`, `b` not single numbers (multivariate).
#' @references
#' Barndorff-Nielsen, O. E. (1977). Exponentially decreasing distributions
#' for the logarithm of particle size. *Proceedings of the Royal Society of
#' London A* 353, 401--419. \doi{10.1098/rspa.1977.0041}
#'
#' McNeil, A. J., Frey, R. and Embrechts, P. (2005). *Quantitative Risk
#' Management: Concepts, Techniques and Tools*. Princeton University Press.
#' Section 3.2.
#'
#' Takahasi, H. and Mori, M. (1974). Double exponential formulas for
#' numerical integration. *Publications of the Research Institute for
#' Mathematical Sciences, Kyoto University* 9, 721--741.
#' @family GH distribution
#' @seealso [dgig()] for the mixing distribution.
#' @name GH
#' @examples
#' # univariate NIG (p = -1/2) with skewness
#' dgh(c(-1, 0, 1), gamma = 0.5)
#' pgh(c(-1, 0, 1), gamma = 0.5)
#' qgh(c(0.01, 0.5, 0.99), gamma = 0.5)
#' pgh(50, gamma = 0.5, lower.tail = FALSE, log.p = TRUE)
#'
#' # sigma is a scale in one dimension ...
#' dgh(1, sigma = 2)
#' dgh(0.5) / 2
#' # ... and the dispersion matrix Sigma in several
#' S <- matrix(c(1, 0.5, 0.5, 2), 2)
#' x <- rbind(c(0, 0), c(1, -1))
#' dgh(x, mu = c(0, 0), gamma = c(0.2, 0), sigma = S)
#'
#' # Student t with 4 degrees of freedom: a = 0, p = -2, b = 4
#' dgh(1.5, p = -2, a = 0, b = 4)
#' dt(1.5, df = 4)
#'
#' set.seed(1)
#' y <- rgh(1000, gamma = 0.5)
#' mean(y)                     # E X = mu + gamma E Y
#' 0.5 * gig_mean(-0.5, 1, 1)
NULL

#' @rdname GH
#' @export
dgh <- function(x, mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1, b = 1,
                log = FALSE, backend = c("cpu", "cuda"), device = 0L,
                threads = ghmix_threads()) {
  if (inherits(mu, "ghmix_law")) {
    par <- law_dist_args1(mu)
    return(dgh(x, par$mu, par$gamma, par$sigma, par$p, par$a, par$b,
               log = log, backend = backend, device = device,
               threads = threads))
  }
  call <- sys.call()
  check_flag(log, "log", call = call)
  device <- check_device(device, call = call)
  threads <- check_threads(threads, call = call)
  if (inherits(sigma, "ghmix_factor_cov")) {
    return(dgh_factor(x, mu, gamma, sigma, p, a, b, log, backend, device,
                      threads, call))
  }
  if (is.data.frame(x) || is.matrix(x) || gh_sigma_is_matrix(sigma, x)) {
    return(dgh_multi(x, mu, gamma, sigma, missing(sigma), p, a, b, log,
                     backend, device, threads, call))
  }
  sigma <- gh_scale(sigma, call)
  check_numeric(x, "x", call = call)
  par <- gh1_valid_params(list(mu, gamma, sigma, p, a, b), length(x), call)
  backend <- check_backend(backend, call = call, device = device)
  out <- dgh1_call(x, par[[1L]], par[[2L]], par[[3L]], par[[4L]], par[[5L]],
                   par[[6L]], log, backend, device, threads)
  gig_finish(gh1_nan(out, par), list(x, mu, gamma, sigma, p, a, b), call)
}

#' @rdname GH
#' @export
pgh <- function(q, mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1, b = 1,
                lower.tail = TRUE, log.p = FALSE, # nolint
                threads = ghmix_threads()) {
  par <- law_or_params(mu, list(mu, gamma, sigma, p, a, b), sys.call())
  gh1_tail(ffi_pgh, q, "q", par, lower.tail, log.p, threads, sys.call())
}

#' @rdname GH
#' @export
qgh <- function(prob, mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1, b = 1,
                lower.tail = TRUE, log.p = FALSE, # nolint
                threads = ghmix_threads()) {
  par <- law_or_params(mu, list(mu, gamma, sigma, p, a, b), sys.call())
  gh1_tail(ffi_qgh, prob, "prob", par, lower.tail, log.p, threads,
           sys.call())
}

# pgh() and qgh(): checks, then the C function on the recycled vectors v
# (q or prob) and par = list(mu, gamma, sigma, p, a, b).
gh1_tail <- function(ffi, v, v_name, par, lower_tail, log_p, threads,
                     call) {
  check_numeric(v, v_name, call = call)
  par[3L] <- list(gh_scale(par[[3L]], call))
  ok_par <- gh1_valid_params(par, length(v), call)
  check_flag(lower_tail, "lower.tail", call = call)
  check_flag(log_p, "log.p", call = call)
  threads <- check_threads(threads, call = call)
  # values only in the argument list (no language objects for do.call to
  # evaluate); a symbol held in a variable would defeat R CMD check's
  # registration check of .Call(ffi, ...)
  args <- c(list(ffi), lapply(c(list(v), ok_par), as.double),
            list(lower_tail, log_p, threads))
  out <- do.call(.Call, args)
  gig_finish(gh1_nan(out, ok_par), c(list(v), par), call)
}

#' @rdname GH
#' @export
rgh <- function(n, mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1, b = 1) {
  if (inherits(mu, "ghmix_law")) {
    par <- if (law_dim(mu) == 1L) law_dist_args1(mu) else law_dist_args(mu)
    return(rgh(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b))
  }
  call <- sys.call()
  n <- check_n(n, call)
  if (rgh_is_multi(mu, gamma, sigma)) {
    return(rgh_multi(n, mu, gamma, sigma, missing(sigma), p, a, b, call))
  }
  par <- gh1_valid_params(list(mu, gamma, sigma, p, a, b), n, call)
  if (n == 0) {
    return(numeric())
  }
  if (min(lengths(par)) == 0L) {
    warning(simpleWarning("NAs produced", call))
    return(rep(NA_real_, n))
  }
  y <- rgig(n, par[[4L]], par[[5L]], par[[6L]])
  z <- stats::rnorm(n)
  out <- rep_len(as.double(par[[1L]]), n) +
    y * rep_len(as.double(par[[2L]]), n) +
    sqrt(y) * rep_len(as.double(par[[3L]]), n) * z
  if (anyNA(out)) {
    warning(simpleWarning("NAs produced", call))
  }
  if (!is.null(attr(par, "invalid"))) {
    warning(simpleWarning("NaNs produced", call))
  }
  gh1_nan(out, par)
}

#' @rdname GH
#' @export
dnig <- function(x, mu = 0, gamma = 0, sigma = 1, a = 1, b = 1, log = FALSE,
                 backend = c("cpu", "cuda"), device = 0L,
                 threads = ghmix_threads()) {
  if (missing(sigma)) {
    # (the identity for a multivariate x)
    dgh(x, mu = mu, gamma = gamma, p = -0.5, a = a, b = b, log = log,
        backend = backend, device = device, threads = threads)
  } else {
    dgh(x, mu = mu, gamma = gamma, sigma = sigma, p = -0.5, a = a, b = b,
        log = log, backend = backend, device = device, threads = threads)
  }
}

#' @rdname GH
#' @export
pnig <- function(q, mu = 0, gamma = 0, sigma = 1, a = 1, b = 1,
                 lower.tail = TRUE, log.p = FALSE, # nolint
                 threads = ghmix_threads()) {
  pgh(q, mu = mu, gamma = gamma, sigma = sigma, p = -0.5, a = a, b = b,
      lower.tail = lower.tail, log.p = log.p, threads = threads)
}

#' @rdname GH
#' @export
qnig <- function(prob, mu = 0, gamma = 0, sigma = 1, a = 1, b = 1,
                 lower.tail = TRUE, log.p = FALSE, # nolint
                 threads = ghmix_threads()) {
  qgh(prob, mu = mu, gamma = gamma, sigma = sigma, p = -0.5, a = a, b = b,
      lower.tail = lower.tail, log.p = log.p, threads = threads)
}

#' @rdname GH
#' @export
rnig <- function(n, mu = 0, gamma = 0, sigma = 1, a = 1, b = 1) {
  if (missing(sigma)) {
    rgh(n, mu = mu, gamma = gamma, p = -0.5, a = a, b = b)
  } else {
    rgh(n, mu = mu, gamma = gamma, sigma = sigma, p = -0.5, a = a, b = b)
  }
}

# Helpers ---------------------------------------------------------------------

# The univariate parameters of pgh() and qgh(): those of a law given as
# `mu` (which must be univariate), else par.
law_or_params <- function(mu, par, call) {
  if (!inherits(mu, "ghmix_law")) {
    return(par)
  }
  if (law_dim(mu) != 1L) {
    abort_argument(
      sprintf(
        "`mu` is a law of dimension %d; pgh() and qgh() are univariate.",
        law_dim(mu)
      ),
      call
    )
  }
  unname(law_dist_args1(mu))
}

# A vector x with a d x d matrix sigma, d > 1: one multivariate observation.
# (A 1 x 1 matrix with a vector x stays univariate: see gh_scale().)
gh_sigma_is_matrix <- function(sigma, x) {
  is.matrix(sigma) && (nrow(sigma) > 1L || ncol(sigma) > 1L)
}

# The univariate scale: a 1 x 1 matrix is Sigma = sigma^2.
gh_scale <- function(sigma, call) {
  if (!is.matrix(sigma)) {
    return(sigma)
  }
  if (!identical(dim(sigma), c(1L, 1L))) {
    abort_argument(
      sprintf(
        paste(
          "`sigma` is a %d x %d matrix, but the distribution is univariate",
          "here: pass a scale (a number), or Sigma as a 1 x 1 matrix."
        ),
        nrow(sigma), ncol(sigma)
      ),
      call
    )
  }
  check_numeric(sigma, "sigma", call = call)
  s <- as.double(sigma)
  if (!is.na(s) && !(s > 0 && is.finite(s))) {
    abort_argument("`sigma` (as a 1 x 1 matrix Sigma) must be positive.", call)
  }
  sqrt(s)
}

# The recycled elements where a parameter given (not NA) is invalid: mu or
# gamma infinite, sigma not a positive finite scale, (p, a, b) no GIG.  Of
# the length of the longest parameter where the others' lengths divide it
# (the pattern of the results then repeats with it), else of the results
# (nv: the data's length).
gh1_invalid <- function(par, nv) {
  lens <- lengths(par)
  n <- if (all(max(lens) %% lens == 0L)) max(lens) else max(nv, lens)
  v <- lapply(par, function(u) rep_len(as.double(u), n))
  bad <- is.infinite(v[[1L]]) | is.infinite(v[[2L]]) |
    (!is.na(v[[3L]]) & !(v[[3L]] > 0 & is.finite(v[[3L]])))
  bad[is.na(bad)] <- FALSE
  bad | gig_invalid(v[[4L]], v[[5L]], v[[6L]])
}

# The recycled (p, a, b) that are no GIG parameter set (NA: FALSE).
gig_invalid <- function(p, a, b) {
  bad <- is.infinite(p) | is.infinite(a) | is.infinite(b) | a < 0 | b < 0 |
    (a == 0 & b == 0) | (a == 0 & p >= 0) | (b == 0 & p <= 0)
  bad & !(is.na(p) | is.na(a) | is.na(b))
}

# Univariate parameters (list(mu, gamma, sigma, p, a, b)), checked for type,
# for data of length nv: the list with invalid elements replaced by those
# of the standard NIG (for the C code), marked by attribute "invalid" (the
# elements whose result is NaN: gh1_nan()).
gh1_valid_params <- function(par, nv, call) {
  arg <- c("mu", "gamma", "sigma", "p", "a", "b")
  for (k in seq_along(par)) check_numeric(par[[k]], arg[[k]], call = call)
  if (min(lengths(par)) == 0L) {
    return(par)
  }
  bad <- gh1_invalid(par, nv)
  if (any(bad)) {
    std <- list(0, 0, 1, -0.5, 1, 1)
    par <- lapply(seq_along(par), function(k) {
      u <- rep_len(as.double(par[[k]]), length(bad))
      u[bad] <- std[[k]]
      u
    })
    attr(par, "invalid") <- bad
  }
  par
}

# out with NaN where gh1_valid_params() found invalid parameters.
gh1_nan <- function(out, par) {
  bad <- attr(par, "invalid")
  if (!is.null(bad) && length(out) > 0L) {
    out[rep_len(bad, length(out))] <- NaN
  }
  out
}

# Multivariate parameters for dimension d: mu and gamma finite vectors of
# length d (or 1), Sigma a symmetric positive definite d x d matrix, p, a, b
# one valid GIG set.  Returns list(mu, gamma, chol), chol = R with
# R'R = Sigma.
check_ghmv_params <- function(mu, gamma, sigma, sigma_missing, p, a, b, d,
                              call) {
  mu <- check_gh_vector(mu, "mu", d, call)
  gamma <- check_gh_vector(gamma, "gamma", d, call)
  for (arg in c("p", "a", "b")) {
    v <- get(arg)
    check_numeric(v, arg, call = call)
    if (length(v) != 1L || is.na(v)) {
      abort_argument(
        sprintf(
          "`%s` must be a single number for a multivariate distribution.", arg
        ),
        call
      )
    }
  }
  if (sigma_missing) {
    sigma <- diag(d)
  }
  list(mu = mu, gamma = gamma, chol = check_sigma_matrix(sigma, d, call))
}

check_gh_vector <- function(v, arg, d, call) {
  check_numeric(v, arg, call = call)
  if (!(length(v) %in% c(1L, d))) {
    abort_argument(
      sprintf("`%s` must have length %d (the dimension), not %d.",
              arg, d, length(v)),
      call
    )
  }
  if (anyNA(v) || any(is.infinite(v))) {
    abort_argument(sprintf("`%s` must be finite.", arg), call)
  }
  rep_len(as.double(v), d)
}

# The Cholesky factor R (R'R = Sigma) of a valid d x d Sigma.
check_sigma_matrix <- function(sigma, d, call) {
  if (!is.matrix(sigma)) {
    abort_argument(
      sprintf(
        paste(
          "`sigma` must be the %d x %d dispersion matrix Sigma for a",
          "multivariate distribution, not a %s."
        ),
        d, d, type_name(sigma)
      ),
      call
    )
  }
  check_numeric(sigma, "sigma", call = call)
  if (!identical(dim(sigma), c(d, d))) {
    abort_argument(
      sprintf("`sigma` must be a %d x %d matrix, not %d x %d.", d, d,
              nrow(sigma), ncol(sigma)),
      call
    )
  }
  storage.mode(sigma) <- "double"
  if (anyNA(sigma) || any(is.infinite(sigma))) {
    abort_argument("`sigma` must be finite.", call)
  }
  if (max(abs(sigma - t(sigma))) > 100 * .Machine$double.eps *
        max(abs(sigma))) {
    abort_argument("`sigma` must be symmetric.", call)
  }
  r <- tryCatch(chol(sigma), error = function(e) NULL)
  if (is.null(r) || min(diag(r)) <= 0) {
    abort_argument("`sigma` must be positive definite.", call)
  }
  r
}

# x as a numeric n x d matrix for the multivariate density.
gh_as_matrix <- function(x, sigma, call) {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(v) {
      (is.double(v) || is.integer(v) || is.logical(v)) && !is.factor(v)
    }, logical(1))
    if (!all(ok)) {
      abort_argument(
        sprintf("`x` must have numeric columns only; column %s is not.",
                names(x)[!ok][1L]),
        call
      )
    }
    x <- as.matrix(x)
  }
  check_numeric(x, "x", call = call)
  if (!is.matrix(x)) {
    d <- nrow(sigma)
    if (length(x) != d) {
      abort_argument(
        sprintf(
          paste(
            "`x` has length %d but `sigma` is %d x %d: pass a matrix with one",
            "row per observation (a vector of length %d is one observation)."
          ),
          length(x), d, d, d
        ),
        call
      )
    }
    x <- matrix(x, nrow = 1L, dimnames = list(NULL, names(x)))
  }
  storage.mode(x) <- "double"
  x
}

dgh_multi <- function(x, mu, gamma, sigma, sigma_missing, p, a, b, log,
                      backend, device, threads, call) {
  x <- gh_as_matrix(x, sigma, call)
  d <- ncol(x)
  if (d == 0L) {
    abort_argument("`x` has no columns.", call)
  }
  par <- check_ghmv_params(mu, gamma, sigma, sigma_missing, p, a, b, d, call)
  backend <- check_backend(backend, call = call, device = device)
  if (gig_invalid(p, a, b)) {
    warning(simpleWarning("NaNs produced", call))
    return(stats::setNames(rep(NaN, nrow(x)), rownames(x)))
  }
  if (d == 1L) {
    # the univariate functions (their exponent is cancellation-free)
    out <- dgh1_call(x[, 1L], par$mu, par$gamma, par$chol[1L, 1L], p, a, b,
                     log, backend, device, threads)
  } else {
    # g = R'^-1 gamma, gamma' sigma^-1 gamma and log det sigma from C
    chol_l <- t(par$chol)
    k <- mix_consts(chol_l, par$gamma, p, a, b)
    out <- if (backend == "cuda") {
      # one GPU thread per row: its triangular solve, Q, B and the density
      .Call(ffi_cuda_mix_rows, x, as.double(par$mu), chol_l, k$g, k$consts,
            ghmix_flags("estep", "moments"), FALSE, log, device)
    } else {
      # Q and B from one triangular solve of all rows: u = R'^-1 (x - mu)
      u <- backsolve(par$chol, t(x) - par$mu, transpose = TRUE)
      q <- colSums(u * u)
      bz <- as.double(crossprod(k$g, u))
      out <- .Call(ffi_dgh_rows, as.double(q), bz, d, as.double(p),
                   as.double(a), as.double(b), k$consts[["gsg"]],
                   k$consts[["logdet"]], log, threads)
      # Q overflowed, or the heavy side far out (B - omega cancels; C
      # marks those rows): the E-step's rows, which have the exact forms
      # of src/core/mixture.h
      heavy <- seq_along(q) %in% attr(out, "heavy")
      attr(out, "heavy") <- NULL
      far <- (is.infinite(q) | heavy) & rowSums(!is.finite(x)) == 0
      if (any(far)) {
        out[far] <- dgh_far_rows(x[far, , drop = FALSE], par, chol_l, p, a,
                                 b, log, threads)
      }
      out
    }
  }
  dgh_nonfinite_rows(out, x, log)
}

# The densities out of the rows x with the rows that are not finite set:
# rows with NA give NA (NaN for NaN only); rows with an infinite
# coordinate and no NA density 0.
dgh_nonfinite_rows <- function(out, x, log) {
  na_row <- rowSums(is.na(x)) > 0
  if (any(na_row)) {
    nan_only <- rowSums(is.na(x) & !is.nan(x)) == 0
    out[na_row] <- ifelse(nan_only[na_row], NaN, NA_real_)
  }
  inf_row <- !na_row & rowSums(is.infinite(x)) > 0
  out[inf_row] <- if (log) -Inf else 0
  names(out) <- rownames(x)
  out
}

# The density at rows whose Q overflows (|x - mu| beyond ~1e154 in units
# of Sigma), or far out on the heavy side: the E-step's rows, which take
# |L^-1 (x - mu)| with a scale and B - omega without the cancellation.
dgh_far_rows <- function(x, par, chol_l, p, a, b, log, threads) {
  fit_par <- list(mu = par$mu, gamma = par$gamma, p = p, a = a, b = b)
  rows <- mix_estep(mix_engine_cpu(x, threads), fit_par, mix_what_rows(),
                    rows = TRUE, chol_l = chol_l)$rows
  lf <- rows[, estep_row_columns()[["loglik"]]]
  if (log) lf else exp(lf)
}

# The univariate density on the chosen backend (arguments checked).
dgh1_call <- function(x, mu, gamma, sigma, p, a, b, log, backend, device,
                      threads) {
  .Call(ffi_dgh1, as.double(x), as.double(mu), as.double(gamma),
        as.double(sigma), as.double(p), as.double(a), as.double(b), log,
        threads, device_arg(backend, device))
}

# Whether rgh() draws multivariate rows.
rgh_is_multi <- function(mu, gamma, sigma) {
  is.matrix(sigma) || inherits(sigma, "ghmix_factor_cov") ||
    length(mu) > 1L || length(gamma) > 1L
}

rgh_multi <- function(n, mu, gamma, sigma, sigma_missing, p, a, b, call) {
  if (inherits(sigma, "ghmix_factor_cov")) {
    return(rgh_factor(n, mu, gamma, sigma, p, a, b, call))
  }
  d <- if (is.matrix(sigma)) nrow(sigma) else max(length(mu), length(gamma))
  par <- check_ghmv_params(mu, gamma, sigma, sigma_missing, p, a, b, d, call)
  invalid <- gig_invalid(p, a, b)
  if (invalid) { # NaN draws (the NIG's variates consumed)
    p <- -0.5
    a <- b <- 1
  }
  y <- rgig(n, p, a, b)
  z <- matrix(stats::rnorm(n * d), n, d)
  x <- (sqrt(y) * z) %*% par$chol + outer(y, par$gamma)
  x <- x + rep(par$mu, each = n)
  if (invalid && n > 0) {
    x[] <- NaN
    warning(simpleWarning("NaNs produced", call))
  }
  nm <- names(mu)
  if (is.null(nm)) nm <- colnames(sigma)
  colnames(x) <- nm
  x
}
