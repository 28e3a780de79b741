#include "mixture_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batch.h"
#include "bessel_table.h"
#include "blas.h"
#include "blas_threads.h"
#include "threads.h"

/* Rows per block (per BLAS call for large d, where short blocks would leave
 * the level-3 calls dominated by packing the d x d operands), and the
 * fixed number of slots whose partial sums are added in order (so that the
 * result does not depend on the thread count). */
#define MIX_BLOCK 128
#define MIX_BLOCK_LARGE_D 512
#define MIX_SLOTS 16
/* Rows of each slot per round; the interrupt is polled between rounds. */
#define MIX_ROUND 8192
/* Fewer rows than this run on the calling thread: waking a team costs more
 * than the rows (about 0.1-0.5 us each). */
#define MIX_PARALLEL_MIN 4096
/* Up to this d the triangular solve and the rank-k update are loops here:
 * for small d the BLAS calls cost more than the work (reference BLAS: 30%
 * of a NIG E-step at d = 10); above, R's BLAS (level 3) does them. */
#define MIX_SMALL_D 48
/* From this many rows on, an E-step whose rows need more than the
 * half-integer closed form evaluates K_q from a table built for it
 * (bessel_table.h: a few hundred exact evaluations, verified). */
#define MIX_TABLE_MIN_ROWS 4096

#ifdef _OPENMP
#define MIX_PRAGMA(x) _Pragma(#x)
#else
#define MIX_PRAGMA(x)
#endif
#define MIX_SIMD MIX_PRAGMA(omp simd)

/* A thread's buffers for one block of up to `rows` rows. */
typedef struct {
  double *u;  /* rows x d: x - m, then sqrt(w) (x - m) */
  double *z;  /* rows x d: L^-1 (x - m), column j at z + j m */
  double *q;  /* Q of each row */
  double *b;  /* B of each row */
  double *w;  /* E[1/Y | x], 0 for rows left out */
  double *sw; /* sqrt(w) */
  double *ok; /* 1 for rows in the sums, else 0 */
  ghmix_mix_row_result *res;
} mix_work;

/* Rows per block: MIX_BLOCK for small d; for large d up to
 * MIX_BLOCK_LARGE_D rows and 2^21 doubles (16 MB) per buffer, but short
 * enough that n rows fill all the slots (threads need slots to share). */
static size_t mix_block_rows(int d, size_t n) {
  size_t rows = ((size_t)1 << 21) / (size_t)d, fill = n / MIX_SLOTS;
  if (rows > MIX_BLOCK_LARGE_D)
    rows = MIX_BLOCK_LARGE_D;
  if (rows > fill)
    rows = fill;
  return d <= MIX_SMALL_D || rows < MIX_BLOCK ? MIX_BLOCK : rows;
}

/* Z = U L^-T (row i of Z is L^-1 u_i) by forward substitution, one column
 * at a time over all m rows. */
static void mix_solve_small(const double *chol, int d, int m, double *z) {
  int i, j, k;
  for (j = 0; j < d; j++) {
    double *zj = z + (size_t)j * m, inv = 1.0 / chol[(size_t)j * d + j];
    for (k = 0; k < j; k++) {
      const double *zk = z + (size_t)k * m, ljk = chol[(size_t)k * d + j];
      MIX_SIMD
      for (i = 0; i < m; i++)
        zj[i] -= ljk * zk[i];
    }
    MIX_SIMD
    for (i = 0; i < m; i++)
      zj[i] *= inv;
  }
}

/* sum_i a[i] b[i] in four interleaved partial sums (a reduction the
 * compiler keeps in registers, unlike an omp simd reduction). */
