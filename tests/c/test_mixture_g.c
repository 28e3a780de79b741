/* Tests of the E-step of a finite mixture of G components (src/core/
 * mixture_g.h, ghmix_mix_estep_mixture_cpu of src/cpu/mixture_cpu.h):
 * the memberships of one row from its components' results (log-sum-exp
 * where every density underflows, components left out, rows refused); the
 * driver against a serial loop over the components' ghmix_mix_row with
 * long-double sums (within 1e-12 of the sum of |terms|), weights against
 * replicated rows, a zero weight against the row dropped, 1 and 2 threads
 * the same bits, and G = 1 against ghmix_mix_estep_cpu, bit for bit.  Each
 * check is one test case.  Ends with "N passed, M failed". */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/mixture_g.h"
#include "../../src/cpu/mixture_cpu.h"
#include "check.h"
#include "mix_setup.h"

static double unif(double lo, double hi) { return test_unif(lo, hi); }

/* ------------------------------------------------------------ one row */

static ghmix_mix_row_result row_of(double loglik) {
  ghmix_mix_row_result r;
  r.loglik = loglik;
  r.e_inv_y = 2;
  r.e_y = 0.75;
  r.e_log_y = -0.3;
  r.inv_y_dev = 0.1;
  r.y_dev = -0.1;
  return r;
}

static void test_row(void) {
  const double lp[3] = {log(0.25), log(0.25), log(0.5)};
  ghmix_mix_row_result r[3];
  ghmix_mix_terms t[3];
  ghmix_mixg_global glob;
  double tau[3], logf, e = exp(-1.0);
  int ok;
  /* every density underflows (exp(-1000) = 0 in double) */
  r[0] = row_of(-1000);
  r[1] = row_of(-1001);
  r[2] = row_of(-INFINITY);
  ok = ghmix_mixg_row(3, GHMIX_ESTEP_MOMENTS, lp, 2.0, r, tau, &logf, t, &glob);
  check(ok && fabs(tau[0] - 1 / (1 + e)) < 1e-15 &&
            fabs(tau[1] - e / (1 + e)) < 1e-15 && tau[2] == 0 &&
            fabs(logf - (-1000 + log(0.25) + log1p(e))) < 1e-12,
        "row: tau and log f from log-sum-exp where every density underflows "
        "(%.17g %.17g %.17g, %.17g)",
        tau[0], tau[1], tau[2], logf);
  check(glob.rows == 1 && glob.weight == 2 && glob.loglik == 2 * logf &&
            glob.bad == 0 && t[0].v[GHMIX_TERM_ROWS] == 2 * tau[0] &&
            t[1].v[GHMIX_TERM_INV_Y] == 2 * tau[1] * 2 &&
            t[0].v[GHMIX_TERM_LOG_Y] == 0 && t[2].v[GHMIX_TERM_Y] == 0,
        "row: v = w tau weights each component's terms");
  r[1].e_inv_y = INFINITY;
  ok = ghmix_mixg_row(3, GHMIX_ESTEP_LOGY, lp, 1.0, r, tau, &logf, t, &glob);
  check(ok && tau[0] == 1 && tau[1] == 0 && t[1].v[GHMIX_TERM_INV_Y] == 0 &&
            t[0].v[GHMIX_TERM_LOG_Y] == -0.3,
        "row: a component whose moments are not finite gets tau = 0");
  r[1] = row_of(INFINITY);
  ok = ghmix_mixg_row(3, GHMIX_ESTEP_MOMENTS, lp, 1.0, r, tau, &logf, t, &glob);
  check(!ok && glob.bad == 1 && glob.rows == 0 && t[0].v[GHMIX_TERM_ROWS] == 0,
        "row: an infinite component density makes the row bad");
  r[0] = r[1] = row_of(-INFINITY);
  ok = ghmix_mixg_row(3, GHMIX_ESTEP_MOMENTS, lp, 1.0, r, tau, &logf, t, &glob);
  check(!ok && glob.bad == 1 && logf == -INFINITY,
        "row: no component accepts: bad");
  ok = ghmix_mixg_row(3, GHMIX_ESTEP_MOMENTS, lp, 0.0, r, tau, &logf, t, &glob);
  check(!ok && glob.bad == 0 && glob.rows == 0 && glob.weight == 0,
        "row: a bad row of weight 0 adds nothing, not even to BAD");
  r[0] = row_of(-3.5);
  ok = ghmix_mixg_row(1, GHMIX_ESTEP_MOMENTS, lp + 2, 1.0, r, tau, &logf, t,
                      &glob);
  check(ok && tau[0] == 1 && logf == log(0.5) - 3.5, "row: G = 1");
}

