/* Tests of the factor-analytic E-step (src/core/factor.h, the CPU driver
 * src/cpu/factor_cpu.h) against the full E-step (src/cpu/mixture_cpu.h) of
 * Sigma = F F' + diag(D) formed and Cholesky-factored here: every
 * statistic (the diagonal of S and S beta' from the full S) within 1e-12
 * of the full one, relative to the largest entry of its block (a scalar:
 * to the sum of its terms' sizes where that is larger), for the
 * four families, d = 1..50, r = 0..min(5, d - 1), with and without
 * weights; rows far out (Q overflows) and a NaN row; the same bits on 1
 * and 2 threads; unusable parameters refused.  The factor mixture's
 * one-pass E-step (ghmix_factor_estep_mixture_cpu) against the full
 * mixture E-step (ghmix_mix_estep_mixture_cpu) of the dense Sigma_k, the
 * same bits on 1 and 2 threads, and for G = 1 the bits of the
 * one-component driver.  Each case is one check.
 * Ends with "N passed, M failed". */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/factor.h"
#include "../../src/core/mixture.h"
#include "../../src/core/mixture_g.h"
#include "../../src/cpu/factor_cpu.h"
#include "../../src/cpu/mixture_cpu.h"
#include "check.h"

static double unif(double lo, double hi) { return test_unif(lo, hi); }

static void *xmalloc(size_t n) {
  void *p = malloc(n > 0 ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "test_factor: out of memory\n");
    exit(2);
  }
  return p;
}

/* A random factor model of dimension d with r factors, its data, and the
 * full Sigma's lower Cholesky factor. */
typedef struct {
  int d, r;
  size_t n;
  double *f, *uniq, *gamma, *center, *x, *w, *chol, *g;
} fac_case;

static void case_init(fac_case *c, int d, int r, size_t n) {
  size_t i;
  int j, k;
  c->d = d;
  c->r = r;
  c->n = n;
  c->f = xmalloc(sizeof(double) * (size_t)d * r);
  c->uniq = xmalloc(sizeof(double) * d);
  c->gamma = xmalloc(sizeof(double) * d);
  c->center = xmalloc(sizeof(double) * d);
  c->x = xmalloc(sizeof(double) * n * d);
  c->w = xmalloc(sizeof(double) * n);
  c->chol = xmalloc(sizeof(double) * (size_t)d * d);
  c->g = xmalloc(sizeof(double) * d);
  for (j = 0; j < d * r; j++)
    c->f[j] = unif(-1, 1);
  for (j = 0; j < d; j++) {
    c->uniq[j] = unif(0.3, 1.5);
    c->gamma[j] = unif(-0.4, 0.4);
    c->center[j] = unif(-0.5, 0.5);
  }
  for (i = 0; i < n; i++) {
    double z[8];
    for (k = 0; k < r; k++)
      z[k] = unif(-2, 2);
    c->w[i] = i % 7 == 3 ? 0.0 : unif(0.1, 3);
    for (j = 0; j < d; j++) {
      double v = c->center[j] + unif(-2, 2) * sqrt(c->uniq[j]);
      for (k = 0; k < r; k++)
        v += c->f[(size_t)k * d + j] * z[k];
      c->x[(size_t)j * n + i] = v;
    }
  }
}

static void case_free(fac_case *c) {
  free(c->f);
  free(c->uniq);
  free(c->gamma);
  free(c->center);
  free(c->x);
  free(c->w);
  free(c->chol);
  free(c->g);
}

