/* Tests of src/core/gh_dist.c (the univariate GH density, distribution and
 * quantile functions) with a plain C compiler and no R.  Each check is one
 * test case; ends with "N passed, M failed".
 *
 *   test_gh_dist [fixture.csv]
 *
 * With the fixture (tests/testthat/fixtures/gh_dist_ref.csv, mpmath
 * references written by tools/make_gh_fixtures.py) it compares, for each
 * parameter set, the log density and both log tails at every point with
 * the references, and inverts the references' tails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gh_dist.h"

static int passed = 0, failed = 0;

static void check(int ok, const char *what, const char *label, double detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s [%s] (%.3g)\n", what, label, detail);
  }
}

static double rel_err(double x, double ref) {
  if (x == ref)
    return 0.0;
  return fabs(x - ref) / fmax(1.0, fabs(ref));
}

#define MAXF 24

/* Splits a CSV line in place. */
static int split(char *line, char **f) {
  int n = 0;
  char *s = line;
  f[n++] = s;
  while (*s && n < MAXF) {
    if (*s == ',') {
      *s = '\0';
      f[n++] = s + 1;
    } else if (*s == '\n' || *s == '\r') {
      *s = '\0';
    }
    s++;
  }
  return n;
}

typedef struct {
  char label[64];
  double p, a, b, mu, gamma, sigma;
  double worst_pdf, worst_cdf, worst_q;
} set_acc;

/* the worst errors over the fixture's sets (log density with sqrt(ab) below
 * and from 1000 on, tails, quantiles), printed before the summary */
static double worst_all[4];
static int sets_seen = 0;

static void flush(set_acc *s) {
  int far;
  if (s->label[0] == '\0')
    return;
  /* sqrt(ab) >= 1000: log f ~ -1 is a sum of log-Bessel terms ~ +-1000,
   * which costs ~1e-13 absolute */
  far = sqrt(s->a * s->b) >= 1000;
  sets_seen++;
  worst_all[far] = fmax(worst_all[far], s->worst_pdf);
  worst_all[2] = fmax(worst_all[2], s->worst_cdf);
  worst_all[3] = fmax(worst_all[3], s->worst_q);
  check(s->worst_pdf <= (far ? 3e-13 : 1e-13), "log density vs mpmath",
        s->label, s->worst_pdf);
  check(s->worst_cdf <= 1e-12, "log tails vs mpmath", s->label, s->worst_cdf);
  check(s->worst_q <= 1e-10, "quantiles of the reference tails", s->label,
        s->worst_q);
}

static void test_fixture(const char *path) {
  FILE *fp = fopen(path, "r");
  char line[4096], *f[MAXF];
  int col_kind = -1, col_label = -1, col_p = -1, col_a = -1, col_b = -1,
      col_mu = -1, col_g = -1, col_s = -1, col_x = -1, col_pdf = -1,
      col_lo = -1, col_up = -1, n, i;
  set_acc acc;
  ghmix_gh1 h;
  if (fp == NULL) {
    check(0, "open fixture", path, 0);
    return;
  }
  if (fgets(line, sizeof line, fp) == NULL) {
    check(0, "read fixture header", path, 0);
    fclose(fp);
    return;
  }
  n = split(line, f);
  for (i = 0; i < n; i++) {
    if (!strcmp(f[i], "kind"))
      col_kind = i;
    else if (!strcmp(f[i], "label"))
      col_label = i;
    else if (!strcmp(f[i], "p_hex"))
      col_p = i;
    else if (!strcmp(f[i], "a_hex"))
      col_a = i;
    else if (!strcmp(f[i], "b_hex"))
      col_b = i;
    else if (!strcmp(f[i], "mu_hex"))
      col_mu = i;
    else if (!strcmp(f[i], "gamma_hex"))
      col_g = i;
    else if (!strcmp(f[i], "sigma_hex"))
      col_s = i;
    else if (!strcmp(f[i], "x_hex"))
      col_x = i;
    else if (!strcmp(f[i], "logpdf"))
      col_pdf = i;
    else if (!strcmp(f[i], "log_lower"))
      col_lo = i;
    else if (!strcmp(f[i], "log_upper"))
      col_up = i;
  }
  if (col_kind < 0 || col_up < 0 || col_x < 0 || col_pdf < 0) {
    check(0, "fixture columns", path, 0);
    fclose(fp);
    return;
  }
  memset(&acc, 0, sizeof acc);
  while (fgets(line, sizeof line, fp) != NULL) {
    double x, z, lpdf, llo, lup, lo, up, q;
    n = split(line, f);
    if (n <= col_up || strcmp(f[col_kind], "uni") != 0)
      continue;
    if (strcmp(f[col_label], acc.label) != 0) {
      flush(&acc);
      memset(&acc, 0, sizeof acc);
      strncpy(acc.label, f[col_label], sizeof acc.label - 1);
      acc.p = strtod(f[col_p], NULL);
      acc.a = strtod(f[col_a], NULL);
      acc.b = strtod(f[col_b], NULL);
      acc.mu = strtod(f[col_mu], NULL);
      acc.gamma = strtod(f[col_g], NULL);
      acc.sigma = strtod(f[col_s], NULL);
      ghmix_gh1_init(acc.p, acc.a, acc.b, acc.gamma / acc.sigma, &h);
    }
    x = strtod(f[col_x], NULL);
    lpdf = strtod(f[col_pdf], NULL);
    llo = strtod(f[col_lo], NULL);
    lup = strtod(f[col_up], NULL);
    z = (x - acc.mu) / acc.sigma;
    acc.worst_pdf = fmax(
        acc.worst_pdf, rel_err(ghmix_gh1_logpdf(&h, z) - log(acc.sigma), lpdf));
    ghmix_gh1_logcdf(&h, z, &lo, &up);
    acc.worst_cdf =
        fmax(acc.worst_cdf, fmax(rel_err(lo, llo), rel_err(up, lup)));
    if (llo < -1e-6) {
      q = acc.mu + acc.sigma * ghmix_gh1_quantile(&h, llo, 1);
      acc.worst_q = fmax(acc.worst_q, fabs(q - x) / fmax(fabs(x), acc.sigma));
    }
    if (lup < -1e-6) {
      q = acc.mu + acc.sigma * ghmix_gh1_quantile(&h, lup, 0);
      acc.worst_q = fmax(acc.worst_q, fabs(q - x) / fmax(fabs(x), acc.sigma));
    }
  }
  flush(&acc);
  fclose(fp);
  printf("fixture: %d sets; worst relative error: log density %.3g (limit "
         "1e-13), %.3g where sqrt(ab) >= 1000 (limit 3e-13), log tails %.3g "
         "(limit 1e-12), quantiles %.3g (limit 1e-10)\n",
         sets_seen, worst_all[0], worst_all[1], worst_all[2], worst_all[3]);
}

