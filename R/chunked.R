# Chunked data: a description of data held in pieces (matrices, files, or
# functions that return a piece), read where it is used.  The fitters stream
# over the chunks on one machine or spread them over a cluster (R/cluster.R);
# both only ever add E-step statistics of chunks, in chunk order.

#' Describe data held in chunks, for out-of-core and distributed fits
#'
#' `ghmix_data()` describes a data set that is split into chunks of rows, so
#' that [fit_nig()] and the other fitters can use it in place of a matrix
#' without ever gathering it in one place. Each chunk is read where it is
#' used: by the fitting process itself (out of core: one chunk at a time,
#' with memory bounded by the largest chunk) or by the workers of a
#' cluster (see the `cluster` argument of [fit_nig()] and
#' `vignette("distributed", package = "ghmix")`).
#'
#' A chunk is any of:
#' * a numeric matrix, data frame of numeric columns, or numeric vector
#'   (\eqn{d = 1});
#' * the path of a file: `.rds` (a matrix, data frame or vector saved with
#'   [saveRDS()]) or `.csv` (headerless, comma-separated numbers; `.csv.gz`
#'   too), one chunk per file. Paths are not checked here: on a cluster they
#'   are read by the workers, so they must be valid there (a shared file
#'   system, or the same files on each host);
#' * a function without arguments that returns a chunk (for example, one that
#'   queries a database). It may be called several times (see Details), so it
#'   must return the same rows each time; it is sent to the workers with its
#'   enclosing environment, so keep that small.
#'
#' All chunks must have the same number of columns. Column names come from
#' `names`, else from the first chunk, else `x1`, `x2`, ...
#'
#' @section How often chunks are read: With a `parallel` cluster each worker
#'   reads its chunks once and keeps them in memory for the whole fit; only
#'   parameters (out) and E-step statistics (back) cross the network at each
#'   iteration. Out of core (no cluster) and with a future plan (whose
#'   workers keep no state from one future to the next) every chunk is read
#'   again at each E-step, so file- or function-backed chunks are the ones to
#'   use there: matrix chunks would be sent to the future workers at every
#'   E-step. A fit reads every chunk once more before it starts, for a
#'   one-pass summary: the number of rows, rows with missing values, column
#'   means, the covariance (from cross-products about each chunk's mean,
#'   merged in chunk order), column ranges and repeated rows.
#'
#' @section Repeated rows: Ties (rows that repeat another row, see the ties
#'   section of [fit_gh()]) are detected within each chunk (by a hash of the
#'   rows, then an exact comparison of the candidates). A point that occurs
#'   once in each of several chunks but never twice in one chunk is not
#'   counted; if the fit runs into the singularity at such a point, the
#'   E-step still reports it (rows with an infinite density) and the fit
#'   stops with `converged = FALSE`.
#'
#' @param x A list of chunks, or a character vector of file paths (see
#'   Details).
#' @param names Column names, or `NULL` to take them from the first chunk.
#' @return An object of class `"ghmix_data"`. After a fit, the fit's `data`
#'   element is this description with the number of rows (`n`), of columns
#'   (`d`), the rows of each chunk, and the rows dropped by `na.rm` filled
#'   in; `nrow()`, `ncol()` and `colnames()` work on it.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' dir <- tempfile()
#' dir.create(dir)
#' files <- file.path(dir, sprintf("part%d.rds", 1:3))
#' rows <- split(seq_len(nrow(r)), rep(1:3, length.out = nrow(r)))
#' for (i in 1:3) saveRDS(r[rows[[i]], ], files[i])
#' chunks <- ghmix_data(files)
#' chunks
#' fit <- fit_nig(chunks)
#' all.equal(fit$loglik, fit_nig(r)$loglik)
#' unlink(dir, recursive = TRUE)
ghmix_data <- function(x, names = NULL) {
  call <- sys.call()
  if (is.character(x)) {
    x <- as.list(x)
  }
  if (!is.list(x) || is.data.frame(x) || length(x) == 0L) {
    abort_argument(
      paste(
        "`x` must be a non-empty list of chunks (matrices, files or",
        "functions) or a character vector of file paths."
      ),
      call
    )
  }
  kind <- vapply(seq_along(x), function(i) chunk_kind(x[[i]], i, call), "")
  chunk_check_names(names, call)
  structure(
    list(chunks = unname(x), kind = kind, names = names, n = NA_integer_,
         d = if (is.null(names)) NA_integer_ else length(names)),
    class = "ghmix_data"
  )
}

