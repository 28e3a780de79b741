# The factor-analytic E-step (factor_estep(), Sigma = F F' + diag(D),
# src/cpu/factor_cpu.c) against the full-Sigma E-step (mix_estep() with the
# formed Sigma, its Cholesky factor included, as a fit computes it) in the
# same run: n = 2552, d = 468 (normix's panel shape), r = 10, GH, 2 threads
# (and 1), medians over `reps` interleaved calls, wall and CPU time; then
# the d = 5000, n = 2000, r = 5 E-step's time and the growth of the peak
# resident memory it causes.  The issue's target: an EM iteration (E-step
# plus M-step) of at most 10 ms at the first shape, so an E-step of at most
# about 5 ms.
#   Rscript bench/factor_estep.R   (writes bench/results/factor_estep.md)

source(file.path("bench", "common.R"))

reps <- if (bench_quick) 5L else 41L
n <- 2552L
d <- 468L
r <- 10L
set.seed(1)
f <- matrix(rnorm(d * r, sd = 0.3), d, r)
uniq <- runif(d, 0.5, 1.5)
y <- rgig(n, -1.2, 1.1, 1.3)
gamma <- rep(0.02, d)
x <- outer(y, gamma) + sqrt(y) * (matrix(rnorm(n * r), n, r) %*% t(f) +
                                    matrix(rnorm(n * d), n, d) %*%
                                      diag(sqrt(uniq)))
par <- list(mu = colMeans(x), gamma = gamma, loadings = f,
            uniquenesses = uniq, p = -1.2, a = 1.1, b = 1.3)
full_par <- c(par[c("mu", "gamma", "p", "a", "b")],
              list(sigma = tcrossprod(f) + diag(uniq)))
what <- ghmix:::mix_what("gh")

cases <- list(
  factor_2 = function() ghmix:::factor_estep(x, par, what, threads = 2L),
  factor_1 = function() ghmix:::factor_estep(x, par, what, threads = 1L),
  full_2 = local({
    eng <- ghmix:::mix_engine_cpu(x, 2L)
    function() ghmix:::mix_estep(eng, full_par, what)
  })
)
for (cs in cases) cs()
wall <- cpu <- matrix(NA_real_, reps, length(cases),
                      dimnames = list(NULL, names(cases)))
load_start <- readLines("/proc/loadavg", warn = FALSE)
for (i in seq_len(reps)) {
  for (k in names(cases)) {
    t <- system.time(cases[[k]]())
    wall[i, k] <- t[["elapsed"]]
    cpu[i, k] <- t[["user.self"]] + t[["sys.self"]]
  }
}
tab <- data.frame(
  e_step = c("factor_estep(), r = 10", "factor_estep(), r = 10",
             "mix_estep(), full Sigma"),
  threads = c(2L, 1L, 2L),
  wall_ms = 1e3 * apply(wall, 2L, stats::median),
  wall_min_ms = 1e3 * apply(wall, 2L, min),
  cpu_ms = 1e3 * apply(cpu, 2L, stats::median)
)
rownames(tab) <- NULL
print(tab)

# d = 5000, n = 2000, r = 5: no d x d matrix (one would be 200 MB)
status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"),
               value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}
big_d <- 5000L
big_n <- 2000L
big_x <- matrix(rnorm(big_n * big_d), big_n, big_d)
big_par <- list(mu = numeric(big_d), gamma = rep(0.01, big_d),
                loadings = matrix(rnorm(big_d * 5L, sd = 0.3), big_d, 5L),
                uniquenesses = rep(1, big_d), p = -1, a = 1, b = 1)
invisible(gc())
reset <- tryCatch({
  writeLines("5", "/proc/self/clear_refs")
  TRUE
}, error = function(e) FALSE)
rss0 <- status_kb(if (reset) "VmRSS" else "VmHWM")
big_t <- system.time(ghmix:::factor_estep(big_x, big_par, what,
                                          threads = 2L))[["elapsed"]]
peak_mb <- status_kb("VmHWM") / 1024
grow_mb <- peak_mb - rss0 / 1024

write_md(c(
  "# The factor-analytic E-step", "",
  paste0("n = ", n, ", d = ", d, ", r = ", r, " (GH): factor_estep() ",
         "(Woodbury, O(d r) per row) against mix_estep() with the formed ",
         "Sigma (its Cholesky factor included), median of ", reps,
         " interleaved calls each (wall_min_ms: the fastest); cpu_ms = ",
         "user + system time of the R process per call, the figure to ",
         "read on a shared machine, where the wall time is noisy."),
  "", bench_header("factor_estep"),
  paste("Load average at the start of the timing loop:", load_start), "",
  md_table(tab), "",
  sprintf(paste("d = %d, n = %d, r = 5, 2 threads: %.0f ms per E-step;",
                "the peak resident memory of the R process (x alone is",
                "%.0f MB) grew by %.1f MB during it, to %.0f MB (%s)."),
          big_d, big_n, 1e3 * big_t, 8 * big_n * big_d / 2^20, grow_mb,
          peak_mb,
          if (reset) "VmHWM reset before" else "VmHWM before and after")
), "factor_estep")
