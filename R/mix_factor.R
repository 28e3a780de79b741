# Mixtures of G factor-analytic members (`components = G` with
# `factors = r`): component k has its own mu_k, gamma_k, Sigma_k = F_k F_k'
# + diag(D_k) (F_k d x r), p_k, a_k, b_k and proportion pi_k.  The EM of
# R/mix_fit.R (starts, SQUAREM, restarts, drops, result, order) with the
# factor E- and M-steps of R/fit_factor.R in place of the full ones, so
# that no d x d matrix is formed and the memory is O(n G + G d r) beyond
# the rows:
#   each E-step: the per-row log densities of every component (the factor
#   E-step with rows), the memberships tau_ik from them in R, then every
#   component's sums from the factor E-step with row weights w_i tau_ik;
#   each M-step: factor_mstep() per component (a GEM step of each, so the
#   mixture log-likelihood never decreases) and pi_k = tau_k / sum(tau).
# The components are iterated unrotated (as one factor fit is: see
# factor_point()) and rotated once, in mixture_result().
# With a prior (shrink), each component's factor M-step is that of one
# penalised factor fit (R/factor_shrink.R) with its membership weight
# W_k and c*_k: the MAP-EM argument of R/mix_shrink.R, component by
# component, with R/factor_shrink.R's GEM step for each Sigma_k.  On a GPU
# the rows are copied to the device once; each component's E-step runs
# there, its weights w_i tau_ik copied over the rows' before its sums.

# The checked r of a factor mixture (NULL without factors); the
# combinations not supported yet are classed errors.
mixture_factor_mode <- function(factors, x, args, call) {
  factors <- check_factors(factors, call)
  if (is.null(factors)) {
    return(NULL)
  }
  what <- if (!is.null(args$cluster) || inherits(x, "ghmix_data")) {
    "chunked data or a cluster"
  }
  if (!is.null(what)) {
    factor_abort_mode(
      sprintf("`factors` with `components` and %s is not supported yet.",
              what),
      call
    )
  }
  factors
}

# The fit of one G >= 2 (as mixture_fit_g(), in the factor form): the rows
# standardised by their column means and standard deviations (no
# covariance formed).
mixture_factor_fit_g <- function(data, g, family, nstart, start, args,
                                 call) {
  x <- data$x
  d <- ncol(x)
  fitted <- factor_fitted_rows(x, data$weights, args$factors, call)
  if (!is.null(fitted$scaling)) {
    factor_abort_mode(
      paste(
        "`factors` with `components` and data whose scale needs",
        "standardising (a column's standard deviation outside",
        "[2^-128, 2^128], or a mean beyond 2^26 of them) is not supported",
        "yet: rescale `x`."
      ),
      call
    )
  }
  std <- fitted$std
  z <- sweep(sweep(x, 2L, std$center), 2L, std$scale, "/")
  ctx <- list(family = family, symmetric = args$symmetric,
              control = args$control, threads = args$threads, call = call,
              estep = mixture_factor_estep, weights = data$weights,
              factors = args$factors,
              std = list(center = rep(0, d), scale = rep(1, d)))
  if (args$backend == "cuda") {
    # the standardised rows copied to the GPU once for the whole fit
    rows_gpu <- factor_cuda_data(z, rep(1, nrow(z)), args$device)
    on.exit(rows_gpu$free(), add = TRUE)
    ctx$estep <- mixture_factor_estep_cuda(rows_gpu)
  }
  ctx$shrink <- mixture_factor_shrink_setup(args$shrink, x, std,
                                            data$weights, g, args$factors,
                                            call)
  best <- mixture_best_start(z, g, family, nstart, start, std, ctx)
  em <- mixture_em_restarts(z, g, best, ctx, args$control)
  args$prior <- ctx$shrink
  fit <- mixture_result(em, x, std, family, args, data, call)
  fit$asked <- g
  fit
}

# The mixture E-step of factor members, with the arguments and result of
# mixture_estep() (R/mix_estep.R) but each component's statistics those
# of factor_estep() (sxx_diag, sxx_proj, proj in place of sxx); the
# per-row log_y is that of `what` only with rows = TRUE.
mixture_factor_estep <- function(x, pars, props, weights = NULL, what,
                                 rows = FALSE, threads = ghmix_threads()) {
  member <- function(par, what, v, rows) {
    factor_estep(x, par, what, v, rows = rows, threads = threads)
  }
  mixture_factor_estep_by(member, nrow(x), pars, props, weights, what, rows)
}

# The E-step of mixture_factor_estep() on the GPU, on the rows of `data`
# (factor_cuda_data(), made with weights; the x of the call, the same rows
# in this process, is not read): each component's E-step runs on the
# device, its weights w_i tau_ik copied over the data's before its sums.
mixture_factor_estep_cuda <- function(data) {
  member <- function(par, what, v, rows) {
    if (!is.null(v)) {
      .Call(ffi_cuda_factor_data_weights, data$handle, as.double(v))
    }
    factor_estep(data, par, what, rows = rows, backend = "cuda")
  }
  function(x, pars, props, weights = NULL, what, rows = FALSE, threads) {
    mixture_factor_estep_by(member, data$dim[[1L]], pars, props, weights,
                            what, rows)
  }
}

