# Mixtures of chunked data (ghmix_data), and of any data on a `parallel`
# cluster or the workers of a future plan: the EM of R/mix_fit.R with its
# E-steps run by the chunked engine (R/engines.R: each chunk's G-component
# E-step, ffi_mix_estep_mixture(), summed in chunk order; for factor
# members that of mixture_factor_chunk_stats(), R/mix_factor.R).
#
# The engine holds the rows in the data's units; the EM works in the
# standardised units z = (x - center) / scale of R/mix_fit.R.  Each E-step
# takes the components to the data's units (from_std()), and its sums
# back: sx and sxw divided by scale, sxx by scale scale', the
# log-likelihood plus sum(w) sum(log(scale)) (the memberships and the
# posterior moments of Y do not change).
#
# Starts come from rows in memory: a matrix's own rows (so the fit is the
# in-memory fit's, up to rounding), or for chunked data a subsample of at
# most `mixture_sample_max` rows taken evenly through the chunks (all of
# them when there are no more), read here.  After the EM a last pass
# computes the memberships of every row (read here, chunk by chunk), which
# the fit keeps (an n x G matrix) for its classification, uncertainty and
# ICL.

# The most rows read for the starts of a chunked mixture.
mixture_sample_max <- 5000L

mixture_chunked_components <- function(x, g_all, family, nstart, criterion,
                                       start, args, weights, call) {
  args$groups <- max(g_all) # (the check of collinearity within clusters)
  src <- mixture_chunked_source(x, args, weights, call)
  on.exit(src$engine$free())
  if (!is.null(start) && !inherits(start, "ghmix_mixture") &&
        length(src$dropped) > 0L && length(start) == src$n_raw) {
    start <- start[-src$dropped]
  }
  fits <- progress_lapply(g_all, function(g) {
    if (g == 1L) {
      fit <- mix_fit(x, family, args$symmetric, NULL, args$control,
                     args$gauge, args$na_rm, args$backend, args$threads,
                     args$device, call, cluster = args$cluster,
                     weights = weights, shrink = args$shrink,
                     factors = args$factors)
      out <- mixture_from_single(fit, src$dropped)
      out$asked <- 1L
      return(out)
    }
    mixture_best_of_starts(start, family, function(s) {
      if (!is.null(args$factors)) {
        return(mixture_factor_chunked_fit_g(src, g, family, nstart, s,
                                            args, call))
      }
      mixture_chunked_fit_g(src, g, family, nstart, s, args, call)
    })
  }, progress_label_g)
  mixture_chosen(fits, criterion)
}

# The engine over the chunks (a matrix split into one chunk per worker),
# the standardisation, the rows for the starts (z, with their weights
# start_w) and the final pass over all rows (rows(), by the mixture E-step
# estep in memory).  A matrix with factors is split as the in-memory
# factor mixture fits it: in the units of its scaling (NULL: its own), the
# user's rows kept as x.
mixture_chunked_source <- function(x, args, weights, call) {
  scaling <- NULL
  if (inherits(x, "ghmix_data")) {
    chunk_check_no_weights(weights, call)
    engine <- chunk_engine(x, args, args$na_rm, call)
    std <- chunk_std(engine$summary, engine$data$names)
    chunk_check_scale(engine, std, call)
    sub <- mixture_chunk_sample(engine$data, mixture_sample_max)
    stored <- engine$data
    dropped <- engine$data$dropped
    n_raw <- engine$n + length(dropped)
    w <- NULL
  } else {
    full <- is.null(args$factors)
    collinear <- if (full) args$groups else FALSE
    data <- mix_data(x, args$na_rm, call, collinear = collinear)
    w <- weights_in_sums(mix_weights(weights, data, call))
    mix_check_weighted_shape(data$x, w, call, collinear = collinear)
    stored <- data$x
    if (full) {
      std <- mix_moments(stored, w)
    } else {
      fitted <- factor_fitted_rows(stored, w, args$factors, call)
      stored <- fitted$x
      std <- fitted$std
      scaling <- fitted$scaling
    }
    engine <- chunk_engine(chunk_split(stored, args$cluster, w), args,
                           args$na_rm, call)
    sub <- list(x = stored, w = w)
    dropped <- data$dropped
    n_raw <- NROW(x)
  }
  z <- mixture_standardise(sub$x, std)
  sum_w <- engine$summary$w
  list(
    engine = engine, std = std, z = z, start_w = weights_in_sums(sub$w),
    unit = if (is.null(sum_w)) 1 else engine$summary$unit,
    stored = stored, dropped = dropped, n_raw = n_raw, weights = w,
    nobs = if (is.null(sum_w)) engine$n else sum_w, scaling = scaling,
    x = if (inherits(x, "ghmix_data")) stored else data$x,
    rows = function(pars, props, what, threads, estep = mixture_estep) {
      mixture_chunked_rows(stored, std, pars, props, what,
                           min(threads, max_threads()), estep)
    }
  )
}

mixture_standardise <- function(x, std) {
  sweep(sweep(x, 2L, std$center), 2L, std$scale, "/")
}

