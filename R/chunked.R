# Fitting chunked data, or any data on a cluster: the parts of the one fit
# path (mix_fit(), R/fit_run.R) that are particular to chunks: where the
# E-steps run (chunk_options()), the data source (chunk_source()), the trace
# line with the time in E-step, M-step and communication, the error that
# says where the fit stopped, and what the fit reports about the workers.
# Also the methods that read the chunks of a chunked fit.

# The cluster, backend and threads of a fit.  On a cluster the workers
# check the backend (the master need not have a GPU) and cap the threads by
# their own processors.
chunk_options <- function(backend, threads, device, cluster, call) {
  device <- check_device(device, call)
  mode <- chunk_mode(cluster, call)
  if (mode == "stream") {
    backend <- check_backend(backend, call, device)
    threads <- check_threads(threads, call = call)
  } else {
    backend <- backend_name(backend, call)
    if (!is_count(threads)) {
      abort_argument("`threads` must be a single positive whole number.", call)
    }
    threads <- as.integer(threads)
  }
  list(mode = mode, cluster = cluster, backend = backend, threads = threads,
       device = device)
}

# Where chunks are read: "stream" (here) without a cluster.
chunk_mode <- function(cluster, call) {
  if (is.null(cluster)) {
    return("stream")
  }
  if (inherits(cluster, "cluster")) {
    if (length(cluster) == 0L) {
      abort_argument("`cluster` has no workers.", call)
    }
    return("cluster")
  }
  if (identical(cluster, "future")) {
    if (!requireNamespace("future", quietly = TRUE)) {
      abort_argument(
        '`cluster = "future"` needs the future package; install it.', call
      )
    }
    return("future")
  }
  abort_argument(
    paste(
      "`cluster` must be NULL, a cluster made by the parallel package",
      '(e.g. parallel::makeCluster()), or "future" (the current',
      "future::plan())."
    ),
    call
  )
}

# The source of a fit of chunked data, or of a matrix on a cluster (split
# into one chunk of rows per worker): the moments and ties from the chunks'
# one-pass summary (for a matrix, its ties and dropped rows as mix_data()
# finds them), the engine over the chunks, and the chunk hooks.
chunk_source <- function(x, args, call) {
  scaling <- NULL
  weights <- NULL
  if (inherits(x, "ghmix_data")) {
    chunk_check_no_weights(args$weights, call)
    engine <- chunk_engine(x, args, args$na_rm, call)
    data <- list(x = engine$data, dropped = engine$data$dropped)
    ties <- engine$summary$ties
    std <- chunk_std(engine$summary, engine$data$names)
    chunk_check_scale(engine, std, call)
  } else {
    data <- mix_data(x, args$na_rm, call)
    weights <- mix_weights(args$weights, data, call)
    mix_check_weighted_shape(data$x, weights, call)
    w <- weights_in_sums(weights)
    ties <- mix_ties(data$x, w)
    fitted <- mix_fitted_rows(data$x, w)
    scaling <- fitted$scaling
    engine <- chunk_engine(chunk_split(fitted$x, args$cluster, w), args,
                           args$na_rm, call)
    std <- chunk_std(engine$summary, engine$data$names)
  }
  sum_w <- engine$summary$w
  list(
    stored = data$x, dropped = data$dropped, ties = ties, scaling = scaling,
    std = std, engine = engine, weights = weights,
    weighted = !is.null(weights) || !is.null(sum_w),
    nobs = if (is.null(sum_w)) engine$n else sum_w, progress = chunk_progress,
    finish = chunk_annotate
  )
}

# Weights of chunked data come with the chunks, not as an argument.
chunk_check_no_weights <- function(weights, call) {
  if (!is.null(weights)) model_refuse("weights_chunks", call)
}

# Chunked data are fitted in their own units: data whose scale would need
# the standardisation of R/fit_scaling.R are an error (a matrix is
# standardised).
chunk_check_scale <- function(engine, std, call) {
  if (!scaling_needed(std)) {
    return(invisible())
  }
  engine$free()
  model_refuse("chunks_scale", call)
}

