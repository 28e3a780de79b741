#include "factor_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batch.h"
#include "mixg_block.h"
#include "slots.h"

/* Rows per block, the fixed number of slots (as in mixture_cpu.c), rows of
 * each slot per round (the interrupt is polled between rounds), and the
 * work (n d (r + 1)) below which the calling thread does it all. */
#define FAC_BLOCK 64
#define FAC_SLOTS 16
#define FAC_ROUND 8192
#define FAC_PARALLEL_MIN 65536.0

#ifdef _OPENMP
#define FAC_PRAGMA(x) _Pragma(#x)
#else
#define FAC_PRAGMA(x)
#endif
#define FAC_SIMD FAC_PRAGMA(omp simd)
/* The loops over a block, also compiled for x86-64-v3 (AVX2, FMA), the
 * variant picked when the program is loaded where the CPU has it (GCC 12
 * on x86-64 Linux: target_clones needs the loader's ifunc). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 &&              \
    defined(__x86_64__) && defined(__linux__)
#define FAC_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define FAC_CLONES
#endif

/* A thread's buffers for a block of m rows, column-major (column j of u
 * at u + j m): u = x - m (then times sqrt(v E[1/Y|x]), 0 in rows left
 * out), beta u (likewise), and per row u' D^-1 u, B, the weights v and v
 * E[1/Y|x] and sqrt of the latter; row_bu: one row's beta u. */
typedef struct {
  double *u, *bu, *qd, *b, *v, *vw, *sw, *row_bu;
  /* a mixture's (fac_job.mixture): each component's beta u (G blocks of
   * m x r), v and v E[1/Y|x] (G blocks of m), tau and the row results
   * (m x G, row i's component k at i G + k) */
  double *bu_g, *v_g, *vw_g, *tau;
  ghmix_mix_row_result *res;
} fac_work;

/* A slot's vector sums (fac_job.nacc doubles): sum v u, sum v E[1/Y|x] u,
 * the diagonal of S and S beta' (d x r, row-major). */
enum { FAC_SX = 0, FAC_SXW, FAC_DIAG, FAC_PROJ };

/* nacc: doubles of one component's vector sums; nterms: doubles of a
 * slot's term sums (GHMIX_TERM_COUNT for one component; for a mixture the
 * model's 4 sums (ghmix_mixg_global), then GHMIX_TERM_COUNT per
 * component). */
typedef struct {
  const double *x, *weights;
  size_t n, ldx, nacc, nterms;
  int d, r, G, mixture; /* mixture: the per-row tau of G >= 1 */
  ghmix_slots sl;
  const ghmix_factor_model *fm; /* G of them */
  double *slot_acc, *slot_terms, *rows;
  ghmix_mixg_rows mix; /* a mixture's (for ghmix_mixg_block_terms) */
  fac_work *work;
} fac_job;

ghmix_estep_shape ghmix_factor_shape(const ghmix_factor_model *fm,
                                     int weighted) {
  ghmix_estep_shape s;
  s.d = fm->d;
  s.components = 1;
  s.cov = GHMIX_COV_FACTOR;
  s.factors = fm->r;
  s.what = fm->c.what | (weighted ? GHMIX_ESTEP_WEIGHTS : 0);
  return s;
}

/* bu += u beta' (m x r) for the m x d block u, four columns of u at a
 * time (beta' row-major: fm->proj_t). */
FAC_CLONES static void fac_block_bu(int d, int r, int m, const double *u,
                                    const double *pt, double *bu) {
  int i, j = 0, k;
  for (; j + 4 <= d; j += 4) {
    const double *u0 = u + (size_t)j * m, *u1 = u0 + m, *u2 = u1 + m,
                 *u3 = u2 + m;
    const double *p0 = pt + (size_t)j * r, *p1 = p0 + r, *p2 = p1 + r,
                 *p3 = p2 + r;
    for (k = 0; k < r; k++) {
      const double a0 = p0[k], a1 = p1[k], a2 = p2[k], a3 = p3[k];
      double *bk = bu + (size_t)k * m;
      FAC_SIMD
      for (i = 0; i < m; i++)
        bk[i] += (a0 * u0[i] + a1 * u1[i]) + (a2 * u2[i] + a3 * u3[i]);
    }
  }
  for (; j < d; j++)
    for (k = 0; k < r; k++) {
      const double a = pt[(size_t)j * r + k], *uj = u + (size_t)j * m;
      double *bk = bu + (size_t)k * m;
      FAC_SIMD
      for (i = 0; i < m; i++)
        bk[i] += a * uj[i];
    }
}