/* The lower Cholesky factor of F F' + diag(D) (column-major). */
static void case_chol(fac_case *c) {
  const int d = c->d, r = c->r;
  double *a = c->chol;
  int i, j, k;
  for (j = 0; j < d; j++)
    for (i = 0; i < d; i++) {
      double s = i == j ? c->uniq[i] : 0.0;
      for (k = 0; k < r; k++)
        s += c->f[(size_t)k * d + i] * c->f[(size_t)k * d + j];
      a[(size_t)j * d + i] = s;
    }
  for (j = 0; j < d; j++) {
    double s = a[(size_t)j * d + j];
    for (k = 0; k < j; k++)
      s -= a[(size_t)k * d + j] * a[(size_t)k * d + j];
    a[(size_t)j * d + j] = sqrt(s);
    for (i = j + 1; i < d; i++) {
      double v = a[(size_t)j * d + i];
      for (k = 0; k < j; k++)
        v -= a[(size_t)k * d + i] * a[(size_t)k * d + j];
      a[(size_t)j * d + i] = v / a[(size_t)j * d + j];
    }
    for (i = 0; i < j; i++)
      a[(size_t)j * d + i] = 0;
  }
}

static const double family_pab[GHMIX_FAMILY_COUNT][3] = {
    {0.7, 1.1, 1.3}, {-0.5, 1.2, 0.9}, {1.5, 2.0, 0.0}, {-2.5, 0.0, 3.0}};

/* max |got - want| over a block, relative to max(|want|) (1 for a block
 * of zeros); NaN where only one of them is NaN. */
static double block_err(const double *got, const double *want, size_t len) {
  double e = 0, s = 0;
  size_t i;
  for (i = 0; i < len; i++) {
    double v = isnan(got[i]) && isnan(want[i]) ? 0 : fabs(got[i] - want[i]);
    e = v > e || isnan(v) ? v : e;
    s = fabs(want[i]) > s ? fabs(want[i]) : s;
  }
  return len == 0 ? 0 : e / (s > 0 ? s : 1);
}

/* The full E-step of the case: its statistics (full layout) and rows. */
static int full_estep(fac_case *c, int family, int what, int weighted,
                      double *stats, double *rows) {
  ghmix_mix_component comp;
  ghmix_mix_model model;
  ghmix_error err;
  case_chol(c);
  ghmix_mix_chol_consts(c->d, c->chol, c->gamma, c->g, &comp.gsg, &comp.logdet);
  comp.center = c->center;
  comp.chol = c->chol;
  comp.g = c->g;
  comp.p = family_pab[family][0];
  comp.a = family_pab[family][1];
  comp.b = family_pab[family][2];
  comp.log_prop = 0;
  model.shape.d = c->d;
  model.shape.components = 1;
  model.shape.cov = GHMIX_COV_FULL;
  model.shape.factors = 0;
  model.shape.what = what | (weighted ? GHMIX_ESTEP_WEIGHTS : 0);
  model.comp = &comp;
  model.weights = weighted ? c->w : NULL;
  if (ghmix_mix_model_complete(&model, &err) != GHMIX_OK)
    return 0;
  return ghmix_mix_estep_cpu(c->x, c->n, c->n, c->d, &model, stats, rows, 1,
                             &err) == GHMIX_OK;
}

/* The sum over the rows of |w_i t_i|, t_i row i's term of scalar
 * statistic id (from the full E-step's rows; w_i its weight, or 1), 0 for
 * the counts: the scale of the error of a sum whose terms cancel, as the
 * deviation statistics' do (c E[1/Y|x] - 1 of both signs). */
static double term_scale(const fac_case *c, const ghmix_factor_model *fm,
                         int weighted, const double *rows, int id) {
  const size_t n = c->n;
  const double dev = fm->c.dev_scale;
  double s = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    const double w = weighted ? c->w[i] : 1.0;
    const double inv_y = rows[GHMIX_ROW_INV_Y * n + i];
    const double y = rows[GHMIX_ROW_Y * n + i];
    double t;
    switch (id) {
    case GHMIX_STAT_LOGLIK:
      t = rows[GHMIX_ROW_LOGLIK * n + i];
      break;
    case GHMIX_STAT_INV_Y:
      t = inv_y;
      break;
    case GHMIX_STAT_Y:
      t = y;
      break;
    case GHMIX_STAT_LOG_Y:
      t = rows[GHMIX_ROW_LOG_Y * n + i];
      break;
    case GHMIX_STAT_INV_Y_DEV:
      t = dev * inv_y - 1;
      break;
    case GHMIX_STAT_Y_DEV:
      t = y / dev - 1;
      break;
    default:
      t = 0;
    }
    if (isfinite(t) && w > 0)
      s += fabs(w * t);
  }
  return s;
}

