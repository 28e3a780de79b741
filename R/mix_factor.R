# Mixtures of G factor-analytic members (`components = G` with
# `factors = r`): component k has its own mu_k, gamma_k, Sigma_k = F_k F_k'
# + diag(D_k) (F_k d x r), p_k, a_k, b_k and proportion pi_k.  The EM of
# R/mix_fit.R (starts, SQUAREM, restarts, drops, result, order) with the
# factor E- and M-steps of R/fit_factor.R in place of the full ones, so
# that no d x d matrix is formed and the memory is O(n G + G d r) beyond
# the rows:
#   each E-step: one pass over the rows (src/cpu/factor_cpu.c), each row's
#   factor forms and density under every component, its memberships tau_ik
#   and every component's sums with row weights w_i tau_ik;
#   each M-step: factor_mstep() per component (a GEM step of each, so the
#   mixture log-likelihood never decreases) and pi_k = tau_k / sum(tau).
# The components are iterated unrotated (as one factor fit is: see
# factor_point()) and rotated once, in mixture_result().
#
# Chunked data and clusters (R/mix_chunked.R): each chunk does the whole
# E-step of its rows where it is read (densities, memberships and the
# weighted factor sums: mixture_factor_chunk_stats()), so one pass over
# the chunks per E-step and O(G d r) numbers back from each.  Data whose
# scale needs the standardisation of R/fit_scaling.R are fitted in its
# units and reported in the user's (mixture_unscale()).
#
# With a prior (shrink), each component's factor M-step is that of one
# penalised factor fit (R/penalty.R) with its membership weight W_k and
# c*_k: the MAP-EM argument of R/penalty.R, component by component, with
# its factor GEM step for each Sigma_k.  On a GPU
# the rows and their weights are copied to the device once; each E-step is
# one pass over them there: every row's components, memberships and
# weighted sums (mixture_factor_estep_cuda()).

# The fit of one G >= 2 (as mixture_fit_g(), in the factor form): the rows
# standardised by their column means and standard deviations (no
# covariance formed), and where their scale needs it (R/fit_scaling.R)
# fitted in the units of the scaling first, as a single factor fit is.
mixture_factor_fit_g <- function(data, g, family, nstart, start, args,
                                 call) {
  x <- data$x
  fitted <- factor_fitted_rows(x, data$weights, args$factors, call)
  std <- fitted$std
  z <- mixture_standardise(fitted$x, std)
  ctx <- mixture_factor_ctx(family, args, call, data$weights, ncol(x))
  if (args$backend == "cuda") {
    # the standardised rows and their weights copied to the GPU once for
    # the whole fit
    w <- if (is.null(data$weights)) rep(1, nrow(z)) else as.double(data$weights)
    rows_gpu <- factor_cuda_data(z, w, args$device)
    on.exit(rows_gpu$free(), add = TRUE)
    ctx$estep <- mixture_factor_estep_cuda(rows_gpu, w)
  }
  ctx$shrink <- mixture_shrink_setup(args$shrink, fitted$x, std,
                                     data$weights, g, call, args$factors,
                                     fitted$scaling)
  best <- mixture_best_start(z, g, family, nstart, start, std, ctx)
  em <- mixture_em_restarts(z, g, best, ctx, args$control)
  args$prior <- ctx$shrink
  fit <- mixture_result(em, fitted$x, std, family, args, data, call)
  fit <- mixture_unscale(fit, fitted$scaling, x, call, ctx$shrink)
  fit$asked <- g
  fit
}

# The EM's context of a factor mixture whose E-steps run on rows in memory
# (the rows' weights: w).
mixture_factor_ctx <- function(family, args, call, w, d) {
  list(family = family, symmetric = args$symmetric, control = args$control,
       threads = args$threads, call = call, estep = mixture_factor_estep,
       weights = w, factors = args$factors,
       std = list(center = rep(0, d), scale = rep(1, d)),
       unit = if (is.null(w)) 1 else weights_unit(w))
}

