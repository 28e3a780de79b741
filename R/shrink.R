# Penalised (shrinkage) EM: the posterior mode of Sigma under a conjugate,
# inverse-Wishart-type prior that pulls it toward a target T,
#
#   P(Sigma) = -(k/2) [log det Sigma + tr(Sigma^-1 T)],  k >= 0
#
# (k pseudo-observations).  The likelihood is unchanged by the gauge
# (Sigma, Y) -> (c Sigma, Y / c) and P is not, so the fit maximises the
# gauge-free profile
#
#   F = loglik + P*(Sigma),  P*(Sigma) = max_c P(c Sigma)
#     = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d) + d],
#
# reached at c* = tr(Sigma^-1 T) / d.  The EM step from Sigma in the gauge
# c* is the MAP-EM step (EM for a posterior mode: the log prior added to the
# expected complete-data log-likelihood Q; Dempster, Laird and Rubin 1977,
# J. R. Statist. Soc. B 39, 1-38); written back in the current gauge its
# Sigma is
#
#   Sigma_new = (W S + k T / c*) / (W + k)
#
# (S the unpenalised M-step's Sigma, W the weighted row count); mu, gamma and
# the mixing law are the unpenalised M-step's (their maximisers do not
# depend on Sigma).  F never decreases: with theta* the current parameters
# in the gauge c*, F(theta) = loglik + P(theta*); the MAP-EM step does not
# decrease loglik + P from theta* (the EM argument with the prior added to
# Q), and F(theta_new) = loglik(theta_new) + P*(Sigma_new) >=
# loglik(theta_new) + P(Sigma_new in gauge c*).  The target's scale only
# shifts F by a constant, so only its shape matters.  For d = 1, P* is a
# constant: the fit is the unpenalised one.

