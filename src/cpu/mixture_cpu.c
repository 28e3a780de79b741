#include "mixture_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/batch.h"
#include "blas.h"
#include "threads.h"

/* Rows per BLAS call, and the fixed number of slots whose partial sums are
 * added in order (so that the result does not depend on the thread count). */
#define MIX_BLOCK 128
#define MIX_SLOTS 16
/* Rows of each slot per round; the interrupt is polled between rounds. */
#define MIX_ROUND 8192
/* Fewer rows than this run on the calling thread: waking a team costs more
 * than the rows (about 0.1-0.5 us each). */
#define MIX_PARALLEL_MIN 4096

typedef struct {
  double *u; /* MIX_BLOCK x d: x - m, then sqrt(w) (x - m) */
  double *z; /* MIX_BLOCK x d: L^-1 (x - m), row-wise */
  ghmix_mix_row_result res[MIX_BLOCK];
} mix_work;

/* The rows [lo, hi) (hi - lo <= MIX_BLOCK) into the slot sums s. */
static void mix_block(const double *x, size_t n, size_t ldx, size_t lo,
                      size_t hi, const ghmix_mix_params *par, double *s,
                      double *rows, mix_work *w) {
  const int d = par->d, m = (int)(hi - lo);
  const double one = 1.0;
  double *sx = s + 6, *sxw = sx + d, *sxx = sxw + d;
  int i, j;
  for (j = 0; j < d; j++) {
    const double *xj = x + (size_t)j * ldx + lo;
    double *uj = w->u + (size_t)j * m, *zj = w->z + (size_t)j * m;
    for (i = 0; i < m; i++)
      zj[i] = uj[i] = xj[i] - par->center[j];
  }
  /* Z = U L^-T: row i of Z is L^-1 (x_i - m) */
  dtrsm_("R", "L", "T", "N", &m, &d, &one, par->chol, &d, w->z, &m, 1, 1, 1,
         1);
  for (i = 0; i < m; i++) {
    double q = 0, b = 0;
    for (j = 0; j < d; j++) {
      double zij = w->z[(size_t)j * m + i];
      q += zij * zij;
      b += zij * par->g[j];
    }
    ghmix_mix_row(&par->c, q, b, &w->res[i]);
  }
  for (i = 0; i < m; i++) {
    const ghmix_mix_row_result *r = &w->res[i];
    int ok = isfinite(r->loglik) && isfinite(r->e_inv_y) &&
             isfinite(r->e_y) && r->e_inv_y > 0;
    double sw = ok ? sqrt(r->e_inv_y) : 0.0;
    if (rows) {
      size_t k = lo + (size_t)i;
      rows[k] = r->loglik;
      rows[n + k] = r->e_inv_y;
      rows[2 * n + k] = r->e_y;
      rows[3 * n + k] =
          (par->c.what & GHMIX_MIX_LOGY) ? r->e_log_y : (double)NAN;
    }
    if (!ok) {
      s[5] += 1;
      for (j = 0; j < d; j++)
        w->u[(size_t)j * m + i] = 0;
      continue;
    }
    s[0] += 1;
    s[1] += r->loglik;
    s[2] += r->e_inv_y;
    s[3] += r->e_y;
    if (par->c.what & GHMIX_MIX_LOGY)
      s[4] += r->e_log_y;
    for (j = 0; j < d; j++) {
      double *uij = &w->u[(size_t)j * m + i];
      sx[j] += *uij;
      sxw[j] += r->e_inv_y * *uij;
      *uij *= sw;
    }
  }
  /* lower triangle of sum w u u' += (sqrt(w) U)' (sqrt(w) U) */
  dsyrk_("L", "T", &d, &m, &one, w->u, &m, &one, sxx, &d, 1, 1);
}

static int mix_work_alloc(mix_work *w, int d) {
  w->u = malloc(sizeof(double) * MIX_BLOCK * (size_t)d);
  w->z = malloc(sizeof(double) * MIX_BLOCK * (size_t)d);
  return w->u != NULL && w->z != NULL;
}

static void mix_work_free(mix_work *w) {
  free(w->u);
  free(w->z);
}

/* One round: rows [slot_lo + r0, min(slot_lo + r1, slot_hi)) of every slot;
 * returns the number of threads that could not allocate their buffers. */
static int mix_round(const double *x, size_t n, size_t ldx,
                     const ghmix_mix_params *par, double *slot_stats,
                     size_t nstats, int nslots, size_t per_slot, size_t r0,
                     size_t r1, double *rows, int threads) {
  int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : failed)
#endif
  {
    mix_work w;
    int slot;
    if (!mix_work_alloc(&w, par->d)) {
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
        for (k = a; k < b; k += MIX_BLOCK)
          mix_block(x, n, ldx, k, k + MIX_BLOCK < b ? k + MIX_BLOCK : b, par,
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
  int nslots = n < (size_t)MIX_SLOTS * MIX_BLOCK
                   ? (int)((n + MIX_BLOCK - 1) / MIX_BLOCK)
                   : MIX_SLOTS;
  size_t per_slot, r0, k;
  double *slot_stats;
  int slot;
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
  if (n < MIX_PARALLEL_MIN)
    threads = 1;
  for (r0 = 0; r0 < per_slot; r0 += MIX_ROUND) {
    if (mix_round(x, n, ldx, par, slot_stats, nstats, nslots, per_slot, r0,
                  r0 + MIX_ROUND, rows, threads)) {
      free(slot_stats);
      return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                             "cannot allocate the E-step work buffers");
    }
    if (r0 + MIX_ROUND < per_slot && ghmix_check_interrupt()) {
      free(slot_stats);
      return ghmix_interrupted(err, r0 * (size_t)nslots, n);
    }
  }
  for (slot = 0; slot < nslots; slot++)
    for (k = 0; k < nstats; k++)
      stats[k] += slot_stats[(size_t)slot * nstats + k];
  free(slot_stats);
  mix_symmetrize(stats + 6 + 2 * (size_t)par->d, par->d);
  return GHMIX_OK;
}