/* Asks for the next block's part of a column of x (m doubles at x) ahead
 * of its use: one column of a block is short (a few cache lines), too
 * short for the hardware to see the stream. */
static void fac_prefetch(const double *x, int m) {
#if defined(__GNUC__)
  int i;
  for (i = 0; i < m; i += 8)
    __builtin_prefetch(x + i);
#else
  (void)x;
  (void)m;
#endif
}

/* u = x - m, u' D^-1 u, B and beta u of the rows [lo, lo + m) for the
 * component fm. */
FAC_CLONES static void fac_block_forms(const fac_job *job,
                                       const ghmix_factor_model *fm, size_t lo,
                                       int m, fac_work *w) {
  const int d = job->d;
  int i, j;
  for (i = 0; i < m; i++)
    w->qd[i] = w->b[i] = 0;
  for (j = 0; j < d; j++) {
    const double *xj = job->x + (size_t)j * job->ldx + lo;
    const double cj = fm->center[j], dj = fm->dinv[j], sj = fm->s[j];
    double *uj = w->u + (size_t)j * m, *qd = w->qd, *b = w->b;
    fac_prefetch(xj + m, lo + 2 * (size_t)m <= job->n ? m : 0);
    FAC_SIMD
    for (i = 0; i < m; i++) {
      uj[i] = xj[i] - cj;
      qd[i] += uj[i] * uj[i] * dj;
      b[i] += uj[i] * sj;
    }
  }
  memset(w->bu, 0, sizeof(double) * (size_t)m * job->r);
  fac_block_bu(d, job->r, m, w->u, fm->proj_t, w->bu);
}

/* Row i of the block at lo: its result and terms (added to sum), its
 * output row, its weights in w, and beta u times sqrt(v E[1/Y|x]) (u and
 * beta u set to 0 for a row left out). */
static void fac_block_row(const fac_job *job, size_t lo, int i, int m,
                          ghmix_mix_terms *sum, fac_work *w) {
  const ghmix_factor_model *fm = job->fm;
  const int r = job->r;
  ghmix_mix_row_result res;
  ghmix_mix_terms t;
  double sw;
  int j, k, ok;
  for (k = 0; k < r; k++)
    w->row_bu[k] = w->bu[(size_t)k * m + i];
  ok = ghmix_factor_row_finish(fm, w->u + i, (size_t)m, w->qd[i], w->b[i],
                               w->row_bu, &res, &t);
  if (job->weights != NULL)
    ok = ghmix_mix_terms_weight(&t, job->weights[lo + (size_t)i]);
  if (job->rows != NULL)
    ghmix_mix_row_store(&fm->c, &res, lo + (size_t)i, job->n, job->rows);
  ghmix_mix_terms_add(sum, &t);
  w->v[i] = ok ? t.v[GHMIX_TERM_WEIGHT] : 0.0;
  w->vw[i] = ok ? t.v[GHMIX_TERM_INV_Y] : 0.0;
  sw = w->sw[i] = sqrt(w->vw[i]);
  for (k = 0; k < r; k++)
    w->bu[(size_t)k * m + i] = ok ? w->row_bu[k] * sw : 0.0;
  if (!ok)
    for (j = 0; j < job->d; j++)
      w->u[(size_t)j * m + i] = 0;
}

