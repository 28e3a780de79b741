/* Tests of one row of the E-step (src/core/mixture.h: ghmix_mix_row_step,
 * its terms and acceptance, the row output), the model's set-up and the
 * drivers' shape check, the M-step of the mixing distributions
 * (src/core/mstep.h), and the CPU driver (src/cpu/mixture_cpu.h) against a
 * serial loop with long-double sums, every statistic placed by
 * ghmix_estep_stat: within 1e-12 of the sum of |terms| (counts exact), on
 * the exact and the tabulated Bessel paths and the BLAS path (d > 48), the
 * same bits on 1 and 2 threads.  Each check is one test case.  Ends with
 * "N passed, M failed". */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/gig_solve.h"
#include "../../src/core/mixture.h"
#include "../../src/core/mstep.h"
#include "../../src/cpu/bessel_table.h"
#include "../../src/cpu/mixture_cpu.h"
#include "check.h"
#include "mix_setup.h"

static double rel(double got, double want) {
  return fabs(got - want) / fmax(fabs(want), DBL_MIN);
}

/* ------------------------------------------------------------ one row */

static void const_of(int d, double p, double a, double b, int what,
                     ghmix_mix_const *c) {
  if (!ghmix_mix_const_init(d, p, a, b, 0.4, 0.3, what, c))
    check(0, "constants of (%g, %g, %g)", p, a, b);
}

static void test_row_step(void) {
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  ghmix_mix_const c;
  ghmix_mix_row_result r, r0;
  ghmix_mix_row_arg_t arg;
  ghmix_bessel_result k;
  ghmix_mix_terms t, t2;
  double rows[4];
  int ok, j, zero = 1;

  const_of(3, -0.7, 1.3, 0.8, both, &c);
  ok = ghmix_mix_row_step(&c, 1.2, 0.3, NULL, NULL, &r, &t);
  ghmix_mix_row(&c, 1.2, 0.3, &r0);
  check(ok && memcmp(&r, &r0, sizeof r) == 0,
        "row: accepted, the result of ghmix_mix_row");
  check(t.v[GHMIX_TERM_ROWS] == 1 && t.v[GHMIX_TERM_BAD] == 0 &&
            t.v[GHMIX_TERM_LOGLIK] == r.loglik &&
            t.v[GHMIX_TERM_INV_Y] == r.e_inv_y && t.v[GHMIX_TERM_Y] == r.e_y &&
            t.v[GHMIX_TERM_LOG_Y] == r.e_log_y,
        "row: the terms of an accepted row are its results");
  /* K_q given: the same bits as evaluated inside */
  check(ghmix_mix_row_arg(&c, 1.2, &arg), "row: the Bessel argument");
  ghmix_bessel_eval(arg.x, c.q, ghmix_mix_row_bessel_what(&c), &k);
  ghmix_mix_row_step(&c, 1.2, 0.3, &arg, &k, &r0, &t2);
  check(memcmp(&r, &r0, sizeof r) == 0 && memcmp(&t, &t2, sizeof t) == 0,
        "row: with K_q given, the same result and terms");
  ghmix_mix_row_store(&c, &r, 0, 1, rows);
  check(rows[0] == r.loglik && rows[1] == r.e_inv_y && rows[2] == r.e_y &&
            rows[3] == r.e_log_y,
        "row: the stored output row");

  /* without E log Y: no term, NaN in the output */
  const_of(3, -0.5, 1.3, 0.8, GHMIX_ESTEP_MOMENTS, &c);
  ok = ghmix_mix_row_step(&c, 1.2, 0.3, NULL, NULL, &r, &t);
  ghmix_mix_row_store(&c, &r, 0, 1, rows);
  check(ok && t.v[GHMIX_TERM_LOG_Y] == 0 && isnan(rows[3]),
        "row: without GHMIX_ESTEP_LOGY, E log Y is 0 in the sums, NaN out");

  /* NaN: plain NaN everywhere, counted as bad, nothing else */
  ok = ghmix_mix_row_step(&c, NAN, 0.3, NULL, NULL, &r, &t);
  for (j = 0; j < GHMIX_TERM_COUNT; j++)
    if (j != GHMIX_TERM_BAD && t.v[j] != 0)
      zero = 0;
  check(!ok && t.v[GHMIX_TERM_BAD] == 1 && zero && isnan(r.loglik) &&
            isnan(r.e_inv_y) && isnan(r.e_y) && isnan(r.e_log_y),
        "row: NaN Q gives NaN results, counted as bad only");
  ok = ghmix_mix_row_step(&c, 1.0, NAN, NULL, NULL, &r, &t);
  check(!ok && t.v[GHMIX_TERM_BAD] == 1 && isnan(r.loglik),
        "row: NaN B likewise");

  /* the variance-gamma singularity: b = 0, x = mu, q = p - d/2 <= 0 */
  const_of(4, 1.2, 2.0, 0.0, both, &c);
  ok = ghmix_mix_row_step(&c, 0.0, 0.0, NULL, NULL, &r, &t);
  check(!ok && r.loglik == INFINITY && t.v[GHMIX_TERM_BAD] == 1 &&
            t.v[GHMIX_TERM_LOGLIK] == 0 && t.v[GHMIX_TERM_ROWS] == 0,
        "row: the VG singularity is +Inf, left out of the sums");
  /* the limits (gamma, inverse gamma) take the closed forms */
  ok = ghmix_mix_row_step(&c, 0.5, 0.1, NULL, NULL, &r, &t);
  check(ok && isfinite(r.loglik) && t.v[GHMIX_TERM_ROWS] == 1,
        "row: a VG row away from the centre is accepted");
  const_of(10, -3.0, 0.0, 4.0, both, &c);
  ok = ghmix_mix_row_step(&c, 2.0, 0.1, NULL, NULL, &r, &t);
  check(ok && isfinite(r.e_log_y), "row: a skew-t row is accepted");

  check(ghmix_mix_term_of(GHMIX_STAT_ROWS) == GHMIX_TERM_ROWS &&
            ghmix_mix_term_of(GHMIX_STAT_WEIGHT) == GHMIX_TERM_ROWS &&
            ghmix_mix_term_of(GHMIX_STAT_TAU) == GHMIX_TERM_ROWS &&
            ghmix_mix_term_of(GHMIX_STAT_BAD) == GHMIX_TERM_BAD &&
            ghmix_mix_term_of(GHMIX_STAT_LOGLIK) == GHMIX_TERM_LOGLIK &&
            ghmix_mix_term_of(GHMIX_STAT_INV_Y) == GHMIX_TERM_INV_Y &&
            ghmix_mix_term_of(GHMIX_STAT_Y) == GHMIX_TERM_Y &&
            ghmix_mix_term_of(GHMIX_STAT_LOG_Y) == GHMIX_TERM_LOG_Y,
        "row: each scalar statistic sums its term");
}