static double mix_dot(const double *a, const double *b, int m) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i;
  for (i = 0; i + 4 <= m; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < m; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/* Lower triangle of sxx += V' V, V the m x d block (column-major). */
static void mix_syrk_small(const double *v, int d, int m, double *sxx) {
  int r, c;
  for (c = 0; c < d; c++)
    for (r = c; r < d; r++)
      sxx[(size_t)c * d + r] +=
          mix_dot(v + (size_t)r * m, v + (size_t)c * m, m);
}

/* Q and B of each row from Z = U L^-T. */
static void mix_quad_forms(const double *z, const double *g, int d, int m,
                           double *q, double *b) {
  int i, j;
  for (i = 0; i < m; i++)
    q[i] = b[i] = 0;
  for (j = 0; j < d; j++) {
    const double *zj = z + (size_t)j * m, gj = g[j];
    MIX_SIMD
    for (i = 0; i < m; i++) {
      q[i] += zj[i] * zj[i];
      b[i] += gj * zj[i];
    }
  }
}

/* The row results into the scalar sums, per-row weights into w, and the
 * optional per-row output. */
static void mix_row_sums(const ghmix_mix_params *par, size_t n, size_t lo,
                         int m, double *s, double *rows, mix_work *w) {
  int i;
  for (i = 0; i < m; i++) {
    const ghmix_mix_row_result *r = &w->res[i];
    int ok = isfinite(r->loglik) && isfinite(r->e_inv_y) && isfinite(r->e_y) &&
             r->e_inv_y > 0;
    if (rows) {
      size_t k = lo + (size_t)i;
      rows[k] = r->loglik;
      rows[n + k] = r->e_inv_y;
      rows[2 * n + k] = r->e_y;
      rows[3 * n + k] =
          (par->c.what & GHMIX_ESTEP_LOGY) ? r->e_log_y : (double)NAN;
    }
    w->ok[i] = ok;
    w->w[i] = ok ? r->e_inv_y : 0.0;
    w->sw[i] = ok ? sqrt(r->e_inv_y) : 0.0;
    if (!ok) {
      s[5] += 1;
      continue;
    }
    s[0] += 1;
    s[1] += r->loglik;
    s[2] += r->e_inv_y;
    s[3] += r->e_y;
    if (par->c.what & GHMIX_ESTEP_LOGY)
      s[4] += r->e_log_y;
  }
}

/* One E-step's shared inputs.  slot_stats: nslots x nstats partial sums;
 * qmin / qmax: per-slot range of Q (the range pass); tab: K_q tabulated
 * for this E-step, or NULL. */
typedef struct {
  const double *x;
  size_t n, ldx, nstats, per_slot, block;
  int nslots;
  const ghmix_mix_params *par;
  const ghmix_bessel_table *tab;
  double *slot_stats, *rows, *qmin, *qmax;
} mix_job;

/* Z = L^-1 (x - m) and Q, B for the rows [lo, lo + m). */
static void mix_block_forms(const mix_job *job, size_t lo, int m, mix_work *w) {
  const ghmix_mix_params *par = job->par;
  const int d = par->d;
  const double one = 1.0;
  int i, j;
  for (j = 0; j < d; j++) {
    const double *xj = job->x + (size_t)j * job->ldx + lo;
    const double cj = par->center[j];
    double *uj = w->u + (size_t)j * m, *zj = w->z + (size_t)j * m;
    MIX_SIMD
    for (i = 0; i < m; i++)
      zj[i] = uj[i] = xj[i] - cj;
  }
  if (d <= MIX_SMALL_D)
    mix_solve_small(par->chol, d, m, w->z);
  else
    dtrsm_("R", "L", "T", "N", &m, &d, &one, par->chol, &d, w->z, &m, 1, 1, 1,
           1);
  mix_quad_forms(w->z, par->g, d, m, w->q, w->b);
}

/* One row, from the table where it applies. */
static void mix_block_row(const mix_job *job, double q, double b,
                          ghmix_mix_row_result *res) {
  const ghmix_mix_const *c = &job->par->c;
  ghmix_mix_row_arg_t arg;
  if (job->tab != NULL && !isnan(b) && ghmix_mix_row_arg(c, q, &arg)) {
    ghmix_bessel_result r;
    ghmix_bessel_table_eval(job->tab, arg.x, arg.ls + 2 * c->log_sqrt_a, &r);
    ghmix_mix_row_finish(c, b, &arg, &r, res);
  } else {
    ghmix_mix_row(c, q, b, res);
  }
}

/* The rows [lo, hi) (hi - lo <= the block length) into the slot sums s. */
static void mix_block(const mix_job *job, size_t lo, size_t hi, double *s,
                      mix_work *w) {
  const ghmix_mix_params *par = job->par;
  const int d = par->d, m = (int)(hi - lo);
  const double one = 1.0;
  double *sx = s + 6, *sxw = sx + d, *sxx = sxw + d;
  int i, j;
  mix_block_forms(job, lo, m, w);
  for (i = 0; i < m; i++)
    mix_block_row(job, w->q[i], w->b[i], &w->res[i]);
  mix_row_sums(par, job->n, lo, m, s, job->rows, w);
  for (j = 0; j < d; j++) {
    double *uj = w->u + (size_t)j * m;
    sx[j] += mix_dot(w->ok, uj, m);
    sxw[j] += mix_dot(w->w, uj, m);
    MIX_SIMD
    for (i = 0; i < m; i++)
      uj[i] *= w->sw[i];
  }
  /* lower triangle of sum w u u' += (sqrt(w) U)' (sqrt(w) U) */
  if (d <= MIX_SMALL_D)
    mix_syrk_small(w->u, d, m, sxx);
  else
    dsyrk_("L", "T", &d, &m, &one, w->u, &m, &one, sxx, &d, 1, 1);
}

/* The range of Q over the rows [lo, hi) into the slot's qmin, qmax. */
static void mix_block_range(const mix_job *job, size_t lo, size_t hi, int slot,
                            mix_work *w) {
  int i, m = (int)(hi - lo);
  mix_block_forms(job, lo, m, w);
  for (i = 0; i < m; i++) {
    double q = w->q[i];
    if (q < job->qmin[slot])
      job->qmin[slot] = q;
    if (q > job->qmax[slot])
      job->qmax[slot] = q;
  }
}

static int mix_work_alloc(mix_work *w, int d, size_t rows) {
  w->u = malloc(sizeof(double) * rows * (2 * (size_t)d + 5));
  w->res = malloc(sizeof(ghmix_mix_row_result) * rows);
  if (w->u == NULL || w->res == NULL)
    return 0;
  w->z = w->u + rows * (size_t)d;
  w->q = w->z + rows * (size_t)d;
  w->b = w->q + rows;
  w->w = w->b + rows;
  w->sw = w->w + rows;
  w->ok = w->sw + rows;
  return 1;
}

static void mix_work_free(mix_work *w) {
  free(w->u);
  free(w->res);
}

/* One round: rows [slot_lo + r0, min(slot_lo + r1, slot_hi)) of every slot,
 * into the sums or (range) into the Q ranges; returns the number of
 * threads that could not allocate their buffers. */
static int mix_round(const mix_job *job, size_t r0, size_t r1, int range,
                     int threads) {
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : failed)
#endif
  {
    mix_work w;
    int slot;
    if (!mix_work_alloc(&w, job->par->d, job->block)) {
      failed = 1;
    } else {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
      for (slot = 0; slot < job->nslots; slot++) {
        size_t lo = (size_t)slot * job->per_slot, hi = lo + job->per_slot;
        size_t a, b, k, block = job->block;
        if (hi > job->n)
          hi = job->n;
        a = lo + r0;
        b = lo + r1 < hi ? lo + r1 : hi;
        for (k = a; k < b; k += block) {
          size_t e = k + block < b ? k + block : b;
          if (range)
            mix_block_range(job, k, e, slot, &w);
          else
            mix_block(job, k, e, job->slot_stats + (size_t)slot * job->nstats,
                      &w);
        }
      }
    }
    mix_work_free(&w);
  }
  (void)threads;
  return failed;
}

