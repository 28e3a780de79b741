#' Time the CPU and CUDA backends on this machine
#'
#' Measures the time of one EM iteration's E-step (the part of a fit that
#' grows with the data) of [fit_nig()] or [fit_gh()] on simulated data of
#' each size in `n`, on each backend, and reports from what size the GPU is
#' faster, so that the choice of backend rests on numbers measured where the
#' fits will run. Data are copied to the GPU once per fit, as in the fitters,
#' and that copy is timed separately.
#'
#' @param n Numbers of rows to time.
#' @param d Number of columns.
#' @param family `"nig"` or `"gh"` (the GH E-step also needs the derivative
#'   of log K in the order, which costs more per row).
#' @param backends The backends to time; `"cuda"` needs a CUDA build and a
#'   device (else the usual classed error), `"cpu"` alone times the CPU.
#' @param reps Repetitions per size; the median is reported.
#' @inheritParams ghmix-params
#' @return A data frame of class `"ghmix_benchmark"` with one row per size:
#'   `n`, `d`, the median milliseconds per E-step on each backend (`cpu_ms`,
#'   `cuda_ms`), the one-off upload time `cuda_upload_ms`, and `speedup`
#'   (`cpu_ms / cuda_ms`); attribute `crossover` is the smallest `n` from
#'   which the GPU was faster at every larger size (`NA` if it never was).
#' @family backend controls
#' @export
#' @examples
#' ghmix_benchmark_backends(n = c(1e3, 1e4), backends = "cpu", reps = 1)
ghmix_benchmark_backends <- function(n = 10^(3:6), d = 4L,
                                     family = c("nig", "gh"),
                                     backends = c("cpu", "cuda"), reps = 3L,
                                     threads = ghmix_threads(), device = 0L) {
  call <- sys.call()
  family <- check_choice(family, c("nig", "gh"), "family", call)
  check_bench_sizes(n, d, reps, call)
  threads <- check_threads(threads, call = call)
  device <- check_device(device, call)
  if (!is.character(backends) || !all(backends %in% c("cpu", "cuda")) ||
        length(backends) == 0L) {
    abort_argument('`backends` must be "cpu", "cuda" or both.', call)
  }
  if ("cuda" %in% backends) check_backend("cuda", call, device)
  rows <- lapply(sort(unique(as.integer(n))), bench_one_size,
                 d = as.integer(d), family = family, backends = backends,
                 reps = reps, threads = threads, device = device)
  out <- do.call(rbind, rows)
  out$speedup <- out$cpu_ms / out$cuda_ms
  faster <- !is.na(out$speedup) & out$speedup > 1
  later <- rev(cumprod(rev(faster))) == 1
  structure(out, class = c("ghmix_benchmark", "data.frame"),
            crossover = if (any(later)) out$n[which(later)[1]] else NA_real_,
            family = family, threads = threads)
}

bench_one_size <- function(n, d, family, backends, reps, threads, device) {
  x <- bench_data(n, d)
  par <- list(mu = colMeans(x), gamma = rep(0.1, d), sigma = stats::cov(x),
              p = if (family == "gh") -1.3 else -0.5, a = 1, b = 1)
  row <- data.frame(n = n, d = d, cpu_ms = NA_real_, cuda_ms = NA_real_,
                    cuda_upload_ms = NA_real_)
  if ("cpu" %in% backends) {
    row$cpu_ms <- time_estep(mix_engine_cpu(x, threads), par, family, reps)
  }
  if ("cuda" %in% backends) {
    t0 <- proc.time()[[3]]
    engine <- mix_engine_cuda(x, device)
    row$cuda_upload_ms <- 1000 * (proc.time()[[3]] - t0)
    row$cuda_ms <- time_estep(engine, par, family, reps)
    engine$free()
  }
  row
}

check_bench_sizes <- function(n, d, reps, call) {
  ok <- is.numeric(n) && !is.factor(n) && length(n) > 0L &&
    all(is.finite(n))
  if (!ok || any(n < 10 | n > .Machine$integer.max | n != round(n))) {
    abort_argument(
      sprintf("`n` must be whole numbers of rows from 10 to %d.",
              .Machine$integer.max),
      call
    )
  }
  if (!is_count(d)) abort_argument("`d` must be a positive whole number.", call)
  if (!is_count(reps)) {
    abort_argument("`reps` must be a positive whole number.", call)
  }
}

# NIG-like data with a fixed seed, without touching the user's RNG stream.
bench_data <- function(n, d) {
  if (exists(".Random.seed", envir = globalenv())) {
    old <- get(".Random.seed", envir = globalenv())
    on.exit(assign(".Random.seed", old, envir = globalenv()))
  }
  set.seed(1L)
  y <- rgig(n, -0.5, 1, 1)
  x <- sqrt(y) * matrix(stats::rnorm(n * d), n, d) + outer(y, rep(0.1, d))
  colnames(x) <- paste0("x", seq_len(d))
  x
}

time_estep <- function(engine, par, family, reps) {
  what <- mix_what(family)
  mix_estep(engine, par, what) # warm-up
  t <- vapply(seq_len(reps), function(i) {
    t0 <- proc.time()[[3]]
    mix_estep(engine, par, what)
    proc.time()[[3]] - t0
  }, numeric(1))
  1000 * stats::median(t)
}

#' @export
print.ghmix_benchmark <- function(x, ...) {
  cat(sprintf(
    "E-step of fit_%s, milliseconds per iteration (median), %d CPU threads\n",
    attr(x, "family"), attr(x, "threads")
  ))
  print(format(as.data.frame(x), digits = 4), row.names = FALSE)
  cross <- attr(x, "crossover")
  if (!all(is.na(x$cuda_ms))) {
    cat(if (is.na(cross)) "The GPU was not faster at any size timed.\n" else
      sprintf("The GPU is faster from n = %s rows.\n", format(cross)))
  }
  invisible(x)
}