# mixture_factor_estep() with the factor E-step of one component on the
# n rows given as member(par, what, v, rows) (v: NULL, or the rows'
# weights): per component first its per-row log densities (unweighted),
# the memberships from them, then its sums with row weights w_i tau_ik.
mixture_factor_estep_by <- function(member, n, pars, props, weights, what,
                                    rows) {
  # (the memberships need no E[log Y | x])
  logy <- ghmix_flags("estep", "logy")
  what_rows <- if (rows) what else bitwAnd(what, bitwNot(logy))
  per <- lapply(pars, function(par) member(par, what_rows, NULL, TRUE)$rows)
  mr <- mixture_rows_combine(per, props)
  if (is.null(mr)) {
    return(NULL)
  }
  w_in <- if (is.null(weights)) rep(1, n) else as.double(weights)
  ok <- mr$ok & w_in > 0
  w <- ifelse(ok, w_in, 0)
  comps <- lapply(seq_along(pars), function(k) {
    member(pars[[k]], what, w * mr$z[, k], FALSE)
  })
  if (any(vapply(comps, is.null, NA))) {
    return(NULL)
  }
  list(
    n = sum(ok), weight = sum(w), loglik = sum(w[ok] * mr$logf[ok]),
    n_bad = sum(!mr$ok & w_in > 0), components = comps,
    rows = if (rows) mixture_rows_list(mr)
  )
}

# theta of a factor mixture (mixture_theta()): each component's mu, gamma,
# vec(F), log D and mixing parameters (as factor_point() packs them),
# then the log proportions relative to the first.
mixture_factor_theta <- function(pars, props, ctx) {
  comps <- lapply(pars, function(par) {
    theta_pack(par, ctx$family, ctx$symmetric,
               c(par$loadings, log(par$uniquenesses)))
  })
  c(unlist(comps), log(props[-1L] / props[[1L]]))
}

# A usable factor member: finite, a valid GIG, M = I + F' D^-1 F positive
# definite, and Sigma's condition number at most kappa_max by the bound
# (max D + sum F^2) / min D (at least the condition number itself), as
# mixture_sigma_ok() asks of a full Sigma.
mixture_factor_par_ok <- function(par, kappa_max = 1e12) {
  if (is.null(factor_woodbury(par))) {
    return(FALSE)
  }
  dd <- par$uniquenesses
  (max(dd) + sum(par$loadings^2)) / min(dd) <= kappa_max
}

# Free parameters of one member: mix_df(), or factor_df() with r factors.
mixture_member_df <- function(family, symmetric, d, factors = NULL) {
  if (is.null(factors)) {
    return(mix_df(family, symmetric, d))
  }
  factor_df(family, symmetric, d, factors)
}

# The start of factor members from a partition (mixture_start_labels()):
# per cluster its mean, gamma 0, the family's mixing law with mean 1 (a
# NIG law for GH) and F, D from the r leading principal components of the
# cluster's covariance (factor_pca(), factor_principal(), as factor_start()
# for one fit); NULL when a cluster's member is not usable.
mixture_factor_start <- function(z, labels, counts, family, label, r) {
  mixing <- mix_start_mixing(if (family == "gh") "nig" else family)
  pars <- lapply(seq_along(counts), function(k) {
    rows <- z[labels == k, , drop = FALSE]
    center <- colMeans(rows)
    u <- rows - rep(center, each = nrow(rows))
    std <- list(center = center, scale = sqrt(colSums(u^2) / (nrow(rows) - 1)))
    fd <- factor_principal(factor_pca(rows, NULL, std, r), r)
    c(list(mu = center, gamma = rep(0, ncol(z))), fd, mixing)
  })
  if (!all(vapply(pars, mixture_factor_par_ok, NA))) {
    return(NULL)
  }
  list(pars = pars, props = counts / sum(counts), label = label)
}

# A previous mixture fit as the start of a factor mixture: one with as
# many factors.
mixture_factor_check_start <- function(start, factors, call) {
  if (identical(start$factors, factors)) {
    return(invisible())
  }
  mixture_abort_start(
    sprintf(
      "`start` is a mixture fit with %s; this fit has %s.",
      mixture_factor_label(start$factors), mixture_factor_label(factors)
    ),
    call
  )
}

mixture_factor_label <- function(factors) {
  if (is.null(factors)) {
    return("full Sigma")
  }
  sprintf("%d factor%s", factors, plural(seq_len(factors)))
}

# Methods ----------------------------------------------------------------------

# The diagonal of a component's Sigma (F F' + D for a factor member).
mixture_sigma_diag <- function(par) {
  if (is.null(par$loadings)) {
    return(diag(par$sigma))
  }
  rowSums(par$loadings^2) + par$uniquenesses
}

# The summary's tables of a factor mixture: each component's estimates as
# factor_vcov_pack() has them (the names of factor_vcov_names()), without
# standard errors (vcov() of factor mixtures is not available yet).
mixture_factor_tables <- function(object) {
  vars <- colnames(object$data)
  tables <- lapply(object$components, function(par) {
    est <- factor_vcov_pack(par, object$family, object$symmetric)
    out <- cbind(Estimate = est, `Std. Error` = NA_real_)
    rownames(out) <- factor_vcov_names(vars, object$factors, object$family,
                                       object$symmetric)
    out
  })
  list(tables = tables, prop_se = rep(NA_real_, object$G), has_se = FALSE)
}

mixture_factor_abort_vcov <- function(object, call) {
  if (!is.null(object$factors)) {
    factor_abort_mode(
      paste("vcov() of a mixture with `factors` is not supported yet",
            "(summary() gives the estimates without standard errors)."),
      call
    )
  }
}