/* The worst block error of the factor statistics fs (and rows fr) against
 * the full ones (S beta' and diag S from the full S); a scalar's relative
 * to the larger of itself and the sum of its terms' sizes. */
static double compare(const fac_case *c, const ghmix_factor_model *fm,
                      int weighted, const double *fs, const double *fr,
                      const double *full, const double *rows) {
  ghmix_estep_shape sf = ghmix_factor_shape(fm, weighted), sg = sf;
  const int d = c->d, r = c->r;
  const double *sxx;
  double *diag = xmalloc(sizeof(double) * d);
  double *proj = xmalloc(sizeof(double) * (size_t)d * r), e = 0, v;
  int id, i, j, k;
  sg.cov = GHMIX_COV_FULL;
  sg.factors = 0;
  for (id = 0; id <= GHMIX_STAT_INV_Y_U; id++) {
    ghmix_stat_block a = ghmix_estep_stat(&sf, 0, (ghmix_stat_id)id);
    ghmix_stat_block b = ghmix_estep_stat(&sg, 0, (ghmix_stat_id)id);
    v = block_err(fs + a.offset, full + b.offset, a.length);
    if (a.length == 1 && isfinite(full[b.offset]) && full[b.offset] != 0)
      v *= fabs(full[b.offset]) /
           fmax(fabs(full[b.offset]), term_scale(c, fm, weighted, rows, id));
    e = v > e || isnan(v) ? v : e;
  }
  sxx = full + ghmix_estep_stat(&sg, 0, GHMIX_STAT_INV_Y_UU).offset;
  for (j = 0; j < d; j++) {
    diag[j] = sxx[(size_t)j * d + j];
    for (k = 0; k < r; k++) {
      double s = 0;
      for (i = 0; i < d; i++)
        s += sxx[(size_t)i * d + j] * fm->proj_t[(size_t)i * r + k];
      proj[(size_t)k * d + j] = s;
    }
  }
  v = block_err(fs + ghmix_estep_stat(&sf, 0, GHMIX_STAT_INV_Y_UU_DIAG).offset,
                diag, d);
  e = v > e || isnan(v) ? v : e;
  v = block_err(fs + ghmix_estep_stat(&sf, 0, GHMIX_STAT_INV_Y_UU_PROJ).offset,
                proj, (size_t)d * r);
  e = v > e || isnan(v) ? v : e;
  for (k = 0; k < GHMIX_ROW_COUNT - 1; k++) {
    v = block_err(fr + k * c->n, rows + k * c->n, c->n);
    e = v > e || isnan(v) ? v : e;
  }
  free(diag);
  free(proj);
  return e;
}

/* One case: the factor E-step against the full one. */
static double run_case(fac_case *c, int family, int weighted, int threads) {
  const int what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const double *pab = family_pab[family];
  ghmix_factor_model fm;
  ghmix_estep_shape sf, sg;
  ghmix_error err;
  double *buf = xmalloc(sizeof(double) * ghmix_factor_buffer_size(c->d, c->r));
  double *fs, *full, *fr, *rows, e = INFINITY;
  if (!ghmix_factor_model_init(c->d, c->r, c->center, c->f, c->uniq, c->gamma,
                               pab[0], pab[1], pab[2], what, buf, &fm)) {
    free(buf);
    return e;
  }
  sf = ghmix_factor_shape(&fm, weighted);
  sg = sf;
  sg.cov = GHMIX_COV_FULL;
  sg.factors = 0;
  fs = xmalloc(sizeof(double) * ghmix_estep_nstats(&sf));
  full = xmalloc(sizeof(double) * ghmix_estep_nstats(&sg));
  fr = xmalloc(sizeof(double) * c->n * GHMIX_ROW_COUNT);
  rows = xmalloc(sizeof(double) * c->n * GHMIX_ROW_COUNT);
  if (ghmix_factor_estep_cpu(c->x, c->n, c->n, &fm, weighted ? c->w : NULL, fs,
                             fr, threads, &err) == GHMIX_OK &&
      full_estep(c, family, what, weighted, full, rows))
    e = compare(c, &fm, weighted, fs, fr, full, rows);
  free(buf);
  free(fs);
  free(full);
  free(fr);
  free(rows);
  return e;
}

