# Distributed E-steps: a `parallel` cluster whose workers keep their chunks
# resident, and the `future` framework whose workers read their chunks at
# each E-step.  Workers return the statistics of each chunk separately; the
# master adds them in chunk order (chunk_sum()), so results do not depend on
# the number of workers or on their timing.

# A `parallel` cluster ---------------------------------------------------------

cluster_engine <- function(data, opts, na_rm) {
  cl <- opts$cluster
  clock <- chunk_clock()
  link <- cluster_link(cl, clock)
  cluster_prepare(link)
  groups <- parallel::splitIndices(length(data$chunks), length(cl))
  active <- which(lengths(groups) > 0L)
  link$chunks <- groups
  key <- cluster_key()
  task_opts <- opts[c("backend", "threads", "device")]
  setup <- link$round(active, worker_setup, lapply(groups, function(g) {
    list(key, data$chunks[g], g, na_rm, task_opts)
  }))
  chunk_clock_setup(clock)
  parts <- vector("list", length(data$chunks))
  for (i in active) {
    link$check(setup[[i]], i)
    parts[groups[[i]]] <- setup[[i]]$summaries
  }
  engine <- list(mode = "cluster", workers = length(active), summary = parts,
                 clock = clock, nodes = link$nodes)
  engine$estep <- function(center, chol_l, g, consts, what, rows) {
    args <- list(key, list(center = center, chol_l = chol_l, g = g,
                           consts = consts, what = what))
    res <- link$round(active, worker_call_estep, rep(list(args), length(cl)))
    stats <- matrix(0, chunk_nstats(length(center)), length(data$chunks))
    work <- 0
    for (i in active) {
      link$check(res[[i]], i)
      stats[, groups[[i]]] <- res[[i]]$stats
      work <- max(work, res[[i]]$compute)
    }
    clock$work <- clock$work + work
    clock$esteps <- clock$esteps + 1L
    chunk_sum(stats)
  }
  engine$free <- function() link$close(active, key)
  engine
}

chunk_nstats <- function(d) estep_layout_full(d)$nstats

the_keys <- new.env(parent = emptyenv())

# A name for one fit's chunks on the workers (no random numbers: the user's
# RNG stream is left alone).
cluster_key <- function() {
  the_keys$count <- if (is.null(the_keys$count)) 1L else the_keys$count + 1L
  sprintf("ghmix-%d-%d-%.0f", Sys.getpid(), the_keys$count,
          as.numeric(Sys.time()) * 1e3)
}

# Sends a call to several workers, then collects every answer (so that the
# cluster stays in step even when one worker fails), and reports the first
# failure as a classed error naming the worker.
cluster_link <- function(cl, clock) {
  send_call <- utils::getFromNamespace("sendCall", "parallel")
  recv_result <- utils::getFromNamespace("recvResult", "parallel")
  link <- new.env(parent = emptyenv())
  link$pending <- integer()
  link$dead <- integer()
  link$nodes <- lapply(seq_along(cl), function(i) {
    list(worker = i, host = cl[[i]]$host, pid = NULL)
  })
  link$round <- function(idx, fun, args) {
    size <- length(serialize(list(fun, args[[idx[1L]]]), NULL))
    fail <- list()
    for (i in idx) {
      err <- tryCatch({
        send_call(cl[[i]], fun, args[[i]])
        NULL
      }, error = function(e) conditionMessage(e))
      if (is.null(err)) {
        link$pending <- c(link$pending, i)
        clock$sent <- clock$sent + size
      } else {
        fail[[length(fail) + 1L]] <- list(i = i, message = err)
      }
    }
    out <- vector("list", length(cl))
    for (i in intersect(idx, link$pending)) {
      val <- tryCatch(recv_result(cl[[i]]), error = function(e) {
        structure(list(message = conditionMessage(e)), class = "ghmix_lost")
      })
      link$pending <- setdiff(link$pending, i)
      if (inherits(val, c("ghmix_lost", "try-error"))) {
        msg <- if (inherits(val, "try-error")) as.character(val) else
          val$message
        fail[[length(fail) + 1L]] <- list(i = i, message = msg)
      } else {
        clock$received <- clock$received + length(serialize(val, NULL))
        out[[i]] <- val
      }
    }
    if (length(fail) > 0L) {
      link$lost(fail[[1L]]$i, fail[[1L]]$message)
    }
    out
  }
  link$lost <- function(i, message, dead = TRUE) {
    if (dead) link$dead <- union(link$dead, i)
    where <- link$nodes[[i]]
    chunk_fail(
      "ghmix_error_cluster", where, link$chunks[[i]],
      sprintf("worker %d%s failed: %s", i,
              cluster_node_label(where, link$chunks[[i]]), trimws(message))
    )
  }
  link$check <- function(res, i) {
    chunk_check_result(res, link$nodes[[i]])
  }
  link$close <- function(idx, key) {
    cluster_close(link, cl, idx, key, recv_result)
  }
  link
}