#' Shrinkage (penalised EM) settings of the fitters
#'
#' `ghmix_shrink()` describes the prior of a penalised fit (`shrink =` of
#' [fit_nig()], [fit_gh()], [fit_vg()], [fit_skewt()], [fit_hyperbolic()],
#' [fit_student()] and [fit_gaussian()]): the fit is the posterior mode under an
#' inverse-Wishart-type prior that pulls \eqn{\Sigma} toward a target
#' \eqn{T} with the weight of \eqn{k} pseudo-observations,
#' \deqn{P(\Sigma) = -\frac{k}{2}\left[\log\det\Sigma +
#'   \mathrm{tr}(\Sigma^{-1} T)\right].}{P(Sigma) = -(k/2) [log det Sigma +
#'   tr(Sigma^-1 T)].}
#' The likelihood does not change when \eqn{\Sigma} is rescaled with the
#' mixing variable (see the Gauge section of [fit_nig()]) but \eqn{P} does,
#' so the fit maximises the gauge-free objective
#' \eqn{\ell + P^*(\Sigma)} with \eqn{P^*(\Sigma) = \max_c P(c\Sigma) =
#' -\frac{k}{2}[\log\det\Sigma + d\log(\mathrm{tr}(\Sigma^{-1}T)/d) + d]}{P*
#' = max_c P(c Sigma) = -(k/2) [log det Sigma + d log(tr(Sigma^-1 T) / d) +
#' d]}: only the shape of \eqn{T} matters, not its scale. Each EM step
#' replaces the M-step's \eqn{\Sigma} (\eqn{S}) by
#' \eqn{(WS + kT/c^*)/(W + k)} with \eqn{c^* = \mathrm{tr}(\Sigma^{-1}T)/d}
#' at the current \eqn{\Sigma} and \eqn{W} the (weighted) number of rows,
#' and the objective never decreases (EM for a posterior mode, as Dempster,
#' Laird and Rubin 1977 describe it, in the gauge where \eqn{P = P^*}).
#' With \eqn{d = 1} there is no shape
#' to pull toward: \eqn{P^*} is a constant and the fit is the unpenalised
#' one.
#'
#' @section Mixtures: With `components = G` (G > 1) every component's
#'   \eqn{\Sigma_k} gets the same prior, with the same \eqn{k} and target,
#'   and the EM maximises \eqn{\ell + \sum_k P^*(\Sigma_k)}: the M-step of
#'   \eqn{\Sigma_k} is \eqn{(W_k S_k + kT/c_k^*)/(W_k + k)} with \eqn{W_k}
#'   the component's membership weight, and the objective never decreases
#'   (the expected complete-data log-likelihood is a sum over the
#'   components, so the argument above holds for each). The rule's
#'   weight is the pooled rows' \eqn{k} divided by G, so that a component
#'   of average size is shrunk with the rule's intensity; `weight = "cv"`
#'   is for one distribution only. The target (`"diagonal"`: the pooled
#'   rows' variances) is common to the components. BIC and ICL (and so
#'   the choice among several G) use the log-likelihood at the penalised
#'   estimates; `vcov()` is an error and `summary()` shows no standard
#'   errors, as for one distribution. With `factors = r` too (a mixture of
#'   factor-analytic members), each component's prior is that of the
#'   Factor models section at \eqn{\Sigma_k = F_k F_k' +
#'   \mathrm{diag}(D_k)}{Sigma_k = F_k F_k' + diag(D_k)}: its M-step is the
#'   factor-analysis step on the penalised scatter \eqn{S_k +
#'   \lambda_k(T/c_k^* - S_k)}, \eqn{\lambda_k = k/(W_k + k)}, and the
#'   objective still never decreases; the target and the rule are those of
#'   one factor fit of the pooled rows (the target's diagonal kept as a
#'   vector), the rule's weight divided by G. Such mixtures take chunked
#'   data, a cluster or a future plan (a given weight; a rule needs the
#'   rows in memory) with the in-memory fit's result, and data that need
#'   the standardisation of the Units section of [fit_nig()] with the
#'   prior of the data's units: `"diagonal"`, `"identity"` (the mean of
#'   the data's column variances) and the rule are those of the data,
#'   so the fit of \eqn{x \cdot m}{x * m} is that of \eqn{x} transformed
#'   and its objective that of \eqn{x} less \eqn{(n + Gk) d \log m}{(n +
#'   G k) d log(m)}. A target matrix is then read up to a positive factor
#'   (which changes no fit: only \eqn{T}'s shape matters), since in the
#'   data's units it may be no double (`diag(1e-400, d)` is 0): give it in
#'   any units \eqn{c} times the data's, e.g. the same matrix for \eqn{x
#'   \cdot 10^{-200}}{x * 1e-200} as for \eqn{x}; the objective is that
#'   with the matrix as given, so the fit of \eqn{x \cdot m}{x * m} with
#'   the same matrix has the objective of \eqn{x} less \eqn{n d \log
#'   m}{n d log(m)}. `"identity"` and a matrix need each column's scale
#'   within a factor of about \eqn{2^{511}}{2^511} of the columns'
#'   geometric mean (an error of class `ghmix_error_shrink` otherwise;
#'   `"diagonal"` has no such limit). The fit's `shrink$target` is in the
#'   data's units, where a built-in target may underflow or overflow.
#' @section Factor models: With `factors = r` (one component, rows in
#'   memory) the prior and the objective are the same, at \eqn{\Sigma = F
#'   F' + \mathrm{diag}(D)}{Sigma = F F' + diag(D)}, and no \eqn{d \times
#'   d}{d x d} matrix is formed for the built-in targets: \eqn{\log\det
#'   \Sigma}{log det Sigma} and \eqn{\mathrm{tr}(\Sigma^{-1}T)}{tr(Sigma^-1
#'   T)} come from the Woodbury identity (\eqn{O(dr)}, or \eqn{O(d^2 r)}
#'   for a target matrix), and the M-step of \eqn{F} and \eqn{D} is the
#'   factor-analysis EM step on the penalised scatter \eqn{S +
#'   \lambda(T/c^* - S)}, \eqn{\lambda = k/(W + k)}, computed from its
#'   products with \eqn{F'\Sigma^{-1}}{F' Sigma^-1} and its diagonal. That
#'   step increases the expected complete-data log posterior in the gauge
#'   \eqn{c^*} (a generalised EM step), so the objective still never
#'   decreases. The fit keeps a built-in target (`shrink$target`) as the
#'   vector of its diagonal. The Ledoit-Wolf rule sums the squares of the
#'   sample covariance over blocks of its columns of at most \eqn{2^{22}}
#'   entries (32 MB; the whole matrix only for \eqn{d \le 2048}):
#'   \eqn{O(n d^2)} time, once per fit (about 1 s for \eqn{n = 2552},
#'   \eqn{d = 468} with the reference BLAS: bench/factor_shrink.R).
#'   `weight = "cv"` fits the factor model with the same \eqn{r} on the
#'   folds. A diagonal \eqn{\Sigma} can have loadings that each load on
#'   one column alone, so a very large weight toward `"diagonal"` makes
#'   \eqn{FF'} diagonal rather than \eqn{F} zero. Online EM with
#'   `factors` takes the same step on its running averages of the factor
#'   model's complete-data statistics, with \eqn{W} the weight of the rows
#'   seen (see [ghmix_online()]).
#' @param target `"diagonal"` (default): the diagonal of the (weighted)
#'   sample covariance of the rows, so that the correlations are shrunk
#'   toward 0; `"identity"`: the mean of those variances times the identity
#'   (toward sphericity: the columns should share units); or a symmetric
#'   positive definite \eqn{d \times d}{d x d} matrix in the data's units.
#' @param weight `NULL` (default): the rule below; `"cv"`: chosen by
#'   cross-validation (below); or the number of pseudo-observations
#'   \eqn{k}, a finite number, 0 or more (0 is the unpenalised fit).
#' @section The weight rule: With `weight = NULL`, \eqn{k} comes from the
#'   Ledoit and Wolf (2004) intensity \eqn{\rho} of the sample covariance
#'   \eqn{S_n} (divisor \eqn{W}) toward the target, converted to
#'   pseudo-observations as \eqn{k = W\rho/(1-\rho)}, so that
#'   \eqn{(WS_n + kT)/(W + k) = \rho T + (1 - \rho) S_n} is their shrinkage
#'   estimate; \eqn{\rho} is capped at 0.999. \eqn{\rho = \min(\bar b^2,
#'   \delta^2)/\delta^2} with \eqn{\bar b^2 = W^{-2}\sum_i w_i
#'   \|x_i x_i' - S_n\|^2} (rows centred) and \eqn{\delta^2 = \|S_n -
#'   cT\|^2}, \eqn{c = \langle S_n, T\rangle / \langle T, T\rangle}
#'   (Frobenius norms): for `"identity"` their Lemmas 3.2-3.4 as they stand.
#'   For `"diagonal"` the sums run over the off-diagonal entries of the
#'   correlation matrix (the columns standardised; Sch\enc{ä}{ae}fer and
#'   Strimmer 2005, target D on the correlation scale), which leaves
#'   \eqn{k} free of the data's units. Where the sample covariance already
#'   has the target's shape (always for \eqn{d = 1}), \eqn{\rho = 0}. The
#'   rule needs the rows in memory: chunked data need a numeric `weight`.
#' @section Cross-validation: `weight = "cv"` fits each intensity
#'   \eqn{\rho} of the grid 0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7 (as
#'   \eqn{k = W\rho/(1-\rho)} with \eqn{W} the training rows' weight) on
#'   four fifths of the rows and sums the log-densities of the fifth left
#'   out, over the 5 folds (rows \eqn{i, i + 5, i + 10, \ldots}: no random
#'   numbers), and keeps the \eqn{\rho} with the highest sum; the fit's
#'   `shrink$cv` is that table (with `converged`, how many of the 5 fold
#'   fits converged). Each fold fit is the same fit (family,
#'   `control`, `fixed`, `weights`) with its target from its own rows, so
#'   that costs 40 fits; a fold fit that fails counts as \eqn{-\infty}.
#'   A fold fit runs at most 200 EM iterations (or `control`'s `max_iter`
#'   if fewer): one that has not converged by then (a NIG creeping towards
#'   its normal limit on Gaussian rows, which would run to `max_iter`)
#'   gives its held-out log-density there, so the 40 fits cost at most 8000
#'   iterations.
#'   The training rows must make a fit on their own (at least
#'   \eqn{d + 1} of them).
#' @return An object of class `"ghmix_shrink"`.
#' @references Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977).
#'   Maximum likelihood from incomplete data via the EM algorithm.
#'   *Journal of the Royal Statistical Society B* 39, 1-38. Ledoit, O. and
#'   Wolf, M. (2004). A well-conditioned estimator for large-dimensional
#'   covariance matrices. *Journal of Multivariate Analysis* 88, 365-411.
#'   Sch\enc{ä}{ae}fer, J. and Strimmer, K. (2005). A shrinkage approach to
#'   large-scale covariance matrix estimation and implications for
#'   functional genomics. *Statistical Applications in Genetics and
#'   Molecular Biology* 4, 32.
#' @family fitting
#' @export
#' @examples
#' ghmix_shrink()
#' ghmix_shrink("identity", weight = 50)
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r, shrink = ghmix_shrink())
#' fit$shrink$weight
#' c(loglik = fit$loglik, objective = fit$objective)
ghmix_shrink <- function(target = c("diagonal", "identity"), weight = NULL) {
  call <- sys.call()
  structure(
    list(target = shrink_check_target(target, "target", call),
         weight = shrink_check_weight(weight, "weight", call)),
    class = "ghmix_shrink"
  )
}

