# E-step engines: one constructor and one interface behind every place the
# rows of a fit can be (this process's memory, a GPU, chunks read here, the
# workers of a cluster or of a future plan).
#
# An engine (made by new_engine()) is a list with
#   kind      "cpu" or "cuda" (the rows in memory), "stream" (chunks read
#             here at each E-step), "cluster" (chunks kept by the workers
#             of a `parallel` cluster) or "future" (chunks read by the
#             futures of the current plan at each E-step);
#   n, d      the rows and columns it holds;
#   shape     the model it computes the statistics of (engine_shape():
#             components, covariance kind, factors; by default one
#             component with a full covariance), as estep_layout() takes
#             it (row weights are data an engine holds: its E-steps then
#             return the weighted statistics);
#   estep     a function of (center, chol_l, g, consts, what, rows) that
#             returns the E-step statistics of all its rows at the
#             parameters given (the vector laid out as src/core/estep.h
#             says, which mix_estep() decodes; with rows = TRUE also the
#             per-row results as its attribute "rows", in memory only);
#   free      a function without arguments that releases what the engine
#             holds (device memory, the workers' chunks);
#   estep_mixture  NULL, or a function of args (mixture_estep_args(): the G
#             components' centers, chols, gs, consts, log_props, what) that
#             returns the raw statistics of a G-component E-step of all its
#             rows (as ffi_mix_estep_mixture() lays them out; weighted by
#             the rows' weights it holds), summed over chunks in chunk
#             order; on the CPU and on a factor fit's GPU engine
#             (factor_engine()), args may instead be factor_estep_args()
#             (one component with Sigma = F F' + diag(D)): then the raw
#             statistics of ffi_mix_estep_factor() (without its
#             attributes), weighted and summed alike, or
#             list(factor_mixture = ) (a G-component factor mixture: the
#             vector of mixture_factor_chunk_stats(), R/mix_factor.R);
#   estep_factor  NULL, or (the engine of an in-memory factor fit) a
#             function of (par, what, rows) that returns factor_estep()'s
#             statistics of all its rows (R/factor_estep.R; weighted by the
#             weights it holds);
# and, filled for chunked kinds (in memory: workers 1, the others NULL),
#   workers   the processes that compute (1 for "stream");
#   clock     an environment of counters: seconds of work and reading,
#             bytes sent and received (in all, and those of the set-up),
#             E-steps;
#   data      the ghmix_data description completed by chunk_complete();
#   summary   the chunks' merged one-pass summary (chunk_merge()).
# All of it is known when the engine is made: nothing is filled in later.
# Chunked engines add the statistics of their chunks in chunk order, so
# their numbers do not depend on where the chunks were computed.

# The kinds of engine, and whether each holds chunks.
engine_kinds <- c(cpu = FALSE, cuda = FALSE, stream = TRUE, cluster = TRUE,
                  future = TRUE)

# The arguments every estep() takes, in this order (a test checks each
# engine's; the constructor, run for every chunk at every out-of-core
# E-step, checks only what the data decide).
engine_estep_args <- c("center", "chol_l", "g", "consts", "what", "rows")

new_engine <- function(kind, n, d, estep, free = engine_holds_nothing,
                       shape = NULL, workers = 1L, clock = NULL, data = NULL,
                       summary = NULL, estep_mixture = NULL,
                       estep_factor = NULL) {
  chunked <- engine_kinds[as.character(kind)]
  sizes <- c(n, d)
  ok <- c(length(chunked) == 1L, is.numeric(sizes), length(sizes) == 2L,
          is.function(estep), is.function(free),
          is.null(estep_mixture) || is.function(estep_mixture),
          is.null(estep_factor) || is.function(estep_factor))
  if (!all(ok) || is.na(chunked) ||
        !all(is.finite(sizes) & sizes >= c(0, 1) & sizes == round(sizes))) {
    engine_fail("kind, n, d, estep or free")
  }
  if (is.null(shape)) {
    shape <- engine_shape_full
  } else if (!engine_shape_valid(shape, d)) {
    engine_fail("shape")
  }
  if (chunked && !engine_chunks_valid(workers, clock, data, summary)) {
    engine_fail("workers, clock, data or summary")
  }
  # no class: `$` on a classed list looks for a method at every access
  engine <- list(kind = kind, n = n, d = d, shape = shape, estep = estep,
                 free = free, workers = workers, clock = clock, data = data,
                 summary = summary, estep_mixture = estep_mixture)
  # (only a factor fit's engine has the field)
  if (!is.null(estep_factor)) engine$estep_factor <- estep_factor
  engine
}

