# Throughput of log_besselK() against base R's besselK() and, where the gsl
# package is installed, GSL's bessel_lnKnu(), on the points of issue 2: 10^6
# values with x log-uniform in [1e-3, 1e3] and nu uniform in [-50, 50]
# (fixed seed).  Each timing is the median of `reps` runs, all in this one
# R session, so the ratios compare like with like.  Also reports how many
# values each method gets wrong or non-finite on these points (against
# log_besselK, whose own accuracy is measured against mpmath in the tests
# and in the vignette "gig-bessel").
#
#   Rscript bench/bessel.R [n] [reps]      # from the repository root
#
# defaults: n = 1e6, reps = 5 (GHMIX_BENCH_QUICK=1: 2e5, 3).  Needs the
# installed package.  Writes bench/results/bessel.md and bessel.png.  A
# second section times the E-step's range (see below) overall and by the
# kernel's regions.

source(file.path("bench", "common.R"))

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.numeric(args[[1]]) else
  if (bench_quick) 2e5 else 1e6
reps <- if (length(args) >= 2) as.integer(args[[2]]) else
  if (bench_quick) 3L else 5L

set.seed(20240601)
x <- 10^stats::runif(n, -3, 3)
nu <- stats::runif(n, -50, 50)
header <- bench_header(sprintf(
  paste("log K_nu(x) at %g points (x log-uniform in [1e-3, 1e3], nu uniform",
        "in [-50, 50], set.seed(20240601)); median of %d runs"),
  n, reps
))

max_threads <- ghmix_info()$max_threads
two <- min(2L, max_threads)
cases <- list(
  list("base R besselK(x, nu, expon.scaled = TRUE)", 1L,
       function() log(besselK(x, nu, expon.scaled = TRUE)) - x),
  list("log_besselK(x, nu)", 1L,
       function() log_besselK(x, nu, threads = 1)),
  list("log_besselK(x, nu, gradient = TRUE)", 1L,
       function() log_besselK(x, nu, gradient = TRUE, threads = 1)),
  list("log_besselK(x, nu)", two,
       function() log_besselK(x, nu, threads = two)),
  list("log_besselK(x, nu, gradient = TRUE)", two,
       function() log_besselK(x, nu, gradient = TRUE, threads = two))
)
if (have_peer("gsl")) {
  cases <- c(cases, list(list(
    "gsl::bessel_lnKnu(abs(nu), x)", 1L,
    function() gsl::bessel_lnKnu(abs(nu), x)
  )))
}

exact <- log_besselK(x, nu, threads = max_threads)
res <- do.call(rbind, lapply(cases, function(cs) {
  value <- suppressWarnings(cs[[3]]())
  t <- time_median(function() suppressWarnings(cs[[3]]()), reps)
  err <- abs(value - exact) / pmax(1, abs(exact))
  data.frame(
    call = cs[[1]], threads = cs[[2]], seconds = t,
    million_per_s = n / t / 1e6,
    not_finite = sum(!is.finite(value)),
    max_rel_diff = max(err[is.finite(err)]),
    stringsAsFactors = FALSE
  )
}))
res$vs_base_R <- res$million_per_s / res$million_per_s[1]

value1 <- res$seconds[2]
grad1 <- res$seconds[3]
value2 <- res$seconds[4]
checks <- data.frame(
  check = c("value, 1 thread: throughput vs base R (bar >= 1)",
            "gradient / value cost, 1 thread (bar <= 2.5)",
            sprintf("value, %d threads vs 1 thread (bar >= 1.8)", two)),
  ratio = c(res$vs_base_R[2], grad1 / value1, value1 / value2),
  stringsAsFactors = FALSE
)
checks$met <- ifelse(c(checks$ratio[1] >= 1, checks$ratio[2] <= 2.5,
                       checks$ratio[3] >= 1.8), "yes", "no")

out <- res
out$call <- paste0("`", out$call, "`")
md <- c(
  "# log_besselK() throughput", "", header, "",
  md_table(out, 3L), "",
  "`not_finite`: values that are Inf, -Inf or NaN; `max_rel_diff`: largest",
  "|value - log_besselK| / max(1, |log_besselK|) over the finite ones.",
  "", md_table(checks, 3L)
)
if (max_threads < 2) {
  md <- c(md, "", "At most 1 thread here: the multi-thread rows ran on 1.")
}
open_png("bessel")
dot_chart(res$million_per_s,
          sprintf("%s, %d thr", res$call, res$threads),
          "million evaluations per second (log scale)",
          sprintf("log K_nu(x), %g points", n))
invisible(grDevices::dev.off())

# The E-step's range --------------------------------------------------------
# bench_estep_points() (common.R): the orders and arguments of a GH
# E-step, timed as above (1 thread against base R, and 2 threads against
# 1), overall and by the kernel's regions.
pts <- bench_estep_points(n)
x_e <- pts$x
nu_e <- pts$nu
region <- pts$region
estep_row <- function(label, keep) {
  xk <- x_e[keep]
  nk <- nu_e[keep]
  base <- time_both(function() {
    log(besselK(xk, nk, expon.scaled = TRUE)) - xk
  }, reps)
  one <- time_both(function() log_besselK(xk, nk, threads = 1), reps)
  data.frame(points = label, n = length(xk), base_R_s = base[1],
             log_besselK_s = one[1], vs_base_R = base[1] / one[1],
             base_R_cpu_s = base[2], log_besselK_cpu_s = one[2],
             vs_base_R_cpu = base[2] / one[2], stringsAsFactors = FALSE)
}
estep <- do.call(rbind, c(
  list(estep_row("all", rep(TRUE, n))),
  lapply(sort(unique(region)), function(g) estep_row(g, region == g))
))
two_e <- time_median(function() log_besselK(x_e, nu_e, threads = two), reps)
estep_checks <- data.frame(
  check = c("E-step range, 1 thread: throughput vs base R, CPU time (bar >= 3)",
            sprintf("E-step range, %d threads vs 1 thread (bar >= 1.8)",
                    two)),
  ratio = c(estep$vs_base_R_cpu[1], estep$log_besselK_s[1] / two_e),
  stringsAsFactors = FALSE
)
estep_checks$met <- ifelse(estep_checks$ratio >= c(3, 1.8), "yes", "no")
md <- c(md, "", "## The E-step's range", "",
        paste("nu = p - d/2, p uniform in [-3, 3], d in {1, 2, 5, 10, 20,",
              "50}; x log-uniform in [0.1, 100]; the same number of points",
              "and runs; seconds are medians (elapsed, and CPU: user plus",
              "system), 1 thread."), "",
        md_table(estep, 3L), "", md_table(estep_checks, 3L))
write_md(md, "bessel")
