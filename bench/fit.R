# Benchmark of the EM fitters against the peers, on 2 threads.
#
#   Rscript bench/fit.R                  # from the repository root, with
#                                        # ghmix installed (or R_LIBS set)
#   GHMIX_BENCH_QUICK=1 Rscript bench/fit.R   # fewer repetitions, no d = 468,
#                                             # normix NIG only
#   GHMIX_BENCH_PEERS_LARGE=1 ...        # also ghyp at n = 10^5, d = 10
#                                        # (about a minute per fit)
#
# Peers, each where installed (skipped with a message otherwise; see
# bench/README.md): ghyp, GeneralizedHyperbolic, QRM (R), normix (Python,
# through bench/fit_normix.py; GHMIX_NORMIX_PYTHON names the interpreter).
#   1. EuStockMarkets log returns (n = 1859, d = 4): NIG fits of ghmix,
#      ghyp, QRM, normix; GH and VG fits of ghmix, ghyp, normix (these data
#      have 26 all-zero rows, where the GH and VG likelihoods are unbounded:
#      see the `converged` and `note` columns).
#   2. The DAX column (d = 1): NIG and GH fits of ghmix, ghyp,
#      GeneralizedHyperbolic, QRM, normix.
#   3. Simulated n = 10^5, d = 10, NIG and GH: time to convergence, time per
#      EM iteration (one E-step and one M-step), iterations.
#   4. Simulated GH, n = 2552, d = 468 (the shape of normix's benchmark):
#      time per EM iteration with the BLAS R uses.
# Times are medians of several runs (peers: fewer); normix's first run
# includes JAX compilation and is reported separately in `note`.
# Writes bench/results/fit.md and fit.png.

source(file.path("bench", "common.R"))

peers_large <- nzchar(Sys.getenv("GHMIX_BENCH_PEERS_LARGE"))
threads <- min(2L, ghmix_info()$max_threads)
peers <- c(ghyp = have_peer("ghyp"),
           GeneralizedHyperbolic = have_peer("GeneralizedHyperbolic"),
           QRM = have_peer("QRM"))
py <- normix_python()
reps_ghmix <- if (bench_quick) 5L else 11L
reps_peer <- if (bench_quick) 1L else 3L

rows <- list()
add_row <- function(case, method, seconds, iterations, loglik,
                    converged = NA, per_iter_ms = NA_real_, note = "") {
  message(sprintf("%s | %s: %.3f s, loglik %.4f", case, method, seconds,
                  loglik))
  rows[[length(rows) + 1L]] <<- data.frame(
    case = case, method = method, seconds = seconds,
    ms_per_iteration = per_iter_ms, iterations = iterations,
    loglik = loglik, converged = converged, note = note,
    stringsAsFactors = FALSE
  )
}

# a peer's fit: its value from the first run, the median time of `reps`
peer_fit <- function(f, reps = reps_peer) {
  out <- NULL
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    system.time(out <<- suppressWarnings(f()))[["elapsed"]]
  }, numeric(1))
  list(fit = out, seconds = stats::median(t))
}

ghmix_row <- function(case, fun, x, reps = reps_ghmix, note = "", ...) {
  fit <- NULL
  secs <- time_median(function() {
    fit <<- suppressWarnings(fun(x, threads = threads, ...))
  }, reps, warm_up = FALSE)
  per_iter <- 1000 * (fit$timings[["estep"]] + fit$timings[["mstep"]]) /
    fit$timings[["esteps"]]
  add_row(case, paste0("ghmix ", deparse(substitute(fun))), secs,
          fit$iterations, fit$loglik, fit$converged, per_iter,
          paste0(note, if (!fit$converged) fit$message else ""))
  invisible(fit)
}

r <- diff(log(EuStockMarkets))
dax <- as.numeric(r[, "DAX"])