static void test_against_full(void) {
  int d, r, family, weighted;
  for (d = 1; d <= 50; d++)
    for (r = 0; r <= (d - 1 < 5 ? d - 1 : 5); r++)
      for (family = 0; family < GHMIX_FAMILY_COUNT; family++)
        for (weighted = 0; weighted <= 1; weighted++) {
          fac_case c;
          double e;
          case_init(&c, d, r, 30 + (size_t)d);
          e = run_case(&c, family, weighted, 2);
          note_worst("factor E-step vs the full one", e, 1e-12);
          check(e <= 1e-12, "%s d = %d, r = %d, weights %d: error %.3g",
                ghmix_family_name(family), d, r, weighted, e);
          case_free(&c);
        }
}

/* Rows far out (|x| ~ 1e160: Q overflows) and a NaN row. */
static void test_far_rows(void) {
  int family;
  for (family = 0; family < GHMIX_FAMILY_COUNT; family++) {
    fac_case c;
    double e;
    int j;
    case_init(&c, 12, 3, 40);
    for (j = 0; j < c.d; j++) {
      c.x[(size_t)j * c.n + 5] *= 1e160;
      c.x[(size_t)j * c.n + 9] = (j % 2 ? -3e158 : 2e159);
    }
    c.x[(size_t)4 * c.n + 11] = NAN;
    e = run_case(&c, family, 0, 1);
    note_worst("factor E-step vs the full one, far rows", e, 1e-12);
    check(e <= 1e-12, "%s far rows: error %.3g", ghmix_family_name(family), e);
    case_free(&c);
  }
}

/* The same bits on 1 and 2 threads (enough rows for both to work). */
static void test_threads(void) {
  const int what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  int weighted;
  for (weighted = 0; weighted <= 1; weighted++) {
    fac_case c;
    ghmix_factor_model fm;
    ghmix_estep_shape s;
    ghmix_error err;
    double *buf, *s1, *s2, *r1, *r2;
    size_t ns;
    case_init(&c, 40, 4, 5000);
    buf = xmalloc(sizeof(double) * ghmix_factor_buffer_size(c.d, c.r));
    if (!ghmix_factor_model_init(c.d, c.r, c.center, c.f, c.uniq, c.gamma, -1.2,
                                 1.1, 1.3, what, buf, &fm)) {
      check(0, "threads: model");
      continue;
    }
    s = ghmix_factor_shape(&fm, weighted);
    ns = ghmix_estep_nstats(&s);
    s1 = xmalloc(sizeof(double) * ns);
    s2 = xmalloc(sizeof(double) * ns);
    r1 = xmalloc(sizeof(double) * c.n * GHMIX_ROW_COUNT);
    r2 = xmalloc(sizeof(double) * c.n * GHMIX_ROW_COUNT);
    ghmix_factor_estep_cpu(c.x, c.n, c.n, &fm, weighted ? c.w : NULL, s1, r1, 1,
                           &err);
    ghmix_factor_estep_cpu(c.x, c.n, c.n, &fm, weighted ? c.w : NULL, s2, r2, 2,
                           &err);
    check(memcmp(s1, s2, sizeof(double) * ns) == 0 &&
              memcmp(r1, r2, sizeof(double) * c.n * GHMIX_ROW_COUNT) == 0,
          "threads 1 and 2 give the same bits (weights %d)", weighted);
    free(buf);
    free(s1);
    free(s2);
    free(r1);
    free(r2);
    case_free(&c);
  }
}

/* Unusable parameters: D <= 0 or not finite, F or gamma not finite, an
 * invalid GIG. */
