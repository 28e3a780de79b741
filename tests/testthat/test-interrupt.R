# Interrupting long computations: control comes back promptly and no memory
# stays behind.  Each case runs in a child R process (Rscript) that this
# process interrupts with SIGINT, 10 times in one session; the child catches
# each interrupt with tryCatch(interrupt = ), notes when control came back
# and its resident memory (VmRSS, after gc()), and starts the next call.
#
# The numbers are printed (run this file with testthat's default reporter
# to see them); the assertions allow slack for a loaded machine.

interrupt_reps <- 10L # (20 before: twice the time in both testthat legs of CI)
interrupt_latency_limit <- 1.5 # seconds on an idle machine; the aim is 1
interrupt_rss_limit <- 50 # MB over the 10 interrupts

# The limit on seconds to return, stretched by the machine's load: the
# cluster fit's child waits on two worker processes, and with the other CI
# lane and other jobs running (load 9 on 2 cores) its slowest return took
# 0.84 s against 0.26 s at load 2.  Scaled by the 1-minute load average per
# core, read when the case ends (never below the idle limit).
interrupt_limit_now <- function() {
  load <- tryCatch(
    as.numeric(strsplit(readLines("/proc/loadavg", n = 1L), " ")[[1L]][[1L]]),
    error = function(e) NA_real_, warning = function(w) NA_real_
  )
  cores <- max(1L, parallel::detectCores(), na.rm = TRUE)
  stretch <- if (is.finite(load)) max(1, load / cores) else 1
  structure(interrupt_latency_limit * stretch, load = load)
}

skip_interrupt_tests <- function(mem_gb = 1) {
  skip_on_cran()
  skip_if_not(identical(Sys.info()[["sysname"]], "Linux"),
              "needs Linux (/proc/self/status, SIGINT)")
  skip_if(grepl("asan", Sys.getenv("LD_PRELOAD")),
          "timing and memory are not meaningful under AddressSanitizer")
  info <- readLines("/proc/meminfo", warn = FALSE)
  avail <- as.numeric(sub("\\D*(\\d+).*", "\\1",
                          grep("^MemAvailable:", info, value = TRUE)))
  skip_if(length(avail) != 1L || avail / 2^20 < mem_gb,
          sprintf("needs %g GB of free memory", mem_gb))
}

# The child: `setup` once, then `reps` times the long call `expr` with an
# interrupt expected in it.  Protocol on the progress file: "pid P", then
# per repetition "start i" before the call and "back i OUTCOME TIME RSS
# EXTRA" after it (TIME: Sys.time() as seconds; RSS: VmRSS in kB after
# gc(); EXTRA: what setup's extra_rss() says, in kB, e.g. the workers').
interrupt_child_script <- function(setup, expr, reps) {
  c(
    "args <- commandArgs(trailingOnly = TRUE)",
    "con <- file(args[[1L]], 'w')",
    "say <- function(...) { writeLines(paste(...), con); flush(con) }",
    ".libPaths(c(args[[2L]], .libPaths()))",
    "suppressPackageStartupMessages(library(ghmix, lib.loc = args[[2L]]))",
    "rss <- function() {",
    "  invisible(gc()); invisible(gc())",
    "  s <- grep('^VmRSS:', readLines('/proc/self/status'), value = TRUE)",
    "  as.numeric(gsub('[^0-9]', '', s))",
    "}",
    "extra_rss <- function() 0",
    deparse(setup),
    "say('pid', Sys.getpid(), rss(), extra_rss())",
    sprintf("for (i in seq_len(%d)) {", reps),
    "  say('start', i)",
    "  out <- tryCatch({",
    paste0("    ", deparse(expr)),
    "    'finished'",
    "  }, interrupt = function(e) 'interrupted')",
    "  t_back <- sprintf('%.6f', as.numeric(Sys.time()))",
    "  say('back', i, out, t_back, rss(), extra_rss())",
    "}",
    "say('done')"
  )
}

# Whether process pid runs (not exited, not a zombie).
child_alive <- function(pid) {
  state <- grep("^State:", suppressWarnings(tryCatch(
    readLines(sprintf("/proc/%d/status", pid)), error = function(e) ""
  )), value = TRUE)
  length(state) == 1L && !grepl("zombie", state, fixed = TRUE)
}