chunk_check_names <- function(names, call) {
  if (!is.null(names) &&
        (!is.character(names) || anyNA(names) || length(names) == 0L)) {
    abort_argument("`names` must be a character vector or NULL.", call)
  }
}

chunk_kind <- function(chunk, i, call) {
  if (is.function(chunk)) {
    return("function")
  }
  if (is_path(chunk)) {
    return(chunk_kind_file(chunk, i, call))
  }
  if (is_numeric_chunk(chunk)) {
    return("matrix")
  }
  abort_argument(
    sprintf(
      paste(
        "Chunk %d of `x` must be a numeric matrix, data frame or vector,",
        "a file path or a function, not %s."
      ),
      i, type_name(chunk)
    ),
    call
  )
}

is_path <- function(x) is.character(x) && length(x) == 1L && !is.na(x)

is_numeric_chunk <- function(x) {
  (is.numeric(x) && !is.factor(x)) || is.data.frame(x)
}

chunk_kind_file <- function(chunk, i, call) {
  if (is.na(chunk_file_type(chunk))) {
    abort_argument(
      sprintf(
        "Chunk %d of `x` (\"%s\") must be a .rds or .csv file.", i, chunk
      ),
      call
    )
  }
  "file"
}

chunk_file_type <- function(path) {
  if (grepl("\\.rds$", path, ignore.case = TRUE)) {
    return("rds")
  }
  if (grepl("\\.csv(\\.gz)?$", path, ignore.case = TRUE)) {
    return("csv")
  }
  NA_character_
}

#' @export
print.ghmix_data <- function(x, ...) {
  kinds <- table(factor(x$kind, c("matrix", "file", "function")))
  kinds <- kinds[kinds > 0L]
  cat(sprintf(
    "<ghmix_data> %d chunk%s (%s)\n", length(x$chunks), plural(x$chunks),
    paste(sprintf("%d %s", kinds, names(kinds)), collapse = ", ")
  ))
  if (!is.na(x$n)) {
    cat(sprintf("%d rows, %d columns: %s\n", x$n, x$d,
                paste(utils::head(x$names, 8L), collapse = ", ")))
  }
  invisible(x)
}

#' @export
dim.ghmix_data <- function(x) {
  if (is.na(x$n)) NULL else c(x$n, x$d)
}

#' @export
dimnames.ghmix_data <- function(x) {
  if (is.null(x$names)) NULL else list(NULL, x$names)
}

# Reading chunks (wherever they are used) ------------------------------------

# The numeric matrix of one chunk; bad: its rows to drop (known from the
# summary), or NULL.
chunk_read <- function(chunk, bad = NULL) {
  x <- if (is.function(chunk)) {
    chunk()
  } else if (is.character(chunk)) {
    chunk_read_file(chunk)
  } else {
    chunk
  }
  x <- chunk_matrix(x)
  if (length(bad) > 0L) {
    x <- x[-bad, , drop = FALSE]
  }
  x
}

chunk_read_file <- function(path) {
  if (!file.exists(path)) {
    stop(sprintf("file \"%s\" does not exist", path), call. = FALSE)
  }
  if (chunk_file_type(path) == "rds") {
    return(readRDS(path))
  }
  first <- readLines(path, n = 1L, warn = FALSE)
  d <- length(strsplit(first, ",", fixed = TRUE)[[1L]])
  v <- scan(path, what = double(), sep = ",", quiet = TRUE)
  if (d == 0L || length(v) %% d != 0L) {
    stop(sprintf("file \"%s\" is not a table of %d numeric columns", path, d),
         call. = FALSE)
  }
  matrix(v, ncol = d, byrow = TRUE)
}

