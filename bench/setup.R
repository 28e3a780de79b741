# The fixed cost of a fit against its EM (issue 29, item 4): whole calls,
# wall clock, medians, for one or more builds of ghmix and ghyp's
# fit.NIGmv() in the same run.
#
#   Rscript bench/setup.R                       # the ghmix that R finds
#   GHMIX_SETUP_LIBS="main=/work/lib-main,new=/work/lib-new" \
#     Rscript bench/setup.R [out.md]             # builds side by side
#   GHMIX_SETUP_CALLGRIND=1 ...                  # also instructions counted
#                                                # by valgrind (callgrind)
#
# Each build (and ghyp) runs in its own R process, the processes taking
# turns (GHMIX_SETUP_ROUNDS rounds, default 3), so that a change of the
# machine's load meets all of them; each process times every case after a
# warm-up call.  Cases:
#   eu        fit_nig() of the EuStockMarkets log-returns (n = 1859, d = 4)
#   eu_it1    the same with max_iter = 1, and eu_it11 with max_iter = 11
#             (tolerances 0: exactly that many iterations, unconverged)
#   big_it1   n = 1e5, d = 10 simulated NIG, max_iter = 1; big_it11: 11
#   ghyp      ghyp::fit.NIGmv() of the EuStockMarkets log-returns
# and, per build, the marginal EM iteration (it11 - it1) / 10 and the fixed
# cost it1 - marginal, also in EM iterations.  Wall clock and CPU time
# (user + system of the process) are both reported: on a loaded machine the
# CPU time is the steadier, on an idle one the wall clock is what a user
# waits for.  GHMIX_SETUP_THREADS sets ghmix's threads (default 2).
# ghyp is found on .libPaths() with GHMIX_PEERS_LIB (default
# /work/peers/R, else $GHMIX_PEERS_DIR/R) in front.
# With GHMIX_SETUP_CALLGRIND=1, the instructions of one EuStockMarkets fit
# (whole and with max_iter = 1; 1 thread) per build, as valgrind's callgrind
# counts them in a process that fits 10 times less one that fits once
# (the machine's load does not change them; about 5 minutes per build).

args <- commandArgs(trailingOnly = TRUE)

setup_cases <- function(quick) {
  list(
    eu = list(data = "eu", max_iter = NULL, reps = if (quick) 5L else 21L),
    eu_it1 = list(data = "eu", max_iter = 1L, reps = if (quick) 5L else 21L),
    eu_it11 = list(data = "eu", max_iter = 11L, reps = if (quick) 5L else 21L),
    big_it1 = list(data = "big", max_iter = 1L, reps = if (quick) 1L else 3L),
    big_it11 = list(data = "big", max_iter = 11L, reps = if (quick) 1L else 3L)
  )
}

# list(wall: the seconds of each of reps calls of f(), cpu: the process's
# CPU seconds per call over them, as one figure: proc.time() counts
# milliseconds)
time_calls <- function(f, reps) {
  f()
  cpu <- 0
  wall <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    c0 <- proc.time()
    t0 <- Sys.time()
    f()
    t1 <- Sys.time()
    c1 <- proc.time() - c0
    cpu <<- cpu + c1[["user.self"]] + c1[["sys.self"]]
    as.numeric(t1) - as.numeric(t0)
  }, 0)
  list(wall = wall, cpu = cpu / reps)
}

# The child: one build's (or ghyp's) timings, as lines "case wall cpu".
setup_child <- function(lib, quick) {
  r <- diff(log(datasets::EuStockMarkets))
  if (lib == "ghyp") {
    peers <- Sys.getenv("GHMIX_PEERS_LIB", "/work/peers/R")
    if (!dir.exists(peers)) {
      peers <- file.path(Sys.getenv("GHMIX_PEERS_DIR", file.path(
        Sys.getenv("HOME"), ".local", "share", "ghmix-peers"
      )), "R")
    }
    .libPaths(c(peers, .libPaths()))
    if (!requireNamespace("ghyp", quietly = TRUE)) return(invisible())
    tm <- time_calls(function() {
      ghyp::fit.NIGmv(r, silent = TRUE)
    }, if (quick) 1L else 5L)
    cat(sprintf("ghyp %.9g %.9g\n", tm$wall, tm$cpu), sep = "")
    return(invisible())
  }
  if (nzchar(lib)) .libPaths(c(lib, .libPaths()))
  source(file.path("bench", "common.R"))
  ghmix_threads(setup_threads())
  big <- NULL
  for (nm in names(setup_cases(quick))) {
    cs <- setup_cases(quick)[[nm]]
    x <- if (cs$data == "eu") {
      r
    } else {
      # (bench/fit.R's n = 1e5 case)
      if (is.null(big)) big <- simulate_mixture(1e5, 10L, -0.5, 1, 1, 1)
      big
    }
    control <- if (is.null(cs$max_iter)) {
      ghmix_control()
    } else {
      # tolerances 0: the fit runs exactly max_iter iterations and ends
      # unconverged, with the convergence warning's checks, at 1 and at 11
      # (bench/fit.R's n = 1e5 fit converges after 6: (it11 - it1) / 10
      # would not be a marginal iteration)
      ghmix_control(max_iter = cs$max_iter, tol = 0, param_tol = 0)
    }
    tm <- time_calls(function() suppressWarnings(fit_nig(x, control = control)),
                     cs$reps)
    cat(sprintf("%s %.9g %.9g\n", nm, tm$wall, tm$cpu), sep = "")
  }
}

