# Benchmark of online EM (ghmix_online()): one pass over a simulated stream
# against the batch fit of the same rows.
#
#   Rscript bench/online.R                      # 2e6 x 3 NIG rows, batches
#                                               # of 1e4; from the repository
#                                               # root, ghmix installed (R_LIBS)
#   GHMIX_BENCH_QUICK=1 Rscript bench/online.R  # 2e5 rows
#
# Settings: GHMIX_BENCH_N (2e6), GHMIX_BENCH_BATCH (1e4), GHMIX_BENCH_FAMILY
# ("nig" or "gh").  Two threads.  Reports, for the online pass (default
# schedule: Robbins-Monro, kappa = 0.6, warm-up of 10 EM iterations on the
# first batch) and the batch fit (to convergence): the mean log-likelihood
# per row on all rows and on 2e5 held-out rows, the seconds, and the rows per
# second of the online pass against those of one batch E-step over all
# rows (the median of 3).  Writes bench/results/online.md.

source(file.path("bench", "common.R"))

env_num <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.numeric(v) else default
}

n <- env_num("GHMIX_BENCH_N", if (bench_quick) 2e5 else 2e6)
batch <- env_num("GHMIX_BENCH_BATCH", 1e4)
family <- Sys.getenv("GHMIX_BENCH_FAMILY", "nig")
d <- 3L
ghmix_threads(2L)
fitter <- if (family == "gh") fit_gh else fit_nig

simulate_rows <- function(m, seed) {
  set.seed(seed)
  sigma <- 0.5^abs(outer(seq_len(d), seq_len(d), "-"))
  y <- rgig(m, p = if (family == "gh") 1.5 else -0.5, a = 1.5, b = 1.5)
  x <- outer(y, c(0.3, 0, -0.3)) +
    sqrt(y) * (matrix(stats::rnorm(m * d), m, d) %*% chol(sigma))
  x <- sweep(x, 2L, c(0.1, 0.2, 0.3), "+")
  colnames(x) <- sprintf("x%d", seq_len(d))
  x
}

header <- bench_header(sprintf(
  "Online EM, %s, n = %.0f, d = %d, batches of %.0f rows, 2 threads",
  toupper(family), n, d, batch
))
x <- simulate_rows(n, 1)
held_out <- simulate_rows(2e5, 2)
mean_ll <- function(fit, rows) {
  mean(predict(fit, rows, type = "log_density"))
}

ctl <- ghmix_control(online = ghmix_online(batch_size = batch))
t_online <- system.time(online <- fitter(x, control = ctl))[["elapsed"]]
t_batch <- system.time(
  full <- suppressWarnings(fitter(x))
)[["elapsed"]]

# one batch E-step over all rows at the batch fit's parameters (the
# engine the fits use; the rows are copied to it once, outside the timing)
engine <- ghmix:::mix_engine(x, "cpu", 2L, 0L)
par <- full$parameters
what <- ghmix:::mix_what(family)
t_estep <- time_median(function() ghmix:::mix_estep(engine, par, what),
                       reps = 3L)
# and over one batch of rows (what each step of the online pass costs)
small <- ghmix:::mix_engine(x[seq_len(batch), , drop = FALSE], "cpu", 2L, 0L)
t_small <- time_median(function() ghmix:::mix_estep(small, par, what),
                       reps = 21L)
small1 <- ghmix:::mix_engine(x[seq_len(batch), , drop = FALSE], "cpu", 1L, 0L)
t_small1 <- time_median(function() ghmix:::mix_estep(small1, par, what),
                        reps = 21L)

res <- data.frame(
  fit = c("online, one pass", "batch EM to convergence"),
  mean_loglik_all = c(mean_ll(online, x), mean_ll(full, x)),
  mean_loglik_held_out = c(mean_ll(online, held_out), mean_ll(full, held_out)),
  seconds = c(t_online, t_batch),
  passes = c(1, full$timings[["esteps"]]),
  rows_per_second = c(n / t_online, n * full$timings[["esteps"]] /
                        full$timings[["estep"]]),
  stringsAsFactors = FALSE
)
gap <- res$mean_loglik_all[[2L]] - res$mean_loglik_all[[1L]]
lines <- c(
  header, "",
  md_table(res, digits = 7L), "",
  sprintf(
    paste(
      "Batch fit minus online pass, mean log-likelihood per row on all rows:",
      "%.3g (held out: %.3g)."
    ),
    gap, res$mean_loglik_held_out[[2L]] - res$mean_loglik_held_out[[1L]]
  ),
  sprintf(
    paste(
      "Rows per second: the online pass %.3g (its E-steps, M-steps, batch",
      "extraction, checks and the warm-up fit of the first batch",
      "included); one batch E-step over all %.0f rows %.3g (median of 3:",
      "%.3f s); the batch fit's E-steps %.3g (%d E-steps); one E-step",
      "over one batch of %.0f rows %.3g (median of 21: %.2f ms; the online",
      "pass runs %.0f such E-steps, %d of them in the warm-up)."
    ),
    n / t_online, n, n / t_estep, t_estep, res$rows_per_second[[2L]],
    as.integer(full$timings[["esteps"]]), batch, batch / t_small,
    1000 * t_small, online$timings[["esteps"]],
    as.integer(online$timings[["esteps"]] - online$iterations + 1L)
  ),
  sprintf(
    paste(
      "The same E-step over one batch with 1 thread: %.2f ms. Where that",
      "is well below the 2-thread figure, the machine is loaded (see the",
      "load average above) and the 2 threads wait at each parallel",
      "region for a descheduled thread: small batches pay that per",
      "E-step, the E-step over all rows once."
    ),
    1000 * t_small1
  ),
  "",
  "Command: `Rscript bench/online.R` (R_LIBS with ghmix installed)."
)
write_md(lines, "online")