/* ---------------------------------------------------------- the model */

static double unif(double lo, double hi) { return test_unif(lo, hi); }

static void test_model(void) {
  const double chol[4] = {2, 1, 0, 3}, gamma[2] = {4, 5};
  double g[2], gsg, logdet;
  ghmix_mix_component two[2];
  ghmix_mix_model m;
  ghmix_error err;
  mix_setup s;

  ghmix_mix_chol_consts(2, chol, gamma, g, &gsg, &logdet);
  check(g[0] == 2 && g[1] == 1 && gsg == 5 && rel(logdet, 2 * log(6.0)) < 4e-16,
        "model: g = L^-1 gamma, |g|^2 and log det Sigma");

  if (!mix_setup_init(&s, 3, -0.5, 1.0, 1.0, GHMIX_ESTEP_MOMENTS, unif)) {
    check(0, "model: a valid model completes");
    return;
  }
  check(s.model.complete == 1 &&
            ghmix_mix_model_check(&s.model, 3, &err) == GHMIX_OK,
        "model: completed, and the drivers accept it");
  check(ghmix_mix_model_check(&s.model, 2, &err) == GHMIX_ERR_DOMAIN,
        "model: data of another d are refused");
  m = s.model;
  m.complete = 0;
  check(ghmix_mix_model_check(&m, 3, &err) == GHMIX_ERR_DOMAIN,
        "model: a model not completed is refused");
  m = s.model;
  m.shape.d = 0;
  check(ghmix_mix_model_complete(&m, &err) == GHMIX_ERR_DOMAIN && !m.complete,
        "model: d = 0 does not complete");
  m = s.model;
  m.shape.what |= GHMIX_ESTEP_WEIGHTS;
  check(ghmix_mix_model_complete(&m, &err) == GHMIX_ERR_DOMAIN,
        "model: the weights flag without weights does not complete");
  two[0] = two[1] = s.comp;
  two[1].a = -1;
  m = s.model;
  m.comp = two;
  m.shape.components = 2;
  check(ghmix_mix_model_complete(&m, &err) == GHMIX_ERR_DOMAIN &&
            err.index == 1 && !m.complete,
        "model: an invalid GIG in component 2 (\"%s\")", err.message);
  two[1].a = 1;
  check(ghmix_mix_model_complete(&m, &err) == GHMIX_OK &&
            ghmix_mix_model_check(&m, 3, &err) == GHMIX_ERR_DOMAIN &&
            strstr(err.message, "not implemented yet") != NULL,
        "model: 2 components complete but are not implemented yet (\"%s\")",
        err.message);
  m = s.model;
  m.shape.cov = GHMIX_COV_FACTOR;
  m.shape.factors = 1;
  check(ghmix_mix_model_complete(&m, &err) == GHMIX_OK &&
            ghmix_mix_model_check(&m, 3, &err) == GHMIX_ERR_DOMAIN &&
            strstr(err.message, "factor") != NULL,
        "model: a factor covariance is not implemented yet (\"%s\")",
        err.message);
  mix_setup_free(&s);
}