#' @export
print.ghmix_shrink <- function(x, ...) {
  cat(sprintf(
    "<ghmix_shrink> target %s, weight %s\n", shrink_target_label(x$target),
    if (is.null(x$weight)) "by the Ledoit-Wolf rule" else
      if (identical(x$weight, "cv")) "by cross-validation" else
        format(x$weight, digits = 6L)
  ))
  invisible(x)
}

shrink_target_label <- function(target) {
  if (is.character(target)) {
    return(target)
  }
  sprintf("a %d x %d matrix", nrow(target), ncol(target))
}

abort_shrink <- function(message, call) {
  ghmix_abort(message, class = c("ghmix_error_shrink", "ghmix_error_argument"),
              call = call)
}

# "diagonal", "identity", or a finite, symmetric positive definite matrix
# (its dimension is checked with the data: shrink_target()).
shrink_check_target <- function(target, arg, call) {
  kinds <- c("diagonal", "identity")
  if (identical(target, kinds)) {
    return("diagonal")
  }
  if (is.character(target) && length(target) == 1L && target %in% kinds) {
    return(target)
  }
  if (is.data.frame(target)) target <- as.matrix(target)
  if (!shrink_matrix_ok(target)) {
    abort_shrink(
      sprintf(
        paste(
          '`%s` must be "diagonal", "identity" or a finite, symmetric',
          "positive definite matrix."
        ),
        arg
      ),
      call
    )
  }
  storage.mode(target) <- "double"
  target
}

