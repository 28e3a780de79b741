# Speed of the GIG distribution functions: rgig() draws per second for
# several (p, a, b) next to base R's rgamma() in the same session (the
# baseline that says how loaded the machine is), and dgig(), pgig(),
# qgig() next to dgamma(), pgamma(), qgamma().  Where installed, the same
# functions of ghyp, GeneralizedHyperbolic, QRM and GIGrvg are timed on the
# same parameters (on fewer points when they are slow; rates are per
# second either way), with the number of their values that are not finite
# and their largest relative difference from ghmix's.
#
#   Rscript bench/gig_dist.R [n_draws] [reps] [threads]
#
# defaults: n_draws = 1e6, reps = 5, threads = 1 (d/p/q; rgig always runs
# on one thread); GHMIX_BENCH_QUICK=1: 2e5 draws, 3 runs.  Run from the
# repository root with ghmix installed.  Writes bench/results/gig_dist.md
# and gig_dist.png.

source(file.path("bench", "common.R"))

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.numeric(args[[1]]) else
  if (bench_quick) 2e5 else 1e6
reps <- if (length(args) >= 2) as.integer(args[[2]]) else
  if (bench_quick) 3L else 5L
threads <- if (length(args) >= 3) as.integer(args[[3]]) else 1L

peers <- c(ghyp = have_peer("ghyp"),
           GeneralizedHyperbolic = have_peer("GeneralizedHyperbolic"),
           QRM = have_peer("QRM"), GIGrvg = have_peer("GIGrvg"))

set.seed(20240601)
rows <- list()
add <- function(what, impl, count, secs, value = NULL, ref = NULL,
                note = "") {
  nf <- NA_integer_
  diff <- NA_real_
  if (!is.null(value)) {
    nf <- sum(!is.finite(value))
    if (!is.null(ref)) {
      d <- abs(value - ref) / pmax(abs(ref), 1e-300)
      diff <- if (any(is.finite(d))) max(d[is.finite(d)]) else NA_real_
    }
  }
  rows[[length(rows) + 1L]] <<- data.frame(
    what = what, implementation = impl, n = count, seconds = secs,
    per_second = count / secs, not_finite = nf, max_rel_diff = diff,
    note = note, stringsAsFactors = FALSE
  )
}
# Times f(): ghmix and base R by the median of `r` runs; a peer (r = 1)
# once, in a forked child that is stopped after `limit` seconds (some peer
# code loops in C, where setTimeLimit() cannot stop it).  The value of the
# first call is checked against `ref`.
timed <- function(what, impl, count, f, ref = NULL, r = reps, limit = 60) {
  message(sprintf("%s: %s", impl, what))
  if (r > 1L) {
    value <- suppressWarnings(f())
    secs <- time_median(function() suppressWarnings(f()), r, warm_up = FALSE)
    add(what, impl, count, secs, value, ref)
    return(invisible())
  }
  out <- in_child(function() {
    tryCatch({
      t <- system.time(v <- suppressWarnings(f()))[["elapsed"]]
      list(value = v, secs = t)
    }, error = function(e) paste("error:", substr(conditionMessage(e), 1, 60)))
  }, limit)
  if (is.character(out) || inherits(out, "try-error")) {
    note <- if (identical(out, "timeout")) {
      sprintf("no result after %g s", limit)
    } else {
      as.character(out)
    }
    add(what, impl, count, NA_real_, note = note)
    return(invisible())
  }
  add(what, impl, count, out$secs, out$value, ref)
}

# 1. random variates ----------------------------------------------------------
timed("rgamma(n, 2) (baseline)", "base R", n, function() stats::rgamma(n, 2))
draw_sets <- list(
  "p = -0.5, a = 2, b = 3 (NIG mixing)" = c(-0.5, 2, 3),
  "p = 0.3, a = b = 0.01 (not T-concave)" = c(0.3, 0.01, 0.01),
  "p = 50, a = b = 1" = c(50, 1, 1),
  "p = 1, a = b = 1e4" = c(1, 1e4, 1e4),
  "p = 2, a = 3, b = 0 (gamma)" = c(2, 3, 0)
)
n_peer <- n / 10
for (nm in names(draw_sets)) {
  v <- draw_sets[[nm]]
  what <- paste("rgig:", nm)
  timed(what, "ghmix", n, function() rgig(n, v[1], v[2], v[3]))
  if (v[3] > 0) { # the peers need b > 0
    if (peers[["ghyp"]]) {
      timed(what, "ghyp", n_peer, function() {
        ghyp::rgig(n_peer, lambda = v[1], chi = v[3], psi = v[2])
      }, r = 1L)
    }
    if (peers[["GeneralizedHyperbolic"]]) {
      timed(what, "GeneralizedHyperbolic", n_peer, function() {
        GeneralizedHyperbolic::rgig(n_peer, chi = v[3], psi = v[2],
                                    lambda = v[1])
      }, r = 1L)
    }
    if (peers[["QRM"]]) { # slow: 1000 draws
      timed(what, "QRM", 1000, function() {
        QRM::rGIG(1000, lambda = v[1], chi = v[3], psi = v[2])
      }, r = 1L, limit = 30)
    }
    if (peers[["GIGrvg"]]) {
      timed(what, "GIGrvg", n, function() {
        GIGrvg::rgig(n, lambda = v[1], chi = v[3], psi = v[2])
      })
    }
  }
}