/* ----------------------------------------------------------- M-step */

/* eta of GIG(p, a, b) back to (p, a, b) through the family's M-step. */
static void mstep_case(const char *label, int family, double p, double a,
                       double b, double tol) {
  double eta[3], start[3] = {p * 1.1 - 0.1, a * 0.9, b * 1.2};
  ghmix_mstep_mixing m;
  int ok;
  ghmix_gig_expectation(p, a, b, eta);
  ok = ghmix_mstep_mixing_solve(family, eta, NULL, start, &m);
  check(ok && m.converged && rel(m.p, p) < tol &&
            (a == 0 ? m.a == 0 : rel(m.a, a) < tol) &&
            (b == 0 ? m.b == 0 : rel(m.b, b) < tol),
        "M-step %s: (%.17g, %.17g, %.17g) for (%g, %g, %g)", label, m.p, m.a,
        m.b, p, a, b);
}

/* The same with p held (ghmix_mstep_mixing_fixed_p). */
static void mstep_fixed_p_case(double p, double a, double b, double tol) {
  double eta[3], start[3] = {p, 1, 1};
  ghmix_mstep_mixing m;
  ghmix_gig_expectation(p, a, b, eta);
  ghmix_mstep_mixing_fixed_p(p, eta, start, &m);
  check(m.p == p && rel(m.a, a) < tol && rel(m.b, b) < tol,
        "M-step fixed p: (%.17g, %.17g, %.17g) for (%g, %g, %g)", m.p, m.a, m.b,
        p, a, b);
}

static void test_mstep_fixed_p(void) {
  ghmix_mstep_mixing m;
  double eta[3] = {0, 0.5, 1.5}, start[3] = {2.5, 1, 1};
  mstep_fixed_p_case(2.5, 2.0, 3.0, 1e-12);
  mstep_fixed_p_case(-0.5, 0.1, 50.0, 1e-12);
  mstep_fixed_p_case(0.3, 4.0, 0.2, 1e-12);
  mstep_fixed_p_case(-3.0, 1e-3, 5.0, 1e-10);
  /* E Y E 1/Y = 0.75 <= 1: no GIG, the start is held */
  ghmix_mstep_mixing_fixed_p(2.5, eta, start, &m);
  check(m.a == 1 && m.b == 1, "M-step fixed p: the start where E Y E 1/Y <= 1");
  /* beyond every interior GIG of p = 2.5 (E Y E 1/Y -> 5/3 as w -> 0): the
   * gamma law with E Y matched */
  eta[1] = 2.0;
  ghmix_mstep_mixing_fixed_p(2.5, eta, start, &m);
  check(m.b == 0 && rel(m.a, 5.0 / 1.5) < 1e-15,
        "M-step fixed p: the gamma boundary (%g, %g)", m.a, m.b);
}

