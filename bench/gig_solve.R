# Benchmark of gig_from_expectation() (and the forward map gig_expectation()).
#
#   Rscript bench/gig_solve.R            # from the repository root, with
#                                        # ghmix installed (or R_LIBS set)
#   GHMIX_BENCH_QUICK=1 Rscript bench/gig_solve.R     # fewer repetitions
#
# What it measures:
#   1. C time of one solve: a batch of 10^4 rows solved in ONE call on one
#      thread, divided by 10^4 (median over repetitions), for several
#      families of problems, cold and warm started.  The R overhead of that
#      one call is negligible at this size.
#   2. The R-call overhead of a single-row call: the median time of
#      gig_from_expectation(<one row>) minus the C time of that row.
#   3. 10^5 random feasible eta rows (from random (p, a, b)) on 1 and 2
#      threads.
#   4. The forward map gig_expectation() per row.
# It also writes the random eta rows (and ghmix's results) to
# $GHMIX_BENCH_DIR (default: a temporary directory) and, where a Python
# with normix is found (GHMIX_NORMIX_PYTHON; see bench/README.md), runs
# bench/gig_solve_normix.py, which times normix on the same rows.
# Writes bench/results/gig_solve.md and gig_solve.png.

source(file.path("bench", "common.R"))

quick <- bench_quick
reps <- if (quick) 3L else 7L
if (!nzchar(Sys.getenv("GHMIX_BENCH_DIR"))) {
  Sys.setenv(GHMIX_BENCH_DIR = tempdir())
}

median_time <- function(expr_fun, reps) {
  time_median(expr_fun, reps, warm_up = FALSE)
}
md <- character()
say <- function(...) {
  line <- sprintf(...)
  cat(line, "\n", sep = "")
  md <<- c(md, line)
}

set.seed(20240601)
# p uniform, sqrt(ab) and a/b log-uniform in the given ranges
family <- function(p, lw, lr) {
  function(n) {
    list(p = runif(n, p[1], p[2]), w = 10^runif(n, lw[1], lw[2]),
         r = 10^runif(n, lr[1], lr[2]))
  }
}
families <- list(
  "typical (|p| <= 5, sqrt(ab) in [0.1, 100])" =
    family(c(-5, 5), c(-1, 2), c(-2, 2)),
  "issue grid (|p| <= 50, sqrt(ab) in [1e-6, 1e4], a/b in [1e-8, 1e8])" =
    family(c(-50, 50), c(-6, 4), c(-8, 8)),
  "NIG-like (p = -1/2, sqrt(ab) in [0.01, 100])" =
    family(c(-0.5, -0.5), c(-2, 2), c(-2, 2)),
  "diffuse (|p| <= 1, sqrt(ab) in [1e-4, 0.1])" =
    family(c(-1, 1), c(-4, -1), c(-2, 2))
)
make_eta <- function(f, n) {
  x <- f(n)
  a <- x$w * sqrt(x$r)
  b <- x$w / sqrt(x$r)
  list(p = x$p, a = a, b = b, eta = gig_expectation(x$p, a, b))
}

n1 <- 1e4
rows <- list()
solve_tab <- list()
for (nm in names(families)) {
  d <- make_eta(families[[nm]], n1)
  start <- data.frame(p = d$p, a = d$a, b = d$b)
  fit <- suppressWarnings(gig_from_expectation(d$eta, threads = 1))
  cold <- median_time(function() {
    suppressWarnings(gig_from_expectation(d$eta, threads = 1))
  }, reps) / n1
  warm <- median_time(function() {
    suppressWarnings(gig_from_expectation(d$eta, start = start, threads = 1))
  }, reps) / n1
  interior <- fit$note == ""
  solve_tab[[nm]] <- data.frame(
    family = nm, cold_us = cold * 1e6, warm_us = warm * 1e6,
    mean_iterations = mean(fit$iterations[interior]),
    max_iterations = max(fit$iterations), stringsAsFactors = FALSE
  )
  rows[[nm]] <- c(cold = cold, warm = warm)
}
solve_tab <- do.call(rbind, solve_tab)
md <- c(
  "# gig_from_expectation()", "",
  bench_header(sprintf(
    paste("C time per solve: a batch of %d rows in one call, 1 thread,",
          "median of %d runs"), n1, reps
  )), "",
  md_table(solve_tab, 3L), ""
)
cat(md, sep = "\n")