# A mixture fitted in the units of scaling sc (NULL: none) in the user's:
# as factor_result_scaled() for one fit, each component's parameters in
# those units kept in fit$scaling$parameters (factor members in the
# documented rotation, the column signs chosen by the loadings in the
# user's units), the user's from them (Sigma -> D Sigma D / k, F -> D F /
# sqrt(k), D -> s^2 D / k, ...: scaling_to_user()), the log-likelihoods
# less n sum(log s), and x (the user's rows) as the fit's data.  With a
# prior, the objective in the data's units: Sigma_k = diag(s) Sigma_z,k
# diag(s) / k (gauge k) and the target T = c diag(s) T_z diag(s) (T_z the
# EM's, c = exp(prior$target_log_c), 1 where it is not set) give log det
# Sigma_k + 2 sum(log s) and tr(Sigma_k^-1 T) times c k (P* is unchanged
# by the gauge), so each P* = -(w / 2) [log det + d log(tr / d) + d] falls
# by w (sum(log s) + d log(c) / 2), w the prior's weight.
mixture_unscale <- function(fit, sc, x, call, prior = NULL) {
  if (is.null(sc)) {
    return(fit)
  }
  ls <- log(sc$scale)
  log_k <- scaling_log_k(sc, fit$gauge)
  factor <- !is.null(fit$factors)
  z_pars <- if (factor) {
    lapply(fit$components, factor_rotate, log_scale = ls)
  } else {
    fit$components
  }
  user <- lapply(z_pars, scaling_to_user, sc = sc, log_k = log_k)
  keep <- c("mu", "gamma", if (factor) c("loadings", "uniquenesses") else
    "sigma", "a", "b")
  flat <- function(pars) {
    lapply(stats::setNames(keep, keep), function(k) {
      unlist(lapply(pars, function(par) par[[k]]))
    })
  }
  scaling_check(flat(user), flat(z_pars), call,
                "predict() and simulate()")
  shift <- fit$nobs * sum(ls)
  fit$components <- user
  fit$scaling <- list(center = sc$center, scale = sc$scale, log_k = log_k,
                      parameters = z_pars)
  fit$loglik <- fit$loglik - shift
  fit$trace$loglik <- fit$trace$loglik - shift
  if (!is.null(fit$objective)) {
    # P*(Sigma_k) in the data's units (mixture_factor_prior())
    log_c <- if (is.null(prior$target_log_c)) 0 else prior$target_log_c
    shift <- shift + penalty_shift(prior, sum(ls) + length(ls) / 2 * log_c,
                                   fit$G)
    fit$objective <- fit$objective - shift
    fit$trace$objective <- fit$trace$objective - shift
    if (!factor) {
      # (the diagonal target, fitted in the units of sc: in the data's)
      fit$shrink$target <- fit$shrink$target * tcrossprod(sc$scale)
    }
  }
  if (!is.null(fit$starts)) fit$starts$loglik <- fit$starts$loglik - shift
  fit$data <- x
  mixture_finish(fit)
}

# The mixture E-step of factor members, with the arguments and result of
# mixture_estep() (R/mix_estep.R) but each component's statistics those
# of factor_estep() (sxx_diag, sxx_proj, proj in place of sxx), in one
# pass over the rows x in memory (src/cpu/factor_cpu.c: every row's
# components, memberships and weighted sums).
mixture_factor_estep <- function(x, pars, props, weights = NULL, what,
                                 rows = FALSE, threads = ghmix_threads()) {
  heads <- mixture_factor_heads(pars, ncol(x), what)
  if (is.null(heads)) {
    return(NULL)
  }
  raw <- mixture_factor_raw(x, weights, pars, props, what, rows, threads)
  mixture_factor_result(raw, heads, rows)
}

# The raw statistics of G factor components (src/core/estep.h) of the
# rows x (a double matrix) in one pass, with attribute "rows" when rows =
# TRUE; NULL when a component's parameters are not usable
# (src/r_factor.c, ffi_factor_estep_mixture).
mixture_factor_raw <- function(x, weights, pars, props, what, rows,
                               threads) {
  if (!is.null(weights)) {
    weights <- as.double(weights)
  }
  .Call(ffi_factor_estep_mixture, x, weights,
        lapply(pars, factor_estep_args, what = what), log(props),
        as.integer(what), rows, as.integer(threads))
}

# Each component's constants proj, logdet and gsg (factor_estep() on no
# rows); NULL when a component's parameters are not usable.
mixture_factor_heads <- function(pars, d, what) {
  heads <- lapply(pars, function(par) {
    factor_estep(matrix(0, 0L, d), par, what)
  })
  if (any(vapply(heads, is.null, NA))) NULL else heads
}

# The E-step's result from the raw statistics (NULL: NULL) and the
# components' constants (mixture_factor_heads()).
mixture_factor_result <- function(raw, heads, rows) {
  if (is.null(raw)) {
    return(NULL)
  }
  proj <- heads[[1L]]$proj
  es <- mixture_factor_unpack(raw, heads, ncol(proj), nrow(proj))
  if (rows) {
    es$rows <- mixture_rows(attr(raw, "rows"), length(heads))
  }
  es
}