# The rows (and weights) of about m rows evenly through the chunks of
# data, in chunk order: all of them where there are at most m.  The
# weights are NULL where no chunk read has any, else one per row (1 for
# the rows of a chunk without weights).
mixture_chunk_sample <- function(data, m) {
  n <- data$n
  take <- if (n <= m) seq_len(n) else unique(round(seq(1, n, length.out = m)))
  offset <- cumsum(c(0, data$rows))
  parts <- lapply(seq_along(data$chunks), function(i) {
    want <- take[take > offset[[i]] & take <= offset[[i + 1L]]] - offset[[i]]
    if (length(want) == 0L) {
      return(NULL)
    }
    x <- chunk_read(data$chunks[[i]], data$bad[[i]])
    list(x = x[want, , drop = FALSE], w = attr(x, "weights")[want])
  })
  parts <- Filter(Negate(is.null), parts)
  x <- do.call(rbind, lapply(parts, function(p) p$x))
  dimnames(x) <- list(NULL, data$names)
  weighted <- !vapply(parts, function(p) is.null(p$w), NA)
  w <- if (any(weighted)) {
    # a chunk without weights counts each row once (ghmix_data())
    unlist(lapply(parts, function(p) {
      if (is.null(p$w)) rep(1, nrow(p$x)) else p$w
    }))
  }
  list(x = x, w = w)
}

# The E-step of a mixture in z's units over the engine's rows (the
# interface of mixture_estep_fun(); x and weights are those the engine
# holds); rows = TRUE adds the memberships of every row (rows()).
mixture_estep_engine <- function(src) {
  scale <- src$std$scale
  function(x, pars, props, weights = NULL, what, rows = FALSE, threads) {
    args <- mixture_estep_args(lapply(pars, from_std, std = src$std), props,
                               what)
    if (is.null(args)) {
      return(NULL)
    }
    es <- mixture_unpack(src$engine$estep_mixture(args), length(scale),
                         length(pars))
    es$loglik <- es$loglik + es$weight * sum(log(scale))
    es$components <- lapply(es$components, function(st) {
      st$sx <- st$sx / scale
      st$sxw <- st$sxw / scale
      st$sxx <- st$sxx / tcrossprod(scale)
      st
    })
    if (rows) {
      es$rows <- src$rows(pars, props, what, threads)
    }
    es
  }
}

# The memberships of every row at (pars, props) in z's units by estep (a
# mixture E-step in memory), and the rows' weights (NULL: none): a matrix
# in memory, or the chunks read here one after the other.
mixture_chunked_rows <- function(stored, std, pars, props, what, threads,
                                 estep = mixture_estep) {
  one <- function(x) {
    es <- estep(mixture_standardise(x, std), pars, props,
                attr(x, "weights"), what, rows = TRUE, threads = threads)
    w <- attr(x, "weights")
    cbind(if (is.null(w)) rep(1, nrow(x)) else w, es$rows$tau)
  }
  out <- if (inherits(stored, "ghmix_data")) {
    chunk_rows(NULL, stored, one)
  } else {
    one(stored)
  }
  list(tau = out[, -1L, drop = FALSE], weights = out[, 1L])
}

# One G: the best start from the rows in memory (their E-steps in memory),
# then the EM with the engine's E-steps.
mixture_chunked_fit_g <- function(src, g, family, nstart, start, args,
                                  call) {
  ctx <- list(family = family, symmetric = args$symmetric,
              control = args$control, threads = args$threads, call = call,
              estep = mixture_estep_fun(), weights = src$start_w,
              unit = src$unit)
  ctx$shrink <- mixture_shrink_setup(
    args$shrink, if (is.matrix(src$stored)) src$stored, src$std,
    src$weights, g, call
  )
  fit <- mixture_chunked_em(src, g, family, nstart, start, args, ctx,
                            mixture_estep_engine(src), call)
  fit$asked <- g
  fit$distributed <- mixture_distributed(src$engine)
  fit
}

# The EM of one G over the chunks (ctx: its context, with the E-step of
# the rows in memory for the starts; estep: the engine's E-step for the
# EM) and its result.
mixture_chunked_em <- function(src, g, family, nstart, start, args, ctx,
                               estep, call) {
  best <- mixture_best_start(src$z, g, family, nstart, start, src$std, ctx)
  ctx$estep <- estep
  ctx$weights <- NULL
  ctx$nobs <- src$nobs
  em <- mixture_em_restarts(src$z, g, best, ctx, args$control)
  args$prior <- ctx$shrink
  weights <- src$weights
  if (inherits(src$stored, "ghmix_data") && !is.null(src$engine$summary$w)) {
    weights <- em$row_weights
  }
  mixture_result(em, src$stored, src$std, family, args,
                 list(weights = weights, dropped = src$dropped), call)
}

# Where the E-steps ran (as chunk_annotate() says it of one distribution;
# the counters are those of the engine so far, over every G fitted).
mixture_distributed <- function(engine) {
  clock <- engine$clock
  list(mode = engine$kind, workers = engine$workers,
       chunks = length(engine$data$chunks), worker_time = clock$work,
       read_time = clock$read, bytes_sent = clock$sent,
       bytes_received = clock$received, esteps = clock$esteps)
}
