# Mixtures of factor-analytic NIG members (components = G with factors = r,
# issue 15), 2 threads: n = 1e4, d = 100, G = 3, r = 5 (simulated separated
# factor-NIG clusters).  Seconds per plain EM iteration (one mixture E-step
# and the G M-steps) of the factor mixture against the full-Sigma mixture
# of the same rows in the same run: each fit from the true labels (no
# screening of starts), accelerate = FALSE, (T(1 + k) - T(1)) / k for k =
# 10 iterations, the median of 3.
#
#   Rscript bench/factor_mixture.R
#
# GHMIX_BENCH_QUICK=1 takes one run per case.  Writes
# bench/results/factor_mixture.md.

source(file.path("bench", "common.R"))

threads <- 2L
n <- 1e4
d <- 100L
g <- 3L
r <- 5L

set.seed(1)
lab <- sample(g, n, replace = TRUE)
x <- matrix(0, n, d, dimnames = list(NULL, sprintf("s%03d", seq_len(d))))
for (k in seq_len(g)) {
  i <- which(lab == k)
  f <- matrix(stats::rnorm(d * r), d, r)
  x[i, ] <- rgh(length(i), c(6 * k, rep(0, d - 1L)), stats::rnorm(d) * 0.1,
                factor_cov(f, stats::runif(d, 0.3, 1)), -0.5, 1.5, 1.5)
}

fit_seconds <- function(iters, factors) {
  ctl <- ghmix_control(max_iter = iters, accelerate = FALSE)
  system.time(suppressWarnings(
    fit_nig(x, components = g, factors = factors, start = lab, control = ctl,
            threads = threads)
  ))[["elapsed"]]
}

per_iteration <- function(factors, k = 10L) {
  reps <- if (bench_quick) 1L else 3L
  stats::median(vapply(seq_len(reps), function(i) {
    (fit_seconds(1L + k, factors) - fit_seconds(1L, factors)) / k
  }, numeric(1)))
}

tab <- data.frame(
  model = c(sprintf("factor mixture, r = %d", r), "full-Sigma mixture"),
  ms_per_iteration = 1000 * c(per_iteration(r), per_iteration(NULL))
)
write_md(c(
  bench_header(sprintf(
    "Factor mixtures: n = %d, d = %d, G = %d, NIG, %d threads", n, d, g,
    threads
  )),
  "",
  md_table(tab),
  "",
  "Command: `Rscript bench/factor_mixture.R`"
), "factor_mixture")