# R-call overhead of a single-row call
d <- make_eta(families[[1L]], 200)
one <- d$eta[1, ]
k <- if (quick) 2000L else 10000L
t_single <- median_time(function() {
  for (i in seq_len(k)) gig_from_expectation(one, threads = 1)
}, reps) / k
t_c_one <- median_time(function() {
  gig_from_expectation(matrix(one, n1, 3, byrow = TRUE), threads = 1)
}, reps) / n1
say(paste0("single-row call: %.2f us in all = %.2f us C + %.2f us",
           " R overhead (validation, data frame)"),
    t_single * 1e6, t_c_one * 1e6, (t_single - t_c_one) * 1e6)

# 10^5 random feasible rows, the issue's family
n2 <- 1e5
d <- make_eta(families[[2L]], n2)
out_dir <- Sys.getenv("GHMIX_BENCH_DIR", "/tmp")
utils::write.csv(
  data.frame(d$eta, p = d$p, a = d$a, b = d$b)[1:2000, ],
  file.path(out_dir, "gig_solve_eta.csv"), row.names = FALSE
)
d_typ <- make_eta(families[[1L]], 2000)
fit_typ <- gig_from_expectation(d_typ$eta, threads = 1)
utils::write.csv(
  data.frame(d_typ$eta, p = d_typ$p, a = d_typ$a, b = d_typ$b,
             condition = fit_typ$condition),
  file.path(out_dir, "gig_solve_eta_typical.csv"), row.names = FALSE
)
say("")
say("%d random feasible rows (issue grid family):", n2)
say("")
for (th in 1:2) {
  t <- median_time(function() {
    suppressWarnings(gig_from_expectation(d$eta, threads = th))
  }, max(3L, reps %/% 2L))
  say("- %d thread%s: %.3f s (%.2f us per row)", th,
      if (th > 1) "s" else "", t, t / n2 * 1e6)
}
fit <- suppressWarnings(gig_from_expectation(d$eta, threads = 2))
say("- converged %d of %d; at a limit %d; iterations mean %.2f, max %d",
    sum(fit$converged), n2, sum(fit$note != ""), mean(fit$iterations),
    max(fit$iterations))

# forward map
t_fwd <- median_time(function() gig_expectation(d$p, d$a, d$b, threads = 1),
                     reps) / n2
say("")
say("gig_expectation(): %.3f us per row (1 thread)", t_fwd * 1e6)
fit1 <- gig_from_expectation(d$eta[1:2000, ], threads = 1)
utils::write.csv(
  data.frame(
    what = c("us_per_solve_issue_grid", "us_per_solve_typical",
             paste0("condition_", 1:2000)),
    value = c(rows[[2L]][["cold"]] * 1e6, rows[[1L]][["cold"]] * 1e6,
              fit1$condition)
  ),
  file.path(out_dir, "gig_solve_ghmix.csv"), row.names = FALSE
)
cat(sprintf("\nrandom rows written to %s (for bench/gig_solve_normix.py)\n",
            file.path(out_dir, "gig_solve_eta.csv")))

# normix on the same rows ------------------------------------------------------
py <- normix_python()
nx <- NULL
if (nzchar(py)) {
  nx_csv <- file.path(out_dir, "gig_solve_normix_table.csv")
  rc <- system2(py, c(file.path("bench", "gig_solve_normix.py"),
                      if (quick) "20" else "50", nx_csv))
  if (rc == 0 && file.exists(nx_csv)) {
    nx <- utils::read.csv(nx_csv, stringsAsFactors = FALSE)
    md <- c(md, "", paste(
      "normix GeneralizedInverseGaussian.from_expectation on the first rows",
      "of two families (bench/gig_solve_normix.py; CPU; `wrong`: relative",
      "error above 1e-6 where ghmix's condition number is below 1e7;",
      "`vs_ghmix`: time per solve / ghmix's C time per solve):"
    ), "", md_table(nx, 3L))
  } else {
    message("normix run failed (exit status ", rc, "); left out")
  }
}
write_md(md, "gig_solve")

open_png("gig_solve")
vals <- c(solve_tab$cold_us, if (!is.null(nx)) nx$us_per_solve)
labs <- c(paste("ghmix:", sub(" \\(.*", "", solve_tab$family)),
          if (!is.null(nx)) paste("normix", nx$mode, nx$family, sep = ": "))
dot_chart(vals, labs, "microseconds per solve (log scale)",
          "gig_from_expectation(): time per solve")
invisible(grDevices::dev.off())
