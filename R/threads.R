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
#' without OpenMP it is 1. ghmix never changes OpenMP's global settings or
#' the environment: the count is passed to each computation.
#'
#' @section How ghmix runs on several threads:
#' Results never depend on the thread count: the rows of an E-step are cut
#' into a fixed number of slots whatever the count, each slot's sums are
#' made by one thread, block after block, and the slots' sums are added in
#' slot order; element-wise functions ([log_besselK()], [dgig()], [dgh()],
#' ...) compute each element alone. `threads = 1` and `threads = 2` give
#' the same bits.
#'
#' The parallel loops run on ghmix's own worker threads, not on OpenMP's
#' parallel regions (OpenMP only supplies the default count above). A fit
#' runs hundreds of short parallel steps (one or a few per E-step), and
#' OpenMP's threads spin at the end of each by default: on a machine whose
#' cores are busy with other work, a spinning thread burns the time slice
#' that the thread it waits for needs, and two threads were 4 times slower
#' than one (2.7 s against 0.7 s for the 3-component NIG mixture of 5000
#' rows in 5 dimensions, with two other processes busy on 2 cores).
#' `OMP_WAIT_POLICY=passive` cures that, but R itself loads GNU OpenMP,
#' which reads the variable once when it is loaded, so a package cannot set
#' it for itself without changing it for every other package in the
#' session. ghmix's workers instead
#' * sleep between jobs (on a condition variable: no spinning, ever), and
#'   are started when first needed, then kept for the session;
#' * share each job in small units that every thread claims in turn, the
#'   calling thread included, so that a worker that the operating system
#'   wakes late finds the work already done, and the call never waits for
#'   a thread that has not started: on a busy machine a call takes about
#'   what it takes on one thread, on an idle one the threads share it;
#' * are left out for small jobs (fewer rows or values than the cost of
#'   waking a thread), which run on the calling thread.
#'
#' bench/threads.R in the package's sources times whole fits and
#' [log_besselK()] with 1 and 2 threads, idle and with busy processes that
#' it starts itself, against another build in the same run.
#'
#' In a process forked from this one ([parallel::mcparallel()],
#' [parallel::mclapply()], future's `multicore` plan) every ghmix
#' computation runs on one thread, whatever `threads` says: a fork copies
#' only the thread that called it, so the parent's workers are not in the
#' child (and GNU OpenMP, which R loads, hangs in a child forked after its
#' parent ran a parallel region). Results do not depend on the thread
#' count, so the child's are those of the parent. Processes started afresh
#' (PSOCK clusters, `multisession`) use their own threads.
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