/* ------------------------------------------------------------ driver */

typedef struct {
  int d, G;
  mix_setup s[4];
  ghmix_mix_component comp[4];
  ghmix_mix_model model;
} mixg_setup;

static const double mixg_pab[4][3] = {
    {-0.5, 1.1, 1.7}, {1.3, 0.8, 1.2}, {-2.5, 0.0, 3.0}, {-0.7, 1.3, 0.8}};

static int mixg_setup_init(mixg_setup *m, int d, int G, int what,
                           const double *weights) {
  ghmix_error err;
  int k;
  m->d = d;
  m->G = G;
  for (k = 0; k < G; k++) {
    if (!mix_setup_init(&m->s[k], d, mixg_pab[k][0], mixg_pab[k][1],
                        mixg_pab[k][2], what, unif))
      return 0;
    m->s[k].center[0] += 1.5 * k;
    m->comp[k] = m->s[k].comp;
    m->comp[k].log_prop = log((k + 1.0) / (G * (G + 1.0) / 2));
  }
  m->model.shape = m->s[0].model.shape;
  m->model.shape.components = G;
  m->model.comp = m->comp;
  m->model.weights = weights;
  if (weights != NULL)
    m->model.shape.what |= GHMIX_ESTEP_WEIGHTS;
  return ghmix_mix_model_complete(&m->model, &err) == GHMIX_OK;
}

static void mixg_setup_free(mixg_setup *m) {
  int k;
  for (k = 0; k < m->G; k++)
    mix_setup_free(&m->s[k]);
}

/* Adds v to the long-double sum and |v| to the scale of statistic k. */
static void add(long double *acc, double *scale, size_t k, double v) {
  acc[k] += v;
  scale[k] += fabs(v);
}

/* Component k's vector sums of one row, weighted by v (w = v E[1/Y]). */
static void reference_vectors(const ghmix_estep_shape *sh, int k, double v,
                              double w, const double *u, long double *acc,
                              double *scale) {
  const int d = sh->d;
  const size_t at_u = ghmix_estep_stat(sh, k, GHMIX_STAT_U).offset;
  const size_t at_wu = ghmix_estep_stat(sh, k, GHMIX_STAT_INV_Y_U).offset;
  const size_t at_wuu = ghmix_estep_stat(sh, k, GHMIX_STAT_INV_Y_UU).offset;
  int j, l;
  for (j = 0; j < d; j++) {
    add(acc, scale, at_u + j, v * u[j]);
    add(acc, scale, at_wu + j, w * u[j]);
    for (l = 0; l < d; l++)
      add(acc, scale, at_wuu + (size_t)j + (size_t)l * d, w * u[j] * u[l]);
  }
}

/* The statistics by a serial loop: each component's row by ghmix_mix_row
 * (K_q evaluated), tau by log-sum-exp in long double. */