shrink_matrix_ok <- function(m) {
  shrink_square_ok(m) && isSymmetric(unname(m)) &&
    !is.null(.Call(ffi_chol_lower, m + 0))
}

shrink_square_ok <- function(m) {
  is.matrix(m) && is.numeric(m) && all(is.finite(m)) && nrow(m) > 0L &&
    nrow(m) == ncol(m)
}

shrink_number_ok <- function(v) {
  is.numeric(v) && !is.factor(v) && length(v) == 1L && is.null(dim(v)) &&
    isTRUE(is.finite(v) && v >= 0)
}

shrink_check_weight <- function(weight, arg, call) {
  if (identical(weight, "cv")) {
    return(weight)
  }
  if (!(is.null(weight) || shrink_number_ok(weight))) {
    abort_shrink(
      sprintf('`%s` must be NULL, "cv" or a finite number, 0 or more.', arg),
      call
    )
  }
  if (!is.null(weight) && weight > shrink_weight_max) {
    # (the penalty k/2 times a divergence of Sigma from the target would
    # overflow; any weight beyond ~1e15 times the rows gives the target)
    abort_shrink(
      sprintf(
        paste(
          "`%s` (the weight, in pseudo-observations) must be at most %g,",
          "not %g; a weight far above the number of rows gives the target."
        ),
        arg, shrink_weight_max, weight
      ),
      call
    )
  }
  if (is.null(weight)) NULL else as.double(weight)
}