static void test_mstep(void) {
  ghmix_mstep_mixing m;
  double eta[3] = {0, 1.5, 1.6}, start[3] = {0, 1, 1};
  mstep_case("NIG", GHMIX_FAMILY_NIG, -0.5, 1.3, 0.7, 1e-13);
  mstep_case("VG", GHMIX_FAMILY_VG, 2.5, 1.5, 0, 1e-12);
  mstep_case("skew-t", GHMIX_FAMILY_SKEWT, -3.0, 0, 2.0, 1e-12);
  mstep_case("GH", GHMIX_FAMILY_GH, 1.2, 2.0, 0.7, 1e-10);
  check(!ghmix_mstep_mixing_solve(GHMIX_FAMILY_COUNT, eta, NULL, start, &m),
        "M-step: an unknown family is refused");
  test_mstep_fixed_p();
}

/* ------------------------------------------------------- the CPU driver */

/* The statistics by a serial loop over the rows (long double), with the
 * sums of |terms| in scale; wt: the rows' weights (estep.h: v = w), or
 * NULL. */
static void reference_w(const double *x, size_t n, const mix_setup *s,
                        const double *wt, double *st, double *scale) {
  const int d = s->d;
  const ghmix_estep_shape *sh = &s->model.shape;
  const size_t ns = ghmix_estep_nstats(sh);
  const size_t at_u = ghmix_estep_stat(sh, 0, GHMIX_STAT_U).offset;
  const size_t at_wu = ghmix_estep_stat(sh, 0, GHMIX_STAT_INV_Y_U).offset;
  const size_t at_wuu = ghmix_estep_stat(sh, 0, GHMIX_STAT_INV_Y_UU).offset;
  long double *acc = calloc(ns, sizeof(long double));
  double *u = malloc(sizeof(double) * (size_t)d);
  double *z = malloc(sizeof(double) * (size_t)d);
  size_t i, k;
  int j, l, id;
  for (k = 0; k < ns; k++)
    scale[k] = 0;
  for (i = 0; i < n; i++) {
    double q, bz;
    ghmix_mix_row_result r;
    ghmix_mix_terms t;
    double v_i = wt == NULL ? 1.0 : wt[i];
    mix_setup_forms(s, x, n, i, u, z, &q, &bz);
    ghmix_mix_row_step(&s->comp.c, q, bz, NULL, NULL, &r, &t);
    if (v_i == 0)
      continue;
    for (id = 0; id < GHMIX_STAT_NSCALAR; id++) {
      ghmix_stat_id sid = (ghmix_stat_id)id;
      int counted = sid == GHMIX_STAT_ROWS || sid == GHMIX_STAT_BAD;
      double v = t.v[ghmix_mix_term_of(sid)] * (counted ? 1.0 : v_i);
      k = ghmix_estep_stat(sh, 0, (ghmix_stat_id)id).offset;
      acc[k] += v;
      scale[k] += fabs(v);
    }
    if (t.v[GHMIX_TERM_ROWS] == 0)
      continue;
    for (j = 0; j < d; j++) {
      acc[at_u + j] += (long double)v_i * u[j];
      scale[at_u + j] += fabs(v_i * u[j]);
      acc[at_wu + j] += (long double)v_i * r.e_inv_y * u[j];
      scale[at_wu + j] += fabs(v_i * r.e_inv_y * u[j]);
      for (l = 0; l < d; l++) {
        k = at_wuu + (size_t)j + (size_t)l * d;
        acc[k] += (long double)v_i * r.e_inv_y * u[j] * u[l];
        scale[k] += fabs(v_i * r.e_inv_y * u[j] * u[l]);
      }
    }
  }
  for (k = 0; k < ns; k++)
    st[k] = (double)acc[k];
  free(acc);
  free(u);
  free(z);
}

static void reference(const double *x, size_t n, const mix_setup *s, double *st,
                      double *scale) {
  reference_w(x, n, s, NULL, st, scale);
}

static int is_count(const ghmix_estep_shape *sh, size_t k) {
  return k == ghmix_estep_stat(sh, 0, GHMIX_STAT_ROWS).offset ||
         k == ghmix_estep_stat(sh, 0, GHMIX_STAT_WEIGHT).offset ||
         k == ghmix_estep_stat(sh, 0, GHMIX_STAT_BAD).offset ||
         k == ghmix_estep_stat(sh, 0, GHMIX_STAT_TAU).offset;
}