# 2. density, distribution function, quantiles ---------------------------------
m <- if (bench_quick) 2e4 else 1e5
pr <- seq(0.5, m - 0.5) / m
xg <- stats::qgamma(pr, 2, 1)
timed("density", "base R dgamma", m, function() stats::dgamma(xg, 2, 1))
timed("distribution function", "base R pgamma", m,
      function() stats::pgamma(xg, 2, 1))
timed("quantile", "base R qgamma", m, function() stats::qgamma(pr, 2, 1))
dens_sets <- list(
  "p = -0.5, a = 2, b = 3" = c(-0.5, 2, 3),
  "p = -50, a = b = 1" = c(-50, 1, 1),
  "p = 1, a = b = 1e4" = c(1, 1e4, 1e4)
)
m_slow <- 200 # points for the peers' quadrature-based p and q functions
for (nm in names(dens_sets)) {
  v <- dens_sets[[nm]]
  xs <- qgig(pr, v[1], v[2], v[3])
  sub <- xs[round(seq(1, m, length.out = m_slow))]
  prs <- pr[round(seq(1, m, length.out = m_slow))]
  d_ref <- dgig(xs, v[1], v[2], v[3])
  p_ref <- pgig(sub, v[1], v[2], v[3])
  q_ref <- qgig(prs, v[1], v[2], v[3])
  timed(paste("dgig:", nm), "ghmix", m,
        function() dgig(xs, v[1], v[2], v[3], threads = threads))
  timed(paste("pgig:", nm), "ghmix", m,
        function() pgig(xs, v[1], v[2], v[3], threads = threads))
  timed(paste("qgig:", nm), "ghmix", m / 10, function() {
    qgig(pr[seq(1, m, by = 10)], v[1], v[2], v[3], threads = threads)
  })
  if (peers[["ghyp"]]) {
    timed(paste("dgig:", nm), "ghyp", m, function() {
      ghyp::dgig(xs, lambda = v[1], chi = v[3], psi = v[2])
    }, ref = d_ref)
    timed(paste("pgig:", nm), "ghyp", m_slow, function() {
      ghyp::pgig(sub, lambda = v[1], chi = v[3], psi = v[2])
    }, ref = p_ref, r = 1L)
    timed(paste("qgig:", nm), "ghyp", m_slow / 10, function() {
      ghyp::qgig(prs[seq(1, m_slow, by = 10)], lambda = v[1], chi = v[3],
                 psi = v[2])
    }, ref = q_ref[seq(1, m_slow, by = 10)], r = 1L)
  }
  if (peers[["GeneralizedHyperbolic"]]) {
    timed(paste("dgig:", nm), "GeneralizedHyperbolic", m, function() {
      GeneralizedHyperbolic::dgig(xs, chi = v[3], psi = v[2], lambda = v[1])
    }, ref = d_ref)
    timed(paste("pgig:", nm), "GeneralizedHyperbolic", m_slow, function() {
      GeneralizedHyperbolic::pgig(sub, chi = v[3], psi = v[2], lambda = v[1])
    }, ref = p_ref, r = 1L)
    timed(paste("qgig:", nm), "GeneralizedHyperbolic", m_slow / 10,
          function() {
            GeneralizedHyperbolic::qgig(prs[seq(1, m_slow, by = 10)],
                                        chi = v[3], psi = v[2],
                                        lambda = v[1])
          }, ref = q_ref[seq(1, m_slow, by = 10)], r = 1L)
  }
}

tab <- do.call(rbind, rows)
md <- c(
  "# GIG distribution functions", "",
  bench_header(sprintf(
    "ghmix d/p/q on %d thread(s); median of %d runs (1 run for slow peers)",
    threads, reps
  )), "",
  md_table(tab, 3L), "",
  paste("`not_finite`: values that are NaN or infinite; `max_rel_diff`:",
        "largest relative difference from ghmix's value (ghmix's own",
        "accuracy against mpmath is tested in tests/testthat)."),
  paste("Peers not installed are left out (see bench/README.md)."),
  paste("Peers: rgig on n/10 draws (QRM's rGIG on 1000), pgig and qgig on",
        "200 and 20 points, one run each, each call stopped after 60 s",
        "(QRM's rGIG: 30 s), in a child process.")
)
write_md(md, "gig_dist")

open_png("gig_dist", height = 40 + 16 * nrow(tab))
dot_chart(tab$per_second, paste(tab$implementation, tab$what, sep = ": "),
          "values per second (log scale)", "GIG distribution functions")
invisible(grDevices::dev.off())
