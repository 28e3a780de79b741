# Benchmark of the EM fitters (issue 4).
#
#   Rscript bench/fit.R                 # from the repository root, with
#                                       # ghmix installed (or R_LIBS set)
#   GHMIX_BENCH_QUICK=1 Rscript bench/fit.R   # fewer repetitions, no d = 468
#   GHMIX_BENCH_PEERS_LARGE=1 ...       # also ghyp at n = 10^5, d = 10
#                                       # (minutes per fit)
#
# Peers: ghyp is used where installed (R_LIBS=/path/to/peer/library); it is
# not in Debian, see bench/README.md.  What it measures, on 2 threads:
#   1. EuStockMarkets log returns (n = 1859, d = 4): fit_nig() to
#      convergence, median of 11 runs; ghyp::fit.NIGmv on the same data.
#   2. Each column (d = 1): fit_nig() log-likelihood and ghyp::fit.NIGuv's.
#   3. Simulated n = 10^5, d = 10, NIG and GH: time to convergence, time per
#      EM iteration (one E-step and one M-step), iterations.
#   4. Simulated GH, n = 2552, d = 468 (the shape of normix's benchmark):
#      time per EM iteration with the BLAS R uses (reported).
# Writes bench/results/fit.md (markdown table) and bench/results/fit.png.

suppressPackageStartupMessages(library(ghmix))

quick <- nzchar(Sys.getenv("GHMIX_BENCH_QUICK"))
peers_large <- nzchar(Sys.getenv("GHMIX_BENCH_PEERS_LARGE"))
threads <- 2L
have_ghyp <- requireNamespace("ghyp", quietly = TRUE)
out_dir <- file.path("bench", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

median_time <- function(fun, reps) {
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    system.time(fun())[["elapsed"]]
  }, numeric(1))
  stats::median(t)
}

# X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z from the definition
simulate_mixture <- function(n, d, p, a, b, seed) {
  set.seed(seed)
  a_mat <- matrix(rnorm(d * d), d, d)
  sigma <- crossprod(a_mat) / d + diag(d)
  mu <- rnorm(d)
  gamma <- rnorm(d) / 2
  y <- rgig(n, p, a, b)
  z <- matrix(rnorm(n * d), n, d) %*% chol(sigma)
  sweep(outer(y, gamma) + sqrt(y) * z, 2L, mu, "+")
}

rows <- list()
add_row <- function(case, method, seconds, per_iter_ms, iterations, loglik,
                    note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    case = case, method = method, seconds = seconds,
    ms_per_iteration = per_iter_ms, iterations = iterations,
    loglik = loglik, note = note, stringsAsFactors = FALSE
  )
}

per_iteration_ms <- function(fit) {
  1000 * (fit$timings[["estep"]] + fit$timings[["mstep"]]) /
    fit$timings[["esteps"]]
}

# 1. EuStockMarkets, d = 4 ------------------------------------------------------
r <- diff(log(EuStockMarkets))
fit <- fit_nig(r, threads = threads)
t_nig <- median_time(function() fit_nig(r, threads = threads),
                     if (quick) 5L else 11L)
add_row("EuStockMarkets d=4 NIG", "ghmix fit_nig", t_nig,
        per_iteration_ms(fit), fit$iterations, fit$loglik,
        sprintf("%d E-steps", fit$timings[["esteps"]]))
if (have_ghyp) {
  g <- NULL
  t_g <- median_time(function() {
    g <<- ghyp::fit.NIGmv(r, silent = TRUE)
  }, 3L)
  add_row("EuStockMarkets d=4 NIG", "ghyp fit.NIGmv", t_g, NA,
          g@n.iter, g@llh)
}