/* Whether the model of case c with r factors and GIG(p, a, b) is usable. */
static int usable(const fac_case *c, int r, double p, double a, double b) {
  ghmix_factor_model fm;
  double *buf = xmalloc(sizeof(double) * ghmix_factor_buffer_size(c->d, r));
  int ok = ghmix_factor_model_init(c->d, r, c->center, c->f, c->uniq, c->gamma,
                                   p, a, b, GHMIX_ESTEP_MOMENTS, buf, &fm);
  free(buf);
  return ok;
}

static void test_refused(void) {
  fac_case c;
  case_init(&c, 6, 2, 10);
  check(usable(&c, 2, 1, 1, 1), "usable model accepted");
  c.uniq[2] = 0;
  check(!usable(&c, 2, 1, 1, 1), "D = 0 refused");
  c.uniq[2] = INFINITY;
  check(!usable(&c, 2, 1, 1, 1), "D = Inf refused");
  c.uniq[2] = 1;
  c.f[3] = NAN;
  check(!usable(&c, 2, 1, 1, 1), "NaN loading refused");
  c.f[3] = 0.5;
  c.gamma[1] = INFINITY;
  check(!usable(&c, 2, 1, 1, 1), "infinite gamma refused");
  c.gamma[1] = 0.1;
  check(!usable(&c, 2, 1, 0, 0), "invalid GIG refused");
  check(!usable(&c, 6, 1, 1, 1), "r = d refused");
  case_free(&c);
}

/* A factor mixture of G components on the rows of cs[0]: component k the
 * model of cs[k] (its own centre, F, D, gamma), family (k + family0) mod
 * the families, log proportions lp. */
typedef struct {
  int G, what;
  ghmix_factor_model fm[4];
  double *buf[4], lp[4];
} facg_case;

static int facg_init(facg_case *m, fac_case *cs, int G, int family0) {
  int k, ok = 1;
  double s = 0;
  m->G = G;
  m->what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  for (k = 0; k < G; k++) {
    const double *pab = family_pab[(k + family0) % GHMIX_FAMILY_COUNT];
    m->buf[k] =
        xmalloc(sizeof(double) * ghmix_factor_buffer_size(cs[k].d, cs[k].r));
    ok &= ghmix_factor_model_init(cs[k].d, cs[k].r, cs[k].center, cs[k].f,
                                  cs[k].uniq, cs[k].gamma, pab[0], pab[1],
                                  pab[2], m->what, m->buf[k], &m->fm[k]);
    m->lp[k] = 1.0 + k;
    s += m->lp[k];
  }
  for (k = 0; k < G; k++)
    m->lp[k] = log(m->lp[k] / s);
  return ok;
}

static void facg_free(facg_case *m) {
  int k;
  for (k = 0; k < m->G; k++)
    free(m->buf[k]);
}

/* The full mixture E-step of the same model (dense Sigma_k). */
static int facg_full(fac_case *cs, const facg_case *m, int weighted,
                     double *stats, double *rows) {
  ghmix_mix_component comp[4];
  ghmix_mix_model model;
  ghmix_error err;
  int k;
  for (k = 0; k < m->G; k++) {
    case_chol(&cs[k]);
    ghmix_mix_chol_consts(cs[k].d, cs[k].chol, cs[k].gamma, cs[k].g,
                          &comp[k].gsg, &comp[k].logdet);
    comp[k].center = cs[k].center;
    comp[k].chol = cs[k].chol;
    comp[k].g = cs[k].g;
    comp[k].p = m->fm[k].c.p;
    comp[k].a = m->fm[k].c.a;
    comp[k].b = m->fm[k].c.b;
    comp[k].log_prop = m->lp[k];
  }
  model.shape.d = cs[0].d;
  model.shape.components = m->G;
  model.shape.cov = GHMIX_COV_FULL;
  model.shape.factors = 0;
  model.shape.what = m->what | (weighted ? GHMIX_ESTEP_WEIGHTS : 0);
  model.comp = comp;
  model.weights = weighted ? cs[0].w : NULL;
  if (ghmix_mix_model_complete(&model, &err) != GHMIX_OK)
    return 0;
  return ghmix_mix_estep_mixture_cpu(cs[0].x, cs[0].n, cs[0].n, cs[0].d, &model,
                                     stats, rows, 1, &err) == GHMIX_OK;
}

