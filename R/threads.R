# Package state: the thread count set by ghmix_threads().
the <- new.env(parent = emptyenv())

#' Get or set the number of CPU threads
#'
#' `ghmix_threads()` returns the number of threads that ghmix's computing
#' functions use by default (their `threads` argument); `ghmix_threads(n)`
#' sets it. When the package is loaded the count is taken from the
#' environment variable `GHMIX_NUM_THREADS` if it is set, otherwise from
#' OpenMP's default (all processors, or `OMP_NUM_THREADS`). It is always
#' capped by the processors available and by `OMP_THREAD_LIMIT`; in a build
#' without OpenMP it is 1. ghmix never changes OpenMP's global settings: the
#' count is passed to each computation.
#'
#' In a process forked from this one ([parallel::mcparallel()],
#' [parallel::mclapply()], future's `multicore` plan) every ghmix
#' computation runs on one thread, whatever `threads` says: GNU OpenMP is
#' not fork-safe, and a forked child that entered a parallel region of
#' several threads after its parent had run one would hang. Results do not
#' depend on the thread count, so the child's are those of the parent.
#' Processes started afresh (PSOCK clusters, `multisession`) use their own
#' threads.
#'
#' @param n `NULL` to get the current value, or a positive whole number of
#'   threads to set it (values above the maximum are capped).
#' @return The current number of threads; when setting, the previous value,
#'   invisibly.
#' @family backend controls
#' @export
#' @examples
#' ghmix_threads()
#' old <- ghmix_threads(1)
#' ghmix_threads()
#' ghmix_threads(old)
ghmix_threads <- function(n = NULL) {
  old <- the$threads
  if (is.null(old)) {
    old <- the$threads <- threads_from_env()
  }
  if (is.null(n)) {
    return(old)
  }
  the$threads <- check_threads(n, "n", call = sys.call())
  invisible(old)
}

max_threads <- function() {
  .Call(ffi_max_threads)
}

# One positive whole number (double, integer or logical TRUE).
is_count <- function(x) {
  if (!(is.numeric(x) || is.logical(x)) || length(x) != 1L) {
    return(FALSE)
  }
  isTRUE(is.finite(x) && x >= 1 && x == round(x))
}

# A valid thread count: one positive whole number, capped at max_threads().
check_threads <- function(threads, arg = "threads", call = sys.call(-1L)) {
  if (is.integer(threads) && length(threads) == 1L && isTRUE(threads >= 1L)) {
    return(min(threads, max_threads())) # (ghmix_threads()'s: the fast case)
  }
  if (!is_count(threads)) {
    abort_argument(
      sprintf("`%s` must be a single positive whole number.", arg),
      call
    )
  }
  as.integer(min(threads, max_threads()))
}

# Default thread count: GHMIX_NUM_THREADS if set and valid, else OpenMP's
# default; both capped by max_threads().
threads_from_env <- function() {
  info <- .Call(ffi_build_info)
  env <- Sys.getenv("GHMIX_NUM_THREADS", "")
  if (nzchar(env)) {
    n <- suppressWarnings(as.numeric(env))
    if (is_count(n)) {
      return(as.integer(min(n, info$max_threads)))
    }
    warning(
      sprintf(
        paste(
          "GHMIX_NUM_THREADS=\"%s\" is not a positive whole number;",
          "using %d threads."
        ),
        env, info$default_threads
      ),
      call. = FALSE
    )
  }
  info$default_threads
}
