# Value at risk and expected shortfall: time per evaluation.
#
#   Rscript bench/risk.R
#
# from the repository root, with ghmix installed; GHMIX_BENCH_QUICK=1: fewer
# runs.  Writes bench/results/risk.txt.
#
# 1. ES of a univariate GH law (the NIG fitted to the DAX log returns) at
#    one level: the median time of one call of expected_shortfall() (R's
#    argument checks included), and per level when 1000 levels from 1e-4
#    to 0.2 go in one call; the same for value_at_risk().
# 2. ES of 10^4 portfolios (random long-only weight rows) of a d = 10 NIG
#    law at one level, one call: one thread and ghmix_threads().
# ghyp's ESghyp() side by side where ghyp is installed.

source(file.path("bench", "common.R"))

reps <- if (bench_quick) 3L else 7L
out <- character()
say <- function(...) {
  line <- sprintf(...)
  cat(line, "\n")
  out[length(out) + 1L] <<- line
}

r <- diff(log(EuStockMarkets))
law1 <- gh_law(fit_nig(r[, "DAX"]))
threads_max <- ghmix_threads()
ghmix_threads(1L)
calls <- 1000L
t_one <- time_both(function() {
  for (i in seq_len(calls)) expected_shortfall(law1, 0.01)
}, reps) / calls
levels <- seq(1e-4, 0.2, length.out = 1000L)
t_lev <- time_both(function() expected_shortfall(law1, levels), reps) / 1000
v_one <- time_both(function() {
  for (i in seq_len(calls)) value_at_risk(law1, 0.01)
}, reps) / calls
say("ghmix %s, R %s, %s", utils::packageVersion("ghmix"),
    getRversion(), format(Sys.time(), tz = "UTC", usetz = TRUE))
say("1. univariate NIG (DAX fit), one thread, medians of %d runs:", reps)
say("   (elapsed, and CPU time: user + system, which a loaded machine")
say("   inflates less)")
say("   expected_shortfall(law, 0.01), one call:     %6.1f us (CPU %6.1f)",
    t_one[[1L]] * 1e6, t_one[[2L]] * 1e6)
say("   expected_shortfall(law, 1000 levels) / 1000: %6.1f us (CPU %6.1f)",
    t_lev[[1L]] * 1e6, t_lev[[2L]] * 1e6)
say("   value_at_risk(law, 0.01), one call:          %6.1f us (CPU %6.1f)",
    v_one[[1L]] * 1e6, v_one[[2L]] * 1e6)

set.seed(1)
d <- 10L
a <- matrix(stats::rnorm(d * d), d)
law10 <- gh_law(mu = stats::rnorm(d) * 1e-3, gamma = stats::rnorm(d) * 1e-3,
                sigma = crossprod(a) * 1e-5, p = -0.5, a = 1.5, b = 1.5)
w <- matrix(stats::runif(1e4 * d), 1e4)
w <- w / rowSums(w)
say("2. 10^4 portfolios of a d = 10 NIG law, ES at 0.01, one call:")
for (th in unique(c(1L, threads_max))) {
  t_pf <- time_both(function() {
    expected_shortfall(law10, 0.01, weights = w, threads = th)
  }, if (bench_quick) 1L else 3L)
  say("   threads = %d: %.3f s elapsed in all (%.1f us per portfolio),", th,
      t_pf[[1L]], t_pf[[1L]] / 1e4 * 1e6)
  say("                CPU %.3f s", t_pf[[2L]])
}
if (have_peer("ghyp")) {
  g <- ghyp::ghyp(lambda = -0.5, chi = law1$b, psi = law1$a, mu = law1$mu,
                  sigma = sqrt(law1$sigma[[1L]]), gamma = law1$gamma)
  t_g <- time_median(function() ghyp::ESghyp(0.01, g), reps)
  say("   ghyp::ESghyp(0.01): %.1f us; relative difference %.2g", t_g * 1e6,
      ghyp::ESghyp(0.01, g) / expected_shortfall(law1, 0.01) - 1)
}
say("load average: %s", paste(readLines("/proc/loadavg"), collapse = " "))
writeLines(out, file.path(bench_dir, "risk.txt"))
