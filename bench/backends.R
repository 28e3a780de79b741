# The E-step per EM iteration on the CPU and, in a CUDA build on a machine
# with a GPU, on the GPU: ghmix_benchmark_backends() over a range of sizes,
# for NIG and GH, and the crossover size from which the GPU is faster.
#
#   Rscript bench/backends.R
#
# from the repository root, with ghmix installed; GHMIX_BENCH_QUICK=1: up to
# 10^5 rows.
#
# Without a usable GPU it times the CPU alone and says so.  For the CUDA
# kernels without R, on the GPU machine: bash tests/c/run-gpu.sh.  Writes
# bench/results/backends.md and backends.png.

source(file.path("bench", "common.R"))

info <- ghmix_info()
gpu <- info$cuda && nrow(info$devices) > 0
backends <- if (gpu) c("cpu", "cuda") else "cpu"
if (!gpu) {
  message("no usable GPU (", info$devices_reason, "): timing the CPU only")
}
n <- if (bench_quick) 10^(3:5) else c(10^(3:6), if (gpu) 10^7)
d <- 10L
threads <- info$max_threads

res <- lapply(c("nig", "gh"), function(fam) {
  message("ghmix_benchmark_backends(family = \"", fam, "\")")
  b <- ghmix_benchmark_backends(n = n, d = d, family = fam,
                                backends = backends, reps = 5L,
                                threads = threads)
  print(b)
  out <- data.frame(family = toupper(fam), as.data.frame(b))
  attr(out, "crossover") <- attr(b, "crossover")
  out
})
tab <- do.call(rbind, res)
cross <- vapply(res, function(x) attr(x, "crossover"), numeric(1))
md <- c(
  "# E-step per EM iteration: CPU and GPU", "",
  bench_header(sprintf(
    "ghmix_benchmark_backends(d = %d, reps = 5) on %d CPU threads%s",
    d, threads,
    if (gpu) paste0("; GPU: ", info$devices$name[1]) else "; no usable GPU"
  )), "",
  md_table(tab, 3L), "",
  if (gpu) {
    sprintf("Crossover (GPU faster from): NIG n = %s, GH n = %s.",
            format(cross[1]), format(cross[2]))
  } else {
    paste("No GPU here: CPU only. GPU figures come from running this script",
          "(and bash tests/c/run-gpu.sh) on a machine with one.")
  }
)
write_md(md, "backends")

open_png("backends")
cols <- c(NIG = "#4575b4", GH = "#d73027")
ms <- c(tab$cpu_ms, tab$cuda_ms)
ms <- ms[is.finite(ms) & ms > 0]
plot(NA, xlim = range(tab$n), ylim = range(ms) * c(0.5, 1.25),
     log = "xy", xlab = "rows n", ylab = "milliseconds per E-step",
     main = sprintf("E-step, d = %d: CPU (%d threads)%s", d, threads,
                    if (gpu) " and GPU" else ""))
for (fam in names(cols)) {
  s <- tab[tab$family == fam, ]
  lines(s$n, pmax(s$cpu_ms, min(ms) / 2), type = "b", pch = 16,
        col = cols[[fam]])
  if (gpu) {
    lines(s$n, s$cuda_ms, type = "b", pch = 1, lty = 2, col = cols[[fam]])
  }
}
legend("topleft", c(paste(names(cols), "CPU"),
                    if (gpu) paste(names(cols), "GPU")),
       col = c(cols, if (gpu) cols), lty = c(1, 1, if (gpu) c(2, 2)),
       pch = c(16, 16, if (gpu) c(1, 1)), bty = "n")
invisible(grDevices::dev.off())
