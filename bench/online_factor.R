# Benchmark of online EM with factors (ghmix_online(), factors = r): one
# pass over simulated factor-GH rows against the batch factor fit of the
# same rows, and the rows per second of the pass against those of one
# batch factor E-step over all rows, in the same run.
#
#   Rscript bench/online_factor.R       # 2e5 x 20 rows, r = 2, batches of
#                                       # 1e4; from the repository root,
#                                       # ghmix installed (R_LIBS)
#
# Settings: GHMIX_BENCH_N (2e5), GHMIX_BENCH_D (20), GHMIX_BENCH_R (2),
# GHMIX_BENCH_BATCH (1e4).  Two threads.  Appends one line to
# bench/results/online.md (written by bench/online.R).

source(file.path("bench", "common.R"))

env_num <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) as.numeric(v) else default
}

n <- env_num("GHMIX_BENCH_N", 2e5)
d <- as.integer(env_num("GHMIX_BENCH_D", 20))
r <- as.integer(env_num("GHMIX_BENCH_R", 2))
batch <- env_num("GHMIX_BENCH_BATCH", 1e4)
ghmix_threads(2L)

set.seed(1)
f <- matrix(stats::rnorm(d * r), d, r)
dd <- stats::runif(d, 0.5, 1.5)
y <- rgig(n, -0.5, 1, 1)
x <- matrix(stats::rnorm(n * r), n, r) %*% t(f) +
  matrix(stats::rnorm(n * d), n, d) * rep(sqrt(dd), each = n)
x <- rep(seq_len(d) / 10, each = n) +
  outer(y, rep(c(0.3, -0.2), length.out = d)) + sqrt(y) * x
colnames(x) <- sprintf("x%d", seq_len(d))

ctl <- ghmix_control(online = ghmix_online(batch_size = batch))
t_online <- system.time(
  online <- fit_gh(x, factors = r, control = ctl)
)[["elapsed"]]
t_batch <- system.time(full <- fit_gh(x, factors = r))[["elapsed"]]
what <- ghmix:::mix_what("gh")
par <- full$parameters
estep_all <- function() ghmix:::factor_estep(x, par, what, threads = 2L)
t_estep <- time_median(estep_all, reps = 3L)
mean_ll <- function(fit) mean(predict(fit, x, type = "log_density"))
gap <- mean_ll(full) - mean_ll(online)

line <- sprintf(
  paste(
    "Factor online EM (%s): GH, factors = %d, n = %.0f, d = %d, batches",
    "of %.0f, 2 threads: the online pass %.3g rows/s (%.2f s, warm-up",
    "included) against one batch factor E-step over all rows %.3g rows/s",
    "(median of 3: %.3f s); the batch factor fit %.2f s (%d E-steps);",
    "batch minus online mean log-likelihood per row %.3g. Command:",
    "`Rscript bench/online_factor.R`."
  ),
  format(Sys.time(), "%Y-%m-%d %H:%M"), r, n, d, batch, n / t_online,
  t_online, n / t_estep, t_estep, t_batch,
  as.integer(full$timings[["esteps"]]), gap
)
cat(line, "\n")
path <- file.path("bench", "results", "online.md")
cat("", line, file = path, sep = "\n", append = TRUE)