# The E-step of mixture_factor_estep() on the GPU, in one pass over the
# rows of `data` (factor_cuda_data(), made with the rows' weights `held`;
# the x of the call, the same rows in this process, is not read): every
# row's components, memberships and weighted sums on the device
# (src/cuda/factor_estep.cu).  Other weights than those held are copied
# over them first.
mixture_factor_estep_cuda <- function(data, held) {
  d <- data$dim[[2L]]
  function(x, pars, props, weights = NULL, what, rows = FALSE, threads) {
    heads <- mixture_factor_heads(pars, d, what)
    if (is.null(heads)) {
      return(NULL)
    }
    w <- if (is.null(weights)) rep(1, data$dim[[1L]]) else as.double(weights)
    if (!identical(w, held)) {
      factor_cuda_weights(data, w)
      held <<- w
    }
    raw <- factor_cuda_estep_mixture_raw(data, pars, props, what, rows)
    mixture_factor_result(raw, heads, rows)
  }
}

# The raw statistics of a factor mixture's E-step on the GPU (those of
# mixture_factor_raw(), with attribute "rows" when rows = TRUE:
# src/r_factor.c, ffi_cuda_factor_estep_mixture).
factor_cuda_estep_mixture_raw <- function(data, pars, props, what, rows) {
  .Call(ffi_cuda_factor_estep_mixture, data$handle,
        lapply(pars, factor_estep_args, what = what), log(props),
        as.integer(what), rows)
}

# New row weights for the rows of `data` on the GPU.
factor_cuda_weights <- function(data, w) {
  invisible(.Call(ffi_cuda_factor_data_weights, data$handle, as.double(w)))
}

# Chunked data and clusters ---------------------------------------------------

# One G of a factor mixture over chunks or on a cluster (as
# mixture_chunked_fit_g()): the best start from the rows in memory (their
# E-steps in memory), then the EM with one pass over the chunks per E-step
# (mixture_factor_estep_engine()).
mixture_factor_chunked_fit_g <- function(src, g, family, nstart, start, args,
                                         call) {
  ctx <- mixture_factor_ctx(family, args, call, src$start_w,
                            length(src$std$scale))
  ctx$unit <- src$unit
  ctx$shrink <- mixture_shrink_setup(
    args$shrink, if (is.matrix(src$stored)) src$stored, src$std,
    src$weights, g, call, args$factors, src$scaling, src$nobs
  )
  fit <- mixture_chunked_em(src, g, family, nstart, start, args, ctx,
                            mixture_factor_estep_engine(src), call)
  fit <- mixture_unscale(fit, src$scaling, src$x, call, ctx$shrink)
  fit$asked <- g
  fit$distributed <- mixture_distributed(src$engine)
  fit
}

# One chunk's share of a factor mixture's E-step, where the chunk is read
# (an engine's estep_mixture() given args$factor_mixture: the components
# in the units z = (x - center) / scale of its std, their proportions and
# the E-step flags): the raw statistics of G factor components
# (mixture_factor_raw()) of its rows standardised here, one vector that
# adds over chunks.
mixture_factor_chunk_stats <- function(x, weights, args, threads) {
  fm <- args$factor_mixture
  z <- mixture_standardise(x, fm$std)
  raw <- mixture_factor_raw(z, weights, fm$pars, fm$props, fm$what, FALSE,
                            threads)
  if (is.null(raw)) {
    stop("internal error: unusable factor mixture parameters", call. = FALSE)
  }
  as.vector(raw)
}

# The E-step of a factor mixture in z's units over the chunks of
# src$engine (the interface of mixture_estep_fun(); x, the rows of the
# starts, is not read): one pass over the chunks, each returning
# mixture_factor_chunk_stats(), summed in chunk order; the constants of
# each component (proj, logdet, gsg) from factor_estep() on no rows, as
# factor_estep_chunks() has them; rows = TRUE adds the memberships of every
# row (src$rows()).
mixture_factor_estep_engine <- function(src) {
  d <- length(src$std$scale)
  function(x, pars, props, weights = NULL, what, rows = FALSE, threads) {
    heads <- mixture_factor_heads(pars, d, what)
    if (is.null(heads)) {
      return(NULL)
    }
    fm <- list(pars = pars, props = props, what = what,
               std = src$std[c("center", "scale")])
    raw <- src$engine$estep_mixture(list(factor_mixture = fm))
    es <- mixture_factor_unpack(raw, heads, d, ncol(pars[[1L]]$loadings))
    if (rows) {
      es$rows <- src$rows(pars, props, what, threads, mixture_factor_estep)
    }
    es
  }
}

# The statistics of G factor components (mixture_factor_chunk_stats()) by
# name, each component with its constants proj, logdet and gsg (heads).
mixture_factor_unpack <- function(raw, heads, d, r) {
  es <- estep_decode(raw, estep_layout(d, length(heads), "factor", r))
  es$components <- Map(function(st, head) {
    c(st, head[c("proj", "logdet", "gsg")])
  }, es$components, heads)
  es
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