# " (host, pid 123; chunks 3-4)"
cluster_node_label <- function(where, chunks = NULL) {
  bits <- c(where$host, if (!is.null(where$pid)) paste("pid", where$pid))
  bits <- paste(bits, collapse = ", ")
  if (length(chunks) > 0L) {
    bits <- paste0(bits, if (nzchar(bits)) "; ", "chunk", plural(chunks), " ",
                   if (length(chunks) > 2L) {
                     sprintf("%d-%d", min(chunks), max(chunks))
                   } else {
                     paste(chunks, collapse = ", ")
                   })
  }
  if (nzchar(bits)) sprintf(" (%s)", bits) else ""
}

# Every worker must be able to load ghmix: give it the master's library
# paths first (those that exist there), so that it works for a package
# installed in a private library (R CMD check, renv).
cluster_prepare <- function(link) {
  fun <- function(paths) {
    .libPaths(c(paths, .libPaths()))
    ok <- tryCatch({
      loadNamespace("ghmix")
      TRUE
    }, error = function(e) conditionMessage(e))
    list(ok = isTRUE(ok), message = if (!isTRUE(ok)) ok,
         host = Sys.info()[["nodename"]], pid = Sys.getpid())
  }
  environment(fun) <- baseenv()
  n <- length(link$nodes)
  res <- link$round(seq_len(n), fun, rep(list(list(.libPaths())), n))
  for (i in seq_len(n)) {
    link$nodes[[i]]$host <- res[[i]]$host
    link$nodes[[i]]$pid <- res[[i]]$pid
  }
  for (i in seq_len(n)) {
    if (!isTRUE(res[[i]]$ok)) {
      link$lost(i, paste("cannot load ghmix there:", res[[i]]$message),
                dead = FALSE)
    }
  }
  invisible(link)
}

# Collect what is still in flight (an interrupted E-step), then release the
# chunks the live workers hold.
cluster_close <- function(link, cl, idx, key, recv_result) {
  for (i in link$pending) {
    tryCatch(recv_result(cl[[i]]), error = function(e) {
      link$dead <- union(link$dead, i)
    })
  }
  link$pending <- integer()
  live <- setdiff(idx, link$dead)
  if (length(live) > 0L) {
    tryCatch(
      link$round(live, worker_free, rep(list(list(key)), length(cl))),
      error = function(e) NULL
    )
  }
  invisible(NULL)
}

# On the workers -------------------------------------------------------------

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
  the_worker[[key]] <- list(engines = engines, ids = ids)
  list(ok = TRUE, summaries = summaries)
}

