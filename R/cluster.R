# The transport of distributed E-steps (the engines are in R/engines.R, the
# tasks the workers run in R/workers.R): the calls to and answers from the
# workers of a `parallel` cluster, the futures of a future plan, and the
# classed errors that name the worker or chunk that failed.

# A `parallel` cluster ---------------------------------------------------------

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
#
# It uses parallel's unexported sendCall() and recvResult() (what its
# clusterCall() is made of), because no exported function can: send to
# some workers and collect every answer even after one fails (clusterCall()
# and clusterApply() stop at the first failed answer and leave the others
# unread, out of step), or collect answers still in flight after an
# interrupt (cluster_close()).  test-chunked.R checks their formals and a
# round trip, so that a change in parallel is seen there.
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
    # (a send or a receive and its entry in link$pending happen together,
    # with interrupts held: an interrupt in between would leave an answer
    # that cluster_close() waits for in vain, or one that a later round
    # reads as its own; the wait for an answer stays interruptible)
    for (i in idx) {
      err <- suspendInterrupts(tryCatch({
        send_call(cl[[i]], fun, args[[i]])
        link$pending <- c(link$pending, i)
        NULL
      }, error = function(e) conditionMessage(e)))
      if (is.null(err)) {
        clock$sent <- clock$sent + size
      } else {
        fail[[length(fail) + 1L]] <- list(i = i, message = err)
      }
    }
    out <- vector("list", length(cl))
    for (i in intersect(idx, link$pending)) {
      cluster_wait(cl[[i]])
      val <- suspendInterrupts({
        got <- tryCatch(recv_result(cl[[i]]), error = function(e) {
          structure(list(message = conditionMessage(e)),
                    class = "ghmix_lost")
        })
        link$pending <- setdiff(link$pending, i)
        got
      })
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

# Every worker must load ghmix from the library this session loaded it
# from (a private library given to library(lib.loc = ), R CMD check, renv):
# that directory first in the worker's library paths, then the master's,
# those that exist there (a remote host may have its own).
cluster_prepare <- function(link) {
  fun <- function(lib, paths) {
    .libPaths(c(lib, paths, .libPaths()))
    ok <- tryCatch({
      loadNamespace("ghmix", lib.loc = .libPaths())
      TRUE
    }, error = function(e) conditionMessage(e))
    list(ok = isTRUE(ok), message = if (!isTRUE(ok)) ok,
         host = Sys.info()[["nodename"]], pid = Sys.getpid())
  }
  environment(fun) <- baseenv()
  n <- length(link$nodes)
  lib <- dirname(getNamespaceInfo("ghmix", "path"))
  res <- link$round(seq_len(n), fun, rep(list(list(lib, .libPaths())), n))
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

# Waits, interruptibly, until a socket node (PSOCK, SOCK) has an answer to
# read; other kinds of node are read when their answer is asked for.
cluster_wait <- function(node) {
  con <- node$con
  if (!inherits(con, "sockconn")) {
    return(invisible())
  }
  while (!isTRUE(tryCatch(socketSelect(list(con), timeout = 0.1),
                          error = function(e) TRUE))) {
    NULL
  }
  invisible()
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

# The future framework ---------------------------------------------------------

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

# Failures ---------------------------------------------------------------------

chunk_where_local <- function() {
  list(worker = 0L, host = Sys.info()[["nodename"]], pid = Sys.getpid())
}

# Turn a task's failure into the classed error (where: the worker).
chunk_check_result <- function(res, where, chunk = NA_integer_) {
  if (isTRUE(res$ok)) {
    return(invisible(res))
  }
  if (!is.null(res$chunk)) chunk <- res$chunk
  if (is.na(chunk)) {
    chunk_fail("ghmix_error_cluster", where, chunk, sprintf(
      "%s %d%s failed: %s", if (is.null(where$kind)) "worker" else "future",
      where$worker, cluster_node_label(where),
      res$message
    ))
  }
  chunk_fail(
    "ghmix_error_chunk", where, chunk,
    sprintf("chunk %d could not be read or used%s: %s", chunk,
            chunk_worker_label(where), res$message)
  )
}

chunk_worker_label <- function(where) {
  if (is.null(where$worker) || identical(where$worker, 0L)) {
    return("")
  }
  sprintf(" %s %d%s", if (is.null(where$kind)) "on worker" else where$kind,
          where$worker, cluster_node_label(where))
}

chunk_fail <- function(class, where, chunk, message) {
  ghmix_abort(
    paste0(toupper(substring(message, 1L, 1L)), substring(message, 2L)),
    class = class, worker = where$worker, host = where$host,
    pid = where$pid, chunk = chunk
  )
}