# 2. each column, d = 1 --------------------------------------------------------
for (col in colnames(r)) {
  f1 <- fit_nig(r[, col], threads = threads)
  t1 <- median_time(function() fit_nig(r[, col], threads = threads), 5L)
  add_row(paste("EuStockMarkets", col, "NIG"), "ghmix fit_nig", t1,
          per_iteration_ms(f1), f1$iterations, f1$loglik)
  if (have_ghyp) {
    g <- NULL
    t_g <- median_time(function() {
      g <<- ghyp::fit.NIGuv(as.numeric(r[, col]), silent = TRUE)
    }, 3L)
    add_row(paste("EuStockMarkets", col, "NIG"), "ghyp fit.NIGuv", t_g, NA,
            g@n.iter, g@llh)
  }
}

# 3. n = 10^5, d = 10 ------------------------------------------------------------
x <- simulate_mixture(1e5, 10, -0.5, 2, 2, 1)
for (fam in c("nig", "gh")) {
  fit_fun <- get(paste0("fit_", fam))
  f <- NULL
  t_f <- median_time(function() {
    f <<- suppressWarnings(fit_fun(x, threads = threads))
  }, if (quick) 1L else 3L)
  add_row(sprintf("n=1e5 d=10 %s", toupper(fam)),
          paste0("ghmix fit_", fam), t_f, per_iteration_ms(f),
          f$iterations, f$loglik,
          sprintf("%d E-steps%s", f$timings[["esteps"]],
                  if (fam == "gh") " (incl. the NIG start)" else ""))
  if (have_ghyp && peers_large) {
    peer <- if (fam == "nig") ghyp::fit.NIGmv else ghyp::fit.ghypmv
    g <- NULL
    t_g <- system.time(g <- peer(x, silent = TRUE))[["elapsed"]]
    add_row(sprintf("n=1e5 d=10 %s", toupper(fam)), "ghyp", t_g,
            1000 * t_g / g@n.iter, g@n.iter, g@llh)
  }
}

# 4. n = 2552, d = 468, GH: plain EM iterations from a fixed start ------------------
if (!quick) {
  x <- simulate_mixture(2552, 468, 1.5, 3, 0.4, 2)
  start <- list(mu = colMeans(x), gamma = rep(0, 468), sigma = cov(x),
                p = -0.5, a = 1, b = 1)
  ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
  f <- suppressWarnings(fit_gh(x, start = start, control = ctl,
                               threads = threads))
  add_row("n=2552 d=468 GH", "ghmix fit_gh", f$timings[["total"]],
          per_iteration_ms(f), f$iterations, f$loglik,
          paste("5 plain EM iterations; BLAS:", basename(extSoftVersion()[["BLAS"]])))
}

tab <- do.call(rbind, rows)
fmt <- tab
fmt$seconds <- sprintf("%.4g", tab$seconds)
fmt$ms_per_iteration <- ifelse(is.na(tab$ms_per_iteration), "",
                               sprintf("%.3g", tab$ms_per_iteration))
fmt$loglik <- sprintf("%.6f", tab$loglik)
md <- c(
  sprintf("ghmix %s, %s, %d threads, %s", packageVersion("ghmix"),
          R.version.string, threads, format(Sys.time(), "%Y-%m-%d %H:%M")),
  sprintf("BLAS: %s", extSoftVersion()[["BLAS"]]),
  "",
  paste("|", paste(names(fmt), collapse = " | "), "|"),
  paste("|", paste(rep("---", ncol(fmt)), collapse = " | "), "|"),
  apply(fmt, 1L, function(row) paste("|", paste(row, collapse = " | "), "|"))
)
writeLines(md)
writeLines(md, file.path(out_dir, "fit.md"))

grDevices::png(file.path(out_dir, "fit.png"), width = 900, height = 500)
graphics::par(mar = c(5, 16, 3, 1))
lab <- paste(tab$case, tab$method, sep = ": ")
graphics::barplot(rev(tab$seconds), names.arg = rev(lab), horiz = TRUE,
                  las = 1, log = "x", xlab = "seconds (log scale)",
                  main = "Time to fit (median)", cex.names = 0.7)
invisible(grDevices::dev.off())
