# Runs one case of tests/testthat/test-interrupt.R many times, as the test
# runs it (its own functions, read from the file), and counts the
# interrupts that came back and those that escaped the child's tryCatch.
#
#   Rscript tools/interrupt-driver.R RUNS [PATTERN] [LIB]
#
# PATTERN picks the test_that() by its description (default "PSOCK"); LIB
# is the library ghmix is loaded from (default: the first with ghmix).
# For OpenBLAS, run it with
#   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
# (the child and its workers inherit it).  On a shared machine: nice -n 10.

args <- commandArgs(trailingOnly = TRUE)
runs <- if (length(args) >= 1L) as.integer(args[[1L]]) else 5L
pattern <- if (length(args) >= 2L) args[[2L]] else "PSOCK"
if (length(args) >= 3L) .libPaths(c(args[[3L]], .libPaths()))
suppressPackageStartupMessages(library(ghmix))

file <- Sys.getenv("GHMIX_DRIVER_FILE", "tests/testthat/test-interrupt.R")
exprs <- parse(file, keep.source = FALSE)
env <- new.env(parent = globalenv())
case <- NULL
for (e in exprs) {
  head <- if (is.call(e)) as.character(e[[1L]]) else ""
  if (head %in% c("<-", "=")) {
    eval(e, env)
  } else if (identical(head, "test_that") && grepl(pattern, e[[2L]])) {
    case <- e
  }
}
if (is.null(case)) stop("no test_that() matches ", pattern)

# the call run_interrupt_child(...) inside the case
find_run <- function(x) {
  if (is.call(x)) {
    if (identical(x[[1L]], as.name("run_interrupt_child"))) return(x)
    for (part in as.list(x)[-1L]) {
      hit <- find_run(part)
      if (!is.null(hit)) return(hit)
    }
  }
  NULL
}
run_call <- find_run(case[[3L]])

# GHMIX_DRIVER_DELAY=LO,HI: the interrupts LO to HI seconds after the calls
# start (the test's are 0.2 to 0.8; later ones on a busy machine land where
# the test's land on an idle one).
delay <- Sys.getenv("GHMIX_DRIVER_DELAY")
if (nzchar(delay)) {
  lim <- as.numeric(strsplit(delay, ",", fixed = TRUE)[[1L]])
  run_call$delay <- seq(lim[[1L]], lim[[2L]], length.out = env$interrupt_reps)
}

# GHMIX_DRIVER_TRACE=FILE: the child also appends to FILE the calls on the
# stack where an interrupt escaped its tryCatch (printed after a failure).
if (nzchar(Sys.getenv("GHMIX_DRIVER_TRACE"))) {
  child_script <- env$interrupt_child_script
  env$interrupt_child_script <- function(setup, expr, reps) {
    lines <- child_script(setup, expr, reps)
    at <- grep("library(ghmix", lines, fixed = TRUE)
    trace <- c(
      "trace_stack <- function(label) {",
      "  calls <- vapply(sys.calls(), function(x) deparse(x)[[1L]], '')",
      "  cat(label, paste0('  ', calls), sep = '\\n', append = TRUE,",
      sprintf("      file = '%s')", Sys.getenv("GHMIX_DRIVER_TRACE")),
      "}",
      "globalCallingHandlers(interrupt = function(c) trace_stack('ESCAPED'))"
    )
    append(lines, trace, after = at)
  }
}

cat(sprintf("case: %s\nfile: %s\nBLAS: %s\nruns: %d\n", case[[2L]], file,
            extSoftVersion()[["BLAS"]], runs))
if (nzchar(delay)) cat("delays:", delay, "s\n")
total <- 0L
back <- 0L
escaped <- 0L
for (k in seq_len(runs)) {
  t0 <- proc.time()[["elapsed"]]
  res <- tryCatch(eval(run_call, env), error = function(e) e)
  secs <- proc.time()[["elapsed"]] - t0
  if (inherits(res, "error")) {
    msg <- conditionMessage(res)
    at <- regmatches(msg, regexpr("'back [0-9]+ '", msg))
    if (length(at) == 1L) {
      i <- as.integer(gsub("[^0-9]", "", at))
      total <- total + i
      back <- back + i - 1L
    }
    escaped <- escaped + 1L
    cat(sprintf("run %d: FAILED after %.0f s: %s\n", k, secs, msg))
    trace <- Sys.getenv("GHMIX_DRIVER_TRACE")
    if (nzchar(trace) && file.exists(trace)) {
      writeLines(readLines(trace))
      unlink(trace)
    }
  } else {
    ok <- res$outcome == "interrupted"
    total <- total + nrow(res)
    back <- back + sum(ok)
    cat(sprintf("run %d: %d of %d interrupted; latency median %.3f max %.3f;",
                k, sum(ok), nrow(res), median(res$latency), max(res$latency)),
        sprintf("RSS growth %+.1f MB, workers %+.1f MB (%.0f s)\n",
                res$rss[nrow(res)] - res$rss[1L],
                res$extra[nrow(res)] - res$extra[1L], secs))
    for (i in which(!ok)) {
      cat(sprintf("  call %d: %s after %.3f s\n", i, res$outcome[i],
                  res$latency[i]))
    }
  }
}
cat(sprintf("total: %d interrupts came back of %d sent; %d runs failed\n",
            back, total, escaped))