/* pj[k] += sum_i uj[i] bu[k m + i], k < r, four k at a time. */
FAC_CLONES static void fac_block_proj(int r, int m, const double *uj,
                                      const double *bu, double *pj) {
  int i, k = 0;
  for (; k + 4 <= r; k += 4) {
    const double *b0 = bu + (size_t)k * m, *b1 = b0 + m, *b2 = b1 + m,
                 *b3 = b2 + m;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    FAC_PRAGMA(omp simd reduction(+ : s0, s1, s2, s3))
    for (i = 0; i < m; i++) {
      s0 += uj[i] * b0[i];
      s1 += uj[i] * b1[i];
      s2 += uj[i] * b2[i];
      s3 += uj[i] * b3[i];
    }
    pj[k] += s0;
    pj[k + 1] += s1;
    pj[k + 2] += s2;
    pj[k + 3] += s3;
  }
  for (; k < r; k++) {
    const double *b0 = bu + (size_t)k * m;
    double s0 = 0;
    FAC_PRAGMA(omp simd reduction(+ : s0))
    for (i = 0; i < m; i++)
      s0 += uj[i] * b0[i];
    pj[k] += s0;
  }
}

/* The block's vector sums (rows scaled by w->v, w->vw, w->sw) into acc. */
FAC_CLONES static void fac_block_sums(const fac_job *job, int m, fac_work *w,
                                      double *acc) {
  const int d = job->d, r = job->r;
  const double *v = w->v, *vw = w->vw, *sw = w->sw;
  double *p = acc + (size_t)FAC_PROJ * d;
  int i, j;
  for (j = 0; j < d; j++) {
    double *uj = w->u + (size_t)j * m, *pj = p + (size_t)j * r;
    double sx = 0, sxw = 0, dg = 0;
    FAC_PRAGMA(omp simd reduction(+ : sx, sxw, dg))
    for (i = 0; i < m; i++) {
      double a = uj[i];
      sx += v[i] * a;
      sxw += vw[i] * a;
      a *= sw[i];
      uj[i] = a;
      dg += a * a;
    }
    acc[FAC_SX * (size_t)d + j] += sx;
    acc[FAC_SXW * (size_t)d + j] += sxw;
    acc[FAC_DIAG * (size_t)d + j] += dg;
    fac_block_proj(r, m, uj, w->bu, pj);
  }
}

/* The rows [lo, lo + m) into the sums of the slot. */
static void fac_block(const fac_job *job, int slot, size_t lo, int m,
                      fac_work *w) {
  double *acc = job->slot_acc + (size_t)slot * job->nacc;
  double *terms = job->slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
  ghmix_mix_terms sum;
  int i;
  fac_block_forms(job, job->fm, lo, m, w);
  memcpy(sum.v, terms, sizeof sum.v);
  for (i = 0; i < m; i++)
    fac_block_row(job, lo, i, m, &sum, w);
  memcpy(terms, sum.v, sizeof sum.v);
  fac_block_sums(job, m, w, acc);
}

/* fac_block as a ghmix_slot_block_fn. */
static void fac_slot_block(const void *job, int slot, size_t lo, size_t hi,
                           int thread) {
  const fac_job *fj = job;
  fac_block(fj, slot, lo, (int)(hi - lo), &fj->work[thread]);
}

/* Mixtures (G >= 1 with memberships): each component's forms and row results
 * over the block, then each row's tau and terms (ghmix_mixg_row, mixture_g.h),
 * then each component's vector sums with the row weights v_k = w tau_k. */

/* Component k's forms and results of the rows [lo, lo + m): res[i G + k],
 * its beta u kept at bu_g + k m r. */
static void facg_component_rows(const fac_job *job, int k, size_t lo, int m,
                                fac_work *w) {
  const ghmix_factor_model *fm = &job->fm[k];
  const int r = job->r, G = job->G;
  fac_work wk = *w;
  ghmix_mix_terms t;
  int i, j;
  wk.bu = w->bu_g + (size_t)k * m * r;
  fac_block_forms(job, fm, lo, m, &wk);
  for (i = 0; i < m; i++) {
    for (j = 0; j < r; j++)
      w->row_bu[j] = wk.bu[(size_t)j * m + i];
    ghmix_factor_row_finish(fm, wk.u + i, (size_t)m, wk.qd[i], wk.b[i],
                            w->row_bu, &w->res[(size_t)i * G + k], &t);
    for (j = 0; j < r; j++)
      wk.bu[(size_t)j * m + i] = w->row_bu[j];
  }
}

