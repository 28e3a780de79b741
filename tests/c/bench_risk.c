/* C-only time of one expected-shortfall evaluation (src/core/gh_risk.c):
 * the quantile of a univariate GH law at one level and E[(q - Z)^+], as
 * ghmix_gh1_risk_batch does it per level, without R.  The law: the NIG
 * fitted to the DAX log returns (bench/risk.R's).  Prints the median over
 * runs of the CPU time per evaluation, for ES and for the quantile alone.
 *
 *   make -C tests/c bench-risk        (BENCH_RISK_ARGS="calls runs") */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gh_risk.h"
#include "gig.h"

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median CPU time per call over runs of `calls` evaluations; *check:
 * the last shortfall (ES) or quantile. */
static double time_es(const ghmix_gig *gig, double g, double alpha, int es,
                      int calls, int runs, double *check) {
  double t[64], map[2], sf = 0.0, zq = 0.0;
  int r, i;
  for (r = 0; r < runs; r++) {
    double t0 = cpu_seconds();
    for (i = 0; i < calls; i++) {
      zq = ghmix_gh1_risk_quantile(gig, g, alpha, map, es ? &sf : NULL);
      if (es && isnan(sf))
        ghmix_gh1_tail_moments(gig, g, zq, map, &sf, NULL);
    }
    t[r] = (cpu_seconds() - t0) / calls;
  }
  qsort(t, (size_t)runs, sizeof(double), cmp_double);
  *check = es ? sf : zq;
  return t[runs / 2];
}

int main(int argc, char **argv) {
  /* fit_nig(diff(log(EuStockMarkets))[, "DAX"]): p, a, b, gamma / sigma */
  const double p = -0.5, a = 0.92390493748890246, b = 0.92390493748890146;
  const double g = -0.00042716966379066862 / 0.01021050425047638;
  int calls = argc > 1 ? atoi(argv[1]) : 5000;
  int runs = argc > 2 ? atoi(argv[2]) : 7;
  double v, t;
  ghmix_gig gig;
  if (calls < 1 || runs < 1 || runs > 64 ||
      !ghmix_gig_init_density(p, a, b, &gig))
    return 1;
  t = time_es(&gig, g, 0.01, 1, calls, runs, &v);
  printf("ES at 0.01 (quantile and shortfall): %6.2f us CPU per evaluation "
         "(E[(q - Z)^+] = %.17g)\n",
         t * 1e6, v);
  t = time_es(&gig, g, 0.01, 0, calls, runs, &v);
  printf("quantile at 0.01 alone:              %6.2f us CPU per evaluation "
         "(zq = %.17g)\n",
         t * 1e6, v);
  printf("(medians of %d runs of %d calls)\n", runs, calls);
  return 0;
}
