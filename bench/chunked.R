# Benchmark of chunked fits: out of core on one machine, and on a local
# cluster of 2 PSOCK workers (the same code path as workers on other hosts).
#
#   Rscript bench/chunked.R                       # 2e7 x 10 (1.6 GB) in 20
#                                                 # .rds files; from the
#                                                 # repository root, with
#                                                 # ghmix installed (R_LIBS)
#   GHMIX_BENCH_N=2e6 Rscript bench/chunked.R     # a smaller data set
#   GHMIX_BENCH_QUICK=1 Rscript bench/chunked.R   # the same as N=2e6
#
# Other settings: GHMIX_BENCH_D (10), GHMIX_BENCH_CHUNKS (20),
# GHMIX_BENCH_MAX_ITER (EM iterations per fit, 4), GHMIX_BENCH_DIR (where the
# chunk files go; default a temporary directory, removed at the end).
#
# Simulates NIG data chunk by chunk into uncompressed .rds files (no process
# holds the whole data), then fits NIG and GH with ghmix_data(files):
#   stream   out of core in one R process (2 threads), reading every chunk
#            at each E-step;
#   cluster  2 local PSOCK workers (1 thread each) that read their 10 chunks
#            once and keep them; only parameters and statistics travel;
#   memory   (only for n <= 5e6) the whole matrix in one process, for
#            reference.
# Each fit runs in a fresh Rscript, so that the peak resident memory
# (VmHWM in /proc/<pid>/status) of the master and of each worker is that of
# the fit alone. Fits are capped at GHMIX_BENCH_MAX_ITER iterations (they do
# not converge; the figures are per iteration). GH starts from the true
# parameters (no NIG start fit). Writes bench/results/chunked.md.

peak_mb <- function(pid = "self") {
  s <- readLines(file.path("/proc", pid, "status"))
  kb <- sub("^VmHWM:\\s+([0-9]+) kB$", "\\1", grep("^VmHWM:", s, value = TRUE))
  as.numeric(kb) / 1024
}

env_num <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.numeric(v) else default
}

truth <- function(d) {
  set.seed(42)
  a <- matrix(stats::rnorm(d * d), d, d)
  list(mu = stats::rnorm(d) / 10, gamma = stats::rnorm(d) / 5,
       sigma = crossprod(a) / d + diag(d), p = -0.5, a = 1.5, b = 1.5)
}

# Child: write the chunk files.
generate <- function(dir, n, d, k) {
  suppressPackageStartupMessages(library(ghmix))
  par <- truth(d)
  saveRDS(par, file.path(dir, "truth.rds"))
  rows <- parallel::splitIndices(n, k)
  r <- chol(par$sigma)
  for (i in seq_len(k)) {
    set.seed(1000 + i)
    m <- length(rows[[i]])
    y <- rgig(m, par$p, par$a, par$b)
    x <- (matrix(stats::rnorm(m * d), m, d) %*% r) * sqrt(y)
    x <- x + outer(y, par$gamma) + rep(par$mu, each = m)
    colnames(x) <- sprintf("x%02d", seq_len(d))
    saveRDS(x, file.path(dir, sprintf("chunk%03d.rds", i)), compress = FALSE)
    rm(x, y)
  }
}

# Child: one fit; saves its figures to out.
fit_one <- function(dir, mode, family, max_iter, out) {
  suppressPackageStartupMessages(library(ghmix))
  files <- sort(list.files(dir, "^chunk.*\\.rds$", full.names = TRUE))
  par <- readRDS(file.path(dir, "truth.rds"))
  fitter <- if (family == "nig") fit_nig else fit_gh
  start <- if (family == "gh") par else NULL
  ctl <- ghmix_control(max_iter = max_iter)
  cl <- NULL
  threads <- 2L
  x <- ghmix_data(files)
  if (mode == "cluster") {
    cl <- parallel::makePSOCKcluster(2L)
    on.exit(parallel::stopCluster(cl))
    threads <- 1L
  } else if (mode == "memory") {
    x <- do.call(rbind, lapply(files, readRDS))
  }
  t0 <- proc.time()[[3]]
  fit <- suppressWarnings(fitter(x, start = start, control = ctl,
                                 threads = threads, cluster = cl))
  wall <- proc.time()[[3]] - t0
  workers <- if (is.null(cl)) numeric() else
    unlist(parallel::clusterCall(cl, peak_mb))
  res <- list(
    mode = mode, family = family, wall = wall, iterations = fit$iterations,
    timings = fit$timings, distributed = fit$distributed,
    loglik = fit$loglik, master_mb = peak_mb(), worker_mb = workers,
    threads = threads
  )
  saveRDS(res, out)
}

child <- function(args) {
  switch(args[1L],
    "--generate" = generate(args[2L], as.numeric(args[3L]),
                            as.integer(args[4L]), as.integer(args[5L])),
    "--fit" = fit_one(args[2L], args[3L], args[4L], as.integer(args[5L]),
                      args[6L])
  )
}

rscript <- function(args) {
  bin <- file.path(R.home("bin"), "Rscript")
  rc <- system2(bin, c("bench/chunked.R", args))
  if (!identical(rc, 0L)) stop("child failed: ", paste(args, collapse = " "))
}

