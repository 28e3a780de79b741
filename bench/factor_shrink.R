# Penalised factor-analytic fits (fit_gh(factors = r, shrink = ),
# issue 15), 2 threads, on the simulated panel of bench/factor.R (n = 2552,
# d = 468, 10 factors), all in one run:
#
# 1. ms per EM iteration (5 plain EM iterations from a fixed start,
#    median of 3 fits) of the GH fit with r = 10, unpenalised and with
#    shrink = 100 (diagonal target);
# 2. the Ledoit-Wolf rule alone (its O(n d^2) sum of squares of the sample
#    covariance over column blocks), median of 3;
# 3. GH fits to convergence (NIG stage included), unpenalised and with
#    shrink = ghmix_shrink() (the rule): elapsed seconds, iterations,
#    E-steps (both stages), log-likelihood and objective.
#
#   Rscript bench/factor_shrink.R
#
# Appends a section to bench/results/factor_shrink.md.

source(file.path("bench", "common.R"))

threads <- 2L
set.seed(1)
d <- 468
f <- matrix(stats::rnorm(d * 10), d, 10) * 0.01
dd <- stats::runif(d, 0.5, 1.5) * 1e-4
x <- rgh(2552, stats::rnorm(d) * 1e-3, stats::rnorm(d) * 1e-3,
         factor_cov(f, dd), p = 1.5, a = 3, b = 0.4)
colnames(x) <- sprintf("s%04d", seq_len(d))

per_iteration <- function(shrink) {
  ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
  ms <- vapply(1:3, function(i) {
    fit <- suppressWarnings(fit_gh(x, start = list(p = -0.5, a = 1, b = 1),
                                   control = ctl, threads = threads,
                                   factors = 10L, shrink = shrink))
    1000 * (fit$timings[["estep"]] + fit$timings[["mstep"]]) /
      fit$timings[["esteps"]]
  }, numeric(1))
  stats::median(ms)
}
tab1 <- data.frame(
  model = c("factors = 10", "factors = 10, shrink = 100"),
  n = nrow(x), d = d, threads = threads,
  ms_per_iteration = round(c(per_iteration(NULL), per_iteration(100)), 2)
)
print(tab1)

prior <- list(type = "diagonal")
rule_s <- time_median(function() {
  ghmix:::factor_shrink_intensity(x, NULL, prior)
}, reps = 3L)
cat(sprintf("Ledoit-Wolf rule: %.3f s\n", rule_s))

to_convergence <- function(shrink) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(fit_gh(x, factors = 10L, threads = threads,
                                 shrink = shrink))
  data.frame(
    shrink = if (is.null(shrink)) "none" else "ghmix_shrink()",
    weight = if (is.null(shrink)) 0 else round(fit$shrink$weight, 1),
    seconds = round(proc.time()[["elapsed"]] - t0, 2),
    iterations = fit$iterations, esteps = fit$timings[["esteps"]],
    converged = fit$converged,
    loglik = round(fit$loglik, 2),
    objective = round(if (is.null(shrink)) fit$loglik else fit$objective, 2)
  )
}
tab2 <- rbind(to_convergence(NULL), to_convergence(ghmix_shrink()))
print(tab2)

dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
md_file <- file.path(bench_dir, "factor_shrink.md")
if (!file.exists(md_file)) {
  writeLines(c(
    "# Penalised factor-analytic GH fits (bench/factor_shrink.R)", "",
    paste("n = 2552, d = 468 (the panel of bench/factor.R), r = 10, 2",
          "threads. Per-iteration ms (5 plain EM iterations, median of 3",
          "fits), the Ledoit-Wolf rule's time, and fits to convergence",
          "(NIG stage included), all in one run."),
    ""
  ), md_file)
}
cat(c(bench_header("factor fits, shrink"), "", md_table(tab1), "",
      sprintf("Ledoit-Wolf rule (diagonal target): %.3f s (median of 3)",
              rule_s), "", md_table(tab2, digits = 10L), ""),
    file = md_file, sep = "\n", append = TRUE)
