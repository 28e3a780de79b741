# Tasks that run where the chunks are read: this process (out of core), a
# cluster worker or a future.
#
# They never signal: a failure is returned as list(ok = FALSE, chunk, message)
# so that the caller can name the chunk and keep the cluster usable.  The
# E-step statistics of the chunks come back as a list of vectors, one per
# chunk, which the caller adds in chunk order (chunk_sum()).

chunk_task_summary <- function(chunks, ids, na_rm) {
  out <- vector("list", length(chunks))
  for (k in seq_along(chunks)) {
    res <- tryCatch(
      chunk_summary_one(chunks[[k]], na_rm),
      error = function(e) chunk_task_error(e, ids[k])
    )
    if (identical(res$ok, FALSE)) {
      return(res)
    }
    out[[k]] <- res
  }
  list(ok = TRUE, summaries = out)
}

chunk_summary_one <- function(chunk, na_rm) {
  x <- chunk_read(chunk)
  size <- length(x)
  out <- chunk_scan(x, na_rm)$summary
  x <- NULL
  chunk_gc(size)
  out
}

# Release a large chunk now rather than when R's collector gets round to
# it: otherwise several chunks' garbage can pile up before a collection, and
# a process that streams chunks holds several at once.
chunk_gc <- function(size) {
  if (size * 8 >= 2^24) gc(verbose = FALSE)
  invisible()
}

# args: estep_args().  rows: the rows each chunk had in the summary (a
# check that it still reads the same).
chunk_task_estep <- function(chunks, bad, rows, ids, args, opts) {
  stats <- vector("list", length(chunks))
  t_read <- 0
  t_work <- 0
  for (k in seq_along(chunks)) {
    res <- tryCatch(
      chunk_estep_one(chunks[[k]], bad[[k]], rows[[k]], args, opts),
      error = function(e) chunk_task_error(e, ids[k])
    )
    if (identical(res$ok, FALSE)) {
      return(res)
    }
    stats[[k]] <- res$stats
    t_read <- t_read + res$read
    t_work <- t_work + res$compute
  }
  list(ok = TRUE, stats = stats, read = t_read, compute = t_work)
}

chunk_estep_one <- function(chunk, bad, rows, args, opts) {
  t0 <- proc.time()[[3]]
  x <- chunk_read(chunk, bad)
  if (nrow(x) != rows) {
    stop(sprintf(
      "it has %d rows now but had %d when the fit started", nrow(x), rows
    ), call. = FALSE)
  }
  t1 <- proc.time()[[3]]
  stats <- chunk_estep(x, args, opts)
  t2 <- proc.time()[[3]]
  size <- length(x)
  x <- NULL
  chunk_gc(size)
  list(stats = stats, read = t1 - t0, compute = t2 - t1)
}

# The statistics of one chunk in memory (opts: backend, threads, device);
# args: estep_args() of one component, mixture_estep_args() of G,
# factor_estep_args() of a factor model or list(factor_mixture = ) of a
# factor mixture (R/mix_factor.R).
chunk_estep <- function(x, args, opts, engine = NULL) {
  if (is.null(engine)) {
    engine <- chunk_local_engine(x, opts)
    on.exit(engine$free())
  }
  chunk_check_engine(args, engine)
  if (!is.null(args$log_props) || !is.null(args$loadings) ||
        !is.null(args$factor_mixture)) {
    return(as.vector(engine$estep_mixture(args)))
  }
  as.vector(engine$estep(args$center, args$chol_l, args$g, args$consts,
                         args$what, FALSE))
}

# A factor mixture's chunk E-step runs on the CPU (mixture_factor_mode()
# refuses the GPU on chunks), a factor fit's on a factor engine.
chunk_check_engine <- function(args, engine) {
  if (!is.null(args$factor_mixture) && engine$kind != "cpu") {
    stop("internal error: a factor mixture's chunk E-step off the CPU",
         call. = FALSE)
  }
  if (!is.null(args$loadings) && engine$kind == "cuda" &&
        is.null(engine$estep_factor)) {
    stop("internal error: a factor E-step on a full-Sigma CUDA engine",
         call. = FALSE)
  }
}