/* The worst error of the factor mixture's statistics fs and rows fr
 * against the full ones: each block relative to its largest entry, a
 * component's scalars to the larger of themselves and its sum of v (the
 * deviation statistics' terms cancel), diag S and S beta_k' from the full
 * S_k. */
static double facg_compare(const fac_case *cs, const facg_case *m, int weighted,
                           const double *fs, const double *fr,
                           const double *full, const double *rows) {
  ghmix_estep_shape sf = ghmix_factor_shape(&m->fm[0], weighted), sg;
  const int d = cs[0].d, r = cs[0].r;
  const size_t n = cs[0].n;
  double *diag = xmalloc(sizeof(double) * d);
  double *proj = xmalloc(sizeof(double) * (size_t)d * r), e = 0, v;
  int id, i, j, k, l;
  sf.components = m->G;
  sf.what = m->what | (weighted ? GHMIX_ESTEP_WEIGHTS : 0);
  sg = sf;
  sg.cov = GHMIX_COV_FULL;
  sg.factors = 0;
  for (k = 0; k < m->G; k++) {
    const double tau =
        full[ghmix_estep_stat(&sg, k, GHMIX_STAT_TAU).offset] + 1e-300;
    const double *sxx =
        full + ghmix_estep_stat(&sg, k, GHMIX_STAT_INV_Y_UU).offset;
    for (id = 0; id <= GHMIX_STAT_INV_Y_U; id++) {
      ghmix_stat_block a = ghmix_estep_stat(&sf, k, (ghmix_stat_id)id);
      ghmix_stat_block b = ghmix_estep_stat(&sg, k, (ghmix_stat_id)id);
      v = block_err(fs + a.offset, full + b.offset, a.length);
      if (a.length == 1 && !ghmix_stat_is_global((ghmix_stat_id)id) &&
          full[b.offset] != 0)
        v *= fabs(full[b.offset]) / fmax(fabs(full[b.offset]), tau);
      e = v > e || isnan(v) ? v : e;
    }
    for (j = 0; j < d; j++) {
      diag[j] = sxx[(size_t)j * d + j];
      for (l = 0; l < r; l++) {
        double s = 0;
        for (i = 0; i < d; i++)
          s += sxx[(size_t)i * d + j] * m->fm[k].proj_t[(size_t)i * r + l];
        proj[(size_t)l * d + j] = s;
      }
    }
    v = block_err(fs +
                      ghmix_estep_stat(&sf, k, GHMIX_STAT_INV_Y_UU_DIAG).offset,
                  diag, d);
    e = v > e || isnan(v) ? v : e;
    v = block_err(fs +
                      ghmix_estep_stat(&sf, k, GHMIX_STAT_INV_Y_UU_PROJ).offset,
                  proj, (size_t)d * r);
    e = v > e || isnan(v) ? v : e;
  }
  for (k = 0; k < (int)ghmix_mixg_row_ncol(m->G); k++) {
    v = block_err(fr + k * n, rows + k * n, n);
    e = v > e || isnan(v) ? v : e;
  }
  free(diag);
  free(proj);
  return e;
}

/* The factor mixture's statistics (and rows) of G components on cs. */
static double *facg_estep(const fac_case *cs, const facg_case *m, int weighted,
                          double *rows, int threads, size_t *ns) {
  ghmix_estep_shape sf = ghmix_factor_shape(&m->fm[0], weighted);
  ghmix_error err;
  double *fs;
  sf.components = m->G;
  *ns = ghmix_estep_nstats(&sf);
  fs = xmalloc(sizeof(double) * *ns);
  if (ghmix_factor_estep_mixture_cpu(cs[0].x, cs[0].n, cs[0].n, m->G, m->fm,
                                     m->lp, m->what, weighted ? cs[0].w : NULL,
                                     fs, rows, threads, &err) != GHMIX_OK) {
    free(fs);
    return NULL;
  }
  return fs;
}

