#' Control settings of the EM fitters
#'
#' @param max_iter Most EM iterations (accelerated cycles count as one): a
#'   whole number from 1 to `.Machine$integer.max`. The trace of the
#'   iterations grows as they run, so a large limit costs nothing until it is
#'   used.
#' @param tol Convergence tolerance on the change of the mean log-likelihood
#'   (log-likelihood divided by the number of rows) between iterations: a
#'   finite number, 0 or more. The mean log-likelihood changes only by a
#'   constant when the data are rescaled, so this rule does not depend on
#'   the units of the data. `tol = 0` (or `param_tol = 0`) turns the rule
#'   off, as `reltol = 0` does in [stats::optim()]: the fit runs `max_iter`
#'   iterations (unless it stops at a singularity or a failed step) and
#'   reports `converged = FALSE`.
#' @param param_tol Tolerance on the largest relative change of the
#'   parameters, measured after standardising the data's columns (so again
#'   free of units): a finite number, 0 or more. Both tolerances must be
#'   met.
#' @param trace `TRUE` prints one line per iteration.
#' @param accelerate `TRUE` (default) uses SQUAREM extrapolation (Varadhan and
#'   Roland 2008); an extrapolated step is taken only when its log-likelihood
#'   is at least that of two plain EM steps, so the log-likelihood never
#'   decreases.
#' @param singular_tol Threshold for detecting a fit that runs into the
#'   singularity of the likelihood at repeated rows (see the ties section of
#'   [fit_gh()]): a positive finite number.
#' @return An object of class `"ghmix_control"`.
#' @family fitting
#' @export
#' @examples
#' ghmix_control(max_iter = 200, trace = FALSE)
ghmix_control <- function(max_iter = 1000L, tol = 1e-10, param_tol = 1e-6,
                          trace = FALSE, accelerate = TRUE,
                          singular_tol = 1e-6) {
  call <- sys.call()
  if (!is_count(max_iter) || max_iter > .Machine$integer.max) {
    abort_argument(
      sprintf("`max_iter` must be a whole number from 1 to %d.",
              .Machine$integer.max),
      call
    )
  }
  check_tolerance(tol, "tol", call)
  check_tolerance(param_tol, "param_tol", call)
  check_tolerance(singular_tol, "singular_tol", call, zero = FALSE)
  check_flag(trace, "trace", call)
  check_flag(accelerate, "accelerate", call)
  structure(
    list(
      max_iter = as.integer(max_iter), tol = tol, param_tol = param_tol,
      trace = trace, accelerate = accelerate, singular_tol = singular_tol
    ),
    class = "ghmix_control"
  )
}

# A finite number, > 0 (or >= 0 when zero is allowed).
check_tolerance <- function(val, arg, call, zero = TRUE) {
  ok <- is.numeric(val) && !is.factor(val) && length(val) == 1L &&
    isTRUE(is.finite(val) && (val > 0 || (zero && val == 0)))
  if (!ok) {
    abort_argument(
      sprintf("`%s` must be a finite number, %s.", arg,
              if (zero) "0 or more" else "more than 0"),
      call
    )
  }
}

#' @export
print.ghmix_control <- function(x, ...) {
  cat("<ghmix_control>\n")
  utils::str(unclass(x), no.list = TRUE, give.head = FALSE)
  invisible(x)
}