/* Properties that need no references. */
static void test_properties(void) {
  static const double sets[][4] = {/* p, a, b, g */
                                   {-0.5, 1, 1, 0.5},    {1.5, 2, 1, -0.3},
                                   {2, 2, 0, 0.5},       {0.3, 1, 0, 0.4},
                                   {-2, 0, 4, 1},        {-1.5, 0, 3, 0},
                                   {0.5, 1e3, 1e3, 0.5}, {-50, 1, 1, -0.1}};
  static const double zs[] = {-1e4, -30, -3, -0.5, 0, 0.2, 1, 4, 50, 1e5};
  size_t i, k;
  char label[64];
  double all_sum = 0, all_rt = 0;
  for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    ghmix_gh1 h;
    double worst_sum = 0, prev = -INFINITY, worst_rt = 0;
    int mono = 1;
    snprintf(label, sizeof label, "p=%g a=%g b=%g g=%g", sets[i][0], sets[i][1],
             sets[i][2], sets[i][3]);
    check(ghmix_gh1_init(sets[i][0], sets[i][1], sets[i][2], sets[i][3], &h),
          "valid parameters", label, 0);
    for (k = 0; k < sizeof zs / sizeof zs[0]; k++) {
      double lo, up, s;
      ghmix_gh1_logcdf(&h, zs[k], &lo, &up);
      s = exp(lo) + exp(up);
      worst_sum = fmax(worst_sum, fabs(s - 1));
      if (lo < prev)
        mono = 0;
      prev = lo;
      if (lo < -1e-3) {
        double q = ghmix_gh1_quantile(&h, lo, 1);
        worst_rt = fmax(worst_rt, fabs(q - zs[k]) / fmax(1, fabs(zs[k])));
      }
      if (up < -1e-3) {
        double q = ghmix_gh1_quantile(&h, up, 0);
        worst_rt = fmax(worst_rt, fabs(q - zs[k]) / fmax(1, fabs(zs[k])));
      }
    }
    all_sum = fmax(all_sum, worst_sum);
    all_rt = fmax(all_rt, worst_rt);
    check(worst_sum <= 4e-16, "lower + upper = 1", label, worst_sum);
    check(mono, "the distribution function increases", label, 0);
    check(worst_rt <= 1e-12, "quantile round trip", label, worst_rt);
  }
  printf("properties: worst |lower + upper - 1| %.3g (limit 4e-16), "
         "quantile round trip %.3g (limit 1e-12)\n",
         all_sum, all_rt);
  {
    ghmix_gh1 h;
    check(!ghmix_gh1_init(1, 0, 1, 0, &h), "a = 0 with p >= 0 is invalid", "",
          0);
    check(isnan(ghmix_gh1_logpdf(&h, 0)), "invalid set gives NaN", "", 0);
    check(!ghmix_gh1_init(-1, 1, 1, INFINITY, &h), "infinite g is invalid", "",
          0);
  }
}

int main(int argc, char **argv) {
  test_properties();
  if (argc > 1)
    test_fixture(argv[1]);
  printf("test_gh_dist: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed > 0;
}