# GHMIX_SETUP_THREADS, default 2.
setup_threads <- function() {
  as.integer(Sys.getenv("GHMIX_SETUP_THREADS", "2"))
}

# The parent: rounds of children, the table.
setup_libs <- function() {
  spec <- Sys.getenv("GHMIX_SETUP_LIBS")
  if (!nzchar(spec)) {
    return(c(ghmix = ""))
  }
  parts <- strsplit(strsplit(spec, ",", fixed = TRUE)[[1L]], "=", fixed = TRUE)
  stats::setNames(vapply(parts, `[[`, "", 2L), vapply(parts, `[[`, "", 1L))
}

run_child <- function(lib, quick) {
  script <- file.path("bench", "setup.R")
  env <- c(if (quick) "GHMIX_BENCH_QUICK=1",
           sprintf("GHMIX_SETUP_CHILD=%s", shQuote(lib)))
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE,
                 env = env)
  if (!length(out)) {
    return(NULL)
  }
  f <- strsplit(out, " ", fixed = TRUE)
  data.frame(case = vapply(f, `[[`, "", 1L),
             wall = as.numeric(vapply(f, `[[`, "", 2L)),
             cpu = as.numeric(vapply(f, `[[`, "", 3L)))
}

setup_parent <- function(out_md, quick) {
  libs <- setup_libs()
  rounds <- as.integer(Sys.getenv("GHMIX_SETUP_ROUNDS", "3"))
  load_start <- readLines("/proc/loadavg")
  res <- NULL
  for (k in seq_len(rounds)) {
    for (nm in c(names(libs), "ghyp")) {
      lib <- if (nm == "ghyp") "ghyp" else libs[[nm]]
      one <- run_child(lib, quick)
      if (!is.null(one)) res <- rbind(res, cbind(build = nm, round = k, one))
      message(sprintf("round %d, %s: %s", k, nm, readLines("/proc/loadavg")))
    }
  }
  load_end <- readLines("/proc/loadavg")
  # (wall: the median of every call; cpu: of the rounds' means)
  med <- stats::aggregate(wall ~ build + case, res, stats::median)
  cpu <- stats::aggregate(cpu ~ build + case + round, res, `[`, 1L)
  med <- merge(med, stats::aggregate(cpu ~ build + case, cpu, stats::median))
  med <- med[order(med$case, match(med$build, c(names(libs), "ghyp"))), ]
  lines <- setup_table(med, names(libs))
  head <- c(
    "# Fixed cost of a fit against its EM (bench/setup.R)", "",
    sprintf("%s; %s; %d thread%s; %d rounds, builds and ghyp taking turns.",
            format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"),
            R.version.string, setup_threads(),
            if (setup_threads() == 1L) "" else "s", rounds),
    sprintf("OMP_WAIT_POLICY=%s; %d cores.", Sys.getenv("OMP_WAIT_POLICY",
                                                        "(unset)"),
            parallel::detectCores()),
    sprintf("Builds: %s.", paste(sprintf("%s = %s", names(libs),
                                          ifelse(nzchar(libs), libs, "(R's)")),
                                  collapse = ", ")),
    sprintf("Load average at the start: %s; at the end: %s.", load_start,
            load_end),
    ""
  )
  if (nzchar(Sys.getenv("GHMIX_SETUP_CALLGRIND"))) {
    lines <- c(lines, setup_cg_table(libs))
  }
  txt <- c(head, lines)
  cat(txt, sep = "\n")
  if (nzchar(out_md)) writeLines(txt, out_md)
}