# A double matrix without copying one that already is.
chunk_matrix <- function(x) {
  if (is.matrix(x) && is.double(x) && is.null(attr(x, "class")) &&
        is.null(attr(x, "tsp"))) {
    return(x)
  }
  mix_as_matrix(x, NULL)
}

# One chunk's pass: drops non-finite rows (all of them are recorded), and
# summarises the rest.  Returns list(x, summary).
chunk_scan <- function(x, na_rm) {
  n_raw <- nrow(x)
  bad <- integer()
  if (!all(is.finite(colSums(x)))) {
    bad <- which(rowSums(!is.finite(x)) > 0L)
  }
  if (length(bad) > 0L && na_rm) {
    x <- x[-bad, , drop = FALSE]
  }
  sm <- if (length(bad) > 0L && !na_rm) NULL else chunk_moments(x)
  list(x = x, summary = c(
    list(n_raw = n_raw, bad = bad, d = ncol(x), names = colnames(x)), sm
  ))
}

# Rows, mean, cross-products about the mean (in blocks of rows, so no copy
# of the chunk is made), column ranges and repeated rows.
chunk_moments <- function(x) {
  n <- nrow(x)
  d <- ncol(x)
  if (n == 0L) {
    return(list(n = 0))
  }
  m <- colMeans(x)
  cp <- matrix(0, d, d)
  step <- max(1L, 2^17 %/% d)
  for (s in seq.int(1L, n, by = step)) {
    rows <- s:min(n, s + step - 1L)
    cp <- cp + crossprod(x[rows, , drop = FALSE] - rep(m, each = length(rows)))
  }
  rng <- vapply(seq_len(d), function(j) range(x[, j]), numeric(2L))
  list(n = as.double(n), mean = unname(m), cp = unname(cp), lo = rng[1L, ],
       hi = rng[2L, ], ties = chunk_ties(x, m, sqrt(diag(cp) / n)))
}

# mix_ties() on the candidates: rows whose hash (a fixed linear combination
# of the standardised columns, the same arithmetic for every row, so equal
# rows hash equal) occurs more than once.
chunk_ties <- function(x, center, scale) {
  scale[!(scale > 0)] <- 1
  w <- sqrt(c(2, 3, 5, 7, 11, 13, 17, 19, 23, 29))
  h <- 0
  for (j in seq_len(ncol(x))) {
    h <- h + (x[, j] - center[j]) / scale[j] * w[(j - 1L) %% 10L + 1L] * j
  }
  cand <- duplicated(h) | duplicated(h, fromLast = TRUE)
  if (!any(cand)) {
    return(list(n_repeated = 0L, points = x[0L, , drop = FALSE]))
  }
  mix_ties(x[cand, , drop = FALSE])
}

# Merging the summaries in chunk order ---------------------------------------

chunk_merge <- function(a, b) {
  if (b$n == 0L) {
    return(a)
  }
  if (is.null(a) || a$n == 0L) {
    return(b)
  }
  n <- a$n + b$n
  delta <- b$mean - a$mean
  list(
    n = n, mean = a$mean + delta * (b$n / n),
    cp = a$cp + b$cp + tcrossprod(delta) * (a$n / n * b$n),
    lo = pmin(a$lo, b$lo), hi = pmax(a$hi, b$hi),
    ties = list(
      n_repeated = a$ties$n_repeated + b$ties$n_repeated,
      points = unique(rbind(a$ties$points, b$ties$points))
    )
  )
}