engine_chunks_valid <- function(workers, clock, data, summary) {
  is_count(workers) && is.environment(clock) &&
    inherits(data, "ghmix_data") && is.list(summary)
}

engine_holds_nothing <- function() invisible(NULL)

engine_fail <- function(what) {
  stop(sprintf("internal error: invalid engine (%s)", what), call. = FALSE)
}

# The model an engine computes the statistics of: G components, the kind
# of covariance ("full": a Cholesky factor; "factor": F F' + diag(D) with
# F d x factors), as src/core/estep.h declares them.
engine_shape <- function(components = 1L, cov = "full", factors = 0L) {
  list(components = as.integer(components), cov = cov,
       factors = as.integer(factors))
}

# One component with a full covariance: the shape of every engine for now.
engine_shape_full <- engine_shape()

engine_shape_valid <- function(shape, d) {
  if (!is.list(shape) || !isTRUE(shape$cov %in% names(the$codes$cov))) {
    return(FALSE)
  }
  r <- shape$factors
  lim <- if (shape$cov == "factor") c(1, d - 1) else c(0, 0)
  is_count(shape$components) && is.numeric(r) && length(r) == 1L &&
    isTRUE(r >= lim[1L] && r <= lim[2L] && r == round(r))
}

# In memory --------------------------------------------------------------------

# weights: NULL, or the rows' weights (doubles >= 0, checked): the engine
# then computes the weighted statistics (the C glue sets the E-step's
# "weights" flag).
mix_engine <- function(x, backend, threads, device, weights = NULL) {
  if (backend == "cuda") {
    return(mix_engine_cuda(x, device, weights))
  }
  mix_engine_cpu(x, threads, weights)
}

# The E-step over the rows in threads (see src/cpu/mixture_cpu.h).
mix_engine_cpu <- function(x, threads, weights = NULL) {
  estep <- if (is.null(weights)) {
    function(center, chol_l, g, consts, what, rows) {
      .Call(ffi_mix_estep, x, center, chol_l, g, consts, what, rows, threads)
    }
  } else {
    function(center, chol_l, g, consts, what, rows) {
      .Call(ffi_mix_estep_weighted, x, weights, center, chol_l, g, consts,
            what, rows, threads)
    }
  }
  new_engine("cpu", nrow(x), ncol(x), estep = estep,
             estep_mixture = function(args) {
               if (!is.null(args$factor_mixture)) {
                 return(mixture_factor_chunk_stats(x, weights, args, threads))
               }
               if (!is.null(args$loadings)) {
                 return(.Call(ffi_mix_estep_factor, x, weights, args$center,
                              args$loadings, args$uniquenesses, args$gamma,
                              args$pab, args$what, FALSE, threads))
               }
               .Call(ffi_mix_estep_mixture, x, args$centers, args$chols,
                     args$gs, args$consts, args$log_props, weights,
                     args$what, FALSE, threads)
             })
}

