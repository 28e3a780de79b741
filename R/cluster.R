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
# It uses parallel's unexported sendCall() and recvData() (what its
# clusterCall() is made of), because no exported function can: send to
# some workers and collect every answer even after one fails (clusterCall()
# and clusterApply() stop at the first failed answer and leave the others
# unread, out of step), or collect answers still in flight after an
# interrupt (cluster_close()).  test-chunked.R checks their formals and a
# round trip, so that a change in parallel is seen there.
#
# Interrupts.  Every request carries a tag of its own (sendCall()'s `tag`,
# which the worker's answer echoes), and the answer read for it is the
# one with that tag: an answer left in a socket (by an interrupt that cut
# a fit's cleanup short) is skipped and counted in link$stale, never taken
# for another.  A request is committed (its bytes, its tag and its entry in
# link$pending) with interrupts suspended; from then on it is sent whole
# and its answer read, by the round or, after an interrupt, by
# cluster_close().  The bytes move through cluster_io(), which nothing
# interrupts, and every wait between them is cluster_wait().
cluster_link <- function(cl, clock) {
  link <- new.env(parent = emptyenv())
  link$send_call <- utils::getFromNamespace("sendCall", "parallel")
  link$recv_data <- utils::getFromNamespace("recvData", "parallel")
  link$pending <- integer()
  link$dead <- integer()
  link$stale <- 0L
  link$out <- vector("list", length(cl))
  link$at <- numeric(length(cl))
  link$tags <- vector("list", length(cl))
  link$inbuf <- rep(list(raw()), length(cl))
  link$nodes <- lapply(seq_along(cl), function(i) {
    list(worker = i, host = cl[[i]]$host, pid = NULL)
  })
  link$round <- function(idx, fun, args) {
    size <- length(serialize(list(fun, args[[idx[1L]]]), NULL))
    fail <- list()
    for (i in idx) {
      err <- tryCatch({
        cluster_post(link, cl[[i]], i, fun, args[[i]])
        NULL
      }, error = function(e) conditionMessage(e))
      if (is.null(err)) {
        clock$sent <- clock$sent + size
      } else {
        fail[[length(fail) + 1L]] <- list(i = i, message = err)
      }
    }
    out <- vector("list", length(cl))
    for (i in intersect(idx, link$pending)) {
      val <- tryCatch(cluster_answer(link, cl[[i]], i), error = function(e) {
        structure(list(message = conditionMessage(e)), class = "ghmix_lost")
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
    cluster_close(link, cl, idx, key)
  }
  link
}

# The transport of one worker ----------------------------------------------
#
# Per worker i of a link: out[[i]] the bytes of its request (NULL when all
# are sent) and at[i] how many of them are sent; tags[[i]] the tag of the
# answer awaited (NULL: the next answer, whatever its tag); inbuf[[i]] the
# bytes of answers received and not yet read.

the_tags <- new.env(parent = emptyenv())

# A tag no other request of this session has.
cluster_tag <- function() {
  the_tags$count <- if (is.null(the_tags$count)) 1 else the_tags$count + 1
  sprintf("ghmix-%d-%.0f", Sys.getpid(), the_tags$count)
}

# Forgets worker i's request (lost, or never begun).
cluster_reset <- function(link, idx) {
  suspendInterrupts({
    link$out[idx] <- list(NULL)
    link$at[idx] <- 0
    link$tags[idx] <- list(NULL)
    link$inbuf[idx] <- list(raw())
    link$pending <- setdiff(link$pending, idx)
  })
  invisible(link)
}

# The largest piece written or read at once.
cluster_piece <- 65536L

cluster_socket <- function(node) inherits(node$con, "sockconn")

# Commits worker i's request, then sends it.
cluster_post <- function(link, node, i, fun, args) {
  tag <- cluster_tag()
  if (!cluster_socket(node)) {
    # another kind of node: parallel's own send, as a whole
    suspendInterrupts({
      link$send_call(node, fun, args, tag = tag)
      link$tags[[i]] <- tag
      link$pending <- c(link$pending, i)
    })
    return(invisible())
  }
  bytes <- cluster_request(node, fun, args, tag)
  suspendInterrupts({
    link$out[[i]] <- bytes
    link$at[i] <- 0
    link$tags[[i]] <- tag
    link$pending <- c(link$pending, i)
  })
  cluster_push(link, node, i)
}

# The bytes parallel's sendCall() writes for the call: its message, as its
# sendData() serializes it for a socket node (test-chunked.R checks that
# they are the same).
cluster_request <- function(node, fun, args, tag) {
  msg <- list(type = "EXEC",
              data = list(fun = fun, args = args, return = TRUE, tag = tag),
              tag = NULL)
  serialize(msg, NULL, xdr = !inherits(node, "SOCK0node"))
}

# Sends what is left of worker i's request, a piece at a time, as the
# socket takes it (the pieces of a large one come from a raw connection
# over its bytes: no index vectors).
cluster_push <- function(link, node, i) {
  bytes <- link$out[[i]]
  n <- length(bytes)
  if (n > cluster_piece) {
    src <- rawConnection(bytes)
    on.exit(close(src))
  }
  tryCatch({
    while (link$at[i] < n) {
      cluster_wait(node, write = TRUE)
      piece <- if (n > cluster_piece) {
        seek(src, link$at[i])
        readBin(src, "raw", cluster_piece)
      } else {
        bytes
      }
      cluster_io(node$con, {
        writeBin(piece, node$con)
        link$at[i] <- link$at[i] + length(piece)
      })
    }
  }, error = function(e) {
    cluster_reset(link, i)
    stop(e)
  })
  suspendInterrupts({
    link$out[i] <- list(NULL)
    link$at[i] <- 0
  })
  invisible()
}

# Reads worker i's awaited answer and returns its value (an error: the
# worker is lost, and no longer pending).
cluster_answer <- function(link, node, i) {
  tryCatch({
    repeat {
      got <- if (cluster_socket(node)) {
        suspendInterrupts(cluster_take(link, i))
      } else {
        suspendInterrupts(cluster_settle(link, i, link$recv_data(node)))
      }
      if (!is.null(got)) {
        return(got$value)
      }
      if (cluster_socket(node)) {
        cluster_wait(node)
        cluster_io(node$con, cluster_read(link, node$con, i))
      }
    }
  }, error = function(e) {
    cluster_reset(link, i)
    stop(e)
  })
}

# The bytes that have arrived from worker i (at least one: none means the
# connection is closed).
cluster_read <- function(link, con, i) {
  got <- readBin(con, "raw", 4096L)
  if (length(got) == 0L) {
    stop("the connection to the worker was closed", call. = FALSE)
  }
  link$inbuf[[i]] <- c(link$inbuf[[i]], got)
  invisible()
}

# The awaited answer of worker i, if its bytes have all arrived: list(value)
# and its request done; answers tagged otherwise are skipped.  NULL while
# the answer is incomplete.
cluster_take <- function(link, i) {
  repeat {
    buf <- link$inbuf[[i]]
    if (length(buf) < 2L) {
      return(NULL)
    }
    if (buf[2L] != as.raw(10L) || !buf[1L] %in% charToRaw("XBA")) {
      stop("its answers are out of step (not a serialized object)",
           call. = FALSE)
    }
    con <- rawConnection(buf)
    msg <- tryCatch(unserialize(con), error = function(e) e)
    used <- seek(con)
    close(con)
    if (inherits(msg, "error")) {
      return(NULL)
    }
    link$inbuf[[i]] <- if (used < length(buf)) {
      buf[(used + 1):length(buf)]
    } else {
      raw()
    }
    got <- cluster_settle(link, i, msg)
    if (!is.null(got)) {
      return(got)
    }
  }
}

# msg, a message read from worker i: list(value) and the request done if it
# is the answer awaited, else NULL (a stale answer, counted).
cluster_settle <- function(link, i, msg) {
  want <- link$tags[[i]]
  if (is.list(msg) && (is.null(want) || identical(msg$tag, want))) {
    link$tags[i] <- list(NULL)
    link$pending <- setdiff(link$pending, i)
    return(list(value = msg$value))
  }
  link$stale <- link$stale + 1L
  NULL
}

# Runs expr, a read or a write of con, where no interrupt can cut it short.
# R's own socket reads and writes wait in R_SelectEx(), which turns
# interrupts on again even inside suspendInterrupts(); with the socket's
# timeout at 0 they only poll, and move the bytes that are ready.  SIGINT
# is held in this thread meanwhile, so that a write blocked in send() is
# not cut short (the signal waits, or another thread takes it: R's handler
# then only notes it); R for Windows has no such signal (an interrupt
# there is a flag read where R checks for one), and the hold does nothing
# there (src/r_signal.c).  A warning (a short write) is an error.
cluster_io <- function(con, expr) {
  suspendInterrupts(cluster_io_held(con, expr))
}

cluster_io_held <- function(con, expr) {
  timeout <- socketTimeout(con, 0L)
  held <- .Call(ffi_sigint_hold, TRUE)
  on.exit({
    .Call(ffi_sigint_hold, held)
    socketTimeout(con, timeout)
  })
  withCallingHandlers(expr, warning = function(w) {
    stop(conditionMessage(w), call. = FALSE)
  })
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

# Waits, interruptibly, until a socket node (PSOCK, SOCK) can be read (or
# written); other kinds of node are read when their answer is asked for.
# It polls the socket (socketSelect() with timeout 0 does not wait) and
# naps in C between polls, 50 microseconds at first, doubling up to 1 ms,
# where R's interrupt check runs.  (socketSelect() with a timeout waits in
# R_SelectEx(), whose SIGINT handler jumps back into its frame from
# whichever thread takes the signal: with OpenBLAS loaded one of its
# threads can, and two threads then run on the main stack; that was the
# interrupt that escaped the caller's tryCatch(interrupt = ).)
cluster_wait <- function(node, write = FALSE) {
  if (!cluster_socket(node)) {
    return(invisible())
  }
  con <- list(node$con)
  nap <- 50L
  # (a failed select: the read or write that follows says why)
  tryCatch({
    while (!socketSelect(con, write, timeout = 0)) {
      .Call(ffi_nap, nap)
      nap <- min(2L * nap, 1000L)
    }
  }, error = function(e) NULL)
  invisible()
}

# Finish what is in flight (the requests begun, whole, and their answers,
# after an interrupt), then release the chunks the live workers hold.  A
# request committed but not begun is dropped.
#
# An interrupt during the close itself (one that comes as a finished fit
# cleans up, or a second Ctrl-C) is held until the close is done, then
# signalled: cut short, the close would leave answers in the sockets,
# which parallel's own functions (they read no tags) would take for
# theirs, and workers still holding the fit's chunks.  After
# cluster_close_holds of them the next one goes through (for a worker that
# never answers).
cluster_close <- function(link, cl, idx, key) {
  held <- 0L
  repeat {
    if (held == cluster_close_holds) {
      cluster_drain(link, cl, idx, key)
      break
    }
    done <- tryCatch({
      cluster_drain(link, cl, idx, key)
      TRUE
    }, interrupt = function(e) FALSE)
    if (done) break
    held <- held + 1L
  }
  if (held > 0L) signal_interrupt()
  invisible(NULL)
}

cluster_close_holds <- 3L

cluster_drain <- function(link, cl, idx, key) {
  for (i in link$pending) {
    if (!is.null(link$out[[i]]) && link$at[i] == 0) {
      cluster_reset(link, i)
      next
    }
    tryCatch({
      if (!is.null(link$out[[i]])) cluster_push(link, cl[[i]], i)
      cluster_answer(link, cl[[i]], i)
    }, error = function(e) {
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
  fault <- if (isTRUE(res$fault)) {
    c("ghmix_error_cuda_fault", "ghmix_error_cuda")
  }
  chunk_fail(
    c("ghmix_error_chunk", fault), where, chunk,
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