worker_estep <- function(key, args) {
  held <- the_worker[[key]]
  if (is.null(held)) {
    return(list(ok = FALSE, chunk = NA_integer_, message = paste(
      "the worker holds no chunks for this fit (was it restarted?)"
    )))
  }
  t0 <- proc.time()[[3]]
  stats <- matrix(0, chunk_nstats(length(args$center)), length(held$ids))
  for (k in seq_along(held$ids)) {
    res <- tryCatch({
      stats[, k] <- chunk_estep(NULL, args, NULL, held$engines[[k]])
      NULL
    }, error = function(e) chunk_task_error(e, held$ids[k]))
    if (!is.null(res)) {
      return(res)
    }
  }
  list(ok = TRUE, stats = stats, compute = proc.time()[[3]] - t0)
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

# The future framework ---------------------------------------------------------

# One future per group of contiguous chunks (as many groups as the plan has
# workers) at each E-step; the workers read their chunks each time.
future_engine <- function(data, opts, na_rm) {
  chunks <- data$chunks
  workers <- future::nbrOfWorkers()
  groups <- parallel::splitIndices(length(chunks),
                                   min(length(chunks), workers))
  clock <- chunk_clock()
  runner <- future_runner(groups, clock)
  res <- runner$run(chunk_task_summary, function(g) {
    list(chunks[g], g, na_rm)
  })
  chunk_clock_setup(clock)
  parts <- vector("list", length(chunks))
  for (j in seq_along(groups)) {
    chunk_check_result(res[[j]], runner$where(j))
    parts[groups[[j]]] <- res[[j]]$summaries
  }
  bad <- lapply(parts, function(p) p$bad)
  rows <- vapply(parts, function(p) if (is.null(p$n)) NA_real_ else p$n,
                 0)
  task_opts <- opts[c("backend", "threads", "device")]
  engine <- list(mode = "future", workers = length(groups), summary = parts,
                 clock = clock, free = runner$drain)
  engine$estep <- function(center, chol_l, g, consts, what, rows_out) {
    args <- list(center = center, chol_l = chol_l, g = g, consts = consts,
                 what = what)
    res <- runner$run(chunk_task_estep, function(gr) {
      list(chunks[gr], bad[gr], rows[gr], gr, args, task_opts)
    })
    stats <- matrix(0, chunk_nstats(length(center)), length(chunks))
    work <- 0
    for (j in seq_along(groups)) {
      chunk_check_result(res[[j]], runner$where(j))
      stats[, groups[[j]]] <- res[[j]]$stats
      work <- max(work, res[[j]]$compute)
      clock$read <- clock$read + res[[j]]$read
    }
    clock$work <- clock$work + work
    clock$esteps <- clock$esteps + 1L
    chunk_sum(stats)
  }
  engine
}

future_runner <- function(groups, clock) {
  runner <- new.env(parent = emptyenv())
  runner$pending <- list()
  runner$where <- function(j) {
    list(worker = j, host = NULL, pid = NULL, kind = "in future")
  }
  runner$run <- function(task, args_of) {
    fs <- lapply(seq_along(groups), function(j) {
      args <- args_of(groups[[j]])
      clock$sent <- clock$sent + length(serialize(args, NULL))
      future_launch(task, args, j)
    })
    runner$pending <- fs
    out <- lapply(seq_along(fs), function(j) future_collect(fs[[j]]))
    runner$pending <- list()
    for (j in seq_along(out)) {
      if (inherits(out[[j]], "ghmix_lost")) {
        chunk_fail(
          "ghmix_error_cluster", runner$where(j), groups[[j]],
          sprintf("future %d (chunk%s %s) failed: %s", j, plural(groups[[j]]),
                  paste(range(groups[[j]]), collapse = "-"),
                  trimws(out[[j]]$message))
        )
      }
      clock$received <- clock$received + length(serialize(out[[j]], NULL))
    }
    out
  }
  runner$drain <- function() {
    for (f in runner$pending) future_collect(f)
    runner$pending <- list()
    invisible(NULL)
  }
  runner
}

future_launch <- function(task, args, j) {
  future::future(
    do.call(task, args),
    globals = list(task = task, args = args), packages = "ghmix",
    seed = NULL, label = sprintf("ghmix-chunks-%d", j)
  )
}

future_collect <- function(f) {
  tryCatch(future::value(f), error = function(e) {
    structure(list(message = conditionMessage(e)), class = "ghmix_lost")
  })
}