shrink_weight_max <- 1e250

# The `shrink` argument of a fit: NULL, a ghmix_shrink(), a number (the
# weight) or a target ("diagonal", "identity", a matrix).
shrink_arg <- function(shrink, call) {
  if (is.null(shrink) || inherits(shrink, "ghmix_shrink")) {
    return(shrink)
  }
  spec <- function(target, weight) {
    structure(list(target = target, weight = weight), class = "ghmix_shrink")
  }
  if (is.numeric(shrink) && length(shrink) == 1L && is.null(dim(shrink))) {
    return(spec("diagonal", shrink_check_weight(shrink, "shrink", call)))
  }
  if (shrink_target_like(shrink)) {
    return(spec(shrink_check_target(shrink, "shrink", call), NULL))
  }
  abort_shrink(
    paste(
      "`shrink` must be NULL, ghmix_shrink(), a weight (a number) or a",
      'target ("diagonal", "identity" or a matrix).'
    ),
    call
  )
}

shrink_target_like <- function(v) {
  is.character(v) || is.matrix(v) || is.data.frame(v)
}

# The prior of a fit, from its spec (shrink_arg()) and source
# (fit_source()): target (data's units), target_fit and chol_target (in
# the units the rows are fitted in), weight k, rule ("given" or
# "ledoit-wolf" or "cv"), intensity (rho of the rule, else NA), d, and for
# "cv" the table cv.  fold_fit(rows, k, target): the fit of some rows of
# src with another prior (shrink_fold_fitter()).  factors: NULL, or the r
# of a factor fit (its target: factor_shrink_target()).
shrink_setup <- function(spec, src, call, fold_fit = NULL, factors = NULL) {
  if (is.null(spec)) {
    return(NULL)
  }
  out <- cov_get(factors)$penalty_target(spec, src, call)
  if (identical(spec$weight, "cv")) {
    cv <- shrink_cv(spec$target, src, fold_fit, call)
    out$rule <- "cv"
    out$cv <- cv
    out$intensity <- cv$intensity[which.max(cv$cv_loglik)]
  } else if (is.null(spec$weight)) {
    out$rule <- "ledoit-wolf"
    out$intensity <- shrink_rule_intensity(out, src, call)
  }
  if (out$rule != "given") {
    out$weight <- src$nobs * out$intensity / (1 - out$intensity)
  }
  out
}

# The target part of the prior of a full-Sigma fit (shrink_setup()).
shrink_full_target <- function(spec, src, call) {
  d <- src$engine$d
  sc <- if (is.null(src$scaling)) rep(1, d) else src$scaling$scale
  tt <- shrink_target(spec$target, src$std$cov, sc, call)
  out <- list(
    type = if (is.character(spec$target)) spec$target else "matrix",
    target = tt$user, target_fit = tt$fit,
    chol_target = .Call(ffi_chol_lower, tt$fit), weight = spec$weight,
    rule = "given", intensity = NA_real_, d = d
  )
  if (is.null(out$chol_target)) {
    shrink_abort_target(call)
  }
  out
}

shrink_abort_target <- function(call) {
  abort_shrink("The target of `shrink` is not positive definite here.", call)
}

# The target in the data's units and in those of the fitted rows (cov: the
# rows' covariance, fitted units; sc: the scales of the standardisation).
shrink_target <- function(target, cov, sc, call) {
  s2 <- tcrossprod(sc)
  d <- length(sc)
  if (is.matrix(target)) {
    if (!identical(dim(target), c(d, d))) {
      abort_shrink(
        sprintf("The target of `shrink` must be a %d x %d matrix (d = %d).",
                d, d, d),
        call
      )
    }
    return(list(user = target, fit = target / s2))
  }
  if (target == "diagonal") {
    fit <- diag(diag(cov), d)
    return(list(user = fit * s2, fit = fit))
  }
  # the mean of the variances in the data's units, in logs (data on a scale
  # of 1e200 have variances beyond the doubles)
  lv <- log(diag(cov)) + 2 * log(sc)
  lm <- max(lv) + log(mean(exp(lv - max(lv))))
  list(user = diag(exp(lm), d), fit = diag(exp(lm - 2 * log(sc)), d))
}