row_of <- function(r) {
  tm <- r$timings
  dist <- r$distributed
  iters <- max(1, r$iterations)
  esteps <- tm[["esteps"]]
  per_iter <- (tm[["estep"]] + tm[["mstep"]]) / iters
  work <- if (is.null(dist)) tm[["estep"]] else dist$worker_time
  bytes <- if (is.null(dist)) c(0, 0) else dist$bytes_per_estep * esteps / iters
  data.frame(
    mode = r$mode, family = toupper(r$family),
    workers = if (r$mode == "cluster") sprintf("2 x %d thr", r$threads) else
      sprintf("1 x %d thr", r$threads),
    iterations = r$iterations, esteps = esteps,
    setup_s = round(r$wall - tm[["estep"]] - tm[["mstep"]], 2),
    s_per_iter = round(per_iter, 3),
    s_per_estep = round(tm[["estep"]] / esteps, 3),
    worker_s_per_estep = round(work / esteps, 3),
    comm_s_per_estep = round((tm[["estep"]] - work) / esteps, 3),
    master_peak_mb = round(r$master_mb),
    worker_peak_mb = if (length(r$worker_mb) == 0L) "-" else
      paste(round(r$worker_mb), collapse = ", "),
    kb_sent_per_iter = round(bytes[1L] / 1024, 1),
    kb_recv_per_iter = round(bytes[2L] / 1024, 1),
    loglik = format(r$loglik, digits = 12),
    stringsAsFactors = FALSE
  )
}

main <- function() {
  quick <- nzchar(Sys.getenv("GHMIX_BENCH_QUICK"))
  n <- env_num("GHMIX_BENCH_N", if (quick) 2e6 else 2e7)
  d <- as.integer(env_num("GHMIX_BENCH_D", 10))
  k <- as.integer(env_num("GHMIX_BENCH_CHUNKS", 20))
  max_iter <- as.integer(env_num("GHMIX_BENCH_MAX_ITER", 4))
  dir <- Sys.getenv("GHMIX_BENCH_DIR", "")
  if (!nzchar(dir)) {
    dir <- tempfile("ghmix-chunks-")
    on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  }
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  load0 <- if (file.exists("/proc/loadavg")) {
    paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")
  } else {
    "unknown"
  }
  t_gen <- system.time(
    if (!file.exists(file.path(dir, "truth.rds"))) {
      rscript(c("--generate", dir, format(n, scientific = FALSE), d, k))
    }
  )[["elapsed"]]
  size <- sum(file.size(list.files(dir, "^chunk", full.names = TRUE)))
  modes <- c(if (n <= 5e6) "memory", "stream", "cluster")
  rows <- list()
  for (family in c("nig", "gh")) {
    for (mode in modes) {
      out <- tempfile(fileext = ".rds")
      message(sprintf("%s %s ...", mode, family))
      rscript(c("--fit", dir, mode, family, max_iter, out))
      rows[[length(rows) + 1L]] <- row_of(readRDS(out))
      unlink(out)
    }
  }
  tab <- do.call(rbind, rows)
  print(tab, row.names = FALSE)
  write_report(tab, n, d, k, size, t_gen, max_iter, load0)
}

write_report <- function(tab, n, d, k, size, t_gen, max_iter, load0) {
  dir.create(file.path("bench", "results"), showWarnings = FALSE)
  path <- file.path("bench", "results", "chunked.md")
  info <- ghmix::ghmix_info()
  md <- c(
    "# Chunked and distributed fits (bench/chunked.R)",
    "",
    sprintf(paste(
      "Data: %s x %d simulated NIG rows in %d uncompressed .rds files",
      "(%.2f GB on disk; written in %.0f s). Fits capped at %d EM",
      "iteration%s (SQUAREM cycles, about 3 E-steps each); GH starts from",
      "the true parameters. Machine: %d processors; %s; R %s; load",
      "average %s at the start."
    ), format(n, big.mark = ",", scientific = FALSE), d, k, size / 1e9,
    t_gen, max_iter, if (max_iter == 1L) "" else "s",
    parallel::detectCores(), Sys.info()[["sysname"]], getRversion(), load0),
    "",
    paste(
      "Columns: `setup_s` reading and summarising the chunks before the",
      "first iteration; `s_per_iter` E- and M-steps per iteration;",
      "`worker_s_per_estep` computing time of the slowest worker (out of",
      "core: of this process) per E-step; `comm_s_per_estep` the rest of the",
      "E-step (communication, or reading the chunks out of core);",
      "`*_peak_mb` peak resident memory (VmHWM) of the master and of each",
      "worker; `kb_*_per_iter` bytes crossing the network per iteration",
      "after the setup."
    ),
    "",
    md_table(tab),
    "",
    sprintf(paste("Command: `GHMIX_BENCH_N=%s GHMIX_BENCH_MAX_ITER=%d",
                  "Rscript bench/chunked.R`"),
            format(n, scientific = FALSE), max_iter),
    sprintf("Threads available: %d (OpenMP %s).", info$max_threads,
            if (isTRUE(info$openmp)) "on" else "off")
  )
  writeLines(md, path)
  message("wrote ", path)
}

md_table <- function(tab) {
  head <- paste0("| ", paste(names(tab), collapse = " | "), " |")
  rule <- paste0("|", paste(rep("---", ncol(tab)), collapse = "|"), "|")
  body <- apply(tab, 1L, function(r) {
    paste0("| ", paste(r, collapse = " | "), " |")
  })
  c(head, rule, body)
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) > 0L) child(args) else main()