# The progress hook of mix_em() (ctx$progress): records where the fit is
# (for chunk_abort()) and prints the trace line.
chunk_progress <- function(ctx, state, stage, trace) {
  last <- c(estep = 0, mstep = 0, work = 0)
  function(iter, nxt) {
    state$iter <- iter
    state$par <- nxt$pt$par
    if (!trace) {
      return(invisible())
    }
    now <- c(estep = ctx$clock$estep, mstep = ctx$clock$mstep,
             work = ctx$engine$clock$work)
    dt <- now - last
    last <<- now
    message(sprintf(
      paste0("%siter %4d  loglik %.10g  (%s)  E-step %.3f s  ",
             "M-step %.3f s  comm %.3f s"),
      if (stage == "fit") "" else "[NIG start] ", iter, nxt$pt$loglik,
      nxt$kind, dt[["work"]], dt[["mstep"]],
      max(0, dt[["estep"]] - dt[["work"]])
    ))
  }
}

# The fault raised by an engine, completed with where the fit was: the
# iteration reached and the last accepted parameters (a valid `start`).
chunk_abort <- function(e, state, call) {
  if (isTRUE(e$completed)) {
    return(invisible())
  }
  par <- state$par
  if (!is.null(par) && !is.null(state$scaling)) {
    par <- scaling_to_user(par, state$scaling, 0) # a start in x's units
  }
  where <- if (state$stage == "setup") {
    "while reading the chunks, before the first iteration"
  } else {
    sprintf("after %d completed iteration%s%s", state$iter,
            plural(seq_len(state$iter)),
            if (state$stage == "fit") "" else " of the NIG start fit")
  }
  msg <- sprintf("%s, %s.", e$message, where)
  if (!is.null(par)) {
    msg <- paste(
      msg, "The last parameters are in the condition's `parameters`;",
      "restart from them with `start = <condition>$parameters`."
    )
  }
  ghmix_abort(
    msg, class = setdiff(class(e), c("ghmix_error", "error", "condition")),
    worker = e$worker, chunk = e$chunk, host = e$host, pid = e$pid,
    iteration = state$iter, stage = state$stage, parameters = par,
    completed = TRUE, call = call
  )
}

# The finishing hook: the time in communication, and what the fit reports
# about the workers and the bytes they exchanged.
chunk_annotate <- function(fit, engine) {
  clock <- engine$clock
  fit$timings <- c(
    fit$timings,
    comm = max(0, fit$timings[["estep"]] - clock$work)
  )
  fit$distributed <- list(
    mode = engine$kind, workers = engine$workers,
    chunks = length(engine$data$chunks), worker_time = clock$work,
    read_time = clock$read, bytes_sent = clock$sent,
    bytes_received = clock$received, bytes_setup = clock$setup,
    bytes_per_estep = c(
      sent = clock$sent - clock$setup[["sent"]],
      received = clock$received - clock$setup[["received"]]
    ) / max(1, clock$esteps)
  )
  fit
}

# Methods on chunked fits -----------------------------------------------------

# The engine for E-steps at a fit's data (vcov()): the data matrix, or the
# chunks streamed here or on a cluster (call: the user's, for errors).
fit_engine <- function(object, cluster, call) {
  data <- object$data
  if (!inherits(data, "ghmix_data") && is.null(cluster)) {
    return(mix_engine_cpu(data, object$threads,
                          weights_in_sums(object$weights)))
  }
  if (!inherits(data, "ghmix_data")) {
    data <- chunk_split(data, cluster, weights_in_sums(object$weights))
  }
  opts <- chunk_options("cpu", object$threads, 0L, cluster, call)
  chunk_engine(data, opts, na_rm = TRUE, call)
}

# fitted() and predict() at the fitted rows of chunked data: chunk by chunk.
chunk_rows <- function(object, data, fun) {
  parts <- lapply(seq_along(data$chunks), function(i) {
    fun(chunk_read(data$chunks[[i]], data$bad[[i]]))
  })
  if (is.matrix(parts[[1L]])) do.call(rbind, parts) else unlist(parts)
}

# Methods that need all the rows in memory.
fit_need_rows <- function(object, what, call) {
  if (!inherits(object$data, "ghmix_data")) {
    return(invisible())
  }
  ghmix_abort(
    sprintf(
      paste(
        "%s needs the data in memory, but this fit was made from chunked",
        "data (ghmix_data); fit a matrix (or a sample of the rows) instead."
      ),
      what
    ),
    class = "ghmix_error_chunked", call = call
  )
}