shrink_need_rows <- function(src, call) {
  if (!is.matrix(src$stored)) {
    model_refuse("shrink_rule_chunks", call)
  }
}

# rho of the rule for the rows of src (in memory) toward the target.
shrink_rule_intensity <- function(prior, src, call) {
  shrink_need_rows(src, call)
  x <- src$stored
  if (prior$type == "diagonal" && !is.null(src$scaling)) {
    x <- scaling_apply(x, src$scaling) # the same rho, in safer units
  }
  w <- weights_in_sums(src$weights)
  rho <- if (isTRUE(prior$factor)) {
    factor_shrink_intensity(x, w, prior)
  } else {
    shrink_intensity(x, w, if (prior$type == "diagonal") NULL else
      prior$target)
  }
  if (!is.finite(rho)) {
    abort_shrink(
      "The weight rule of `shrink` failed on these data; give a weight.", call
    )
  }
  min(rho, shrink_rho_max)
}

# The largest intensity the rule gives (k <= 999 W).
shrink_rho_max <- 0.999

# weight = "cv": the grid of intensities and the number of folds.
shrink_cv_grid <- c(0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7)
shrink_cv_folds <- 5L

# The table of the cross-validated log-likelihood of each intensity.
shrink_cv <- function(target, src, fold_fit, call) {
  shrink_need_rows(src, call)
  x <- src$stored
  n <- nrow(x)
  w <- if (is.null(src$weights)) rep(1, n) else src$weights
  fold <- (seq_len(n) - 1L) %% shrink_cv_folds + 1L
  progress <- ghmix_progressor(length(shrink_cv_grid) * shrink_cv_folds)
  held <- vapply(shrink_cv_grid, function(rho) {
    rowSums(vapply(seq_len(shrink_cv_folds), function(f) {
      train <- which(fold != f)
      k <- sum(w[train]) * rho / (1 - rho)
      test <- which(fold == f & w > 0)
      out <- shrink_cv_heldout(fold_fit, train, k, target,
                               x[test, , drop = FALSE], w[test])
      progress(sprintf("intensity %g, fold %d", rho, f))
      out
    }, c(0, 0)))
  }, c(0, 0))
  score <- held[1L, ]
  if (!any(is.finite(score))) {
    abort_shrink(
      paste(
        "Cross-validation for `shrink` failed: no fold fit succeeded (each",
        "fold's training rows must make a fit); give a weight."
      ),
      call
    )
  }
  data.frame(intensity = shrink_cv_grid, cv_loglik = score,
             converged = as.integer(held[2L, ]))
}

# The most EM iterations of a fold fit of weight = "cv".
shrink_cv_max_iter <- 200L

# The weighted log-likelihood of the test rows under the fit of the
# training rows with weight k (-Inf when that fit fails), and whether the
# fit converged (0 or 1).
shrink_cv_heldout <- function(fold_fit, train, k, target, x_test, w_test) {
  fit <- tryCatch(suppressWarnings(fold_fit(train, k, target)),
                  ghmix_error = function(e) NULL)
  if (is.null(fit)) {
    return(c(-Inf, 0))
  }
  c(sum(w_test * stats::predict(fit, x_test, type = "log_density")),
    isTRUE(fit$converged))
}

# The fold fits of weight = "cv": the fit of src's rows `rows` by the same
# family and arguments, with prior weight k toward target.
shrink_fold_fitter <- function(src, family, args, call) {
  args$control$max_iter <- min(args$control$max_iter, shrink_cv_max_iter)
  function(rows, k, target) {
    w <- if (is.null(src$weights)) NULL else src$weights[rows]
    mix_fit(src$stored[rows, , drop = FALSE], family, args$symmetric, NULL,
            args$control, args$gauge, FALSE, args$backend, args$threads,
            args$device, call, NULL, w, fixed = args$fixed,
            shrink = ghmix_shrink(target, k), factors = args$factors)
  }
}