static void reference(const double *x, size_t n, const mixg_setup *m,
                      const double *weights, double *st, double *scale) {
  const ghmix_estep_shape *sh = &m->model.shape;
  const size_t ns = ghmix_estep_nstats(sh);
  long double *acc = calloc(ns, sizeof(long double));
  double *u = malloc(sizeof(double) * (size_t)m->d * m->G);
  double *z = malloc(sizeof(double) * (size_t)m->d);
  size_t i, k;
  int c;
  for (k = 0; k < ns; k++)
    scale[k] = 0;
  for (i = 0; i < n; i++) {
    ghmix_mix_row_result r[4];
    long double lf[4], mx = -INFINITY, s = 0, logf;
    double w = weights != NULL ? weights[i] : 1.0, q, bz;
    int bad = 0;
    for (c = 0; c < m->G; c++) {
      mix_setup_forms(&m->s[c], x, n, i, u + (size_t)c * m->d, z, &q, &bz);
      ghmix_mix_row(&m->comp[c].c, q, bz, &r[c]);
      bad |= !(r[c].loglik < INFINITY);
      lf[c] = ghmix_mixg_accepts(&r[c])
                  ? (long double)m->comp[c].log_prop + r[c].loglik
                  : -INFINITY;
      mx = lf[c] > mx ? lf[c] : mx;
    }
    if (w == 0)
      continue;
    if (bad || !isfinite((double)mx)) {
      add(acc, scale, ghmix_estep_stat(sh, 0, GHMIX_STAT_BAD).offset, 1);
      continue;
    }
    for (c = 0; c < m->G; c++)
      s += expl(lf[c] - mx);
    logf = mx + logl(s);
    add(acc, scale, ghmix_estep_stat(sh, 0, GHMIX_STAT_ROWS).offset, 1);
    add(acc, scale, ghmix_estep_stat(sh, 0, GHMIX_STAT_WEIGHT).offset, w);
    add(acc, scale, ghmix_estep_stat(sh, 0, GHMIX_STAT_LOGLIK).offset,
        (double)(w * logf));
    for (c = 0; c < m->G; c++) {
      double v = (double)(w * expl(lf[c] - logf));
      if (!(v > 0))
        continue;
      add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_TAU).offset, v);
      add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_INV_Y).offset,
          v * r[c].e_inv_y);
      add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_Y).offset,
          v * r[c].e_y);
      if (sh->what & GHMIX_ESTEP_LOGY)
        add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_LOG_Y).offset,
            v * r[c].e_log_y);
      add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_INV_Y_DEV).offset,
          v * r[c].inv_y_dev);
      add(acc, scale, ghmix_estep_stat(sh, c, GHMIX_STAT_Y_DEV).offset,
          v * r[c].y_dev);
      reference_vectors(sh, c, v, v * r[c].e_inv_y, u + (size_t)c * m->d, acc,
                        scale);
    }
  }
  for (k = 0; k < ns; k++)
    st[k] = (double)acc[k];
  free(acc);
  free(u);
  free(z);
}

/* The worst |got - want| / scale over the statistics (index in *at). */
static double worst_error(const double *got, const double *want,
                          const double *scale, size_t ns, size_t *at) {
  double worst = 0;
  size_t k;
  *at = 0;
  for (k = 0; k < ns; k++) {
    double e = fabs(got[k] - want[k]) / fmax(scale[k], DBL_MIN);
    if (!(e <= worst)) {
      worst = isnan(e) ? INFINITY : e;
      *at = k;
    }
  }
  return worst;
}

static double *rows_of(size_t n, int d, const mixg_setup *m) {
  double *x = malloc(sizeof(double) * n * (size_t)d);
  size_t i;
  int j;
  for (i = 0; i < n; i++) {
    int c = (int)(i % (size_t)m->G);
    double w = exp(unif(-2, 2));
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] =
          m->s[c].center[j] + sqrt(w) * unif(-2, 2) + 0.3 * w;
  }
  for (i = 5; i < n; i += 611)
    x[i] = NAN;
  return x;
}

