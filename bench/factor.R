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
# 3. the marginal cost of an EM iteration of case 1's r = 10 fit (below).
#
#   Rscript bench/factor.R
#   GHMIX_BENCH_FACTOR_CASES=3 \
#     GHMIX_BENCH_LIBS=main=/lib/main,new=/lib/new Rscript bench/factor.R
#
# GHMIX_BENCH_FACTOR_CASES: the cases to run (default "1,2,3").
# GHMIX_BENCH_QUICK=1 runs one fit per case; GHMIX_BENCH_FACTOR_MAX_ITER
# caps the EM iterations of case 2 (default: the fit's own 1000), for
# E-steps too slow to converge in the time at hand;
# GHMIX_BENCH_FACTOR_SAVE=file saves case 2's parameters, log-likelihood
# and trace there (saveRDS()).  Appends a section to
# bench/results/factor.md.  The factor fits call factor_estep(): whatever
# E-step the package has (the plain-R reference, or the compiled one).

source(file.path("bench", "common.R"))

cases <- as.integer(strsplit(Sys.getenv("GHMIX_BENCH_FACTOR_CASES", "1,2,3"),
                             ",", fixed = TRUE)[[1]])
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
tab1 <- tab2 <- tab3 <- NULL
if (1L %in% cases) {
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
}

# Case 2 -----------------------------------------------------------------------
max_iter <- as.integer(Sys.getenv("GHMIX_BENCH_FACTOR_MAX_ITER", "1000"))
if (2L %in% cases) {
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
  rm(x)
}

# Case 3 -----------------------------------------------------------------------
# The marginal cost of an EM iteration of the d = 468, r = 10 fit (case 1's
# data and start, plain EM): (time of a 30-iteration fit - time of a
# 10-iteration fit) / 20, whole calls, wall clock and CPU (user plus system,
# all threads), with the E- and M-step timers' share (fit$timings), on 1
# and 2 threads.  GHMIX_BENCH_LIBS="name=path,name=path" times several
# builds in the same run (each in its own Rscript, alternated pair by pair;
# default: the build this session loaded); GHMIX_BENCH_FACTOR_REPS pairs
# per build and thread count (default 7, quick 3).
marginal_libs <- function() {
  spec <- Sys.getenv("GHMIX_BENCH_LIBS")
  if (!nzchar(spec)) {
    return(c(installed = dirname(find.package("ghmix"))))
  }
  parts <- strsplit(strsplit(spec, ",", fixed = TRUE)[[1]], "=", fixed = TRUE)
  stats::setNames(vapply(parts, `[`, "", 2L), vapply(parts, `[`, "", 1L))
}

# One pair (10 then 30 iterations) in a fresh Rscript on the build at lib:
# c(wall10, wall30, cpu10, cpu30, em10, em30), em the E- plus M-step timers.
marginal_pair <- function(lib, x_file, threads) {
  code <- c(
    "suppressPackageStartupMessages(library(ghmix))",
    sprintf("x <- readRDS('%s')", x_file),
    "fit <- function(k) {",
    "  ctl <- ghmix_control(max_iter = k, accelerate = FALSE)",
    "  t0 <- proc.time()",
    sprintf(paste0("  f <- suppressWarnings(fit_gh(x, start = list(p = -0.5, ",
                   "a = 1, b = 1), control = ctl, threads = %dL, ",
                   "factors = 10L))"), threads),
    "  t <- proc.time() - t0",
    "  stopifnot(f$iterations == k)",
    "  c(t[['elapsed']], t[['user.self']] + t[['sys.self']],",
    "    f$timings[['estep']] + f$timings[['mstep']])",
    "}",
    "invisible(fit(3))",
    "a <- fit(10); b <- fit(30)",
    "cat(a[1], b[1], a[2], b[2], a[3], b[3], '\\n')"
  )
  script <- tempfile(fileext = ".R")
  writeLines(code, script)
  on.exit(unlink(script))
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script),
                 stdout = TRUE, env = paste0("R_LIBS=", lib))
  as.numeric(strsplit(trimws(utils::tail(out, 1L)), " ")[[1]])
}

if (3L %in% cases) {
  libs <- marginal_libs()
  reps3 <- as.integer(Sys.getenv("GHMIX_BENCH_FACTOR_REPS",
                                 if (bench_quick) "3" else "7"))
  x_file <- tempfile(fileext = ".rds")
  saveRDS(factor_panel(2552, 468, 10, 1), x_file, compress = FALSE)
  grid3 <- expand.grid(lib = names(libs), threads = 1:2,
                       stringsAsFactors = FALSE)
  load3 <- readLines("/proc/loadavg", warn = FALSE)
  pairs <- lapply(seq_len(reps3), function(i) {
    lapply(seq_len(nrow(grid3)), function(k) {
      marginal_pair(libs[[grid3$lib[k]]], x_file, grid3$threads[k])
    })
  })
  unlink(x_file)
  tab3 <- do.call(rbind, lapply(seq_len(nrow(grid3)), function(k) {
    m <- vapply(pairs, function(p) p[[k]], numeric(6))
    ms <- function(a, b) round(1000 * stats::median((m[b, ] - m[a, ]) / 20), 2)
    data.frame(build = grid3$lib[k], threads = grid3$threads[k],
               pairs = reps3, wall_ms_per_iteration = ms(1, 2),
               cpu_ms_per_iteration = ms(3, 4), em_timers_ms = ms(5, 6),
               wall_10_iterations_s = round(stats::median(m[1, ]), 3))
  }))
  print(tab3)
}

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
          "memory beyond the data (VmHWM less VmRSS once the data exist).",
          "Case 3: the marginal cost of an EM iteration of case 1's",
          "10-factor fit, (30 iterations - 10) / 20, whole calls, wall",
          "and CPU time, medians over pairs, by build and threads."),
    ""
  ), md_file)
}
settings <- c(
  sprintf("case 1: %d fit%s per model", if (bench_quick) 1L else 3L,
          if (bench_quick) "" else "s"),
  sprintf("case 2: max_iter = %d", max_iter),
  if (3L %in% cases) {
    sprintf("case 3: %d pairs per build and thread count (%s)", reps3,
            paste(names(libs), libs, sep = " = ", collapse = ", "))
  }
)[c(1L, 2L, 3L) %in% cases]
tables <- lapply(Filter(Negate(is.null), list(tab1, tab2, tab3)),
                 function(tab) c(md_table(tab), ""))
cat(c("", bench_header(sprintf("E-step: %s; %s", estep,
                               paste(settings, collapse = "; "))), "",
      unlist(tables)),
    file = md_file, sep = "\n", append = TRUE)