# The data description completed from the chunk summaries (in chunk order),
# after the checks mix_data() makes on a matrix.
chunk_complete <- function(data, parts, na_rm, call) {
  d <- chunk_check_columns(data, parts, call)
  chunk_check_na(parts, na_rm, call)
  tot <- NULL
  for (p in parts) tot <- chunk_merge(tot, p)
  names <- data$names
  if (is.null(names)) names <- parts[[1L]]$names
  if (is.null(names)) names <- paste0("x", seq_len(d))
  n_raw <- vapply(parts, function(p) as.double(p$n_raw), 0)
  offset <- cumsum(c(0, n_raw))
  data$dropped <- unlist(lapply(seq_along(parts), function(i) {
    parts[[i]]$bad + offset[i]
  }))
  data$dropped <- if (length(data$dropped) == 0L) integer() else
    if (max(data$dropped) <= .Machine$integer.max) {
      as.integer(data$dropped)
    } else {
      data$dropped
    }
  data$bad <- lapply(parts, function(p) p$bad)
  data$rows <- vapply(parts, function(p) p$n, 0)
  data$n <- if (is.null(tot)) 0L else tot$n
  if (data$n <= .Machine$integer.max) data$n <- as.integer(data$n)
  data$d <- d
  data$names <- names
  chunk_check_shape(tot, data, call)
  list(data = data, summary = tot)
}

chunk_check_columns <- function(data, parts, call) {
  d <- vapply(parts, function(p) p$d, 0L)
  want <- if (is.na(data$d)) d[1L] else data$d
  wrong <- which(d != want)
  if (length(wrong) > 0L) {
    abort_argument(
      sprintf(
        "All chunks of `x` must have %d column%s; chunk%s %s ha%s %s.",
        want, plural(seq_len(want)), plural(wrong), row_list(wrong),
        if (length(wrong) == 1L) "s" else "ve",
        paste(unique(d[wrong]), collapse = ", ")
      ),
      call
    )
  }
  want
}

chunk_check_na <- function(parts, na_rm, call) {
  nbad <- vapply(parts, function(p) length(p$bad), 0L)
  if (na_rm || all(nbad == 0L)) {
    return(invisible())
  }
  i <- which(nbad > 0L)[1L]
  bad <- parts[[i]]$bad
  abort_argument(
    sprintf(
      paste(
        "`x` has %d row%s with NA, NaN or infinite values (%d in chunk %d:",
        "row%s %s of that chunk); use `na.rm = TRUE` to drop them."
      ),
      sum(nbad), plural(seq_len(sum(nbad))), length(bad), i, plural(bad),
      row_list(bad)
    ),
    call
  )
}

chunk_check_shape <- function(tot, data, call) {
  d <- data$d
  if (is.null(tot) || tot$n <= d + 1L) {
    abort_argument(
      sprintf(
        paste(
          "`x` needs more than d + 1 = %d rows (complete cases) for %d",
          "column%s; it has %d."
        ),
        d + 1L, d, plural(seq_len(d)), data$n
      ),
      call
    )
  }
  const <- which(tot$hi == tot$lo)
  if (length(const) > 0L) {
    abort_argument(
      sprintf(
        "`x` has constant column%s: %s.", plural(const),
        paste0("`", data$names[const], "`", collapse = ", ")
      ),
      call
    )
  }
  if (d > 1L) {
    ev <- eigen(stats::cov2cor(tot$cp), symmetric = TRUE,
                only.values = TRUE)$values
    if (min(ev) <= 1e-10 * max(ev)) {
      abort_argument(
        paste(
          "The columns of `x` are collinear (their correlation matrix is",
          "singular); drop redundant columns."
        ),
        call
      )
    }
  }
}

# The moments the fit starts from, as colMeans(), sd() and cov() give them
# for a matrix.
chunk_std <- function(tot, names) {
  center <- stats::setNames(tot$mean, names)
  cov <- tot$cp / (tot$n - 1)
  dimnames(cov) <- list(names, names)
  list(center = center, scale = sqrt(diag(cov)), cov = cov)
}

# Fitting ---------------------------------------------------------------------

# mix_fit() for chunked data or a cluster: the same EM (mix_em()) over an
# engine whose E-step adds the statistics of the chunks in chunk order.
chunk_fit <- function(x, family, symmetric, start, control, gauge, na_rm,
                      backend, threads, device, cluster, call) {
  t_start <- proc.time()[[3]]
  opts <- chunk_options(backend, threads, device, cluster, call)
  check_flag(symmetric, "symmetric", call)
  check_flag(na_rm, "na.rm", call)
  if (!inherits(control, "ghmix_control")) {
    abort_argument("`control` must be made by ghmix_control().", call)
  }
  gauge <- check_gauge(gauge, call)
  state <- new.env(parent = emptyenv())
  state$stage <- "setup"
  state$iter <- 0L
  withCallingHandlers(
    chunk_fit_run(x, family, symmetric, start, control, gauge, na_rm, opts,
                  call, state, t_start),
    ghmix_error_chunk = function(e) chunk_abort(e, state, call),
    ghmix_error_cluster = function(e) chunk_abort(e, state, call)
  )
}