# 1. EuStockMarkets, d = 4 -----------------------------------------------------
case <- "EuStockMarkets d=4 NIG"
ghmix_row(case, fit_nig, r)
if (peers[["ghyp"]]) {
  g <- peer_fit(function() ghyp::fit.NIGmv(r, silent = TRUE))
  add_row(case, "ghyp fit.NIGmv", g$seconds, g$fit@n.iter, g$fit@llh,
          g$fit@converged)
}
if (peers[["QRM"]]) {
  g <- peer_fit(function() QRM::fit.mNH(r, case = "NIG"))
  add_row(case, "QRM fit.mNH", g$seconds, NA, g$fit$ll.max,
          note = "reports no iteration count or convergence flag")
}
case <- "EuStockMarkets d=4 GH"
ghmix_row(case, fit_gh, r, reps = if (bench_quick) 1L else 3L,
          note = "ties warned; ")
if (peers[["ghyp"]]) {
  g <- peer_fit(function() ghyp::fit.ghypmv(r, silent = TRUE))
  cf <- ghyp::coef(g$fit, type = "chi.psi")
  add_row(case, "ghyp fit.ghypmv", g$seconds, g$fit@n.iter, g$fit@llh,
          g$fit@converged,
          note = sprintf("lambda = %.3g, chi = %.3g, max|mu| = %.2g",
                         cf$lambda, cf$chi, max(abs(cf$mu))))
}
case <- "EuStockMarkets d=4 VG"
ghmix_row(case, fit_vg, r, reps = 1L, note = "ties warned; ")
if (peers[["ghyp"]]) {
  g <- peer_fit(function() ghyp::fit.VGmv(r, silent = TRUE), 1L)
  cf <- ghyp::coef(g$fit, type = "chi.psi")
  add_row(case, "ghyp fit.VGmv", g$seconds, g$fit@n.iter, g$fit@llh,
          g$fit@converged,
          note = sprintf("lambda = %.3g, max|mu| = %.2g", cf$lambda,
                         max(abs(cf$mu))))
}

# 2. DAX, d = 1 ----------------------------------------------------------------
case <- "EuStockMarkets DAX NIG"
ghmix_row(case, fit_nig, dax)
if (peers[["ghyp"]]) {
  g <- peer_fit(function() ghyp::fit.NIGuv(dax, silent = TRUE))
  add_row(case, "ghyp fit.NIGuv", g$seconds, g$fit@n.iter, g$fit@llh,
          g$fit@converged, note = "iterations: optim's count")
}
if (peers[["GeneralizedHyperbolic"]]) {
  g <- peer_fit(function() GeneralizedHyperbolic::nigFit(dax))
  add_row(case, "GeneralizedHyperbolic nigFit", g$seconds, g$fit$iter,
          g$fit$maxLik, g$fit$conv == 0, note = "iterations: optim's count")
}
if (peers[["QRM"]]) {
  g <- peer_fit(function() QRM::fit.NH(dax, case = "NIG"))
  add_row(case, "QRM fit.NH", g$seconds, NA, g$fit$ll.max, g$fit$converged)
}
case <- "EuStockMarkets DAX GH"
ghmix_row(case, fit_gh, dax, reps = if (bench_quick) 1L else 3L)
if (peers[["ghyp"]]) {
  g <- peer_fit(function() ghyp::fit.ghypuv(dax, silent = TRUE))
  add_row(case, "ghyp fit.ghypuv", g$seconds, g$fit@n.iter, g$fit@llh,
          g$fit@converged, note = "iterations: optim's count")
}