/* All rounds; 0, or 1 when buffers could not be allocated, 2 when the user
 * interrupted (*done: rows per slot completed). */
static int mix_rounds(const mix_job *job, int range, int threads,
                      size_t *done) {
  size_t r0;
  *done = 0;
  for (r0 = 0; r0 < job->per_slot; r0 += MIX_ROUND) {
    if (mix_round(job, r0, r0 + MIX_ROUND, range, threads))
      return 1;
    *done = r0 + MIX_ROUND;
    if (r0 + MIX_ROUND < job->per_slot && ghmix_check_interrupt())
      return 2;
  }
  return 0;
}

/* Copies the lower triangle of the d x d block to the upper one. */
static void mix_symmetrize(double *sxx, int d) {
  int i, j;
  for (j = 0; j < d; j++)
    for (i = j + 1; i < d; i++)
      sxx[(size_t)i * d + j] = sxx[(size_t)j * d + i];
}

/* Whether tabulating K_q pays for this E-step: enough rows, and rows that
 * would not take the half-integer closed form (cheaper than the table). */
static int mix_table_pays(const ghmix_mix_params *par, size_t n) {
  double k = fabs(par->c.q) - 0.5;
  int halfint = k >= 0 && k <= 40 && k == floor(k);
  if (n < MIX_TABLE_MIN_ROWS || par->c.a_post <= 0)
    return 0;
  return (ghmix_mix_row_bessel_what(&par->c) & GHMIX_BESSEL_GRAD) || !halfint;
}

