# Throughput of log_besselK() against base R's besselK(), on the points of
# issue 2: 10^6 values with x log-uniform in [1e-3, 1e3] and nu uniform in
# [-50, 50] (fixed seed).  Each timing is the median of `reps` runs, all in
# this one R session, so the ratios compare like with like.
#
#   Rscript bench/bessel.R [n] [reps] [output.md]
#
# defaults: n = 1e6, reps = 5, output bench/results/bessel.md (when run
# from the repository root; "-" to skip writing).  Needs the installed
# package.

suppressPackageStartupMessages(library(ghmix))

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.numeric(args[[1]]) else 1e6
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 5L
out <- if (length(args) >= 3) args[[3]] else file.path("bench", "results", "bessel.md")

set.seed(20240601)
x <- 10^runif(n, -3, 3)
nu <- runif(n, -50, 50)

time_median <- function(f) {
  f() # warm up (and page in)
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    system.time(f())[["elapsed"]]
  }, numeric(1))
  stats::median(t)
}

info <- ghmix_info()
max_threads <- info$max_threads
cases <- list(
  list("base R besselK(x, nu, expon.scaled = TRUE)",
       function() besselK(x, nu, expon.scaled = TRUE), 1L),
  list("log_besselK(x, nu), threads = 1",
       function() log_besselK(x, nu, threads = 1), 1L),
  list("log_besselK(x, nu, gradient = TRUE), threads = 1",
       function() log_besselK(x, nu, gradient = TRUE, threads = 1), 1L),
  list("log_besselK(x, nu), threads = 2",
       function() log_besselK(x, nu, threads = 2), 2L),
  list("log_besselK(x, nu, gradient = TRUE), threads = 2",
       function() log_besselK(x, nu, gradient = TRUE, threads = 2), 2L)
)

res <- do.call(rbind, lapply(cases, function(cs) {
  t <- time_median(cs[[2]])
  data.frame(call = cs[[1]], threads = cs[[3]], seconds = t,
             evals_per_s = n / t, stringsAsFactors = FALSE)
}))
res$vs_base_R <- res$evals_per_s / res$evals_per_s[1]

# the ratios the issue sets bars on
value1 <- res$seconds[2]
grad1 <- res$seconds[3]
value2 <- res$seconds[4]
checks <- data.frame(
  check = c("value, 1 thread: throughput vs base R (>= 1)",
            "gradient / value cost, 1 thread (<= 2.5)",
            "value, 2 threads vs 1 thread throughput (>= 1.8)"),
  ratio = c(res$evals_per_s[2] / res$evals_per_s[1], grad1 / value1,
            value1 / value2),
  stringsAsFactors = FALSE
)
checks$met <- c(checks$ratio[1] >= 1, checks$ratio[2] <= 2.5,
                checks$ratio[3] >= 1.8)

fmt_rate <- function(r) sprintf("%.2f M/s", r / 1e6)
md <- c(
  sprintf("# log_besselK() throughput"),
  "",
  sprintf("%s; R %s; ghmix %s; %s; %d cores; OpenMP %s, at most %d threads; %g points (x log-uniform in [1e-3, 1e3], nu uniform in [-50, 50], set.seed(20240601)); median of %d runs.",
          format(Sys.time(), "%Y-%m-%d %H:%M"), getRversion(),
          utils::packageVersion("ghmix"),
          paste(Sys.info()[c("sysname", "machine")], collapse = " "),
          parallel::detectCores(), if (isTRUE(info$openmp)) "yes" else "no",
          max_threads, n, reps),
  "",
  "| call | threads | median s | evaluations/s | vs base R |",
  "|---|---:|---:|---:|---:|",
  sprintf("| `%s` | %d | %.3f | %s | %.2fx |", res$call, res$threads,
          res$seconds, fmt_rate(res$evals_per_s), res$vs_base_R),
  "",
  "| check (issue 2) | ratio | met |",
  "|---|---:|:---:|",
  sprintf("| %s | %.2f | %s |", checks$check, checks$ratio,
          ifelse(checks$met, "yes", "no"))
)
if (max_threads < 2) {
  md <- c(md, "", "Note: at most 1 thread here; the 2-thread rows ran on 1 thread.")
}
cat(md, sep = "\n")
cat("\n")
if (!identical(out, "-")) {
  dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
  writeLines(md, out)
  cat("wrote", out, "\n")
}