/* The largest error of st against ref in units of scale, counts exact
 * (*wk: where). */
static double stats_error(const ghmix_estep_shape *sh, const double *st,
                          const double *ref, const double *scale, size_t *wk) {
  const size_t ns = ghmix_estep_nstats(sh);
  double worst = 0;
  size_t k;
  *wk = 0;
  for (k = 0; k < ns; k++) {
    double e = is_count(sh, k) ? (st[k] == ref[k] ? 0 : INFINITY)
                               : fabs(st[k] - ref[k]) / fmax(scale[k], DBL_MIN);
    if (!(e <= worst)) {
      worst = isnan(e) ? INFINITY : e;
      *wk = k;
    }
  }
  return worst;
}

/* The CPU driver on 1 and 2 threads (rows: the 1-thread run's output
 * rows, or NULL) against the reference ref: within 1e-12 of the sum of
 * |terms| (counts exact) and the same bits; st1 gets the 1-thread
 * statistics.  kind, label: the checks' names. */
static void driver_check(const char *kind, const char *label, const double *x,
                         size_t n, int d, const ghmix_mix_model *m,
                         const double *ref, const double *scale, double *st1,
                         double *rows) {
  const size_t ns = ghmix_estep_nstats(&m->shape);
  double *st2 = malloc(sizeof(double) * ns), worst;
  size_t wk;
  ghmix_error err;
  ghmix_status rc1 = ghmix_mix_estep_cpu(x, n, n, d, m, st1, rows, 1, &err);
  ghmix_status rc2 = ghmix_mix_estep_cpu(x, n, n, d, m, st2, NULL, 2, &err);
  worst = stats_error(&m->shape, st1, ref, scale, &wk);
  note_worst("E-step driver vs the reference loop", worst, 1e-12);
  check(rc1 == GHMIX_OK && rc2 == GHMIX_OK && worst <= 1e-12,
        "%s %s (d = %d, n = %lu): statistics within %.3g of the sum of "
        "|terms| (worst %lu: %.17g vs %.17g)",
        kind, label, d, (unsigned long)n, worst, (unsigned long)wk, st1[wk],
        ref[wk]);
  check(memcmp(st1, st2, sizeof(double) * ns) == 0,
        "%s %s: 1 and 2 threads give the same bits", kind, label);
  free(st2);
}

static void driver_case(const char *label, int d, size_t n, double p, double a,
                        double b, int what) {
  mix_setup s;
  double *x, *ref, *scale, *st1, *rows;
  size_t ns, i;
  int j;
  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "driver %s: the model", label);
    return;
  }
  ns = ghmix_estep_nstats(&s.model.shape);
  x = malloc(sizeof(double) * n * (size_t)d);
  ref = malloc(sizeof(double) * ns);
  scale = malloc(sizeof(double) * ns);
  st1 = malloc(sizeof(double) * ns);
  rows = malloc(sizeof(double) * 4 * n);
  for (i = 0; i < n; i++) {
    double w = exp(unif(-2, 2));
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s.center[j] + sqrt(w) * unif(-2, 2) + 0.3 * w;
  }
  for (i = 5; i < n; i += 611)
    x[i] = NAN;
  reference(x, n, &s, ref, scale);
  driver_check("driver", label, x, n, d, &s.model, ref, scale, st1, rows);
  check(ref[ghmix_estep_stat(&s.model.shape, 0, GHMIX_STAT_BAD).offset] ==
                (double)((n - 5 + 610) / 611) &&
            isnan(rows[5]) && isfinite(rows[n - 1]),
        "driver %s: the NaN rows are counted bad and give NaN rows", label);
  free(x);
  free(ref);
  free(scale);
  free(st1);
  free(rows);
  mix_setup_free(&s);
}