# Runs the child, interrupts call i delay[i] seconds after it starts (from
# 0.2 to 0.8 s, so that the signal lands in different phases of the call),
# and returns a data frame of latency (s, from the signal to the return)
# rss and extra (MB) per repetition, with attribute "baseline" (MB before
# the first call).
run_interrupt_child <- function(setup, expr, reps = interrupt_reps,
                                delay = seq(0.2, 0.8, length.out = reps),
                                setup_timeout = 120) {
  dir <- tempfile("ghmix-interrupt-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  script <- file.path(dir, "child.R")
  progress <- file.path(dir, "progress")
  writeLines(interrupt_child_script(setup, expr, reps), script)
  lib <- dirname(system.file(package = "ghmix"))
  rscript <- file.path(R.home("bin"), "Rscript")
  system2(rscript, c(shQuote(script), shQuote(progress), shQuote(lib)),
          stdout = file.path(dir, "out"), stderr = file.path(dir, "err"),
          wait = FALSE)
  lines <- function() {
    if (file.exists(progress)) readLines(progress, warn = FALSE) else
      character()
  }
  pid <- NULL
  gone <- function() {
    !is.null(pid) && !child_alive(pid)
  }
  wait_for <- function(prefix, timeout) {
    t0 <- proc.time()[["elapsed"]]
    repeat {
      hit <- grep(prefix, lines(), value = TRUE, fixed = TRUE)
      if (length(hit)) return(strsplit(hit[[1L]], " ", fixed = TRUE)[[1L]])
      late <- proc.time()[["elapsed"]] - t0 > timeout
      if (late || gone()) {
        err <- file.path(dir, "err")
        stop(sprintf("the child %s before it wrote '%s'%s",
                     if (late) sprintf("took over %g s", timeout) else
                       "exited",
                     prefix, if (file.exists(err)) paste0(": ", paste(
                       utils::tail(readLines(err), 5L), collapse = "\n"))))
      }
      Sys.sleep(0.01)
    }
  }
  head_line <- wait_for("pid ", setup_timeout)
  pid <- as.integer(head_line[[2L]])
  on.exit(tools::pskill(pid, tools::SIGKILL), add = TRUE)
  out <- data.frame(outcome = character(reps), latency = numeric(reps),
                    rss = numeric(reps), extra = numeric(reps),
                    stringsAsFactors = FALSE)
  for (i in seq_len(reps)) {
    wait_for(sprintf("start %d", i), 60)
    Sys.sleep(delay[[i]])
    t_sig <- as.numeric(Sys.time())
    tools::pskill(pid, tools::SIGINT)
    back <- wait_for(sprintf("back %d ", i), 120)
    out$outcome[i] <- back[[3L]]
    out$latency[i] <- as.numeric(back[[4L]]) - t_sig
    out$rss[i] <- as.numeric(back[[5L]]) / 1024
    out$extra[i] <- as.numeric(back[[6L]]) / 1024
  }
  structure(out, baseline = as.numeric(head_line[[3L]]) / 1024)
}

report_interrupts <- function(label, res) {
  n <- nrow(res)
  growth <- res$rss[n] - res$rss[1L]
  cat(sprintf(paste0("\n%s: %d interrupts; seconds to return: median %.3f,",
                     " max %.3f; RSS %.0f MB before, %.0f MB after the",
                     " first, %.0f MB after the last (growth %+.1f MB)\n"),
              label, n, stats::median(res$latency), max(res$latency),
              attr(res, "baseline"), res$rss[1L], res$rss[n], growth))
  if (any(res$extra != 0)) {
    cat(sprintf("  workers' RSS: %.0f MB after the first, %.0f MB after the",
                res$extra[1L], res$extra[n]),
        sprintf("last (growth %+.1f MB)\n", res$extra[n] - res$extra[1L]))
  }
  c(growth, res$extra[n] - res$extra[1L])
}

expect_prompt_interrupts <- function(label, res) {
  growth <- report_interrupts(label, res)
  limit <- interrupt_limit_now()
  cat(sprintf("  limit %.2f s at load %.2f\n", limit, attr(limit, "load")))
  expect_identical(res$outcome, rep("interrupted", nrow(res)),
                   label = paste(label, "outcomes"))
  expect_lt(max(res$latency), limit,
            label = paste(label, "max seconds to return"))
  expect_lt(growth[[1L]], interrupt_rss_limit,
            label = paste(label, "RSS growth (MB)"))
  expect_lt(growth[[2L]], interrupt_rss_limit,
            label = paste(label, "workers' RSS growth (MB)"))
}

# The fits below never end by themselves: tolerances 0 turn the
# convergence rule off (max_iter iterations).  With tolerances 1e-300 a fit
# whose iterates reach an exact fixed point converges: the cluster NIG fit
# did under OpenBLAS, after 24 iterations (in under a second on an idle
# machine), and a late interrupt then came after the call, outside its
# tryCatch, and ended the child ("Execution halted").

test_that("interrupting log_besselK of 1e8 values returns promptly", {
  skip_interrupt_tests(mem_gb = 4)
  res <- run_interrupt_child(
    quote({
      x <- seq(0.01, 50, length.out = 1e8)
    }),
    quote(log_besselK(x, nu = 2.5))
  )
  expect_prompt_interrupts("log_besselK(1e8)", res)
})

test_that("interrupting rgig(1e8) returns promptly", {
  skip_interrupt_tests(mem_gb = 3)
  res <- run_interrupt_child(
    quote(set.seed(1)),
    quote(rgig(1e8, p = -0.5, a = 2, b = 3))
  )
  expect_prompt_interrupts("rgig(1e8)", res)
})

test_that("interrupting a long GH fit returns promptly", {
  skip_interrupt_tests(mem_gb = 2)
  res <- run_interrupt_child(
    quote({
      set.seed(1)
      n <- 200000L
      d <- 4L
      y <- rgig(n, p = 1.5, a = 3, b = 0.4)
      x <- outer(y, seq(-0.5, 0.5, length.out = d)) +
        sqrt(y) * matrix(rnorm(n * d), n, d)
      ctl <- ghmix_control(max_iter = 1000000L, tol = 0, param_tol = 0)
    }),
    quote(fit_gh(x, control = ctl))
  )
  expect_prompt_interrupts("fit_gh(200000 x 4)", res)
})

test_that("interrupting a fit on a 2-worker PSOCK cluster returns promptly", {
  skip_interrupt_tests(mem_gb = 2)
  # (with OpenBLAS loaded, one of its threads can take the SIGINT: the
  # waits of R/cluster.R must not be R_SelectEx()'s, see cluster_wait())
  res <- run_interrupt_child(
    quote({
      set.seed(1)
      n <- 100000L
      d <- 3L
      y <- rgig(n, p = -0.5, a = 1, b = 1)
      x <- outer(y, c(0.3, -0.2, 0.1)) + sqrt(y) * matrix(rnorm(n * d), n, d)
      chunks <- lapply(split(seq_len(n), rep(1:4, length.out = n)),
                       function(i) x[i, , drop = FALSE])
      cl <- parallel::makePSOCKcluster(2L)
      # The workers' resident memory, read here from /proc (they are
      # local), after the fit's cleanup, whose release of the chunks runs
      # gc() on each worker.  parallel::clusterCall() between two
      # interrupts would wait in R_SelectEx() (see above), and would take
      # an answer an interrupt left in a socket for its own (parallel reads
      # no tags).  The pids are asked once, before the first interrupt.
      pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
      extra_rss <- function() {
        sum(vapply(pids, function(pid) {
          s <- readLines(sprintf("/proc/%d/status", pid))
          as.numeric(gsub("[^0-9]", "", grep("^VmRSS:", s, value = TRUE)))
        }, 0))
      }
      ctl <- ghmix_control(max_iter = 1000000L, tol = 0, param_tol = 0)
    }),
    quote(fit_nig(ghmix_data(unname(chunks)), cluster = cl, threads = 1L,
                  control = ctl)),
    setup_timeout = 180
  )
  expect_prompt_interrupts("cluster fit_nig(100000 x 3, 2 workers)", res)
})
