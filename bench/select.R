# Model selection over the GH-family variants on EuStockMarkets (d = 4):
# fit_families() with its defaults (GH, NIG, hyperbolic, VG, skew-t,
# asymmetric and symmetric, and the Gaussian: 11 distinct models of the
# issue's 14 variants), one thread, median of 5 runs; and, old (R_LIBS of
# the base build, if given) against new, the fits it is made of.
#   Rscript bench/select.R [OLD_LIB NEW_LIB] > bench/results/select.txt
args <- commandArgs(TRUE)
run_in <- function(lib, expr) {
  out <- system2("Rscript", c("-e", shQuote(expr)), stdout = TRUE,
                 env = paste0("R_LIBS=", lib))
  as.numeric(strsplit(tail(out, 1), " ")[[1]])
}
expr <- paste(
  "suppressMessages(library(ghmix)); ghmix_threads(1);",
  "r <- diff(log(EuStockMarkets));",
  "t <- sapply(1:5, function(i) system.time(suppressWarnings(%s))[[3]]);",
  "cat(median(t), '\\n')"
)
cases <- c(
  fit_nig = "fit_nig(r)", fit_gh = "fit_gh(r)",
  fit_vg = "suppressWarnings(fit_vg(r))", fit_skewt = "fit_skewt(r)"
)
new_lib <- if (length(args) >= 2L) args[[2L]] else .libPaths()[[1L]]
sel <- run_in(new_lib, sprintf(expr, "fit_families(r)"))
cat(sprintf("fit_families(EuStockMarkets), 11 models: median %.3f s\n",
            sel))
if (length(args) >= 2L) {
  cat("\nmedian seconds of 5 runs, old vs new build:\n")
  for (nm in names(cases)) {
    old <- run_in(args[[1L]], sprintf(expr, cases[[nm]]))
    new <- run_in(args[[2L]], sprintf(expr, cases[[nm]]))
    cat(sprintf("%-10s old %.3f  new %.3f\n", nm, old, new))
  }
}