static void driver_case(const char *label, int d, int G, size_t n, int what,
                        int weighted) {
  mixg_setup m;
  double *x, *ref, *scale, *st1, *st2, *w = NULL, *rows;
  size_t ns, at, i;
  ghmix_status rc1, rc2;
  ghmix_error err;
  double worst;
  if (weighted) {
    w = malloc(sizeof(double) * n);
    for (i = 0; i < n; i++)
      w[i] = i % 7 == 3 ? 0 : unif(0, 3);
  }
  if (!mixg_setup_init(&m, d, G, what, w)) {
    check(0, "driver %s: the model", label);
    return;
  }
  ns = ghmix_estep_nstats(&m.model.shape);
  x = rows_of(n, d, &m);
  ref = malloc(sizeof(double) * ns);
  scale = malloc(sizeof(double) * ns);
  st1 = malloc(sizeof(double) * ns);
  st2 = malloc(sizeof(double) * ns);
  rows = malloc(sizeof(double) * n * ghmix_mixg_row_ncol(G));
  reference(x, n, &m, w, ref, scale);
  rc1 = ghmix_mix_estep_mixture_cpu(x, n, n, d, &m.model, st1, rows, 1, &err);
  rc2 = ghmix_mix_estep_mixture_cpu(x, n, n, d, &m.model, st2, NULL, 2, &err);
  worst = worst_error(st1, ref, scale, ns, &at);
  note_worst("G-component E-step driver vs the reference loop", worst, 1e-12);
  check(rc1 == GHMIX_OK && rc2 == GHMIX_OK && worst <= 1e-12,
        "driver %s (d = %d, G = %d, n = %lu): within %.3g of the sum of "
        "|terms| (worst %lu: %.17g vs %.17g)",
        label, d, G, (unsigned long)n, worst, (unsigned long)at, st1[at],
        ref[at]);
  check(memcmp(st1, st2, sizeof(double) * ns) == 0,
        "driver %s: 1 and 2 threads give the same bits", label);
  check(isnan(rows[5]) && isfinite(rows[n - 1]) &&
            fabs(rows[n * 1 + n - 1] + rows[n * G + n - 1] - 1) < 1.0,
        "driver %s: NaN rows give NaN, the others tau", label);
  free(x);
  free(ref);
  free(scale);
  free(st1);
  free(st2);
  free(rows);
  free(w);
  mixg_setup_free(&m);
}

/* Integer weights against the rows replicated, weight 0 against the row
 * dropped (both within 1e-13 of the sum of |terms|). */
static void weights_case(int d, int G, size_t n) {
  mixg_setup m, rep;
  double *x, *xr, *w, *st, *sr, *scale, worst;
  size_t ns, nr = 0, i, at;
  int j, c, t;
  ghmix_error err;
  w = malloc(sizeof(double) * n);
  for (i = 0; i < n; i++) {
    w[i] = (double)(i % 4);
    nr += i % 4;
  }
  test_seed(99); /* the same components for the replicated rows */
  if (!mixg_setup_init(&m, d, G, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY, w)) {
    check(0, "weights: the model");
    return;
  }
  test_seed(99);
  mixg_setup_init(&rep, d, G, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY, NULL);
  ns = ghmix_estep_nstats(&m.model.shape);
  x = rows_of(n, d, &m);
  xr = malloc(sizeof(double) * nr * (size_t)d);
  st = malloc(sizeof(double) * ns);
  sr = malloc(sizeof(double) * ns);
  scale = malloc(sizeof(double) * ns);
  for (c = 0, i = 0; i < n; i++)
    for (t = 0; t < (int)w[i]; t++, c++)
      for (j = 0; j < d; j++)
        xr[(size_t)c + (size_t)j * nr] = x[i + (size_t)j * n];
  reference(x, n, &m, w, sr, scale);
  ghmix_mix_estep_mixture_cpu(x, n, n, d, &m.model, st, NULL, 2, &err);
  ghmix_mix_estep_mixture_cpu(xr, nr, nr, d, &rep.model, sr, NULL, 2, &err);
  /* ROWS and BAD count rows: the replicated ones more often */
  for (t = GHMIX_STAT_ROWS; t <= GHMIX_STAT_BAD; t += 3)
    sr[ghmix_estep_stat(&m.model.shape, 0, (ghmix_stat_id)t).offset] =
        st[ghmix_estep_stat(&m.model.shape, 0, (ghmix_stat_id)t).offset];
  worst = worst_error(st, sr, scale, ns, &at);
  note_worst("integer weights vs replicated rows", worst, 1e-13);
  check(worst <= 1e-13,
        "weights (d = %d, G = %d): integer weights = replicated rows (worst "
        "%.3g at %lu)",
        d, G, worst, (unsigned long)at);
  mixg_setup_free(&m);
  mixg_setup_free(&rep);
  free(x);
  free(xr);
  free(w);
  free(st);
  free(sr);
  free(scale);
}