/* Component k's vector sums over the block into acc: u = x - m_k and its
 * beta u times sqrt(v E[1/Y|x]), both 0 in rows of v = 0. */
static void facg_component_sums(const fac_job *job, int k, size_t lo, int m,
                                fac_work *w, double *acc) {
  const double *center = job->fm[k].center;
  const int d = job->d, r = job->r;
  fac_work wk = *w;
  int i, j;
  wk.bu = w->bu_g + (size_t)k * m * r;
  wk.v = w->v_g + (size_t)k * m;
  wk.vw = w->vw_g + (size_t)k * m;
  for (i = 0; i < m; i++) {
    const int in = wk.v[i] > 0;
    w->sw[i] = sqrt(wk.vw[i]);
    for (j = 0; j < r; j++)
      wk.bu[(size_t)j * m + i] = in ? wk.bu[(size_t)j * m + i] * w->sw[i] : 0;
  }
  for (j = 0; j < d; j++) {
    const double *xj = job->x + (size_t)j * job->ldx + lo, cj = center[j];
    double *uj = w->u + (size_t)j * m;
    for (i = 0; i < m; i++)
      uj[i] = wk.v[i] > 0 ? xj[i] - cj : 0.0;
  }
  fac_block_sums(job, m, &wk, acc);
}

/* The rows [lo, lo + m) of a mixture into the sums of the slot. */
static void facg_block(const fac_job *job, int slot, size_t lo, int m,
                       fac_work *w) {
  const int G = job->G;
  double *acc = job->slot_acc + (size_t)slot * G * job->nacc;
  double *terms = job->slot_terms + (size_t)slot * job->nterms;
  int k;
  for (k = 0; k < G; k++)
    facg_component_rows(job, k, lo, m, w);
  ghmix_mixg_block_terms(&job->mix, lo, m, w->res, w->tau, terms, w->v_g,
                         w->vw_g);
  for (k = 0; k < G; k++)
    facg_component_sums(job, k, lo, m, w, acc + (size_t)k * job->nacc);
}

static void facg_slot_block(const void *job, int slot, size_t lo, size_t hi,
                            int thread) {
  const fac_job *fj = job;
  facg_block(fj, slot, lo, (int)(hi - lo), &fj->work[thread]);
}

static void fac_job_free(fac_job *job, int threads) {
  int t;
  if (job->work != NULL)
    for (t = 0; t < threads; t++) {
      free(job->work[t].u);
      free(job->work[t].res);
    }
  free(job->work);
  free(job->slot_acc);
  free(job->slot_terms);
}

/* A thread's buffers (fac_work); 0 when an allocation fails. */
static int fac_work_alloc(const fac_job *job, fac_work *w) {
  const size_t d = (size_t)job->d, r = (size_t)job->r, G = (size_t)job->G;
  const size_t per = FAC_BLOCK * (d + r + 5) + r;
  const size_t per_g = job->mixture ? FAC_BLOCK * G * (r + 3) : 0;
  w->u = malloc(sizeof(double) * (per + per_g));
  if (w->u == NULL)
    return 0;
  w->bu = w->u + FAC_BLOCK * d;
  w->qd = w->bu + FAC_BLOCK * r;
  w->b = w->qd + FAC_BLOCK;
  w->v = w->b + FAC_BLOCK;
  w->vw = w->v + FAC_BLOCK;
  w->sw = w->vw + FAC_BLOCK;
  w->row_bu = w->sw + FAC_BLOCK;
  if (!job->mixture)
    return 1;
  w->bu_g = w->row_bu + r;
  w->v_g = w->bu_g + FAC_BLOCK * G * r;
  w->vw_g = w->v_g + FAC_BLOCK * G;
  w->tau = w->vw_g + FAC_BLOCK * G;
  w->res = malloc(sizeof(ghmix_mix_row_result) * FAC_BLOCK * G);
  return w->res != NULL;
}

