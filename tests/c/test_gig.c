/* Tests of src/core/gig.c (the GIG distribution functions and sampler)
 * with a plain C compiler and no R.  Each check is one test case; ends with
 * "N passed, M failed".
 *
 *   test_gig [fixture.csv]
 *
 * With a fixture (tests/testthat/fixtures/gig_dist_ref.csv, 40-digit
 * mpmath references written by tools/make_gig_fixtures.py) it also compares
 * the log density and both log tails with the references. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bessel.h"
#include "gig.h"
#include "gig_sample.h"

static int passed = 0, failed = 0;

static void check(int ok, const char *what, double detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s (%.3g)\n", what, detail);
  }
}

/* A 64-bit linear congruential generator (Knuth's MMIX constants), top 53
 * bits, on (0, 1). */
static unsigned long long lcg_state = 20240601ULL;
static double lcg_unif(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return ((double)(lcg_state >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

typedef struct {
  double p, a, b;
} pars;

static const pars cases[] = {
    {0.5, 1, 1},     {-0.5, 2, 3},   {0, 1, 1},       {1e-3, 1, 1},
    {50, 1, 1},      {-50, 1, 1},    {2, 1e-6, 1e-6}, {1, 1000, 1000},
    {0.5, 1e4, 1e4}, {-2.5, 1e8, 1}, {3, 1e-4, 1e4},  {2, 3, 0},
    {0.05, 1, 0},    {-2, 0, 3},     {-0.3, 0, 1},    {-50, 1e-3, 1e-9}};
#define NCASES (sizeof cases / sizeof cases[0])

/* Integral of the density over y, by the trapezoid rule in u = log(y / m)
 * (independent of the library's quadrature: a plain uniform grid that
 * covers every point where the density of u exceeds e^-60 of its peak). */
static double total_mass(pars c) {
  ghmix_gig g;
  double lpeak, lo = 0, hi = 0, h, sum = 0, u;
  ghmix_gig_init(c.p, c.a, c.b, &g);
  lpeak = ghmix_gig_logpdf(&g, g.m) + log(g.m);
  /* bracket the region where log f_U > lpeak - 60 */
  for (h = 1e-3; lpeak - (ghmix_gig_logpdf(&g, g.m * exp(lo)) + lo) < 60;)
    lo -= h, h *= 1.05;
  for (h = 1e-3; lpeak - (ghmix_gig_logpdf(&g, g.m * exp(hi)) + hi) < 60;)
    hi += h, h *= 1.05;
  h = (hi - lo) / 200000;
  for (u = lo; u <= hi; u += h)
    sum += exp(ghmix_gig_logpdf(&g, g.m * exp(u)) + u + log(g.m));
  return sum * h;
}

static double mean_of(pars c) {
  double w = sqrt(c.a) * sqrt(c.b);
  if (c.b == 0)
    return 2 * c.p / c.a;
  if (c.a == 0)
    return c.b / 2 / (-c.p - 1);
  return sqrt(c.b) / sqrt(c.a) *
         exp(ghmix_bessel_logk(w, c.p + 1) - ghmix_bessel_logk(w, c.p));
}

/* Standard normal distribution function. */
static double pnorm(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

static void test_fixture(const char *path) {
  FILE *f = fopen(path, "r");
  char line[4096];
  double worst_d = 0, worst_l = 0, worst_u = 0;
  int rows = 0;
  if (f == NULL) {
    check(0, "fixture file opens", 0);
    return;
  }
  if (fgets(line, sizeof line, f) == NULL) {
    fclose(f);
    check(0, "fixture has a header", 0);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    char *tok[12], *s = strtok(line, ",\n");
    int n = 0;
    double p, a, b, x, rd, rl, ru, ll, lu;
    ghmix_gig g;
    while (s && n < 12) {
      tok[n++] = s;
      s = strtok(NULL, ",\n");
    }
    if (n < 12)
      continue;
    p = strtod(tok[5], NULL);
    a = strtod(tok[6], NULL);
    b = strtod(tok[7], NULL);
    x = strtod(tok[8], NULL);
    rd = strtod(tok[9], NULL);
    rl = strtod(tok[10], NULL);
    ru = strtod(tok[11], NULL);
    ghmix_gig_init(p, a, b, &g);
    ghmix_gig_logcdf(&g, x, &ll, &lu);
    worst_d =
        fmax(worst_d, fabs(ghmix_gig_logpdf(&g, x) - rd) / fmax(1, fabs(rd)));
    /* the relative error of a probability is the absolute error of its
     * log; far out (|log| > 1) the error relative to the log */
    worst_l = fmax(worst_l, fabs(ll - rl) / fmax(1, fabs(rl)));
    worst_u = fmax(worst_u, fabs(lu - ru) / fmax(1, fabs(ru)));
    rows++;
  }
  fclose(f);
  printf("fixture: %d rows; max error: log density %.2g, lower %.2g, upper "
         "%.2g\n",
         rows, worst_d, worst_l, worst_u);
  check(rows > 100, "fixture rows read", rows);
  check(worst_d <= 1e-13, "log density vs mpmath", worst_d);
  check(worst_l <= 1e-12, "log lower tail vs mpmath", worst_l);
  check(worst_u <= 1e-12, "log upper tail vs mpmath", worst_u);
}

/* The sampler over a grid of (p, a, b) that reaches the ends of the
 * doubles (the points where the bad-input probe found hangs among them):
 * each valid set draws 200 variates, none NaN or negative, in at most 10
 * rejection trials per draw on average (a bounded rejection constant). */
static void test_sampler_grid(void) {
  static const double ps[] = {0.5,      -0.5, 0,    0.9,    -0.9,    1,
                              -1,       2.5,  -2.5, 1e-300, -1e-300, 1e-17,
                              -1e-17,   1e6,  -1e6, 1e300,  -1e300,  DBL_MAX,
                              -DBL_MAX, 2,    3e-4, -3e-4,  1e-5};
  static const double ab[] = {0,      5e-324, 1e-310, 1e-300, 1e-160, 1e-150,
                              1e-100, 1e-13,  1e-6,   0.3,    1,      3,
                              1e6,    1e13,   1e100,  1e150,  1e300,  DBL_MAX};
  size_t np = sizeof ps / sizeof ps[0], na = sizeof ab / sizeof ab[0], i, j, k;
  int bad = 0, valid = 0;
  uint64_t worst = 0;
  for (i = 0; i < np; i++)
    for (j = 0; j < na; j++)
      for (k = 0; k < na; k++) {
        ghmix_gig_sampler s;
        uint64_t trials = 0;
        int d;
        if ((ab[j] == 0 && ps[i] >= 0) || (ab[k] == 0 && ps[i] <= 0))
          continue;
        if (!ghmix_gig_sampler_init(ps[i], ab[j], ab[k], &s)) {
          bad++;
          continue;
        }
        valid++;
        for (d = 0; d < 200; d++) {
          double y = ghmix_gig_sampler_draw_counted(&s, lcg_unif, &trials);
          if (!(y >= 0)) {
            bad++;
            printf("draw %g at p=%g a=%g b=%g\n", y, ps[i], ab[j], ab[k]);
            break;
          }
        }
        if (trials > worst)
          worst = trials;
      }
  check(valid > 6000 && bad == 0, "sampler grid: every draw a number", bad);
  check(worst <= 200 * 10, "sampler grid: bounded trials per draw",
        worst / 200.0);
}

int main(int argc, char **argv) {
  size_t k;
  char what[160];

  /* density integrates to 1 */
  for (k = 0; k < NCASES; k++) {
    double t;
    if (cases[k].b == 0 && cases[k].p < 0.5)
      continue; /* most of the mass lies below the smallest double */
    t = total_mass(cases[k]);
    snprintf(what, sizeof what, "density integrates to 1 (p=%g a=%g b=%g)",
             cases[k].p, cases[k].a, cases[k].b);
    check(fabs(t - 1) < 1e-10, what, t - 1);
  }

  /* tails: complementary, monotone, consistent with the quantiles */
  for (k = 0; k < NCASES; k++) {
    ghmix_gig g;
    double worst_sum = 0, worst_rt = 0, prev = -INFINITY, lev;
    int monotone = 1;
    ghmix_gig_init(cases[k].p, cases[k].a, cases[k].b, &g);
    for (lev = -30; lev <= 30; lev += 0.5) {
      /* the quantile at lower tail 1 / (1 + e^-lev) */
      double llo = -log1p(exp(-lev)), ll, lu, q, q2;
      q = ghmix_gig_quantile(&g, llo, 1);
      if (!(q > 0) || isinf(q))
        continue;
      ghmix_gig_logcdf(&g, q, &ll, &lu);
      worst_sum = fmax(worst_sum, fabs(exp(ll) + exp(lu) - 1));
      if (ll < prev)
        monotone = 0;
      prev = ll;
      q2 = ghmix_gig_quantile(&g, lu, 0);
      worst_rt = fmax(worst_rt, fabs(ghmix_gig_quantile(&g, ll, 1) - q) / q);
      worst_rt = fmax(worst_rt, fabs(q2 - q) / q);
    }
    snprintf(what, sizeof what, "P(Y<=q) + P(Y>q) = 1 (p=%g a=%g b=%g)",
             cases[k].p, cases[k].a, cases[k].b);
    check(worst_sum < 4e-15, what, worst_sum);
    snprintf(what, sizeof what, "lower tail increases (p=%g a=%g b=%g)",
             cases[k].p, cases[k].a, cases[k].b);
    check(monotone, what, 0);
    snprintf(what, sizeof what, "qgig(pgig(x)) = x (p=%g a=%g b=%g)",
             cases[k].p, cases[k].a, cases[k].b);
    check(worst_rt < 1e-10, what, worst_rt);
  }

  /* closed forms: inverse Gaussian (p = -1/2), gamma with integer shape */
  {
    double worst = 0, x;
    ghmix_gig g;
    double a = 2, b = 3, mu = sqrt(b / a), lam = b;
    ghmix_gig_init(-0.5, a, b, &g);
    for (x = 0.05; x < 5; x *= 1.1) {
      double ll, lu, s = sqrt(lam / x);
      double ref = pnorm(s * (x / mu - 1)) +
                   exp(2 * lam / mu) * pnorm(-s * (x / mu + 1));
      ghmix_gig_logcdf(&g, x, &ll, &lu);
      worst = fmax(worst, fabs(exp(ll) - ref) / ref);
    }
    check(worst < 1e-12, "inverse Gaussian cdf vs closed form", worst);
  }
  {
    double worst = 0, x;
    ghmix_gig g;
    ghmix_gig_init(3, 2, 0, &g); /* gamma(3, rate 1) */
    for (x = 0.01; x < 100; x *= 1.2) {
      double ll, lu, ref = exp(-x) * (1 + x + x * x / 2);
      ghmix_gig_logcdf(&g, x, &ll, &lu);
      worst = fmax(worst, fabs(exp(lu) - ref) / ref);
    }
    check(worst < 1e-13, "gamma(3) upper tail vs closed form", worst);
  }

  /* special values */
  {
    ghmix_gig g;
    double ll, lu;
    check(ghmix_gig_init(-1, 0, 1, &g) == 1 &&
              g.kind == GHMIX_GIG_KIND_INVGAMMA,
          "a = 0 with p < 0 is the inverse gamma", 0);
    check(ghmix_gig_init(1, 0, 1, &g) == 0 && g.kind == GHMIX_GIG_KIND_INVALID,
          "a = 0 with p > 0 is invalid", 0);
    check(ghmix_gig_init(-1, 1, 0, &g) == 0, "b = 0 with p < 0 is invalid", 0);
    check(ghmix_gig_init(1, -1, 1, &g) == 0, "a < 0 is invalid", 0);
    check(ghmix_gig_init(1, 0, 0, &g) == 0, "a = b = 0 is invalid", 0);
    check(ghmix_gig_init(INFINITY, 1, 1, &g) == 0, "p = Inf is invalid", 0);
    check(isnan(ghmix_gig_density(1, 1, -1, 1, 0)), "invalid gives NaN", 0);
    ghmix_gig_init(0.5, 1, 1, &g);
    check(ghmix_gig_logpdf(&g, 0) == -INFINITY &&
              ghmix_gig_logpdf(&g, -1) == -INFINITY &&
              ghmix_gig_logpdf(&g, INFINITY) == -INFINITY,
          "density 0 off (0, Inf)", 0);
    ghmix_gig_logcdf(&g, 0, &ll, &lu);
    check(ll == -INFINITY && lu == 0, "cdf at 0", 0);
    ghmix_gig_logcdf(&g, INFINITY, &ll, &lu);
    check(ll == 0 && lu == -INFINITY, "cdf at Inf", 0);
    check(ghmix_gig_quantile(&g, -INFINITY, 1) == 0 &&
              ghmix_gig_quantile(&g, 0, 1) == INFINITY,
          "quantiles at 0 and 1", 0);
    check(ghmix_gig_qf(1.5, 0.5, 1, 1, 1, 0) !=
              ghmix_gig_qf(1.5, 0.5, 1, 1, 1, 0),
          "quantile of 1.5 is NaN", 0);
  }

  /* sampler: the mean of 2e5 draws within 5 standard errors */
  for (k = 0; k < NCASES; k++) {
    ghmix_gig_sampler s;
    double sum = 0, sum2 = 0, mean, sd, m = mean_of(cases[k]);
    int i, n = 200000, ok;
    if (cases[k].a == 0 && cases[k].p > -3)
      continue; /* no finite variance */
    ghmix_gig_sampler_init(cases[k].p, cases[k].a, cases[k].b, &s);
    for (i = 0; i < n; i++) {
      double y = ghmix_gig_sampler_draw(&s, lcg_unif);
      sum += y;
      sum2 += y * y;
    }
    mean = sum / n;
    sd = sqrt(fmax(sum2 / n - mean * mean, 0) / n);
    ok = fabs(mean - m) <= 5 * sd + 1e-12 * fabs(m);
    snprintf(what, sizeof what, "mean of draws (p=%g a=%g b=%g)", cases[k].p,
             cases[k].a, cases[k].b);
    check(ok, what, (mean - m) / sd);
  }
  {
    double y[3];
    double p = 1, a = 2, b = 3;
    ghmix_error err;
    check(ghmix_gig_sample(3, &p, 1, &a, 1, &b, 1, lcg_unif, y, &err) ==
                  GHMIX_OK &&
              y[0] > 0 && y[1] > 0 && y[2] > 0,
          "ghmix_gig_sample draws", 0);
    p = -1;
    a = 1;
    b = 0; /* invalid */
    ghmix_gig_sample(2, &p, 1, &a, 1, &b, 1, lcg_unif, y, &err);
    check(isnan(y[0]) && isnan(y[1]), "invalid parameters draw NaN", 0);
  }

  test_sampler_grid();

  if (argc > 1)
    test_fixture(argv[1]);

  printf("test_gig: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