#' Fit normal variance-mean mixtures (NIG, GH, VG, skew-t) by EM
#'
#' Maximum-likelihood fits of the generalized hyperbolic family and its
#' members by the EM algorithm, for univariate (`d = 1`) and multivariate
#' data alike:
#' \deqn{X = \mu + Y\gamma + \sqrt{Y}\,\Sigma^{1/2} Z,\quad
#'   Z \sim N(0, I_d),\quad Y \sim \mathrm{GIG}(p, a, b).}{X = mu + Y gamma +
#'   sqrt(Y) Sigma^(1/2) Z, Z ~ N(0, I), Y ~ GIG(p, a, b).}
#' `fit_gh()` estimates all of \eqn{(p, a, b)}; `fit_nig()` fixes
#' \eqn{p = -1/2} (normal inverse Gaussian), `fit_vg()` \eqn{b = 0} (variance
#' gamma: gamma mixing) and `fit_skewt()` \eqn{a = 0} (the GH skew-t:
#' inverse-gamma mixing). `symmetric = TRUE` fixes \eqn{\gamma = 0}.
#'
#' @section Algorithm: Each iteration is one E-step, which sums the posterior
#'   moments \eqn{E[1/Y|x]}, \eqn{E[Y|x]} (and \eqn{E[\log Y|x]}) over the
#'   rows in compiled code (threads, or a GPU with `backend = "cuda"`), and a
#'   closed-form M-step for \eqn{\mu, \gamma, \Sigma}; the mixing
#'   distribution's parameters are the maximum-likelihood GIG (or gamma,
#'   inverse-gamma, inverse-Gaussian) for the expected sufficient statistics,
#'   computed by [gig_from_expectation()]'s solver. The log-likelihood never
#'   decreases from one iteration to the next (see `trace` in the result).
#'   `fit_gh()` starts by default from the fitted NIG, so its log-likelihood
#'   is at least the NIG's.
#'
#' @section Gauge: The model is unchanged by \eqn{Y \to sY} with
#'   \eqn{(\gamma, \Sigma, a, b) \to (\gamma/s, \Sigma/s, a/s, bs)}, so one
#'   scale must be fixed. `gauge = "mean"` (the default) reports parameters
#'   with \eqn{E[Y] = 1}, so that \eqn{\Sigma} is on the scale of the
#'   covariance (ghyp's alpha-bar parametrisation does the same);
#'   `gauge = "det"` with \eqn{\det\Sigma = 1}. When \eqn{E[Y]} is infinite
#'   (a skew-t with \eqn{p \ge -1}) the fit is reported in the `"det"` gauge
#'   with a warning.
#'
#' @section Ties: Repeated identical rows (zero returns on market holidays,
#'   for instance) make the likelihood unbounded: with \eqn{\mu} at a point
#'   that holds \eqn{n_0} of the \eqn{n} rows and \eqn{b \to 0}, the density
#'   there grows without bound faster than the rest of the likelihood falls.
#'   For GH and VG (with \eqn{p \le d/2}) one repeated row is enough; for the
#'   skew-t too, since its degrees of freedom can shrink with \eqn{b}; for
#'   the NIG it takes \eqn{n_0 > n/(d + 1)} (its density at the point grows
#'   as \eqn{b^{-d/2}} and falls as \eqn{b^{1/2}} elsewhere). The fitters
#'   warn (class `ghmix_warning_ties`) when the data hold such ties, and if
#'   the iterations run towards the singularity at a repeated point (of any
#'   family) they stop and report `converged = FALSE` with a message rather
#'   than a runaway log-likelihood.
#'
#' @section Units: A fit does not depend on the units of the data: the fit
#'   of \eqn{Dx + c} (\eqn{D} diagonal) is that of \eqn{x} transformed, to
#'   the convergence tolerance. Data whose scale would strain the doubles
#'   are fitted standardised: when a column's standard deviation \eqn{s_j}
#'   lies outside \eqn{[2^{-128}, 2^{128}]} (or is not finite), or its mean
#'   exceeds \eqn{2^{26} s_j} in size (a large shift, which would leave
#'   \eqn{\mu} few digits below the spread), every column is fitted as
#'   \eqn{(x_j - c_j) / t_j}, with \eqn{c_j} the column's median and
#'   \eqn{t_j} a power of two near its interquartile range / 1.349 (its
#'   standard deviation if that is 0). The parameters, log-likelihood (less
#'   \eqn{n \sum_j \log t_j}) and trace are reported in the data's units, and
#'   the fit keeps `scaling` (`center`, `scale`, and the `parameters` in the
#'   standardised units) for `predict()`, `fitted()`, `vcov()`,
#'   `simulate()`, `coef()` and `plot()`, which compute there. Where a
#'   parameter cannot be represented in the data's units (\eqn{\Sigma} of
#'   data on a scale of 1e160 is 1e320), the fit warns (class
#'   `ghmix_warning_scale`). Chunked data ([ghmix_data()]) are fitted in
#'   their own units; for them such a scale is an error.
#'
#' @section Chunked data and clusters: `x` may be a [ghmix_data()]
#'   description of data held in chunks (matrices, `.rds` or `.csv` files,
#'   or functions that return a chunk), which is never gathered in one
#'   place. Without a cluster it is fitted out of core: each E-step reads the
#'   chunks one at a time, so memory is bounded by the largest chunk. With a
#'   `parallel` cluster each worker reads its share of the chunks once, keeps
#'   them in memory, and computes their E-step statistics with its own
#'   threads (`threads` per worker, capped by its processors) or its own GPU
#'   (`backend = "cuda"`, device `device`); only the parameters (out) and the
#'   statistics (back), a few kilobytes, cross the network at each
#'   iteration, and the M-step runs here. A future plan's workers keep no
#'   state from one future to the next, so they read their chunks at every
#'   E-step: use file- or function-backed chunks there. A matrix `x` with a
#'   cluster is split into one chunk of rows per worker. The statistics of
#'   the chunks are added here in chunk order, so the same chunks give the
#'   same fit, bit for bit, whatever the number of workers and wherever
#'   they run. The in-memory fit of the same rows adds them in another
#'   order: its iterations differ from the chunked fit's by rounding, which
#'   can flip an acceptance of an accelerated step or the iteration at which
#'   the tolerances are met, so the two are the same fit to the convergence
#'   tolerance (mean log-likelihoods within about `tol`, standardised
#'   parameters within about `param_tol`; much closer in most fits).
#'
#'   The result is the same fit object; for chunked data its `data` is the
#'   [ghmix_data()] description, which `vcov()` (and so `summary()`),
#'   `fitted()` and `predict()` read chunk by chunk; `plot()` needs the rows
#'   in memory and gives an error of class `ghmix_error_chunked`. The
#'   element `distributed` reports the mode, workers, chunks, worker time and
#'   bytes sent and received (`timings` gains `comm`: time in E-steps beyond
#'   the workers' own). With `control = ghmix_control(trace = TRUE)` each
#'   iteration prints one line with the log-likelihood and the seconds spent
#'   in the E-step (the slowest worker), the M-step and communication.
#'
#'   If a worker dies or a chunk cannot be read, the fit stops with an error
#'   of class `ghmix_error_cluster` or `ghmix_error_chunk` whose fields
#'   `worker`, `chunk`, `iteration` and `parameters` say where it stopped;
#'   `start = e$parameters` resumes from the last parameters. On an
#'   interrupt or an error the workers release the chunks of the fit.
#'
#' @param x A numeric vector (d = 1), matrix or data frame of numeric columns
#'   (rows are observations), or chunked data described by [ghmix_data()].
#'   Column names carry through to the results.
#' @param symmetric `TRUE` fixes \eqn{\gamma = 0}.
#' @param start Starting values: a previous fit (any family) or a list with
#'   elements `mu`, `gamma`, `sigma`, and the mixing parameters `p`, `a`, `b`
#'   (those fixed by the family may be left out). By default: column means,
#'   \eqn{\gamma = 0}, the sample covariance, and a mixing distribution with
#'   mean 1; `fit_gh()` starts from `fit_nig()`. A start at the normal limit
#'   of the NIG or GH family (very large `a` and `b`, e.g. 1e300) stays
#'   there: the likelihood is flat to first order in the mixing parameters
#'   and an EM step moves them by O(1/sqrt(ab)); the fit then warns (class
#'   `ghmix_warning_normal_limit`) when the likelihood rises away from the
#'   limit, i.e. when the limit is not a maximum.
#' @param fixed `fit_gh()` only: `NULL`, or a named list of parameters held
#'   at the given values during the EM (conditional M-steps): `p` (a single
#'   number; `p = (d + 1) / 2` is the hyperbolic law, [fit_hyperbolic()]),
#'   `mu` (`d` numbers, in the data's units) and `gamma = 0` (the same as
#'   `symmetric = TRUE`). `gamma` other than 0, `a` and `b` change with the
#'   gauge's scale of \eqn{Y} and cannot be held (an error of class
#'   `ghmix_error_argument`, as for values that are not finite or of the
#'   wrong length). The fit's `df` counts only the free parameters and its
#'   element `fixed` keeps the list; `vcov()` (and so `summary()`) is not
#'   available yet for such fits.
#' @param control A [ghmix_control()] object.
#' @param gauge `"mean"` or `"det"`; see the Gauge section.
#' @param na.rm `FALSE` (default): rows with `NA`, `NaN` or infinite values
#'   are an error naming them; `TRUE` drops them (their numbers are kept in
#'   the result's `na_action`).
#' @param cluster `NULL` (default) fits in this R process. A cluster made by
#'   the parallel package ([parallel::makeCluster()],
#'   [parallel::makePSOCKcluster()] with workers on other hosts over SSH,
#'   MPI through snow, or `parallelly::makeClusterPSOCK()`) spreads the
#'   E-steps over its workers; `"future"` over the workers of the current
#'   [future::plan()] (multisession, cluster, or an HPC scheduler through
#'   future.batchtools). See the Chunked data and clusters section.
#' @inheritParams ghmix-params
#' @return An object of class `c("ghmix_fit_<family>", "ghmix_fit")`: a list
#'   with `parameters` (`mu`, `gamma`, `sigma`, `p`, `a`, `b`), `loglik`,
#'   `df`, `nobs`, `iterations`, `converged`, `message`, `trace` (one row per
#'   iteration: log-likelihood, step kind), `timings` (seconds: total, E-step,
#'   M-step; and the number of E-steps), `gauge`, `family`, `symmetric`,
#'   `ties`, `na_action` and the data. Methods: `print()`, `summary()`,
#'   `coef()`, `logLik()` (so `AIC()` and `BIC()` work), `vcov()`,
#'   `fitted()`, `predict()`, `simulate()` and `plot()`.
#' @references McNeil, A. J., Frey, R. and Embrechts, P. (2005).
#'   *Quantitative Risk Management*, section 3.2.4 (EM for generalized
#'   hyperbolic distributions). Protassov, R. S. (2004). EM-based maximum
#'   likelihood parameter estimation for multivariate generalized hyperbolic
#'   distributions with fixed lambda. *Statistics and Computing* 14, 67-77.
#'   Varadhan, R. and Roland, C. (2008). Simple and globally convergent
#'   methods for accelerating the convergence of any EM algorithm.
#'   *Scandinavian Journal of Statistics* 35, 335-353.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r)
#' fit
#' fit_dax <- fit_nig(r[, "DAX"])
#' coef(fit_dax, parametrization = "alpha")
#' AIC(fit_dax, fit_nig(r[, "DAX"], symmetric = TRUE))
fit_nig <- function(x, symmetric = FALSE, start = NULL,
                    control = ghmix_control(), gauge = c("mean", "det"),
                    na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                    threads = ghmix_threads(), device = 0L,
                    cluster = NULL) {
  mix_fit(
    x, "nig", symmetric, start, control, gauge, na.rm, backend, threads,
    device, sys.call(), cluster
  )
}

