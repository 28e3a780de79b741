# Chunked data: a description of data held in pieces (matrices, files, or
# functions that return a piece), read where it is used.  The one-pass
# summary of the chunks is in R/chunk_summary.R, the engines that stream
# them here or spread them over a cluster in R/engines.R; both only ever add
# E-step statistics of chunks, in chunk order.

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
#' * a list `list(x = , weights = )`: a chunk of the kinds above (a matrix,
#'   data frame or vector) and its rows' weights (a function may return such
#'   a list too).
#'
#' All chunks must have the same number of columns. Column names come from
#' `names`, else from the first chunk, else `x1`, `x2`, ...
#'
#' @section Weights: Observation weights (see the `weights` argument of
#'   [fit_nig()]) come with the chunks: `weights = "w"` (a column name) or
#'   `weights = 3` (a column number, e.g. of a headerless `.csv` file) says
#'   that every chunk has its rows' weights in that column, which is then
#'   not part of the data; a chunk given (or returned by its function) as
#'   `list(x = , weights = )` carries them itself; a chunk without weights
#'   counts each row once (also among chunks with weights, in every fit,
#'   mixtures included). Weights must be finite numbers \eqn{\ge 0}, one
#'   per row (an error of class `ghmix_error_chunk` otherwise); `na.rm` drops
#'   the weights of the rows it drops. They are frequency weights, as in
#'   the Weights section of [fit_nig()]: the one-pass summary (and so the
#'   start) is weighted, a chunk without weights counts as weight 1 per
#'   row, and a row of weight above the smallest positive weight of its
#'   chunk counts as a tie with itself (rows are compared within a chunk).
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
#' @param weights `NULL` (default), or the name or number of the column of
#'   every chunk that holds its rows' weights (see the Weights section).
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
ghmix_data <- function(x, names = NULL, weights = NULL) {
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
  chunk_check_weights_column(weights, call)
  if (!is.null(weights)) {
    x <- lapply(x, function(chunk) {
      structure(list(chunk = chunk, column = weights),
                class = "ghmix_weighted_chunk")
    })
  }
  structure(
    list(chunks = unname(x), kind = kind, names = names, weights = weights,
         n = NA_integer_,
         d = if (is.null(names)) NA_integer_ else length(names)),
    class = "ghmix_data"
  )
}

chunk_check_weights_column <- function(weights, call) {
  ok <- is.null(weights) || is_path(weights) ||
    (is_count(weights) && !is.character(weights))
  if (!ok) {
    abort_argument(
      paste(
        "`weights` must be NULL, or the name or number of the column of",
        "each chunk that holds the weights."
      ),
      call
    )
  }
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
  if (is_weighted_list(chunk) && is_numeric_chunk(chunk$x)) {
    return("matrix")
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

# list(x = , weights = ): a chunk with its rows' weights.
is_weighted_list <- function(x) {
  is.list(x) && !is.data.frame(x) && identical(sort(names(x)),
                                               c("weights", "x"))
}

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
  if (!is.null(x$weights)) {
    cat(sprintf("weights: column %s of each chunk\n", x$weights))
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

# The numeric matrix of one chunk, with its rows' weights (if it has
# them) as attribute "weights"; bad: its rows to drop (known from the
# summary), or NULL.
chunk_read <- function(chunk, bad = NULL) {
  column <- NULL
  if (inherits(chunk, "ghmix_weighted_chunk")) {
    column <- chunk$column
    chunk <- chunk$chunk
  }
  x <- if (is.function(chunk)) {
    chunk()
  } else if (is.character(chunk)) {
    chunk_read_file(chunk)
  } else {
    chunk
  }
  x <- chunk_weights_split(x, column)
  if (length(bad) > 0L) {
    x <- chunk_drop_rows(x, bad)
  }
  x
}

# The rows of x but bad, with their weights.
chunk_drop_rows <- function(x, bad) {
  w <- attr(x, "weights")
  x <- x[-bad, , drop = FALSE]
  if (!is.null(w)) attr(x, "weights") <- w[-bad]
  x
}

# A chunk as read (a matrix, data frame or vector; list(x, weights); or
# with the weights in `column`) as a double matrix with attribute weights.
chunk_weights_split <- function(x, column) {
  w <- NULL
  if (is_weighted_list(x)) {
    w <- x$weights
    x <- x$x
  } else if (!is.null(column)) {
    w <- chunk_weights_column(x, column)
    x <- x[, -attr(w, "column"), drop = FALSE]
  }
  x <- chunk_matrix(x)
  if (is.null(w)) {
    return(x)
  }
  attr(x, "weights") <- chunk_check_weights(w, nrow(x))
  x
}

# The weights column of a chunk (its index as attribute "column").
chunk_weights_column <- function(x, column) {
  j <- if (is.character(column)) match(column, colnames(x)) else column
  if (is.null(dim(x)) || is.na(j) || j > ncol(x)) {
    stop(sprintf("it has no weights column %s", column), call. = FALSE)
  }
  structure(if (is.data.frame(x)) x[[j]] else unname(x[, j]), column = j)
}

chunk_check_weights <- function(w, n) {
  if (!is.numeric(w) || is.factor(w) || length(w) != n ||
        !all(is.finite(w) & w >= 0)) {
    stop(sprintf(
      "its `weights` must be %d finite numbers >= 0, one per row", n
    ), call. = FALSE)
  }
  if (any(w > 0 & w < .Machine$double.xmin)) {
    stop("its positive `weights` must be at least 2.2e-308 (not subnormal)",
         call. = FALSE)
  }
  as.vector(w, "double")
}

chunk_read_file <- function(path) {
  if (!file.exists(path)) {
    stop(sprintf("file \"%s\" does not exist", path), call. = FALSE)
  }
  if (chunk_file_type(path) == "rds") {
    return(readRDS(path))
  }
  first <- readLines(path, n = 1L, warn = FALSE)
  if (length(first) == 0L) {
    stop(sprintf("file \"%s\" is empty (no rows)", path), call. = FALSE)
  }
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

# A matrix fitted on a cluster: one chunk of contiguous rows per worker
# (with their weights, unless w is NULL).
chunk_split <- function(x, cluster, w = NULL) {
  k <- if (inherits(cluster, "cluster")) {
    length(cluster)
  } else if (identical(cluster, "future")) {
    min(future::nbrOfWorkers(), 64L)
  } else {
    1L
  }
  k <- max(1L, min(k, nrow(x) %/% 2L))
  idx <- parallel::splitIndices(nrow(x), k)
  ghmix_data(lapply(idx, function(i) {
    if (is.null(w)) x[i, , drop = FALSE] else list(x = x[i, , drop = FALSE],
                                                  weights = w[i])
  }), names = colnames(x))
}
