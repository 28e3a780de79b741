# Validation of vcov() for factor fits (issue 15): 200 NIG fits with one
# factor to data simulated from a known factor NIG (d = 4, n = 2000); the
# empirical standard deviation of each reported estimate over the refits
# against the mean of the standard errors that vcov() reports (required:
# within 15%).  The truth is put in the reported form (F' D^-1 F is a
# scalar for r = 1, so only the sign and the "mean" gauge).
#
#   Rscript bench/factor_vcov.R
#
# GHMIX_BENCH_QUICK=1 runs 50 refits.  Writes bench/results/factor_vcov.md.

suppressPackageStartupMessages(library(ghmix))

reps <- if (nzchar(Sys.getenv("GHMIX_BENCH_QUICK"))) 50L else 200L
n <- 2000L
d <- 4L
truth <- list(mu = c(0.1, -0.2, 0, 0.3), gamma = c(0.2, -0.1, 0.3, 0),
              f = c(1, 0.8, 0.6, -0.4), dd = c(0.5, 0.4, 0.3, 0.6),
              a = 1.5, b = 1.5)
t0 <- proc.time()[[3]]
est <- se <- NULL
set.seed(2026)
for (i in seq_len(reps)) {
  x <- rgh(n, truth$mu, truth$gamma, factor_cov(cbind(truth$f), truth$dd),
           -0.5, truth$a, truth$b)
  colnames(x) <- paste0("v", seq_len(d))
  fit <- fit_nig(x, factors = 1, threads = 1L)
  v <- vcov(fit)
  est <- rbind(est, c(fit$parameters$mu, fit$parameters$gamma,
                      fit$parameters$loadings, fit$parameters$uniquenesses,
                      fit$parameters$a, fit$parameters$b))
  se <- rbind(se, sqrt(diag(v)))
}
elapsed <- proc.time()[[3]] - t0
ratio <- apply(est, 2L, stats::sd) / colMeans(se)
tab <- data.frame(parameter = colnames(se), mean_estimate = colMeans(est),
                  empirical_sd = apply(est, 2L, stats::sd),
                  mean_se = colMeans(se), ratio = ratio)
lines <- c(
  sprintf("## vcov() of factor fits: %d NIG refits, d = %d, r = 1, n = %d",
          reps, d, n),
  "",
  sprintf("`Rscript bench/factor_vcov.R`, %s, %.1f s (fit and vcov, 1 thread).",
          format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"), elapsed),
  "Truth: mu = (0.1, -0.2, 0, 0.3), gamma = (0.2, -0.1, 0.3, 0),",
  paste("F = (1, 0.8, 0.6, -0.4), D = (0.5, 0.4, 0.3, 0.6), a = b = 1.5",
        "(mean gauge)."),
  "",
  "| parameter | mean estimate | empirical sd | mean SE | sd / SE |",
  "|---|---|---|---|---|",
  sprintf("| %s | %.4f | %.5f | %.5f | %.3f |", tab$parameter,
          tab$mean_estimate, tab$empirical_sd, tab$mean_se, tab$ratio),
  "",
  sprintf("Worst |sd / SE - 1|: %.3f (required: at most 0.15).",
          max(abs(ratio - 1)))
)
dir.create(file.path("bench", "results"), showWarnings = FALSE)
writeLines(lines, file.path("bench", "results", "factor_vcov.md"))
cat(lines, sep = "\n")