/* Sets up the job of G components fm (a mixture's, or one component's
 * alone) and its buffers; 0 when an allocation fails (nothing left
 * allocated then). */
static int fac_job_init(fac_job *job, const double *x, size_t n, size_t ldx,
                        int G, int mixture, const ghmix_factor_model *fm,
                        int *threads) {
  int t;
  job->x = x;
  job->n = n;
  job->ldx = ldx;
  job->fm = fm;
  job->G = G;
  job->mixture = mixture;
  job->d = fm->d;
  job->r = fm->r;
  job->nacc = (size_t)fm->d * (FAC_PROJ + (size_t)fm->r);
  job->nterms = !mixture ? GHMIX_TERM_COUNT
                         : GHMIX_STAT_TAU + (size_t)G * GHMIX_TERM_COUNT;
  job->sl = ghmix_slots_make(n, FAC_BLOCK, FAC_SLOTS);
  *threads = ghmix_slots_threads(&job->sl, *threads);
  if ((double)n * fm->d * (fm->r + 1) * G < FAC_PARALLEL_MIN)
    *threads = 1;
  job->slot_acc =
      calloc((size_t)job->sl.nslots * G * job->nacc, sizeof(double));
  job->slot_terms =
      calloc((size_t)job->sl.nslots * job->nterms, sizeof(double));
  job->work = calloc((size_t)*threads, sizeof(fac_work));
  if (job->slot_acc == NULL || job->slot_terms == NULL || job->work == NULL) {
    fac_job_free(job, 0);
    return 0;
  }
  for (t = 0; t < *threads; t++)
    if (!fac_work_alloc(job, &job->work[t])) {
      fac_job_free(job, *threads);
      return 0;
    }
  return 1;
}

/* Component k's vector sums of a slot (acc) added into stats (the layout
 * of shape). */
static void fac_reduce_vectors(const fac_job *job,
                               const ghmix_estep_shape *shape, int k,
                               const double *acc, double *stats) {
  const size_t d = (size_t)job->d, r = (size_t)job->r;
  const size_t sx = ghmix_estep_stat(shape, k, GHMIX_STAT_U).offset;
  const size_t sxw = ghmix_estep_stat(shape, k, GHMIX_STAT_INV_Y_U).offset;
  const size_t dg = ghmix_estep_stat(shape, k, GHMIX_STAT_INV_Y_UU_DIAG).offset;
  const size_t pr = ghmix_estep_stat(shape, k, GHMIX_STAT_INV_Y_UU_PROJ).offset;
  size_t j, l;
  for (j = 0; j < d; j++) {
    stats[sx + j] += acc[FAC_SX * d + j];
    stats[sxw + j] += acc[FAC_SXW * d + j];
    stats[dg + j] += acc[FAC_DIAG * d + j];
    for (l = 0; l < r; l++)
      stats[pr + l * d + j] += acc[FAC_PROJ * d + j * r + l];
  }
}

/* The slots' sums added in order into stats (the layout of shape). */
static void fac_reduce(const fac_job *job, const ghmix_estep_shape *shape,
                       double *stats) {
  int slot, id;
  for (slot = 0; slot < job->sl.nslots; slot++) {
    const double *acc = job->slot_acc + (size_t)slot * job->nacc;
    const double *t = job->slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
    for (id = 0; id < GHMIX_STAT_NSCALAR; id++)
      stats[ghmix_estep_stat(shape, 0, (ghmix_stat_id)id).offset] +=
          t[job->weights != NULL ? ghmix_mix_term_of_weighted((ghmix_stat_id)id)
                                 : ghmix_mix_term_of((ghmix_stat_id)id)];
    fac_reduce_vectors(job, shape, 0, acc, stats);
  }
}