setup_table <- function(med, builds) {
  get <- function(b, cs, what) {
    v <- med[med$build == b & med$case == cs, what]
    if (length(v)) v else NA_real_
  }
  ghyp <- get("ghyp", "ghyp", "wall")
  out <- c(
    "| build | case | wall ms (median) | CPU ms per call |",
    "| --- | --- | ---: | ---: |",
    sprintf("| %s | %s | %.2f | %.2f |", med$build, med$case, med$wall * 1e3,
            med$cpu * 1e3),
    "",
    paste("| build | data | marginal EM iteration ms (wall / CPU) |",
          "fixed cost ms (wall / CPU) | fixed cost in EM iterations (CPU) |"),
    "| --- | --- | ---: | ---: | ---: |"
  )
  for (b in builds) {
    for (data in c("eu", "big")) {
      it1 <- c(get(b, paste0(data, "_it1"), "wall"),
               get(b, paste0(data, "_it1"), "cpu"))
      it11 <- c(get(b, paste0(data, "_it11"), "wall"),
                get(b, paste0(data, "_it11"), "cpu"))
      marg <- (it11 - it1) / 10
      fixed <- it1 - marg
      out <- c(out, sprintf("| %s | %s | %.2f / %.2f | %.2f / %.2f | %.1f |",
                            b, data, marg[1] * 1e3, marg[2] * 1e3,
                            fixed[1] * 1e3, fixed[2] * 1e3,
                            fixed[2] / marg[2]))
    }
  }
  out <- c(out, "",
           paste("| build | EuStockMarkets NIG ms (wall / CPU) |",
                 "ghyp fit.NIGmv ms (wall / CPU) |",
                 "ghyp / ghmix (wall / CPU) |"),
           "| --- | ---: | ---: | ---: |")
  ghyp_cpu <- get("ghyp", "ghyp", "cpu")
  for (b in builds) {
    eu <- c(get(b, "eu", "wall"), get(b, "eu", "cpu"))
    out <- c(out, sprintf("| %s | %.2f / %.2f | %.1f / %.1f | %.1f / %.1f |",
                          b, eu[1] * 1e3, eu[2] * 1e3, ghyp * 1e3,
                          ghyp_cpu * 1e3, ghyp / eu[1], ghyp_cpu / eu[2]))
  }
  c(out, "",
    paste("eu: the whole fit_nig() call; *_it1 / *_it11: max_iter = 1 / 11",
          "(not converged: the warning's checks included); marginal EM",
          "iteration = (it11 - it1) / 10 (an accelerated cycle counts as",
          "one iteration); fixed cost = it1 - marginal."))
}

# Instructions per call of fit_nig() on EuStockMarkets for a build:
# c(eu, eu_it1), from callgrind runs of K = 1 + 0 and 1 + 10 fits.
setup_callgrind <- function(lib) {
  count <- function(k, it) {
    out <- tempfile(fileext = ".cg")
    on.exit(unlink(out))
    err <- suppressWarnings(system2(
      file.path(R.home("bin"), "R"),
      c("-d", shQuote(paste0("valgrind --tool=callgrind ",
                              "--callgrind-out-file=", out)),
        "--vanilla", "--slave", "-f", file.path("bench", "setup.R")),
      stdout = FALSE, stderr = TRUE,
      env = c(sprintf("GHMIX_SETUP_CG=%d,%s", k, it),
              sprintf("GHMIX_SETUP_CHILD=%s", shQuote(lib)))
    ))
    line <- grep("Collected :", err, value = TRUE)
    if (!length(line)) return(NA_real_)
    as.numeric(sub(".*Collected : *", "", line[[1L]]))
  }
  vapply(c("", "1"), function(it) (count(10L, it) - count(0L, it)) / 10, 0)
}

# The callgrind child: 1 + k fits (max_iter = it, unless "").
setup_cg_child <- function(lib, spec) {
  k <- as.integer(sub(",.*", "", spec))
  it <- sub(".*,", "", spec)
  if (nzchar(lib)) .libPaths(c(lib, .libPaths()))
  suppressPackageStartupMessages(library(ghmix))
  ghmix_threads(1L)
  r <- diff(log(datasets::EuStockMarkets))
  control <- if (nzchar(it)) {
    ghmix_control(max_iter = as.integer(it))
  } else {
    ghmix_control()
  }
  for (i in seq_len(k + 1L)) suppressWarnings(fit_nig(r, control = control))
}

setup_cg_table <- function(libs) {
  ins <- vapply(libs, setup_callgrind, numeric(2L))
  out <- c(
    "", "Instructions per EuStockMarkets fit (callgrind, 1 thread):", "",
    "| build | whole fit (M) | max_iter = 1 (M) |", "| --- | ---: | ---: |",
    sprintf("| %s | %.2f | %.2f |", names(libs), ins[1L, ] / 1e6,
            ins[2L, ] / 1e6)
  )
  out
}

child <- Sys.getenv("GHMIX_SETUP_CHILD", NA)
cg <- Sys.getenv("GHMIX_SETUP_CG")
quick <- nzchar(Sys.getenv("GHMIX_BENCH_QUICK"))
if (!is.na(child) && nzchar(cg)) {
  setup_cg_child(child, cg)
} else if (!is.na(child)) {
  setup_child(child, quick)
} else {
  setup_parent(if (length(args)) args[[1L]] else
                 file.path("bench", "results", "setup.md"), quick)
}