# The Ledoit-Wolf (2004, Lemmas 3.2-3.4) intensity of the covariance (divisor
# W) of the rows x (weights w, NULL: all 1) toward c T, c fitted by least
# squares; target NULL: the diagonal target on the correlation scale
# (off-diagonal entries only; Schaefer and Strimmer 2005).  The sums over the
# rows of ||x x' - S||^2 are expanded (sum_i w_i x_i x_i' = W S):
# sum_i w_i ||x_i||^4 - W ||S||^2.  Where S has the target's shape (always
# for d = 1) the intensity is 0.
shrink_intensity <- function(x, w, target) {
  if (is.null(w)) w <- rep(1, nrow(x))
  tot <- sum(w)
  x <- x - rep(colSums(x * w) / tot, each = nrow(x))
  s <- crossprod(x * w, x) / tot
  if (is.null(target)) {
    sd <- sqrt(diag(s))
    x <- x / rep(sd, each = nrow(x))
    s <- s / tcrossprod(sd)
    off <- sum(s^2) - sum(diag(s)^2)
    b2 <- (sum(w * (rowSums(x^2)^2 - rowSums(x^4))) - tot * off) / tot^2
    d2 <- off
  } else {
    b2 <- (sum(w * rowSums(x^2)^2) - tot * sum(s^2)) / tot^2
    d2 <- sum((s - sum(s * target) / sum(target^2) * target)^2)
  }
  if (d2 <= 0) {
    return(0)
  }
  min(max(b2, 0), d2) / d2
}

# The Ledoit-Wolf intensity of shrink_intensity() for the rows x (weights
# w, NULL: all 1) toward the prior's target, without the d x d sample
# covariance S: ||S||^2 from column blocks (factor_frob2()), tr(S) and
# <S, T> from the rows, so that ||S - c T||^2 = ||S||^2 - <S, T>^2 /
# ||T||^2 (c = <S, T> / ||T||^2).  O(n d^2) time, O(n d) memory.  d = 1:
# S has the target's shape, rho = 0 (not left to rounding).
factor_shrink_intensity <- function(x, w, prior) {
  d <- ncol(x)
  if (d == 1L) {
    return(0)
  }
  if (is.null(w)) w <- rep(1, nrow(x))
  tot <- sum(w)
  x <- x - rep(colSums(x * w) / tot, each = nrow(x))
  if (prior$type == "diagonal") {
    x <- x / rep(sqrt(colSums(x^2 * w) / tot), each = nrow(x))
    off <- factor_frob2(x, w) / tot^2 - sum((colSums(x^2 * w) / tot)^2)
    b2 <- (sum(w * (rowSums(x^2)^2 - rowSums(x^4))) - tot * off) / tot^2
    d2 <- off
  } else {
    s2 <- factor_frob2(x, w) / tot^2
    b2 <- (sum(w * rowSums(x^2)^2) - tot * s2) / tot^2
    d2 <- if (prior$type == "identity") {
      s2 - (sum(x^2 * w) / tot)^2 / d
    } else {
      tt <- prior$target_fit
      s2 - (sum(w * rowSums((x %*% tt) * x)) / tot)^2 / sum(tt^2)
    }
  }
  if (d2 <= 0) {
    return(0)
  }
  min(max(b2, 0), d2) / d2
}

# ||x' diag(w) x||^2 (Frobenius) by blocks of columns of that matrix, at
# most `cells` entries at a time (one block: crossprod(), half the work).
factor_frob2 <- function(x, w, cells = factor_block_cells) {
  y <- x * sqrt(w)
  d <- ncol(y)
  b <- max(1L, floor(cells / d))
  if (b >= d) {
    return(sum(crossprod(y)^2))
  }
  total <- 0
  for (j in seq(1L, d, by = b)) {
    cols <- j:min(d, j + b - 1L)
    total <- total + sum(crossprod(y, y[, cols, drop = FALSE])^2)
  }
  total
}

factor_block_cells <- 2^22

# P*(Sigma) from log det Sigma and tr(Sigma^-1 T) (the header).
shrink_penalty <- function(logdet, tr, d, k) {
  -(k / 2) * (logdet + d * log(tr / d) + d)
}

