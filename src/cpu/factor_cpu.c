#include "factor_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/batch.h"
#include "threads.h"

/* Rows per block, the fixed number of slots (as in mixture_cpu.c), rows of
 * each slot per round (the interrupt is polled between rounds), and the
 * work (n d (r + 1)) below which the calling thread does it all. */
#define FAC_BLOCK 64
#define FAC_SLOTS 16
#define FAC_ROUND 8192
#define FAC_PARALLEL_MIN 65536.0
/* Rows whose sum u (beta u)' is taken together. */
#define FAC_GROUP 4

/* A thread's buffers for one block: the rows u = x - m (row-major, d
 * each, then times sqrt(v E[1/Y|x])) and their beta u (r each, likewise). */
typedef struct {
  double *u, *bu;
} fac_work;

/* A slot's vector sums (fac_job.nacc doubles): sum v u, sum v E[1/Y|x] u,
 * the diagonal of S and S beta' (d x r, row-major). */
enum { FAC_SX = 0, FAC_SXW, FAC_DIAG, FAC_PROJ };

typedef struct {
  const double *x, *weights;
  size_t n, ldx, per_slot, nacc;
  int d, r, nslots;
  const ghmix_factor_model *fm;
  double *slot_acc, *slot_terms, *rows;
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

/* Rows [lo, lo + m) minus the centre, row-major. */
static void fac_block_load(const fac_job *job, size_t lo, int m, double *u) {
  const int d = job->d;
  const double *c = job->fm->center;
  int i, j;
  for (i = 0; i < m; i++) {
    const double *xi = job->x + lo + (size_t)i;
    double *ui = u + (size_t)i * d;
    for (j = 0; j < d; j++)
      ui[j] = xi[(size_t)j * job->ldx] - c[j];
  }
}

/* An accepted row's sums (v its weight, vw = v E[1/Y|x]); u and bu are
 * then scaled by sqrt(vw).  A row not accepted gets u = bu = 0. */
static void fac_row_sums(const fac_job *job, double *acc, double *u, double *bu,
                         int ok, double v, double vw) {
  const int d = job->d, r = job->r;
  double *sx = acc, *sxw = acc + d, *diag = acc + 2 * (size_t)d, sw;
  int j, k;
  if (!ok) {
    memset(u, 0, sizeof(double) * (size_t)d);
    memset(bu, 0, sizeof(double) * (size_t)r);
    return;
  }
  sw = sqrt(vw);
  for (j = 0; j < d; j++) {
    sx[j] += v * u[j];
    sxw[j] += vw * u[j];
    u[j] *= sw;
    diag[j] += u[j] * u[j];
  }
  for (k = 0; k < r; k++)
    bu[k] *= sw;
}

/* p += sum_i u_i bu_i' over the m rows of the block (p d x r, row-major),
 * FAC_GROUP rows at a time. */
static void fac_proj_sums(int d, int r, int m, const double *u,
                          const double *bu, double *p) {
  int i = 0, j, k;
  for (; i + FAC_GROUP <= m; i += FAC_GROUP) {
    const double *u0 = u + (size_t)i * d, *u1 = u0 + d, *u2 = u1 + d,
                 *u3 = u2 + d;
    const double *b0 = bu + (size_t)i * r, *b1 = b0 + r, *b2 = b1 + r,
                 *b3 = b2 + r;
    for (j = 0; j < d; j++) {
      const double a0 = u0[j], a1 = u1[j], a2 = u2[j], a3 = u3[j];
      double *pj = p + (size_t)j * r;
      for (k = 0; k < r; k++)
        pj[k] += (a0 * b0[k] + a1 * b1[k]) + (a2 * b2[k] + a3 * b3[k]);
    }
  }
  for (; i < m; i++) {
    const double *ui = u + (size_t)i * d, *bi = bu + (size_t)i * r;
    for (j = 0; j < d; j++)
      for (k = 0; k < r; k++)
        p[(size_t)j * r + k] += ui[j] * bi[k];
  }
}

/* The rows [lo, lo + m) into the sums of the slot. */
static void fac_block(const fac_job *job, int slot, size_t lo, int m,
                      fac_work *w) {
  const ghmix_factor_model *fm = job->fm;
  const int d = job->d, r = job->r;
  double *acc = job->slot_acc + (size_t)slot * job->nacc;
  double *terms = job->slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
  ghmix_mix_terms sum, t;
  ghmix_mix_row_result res;
  int i, ok;
  fac_block_load(job, lo, m, w->u);
  memcpy(sum.v, terms, sizeof sum.v);
  for (i = 0; i < m; i++) {
    double *ui = w->u + (size_t)i * d, *bi = w->bu + (size_t)i * r;
    ok = ghmix_factor_row_step(fm, ui, bi, &res, &t);
    if (job->weights != NULL)
      ok = ghmix_mix_terms_weight(&t, job->weights[lo + (size_t)i]);
    if (job->rows != NULL)
      ghmix_mix_row_store(&fm->c, &res, lo + (size_t)i, job->n, job->rows);
    ghmix_mix_terms_add(&sum, &t);
    fac_row_sums(job, acc, ui, bi, ok, t.v[GHMIX_TERM_WEIGHT],
                 t.v[GHMIX_TERM_INV_Y]);
  }
  memcpy(terms, sum.v, sizeof sum.v);
  fac_proj_sums(d, r, m, w->u, w->bu, acc + (size_t)FAC_PROJ * d);
}

/* One round: rows [r0, r1) of every slot, each thread with its own
 * buffers. */
static void fac_round(const fac_job *job, size_t r0, size_t r1, int threads) {
  int slot;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
  for (slot = 0; slot < job->nslots; slot++) {
#ifdef _OPENMP
    fac_work *w = &job->work[omp_get_thread_num()];
#else
    fac_work *w = &job->work[0];
#endif
    size_t lo = (size_t)slot * job->per_slot, hi = lo + job->per_slot, k, b;
    if (hi > job->n)
      hi = job->n;
    b = lo + r1 < hi ? lo + r1 : hi;
    for (k = lo + r0; k < b; k += FAC_BLOCK)
      fac_block(job, slot, k, (int)(k + FAC_BLOCK < b ? FAC_BLOCK : b - k), w);
  }
  (void)threads;
}

static void fac_job_free(fac_job *job, int threads) {
  int t;
  if (job->work != NULL)
    for (t = 0; t < threads; t++)
      free(job->work[t].u);
  free(job->work);
  free(job->slot_acc);
  free(job->slot_terms);
}

/* Sets up the job and its buffers; 0 when an allocation fails (nothing
 * left allocated then). */
static int fac_job_init(fac_job *job, const double *x, size_t n, size_t ldx,
                        const ghmix_factor_model *fm, int *threads) {
  const size_t per = FAC_BLOCK * ((size_t)fm->d + (size_t)fm->r);
  int t;
  job->x = x;
  job->n = n;
  job->ldx = ldx;
  job->fm = fm;
  job->d = fm->d;
  job->r = fm->r;
  job->nacc = (size_t)fm->d * (FAC_PROJ + (size_t)fm->r);
  job->nslots = n < (size_t)FAC_SLOTS * FAC_BLOCK
                    ? (int)((n + FAC_BLOCK - 1) / FAC_BLOCK)
                    : FAC_SLOTS;
  job->per_slot = (n + (size_t)job->nslots - 1) / (size_t)job->nslots;
  *threads = ghmix_clamp_threads(*threads);
  if (*threads > job->nslots)
    *threads = job->nslots;
  if ((double)n * fm->d * (fm->r + 1) < FAC_PARALLEL_MIN)
    *threads = 1;
  job->slot_acc = calloc((size_t)job->nslots * job->nacc, sizeof(double));
  job->slot_terms =
      calloc((size_t)job->nslots * GHMIX_TERM_COUNT, sizeof(double));
  job->work = calloc((size_t)*threads, sizeof(fac_work));
  if (job->slot_acc == NULL || job->slot_terms == NULL || job->work == NULL) {
    fac_job_free(job, 0);
    return 0;
  }
  for (t = 0; t < *threads; t++) {
    fac_work *w = &job->work[t];
    w->u = malloc(sizeof(double) * per);
    if (w->u == NULL) {
      fac_job_free(job, *threads);
      return 0;
    }
    w->bu = w->u + FAC_BLOCK * (size_t)fm->d;
  }
  return 1;
}

/* The slots' sums added in order into stats (the layout of shape). */
static void fac_reduce(const fac_job *job, const ghmix_estep_shape *shape,
                       double *stats) {
  const size_t d = (size_t)job->d, r = (size_t)job->r;
  const size_t sx = ghmix_estep_stat(shape, 0, GHMIX_STAT_U).offset;
  const size_t sxw = ghmix_estep_stat(shape, 0, GHMIX_STAT_INV_Y_U).offset;
  const size_t dg = ghmix_estep_stat(shape, 0, GHMIX_STAT_INV_Y_UU_DIAG).offset;
  const size_t pr = ghmix_estep_stat(shape, 0, GHMIX_STAT_INV_Y_UU_PROJ).offset;
  size_t j, k;
  int slot, id;
  for (slot = 0; slot < job->nslots; slot++) {
    const double *acc = job->slot_acc + (size_t)slot * job->nacc;
    const double *t = job->slot_terms + (size_t)slot * GHMIX_TERM_COUNT;
    for (id = 0; id < GHMIX_STAT_NSCALAR; id++)
      stats[ghmix_estep_stat(shape, 0, (ghmix_stat_id)id).offset] +=
          t[job->weights != NULL ? ghmix_mix_term_of_weighted((ghmix_stat_id)id)
                                 : ghmix_mix_term_of((ghmix_stat_id)id)];
    for (j = 0; j < d; j++) {
      stats[sx + j] += acc[FAC_SX * d + j];
      stats[sxw + j] += acc[FAC_SXW * d + j];
      stats[dg + j] += acc[FAC_DIAG * d + j];
      for (k = 0; k < r; k++)
        stats[pr + k * d + j] += acc[FAC_PROJ * d + j * r + k];
    }
  }
}

ghmix_status ghmix_factor_estep_cpu(const double *x, size_t n, size_t ldx,
                                    const ghmix_factor_model *fm,
                                    const double *weights, double *stats,
                                    double *rows, int threads,
                                    ghmix_error *err) {
  const ghmix_estep_shape shape = ghmix_factor_shape(fm, weights != NULL);
  fac_job job = {0};
  size_t r0;
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * ghmix_estep_nstats(&shape));
  if (n == 0)
    return GHMIX_OK;
  if (!fac_job_init(&job, x, n, ldx, fm, &threads))
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  job.weights = weights;
  job.rows = rows;
  for (r0 = 0; r0 < job.per_slot; r0 += FAC_ROUND) {
    fac_round(&job, r0, r0 + FAC_ROUND, threads);
    if (r0 + FAC_ROUND < job.per_slot && ghmix_check_interrupt()) {
      fac_job_free(&job, threads);
      return ghmix_interrupted(err, (r0 + FAC_ROUND) * (size_t)job.nslots, n);
    }
  }
  fac_reduce(&job, &shape, stats);
  fac_job_free(&job, threads);
  return GHMIX_OK;
}