/* x (n x d) with row i repeated w_i times (sum w_i rows). */
static double *replicate_rows(const double *x, size_t n, int d,
                              const double *wt, size_t *nr) {
  double *xr;
  size_t i, k, r = 0;
  int j;
  *nr = 0;
  for (i = 0; i < n; i++)
    *nr += (size_t)wt[i];
  xr = malloc(sizeof(double) * *nr * (size_t)d);
  for (i = 0; i < n; i++)
    for (k = 0; k < (size_t)wt[i]; k++, r++)
      for (j = 0; j < d; j++)
        xr[r + (size_t)j * *nr] = x[i + (size_t)j * n];
  return xr;
}

/* Rows with weights (GHMIX_ESTEP_WEIGHTS), integers 0 to 3: the weighted
 * reference loop; the same bits on 1 and 2 threads; the rows replicated
 * w_i times give the same sums (within 1e-12 of the sum of |terms|, the
 * weight sums exact); a NaN row of weight 0 is not even bad, one of weight
 * 2 is bad once; weights all 1 give the bits of no weights. */
static void weighted_case(const char *label, int d, size_t n, double p,
                          double a, double b, int what) {
  mix_setup s;
  ghmix_mix_model mw;
  const ghmix_estep_shape *sh;
  double *x, *wt, *xr, *ref, *scale, *st1, *st2, *str, *ones;
  double worst_r = 0;
  size_t ns, i, k, nr, at_bad, at_w, at_tau, at_rows;
  ghmix_status rc1, rc2, rcr;
  ghmix_error err;
  int j;
  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "weighted %s: the model", label);
    return;
  }
  sh = &s.model.shape;
  ns = ghmix_estep_nstats(sh);
  x = malloc(sizeof(double) * n * (size_t)d);
  wt = malloc(sizeof(double) * n);
  ones = malloc(sizeof(double) * n);
  ref = malloc(sizeof(double) * ns);
  scale = malloc(sizeof(double) * ns);
  st1 = malloc(sizeof(double) * ns);
  st2 = malloc(sizeof(double) * ns);
  str = malloc(sizeof(double) * ns);
  for (i = 0; i < n; i++) {
    double v = exp(unif(-2, 2));
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s.center[j] + sqrt(v) * unif(-2, 2) + 0.3 * v;
    wt[i] = floor(test_unif(0, 4));
    ones[i] = 1;
  }
  x[5] = NAN;
  wt[5] = 0;
  x[7] = NAN;
  wt[7] = 2;
  mw = s.model;
  mw.weights = wt;
  mw.shape.what |= GHMIX_ESTEP_WEIGHTS;
  check(ghmix_mix_model_complete(&mw, &err) == GHMIX_OK &&
            ghmix_mix_model_check(&mw, d, &err) == GHMIX_OK,
        "weighted %s: the model with weights completes and is accepted", label);
  reference_w(x, n, &s, wt, ref, scale);
  driver_check("weighted", label, x, n, d, &mw, ref, scale, st1, NULL);
  at_bad = ghmix_estep_stat(sh, 0, GHMIX_STAT_BAD).offset;
  at_rows = ghmix_estep_stat(sh, 0, GHMIX_STAT_ROWS).offset;
  at_w = ghmix_estep_stat(sh, 0, GHMIX_STAT_WEIGHT).offset;
  at_tau = ghmix_estep_stat(sh, 0, GHMIX_STAT_TAU).offset;
  check(st1[at_bad] == 1,
        "weighted %s: the NaN row of weight 0 is not bad, "
        "the one of weight 2 is bad once (%g)",
        label, st1[at_bad]);
  xr = replicate_rows(x, n, d, wt, &nr);
  rcr = ghmix_mix_estep_cpu(xr, nr, nr, d, &s.model, str, NULL, 2, &err);
  for (k = 0; k < ns; k++)
    if (k != at_bad && k != at_rows && k != at_w && k != at_tau) {
      double e = fabs(str[k] - st1[k]) / fmax(scale[k], DBL_MIN);
      worst_r = e <= worst_r ? worst_r : (isnan(e) ? INFINITY : e);
    }
  note_worst("weights vs replicated rows", worst_r, 1e-12);
  check(rcr == GHMIX_OK && worst_r <= 1e-12 && st1[at_w] == str[at_rows] &&
            st1[at_tau] == str[at_tau] && st1[at_w] == st1[at_tau] &&
            st1[at_rows] < st1[at_w],
        "weighted %s: as the rows replicated (%lu rows; worst %.3g)", label,
        (unsigned long)nr, worst_r);
  mw.weights = ones;
  rc1 = ghmix_mix_estep_cpu(x, n, n, d, &mw, st1, NULL, 2, &err);
  rc2 = ghmix_mix_estep_cpu(x, n, n, d, &s.model, st2, NULL, 2, &err);
  check(rc1 == GHMIX_OK && rc2 == GHMIX_OK &&
            memcmp(st1, st2, sizeof(double) * ns) == 0,
        "weighted %s: weights all 1 give the bits of no weights", label);
  free(x);
  free(wt);
  free(ones);
  free(xr);
  free(ref);
  free(scale);
  free(st1);
  free(st2);
  free(str);
  mix_setup_free(&s);
}