# The data (and weights) are copied to the GPU once; each E-step is one
# fused kernel and a fixed-order reduction (2 launches), and copies back
# only the statistics.
mix_engine_cuda <- function(x, device, weights = NULL) {
  handle <- .Call(ffi_cuda_mix_data_create, x, device)
  if (!is.null(weights)) {
    .Call(ffi_cuda_mix_data_weights, handle, weights)
  }
  new_engine(
    "cuda", nrow(x), ncol(x),
    estep = function(center, chol_l, g, consts, what, rows) {
      .Call(ffi_cuda_mix_estep, handle, center, chol_l, g, consts, what, rows)
    },
    free = function() invisible(.Call(ffi_cuda_mix_data_free, handle)),
    estep_mixture = function(args) {
      .Call(ffi_cuda_mix_estep_mixture, handle, args$centers, args$chols,
            args$gs, args$consts, args$log_props, weights, args$what, FALSE)
    }
  )
}

# Chunked ----------------------------------------------------------------------

# The engine over the chunks of data (a ghmix_data description), where
# opts (chunk_options()) says: its opening reads every chunk once for the
# one-pass summary, which is then checked as mix_data() checks a matrix
# (an error releases what the opening took).  Its estep() ignores `rows`;
# estep() and estep_mixture() are the opening's run() of the one or the
# other kind of E-step arguments.
chunk_engine <- function(data, opts, na_rm, call = NULL) {
  open <- switch(opts$mode,
    stream = stream_open,
    cluster = cluster_open,
    future = future_open
  )
  held <- open(data, opts, na_rm)
  done <- NULL
  on.exit(if (is.null(done)) held$free())
  done <- chunk_complete(data, held$parts, na_rm, call)
  new_engine(
    opts$mode, done$data$n, done$data$d,
    estep = function(center, chol_l, g, consts, what, rows) {
      held$run(estep_args(center, chol_l, g, consts, what))
    },
    free = held$free, workers = held$workers, clock = held$clock,
    data = done$data, summary = done$summary, estep_mixture = held$run
  )
}

# What the chunks' readers need at each E-step: the rows to drop from each
# chunk, and how many rows each chunk had (to check that it reads the
# same).
chunk_plan <- function(parts) {
  list(
    bad = lapply(parts, function(p) p$bad),
    rows = vapply(parts, function(p) if (is.null(p$n)) NA_real_ else p$n, 0)
  )
}

# The arguments of an E-step as the tasks take them (those of a mixture
# E-step: mixture_estep_args()).
estep_args <- function(center, chol_l, g, consts, what) {
  list(center = center, chol_l = chol_l, g = g, consts = consts, what = what)
}

# The summaries of the chunks from the answers of the groups of chunks
# (each checked by check(answer, group)), in chunk order.
chunk_parts <- function(res, groups, idx, check) {
  parts <- vector("list", sum(lengths(groups)))
  for (i in idx) {
    check(res[[i]], i)
    parts[groups[[i]]] <- res[[i]]$summaries
  }
  parts
}

# The E-step statistics of the chunks from the answers of the groups of
# chunks, in chunk order, summed; the slowest group's time is the E-step's
# work.
chunk_gather <- function(res, groups, idx, check, clock) {
  stats <- vector("list", sum(lengths(groups)))
  work <- 0
  for (i in idx) {
    check(res[[i]], i)
    stats[groups[[i]]] <- res[[i]]$stats
    work <- max(work, res[[i]]$compute)
    if (!is.null(res[[i]]$read)) clock$read <- clock$read + res[[i]]$read
  }
  clock$work <- clock$work + work
  clock$esteps <- clock$esteps + 1L
  chunk_sum(stats)
}

# The E-step statistics of the chunks (a list, in chunk order) summed in
# that order, whatever computed them.
chunk_sum <- function(stats) {
  tot <- stats[[1L]]
  for (s in stats[-1L]) tot <- tot + s
  tot
}

chunk_clock <- function() {
  clock <- new.env(parent = emptyenv())
  clock$work <- 0
  clock$read <- 0
  clock$sent <- 0
  clock$received <- 0
  clock$esteps <- 0L
  clock$setup <- c(sent = 0, received = 0)
  clock
}

# The bytes of the setup (chunks sent, summaries back), apart from those of
# the iterations.
chunk_clock_setup <- function(clock) {
  clock$setup <- c(sent = clock$sent, received = clock$received)
}