# The in-memory engine of a chunk where it is read (with the weights of
# its rows, attribute "weights", if it has them): the threads capped by
# this machine's processors, and the GPU checked here; on a GPU, that of
# a factor fit where opts$factor (the device then holds the rows for the
# factor E-step, factor_engine()).
chunk_local_engine <- function(x, opts) {
  threads <- min(opts$threads, max_threads())
  if (opts$backend == "cuda") {
    check_backend("cuda", NULL, opts$device)
    if (isTRUE(opts$factor)) {
      return(factor_engine(x, "cuda", threads, opts$device,
                           attr(x, "weights")))
    }
  }
  mix_engine(x, opts$backend, threads, opts$device, attr(x, "weights"))
}

chunk_task_error <- function(e, id) {
  # (a GPU fault holds for the rest of the worker's R session: the caller's
  # error keeps its class, chunk_check_result())
  list(ok = FALSE, chunk = id, message = conditionMessage(e),
       fault = inherits(e, "ghmix_error_cuda_fault"))
}

# On the workers of a `parallel` cluster ----------------------------------

the_worker <- new.env(parent = emptyenv())

# Read, check and summarise the worker's chunks, and keep them (as E-step
# engines) under key for the whole fit.
worker_setup <- function(key, chunks, ids, na_rm, opts) {
  engines <- vector("list", length(chunks))
  summaries <- vector("list", length(chunks))
  for (k in seq_along(chunks)) {
    res <- tryCatch({
      scan <- chunk_scan(chunk_read(chunks[[k]]), na_rm)
      if (na_rm || length(scan$summary$bad) == 0L) {
        engines[[k]] <- chunk_local_engine(scan$x, opts)
      }
      summaries[[k]] <- scan$summary
      size <- length(scan$x)
      scan <- NULL
      chunk_gc(size)
      NULL
    }, error = function(e) chunk_task_error(e, ids[k]))
    if (!is.null(res)) {
      worker_release(engines)
      return(res)
    }
  }
  the_worker[[key]] <- list(engines = engines, ids = ids, esteps = 0L)
  list(ok = TRUE, summaries = summaries)
}

worker_estep <- function(key, args) {
  held <- the_worker[[key]]
  if (is.null(held)) {
    return(list(ok = FALSE, chunk = NA_integer_, message = paste(
      "the worker holds no chunks for this fit (was it restarted?)"
    )))
  }
  held$esteps <- held$esteps + 1L
  the_worker[[key]] <- held
  worker_test_exit(held$esteps)
  t0 <- proc.time()[[3]]
  stats <- vector("list", length(held$ids))
  for (k in seq_along(held$ids)) {
    res <- tryCatch({
      stats[[k]] <- chunk_estep(NULL, args, NULL, held$engines[[k]])
      NULL
    }, error = function(e) chunk_task_error(e, held$ids[k]))
    if (!is.null(res)) {
      return(res)
    }
  }
  list(ok = TRUE, stats = stats, compute = proc.time()[[3]] - t0)
}

# A test hook (test-chunked.R): a worker whose option
# ghmix.test_exit_at_estep is k exits at once, without answering (as a
# worker that dies), at its k-th E-step of a fit.
worker_test_exit <- function(esteps) {
  at <- getOption("ghmix.test_exit_at_estep")
  if (!is.null(at) && esteps >= at) {
    quit(save = "no", status = 1L, runLast = FALSE)
  }
  invisible()
}

# What is sent at each E-step: a small function that calls the worker's own
# copy of worker_estep() (a closure travels with its byte code).
worker_call_estep <- function(key, args) worker_estep(key, args)

worker_free <- function(key) {
  held <- the_worker[[key]]
  if (!is.null(held)) {
    worker_release(held$engines)
    rm(list = key, envir = the_worker)
  }
  invisible(gc(verbose = FALSE))
  TRUE
}

worker_release <- function(engines) {
  for (e in engines) {
    if (!is.null(e)) try(e$free(), silent = TRUE)
  }
}