# normix (Python) on the same data ---------------------------------------------
if (nzchar(py)) {
  tmp <- tempfile("normix")
  dir.create(tmp)
  data_csv <- file.path(tmp, "eustock.csv")
  out_csv <- file.path(tmp, "normix.csv")
  utils::write.csv(as.data.frame(r), data_csv, row.names = FALSE)
  fits <- if (bench_quick) "NIG" else "NIG,GH,NIGuv"
  message("normix: ", fits, " (the first run compiles; minutes)")
  rc <- system2(py, c(file.path("bench", "fit_normix.py"), data_csv, out_csv,
                      "--fits", fits, "--col", "DAX", "--reps",
                      if (bench_quick) "0" else "1"))
  if (rc == 0 && file.exists(out_csv)) {
    nx <- utils::read.csv(out_csv, stringsAsFactors = FALSE)
    for (i in seq_len(nrow(nx))) {
      fam <- if (grepl("Generalized", nx$fit[i])) "GH" else "NIG"
      cs <- if (nx$d[i] == 1) {
        paste("EuStockMarkets DAX", fam)
      } else {
        paste("EuStockMarkets d=4", fam)
      }
      secs <- if (is.na(nx$median_s[i])) nx$first_s[i] else nx$median_s[i]
      add_row(cs, paste("normix", nx$fit[i]), secs, nx$iterations[i],
              nx$loglik[i], as.logical(nx$converged[i]),
              note = sprintf("defaults; first run (with compilation) %.1f s",
                             nx$first_s[i]))
    }
  } else {
    message("normix run failed (exit status ", rc, "); left out")
  }
}

# 3. n = 10^5, d = 10 ----------------------------------------------------------
x <- simulate_mixture(1e5, 10, -0.5, 2, 2, 1)
for (fam in c("nig", "gh")) {
  case <- sprintf("n=1e5 d=10 %s", toupper(fam))
  ghmix_row(case, get(paste0("fit_", fam)), x,
            reps = if (bench_quick) 1L else 3L,
            note = if (fam == "gh") "incl. the NIG start; " else "")
  rows[[length(rows)]]$method <- paste0("ghmix fit_", fam)
  if (peers[["ghyp"]] && peers_large) {
    peer <- if (fam == "nig") ghyp::fit.NIGmv else ghyp::fit.ghypmv
    g <- peer_fit(function() peer(x, silent = TRUE), 1L)
    add_row(case, "ghyp", g$seconds, g$fit@n.iter, g$fit@llh,
            g$fit@converged, 1000 * g$seconds / g$fit@n.iter)
  }
}

# 4. n = 2552, d = 468, GH: plain EM iterations from a fixed start -------------
if (!bench_quick) {
  x <- simulate_mixture(2552, 468, 1.5, 3, 0.4, 2)
  start <- list(mu = colMeans(x), gamma = rep(0, 468), sigma = stats::cov(x),
                p = -0.5, a = 1, b = 1)
  ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
  f <- suppressWarnings(fit_gh(x, start = start, control = ctl,
                               threads = threads))
  add_row("n=2552 d=468 GH", "ghmix fit_gh", f$timings[["total"]],
          f$iterations, f$loglik, NA,
          1000 * (f$timings[["estep"]] + f$timings[["mstep"]]) /
            f$timings[["esteps"]],
          "5 plain EM iterations from a fixed start")
}

tab <- do.call(rbind, rows)
out <- tab
out$loglik <- sprintf("%.4f", tab$loglik)
md <- c(
  "# EM fits", "",
  bench_header(sprintf(
    "ghmix on %d threads; medians of %d runs (GH/VG and peers: 1-3)",
    threads, reps_ghmix
  )), "",
  md_table(out, 4L), "",
  paste("`ms_per_iteration`: ghmix's E-step plus M-step time per E-step",
        "(accelerated iterations take about 3 E-steps). Peers not",
        "installed are left out (see bench/README.md). The GH and VG",
        "likelihoods of the 4-column data are unbounded at its 26 all-zero",
        "rows (holidays): compare GH fits with the NIG's, not with a",
        "log-likelihood reached at the singularity.")
)
write_md(md, "fit")

eu <- grepl("^EuStockMarkets", tab$case)
open_png("fit", height = 60 + 22 * sum(eu))
dot_chart(tab$seconds[eu], paste(tab$case[eu], tab$method[eu], sep = ": "),
          "seconds to fit (log scale)", "EuStockMarkets: time to fit")
invisible(grDevices::dev.off())