# The penalised M-step of Sigma, (W S + k T / c*) / (W + k), written as
# S + lambda (T / c* - S), lambda = k / (W + k), so that k = 0 returns S
# itself.  Linear in (S, T): a factor-analytic M-step can pass S B' and
# T B' for S and T (the penalised S B' for a diagonal T).
shrink_sigma <- function(s, target, k, w, c_star) {
  s + (k / (w + k)) * (target / c_star - s)
}

# The weight k (0 without a prior).
shrink_weight <- function(prior) if (is.null(prior)) 0 else prior$weight

# The pseudo-observations that the convergence rule adds to the rows (none
# for d = 1, where P* is a constant).
shrink_rows <- function(prior) {
  if (is.null(prior) || prior$d == 1L) 0 else prior$weight
}

# The record of the prior in a fit (data's units).
shrink_result <- function(prior) {
  prior[intersect(c("type", "target", "weight", "rule", "intensity", "cv"),
                  names(prior))]
}

# The line of print() and summary() for a penalised fit.
shrink_line <- function(x) {
  sh <- x$shrink
  sprintf(
    paste(
      "Penalised fit (shrink): target %s, weight %s pseudo-observations",
      "(%s);\n  objective %s (the log-likelihood plus the penalty)"
    ),
    sh$type, format(sh$weight, digits = 6L),
    if (sh$rule == "given") "given" else
      sprintf("%s, intensity %s",
              if (sh$rule == "cv") "cross-validated" else "Ledoit-Wolf rule",
              format(sh$intensity, digits = 4L)),
    format(x$objective, digits = 10L)
  )
}

# vcov() of a penalised fit: the observed information of the likelihood is
# not that of the posterior mode, so there are no standard errors.
vcov_check_shrink <- function(object, call) {
  if (!is.null(object$shrink)) model_refuse("shrink_vcov", call)
}

# The all-NA covariance that summary() shows for a penalised fit.
shrink_vcov_na <- function(object) {
  nm <- names_nat(names(object$parameters$mu), object$family,
                  object$symmetric)
  matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
}

# fit_gaussian(shrink = ): the maximum of loglik + P* over Sigma (mu the
# column means).  By the envelope theorem P*'s gradient is that of P in the
# gauge c*, so its stationary points are the fixed points of
# Sigma = (n S + k T / c) / (n + k), c = tr(Sigma^-1 T) / d.  With T = M M'
# and lambda the eigenvalues of M^-1 S M^-T, u = 1 / c solves
# g(u) = u (n + k) / d sum_j 1 / (n lambda_j + k u) = 1, g increasing from
# 0 to (n + k) / k: one root, the maximum (F -> -Inf at the boundary).
shrink_gaussian <- function(fit, x, spec, call) {
  n <- fit$nobs
  d <- fit$d
  s <- fit$parameters$sigma
  src <- list(engine = list(d = d), std = list(cov = s), stored = x,
              nobs = n)
  if (identical(spec$weight, "cv")) {
    model_refuse("shrink_cv_gaussian", call)
  }
  prior <- shrink_setup(spec, src, call)
  k <- prior$weight
  fit$shrink <- shrink_result(prior)
  if (k > 0 && d > 1) {
    m <- prior$chol_target
    lam <- eigen(forwardsolve(m, t(forwardsolve(m, s))), symmetric = TRUE,
                 only.values = TRUE)$values
    g <- function(t) exp(t) * (n + k) / d * sum(1 / (n * lam + k * exp(t))) - 1
    t0 <- -log(mean(1 / lam))
    root <- stats::uniroot(g, c(t0 - 1, t0 + 1), extendInt = "upX",
                           tol = 1e-14)$root
    sigma <- shrink_sigma(s, prior$target_fit, k, n, exp(-root))
    fit$parameters$sigma <- (sigma + t(sigma)) / 2
  }
  chol_l <- .Call(ffi_chol_lower, fit$parameters$sigma)
  parts <- penalty_parts_chol(chol_l, prior)
  if (k > 0 && d > 1) {
    tr_s <- sum(chol2inv(t(chol_l)) * s)
    fit$loglik <- -n / 2 * (d * log(2 * pi) + parts[[1L]] + tr_s)
  }
  fit$objective <- fit$loglik + shrink_penalty(parts[[1L]], parts[[2L]], d, k)
  fit
}