# The options the tasks need where the chunks are read (factor: whether
# the fit is a factor fit, whose chunks a GPU holds for the factor E-step).
chunk_task_opts <- function(opts) {
  c(opts[c("backend", "threads", "device")],
    list(factor = !is.null(opts$factors)))
}

# Out of core: each E-step reads the chunks here, one after the other, so
# memory is bounded by the largest chunk.
stream_open <- function(data, opts, na_rm) {
  chunks <- data$chunks
  parts <- lapply(seq_along(chunks), function(i) {
    res <- chunk_task_summary(chunks[i], i, na_rm)
    chunk_check_result(res, chunk_where_local(), i)
    res$summaries[[1L]]
  })
  plan <- chunk_plan(parts)
  task_opts <- chunk_task_opts(opts)
  clock <- chunk_clock()
  run <- function(args) {
    stats <- lapply(seq_along(chunks), function(i) {
      res <- chunk_task_estep(chunks[i], plan$bad[i], plan$rows[i], i, args,
                              task_opts)
      chunk_check_result(res, chunk_where_local(), i)
      clock$work <- clock$work + res$compute
      clock$read <- clock$read + res$read
      res$stats[[1L]]
    })
    clock$esteps <- clock$esteps + 1L
    chunk_sum(stats)
  }
  list(parts = parts, run = run, free = engine_holds_nothing,
       workers = 1L, clock = clock)
}

# A `parallel` cluster: each worker reads its share of the chunks once and
# keeps them (as in-memory engines, worker_setup()) until free().
cluster_open <- function(data, opts, na_rm) {
  cl <- opts$cluster
  clock <- chunk_clock()
  link <- cluster_link(cl, clock)
  key <- cluster_key()
  # (free() before the first round: an interrupt in any round of the
  # opening must leave no answer in flight for a later fit to read)
  active <- integer()
  free <- function() link$close(active, key)
  opened <- FALSE
  on.exit(if (!opened) free())
  cluster_prepare(link)
  groups <- parallel::splitIndices(length(data$chunks), length(cl))
  active <- which(lengths(groups) > 0L)
  link$chunks <- groups
  task_opts <- chunk_task_opts(opts)
  setup <- link$round(active, worker_setup, lapply(groups, function(g) {
    list(key, data$chunks[g], g, na_rm, task_opts)
  }))
  chunk_clock_setup(clock)
  parts <- chunk_parts(setup, groups, active, link$check)
  run <- function(args) {
    res <- link$round(active, worker_call_estep,
                      rep(list(list(key, args)), length(cl)))
    chunk_gather(res, groups, active, link$check, clock)
  }
  opened <- TRUE
  list(parts = parts, run = run, free = free,
       workers = length(active), clock = clock)
}

# The future framework: one future per group of contiguous chunks (as many
# groups as the plan has workers) at each E-step; the futures read their
# chunks each time.
future_open <- function(data, opts, na_rm) {
  chunks <- data$chunks
  groups <- parallel::splitIndices(
    length(chunks), min(length(chunks), future::nbrOfWorkers())
  )
  clock <- chunk_clock()
  runner <- future_runner(groups, clock)
  res <- runner$run(chunk_task_summary, function(g) {
    list(chunks[g], g, na_rm)
  })
  chunk_clock_setup(clock)
  check <- function(answer, j) chunk_check_result(answer, runner$where(j))
  parts <- chunk_parts(res, groups, seq_along(groups), check)
  plan <- chunk_plan(parts)
  task_opts <- chunk_task_opts(opts)
  run <- function(args) {
    res <- runner$run(chunk_task_estep, function(gr) {
      list(chunks[gr], plan$bad[gr], plan$rows[gr], gr, args, task_opts)
    })
    chunk_gather(res, groups, seq_along(groups), check, clock)
  }
  list(parts = parts, run = run, free = runner$drain,
       workers = length(groups), clock = clock)
}