/* ---------------------------------------------------- forms' seams */

/* The row's log f and moments just below and just above a parameter
 * threshold where the row changes form (mixture.h): the two forms agree. */
static void seam_case(const char *label, int d, double p0, double a0, double b0,
                      double p1, double a1, double b1, double gsg, double Q,
                      double B, double tol) {
  ghmix_mix_const c0, c1;
  ghmix_mix_row_result r0, r1;
  int ok =
      ghmix_mix_const_init(d, p0, a0, b0, gsg, 0.0, GHMIX_ESTEP_MOMENTS, &c0) &&
      ghmix_mix_const_init(d, p1, a1, b1, gsg, 0.0, GHMIX_ESTEP_MOMENTS, &c1);
  ghmix_mix_row(&c0, Q, B, &r0);
  ghmix_mix_row(&c1, Q, B, &r1);
  check(ok && c0.form != c1.form &&
            fabs(r0.loglik - r1.loglik) <= tol * fmax(1.0, fabs(r0.loglik)) &&
            rel(r1.e_y, r0.e_y) <= tol && rel(r1.e_inv_y, r0.e_inv_y) <= tol,
        "seam %s (d = %d, Q = %g, B = %g): log f %.17g vs %.17g, E Y %.3g, "
        "E 1/Y %.3g apart",
        label, d, Q, B, r0.loglik, r1.loglik, rel(r1.e_y, r0.e_y),
        rel(r1.e_inv_y, r0.e_inv_y));
}

static void test_seams(void) {
  const double lo = 1.0 - 1e-15, hi = 1.0 + 1e-15;
  const double w = GHMIX_MIX_W_SCALED, pl = GHMIX_MIX_P_LARGE;
  const double k = GHMIX_MIX_K_LARGE;
  int d;
  for (d = 1; d <= 3; d += 2) {
    /* near-normal: w = sqrt(ab) */
    seam_case("w", d, -0.5, w * lo, w, -0.5, w * hi, w, 0.3, 2.0, 0.5, 1e-14);
    seam_case("w", d, 1.5, w * lo, w, 1.5, w * hi, w, 0.0, 40.0, 0.0, 1e-14);
    /* large order */
    seam_case("p", d, pl * lo, 2.0, 3.0, pl * hi, 2.0, 3.0, 0.5, 1.0, 0.3,
              1e-14);
    /* Student-like (a = 0) */
    seam_case("k", d, -k * lo, 0.0, 2.0 * k, -k * hi, 0.0, 2.0 * k, 0.0, 3.0,
              0.0, 1e-14);
  }
}

/* d = 1, the heavy side's switch at B = 1e4 (mixture.c): rows just below
 * and above it (Q = B^2 / G, as for a point of the line) agree. */
static void test_heavy_seam(void) {
  ghmix_mix_const c;
  ghmix_mix_row_result r0, r1;
  double g2 = 0.25, b0 = 1e4 * (1.0 - 1e-15), b1 = 1e4 * (1.0 + 1e-15);
  ghmix_mix_const_init(1, -0.5, 1.0, 1.0, g2, 0.0, GHMIX_ESTEP_MOMENTS, &c);
  ghmix_mix_row(&c, b0 * b0 / g2, b0, &r0);
  ghmix_mix_row(&c, b1 * b1 / g2, b1, &r1);
  check(fabs(r1.loglik - r0.loglik) <= 1e-14 * fabs(r0.loglik),
        "seam B = 1e4 (d = 1): log f %.17g vs %.17g", r0.loglik, r1.loglik);
}

