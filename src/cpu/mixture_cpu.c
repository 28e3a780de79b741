#include "mixture_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batch.h"
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
          (par->c.what & GHMIX_MIX_LOGY) ? r->e_log_y : (double)NAN;
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
    if (par->c.what & GHMIX_MIX_LOGY)
      s[4] += r->e_log_y;
  }
}

/* The rows [lo, hi) (hi - lo <= the block length) into the slot sums s. */
static void mix_block(const double *x, size_t n, size_t ldx, size_t lo,
                      size_t hi, const ghmix_mix_params *par, double *s,
                      double *rows, mix_work *w) {
  const int d = par->d, m = (int)(hi - lo);
  const double one = 1.0;
  double *sx = s + 6, *sxw = sx + d, *sxx = sxw + d;
  int i, j;
  for (j = 0; j < d; j++) {
    const double *xj = x + (size_t)j * ldx + lo;
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
  for (i = 0; i < m; i++)
    ghmix_mix_row(&par->c, w->q[i], w->b[i], &w->res[i]);
  mix_row_sums(par, n, lo, m, s, rows, w);
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

/* One round: rows [slot_lo + r0, min(slot_lo + r1, slot_hi)) of every slot;
 * returns the number of threads that could not allocate their buffers. */
static int mix_round(const double *x, size_t n, size_t ldx,
                     const ghmix_mix_params *par, double *slot_stats,
                     size_t nstats, int nslots, size_t per_slot, size_t block,
                     size_t r0, size_t r1, double *rows, int threads) {
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : failed)
#endif
  {
    mix_work w;
    int slot;
    if (!mix_work_alloc(&w, par->d, block)) {
      failed = 1;
    } else {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
      for (slot = 0; slot < nslots; slot++) {
        size_t lo = (size_t)slot * per_slot, hi = lo + per_slot, a, b, k;
        if (hi > n)
          hi = n;
        a = lo + r0;
        b = lo + r1 < hi ? lo + r1 : hi;
        for (k = a; k < b; k += block)
          mix_block(x, n, ldx, k, k + block < b ? k + block : b, par,
                    slot_stats + (size_t)slot * nstats, rows, &w);
      }
    }
    mix_work_free(&w);
  }
  (void)threads;
  return failed;
}

/* Copies the lower triangle of the d x d block to the upper one. */
static void mix_symmetrize(double *sxx, int d) {
  int i, j;
  for (j = 0; j < d; j++)
    for (i = j + 1; i < d; i++)
      sxx[(size_t)i * d + j] = sxx[(size_t)j * d + i];
}

ghmix_status ghmix_mix_estep_cpu(const double *x, size_t n, size_t ldx,
                                 const ghmix_mix_params *par, double *stats,
                                 double *rows, int threads, ghmix_error *err) {
  const size_t nstats = GHMIX_MIX_NSTATS(par->d);
  const size_t block = mix_block_rows(par->d, n);
  int nslots = n < (size_t)MIX_SLOTS * block ? (int)((n + block - 1) / block)
                                             : MIX_SLOTS;
  size_t per_slot, r0, k;
  double *slot_stats;
  int slot, failed = 0, blas_threads;
  ghmix_error_clear(err);
  memset(stats, 0, sizeof(double) * nstats);
  if (n == 0)
    return GHMIX_OK;
  per_slot = (n + (size_t)nslots - 1) / (size_t)nslots;
  slot_stats = calloc((size_t)nslots * nstats, sizeof(double));
  if (slot_stats == NULL)
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate %lu bytes for the E-step",
                           (unsigned long)(sizeof(double) * nslots * nstats));
  threads = ghmix_clamp_threads(threads);
  if (threads > nslots)
    threads = nslots;
  /* a row costs O(d^2) flops once the BLAS path is taken */
  if (n * (size_t)(par->d > MIX_SMALL_D ? par->d : 1) < MIX_PARALLEL_MIN)
    threads = 1;
  /* several threads calling BLAS (large d) must not each start a pool */
  blas_threads =
      threads > 1 && par->d > MIX_SMALL_D ? ghmix_blas_threads_single() : 0;
  for (r0 = 0; r0 < per_slot && !failed; r0 += MIX_ROUND) {
    if (mix_round(x, n, ldx, par, slot_stats, nstats, nslots, per_slot, block,
                  r0, r0 + MIX_ROUND, rows, threads))
      failed = 1;
    else if (r0 + MIX_ROUND < per_slot && ghmix_check_interrupt())
      failed = 2;
  }
  ghmix_blas_threads_restore(blas_threads);
  if (failed) {
    free(slot_stats);
    if (failed == 2)
      return ghmix_interrupted(err, r0 * (size_t)nslots, n);
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step work buffers");
  }
  for (slot = 0; slot < nslots; slot++)
    for (k = 0; k < nstats; k++)
      stats[k] += slot_stats[(size_t)slot * nstats + k];
  free(slot_stats);
  mix_symmetrize(stats + 6 + 2 * (size_t)par->d, par->d);
  return GHMIX_OK;
}
