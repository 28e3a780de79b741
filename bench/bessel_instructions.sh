#!/bin/sh
# Instructions per value of log_besselK() (1 thread) and of base R's
# log(besselK(x, nu, expon.scaled = TRUE)) - x, counted by callgrind:
# reproducible on a shared machine, but not a measure of time.  In the CF2
# region (2 < x < 100) log_besselK() runs about twice base R's instructions
# (its loop keeps divisions off the chain from one term to the next, more
# instructions at more per cycle) and still takes less CPU time there
# (bench/bessel.R): compare builds of ghmix with it, not ghmix with base R.
# Points: the E-step's range of bench/bessel.R (nu = p - d/2, p uniform in
# [-3, 3], d in {1, 2, 5, 10, 20, 50}; x log-uniform in [0.1, 100]), all
# of them and by the kernel's regions.  Each count is that of an R session
# that draws the points and makes the call, less that of the same session
# without the call, divided by the number of points.
#
#   sh bench/bessel_instructions.sh [n]        # default n = 1e5
#
# R_LIBS chooses the build, as for every script here.  Needs valgrind.
# Prints a markdown table (not written to bench/results/ by itself).
set -eu
n=${1:-1e5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
count() { # $1: region, $2: call or "none"
  cat >"$dir/run.R" <<RSCRIPT
suppressPackageStartupMessages(library(ghmix))
set.seed(20240602)
n <- $n
d <- sample(c(1, 2, 5, 10, 20, 50), n, replace = TRUE)
nu <- stats::runif(n, -3, 3) - d / 2
x <- 10^stats::runif(n, -1, 2)
keep <- switch("$1",
  all = rep(TRUE, n), debye = abs(nu) >= 16,
  series = abs(nu) < 16 & x <= 2, cf2 = abs(nu) < 16 & x > 2)
x <- x[keep]
nu <- nu[keep]
cat(length(x), file = "$dir/n")
invisible(switch("$2",
  none = NULL,
  base = log(besselK(x, nu, expon.scaled = TRUE)) - x,
  ghmix = log_besselK(x, nu, threads = 1)))
RSCRIPT
  R -d "valgrind --tool=callgrind --callgrind-out-file=$dir/cg.out" \
    --vanilla --slave -f "$dir/run.R" >/dev/null 2>"$dir/log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$dir/log"
}
echo "| points | n | base R instructions per value | log_besselK instructions per value | ratio |"
echo "| --- | ---: | ---: | ---: | ---: |"
for region in all debye series cf2; do
  none=$(count "$region" none)
  base=$(count "$region" base)
  ghmix=$(count "$region" ghmix)
  m=$(cat "$dir/n")
  awk -v r="$region" -v m="$m" -v a="$none" -v b="$base" -v g="$ghmix" \
    'BEGIN { pb = (b - a) / m; pg = (g - a) / m;
             printf "| %s | %d | %.0f | %.0f | %.2f |\n", r, m, pb, pg, pb / pg }'
done