/* ghmix_bessel_table_eval_n: the same bits as ghmix_bessel_table_eval at
 * every point, for each set of functions a table holds, for odd and even
 * counts. */
static void test_table_n(void) {
  const int whats[4] = {0, GHMIX_BESSEL_RATIOS, GHMIX_BESSEL_GRAD,
                        GHMIX_BESSEL_RATIOS | GHMIX_BESSEL_GRAD};
  double x[37], t[37];
  ghmix_bessel_result one, many[37];
  ghmix_bessel_table tab;
  int w, i, n, same;
  for (i = 0; i < 37; i++) {
    x[i] = 0.3 * exp(0.15 * i);
    t[i] = log(x[i]);
  }
  for (w = 0; w < 4; w++) {
    if (!ghmix_bessel_table_build(2.3, whats[w], 0.3, 0.3 * exp(0.15 * 36),
                                  &tab)) {
      check(0, "table_eval_n: the table (what = %d) is built", whats[w]);
      continue;
    }
    for (n = 36; n <= 37; n++) {
      memset(many, 0, sizeof many);
      ghmix_bessel_table_eval_n(&tab, n, x, t, many);
      same = 1;
      for (i = 0; i < n; i++) {
        memset(&one, 0, sizeof one);
        ghmix_bessel_table_eval(&tab, x[i], t[i], &one);
        same &= memcmp(&one, &many[i], sizeof one) == 0;
      }
      check(same,
            "table_eval_n (what = %d, n = %d): the bits of one call "
            "per point",
            whats[w], n);
    }
    ghmix_bessel_table_free(&tab);
  }
}

static void test_driver(void) {
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  double stats[16], x[4] = {1, 2, 3, 4};
  ghmix_mix_component two[2];
  ghmix_mix_model m;
  ghmix_error err;
  mix_setup s;
  driver_case("GH, exact", 3, 1000, -0.7, 1.3, 0.8, both);
  driver_case("GH, tabulated K", 4, 20011, -0.7, 1.3, 0.8, both);
  driver_case("NIG, tabulated K", 10, 9000, -0.5, 1.1, 1.7,
              GHMIX_ESTEP_MOMENTS);
  driver_case("NIG d = 1 (closed form)", 1, 6000, -0.5, 1.1, 1.7,
              GHMIX_ESTEP_MOMENTS);
  driver_case("skew-t", 5, 5000, -3.0, 0.0, 4.0, both);
  driver_case("GH, BLAS (d = 60)", 60, 3000, 1.5, 1.0, 1.0, both);
  weighted_case("GH, exact", 3, 1000, -0.7, 1.3, 0.8, both);
  weighted_case("GH, tabulated K", 4, 9001, -0.7, 1.3, 0.8, both);
  weighted_case("NIG d = 1 (closed form)", 1, 6000, -0.5, 1.1, 1.7,
                GHMIX_ESTEP_MOMENTS);
  weighted_case("skew-t", 5, 5000, -3.0, 0.0, 4.0, both);
  weighted_case("GH, BLAS (d = 60)", 60, 3000, 1.5, 1.0, 1.0, both);
  if (mix_setup_init(&s, 2, -0.5, 1, 1, GHMIX_ESTEP_MOMENTS, unif)) {
    two[0] = two[1] = s.comp;
    m = s.model;
    m.comp = two;
    m.shape.components = 2;
    ghmix_mix_model_complete(&m, &err);
    check(ghmix_mix_estep_cpu(x, 2, 2, 2, &m, stats, NULL, 1, &err) ==
                  GHMIX_ERR_DOMAIN &&
              strstr(err.message, "not implemented yet") != NULL,
          "driver: 2 components are GHMIX_ERR_DOMAIN, not implemented yet");
    check(ghmix_mix_estep_cpu(x, 2, 2, 1, &s.model, stats, NULL, 1, &err) ==
              GHMIX_ERR_DOMAIN,
          "driver: data of another d are GHMIX_ERR_DOMAIN");
    mix_setup_free(&s);
  }
}

int main(void) {
  test_seed(17);
  test_row_step();
  test_model();
  test_mstep();
  test_seams();
  test_heavy_seam();
  test_table_n();
  test_driver();
  report_worst();
  printf("test_mixture: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