/* The same for a mixture: the model's sums, then each component's. */
static void facg_reduce(const fac_job *job, const ghmix_estep_shape *shape,
                        double *stats) {
  int slot, id, k;
  for (slot = 0; slot < job->sl.nslots; slot++) {
    const double *acc = job->slot_acc + (size_t)slot * job->G * job->nacc;
    const double *t = job->slot_terms + (size_t)slot * job->nterms;
    ghmix_mixg_global g;
    memcpy(&g, t, sizeof g);
    for (id = 0; id < GHMIX_STAT_TAU; id++)
      stats[ghmix_estep_stat(shape, 0, (ghmix_stat_id)id).offset] +=
          ghmix_mixg_global_term(&g, (ghmix_stat_id)id);
    for (k = 0; k < job->G; k++) {
      const double *tk = t + GHMIX_STAT_TAU + (size_t)k * GHMIX_TERM_COUNT;
      for (id = GHMIX_STAT_TAU; id < GHMIX_STAT_NSCALAR; id++)
        stats[ghmix_estep_stat(shape, k, (ghmix_stat_id)id).offset] +=
            tk[ghmix_mix_term_of((ghmix_stat_id)id)];
      fac_reduce_vectors(job, shape, k, acc + (size_t)k * job->nacc, stats);
    }
  }
}

/* The job's rounds (fn: a block of one component or of a mixture) and the
 * reduction into stats. */
static ghmix_status fac_run(fac_job *job, const ghmix_estep_shape *shape,
                            ghmix_slot_block_fn fn, double *stats, int threads,
                            ghmix_error *err) {
  size_t done;
  if (ghmix_slots_run(&job->sl, FAC_ROUND, fn, job, threads, &done)) {
    fac_job_free(job, threads);
    return ghmix_interrupted(err, done * (size_t)job->sl.nslots, job->n);
  }
  if (!job->mixture)
    fac_reduce(job, shape, stats);
  else
    facg_reduce(job, shape, stats);
  fac_job_free(job, threads);
  return GHMIX_OK;
}

ghmix_status ghmix_factor_estep_cpu(const double *x, size_t n, size_t ldx,
                                    const ghmix_factor_model *fm,
                                    const double *weights, double *stats,
                                    double *rows, int threads,
                                    ghmix_error *err) {
  const ghmix_estep_shape shape = ghmix_factor_shape(fm, weights != NULL);
  fac_job job = {0};
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * ghmix_estep_nstats(&shape));
  if (n == 0)
    return GHMIX_OK;
  if (!fac_job_init(&job, x, n, ldx, 1, 0, fm, &threads))
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  job.weights = weights;
  job.rows = rows;
  return fac_run(&job, &shape, fac_slot_block, stats, threads, err);
}

ghmix_status ghmix_factor_estep_mixture_cpu(
    const double *x, size_t n, size_t ldx, int G, const ghmix_factor_model *fm,
    const double *log_prop, int what, const double *weights, double *stats,
    double *rows, int threads, ghmix_error *err) {
  ghmix_estep_shape shape = ghmix_factor_shape(fm, weights != NULL);
  fac_job job = {0};
  int k;
  ghmix_error_clear(err);
  if (G < 1 || G > GHMIX_MAX_COMPONENTS)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "a factor mixture has 1 to 64 components");
  for (k = 1; k < G; k++)
    if (fm[k].d != fm->d || fm[k].r != fm->r)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, k,
                             "the components' d and r differ");
  shape.components = G;
  shape.what = what | (weights != NULL ? GHMIX_ESTEP_WEIGHTS : 0);
  memset(stats, 0, sizeof(double) * ghmix_estep_nstats(&shape));
  if (n == 0)
    return GHMIX_OK;
  if (!fac_job_init(&job, x, n, ldx, G, 1, fm, &threads))
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  job.weights = weights;
  job.rows = rows;
  job.mix = ghmix_mixg_rows_make(G, what, n, log_prop, weights, rows);
  return fac_run(&job, &shape, facg_slot_block, stats, threads, err);
}