/* The Q range pass and the table over the x it implies; 1 if built, 0 if
 * not (rows are then evaluated exactly), -1 or -2 as mix_rounds. */
static int mix_table_prepare(mix_job *job, int threads, size_t *done,
                             ghmix_bessel_table *tab) {
  const ghmix_mix_const *c = &job->par->c;
  double qmin = INFINITY, qmax = -INFINITY;
  int slot, status;
  job->qmin = malloc(sizeof(double) * 2 * (size_t)job->nslots);
  if (job->qmin == NULL)
    return 0;
  job->qmax = job->qmin + job->nslots;
  for (slot = 0; slot < job->nslots; slot++) {
    job->qmin[slot] = INFINITY;
    job->qmax[slot] = -INFINITY;
  }
  status = mix_rounds(job, 1, threads, done);
  for (slot = 0; slot < job->nslots; slot++) {
    qmin = job->qmin[slot] < qmin ? job->qmin[slot] : qmin;
    qmax = job->qmax[slot] > qmax ? job->qmax[slot] : qmax;
  }
  free(job->qmin);
  job->qmin = job->qmax = NULL;
  if (status)
    return -status;
  if (!(c->b + qmin > 0) || !isfinite(qmax))
    return 0;
  return ghmix_bessel_table_build(c->q, ghmix_mix_row_bessel_what(c),
                                  c->sqrt_a * sqrt(c->b + qmin),
                                  c->sqrt_a * sqrt(c->b + qmax), tab);
}

ghmix_status ghmix_mix_estep_cpu(const double *x, size_t n, size_t ldx,
                                 const ghmix_mix_params *par, double *stats,
                                 double *rows, int threads, ghmix_error *err) {
  mix_job job = {0};
  ghmix_bessel_table tab;
  size_t k, done = 0;
  int slot, failed = 0, blas_threads, tabled = 0;
  job.x = x;
  job.n = n;
  job.ldx = ldx;
  job.par = par;
  job.rows = rows;
  job.nstats = GHMIX_MIX_NSTATS(par->d);
  job.block = mix_block_rows(par->d, n);
  job.nslots = n < (size_t)MIX_SLOTS * job.block
                   ? (int)((n + job.block - 1) / job.block)
                   : MIX_SLOTS;
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * job.nstats);
  if (n == 0)
    return GHMIX_OK;
  job.per_slot = (n + (size_t)job.nslots - 1) / (size_t)job.nslots;
  job.slot_stats = calloc((size_t)job.nslots * job.nstats, sizeof(double));
  if (job.slot_stats == NULL)
    return ghmix_error_set(
        err, GHMIX_ERR_NOMEM, -1, "cannot allocate %lu bytes for the E-step",
        (unsigned long)(sizeof(double) * job.nslots * job.nstats));
  threads = ghmix_clamp_threads(threads);
  if (threads > job.nslots)
    threads = job.nslots;
  /* a row costs O(d^2) flops once the BLAS path is taken */
  if (n * (size_t)(par->d > MIX_SMALL_D ? par->d : 1) < MIX_PARALLEL_MIN)
    threads = 1;
  /* several threads calling BLAS (large d) must not each start a pool */
  blas_threads =
      threads > 1 && par->d > MIX_SMALL_D ? ghmix_blas_threads_single() : 0;
  if (mix_table_pays(par, n)) {
    tabled = mix_table_prepare(&job, threads, &done, &tab);
    if (tabled < 0)
      failed = -tabled;
    else if (tabled)
      job.tab = &tab;
  }
  if (!failed)
    failed = mix_rounds(&job, 0, threads, &done);
  ghmix_blas_threads_restore(blas_threads);
  if (tabled > 0)
    ghmix_bessel_table_free(&tab);
  if (failed) {
    free(job.slot_stats);
    if (failed == 2)
      return ghmix_interrupted(err, done * (size_t)job.nslots, n);
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  }
  for (slot = 0; slot < job.nslots; slot++)
    for (k = 0; k < job.nstats; k++)
      stats[k] += job.slot_stats[(size_t)slot * job.nstats + k];
  free(job.slot_stats);
  mix_symmetrize(stats + 6 + 2 * (size_t)par->d, par->d);
  return GHMIX_OK;
}
