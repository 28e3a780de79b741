# log_besselK() on bench/bessel.R's E-step points, by the kernel's regions,
# for the build on R_LIBS: medians of CPU (user plus system) and elapsed
# seconds of `reps` calls at 1 and 2 threads, one line per region.  To
# compare two builds, run it alternately with each on R_LIBS (same minute,
# same load) and compare the CPU times:
#
#   for i in 1 2 3; do for lib in LIB_A LIB_B; do
#     R_LIBS=$lib Rscript bench/bessel_builds.R $lib; done; done
#
# Arguments: a label for the build (printed on each line), n (1e6), reps (5).

source(file.path("bench", "common.R"))

args <- commandArgs(trailingOnly = TRUE)
label <- if (length(args) >= 1) args[[1]] else "build"
n <- if (length(args) >= 2) as.numeric(args[[2]]) else 1e6
reps <- if (length(args) >= 3) as.integer(args[[3]]) else 5L

pts <- bench_estep_points(n) # those of bench/bessel.R's E-step section
x_e <- pts$x
nu_e <- pts$nu
region <- pts$region
rows <- lapply(c("all", sort(unique(region))), function(g) {
  keep <- if (g == "all") rep(TRUE, n) else region == g
  xk <- x_e[keep]
  nk <- nu_e[keep]
  t1 <- time_both(function() log_besselK(xk, nk, threads = 1), reps)
  t2 <- time_both(function() log_besselK(xk, nk, threads = 2), reps)
  data.frame(build = label, region = g, n = sum(keep),
             cpu_1t = t1[["cpu"]], elapsed_1t = t1[["elapsed"]],
             cpu_2t = t2[["cpu"]], elapsed_2t = t2[["elapsed"]])
})
cat(bench_header(sprintf("E-step points by region, n = %g, median of %d",
                         n, reps)), "\n")
print(do.call(rbind, rows), row.names = FALSE)