static void test_mixture_against_full(void) {
  int d, r, G, family, weighted, k;
  for (d = 1; d <= 20; d += 3)
    for (r = 0; r <= (d - 1 < 3 ? d - 1 : 3); r++)
      for (G = 1; G <= 3; G++)
        for (family = 0; family < GHMIX_FAMILY_COUNT; family++)
          for (weighted = 0; weighted <= 1; weighted++) {
            fac_case cs[3];
            facg_case m;
            size_t ns, nr;
            double *fs = NULL, *full, *fr, *rows, e = INFINITY;
            for (k = 0; k < G; k++)
              case_init(&cs[k], d, r, 50 + (size_t)d);
            nr = cs[0].n * ghmix_mixg_row_ncol(G);
            fr = xmalloc(sizeof(double) * nr);
            rows = xmalloc(sizeof(double) * nr);
            full = xmalloc(sizeof(double) *
                           (20 + (size_t)G * (8 + 3 * d + d * d)));
            if (facg_init(&m, cs, G, family) &&
                (fs = facg_estep(cs, &m, weighted, fr, 2, &ns)) != NULL &&
                facg_full(cs, &m, weighted, full, rows))
              e = facg_compare(cs, &m, weighted, fs, fr, full, rows);
            note_worst("factor mixture E-step vs the full one", e, 1e-11);
            check(e <= 1e-11,
                  "factor mixture G = %d, %s, d = %d, r = %d, weights %d: "
                  "error %.3g",
                  G, ghmix_family_name(family), d, r, weighted, e);
            facg_free(&m);
            free(fs);
            free(full);
            free(fr);
            free(rows);
            for (k = 0; k < G; k++)
              case_free(&cs[k]);
          }
}

/* The factor mixture: the same bits on 1 and 2 threads (rows far out and
 * a NaN row among them); G = 1: the one-component driver's bits. */
static void test_mixture_threads(void) {
  int G, weighted, k, j;
  for (G = 1; G <= 3; G++)
    for (weighted = 0; weighted <= 1; weighted++) {
      fac_case cs[3];
      facg_case m;
      size_t ns, nr;
      double *s1, *s2, *r1, *r2;
      for (k = 0; k < G; k++)
        case_init(&cs[k], 30, 3, 7000);
      for (j = 0; j < 30; j++)
        cs[0].x[(size_t)j * cs[0].n + 17] *= 1e160;
      cs[0].x[(size_t)4 * cs[0].n + 23] = NAN;
      nr = cs[0].n * ghmix_mixg_row_ncol(G);
      r1 = xmalloc(sizeof(double) * nr);
      r2 = xmalloc(sizeof(double) * nr);
      facg_init(&m, cs, G, 1);
      s1 = facg_estep(cs, &m, weighted, r1, 1, &ns);
      s2 = facg_estep(cs, &m, weighted, r2, 2, &ns);
      check(s1 != NULL && s2 != NULL &&
                memcmp(s1, s2, sizeof(double) * ns) == 0 &&
                memcmp(r1, r2, sizeof(double) * nr) == 0,
            "factor mixture G = %d: threads 1 and 2 give the same bits "
            "(weights %d)",
            G, weighted);
      if (G == 1 && s1 != NULL) {
        ghmix_error err;
        double *one = xmalloc(sizeof(double) * ns);
        ghmix_factor_estep_cpu(cs[0].x, cs[0].n, cs[0].n, &m.fm[0],
                               weighted ? cs[0].w : NULL, one, NULL, 2, &err);
        check(memcmp(s1, one, sizeof(double) * ns) == 0,
              "factor mixture G = 1: the bits of the one-component E-step "
              "(weights %d)",
              weighted);
        free(one);
      }
      facg_free(&m);
      free(s1);
      free(s2);
      free(r1);
      free(r2);
      for (k = 0; k < G; k++)
        case_free(&cs[k]);
    }
}

int main(void) {
  test_against_full();
  test_far_rows();
  test_threads();
  test_refused();
  test_mixture_against_full();
  test_mixture_threads();
  report_worst();
  printf("test_factor: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
