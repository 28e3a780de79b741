# Factor-analytic GH fits (fit_gh(factors = r), issue 15), 2 threads:
#
# 1. n = 2552, d = 468 (a simulated panel of normix's shape, 10 factors):
#    ms per EM iteration (one E-step and one M-step, 5 plain EM iterations
#    from a fixed start, median of 3 fits) of the fit with r = 10 factors
#    against the full-Sigma fit in the same run;
# 2. n = 1e4, d = 2000, r = 20: a GH fit to convergence (NIG stage
#    included), its elapsed and CPU time (user plus system, both threads:
#    the machine may be shared), its GH iterations, the E-steps of both
#    stages, and its peak memory (the process's high-water mark less its
#    resident size once the data exist).
#
#   Rscript bench/factor.R
#
# GHMIX_BENCH_QUICK=1 runs one fit per case; GHMIX_BENCH_FACTOR_MAX_ITER
# caps the EM iterations of case 2 (default: the fit's own 1000), for
# E-steps too slow to converge in the time at hand;
# GHMIX_BENCH_FACTOR_SAVE=file saves case 2's parameters, log-likelihood
# and trace there (saveRDS()).  Appends a section to
# bench/results/factor.md.  The factor fits call factor_estep(): whatever
# E-step the package has (the plain-R reference, or the compiled one).

source(file.path("bench", "common.R"))

threads <- 2L
factor_panel <- function(n, d, r, seed) {
  set.seed(seed)
  f <- matrix(stats::rnorm(d * r), d, r) * 0.01
  dd <- stats::runif(d, 0.5, 1.5) * 1e-4
  x <- rgh(n, stats::rnorm(d) * 1e-3, stats::rnorm(d) * 1e-3,
           factor_cov(f, dd), p = 1.5, a = 3, b = 0.4)
  colnames(x) <- sprintf("s%04d", seq_len(d))
  x
}

# KiB of the process: VmRSS (now) or VmHWM (its high-water mark).
proc_kib <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"),
               value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}

per_iteration <- function(x, start, factors) {
  ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
  reps <- if (bench_quick) 1L else 3L
  ms <- vapply(seq_len(reps), function(i) {
    f <- suppressWarnings(fit_gh(x, start = start, control = ctl,
                                 threads = threads, factors = factors))
    1000 * (f$timings[["estep"]] + f$timings[["mstep"]]) /
      f$timings[["esteps"]]
  }, numeric(1))
  stats::median(ms)
}

# Case 1 -----------------------------------------------------------------------
x <- factor_panel(2552, 468, 10, 1)
mix <- list(p = -0.5, a = 1, b = 1)
full_start <- c(list(mu = colMeans(x), gamma = rep(0, ncol(x)),
                     sigma = stats::cov(x)), mix)
tab1 <- data.frame(
  model = c("full Sigma", "factors = 10"),
  n = nrow(x), d = ncol(x), threads = threads,
  ms_per_iteration = round(c(per_iteration(x, full_start, NULL),
                             per_iteration(x, mix, 10L)), 1)
)
print(tab1)
rm(x)

# Case 2 -----------------------------------------------------------------------
max_iter <- as.integer(Sys.getenv("GHMIX_BENCH_FACTOR_MAX_ITER", "1000"))
x <- factor_panel(1e4, 2000, 20, 2)
invisible(gc())
base_kib <- proc_kib("VmRSS")
esteps <- new.env()
esteps$n <- 0L
invisible(suppressMessages(
  trace("factor_estep", quote(esteps$n <- esteps$n + 1L), print = FALSE,
        where = asNamespace("ghmix"))
))
t0 <- proc.time()
fit <- suppressWarnings(fit_gh(x, factors = 20L, threads = threads,
                               control = ghmix_control(max_iter = max_iter)))
t1 <- proc.time() - t0
invisible(suppressMessages(
  untrace("factor_estep", where = asNamespace("ghmix"))
))
save_to <- Sys.getenv("GHMIX_BENCH_FACTOR_SAVE")
if (nzchar(save_to)) saveRDS(fit[c("parameters", "loglik", "trace")], save_to)
secs <- t1[["elapsed"]]
tab2 <- data.frame(
  n = nrow(x), d = ncol(x), factors = 20L, threads = threads,
  seconds = round(secs, 1),
  cpu_seconds = round(t1[["user.self"]] + t1[["sys.self"]], 1),
  iterations = fit$iterations, esteps = esteps$n,
  converged = fit$converged,
  ms_per_iteration = round(1000 * (fit$timings[["estep"]] +
                                     fit$timings[["mstep"]]) /
                             fit$timings[["esteps"]], 1),
  peak_mb_beyond_data = round((proc_kib("VmHWM") - base_kib) / 1024),
  data_mb = round(as.numeric(object.size(x)) / 2^20)
)
print(tab2)

stand_in <- deparse(body(ghmix:::factor_estep))
estep <- if (any(grepl("factor_estep_r", stand_in, fixed = TRUE))) {
  "the plain-R stand-in factor_estep_r()"
} else {
  "the compiled factor_estep()"
}
dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
md_file <- file.path(bench_dir, "factor.md")
if (!file.exists(md_file)) {
  writeLines(c(
    "# Factor-analytic GH fits (bench/factor.R)", "",
    paste("Case 1: ms per EM iteration (E-step plus M-step; 5 plain EM",
          "iterations from a fixed start, median of 3 fits), full Sigma",
          "against 10 factors, same run. Case 2: a GH fit with 20 factors",
          "to convergence (its NIG stage included), wall and CPU time,",
          "its GH iterations, the E-steps of both stages, and peak",
          "memory beyond the data (VmHWM less VmRSS once the data exist)."),
    ""
  ), md_file)
}
settings <- sprintf("%d fit%s per case 1 model, case 2 max_iter = %d",
                    if (bench_quick) 1L else 3L,
                    if (bench_quick) "" else "s", max_iter)
cat(c(bench_header(sprintf("E-step: %s; %s", estep, settings)), "",
      md_table(tab1), "", md_table(tab2), ""),
    file = md_file, sep = "\n", append = TRUE)
