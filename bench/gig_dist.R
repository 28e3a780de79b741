# Speed of the GIG distribution functions: rgig() draws per second for
# several (p, a, b) next to base R's rgamma() in the same session (the
# baseline that says how loaded the machine is), and dgig(), pgig(),
# qgig() on 10^5 points.  Each timing is the median of `reps` runs.  Prints
# a markdown table.
#
#   Rscript bench/gig_dist.R [n_draws] [reps] [threads]
#
# defaults: n_draws = 1e6, reps = 5, threads = 1 (d/p/q; rgig always runs
# on one thread).  Needs the installed package.

suppressPackageStartupMessages(library(ghmix))

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.numeric(args[[1]]) else 1e6
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 5L
threads <- if (length(args) >= 3) as.integer(args[[3]]) else 1L

time_median <- function(f) {
  f() # warm up
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    system.time(f())[["elapsed"]]
  }, numeric(1))
  stats::median(t)
}

rate <- function(count, secs) {
  if (secs > 0) sprintf("%.3g", count / secs) else "Inf"
}

set.seed(20240601)
rows <- list()
add <- function(what, count, secs, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    what = what, n = format(count, big.mark = ",", scientific = FALSE),
    seconds = sprintf("%.3f", secs), per_second = rate(count, secs),
    note = note, stringsAsFactors = FALSE
  )
}

t_gamma <- time_median(function() stats::rgamma(n, 2))
add("rgamma(n, 2) (base R baseline)", n, t_gamma)

draw_sets <- list(
  "p = 0.5, a = b = 1" = c(0.5, 1, 1),
  "p = -0.5, a = 2, b = 3 (NIG mixing)" = c(-0.5, 2, 3),
  "p = 0, a = b = 1" = c(0, 1, 1),
  "p = 0.3, a = b = 0.01 (non-T-concave)" = c(0.3, 0.01, 0.01),
  "p = 1.5, a = b = 0.01" = c(1.5, 0.01, 0.01),
  "p = 50, a = b = 1" = c(50, 1, 1),
  "p = -50, a = 1e-3, b = 1e-9" = c(-50, 1e-3, 1e-9),
  "p = 1, a = b = 1e4" = c(1, 1e4, 1e4),
  "p = 2, a = 3, b = 0 (gamma)" = c(2, 3, 0),
  "p = 0.5, a = 1, b = 0 (gamma, shape < 1)" = c(0.5, 1, 0),
  "p = -2, a = 0, b = 3 (inverse gamma)" = c(-2, 0, 3)
)
for (nm in names(draw_sets)) {
  par <- draw_sets[[nm]]
  secs <- time_median(function() rgig(n, par[1], par[2], par[3]))
  add(paste0("rgig: ", nm), n, secs,
      sprintf("%.2f x rgamma's time", secs / t_gamma))
}
# parameters that change with every draw (set-up each time)
pv <- stats::runif(n / 10, -3, 3)
secs <- time_median(function() rgig(n / 10, pv, 1, 2))
add("rgig: p varies per draw in [-3, 3], a = 1, b = 2", n / 10, secs)

m <- 1e5
x <- stats::qgamma(seq(0.5, m - 0.5) / m, 2, 1)
pr <- seq(0.5, m - 0.5) / m
dens_sets <- list(
  "p = 0.5, a = b = 1" = c(0.5, 1, 1),
  "p = -50, a = b = 1" = c(-50, 1, 1),
  "p = 1, a = b = 1e4" = c(1, 1e4, 1e4),
  "p = 2, a = 3, b = 0 (gamma)" = c(2, 3, 0)
)
t_dg <- time_median(function() stats::dgamma(x, 2, 1))
t_pg <- time_median(function() stats::pgamma(x, 2, 1))
t_qg <- time_median(function() stats::qgamma(pr, 2, 1))
add("dgamma (base R)", m, t_dg)
add("pgamma (base R)", m, t_pg)
add("qgamma (base R)", m, t_qg)
for (nm in names(dens_sets)) {
  par <- dens_sets[[nm]]
  xs <- qgig(pr, par[1], par[2], par[3])
  pr10 <- pr[seq(1, m, by = 10)]
  add(paste0("dgig: ", nm), m, time_median(function() {
    dgig(xs, par[1], par[2], par[3], threads = threads)
  }))
  add(paste0("pgig: ", nm), m, time_median(function() {
    pgig(xs, par[1], par[2], par[3], threads = threads)
  }))
  add(paste0("qgig: ", nm), m / 10, time_median(function() {
    qgig(pr10, par[1], par[2], par[3], threads = threads)
  }))
}
pv <- stats::runif(m, -3, 3)
add("dgig: p varies per point in [-3, 3], a = 1, b = 2", m,
    time_median(function() dgig(x, pv, 1, 2, threads = threads)))
add("pgig: p varies per point in [-3, 3], a = 1, b = 2", m,
    time_median(function() pgig(x, pv, 1, 2, threads = threads)))

tab <- do.call(rbind, rows)
cat(sprintf("GIG distribution functions, ghmix %s, %s; median of %d runs, ",
            utils::packageVersion("ghmix"), R.version.string, reps),
    sprintf("d/p/q on %d thread(s)\n\n", threads), sep = "")
cat("| what | n | seconds | per second | note |\n")
cat("| --- | ---: | ---: | ---: | --- |\n")
for (i in seq_len(nrow(tab))) {
  cat(sprintf("| %s | %s | %s | %s | %s |\n", tab$what[i], tab$n[i],
              tab$seconds[i], tab$per_second[i], tab$note[i]))
}