chunk_fit_run <- function(x, family, symmetric, start, control, gauge, na_rm,
                          opts, call, state, t_start) {
  mem <- NULL
  if (inherits(x, "ghmix_data")) {
    data <- x
  } else {
    mem <- mix_data(x, na_rm, call)
    data <- chunk_split(mem$x, opts$cluster)
  }
  engine <- chunk_engine(data, opts, na_rm)
  on.exit(engine$free())
  done <- chunk_complete(data, engine$summary, na_rm, call)
  std <- chunk_std(done$summary, done$data$names)
  ties <- if (is.null(mem)) done$summary$ties else mix_ties(mem$x)
  mix_warn_ties(ties, family, call)
  stored <- if (is.null(mem)) done$data else mem$x
  engine$n <- done$data$n
  engine$d <- done$data$d
  run <- function(fam, start, stage) {
    ctx <- mix_context(stored, engine, fam, symmetric,
                       chunk_quiet(control), call, ties, std = std)
    par0 <- mix_start(stored, start, fam, symmetric, call,
                      center = std$center, cov = std$cov)
    chunk_em(par0, ctx, state, stage, control$trace)
  }
  if (is.null(start) && family == "gh") {
    start <- run("nig", NULL, "NIG start")$point$par
  }
  em <- run(family, start, "fit")
  fit <- mix_result(em$em, em$ctx, stored,
                    if (is.null(mem)) done$data$dropped else mem$dropped,
                    gauge, opts$backend, opts$threads, call, t_start)
  fit$control <- control
  chunk_annotate(fit, engine)
}

# A control that keeps mix_em() quiet: chunked fits print their own trace
# line (with the time in E-step, M-step and communication).
chunk_quiet <- function(control) {
  control$trace <- FALSE
  control
}

chunk_em <- function(par0, ctx, state, stage, trace) {
  state$stage <- stage
  state$iter <- 0L
  state$par <- par0
  ctx$progress <- chunk_progress(ctx, state, stage, trace)
  list(em = mix_em(par0, ctx), ctx = ctx)
}

# Called by mix_em() after each accepted iteration (ctx$progress).
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

chunk_annotate <- function(fit, engine) {
  clock <- engine$clock
  fit$timings <- c(
    fit$timings,
    comm = max(0, fit$timings[["estep"]] - clock$work)
  )
  fit$distributed <- list(
    mode = engine$mode, workers = engine$workers,
    chunks = length(engine$summary), worker_time = clock$work,
    read_time = clock$read, bytes_sent = clock$sent,
    bytes_received = clock$received, bytes_setup = clock$setup,
    bytes_per_estep = c(
      sent = clock$sent - clock$setup[["sent"]],
      received = clock$received - clock$setup[["received"]]
    ) / max(1, clock$esteps)
  )
  fit
}

# The cluster, backend and threads of a chunked fit.  On a cluster the
# workers check the backend (the master need not have a GPU) and cap the
# threads by their own processors.
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

# A matrix fitted on a cluster: one chunk of contiguous rows per worker.
chunk_split <- function(x, cluster) {
  k <- if (inherits(cluster, "cluster")) {
    length(cluster)
  } else if (identical(cluster, "future")) {
    min(future::nbrOfWorkers(), 64L)
  } else {
    1L
  }
  k <- max(1L, min(k, nrow(x) %/% 2L))
  idx <- parallel::splitIndices(nrow(x), k)
  data <- ghmix_data(lapply(idx, function(i) x[i, , drop = FALSE]),
                     names = colnames(x))
  data
}

chunk_engine <- function(data, opts, na_rm) {
  switch(opts$mode,
    stream = stream_engine(data, opts, na_rm),
    cluster = cluster_engine(data, opts, na_rm),
    future = future_engine(data, opts, na_rm)
  )
}

