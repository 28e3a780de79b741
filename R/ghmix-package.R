#' ghmix: Generalized Hyperbolic Mixtures with Exact Bessel Functions
#'
#' ghmix fits generalized hyperbolic (GH) distributions and their special
#' cases, normal variance-mean mixtures with a generalized inverse Gaussian
#' mixing variable, with a numerical core in portable C that runs on CPU
#' threads (OpenMP) or, in a build with the CUDA toolkit, on an NVIDIA GPU.
#'
#' @section Functions:
#' * Fitting: [fit_nig()], [fit_gh()], [fit_vg()], [fit_skewt()] (maximum
#'   likelihood by an accelerated EM algorithm, in memory, out of core or on
#'   a cluster), their control [ghmix_control()], chunked data
#'   [ghmix_data()], and the methods of fits: `print`, `summary`, `coef`,
#'   `logLik`, `nobs`, `vcov`, `fitted`, `predict`, `simulate`, `plot`,
#'   `anova`, [confint()][confint.ghmix_fit()], `mean` (the fitted law's:
#'   [mean.ghmix_fit()]) and broom's [tidy()][ghmix_tidiers], `glance`,
#'   `augment`; parameters held fixed on every fitter (`fixed =`, the
#'   section Held parameters of [fit_nig()]), the hyperbolic, Student-t and
#'   Gaussian members [fit_hyperbolic()], [fit_student()],
#'   [fit_gaussian()], and model selection by AIC/BIC [fit_families()];
#'   online EM over mini-batches or a stream ([ghmix_online()]) and
#'   [update()][update.ghmix_fit()] of a fit with new rows; progress of
#'   long work through progressr (the section Progress of
#'   [ghmix_control()]).
#' * The GH family's distribution functions: [dgh()], [pgh()], [qgh()],
#'   [rgh()] and their NIG forms [dnig()], [pnig()], [qnig()], [rnig()];
#'   distribution objects [gh_law()] with their moments [gh_moment()],
#'   [gh_skewness()], [gh_kurtosis()] and margins, linear maps
#'   ([transform()][transform.ghmix_law]), plots of laws
#'   ([plot()][plot.ghmix_law()]) and of data against them ([qqgh()],
#'   [ppgh()]), and the risk measures
#'   [value_at_risk()], [expected_shortfall()] and [es_attribution()];
#'   optimal portfolios [portfolio_optimize()] and the frontier
#'   [efficient_frontier()]; divergences [kl_divergence()], [hellinger()],
#'   [gig_kl_divergence()] and the entropy [entropy()].
#' * The generalized inverse Gaussian distribution: [dgig()], [pgig()],
#'   [qgig()], [rgig()]; its expectation parameters and moments
#'   [gig_expectation()], [gig_moments()], [gig_mean()], [gig_var()]; and the
#'   inverse map [gig_from_expectation()] (the M-step of GH fitting).
#' * The modified Bessel function of the second kind in log space, with its
#'   derivatives in the argument and the order: [log_besselK()].
#' * Backends: [ghmix_info()], [ghmix_threads()],
#'   [ghmix_benchmark_backends()].
#'
#' @section Backends and threads:
#' Every computing function takes `backend = c("cpu", "cuda")` (default
#' `"cpu"`) and `threads`. Nothing falls back silently: `backend = "cuda"` in a
#' build without CUDA, or on a machine without a usable GPU, is an error (see
#' below). The thread count defaults to [ghmix_threads()], which is initialised
#' from the environment variable `GHMIX_NUM_THREADS` when the package is
#' loaded and is capped by OpenMP's limits (`OMP_THREAD_LIMIT`, the number of
#' processors). Results do not depend on the thread count.
#'
#' @section Conditions:
#' Errors raised by ghmix are conditions of class
#' `c("ghmix_error_<kind>", "ghmix_error", "error", "condition")`, warnings
#' of class `c("ghmix_warning_<kind>", "ghmix_warning", "warning",
#' "condition")`, so that they can be caught selectively with
#' [tryCatch()] or [withCallingHandlers()]. Every condition has `message`
#' and `call`; the fields listed are extra.
#'
#' Errors:
#' * `ghmix_error_argument`: an invalid argument; the message names it.
#' * `ghmix_error_start`: the starting values give a non-finite
#'   log-likelihood; with rows of in-memory data beyond 2^26 robust spreads
#'   from the column medians (see `ghmix_warning_range`), class
#'   `ghmix_error_range` too, fields `rows` and `distance`.
#' * `ghmix_error_start_labels` (also `ghmix_error_argument`): mixture start
#'   labels of the wrong length or count, with `NA`, or with a cluster of
#'   fewer than d + 1 rows.
#' * `ghmix_error_chunked`: a method that needs the data in memory (such as
#'   `plot()`) was called on a fit of chunked data.
#' * `ghmix_error_batch` (also `ghmix_error_argument`, field `batch`): a
#'   batch of online EM that cannot be used (a batch function that returns
#'   something other than numbers, a batch with another number of
#'   columns); with `ghmix_error_online_step` (field `parameters`) instead,
#'   a batch at which the online E-step or M-step failed.
#' * `ghmix_error_online`: a method that needs the rows fitted (`fitted()`,
#'   `predict()` or `augment()` without `newdata`, `confint(method =
#'   "profile")`) was called on an online fit.
#' * `ghmix_error_chunk` (a chunk could not be read or used) and
#'   `ghmix_error_cluster` (a worker of a cluster or a future failed or
#'   died): fields `worker`, `host`, `pid`, `chunk` (where it happened),
#'   `iteration` and `stage` (how far the fit got) and `parameters` (the
#'   last parameters, usable as `start`); also of class
#'   `ghmix_error_cuda_fault` when the chunk's GPU faulted.
#' * `ghmix_error_infeasible`: [gig_from_expectation()] was given
#'   expectations no distribution on (0, Inf) has; fields `rows`,
#'   `inequality` (which one each row violates) and `index`.
#' * `ghmix_error_cuda_not_built`: `backend = "cuda"` in a build without
#'   CUDA; the message says how to reinstall with the CUDA toolkit.
#' * `ghmix_error_no_device`: a CUDA build, but no usable GPU; the message
#'   gives the CUDA runtime's reason (no driver, no device, ...).
#' * `ghmix_error_cuda`: a failure inside the CUDA backend (the message has
#'   the CUDA error, and the bytes asked for when an allocation failed).
#' * `ghmix_error_scale`: `vcov()` of a mixture whose parameters under- or
#'   overflow in the units of the data (fitted standardised: its `scaling`).
#' * `ghmix_error_infinite`: a quantity that is infinite for the law at
#'   hand, such as the attribution of an infinite expected shortfall
#'   ([es_attribution()]).
#' * `ghmix_error_cuda_fault` (also `ghmix_error_cuda`): a kernel fault (an
#'   illegal address, a failed launch, ...) has left the GPU unusable in
#'   this R session: every later `backend = "cuda"` call fails with it, and
#'   the message says to restart R (`backend = "cpu"` still works).
#' * `ghmix_error_domain`, `ghmix_error_nomem`, `ghmix_error_no_convergence`:
#'   failures reported by the C core; field `index`, the 1-based element the
#'   failure is tied to, or `NA`.
#'
#' Warnings:
#' * `ghmix_warning_ties`: the data have repeated rows where the family's
#'   likelihood is unbounded; field `n_repeated`.
#' * `ghmix_warning_boundary`: `anova()` of fits nested at the boundary of
#'   the larger one's parameter space (VG, skew-t or Gaussian in GH): the
#'   chi-square p-value is approximate.
#' * `ghmix_warning_convergence`: a fit stopped without converging (see the
#'   fit's `message`).
#' * `ghmix_warning_range`: (also `ghmix_warning_convergence`) a fit of
#'   in-memory data stopped without converging, with rows beyond 2^26 robust
#'   spreads (IQR / 1.349) from the column medians, which the EM cannot
#'   resolve beside the rest in doubles (univariate NIG, GH and skew-t fits
#'   go on by a direct maximisation there and warn only where that fails:
#'   see the section "Rows far from the rest" of [fit_nig()]); fields `rows`
#'   (in the numbering of `x`), `distance` (in robust spreads) and
#'   `em_message` (the EM's own reason).
#' * `ghmix_warning_component`: a mixture component degenerated and was
#'   dropped; field `component` (its number at that point). Also: G = 1
#'   left out of a selection whose rows are collinear as one distribution's
#'   but not within the mixtures' clusters.
#' * `ghmix_warning_factors`: `factors = r` with \eqn{(d - r)^2 < d + r},
#'   where the factor model is not identified (the full Sigma).
#' * `ghmix_warning_normal_limit`: a NIG or GH fit ended at the normal limit
#'   (sqrt(ab) >= 1e8) where the likelihood still rises away from it: EM
#'   cannot leave that limit; fields `sqrt_ab` and `slope`.
#' * `ghmix_warning_gauge`: the requested gauge does not exist for the fitted
#'   law (E\[Y\] infinite), another was used.
#' * `ghmix_warning_scale`: a fit's parameters cannot be represented in the
#'   data's units (the fit keeps them in standardised units, see `?fit_nig`).
#' * `ghmix_warning_vcov`: standard errors that do not mean what they
#'   usually do (a fit that did not converge, a GH fit on the boundary of
#'   the family, an observed information that is not positive definite).
#' * `ghmix_warning_profile`: [confint()][confint.ghmix_fit()] with
#'   `method = "profile"`: a refit with the parameter held failed or did
#'   not converge, and that end of the interval is `NA`.
#' * `ghmix_warning_boundary` and `ghmix_warning_no_convergence`: from
#'   [gig_from_expectation()], rows solved on the gamma or inverse-gamma
#'   boundary, or not converged; field `rows`.
#'
#' A long computation interrupted with Ctrl-C signals an ordinary R
#' `interrupt` condition (class `c("ghmix_interrupt", "interrupt",
#' "condition")`).
#'
#' @section Installation:
#' The `configure` script builds the CUDA backend when it finds a working CUDA
#' toolkit (`GHMIX_CUDA=auto`, the default), never (`GHMIX_CUDA=no`) or fails
#' without one (`GHMIX_CUDA=yes`). It looks for `nvcc` in `CUDA_HOME`, on the
#' `PATH` and in `/usr/local/cuda`; `GHMIX_CUDA_ARCHS` (e.g. `"80 90"`) sets the
#' GPU architectures to compile for (by default those of the GPUs visible at
#' install time, else sm_80 and sm_90 with compute_90 PTX). [ghmix_info()]
#' shows what was built.
#'
#' On Windows ghmix builds with Rtools from `src/Makevars.win` (no
#' `configure`, so these variables do nothing there): the CPU backend with
#' OpenMP, never the CUDA backend, which is built on Linux only
#' (`backend = "cuda"` is then an error that says so; use WSL 2 for a GPU).
#'
#' @keywords internal
"_PACKAGE"

#' @useDynLib ghmix, .registration = TRUE
NULL
