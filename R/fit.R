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
#' @param online `NULL` (default): the batch EM over all rows; or a
#'   [ghmix_online()] object: online EM, one pass over mini-batches of
#'   `x` (a matrix, a [ghmix_data()] description, or a function that
#'   returns the next batch); see [ghmix_online()] (also with `factors`,
#'   `shrink`, and `fixed` `mu`, `p` or `gamma = 0`).
#' @section Progress: Work that runs many fits or many E-steps reports
#'   its progress through the progressr package (when it is installed):
#'   one signal per fit of a model-selection loop (`components = 1:6`, each
#'   G; [fit_families()], each family), per start screened for a mixture
#'   (k-means, hierarchical, each random start), per fold fit of
#'   `shrink = ghmix_shrink(weight = "cv")` (8 intensities times 5 folds)
#'   and per column of the observed information of `vcov()` (and so of
#'   `summary()`, [confint()][confint.ghmix_fit()] and
#'   [tidy()][ghmix_tidiers]; each column costs two E-steps). They are
#'   silent unless handlers are enabled, as progressr leaves that choice
#'   to the user: wrap the call in `progressr::with_progress()`, or call
#'   `progressr::handlers(global = TRUE)` once (and choose a style with
#'   `progressr::handlers("txtprogressbar")`, `"progress"`, `"cli"`,
#'   ...). The signals change no number and draw no random numbers.
#'   `trace = TRUE` is the other, finer report: one line per EM
#'   iteration.
#' @return An object of class `"ghmix_control"`.
#' @family fitting
#' @export
#' @examples
#' ghmix_control(max_iter = 200, trace = FALSE)
#' \donttest{
#' # a progress bar over the fits of a model selection
#' if (requireNamespace("progressr", quietly = TRUE)) {
#'   progressr::with_progress(
#'     fit_nig(faithful, components = 1:3)
#'   )
#' }
#' }
ghmix_control <- function(max_iter = 1000L, tol = 1e-10, param_tol = 1e-6,
                          trace = FALSE, accelerate = TRUE,
                          singular_tol = 1e-6, online = NULL) {
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
  if (!is.null(online) && !inherits(online, "ghmix_online")) {
    abort_argument("`online` must be NULL or made by ghmix_online().", call)
  }
  structure(
    list(
      max_iter = as.integer(max_iter), tol = tol, param_tol = param_tol,
      trace = trace, accelerate = accelerate, singular_tol = singular_tol,
      online = online
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
#' inverse-gamma mixing). `symmetric = TRUE` fixes \eqn{\gamma = 0}, and
#' `fixed` holds other parameters (the section Held parameters).
#'
#' A fit is an estimate: `coef()` gives the estimated parameters, `vcov()`
#' the covariance of those estimates (their standard errors: `summary()`,
#' [confint()][confint.ghmix_fit()], [tidy()][ghmix_tidiers]). The
#' distribution it estimates is a law, [gh_law()]`(fit)`, with `mean()`,
#' `vcov()` (the covariance of \eqn{X}), quantiles ([qgh()]) and risk
#' measures; `mean(fit)` is that law's mean, as for ghyp's fits (see
#' [mean.ghmix_fit()]), while `vcov(fit)` stays the covariance of the
#' estimates.
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
#'   `ghmix_warning_scale`). Mixtures (`components`) of rows in memory are
#'   fitted standardised the same way: \eqn{\Sigma_k \to D\Sigma_k D}{Sigma_k
#'   -> D Sigma_k D} back in the data's units, and `scaling` holds the
#'   components in the standardised units, which `predict()` and
#'   `simulate()` use; `vcov()` of such a mixture is an error of class
#'   `ghmix_error_scale` where a parameter cannot be represented in the
#'   data's units, and with `shrink` the target must be `"diagonal"`.
#'   Chunked data ([ghmix_data()]) are fitted in their own units; for them
#'   such a scale is an error.
#'
#' @section Rows far from the rest: A row at \eqn{D} robust spreads
#'   (IQR / 1.349) from the column medians dominates the EM's sums of
#'   squares, and its M-step rounds from about \eqn{D = 10^{13}} (skew-t:
#'   \eqn{10^6}), though the maximum is an ordinary one (for the NIG,
#'   \eqn{\sqrt{ab} \approx n \delta^2 \alpha / D}; the GH's, in the cases
#'   tried, lies on its skew-t boundary \eqn{a = 0}, where the GH and
#'   skew-t fits agree). NIG, GH and skew-t fits of in-memory data with 1
#'   to 5 columns therefore go on, when the EM stops without converging
#'   with rows beyond \eqn{2^{10}} robust spreads (or converges with rows
#'   beyond \eqn{2^{26}}), by a direct quasi-Newton maximisation
#'   ([stats::nlminb()]) of the log-likelihood, in \eqn{\log a, \log b} and
#'   the gauge \eqn{a = b}, where the maximum is representable up to rows at
#'   the largest doubles (`c(x, 1e300)`); the trace then ends with a step
#'   `"direct"`. With 2 or more columns the maximum puts such a row nearly
#'   along \eqn{\gamma} (on a ridge of width about \eqn{|z|^{-1/2}} across
#'   it, along which \eqn{\gamma} is searched), where a rounding of the row
#'   changes its log density by about \eqn{|g| (\epsilon |z|)^2 / (2 |z|)}
#'   (\eqn{z = L^{-1}(x - \mu)}, \eqn{g = L^{-1}\gamma}, \eqn{\Sigma =
#'   LL'}, \eqn{\epsilon = 2^{-52}}), more than the fit's tolerance beyond
#'   \eqn{2^{64}} robust spreads (about \eqn{10^{68} |g|} at \eqn{|z| =
#'   10^{100}}). So one row beyond \eqn{2^{64}} spreads (up to the largest
#'   doubles) is taken with \eqn{\gamma} exactly along it in the
#'   maximisation and its log density in closed form; `loglik` is then
#'   that maximum, while the reported \eqn{\gamma}, rounded to doubles,
#'   gives `dgh()` of that row a log density lower by up to that amount.
#'   Two or more rows beyond \eqn{2^{64}} spreads, or such a row in a fit
#'   with `symmetric = TRUE`, keep the EM. VG fits of any
#'   dimension keep the EM: a VG density with \eqn{p < d/2} is infinite at
#'   \eqn{x = \mu} (it grows as \eqn{|x - \mu|^{2p - d}} there), so the VG
#'   likelihood is unbounded (\eqn{\mu} at any row) wherever \eqn{p < d/2}
#'   can be reached, and a far row pulls \eqn{p} there (a heavier tail):
#'   there is then no maximum to report. These fits, the fits that keep
#'   the EM above (its result, or, where the EM cannot start, an error of
#'   class `ghmix_error_range`), fits with more than 5 columns, and a
#'   univariate fit whose maximum is no
#'   double in the data's units (rows on a scale below about 1e-154 beside
#'   a far row, such as data divided by 1e290, which are fitted
#'   unstandardised), warn with class `ghmix_warning_range` when the rows
#'   lie beyond \eqn{2^{26}} robust spreads.
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
#' @section Mixtures (clustering): `components = G` (G > 1) fits a finite
#'   mixture of G members of the family, each with its own
#'   \eqn{(\mu_k, \gamma_k, \Sigma_k, p_k, a_k, b_k)}, and mixing
#'   proportions \eqn{\pi_k}; `components = 1` is the fit of one
#'   distribution above (the same object and numbers). A set such as
#'   `components = 1:6` fits each G and returns the one with the lowest
#'   BIC (`criterion = "icl"`: ICL, the BIC plus twice the entropy of the
#'   memberships), with the table of every G's criteria as `criteria`.
#'   The EM alternates the posterior memberships and moments of each row
#'   with the M-step of each component weighted by its memberships, with
#'   the same guarded SQUAREM acceleration as one distribution
#'   (`accelerate`; one trace line per cycle with `trace = TRUE`); it stops
#'   when both `tol` and `param_tol` are met (the parameters: each
#'   component's in the det gauge and the log ratios of the proportions),
#'   or at `max_iter` cycles, and its log-likelihood never decreases (except
#'   where a component is dropped). It runs on the rows standardised by their
#'   column means and standard deviations, and reports in the data's units.
#'   A mixture in memory (full \eqn{\Sigma_k}, no `shrink`) whose EM has
#'   not converged after 200 cycles, as on small data where a component's
#'   \eqn{\Sigma_k} tends to a nearly singular matrix (for GH with its
#'   mixing law at the skew-t or variance-gamma limit) and the EM gains
#'   1e-8 to 1e-6 per row per cycle, goes on by a direct quasi-Newton
#'   maximisation ([stats::nlminb()]) of the log-likelihood over the EM's
#'   parameter vector, with the analytic score of Fisher's identity; it is
#'   taken where its log-likelihood is at least the EM's (trace step
#'   `"direct"`, its iteration in `direct`), and the EM resumes from it
#'   with its own convergence test. Components at \eqn{a_k = 0} (skew-t
#'   limit) or \eqn{b_k = 0} (variance-gamma limit) are listed in `limits`
#'   and by `print()` and `summary()`.
#'
#'   Starts: k-means ([stats::kmeans()] on the standardised rows), Ward's
#'   hierarchical clustering ([stats::hclust()], `"ward.D2"`, on at most
#'   2000 rows, the others joining the nearest cluster centre) and
#'   `nstart` random starts (G distinct rows as centres, each row joining
#'   the nearest); each partition gives per-component means and
#'   covariances, \eqn{\gamma = 0} and the family's mixing law with mean 1
#'   (a NIG law for GH). Five EM cycles run from each, and the start with
#'   the highest log-likelihood (table `starts`) is continued. On more
#'   than 2000 rows in memory on the CPU without `shrink`, the five cycles
#'   run on 1000 rows taken evenly through the data (the `starts` table's
#'   log-likelihoods are then those of these rows; a component's size
#'   there is counted on all the rows) and Ward's clustering on every other
#'   one of them; a start whose partition is that of an earlier one on 99%
#'   of the rows is not screened, and a start's cycles stop once its
#'   log-likelihood, extended by its last gain for each cycle left, stays
#'   below the best an earlier start reached. The EM on every row then
#'   continues from the chosen start's parameters after its five cycles.
#'   The check that the columns of `x` are not collinear is made within
#'   clusters (k-means of G clusters from evenly spaced rows along the
#'   first principal axis: no random numbers) where the pooled columns
#'   are collinear to the doubles (clusters \eqn{10^6}{1e6} spreads apart
#'   along a line); with several `components`, G = 1 is then left out
#'   with a warning (its one \eqn{\Sigma} would be singular).
#'   A start's clusters are numbered by their first row, so that the same
#'   partition gives the same start whatever the seed.
#'   The starts use R's random number generator, so `set.seed()`
#'   reproduces a fit.
#'   `start` may instead be cluster labels (an integer vector or factor
#'   with one value per row, G distinct values, each cluster with at least
#'   d + 1 rows: otherwise an error of class `ghmix_error_start_labels`) or
#'   a previous mixture fit with G components. A mixture fit of another
#'   family gives its components' \eqn{\mu}, \eqn{\gamma} and
#'   \eqn{\Sigma}, and mixing laws of this family (as for one
#'   distribution) rescaled so that \eqn{E[Y]} is the start's (1 in the
#'   gauge `"mean"`; where a mean is infinite, the geometric mean
#'   \eqn{\exp E[\log Y]}); the fit is then run from it and from the
#'   default starts, and the better of the two is kept (the other's
#'   warnings are dropped), so such a start is never worse than none.
#'
#'   Components are reported ordered by the first coordinate of
#'   \eqn{\mu_k} (ties by the next coordinates, then by decreasing
#'   proportion), so that label switching does not change the result.
#'
#'   Degenerate components: a component whose effective size
#'   \eqn{\sum_i \tau_{ik}} falls below the larger of d + 1 and its number
#'   of free parameters, whose M-step fails, or whose \eqn{\Sigma_k} is
#'   not positive definite or has a condition number above 1e12 both in
#'   the standardised units and as a correlation matrix (so that clusters
#'   far apart in one column, whose spreads there are far below the
#'   pooled one, are regular), is dropped with a warning of class
#'   `ghmix_warning_component` naming it; G decreases and the fit records
#'   the drop in `dropped` (iteration, component, reason, size; iteration
#'   0 for a drop during the few EM cycles that screen the starts, when
#'   the fit goes on from that start). Before a
#'   drop is accepted, the EM runs again from the next best screened
#'   starts that kept all G components (at most 3, best first; `restarts`
#'   names those tried; each stops at its own first drop, since it could
#'   then not be the fit): the first run that keeps all G is the fit, and
#'   the warning is given only when none does (the first run is then the
#'   fit). A start given as labels or a fit is not restarted.
#'
#'   Factor mixtures: with `factors = r` (and `weights` or not) every
#'   component is the factor-analytic member of the Factor models section,
#'   \eqn{\Sigma_k = F_k F_k' + \mathrm{diag}(D_k)}{Sigma_k = F_k F_k' +
#'   diag(D_k)} with its own \eqn{d \times r}{d x r} loadings, and no
#'   \eqn{d \times d}{d x d} matrix is formed (memory \eqn{O(n G + G d
#'   r)} beyond the rows). Each E-step runs the factor E-step of every
#'   component twice: once for the per-row densities that give the
#'   memberships, once for its sums with the rows weighted by
#'   \eqn{w_i \tau_{ik}}; each component's M-step is the factor M-step (a
#'   GEM step, so the log-likelihood still never decreases). The starts are
#'   the same partitions, each cluster giving its mean and the principal
#'   factor start of its rows; a previous mixture fit as `start` must have
#'   as many factors. The condition number of \eqn{\Sigma_k} is checked
#'   by its bound \eqn{(\max D_k + \sum F_k^2) / \min D_k}. Each
#'   component is reported in the rotation of one factor fit, `df` is
#'   \eqn{G - 1} plus G times the df of one factor fit, and the fit has
#'   `factors`. Its methods work as for other mixtures, with `coef(fit,
#'   component = k, sigma = TRUE)` adding \eqn{\Sigma_k}; `vcov()` is
#'   that of every component's \eqn{\mu_k}, \eqn{\gamma_k}, \eqn{F_k},
#'   \eqn{D_k} and mixing parameters (named `"component_k:F[name,Fj]"`
#'   etc., in the reported rotation and gauge) and of the proportions,
#'   under each component's rotation and gauge constraints (rank `df`;
#'   see [vcov.ghmix_fit()]), and `summary()` shows its standard errors
#'   (none, without an error, beyond 5000 parameters). Chunked data, a
#'   `cluster` and a future plan work as for full mixtures: each E-step is
#'   one pass over the chunks, each chunk computing its rows' component
#'   densities, their memberships and every component's factor sums
#'   weighted by them (\eqn{O(G d r)} numbers back), added in chunk order,
#'   so the fit is the in-memory factor mixture of the same rows up to
#'   rounding (with the weights that come with the chunks, too), and so
#'   is its `vcov()` (its E-steps over the chunks as well). Data
#'   whose scale needs the standardisation of the Units section are
#'   fitted standardised, as one factor fit is: \eqn{F_k \to
#'   \mathrm{diag}(s)F_k}{F_k -> diag(s) F_k}, \eqn{D_k \to s^2 D_k}{D_k ->
#'   s^2 D_k} back in the data's units, the log-likelihood less
#'   \eqn{n \sum \log s}{n sum(log s)}, and the fit's `scaling` holds the
#'   components in the standardised units (which `predict()` and
#'   `simulate()` use). With `shrink`, every
#'   \eqn{\Sigma_k} gets the prior in the factor form (the Mixtures and
#'   Factor models sections of [ghmix_shrink()]): the EM maximises
#'   \eqn{\ell + \sum_k P^*(F_k F_k' + D_k)}{loglik + sum_k P*(F_k F_k' +
#'   D_k)}, which never decreases. With `backend = "cuda"` both factor
#'   E-steps of each component run on the GPU (the rows copied to the
#'   device once, each component's row weights \eqn{w_i \tau_{ik}} copied
#'   in before its sums); without a usable device that is the error of
#'   the CUDA backend, as for every fit. `shrink` works on chunked data, a
#'   cluster and a future plan too (the prior's M-steps need only the
#'   factor sums that come back; a weight rule needs the rows in memory,
#'   as for full mixtures), and on data that need standardising, where
#'   the prior is that of the data's units: the objective is the one of
#'   the data transformed back (see the Mixtures section of
#'   [ghmix_shrink()] for the target there). Errors:
#'   `backend = "cuda"` with chunked data or a cluster (class
#'   `ghmix_error_factor_mode`) and `fixed` (`ghmix_error_argument`, as
#'   for every mixture).
#'
#'   The result has class `c("ghmix_mixture_<family>", "ghmix_mixture")`:
#'   `proportions`, `components` (a list of parameter lists), `loglik`,
#'   `df` (\eqn{G - 1} plus G times the df of one component), `nobs`,
#'   `AIC`, `BIC`, `ICL`, `z` (the n x G membership probabilities),
#'   `classification` (the component of highest membership), `uncertainty`
#'   (1 minus the highest membership), `iterations`, `converged`, `trace`,
#'   `dropped`, `start`, `starts`, `direct` and for a GH mixture `limits`
#'   where there are any (above), and, for several G, `criteria`. See
#'   [ghmix_mixture] for its methods and [plot.ghmix_mixture()]. Mixtures are
#'   fitted in memory, on the CPU or with `backend = "cuda"` (the rows
#'   copied to the GPU once; each E-step one launch for all rows and
#'   components), and of chunked data, on a `cluster` or under a future
#'   plan as one distribution is: each E-step sums the G-component
#'   statistics of the chunks in chunk order, so the fit is the in-memory
#'   fit of the same rows up to rounding. Their starts come from rows in
#'   memory: a matrix's own rows, or for chunked data at most 5000 rows
#'   taken evenly through the chunks (all of them when there are no more;
#'   `start` labels are then labels of those rows, so they need a fit of at
#'   most 5000 rows; or give a previous mixture fit). After the EM, one
#'   more pass reads the chunks here for the memberships `z` of every row
#'   (an n x G matrix kept in the fit, with `classification`,
#'   `uncertainty` and ICL); `predict()` and `vcov()` read the chunks again,
#'   `plot()` needs the rows in memory; `distributed` says where the
#'   E-steps ran (mode, workers, chunks, seconds, bytes, E-steps). With
#'   `weights`, the weighted log-likelihood of the mixture is maximised
#'   (integer weights: the replicated rows), `nobs` (used by BIC) is the
#'   sum of the weights, and ICL weighs each row's entropy by its weight;
#'   the starts (k-means, Ward, random) use the rows unweighted.
#'
#' @param x A numeric vector (d = 1), matrix or data frame of numeric columns
#'   (rows are observations), or chunked data described by [ghmix_data()].
#'   Column names carry through to the results.
#' @param symmetric `TRUE` fixes \eqn{\gamma = 0}; see the section Held
#'   parameters.
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
#' @param fixed `NULL`, or a named list of parameters held at the given
#'   values during the EM (`mu`, `gamma`, and the family's `p`, `a`, `b`
#'   or `nu`); see the section Held parameters of [fit_nig()].
#' @section Held parameters (`symmetric` and `fixed`): `symmetric = TRUE`
#'   holds \eqn{\gamma = 0} (the symmetric law: one less parameter per
#'   column); `fixed` holds any of the parameters a user may know or want
#'   to test at given values during the EM (conditional M-steps, so the
#'   log-likelihood still never decreases), in the data's units and in the
#'   reported gauge. Each fitter takes those of its family:
#'   * every fitter: `mu` (`d` numbers) and `gamma` (`d` numbers, or `0`:
#'     the same as `symmetric = TRUE`); [fit_gaussian()] `mu` only;
#'   * `fit_gh()`: `p`, `a` and `b` (single numbers; `a`, `b` normal
#'     positive doubles, at least 2.2e-308: 0 is the skew-t or VG limit,
#'     [fit_skewt()] or [fit_vg()]; a tiny `a` or `b`, such as 1e-300, gives
#'     the fit of that limit to the convergence tolerance, the start's
#'     \eqn{p} chosen then so that its law is not within 1e-8 of the
#'     limit); `p = (d + 1) / 2` is the hyperbolic law ([fit_hyperbolic()],
#'     which holds that `p` and takes `mu`, `gamma`, `a` or `b` besides);
#'   * `fit_nig()`: `a` or `b` (one of them: with \eqn{E[Y] = 1} the NIG
#'     has \eqn{a = b}; `p` is \eqn{-1/2});
#'   * `fit_vg()`: `p` (positive: the shape of the gamma mixing law);
#'   * `fit_skewt()`, [fit_student()]: `p` (negative), or the degrees of
#'     freedom `nu` \eqn{= -2p} (as ghyp's `opt.pars` and fMultivar's
#'     `fixed.nu`): `fit_student(x, fixed = list(nu = 4))`.
#'
#'   `a`, `b` and a `gamma` other than 0 change with the scale of \eqn{Y},
#'   so they are held in the gauge \eqn{E[Y] = 1} (`gauge = "mean"`, the
#'   default; an error with `gauge = "det"`, with `symmetric = TRUE` and a
#'   nonzero `gamma`, and with online EM; for the skew-t a nonzero `gamma`
#'   needs \eqn{E[Y]} finite, so its fit keeps \eqn{p < -1}): in that
#'   gauge two of \eqn{(p, a, b)} determine the third, so any combination
#'   of `mu`, `gamma` and at most two of `p`, `a`, `b` may be held, but not
#'   all three (with `factors` too: see the Factor models section). With
#'   `a` and `p` held, `p` must be below `a / 2`, and with `b` and `p`,
#'   above `-1 - b / 2` (no GIG law of mean 1 has other values). Values
#'   that are not finite, of the wrong length, outside their range or not
#'   of the fitter's family are errors of class `ghmix_error_argument`
#'   naming them. The fit's `coef()` reports the held values exactly, its
#'   `df` counts only the free parameters (each held number removes one),
#'   its element `fixed` keeps the list (`nu` as `p`), and `print()` names
#'   a held `p` (`"skew-t (nu = 4)"`); `vcov()` (and so `summary()`,
#'   [confint()][confint.ghmix_fit()], [tidy()][ghmix_tidiers]) gives the
#'   covariance of the constrained estimates from the observed information
#'   of the free parameters, with rows and columns of 0 for those held.
#'   Fits with parameters held are nested in those without, so [anova()]
#'   compares them (a likelihood-ratio test of \eqn{\nu = 4}, of
#'   \eqn{\mu = 0}, of symmetry), and `confint(fit, method = "profile")`
#'   uses them for profile-likelihood intervals. Mixtures (`components`
#'   other than 1) hold nothing yet (an error).
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
#' @param components The number of mixture components: 1 (default) for
#'   one distribution, G > 1 for a mixture, or several (e.g. `1:6`) to
#'   select by `criterion`; see the Mixtures section.
#' @param nstart Random starts of a mixture fit, besides the k-means and
#'   hierarchical ones (a whole number, 0 or more).
#' @param criterion `"bic"` (default) or `"icl"`: how several `components`
#'   are compared.
#' @param weights `NULL` (default), or non-negative observation (frequency)
#'   weights, one per row of `x`: the fit maximises the weighted
#'   log-likelihood \eqn{\sum_i w_i \log f(x_i)}, so that integer weights
#'   give the fit of the rows replicated that many times, and a weight of 0
#'   is the row left out. Numbers (integers or doubles), finite, \eqn{\ge 0}
#'   and not all 0, as many as the rows of `x` before `na.rm` drops any (the
#'   weights of dropped rows are dropped with them). For chunked data the
#'   weights come with the chunks (see [ghmix_data()]). See the Weights
#'   section.
#' @param shrink `NULL` (default): the maximum-likelihood fit. Otherwise
#'   a penalised (shrinkage) fit, the posterior mode under a prior that
#'   pulls \eqn{\Sigma} toward a target (see [ghmix_shrink()]):
#'   `ghmix_shrink(target, weight)`, a number (the weight, toward the
#'   diagonal target), `"diagonal"`, `"identity"` or a target matrix (the
#'   weight by the Ledoit-Wolf rule). With `components`, every component's
#'   \eqn{\Sigma_k} gets the prior (see the Mixtures section of
#'   [ghmix_shrink()]), also with `factors`. With `factors`, also in
#'   online EM (see [ghmix_online()]). Bad input is an error of class
#'   `ghmix_error_shrink`. See the Shrinkage section.
#' @section Shrinkage: With `shrink`, the EM maximises the penalised
#'   objective \eqn{\ell + P^*(\Sigma)} of [ghmix_shrink()] (the
#'   log-likelihood plus the gauge-free log prior) and the guard of the
#'   accelerated steps and the convergence rule compare it where they
#'   otherwise compare log-likelihoods (divided by the rows plus the
#'   weight's pseudo-observations); it never decreases along the trace.
#'   \eqn{\Sigma} stays well conditioned when \eqn{d} is close to
#'   \eqn{n}. The fit keeps `loglik` (the log-likelihood at the penalised
#'   estimate, which `logLik()`, `AIC()` and `BIC()` use: information
#'   criteria of the penalised estimate, with the unpenalised df), and adds
#'   `objective` (the penalised objective), `shrink` (`type`, `target` in
#'   the data's units, for a factor fit with a built-in target the vector
#'   of its diagonal, `weight` \eqn{k}, `rule`: `"given"`,
#'   `"ledoit-wolf"` or `"cv"`, its `intensity`, and for `"cv"` the table
#'   `cv`) and a column `objective` in
#'   `trace`. `print()` and `summary()` report them; `vcov()` of a
#'   penalised fit is an error of class `ghmix_error_shrink` (standard
#'   errors of a posterior mode are not those of the observed information),
#'   and `summary()` shows no standard errors. A GH fit starts from the
#'   penalised NIG fit.
#' @section Weights: `weights` are frequency weights: \eqn{w_i} is the
#'   number of times row \eqn{i} was observed (it may be fractional), and
#'   their sum is the sample size. Every fitter (one distribution, mixtures,
#'   factor models, chunked data, online EM) maximises the weighted
#'   log-likelihood \eqn{\sum w_i \log f(x_i)}, whose maximum does not move
#'   when all weights are multiplied by a constant, and counts as follows.
#'   * The sample size: `nobs` is \eqn{\sum w_i} (what [stats::BIC()] and
#'     ICL use), `loglik` is the weighted sum, and `vcov()` is the inverse
#'     of the weighted observed information; so these change with the
#'     scale of the weights, as they would for a replicated sample. A
#'     `shrink` prior's pseudo-observations (a given weight, and the
#'     Ledoit-Wolf rule's intensity, which falls as the sample grows) are
#'     counted against \eqn{\sum w_i} too.
#'   * The estimates: apart from `shrink`, they depend only on the
#'     weights' proportions \eqn{w_i / \sum w_i} (up to rounding and the
#'     convergence tolerance: weights of total 1e-10 or 1e300 give the fit
#'     of weights all 1). Where the fitters count rows (the covariance of
#'     the start and of the standardisation, with divisor
#'     \eqn{\sum w_i - w_{\min}}{sum(w) - min(w)}, weighted medians and
#'     quartiles, the least size of a mixture component, the detection of
#'     ties, the steps of a direct maximisation) a row of the smallest
#'     positive weight \eqn{w_{\min}}{min(w)} counts as one row: integer
#'     weights that include a 1 are exactly the rows replicated (a row of
#'     weight 2 is a tie with itself, as two copies of it would be), and
#'     equal weights are the rows unweighted.
#'
#'   The convergence rule divides the log-likelihood by \eqn{\sum w_i}.
#'   `nrow` is the number of rows fitted and `weights` holds their weights.
#'   `print()` and `summary()` say that the fit is weighted; `fitted()`,
#'   `predict()` and `simulate()` (which draws `nrow` rows) ignore the
#'   weights. Weights must be finite, \eqn{\ge 0}, not all 0, the
#'   positive ones normal doubles (at least 2.2e-308, not subnormal), with
#'   a finite sum.
#' @param factors `NULL` (default): a full dispersion matrix \eqn{\Sigma}.
#'   A whole number \eqn{r}, \eqn{0 \le r < d}{0 <= r < d}: the
#'   factor-analytic model \eqn{\Sigma = F F' + \mathrm{diag}(D)}{Sigma =
#'   F F' + diag(D)} with \eqn{d \times r}{d x r} loadings \eqn{F}; see the
#'   Factor models section.
#' @section Factor models: With `factors = r` the fit never forms a
#'   \eqn{d \times d}{d x d} matrix: each E-step computes the posterior
#'   moments by the Woodbury identity in \eqn{O(n d r)}, and the M-step of
#'   \eqn{F} and \eqn{D} is one closed-form factor-analysis EM step (Rubin
#'   and Thayer 1982) on the E-step's scatter, computed from its products
#'   with \eqn{F' \Sigma^{-1}}{F' Sigma^-1} and its diagonal (the steps of
#'   \eqn{\mu}, \eqn{\gamma} and the mixing law are those of the full
#'   model); the log-likelihood never decreases. A uniqueness is held above
#'   \eqn{10^{-6}} times the corresponding diagonal of that scatter (where
#'   the maximum has \eqn{D_j \to 0}, a Heywood case). Where the SQUAREM
#'   step is cut short by its bound, the loadings (which can converge far
#'   more slowly than the other parameters) also try a step length of
#'   their own, and the better point is taken (still guarded, so the
#'   log-likelihood never decreases). The start: the
#'   \eqn{r} leading principal components of the sample covariance of at
#'   most \eqn{\max(2000, d)}{max(2000, d)} rows evenly spaced through the
#'   data, by a few subspace iterations (\eqn{O(n d r)} each; the
#'   covariance is not formed), with \eqn{D} the remaining variance (for
#'   chunked data or a cluster, the same iterations on the cross-products
#'   of the chunks' one-pass summary). The
#'   loadings are rotated only once the EM has ended, and are
#'   reported in the rotation where \eqn{F' D^{-1} F}{F' D^-1 F} is
#'   diagonal with decreasing entries, each column's largest entry in
#'   absolute value positive. The fit keeps the factor form in
#'   `parameters` (`loadings`, `uniquenesses` in place of `sigma`) and as
#'   `loadings`, `uniquenesses` and `factors`; its `df` counts
#'   \eqn{d r - r(r - 1)/2} for the loadings (less their rotations) and
#'   \eqn{d} for the uniquenesses, so that `AIC()` and `BIC()` choose
#'   \eqn{r}. `print()`, `summary()`, `vcov()` (of \eqn{\mu},
#'   \eqn{\gamma}, \eqn{F}, \eqn{D} and the mixing parameters, under the
#'   rotation's constraints: see [vcov.ghmix_fit()]), `coef()` (`sigma =
#'   TRUE` adds \eqn{\Sigma}), `logLik()`, `predict()`, `fitted()`,
#'   `simulate()` and `plot()` work as for other fits. With `backend =
#'   "cuda"` the E-step runs on the GPU (one thread per row, the same
#'   \eqn{O(d r)} per-row code; the rows are copied to the device once),
#'   as do `fitted()` and `predict()` with `backend = "cuda"`. Online EM
#'   (`control = ghmix_control(online = )`) and [update.ghmix_fit()] take
#'   `factors` (see the section Factors, shrinkage and units of
#'   [ghmix_online()]). With `components` (see the Mixtures section) each
#'   component is factor-analytic with its own \eqn{F_k} and \eqn{D_k}.
#'   Chunked data and
#'   clusters (`cluster =`, a `parallel` cluster or a future plan) work as
#'   for a full \eqn{\Sigma} (one component): each chunk returns its
#'   \eqn{O(d r)} E-step sums, added in chunk order (`vcov()` of a chunked
#'   factor fit reads the chunks here, or on the `cluster` given to
#'   `vcov()`, which also splits a fit's rows in memory among its
#'   workers); with `backend = "cuda"` each chunk's factor E-step runs on
#'   the GPU where the chunk is read (a cluster's workers keep their chunks
#'   on their GPU for the whole fit). Factor mixtures take chunked data and
#'   clusters too (the Mixtures section).
#'   `fit_gh(fixed = )` holds `mu`, `p`,
#'   `a`, `b` and `gamma` as in the full model, by the same conditional
#'   M-steps; for a nonzero `gamma` (held in the gauge \eqn{E[Y] = 1}) the
#'   step over the scale of \eqn{Y} takes \eqn{\Sigma} up to its scale
#'   from the current \eqn{F} and \eqn{D} (\eqn{\mathrm{tr}(\Sigma^{-1}
#'   M)}{tr(Sigma^-1 M)} by the Woodbury identity, \eqn{O(d r)} per trial
#'   scale), then the factor-analysis step follows, so the log-likelihood
#'   still never decreases. Online EM with `factors` holds `mu`, `p` and
#'   `gamma = 0` as without, and takes `shrink`. Data whose scale needs
#'   the standardisation of the Units section are fitted standardised (one
#'   component or a mixture), with
#'   \eqn{F \to \mathrm{diag}(s)F}{F -> diag(s) F} and
#'   \eqn{D \to s^2 D}{D -> s^2 D} back in the data's units. Not
#'   supported yet (an error of class `ghmix_error_factor_mode`): factor
#'   mixtures (`factors` with `components`) with `backend = "cuda"` on
#'   chunked data or a cluster. [dgh()] and
#'   [rgh()] take the
#'   factor form through [factor_cov()]. A factor fit with \eqn{r = 0} is
#'   the fit with a diagonal \eqn{\Sigma}. With `shrink`, the penalised
#'   factor fit of the Factor models section of [ghmix_shrink()] (no
#'   \eqn{d \times d}{d x d} matrix for the built-in targets; every weight
#'   rule).
#' @inheritParams ghmix-params
#' @return An object of class `c("ghmix_fit_<family>", "ghmix_fit")`: a list
#'   with `parameters` (`mu`, `gamma`, `sigma`, `p`, `a`, `b`), `loglik`,
#'   `df`, `nobs` (the rows fitted, or the sum of their weights), `nrow`
#'   (the rows fitted), `weights` (`NULL`, or the rows' weights),
#'   `iterations`, `converged`, `message`, `trace` (one row per
#'   iteration: log-likelihood, step kind), `timings` (seconds: total, E-step,
#'   M-step; and the number of E-steps), `gauge`, `family`, `symmetric`,
#'   `ties`, `na_action` and the data. Methods: `print()`, `summary()`,
#'   `coef()`, `logLik()` (so `AIC()` and `BIC()` work), `vcov()`,
#'   `fitted()`, `predict()`, `simulate()` and `plot()`. A univariate fit
#'   whose EM did not converge because the likelihood's supremum is at the
#'   boundary \eqn{\Sigma \to 0} (the normal part's share
#'   \eqn{\sigma^2 E[Y] / \mathrm{Var}(X)}{sigma^2 E[Y] / Var(X)} below
#'   1e-3, and the law there at least as likely as the EM's last point)
#'   also has `limit`: that law, \eqn{\mu + \gamma Y}{mu + gamma Y}, the
#'   mixing law shifted (and reflected where \eqn{\gamma < 0}) -- for the
#'   NIG an inverse Gaussian -- fitted by maximum likelihood, as
#'   `list(mu, sign, p, a, b, loglik)` for \eqn{\mu + \mathrm{sign}\,
#'   Y'}{mu + sign Y'}, \eqn{Y' = |\gamma| Y \sim \mathrm{GIG}(p, a,
#'   b)}{Y' = |gamma| Y ~ GIG(p, a, b)}; its `message` (and the warning)
#'   says so, and the parameters are the EM's last.
#' @references McNeil, A. J., Frey, R. and Embrechts, P. (2005).
#'   *Quantitative Risk Management*, section 3.2.4 (EM for generalized
#'   hyperbolic distributions). Protassov, R. S. (2004). EM-based maximum
#'   likelihood parameter estimation for multivariate generalized hyperbolic
#'   distributions with fixed lambda. *Statistics and Computing* 14, 67-77.
#'   Rubin, D. B. and Thayer, D. T. (1982). EM algorithms for ML factor
#'   analysis. *Psychometrika* 47, 69-76.
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
#' # parameters held (fit_gh(fixed = )): a in the gauge E[Y] = 1, and
#' # gamma with p
#' held <- fit_gh(r[, "DAX"], fixed = list(a = 2))
#' coef(held)
#' held$df
#' fit_gh(r[, c("DAX", "CAC")], fixed = list(gamma = c(0, 0.001), p = 1))
fit_nig <- function(x, symmetric = FALSE, start = NULL,
                    control = ghmix_control(), gauge = c("mean", "det"),
                    na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                    threads = ghmix_threads(), device = 0L,
                    cluster = NULL, weights = NULL, components = 1L,
                    nstart = 5L, criterion = c("bic", "icl"),
                    fixed = NULL, shrink = NULL, factors = NULL) {
  fit_dispatch(
    "nig", x, symmetric, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, components, nstart, criterion, shrink, factors,
    sys.call(), fixed = fixed
  )
}

#' @rdname fit_nig
#' @export
fit_gh <- function(x, symmetric = FALSE, start = NULL,
                   control = ghmix_control(), gauge = c("mean", "det"),
                   na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                   threads = ghmix_threads(), device = 0L,
                   cluster = NULL, weights = NULL, components = 1L,
                   nstart = 5L, criterion = c("bic", "icl"), fixed = NULL,
                   shrink = NULL, factors = NULL) {
  fit_dispatch(
    "gh", x, symmetric, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, components, nstart, criterion, shrink, factors,
    sys.call(), fixed = fixed
  )
}

#' @rdname fit_nig
#' @export
fit_vg <- function(x, symmetric = FALSE, start = NULL,
                   control = ghmix_control(), gauge = c("mean", "det"),
                   na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                   threads = ghmix_threads(), device = 0L,
                   cluster = NULL, weights = NULL, components = 1L,
                   nstart = 5L, criterion = c("bic", "icl"),
                   fixed = NULL, shrink = NULL, factors = NULL) {
  fit_dispatch(
    "vg", x, symmetric, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, components, nstart, criterion, shrink, factors,
    sys.call(), fixed = fixed
  )
}

#' @rdname fit_nig
#' @export
fit_skewt <- function(x, symmetric = FALSE, start = NULL,
                      control = ghmix_control(), gauge = c("mean", "det"),
                      na.rm = FALSE, backend = c("cpu", "cuda"), # nolint
                      threads = ghmix_threads(), device = 0L,
                      cluster = NULL, weights = NULL, components = 1L,
                      nstart = 5L, criterion = c("bic", "icl"),
                      fixed = NULL, shrink = NULL, factors = NULL) {
  fit_dispatch(
    "skewt", x, symmetric, start, control, gauge, na.rm, backend, threads,
    device, cluster, weights, components, nstart, criterion, shrink, factors,
    sys.call(), fixed = fixed
  )
}