# The E-step statistics of the chunks (columns, in chunk order) summed in
# that order, whatever computed them.
chunk_sum <- function(stats) {
  tot <- stats[, 1L]
  for (k in seq_len(ncol(stats))[-1L]) {
    tot <- tot + stats[, k]
  }
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

# Out of core on this machine ------------------------------------------------

# Each E-step reads the chunks one after the other: memory is bounded by the
# largest chunk.
stream_engine <- function(data, opts, na_rm) {
  chunks <- data$chunks
  parts <- lapply(seq_along(chunks), function(i) {
    res <- chunk_task_summary(chunks[i], i, na_rm)
    chunk_check_result(res, chunk_where_local(), i)
    res$summaries[[1L]]
  })
  bad <- lapply(parts, function(p) p$bad)
  rows <- vapply(parts, function(p) if (is.null(p$n)) NA_real_ else p$n, 0)
  clock <- chunk_clock()
  engine <- list(
    mode = "stream", workers = 1L, summary = parts, clock = clock,
    free = function() invisible(NULL)
  )
  engine$estep <- function(center, chol_l, g, consts, what, rows_out) {
    args <- list(center = center, chol_l = chol_l, g = g, consts = consts,
                 what = what)
    stats <- vapply(seq_along(chunks), function(i) {
      res <- chunk_task_estep(chunks[i], bad[i], rows[i], i, args, opts)
      chunk_check_result(res, chunk_where_local(), i)
      clock$work <- clock$work + res$compute
      clock$read <- clock$read + res$read
      res$stats[, 1L]
    }, numeric(chunk_nstats(length(center))))
    clock$esteps <- clock$esteps + 1L
    chunk_sum(matrix(stats, ncol = length(chunks)))
  }
  engine
}

chunk_where_local <- function() {
  list(worker = 0L, host = Sys.info()[["nodename"]], pid = Sys.getpid())
}

# Tasks that run where the chunks are read (this process, a cluster worker
# or a future) -------------------------------------------------------------
#
# They never signal: a failure is returned as list(ok = FALSE, chunk, message)
# so that the caller can name the chunk and keep the cluster usable.

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

# args: list(center, chol_l, g, consts, what).  rows: the rows each chunk
# had in the summary (a check that it still reads the same).
chunk_task_estep <- function(chunks, bad, rows, ids, args, opts) {
  nst <- chunk_nstats(length(args$center))
  stats <- matrix(0, nst, length(chunks))
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
    stats[, k] <- res$stats
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

# The statistics of one chunk in memory (opts: backend, threads, device).
chunk_estep <- function(x, args, opts, engine = NULL) {
  if (is.null(engine)) {
    engine <- chunk_local_engine(x, opts)
    on.exit(engine$free())
  }
  as.vector(engine$estep(args$center, args$chol_l, args$g, args$consts,
                         args$what, FALSE))
}

chunk_local_engine <- function(x, opts) {
  threads <- min(opts$threads, max_threads())
  if (opts$backend == "cuda") {
    check_backend("cuda", NULL, opts$device)
  }
  mix_engine(x, opts$backend, threads, opts$device)
}

chunk_task_error <- function(e, id) {
  list(ok = FALSE, chunk = id, message = conditionMessage(e))
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

# Methods on chunked fits -----------------------------------------------------

# The engine for E-steps at a fit's data (vcov()): the data matrix, or the
# chunks streamed here or on a cluster.
fit_engine <- function(object, cluster = NULL) {
  data <- object$data
  if (!inherits(data, "ghmix_data") && is.null(cluster)) {
    return(mix_engine_cpu(data, object$threads))
  }
  if (!inherits(data, "ghmix_data")) {
    data <- chunk_split(data, cluster)
  }
  opts <- chunk_options("cpu", object$threads, 0L, cluster, sys.call(-1L))
  engine <- chunk_engine(data, opts, na_rm = TRUE)
  engine$n <- sum(vapply(engine$summary, function(p) p$n, 0))
  engine$d <- object$d
  engine
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