/* G = 1 without weights: ghmix_mix_estep_cpu's statistics, the same bits
 * (the same slots, blocks, tables and order of summation). */
static void g1_case(int d, size_t n, double p, double a, double b, int what,
                    int extreme) {
  mix_setup s;
  double *x, *s1, *s2;
  size_t ns;
  ghmix_error err;
  size_t i;
  int j;
  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "G = 1: the model");
    return;
  }
  ns = ghmix_estep_nstats(&s.model.shape);
  x = malloc(sizeof(double) * n * (size_t)d);
  s1 = malloc(sizeof(double) * ns);
  s2 = malloc(sizeof(double) * ns);
  for (i = 0; i < n; i++)
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s.center[j] + unif(-3, 3);
  x[7] = NAN;
  if (extreme) {
    /* an overflowed Q, and rows far out on either side (a heavy B): the
     * mixture driver evaluates their blocks' forms again */
    x[11] = 1e200;
    for (j = 0; j < d; j++) {
      x[300 + (size_t)j * n] = s.center[j] + 1e6;
      x[301 + (size_t)j * n] = s.center[j] - 1e6;
    }
  }
  ghmix_mix_estep_cpu(x, n, n, d, &s.model, s1, NULL, 2, &err);
  ghmix_mix_estep_mixture_cpu(x, n, n, d, &s.model, s2, NULL, 2, &err);
  check(memcmp(s1, s2, sizeof(double) * ns) == 0,
        "G = 1 (d = %d, n = %lu, p = %g%s): the one-component driver's bits", d,
        (unsigned long)n, p, extreme ? ", extreme rows" : "");
  free(x);
  free(s1);
  free(s2);
  mix_setup_free(&s);
}

static void test_driver(void) {
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  mixg_setup m;
  double st[64], x[4] = {1, 2, 3, 4};
  ghmix_error err;
  driver_case("exact K", 3, 2, 1000, both, 0);
  driver_case("tabulated K", 4, 3, 20011, both, 0);
  driver_case("weighted", 2, 4, 9000, GHMIX_ESTEP_MOMENTS, 1);
  driver_case("d = 1", 1, 3, 6000, both, 1);
  driver_case("BLAS (d = 60)", 60, 2, 3000, both, 0);
  weights_case(3, 3, 3000);
  g1_case(3, 1000, -0.7, 1.3, 0.8, both, 0);
  g1_case(10, 9000, -0.5, 1.1, 1.7, GHMIX_ESTEP_MOMENTS, 0);
  g1_case(60, 3000, 1.5, 1.0, 1.0, both, 0);
  /* tabulated K (the range pass's forms kept for the main pass) */
  g1_case(4, 20011, -0.7, 1.3, 0.8, both, 0);
  g1_case(4, 20011, -0.7, 1.3, 0.8, both, 1);
  g1_case(5, 9000, -0.5, 1.1, 1.7, GHMIX_ESTEP_MOMENTS, 1);
  if (mixg_setup_init(&m, 2, 2, GHMIX_ESTEP_MOMENTS, NULL)) {
    check(ghmix_mix_estep_cpu(x, 2, 2, 2, &m.model, st, NULL, 1, &err) ==
              GHMIX_ERR_DOMAIN,
          "driver: the one-component driver refuses G = 2");
    m.model.shape.components = GHMIX_MAX_COMPONENTS + 1;
    check(ghmix_mix_model_check_g(&m.model, 2, &err) == GHMIX_ERR_DOMAIN &&
              strstr(err.message, "at most") != NULL,
          "driver: more than GHMIX_MAX_COMPONENTS are refused (\"%s\")",
          err.message);
    m.model.shape.components = 2;
    check(ghmix_mix_estep_mixture_cpu(x, 2, 2, 1, &m.model, st, NULL, 1,
                                      &err) == GHMIX_ERR_DOMAIN,
          "driver: data of another d are GHMIX_ERR_DOMAIN");
    mixg_setup_free(&m);
  }
}

int main(void) {
  test_seed(23);
  test_row();
  test_driver();
  report_worst();
  printf("test_mixture_g: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
