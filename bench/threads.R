# Threads never slower than one thread (issue 29, item 1): whole calls of
# representative fits timed with 1 and 2 threads, on an idle machine and
# with a competing load that this script starts and stops itself (k shell
# processes that keep a core busy each, k = 1 and 2), for this build and,
# in the same run, for another build (e.g. main) when its library is given.
#
#   Rscript bench/threads.R [library of another build] [reps]
#
# ghmix is the one on R_LIBS (this build); the other build's library is the
# first argument (e.g. /work/lib-t29-main: main installed with
# `R CMD INSTALL -l`), "" or absent for none.  Every timing runs in a fresh
# Rscript (two per build and load, in the order A B B A, the library on its
# R_LIBS), so neither build's threads are ever in the other's process;
# within each, every case is timed `reps` times (default 3, after a warm-up
# call) with 1 and with 2 threads alternately, and the table gives the
# medians over both Rscripts and the same-run ratio
# t(2 threads) / t(1 thread): 1 or less means two threads are never
# slower.  The load average at the start of each block is in the table:
# "idle" blocks are idle only when nothing else runs on the machine.
# GHMIX_BENCH_QUICK=1 leaves out the large fit.  Output:
# bench/results/threads.md and threads.csv.
#
# Cases: the G = 3 NIG mixture of bench/mixghd.R's simulated rows (n = 5000,
# d = 5), a G = 2 GH mixture of `faithful` (272 x 2: a small problem), the
# NIG fit of the EuStockMarkets log-returns (1859 x 4), log_besselK() on
# 1e6 values over the E-step's usual range, and a large NIG fit (n = 1e5,
# d = 10, at most 20 EM iterations).

source(file.path("bench", "common.R"))

args <- commandArgs(trailingOnly = TRUE)

# ---- the child: times every case on the ghmix of its R_LIBS ----
if (length(args) && args[[1L]] == "child") {
  reps <- as.integer(args[[3L]])
  x_mix <- mixture_bench_rows()
  x_faithful <- as.matrix(faithful)
  r_eu <- diff(log(EuStockMarkets))
  set.seed(2)
  bx <- exp(stats::runif(1e6, log(0.05), log(50)))
  bnu <- stats::runif(1e6, -3, 3)
  cases <- list(
    "NIG mixture G = 3, n = 5000, d = 5" = function() {
      fit_nig(x_mix, components = 3L)
    },
    "GH mixture G = 2, faithful (272 x 2)" = function() {
      fit_gh(x_faithful, components = 2L)
    },
    "NIG, EuStockMarkets (1859 x 4)" = function() fit_nig(r_eu),
    "log_besselK, 1e6 values" = function() log_besselK(bx, bnu)
  )
  if (!bench_quick) {
    x_large <- simulate_mixture(1e5, 10, -0.5, 1, 1, 1)
    cases[["NIG, n = 1e5, d = 10 (20 iterations)"]] <- function() {
      fit_nig(x_large, control = ghmix_control(max_iter = 20L))
    }
  }
  one_time <- function(f, threads) {
    ghmix_threads(threads)
    set.seed(3)
    gc(FALSE)
    system.time(suppressWarnings(f()))[["elapsed"]]
  }
  rows <- lapply(names(cases), function(name) {
    f <- cases[[name]]
    one_time(f, 2L) # warm-up
    t1 <- t2 <- numeric(reps)
    for (i in seq_len(reps)) {
      t1[[i]] <- one_time(f, 1L)
      t2[[i]] <- one_time(f, 2L)
    }
    data.frame(case = name, rep = seq_len(reps), t1 = t1, t2 = t2,
               stringsAsFactors = FALSE)
  })
  saveRDS(do.call(rbind, rows), args[[2L]])
  quit(save = "no")
}

# ---- the parent: one child per build and load ----
other_lib <- if (length(args)) args[[1L]] else ""
reps <- if (length(args) > 1L) as.integer(args[[2L]]) else 3L
this_lib <- dirname(find.package("ghmix"))
builds <- c(this = this_lib)
if (nzchar(other_lib)) builds <- c(builds, other = other_lib)

load_average <- function() {
  tryCatch(
    as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1L]][[1L]]),
    error = function(e) NA_real_
  )
}

run_child <- function(lib) {
  out <- tempfile(fileext = ".rds")
  on.exit(unlink(out))
  # what users get: no OMP_WAIT_POLICY (.ci/run sets one), no
  # GHMIX_NUM_THREADS
  rc <- system2("env", c(
    "-u", "OMP_WAIT_POLICY", "-u", "GHMIX_NUM_THREADS",
    paste0("R_LIBS=", lib), file.path(R.home("bin"), "Rscript"),
    "--vanilla", file.path("bench", "threads.R"), "child", out, reps
  ))
  if (rc != 0L || !file.exists(out)) stop("the child for ", lib, " failed")
  readRDS(out)
}

header <- bench_header("Threads under a competing load (bench/threads.R)")
# each load's block: the builds in the order A B B A (A alone without
# another build), so that a drift of the machine's other work falls on both
raw <- list()
for (load in 0:2) {
  la <- load_average()
  pids <- busy_load_start(load)
  order <- c(names(builds), rev(names(builds)))
  blocks <- tryCatch(
    lapply(order, function(b) {
      cbind(build = b, load = load, load_avg = la, run_child(builds[[b]]))
    }),
    finally = busy_load_stop(pids)
  )
  raw <- c(raw, blocks)
}
raw <- do.call(rbind, raw)
cells <- unique(raw[c("case", "build", "load")])
tab <- do.call(rbind, lapply(seq_len(nrow(cells)), function(i) {
  cell <- raw[raw$case == cells$case[[i]] & raw$build == cells$build[[i]] &
                raw$load == cells$load[[i]], ]
  data.frame(cells[i, ], load_avg = cell$load_avg[[1L]],
             calls = nrow(cell), t1 = stats::median(cell$t1),
             t2 = stats::median(cell$t2), stringsAsFactors = FALSE)
}))
tab$ratio <- tab$t2 / tab$t1
dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(tab, file.path(bench_dir, "threads.csv"), row.names = FALSE)

show <- data.frame(
  case = tab$case, build = tab$build, calls = tab$calls,
  `busy loops` = tab$load, `load avg` = tab$load_avg,
  `1 thread (s)` = tab$t1, `2 threads (s)` = tab$t2,
  `2 / 1` = tab$ratio, check.names = FALSE, stringsAsFactors = FALSE
)
show <- show[order(show$case, show$`busy loops`, show$build), ]
lines <- c(
  header, "",
  sprintf(paste(
    "Medians of `calls` whole calls per cell (%d per Rscript, two Rscripts",
    "per build and load, the builds in the order A B B A), 1 and 2 threads",
    "alternately; `this` = %s%s.  `busy loops`: shell",
    "processes keeping a core busy each, started and stopped by the script;",
    "`load avg`: the 1-minute load average before the block (other work on",
    "the machine included)."
  ), reps, this_lib,
  if (nzchar(other_lib)) sprintf(", `other` = %s", other_lib) else ""),
  "", md_table(show, digits = 3L)
)
write_md(lines, "threads")