#' @rdname fit_nig
#' @export
fit_gh <- function(x, symmetric = FALSE, start = NULL,
                   control = ghmix_control(), gauge = c("mean", "det"),
                   na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                   threads = ghmix_threads(), device = 0L,
                   cluster = NULL, fixed = NULL) {
  mix_fit(
    x, "gh", symmetric, start, control, gauge, na.rm, backend, threads,
    device, sys.call(), cluster, fixed = fixed
  )
}

#' @rdname fit_nig
#' @export
fit_vg <- function(x, symmetric = FALSE, start = NULL,
                   control = ghmix_control(), gauge = c("mean", "det"),
                   na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                   threads = ghmix_threads(), device = 0L,
                   cluster = NULL) {
  mix_fit(
    x, "vg", symmetric, start, control, gauge, na.rm, backend, threads,
    device, sys.call(), cluster
  )
}

#' @rdname fit_nig
#' @export
fit_skewt <- function(x, symmetric = FALSE, start = NULL,
                      control = ghmix_control(), gauge = c("mean", "det"),
                      na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                      threads = ghmix_threads(), device = 0L,
                    cluster = NULL) {
  mix_fit(
    x, "skewt", symmetric, start, control, gauge, na.rm, backend, threads,
    device, sys.call(), cluster
  )
}
