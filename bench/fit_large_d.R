# Time per EM iteration of fit_gh() at n = 2552, d = 468 (the shape of
# normix's benchmark: daily returns of 468 stocks) with the BLAS that R
# uses, on 1 and 2 threads.  Run it once per BLAS, e.g. with Debian's
# reference BLAS and then with OpenBLAS preloaded:
#
#   Rscript bench/fit_large_d.R
#   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 \
#     Rscript bench/fit_large_d.R
#
# (or switch R's BLAS with update-alternatives).  Appends one section per
# run to bench/results/fit_large_d.md (and rows to fit_large_d.csv) and
# draws fit_large_d.png from all runs so far.  The heavy algebra is level
# 3: one triangular solve of all rows and one rank-k update of sum w u u'
# per E-step, in blocks of rows; ghmix holds OpenBLAS at one thread while
# its own threads call it.

source(file.path("bench", "common.R"))

blas <- basename(extSoftVersion()[["BLAS"]])
preload <- Sys.getenv("LD_PRELOAD")
if (nzchar(preload)) {
  # extSoftVersion() still names the library R was linked against
  blas <- paste0(basename(dirname(preload)), "/", basename(preload),
                 " (LD_PRELOAD)")
}
x <- simulate_mixture(2552, 468, 1.5, 3, 0.4, 2)
start <- list(mu = colMeans(x), gamma = rep(0, 468), sigma = stats::cov(x),
              p = -0.5, a = 1, b = 1)
ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
rows <- lapply(c(1L, 2L), function(th) {
  per_iter <- vapply(seq_len(if (bench_quick) 1L else 3L), function(i) {
    f <- suppressWarnings(fit_gh(x, start = start, control = ctl,
                                 threads = th))
    1000 * (f$timings[["estep"]] + f$timings[["mstep"]]) /
      f$timings[["esteps"]]
  }, numeric(1))
  data.frame(blas = blas, threads = th,
             ms_per_iteration = round(stats::median(per_iter), 1))
})
tab <- do.call(rbind, rows)
print(tab)

dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
md_file <- file.path(bench_dir, "fit_large_d.md")
if (!file.exists(md_file)) {
  writeLines(c(
    "# fit_gh() per EM iteration, n = 2552, d = 468", "",
    paste("One E-step and one M-step per iteration (5 plain EM iterations",
          "from a fixed start, median of 3 fits). normix: 1.70 s per",
          "iteration on a CPU, 0.49 s on an RTX 4090 (its own figures)."),
    ""
  ), md_file)
}
cat(c(bench_header(blas), "", md_table(tab), ""), file = md_file,
    sep = "\n", append = TRUE)

csv_file <- file.path(bench_dir, "fit_large_d.csv")
utils::write.table(tab, csv_file, sep = ",", row.names = FALSE,
                   col.names = !file.exists(csv_file),
                   append = file.exists(csv_file))
all <- utils::read.csv(csv_file)
grDevices::png(file.path(bench_dir, "fit_large_d.png"), width = 800,
               height = 400)
graphics::par(mar = c(5, 24, 3, 1))
graphics::barplot(all$ms_per_iteration,
                  names.arg = paste0(all$blas, ", ", all$threads, " thr"),
                  horiz = TRUE, las = 1, xlab = "ms per EM iteration",
                  main = "fit_gh, n = 2552, d = 468", cex.names = 0.7)
invisible(grDevices::dev.off())
