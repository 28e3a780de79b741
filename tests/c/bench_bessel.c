/* Micro-benchmark of the core Bessel kernel, single thread, no R.
 *
 *   bench_bessel [n] [reps]
 *   bench_bessel --points [reps]
 *
 * n points (default 10^6) from the benchmark distribution of issue 2
 * (x log-uniform in [1e-3, 1e3], nu uniform in [-50, 50]), drawn with a
 * fixed 64-bit LCG, so every run and every build times the same points.
 * Times ghmix_bessel_logk, ghmix_bessel_eval(GRAD), ghmix_bessel_eval(GRAD |
 * HESS | RATIOS); reports the median over reps of ns per evaluation and
 * millions of evaluations per second, then ns per evaluation by x decade and
 * |nu| band (for logk, n/50 points per cell), to show where the time goes.
 * --points: ns per ghmix_bessel_eval at fixed (x, nu) in the trapezoid
 * range 2 < x < 30 (the EM E-step's common case), for what = 0, RATIOS and
 * RATIOS|GRAD; median and least over reps (default 51) runs of 2000 calls.
 */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bessel.h"

static unsigned long long lcg = 20240601ULL;
static double unif(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (lcg >> 11) * (1.0 / 9007199254740992.0);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return (d > 0) - (d < 0);
}

static volatile double sink;

/* mode: -1 logk, else flags for eval */
static double run(const double *x, const double *nu, long n, int mode) {
  double s = 0, t = now();
  if (mode < 0) {
    for (long i = 0; i < n; i++) s += ghmix_bessel_logk(x[i], nu[i]);
  } else {
    ghmix_bessel_result r;
    for (long i = 0; i < n; i++) {
      ghmix_bessel_eval(x[i], nu[i], mode, &r);
      s += r.logk;
      if (mode & GHMIX_BESSEL_GRAD) s += r.dx + r.dnu;
      if (mode & GHMIX_BESSEL_HESS) s += r.dnu2;
      if (mode & GHMIX_BESSEL_RATIOS) s += r.ratio_up;
    }
  }
  t = now() - t;
  sink = s;
  return t;
}

static double median_time(const double *x, const double *nu, long n, int mode,
                          int reps) {
  double *t = malloc(reps * sizeof *t);
  for (int r = 0; r < reps; r++) t[r] = run(x, nu, n, mode);
  qsort(t, reps, sizeof *t, cmp);
  double m = t[reps / 2];
  free(t);
  return m;
}

/* ns per call of ghmix_bessel_eval(x, nu, what), the same point each call:
 * the median and the least over reps runs of 2000 calls */
static void point_ns(double x, double nu, int what, int reps, double *med,
                     double *least) {
  const long calls = 2000;
  double *t = malloc(reps * sizeof *t);
  volatile double vx = x, vnu = nu;
  for (int r = 0; r < reps; r++) {
    ghmix_bessel_result res;
    double s = 0, t0 = now();
    for (long i = 0; i < calls; i++) {
      ghmix_bessel_eval(vx, vnu, what, &res);
      s += res.logk;
    }
    t[r] = now() - t0;
    sink = s;
  }
  qsort(t, reps, sizeof *t, cmp);
  *med = 1e9 * t[reps / 2] / calls;
  *least = 1e9 * t[0] / calls;
  free(t);
}

static int points(int reps) {
  const double xs[] = {2.5, 5, 10, 20}, nus[] = {1, 1.3, 2.7, 5.5, 10};
  const int what[] = {0, GHMIX_BESSEL_RATIOS,
                      GHMIX_BESSEL_RATIOS | GHMIX_BESSEL_GRAD};
  printf("ns per ghmix_bessel_eval at fixed points: median (least) of %d runs "
         "of 2000 calls, one thread\n\n%5s %5s %15s %15s %15s\n",
         reps, "x", "nu", "0", "RATIOS", "RATIOS|GRAD");
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      printf("%5g %5g", xs[i], nus[j]);
      for (int k = 0; k < 3; k++) {
        double med, least;
        point_ns(xs[i], nus[j], what[k], reps, &med, &least);
        printf(" %7.0f (%5.0f)", med, least);
      }
      printf("\n");
    }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--points"))
    return points(argc > 2 ? atoi(argv[2]) : 51);
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1 || reps < 1) return 2;
  double *x = malloc(n * sizeof *x), *nu = malloc(n * sizeof *nu);
  for (long i = 0; i < n; i++) {
    x[i] = pow(10.0, -3 + 6 * unif());
    nu[i] = -50 + 100 * unif();
  }
  run(x, nu, n < 100000 ? n : 100000, -1); /* warm up */

  printf("bench_bessel: %ld points, x log-uniform [1e-3, 1e3], nu uniform "
         "[-50, 50], median of %d, one thread\n\n",
         n, reps);
  printf("%-36s %10s %12s %10s\n", "call", "ns/eval", "Meval/s", "vs logk");
  const char *name[3] = {"ghmix_bessel_logk", "ghmix_bessel_eval(GRAD)",
                         "ghmix_bessel_eval(GRAD|HESS|RATIOS)"};
  const int mode[3] = {-1, GHMIX_BESSEL_GRAD,
                       GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS | GHMIX_BESSEL_RATIOS};
  double base = 0;
  for (int k = 0; k < 3; k++) {
    double t = median_time(x, nu, n, mode[k], reps);
    if (k == 0) base = t;
    printf("%-36s %10.1f %12.3f %9.2fx\n", name[k], 1e9 * t / n, n / t / 1e6, t / base);
  }

  /* cost map for logk: x decade x |nu| band, 20000 points per cell */
  const double nb[] = {0, 1, 5, 10, 16, 25, 50};
  const int nnb = 6;
  long m = n / 50 > 2000 ? n / 50 : 2000;
  double *cx = malloc(m * sizeof *cx), *cn = malloc(m * sizeof *cn);
  printf("\nns per ghmix_bessel_logk by x decade (rows) and |nu| band (columns)\n");
  printf("%-14s", "x \\ |nu|");
  for (int j = 0; j < nnb; j++) {
    char b[32];
    snprintf(b, sizeof b, "%g..%g", nb[j], nb[j + 1]);
    printf(" %9s", b);
  }
  printf("\n");
  for (int d = -3; d < 3; d++) {
    char lab[32];
    snprintf(lab, sizeof lab, "1e%+d..1e%+d", d, d + 1);
    printf("%-14s", lab);
    for (int j = 0; j < nnb; j++) {
      for (long i = 0; i < m; i++) {
        cx[i] = pow(10.0, d + unif());
        cn[i] = (nb[j] + (nb[j + 1] - nb[j]) * unif()) * (unif() < 0.5 ? -1 : 1);
      }
      double t = median_time(cx, cn, m, -1, 3);
      printf(" %9.1f", 1e9 * t / m);
    }
    printf("\n");
  }
  free(cx);
  free(cn);
  free(x);
  free(nu);
  return 0;
}
