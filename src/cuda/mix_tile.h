/* The per-thread steps of the CUDA E-step (src/cuda/kernels.cu), written
 * as host-and-device functions so that tests/c can run the same code on the
 * CPU (tests/c/mock_cuda.cc) and check its indexing without a GPU.
 *
 * A block of T threads takes a tile of T consecutive rows.  The tile lives
 * in shared memory as (d + 7) columns of T + 1 doubles (the + 1 keeps the
 * reads of step 2 free of bank conflicts): d columns for z, then u, of each
 * row; one for w = E[1/Y|x]; six for the scalar terms.
 *
 * Step 1 (ghmix_mix_tile_row, thread t, row i = tile * T + t): u = x_i - m,
 * z = L^-1 u by forward substitution into column t, Q = |z|^2, B = z.g,
 * ghmix_mix_row; the row's results into rows (if not NULL); then u (zeros
 * for a row whose density is not finite and positive, or i >= n), w and the
 * scalar terms into column t.
 *
 * Step 2 (ghmix_mix_tile_sums, after a barrier): the NLOC = 6 + 2d +
 * d(d+1)/2 statistics (the six scalars, sum u, sum w u, and the lower
 * triangle of sum w u u' packed by columns) are shared out, statistic s to
 * thread s mod T, which adds the T rows of the tile in row order and adds
 * that to the block's partial sum, partial[s * G + block] (set, not added
 * to, by the block's first tile).
 *
 * The layout of the statistics is that of src/cpu/mixture_cpu.h. */
#ifndef GHMIX_MIX_TILE_H
#define GHMIX_MIX_TILE_H

#include <math.h>
#include <stddef.h>

#include "../core/ghmix_hd.h"
#include "../core/mixture.h"

/* Statistics summed per block: GHMIX_MIX_NSTATS(d) less the upper
 * triangle. */
GHMIX_INLINE size_t ghmix_mix_nloc(int d) {
  return 6 + 2 * (size_t)d + (size_t)d * ((size_t)d + 1) / 2;
}

/* (j, k), j >= k, of entry q of the lower triangle packed by columns. */
GHMIX_INLINE void ghmix_mix_pair(size_t q, int d, int *j, int *k) {
  int c = 0;
  while (c < d && q >= (size_t)(d - c)) {
    q -= (size_t)(d - c);
    c++;
  }
  *k = c;
  *j = c + (int)q;
}

/* The launch of the E-step for n rows of d: T = tile rows (threads per
 * block), G = blocks, depending on n and d only (so that results do not
 * depend on the device); at most 1024 blocks and 128 MiB of partial sums;
 * smem = bytes of shared memory per block. */
#define GHMIX_MIX_MAX_BLOCKS 1024
#define GHMIX_MIX_PARTIAL_BUDGET ((size_t)128 << 20)

typedef struct {
  int d, tile, blocks;
  size_t nloc, nstats, smem;
} ghmix_mix_layout;

GHMIX_INLINE ghmix_mix_layout ghmix_mix_plan(size_t n, int d) {
  ghmix_mix_layout l;
  size_t tiles, by_budget;
  l.d = d;
  l.tile = d <= 16 ? 128 : (d <= 64 ? 64 : 32);
  l.nloc = ghmix_mix_nloc(d);
  l.nstats = 6 + 2 * (size_t)d + (size_t)d * (size_t)d;
  l.smem = ((size_t)d + 7) * ((size_t)l.tile + 1) * sizeof(double);
  tiles = (n + (size_t)l.tile - 1) / (size_t)l.tile;
  by_budget = GHMIX_MIX_PARTIAL_BUDGET / (l.nloc * sizeof(double));
  if (by_budget < 1)
    by_budget = 1;
  l.blocks = (int)(tiles < GHMIX_MIX_MAX_BLOCKS ? tiles : GHMIX_MIX_MAX_BLOCKS);
  if ((size_t)l.blocks > by_budget)
    l.blocks = (int)by_budget;
  if (l.blocks < 1)
    l.blocks = 1;
  return l;
}

/* Step 1 for thread t of T; par = center (d), chol (d x d), g (d); x is
 * n x d with leading dimension n. */
GHMIX_INLINE void ghmix_mix_tile_row(int t, int T, size_t i, size_t n, int d,
                                     const double *x, const double *par,
                                     const ghmix_mix_const *c, double *rows,
                                     double *tile) {
  const int S = T + 1;
  const double *center = par, *chol = par + d, *g = par + d + (size_t)d * d;
  double *ucol = tile, *wcol = tile + (size_t)d * S, *scol = wcol + S;
  const int logy = (c->what & GHMIX_ESTEP_LOGY) != 0;
  ghmix_mix_row_result r;
  int ok = 0, j, k;
  r.loglik = r.e_inv_y = r.e_y = r.e_log_y = NAN;
  if (i < n) {
    double q = 0, bz = 0;
    for (j = 0; j < d; j++) {
      double s = x[(size_t)j * n + i] - center[j];
      for (k = 0; k < j; k++)
        s -= chol[j + (size_t)k * d] * ucol[(size_t)k * S + t];
      s /= chol[j + (size_t)j * d];
      ucol[(size_t)j * S + t] = s;
      q += s * s;
      bz += s * g[j];
    }
    ghmix_mix_row(c, q, bz, &r);
    ok = isfinite(r.loglik) && isfinite(r.e_inv_y) && isfinite(r.e_y) &&
         r.e_inv_y > 0;
    if (rows != NULL) {
      rows[i] = r.loglik;
      rows[n + i] = r.e_inv_y;
      rows[2 * n + i] = r.e_y;
      rows[3 * n + i] = logy ? r.e_log_y : (double)NAN;
    }
  }
  for (j = 0; j < d; j++)
    ucol[(size_t)j * S + t] = ok ? x[(size_t)j * n + i] - center[j] : 0.0;
  wcol[t] = ok ? r.e_inv_y : 0.0;
  scol[0 * S + t] = ok ? 1.0 : 0.0;
  scol[1 * S + t] = ok ? r.loglik : 0.0;
  scol[2 * S + t] = ok ? r.e_inv_y : 0.0;
  scol[3 * S + t] = ok ? r.e_y : 0.0;
  scol[4 * S + t] = ok && logy ? r.e_log_y : 0.0;
  scol[5 * S + t] = (i < n && !ok) ? 1.0 : 0.0;
}

/* Step 2 for thread t of T, in block b of G. */
GHMIX_INLINE void ghmix_mix_tile_sums(int t, int T, int d, int G, int b,
                                      int first_tile, const double *tile,
                                      double *partial) {
  const int S = T + 1;
  const size_t nloc = ghmix_mix_nloc(d), nvec = 6 + 2 * (size_t)d;
  const double *ucol = tile, *wcol = tile + (size_t)d * S, *scol = wcol + S;
  size_t s = (size_t)t;
  int pj = 0, pk = 0, r;
  for (; s < nvec; s += (size_t)T) {
    double sum = 0;
    if (s < 6) {
      const double *col = scol + s * S;
      for (r = 0; r < T; r++)
        sum += col[r];
    } else if (s < 6 + (size_t)d) {
      const double *col = ucol + (s - 6) * S;
      for (r = 0; r < T; r++)
        sum += col[r];
    } else {
      const double *col = ucol + (s - 6 - (size_t)d) * S;
      for (r = 0; r < T; r++)
        sum += wcol[r] * col[r];
    }
    if (first_tile)
      partial[s * (size_t)G + (size_t)b] = sum;
    else
      partial[s * (size_t)G + (size_t)b] += sum;
  }
  if (s < nloc)
    ghmix_mix_pair(s - nvec, d, &pj, &pk);
  for (; s < nloc; s += (size_t)T) {
    const double *cj = ucol + (size_t)pj * S, *ck = ucol + (size_t)pk * S;
    double sum = 0;
    for (r = 0; r < T; r++)
      sum += wcol[r] * cj[r] * ck[r];
    if (first_tile)
      partial[s * (size_t)G + (size_t)b] = sum;
    else
      partial[s * (size_t)G + (size_t)b] += sum;
    /* the entry T further on in the packed lower triangle */
    pj += T;
    while (pk < d && pj >= d) {
      pj = pj - d + pk + 1;
      pk++;
    }
  }
}

/* Where the reduced statistic s goes in the layout of mixture_cpu.h: one
 * index, or two (both triangles) for an off-diagonal entry. */
GHMIX_INLINE int ghmix_mix_stat_slots(size_t s, int d, size_t slot[2]) {
  const size_t nvec = 6 + 2 * (size_t)d;
  int j, k;
  if (s < nvec) {
    slot[0] = s;
    return 1;
  }
  ghmix_mix_pair(s - nvec, d, &j, &k);
  slot[0] = nvec + (size_t)j + (size_t)k * d;
  slot[1] = nvec + (size_t)k + (size_t)j * d;
  return j == k ? 1 : 2;
}

/* One row of the row kernel (ghmix_cuda_mix_rows: one thread per row, no
 * shared memory, so any d): u = x_i - m and z = L^-1 u by forward
 * substitution, written over row i of x (the device's own copy, n x d with
 * leading dimension n: entry j of the row is read before z_j is written
 * there, and the later steps need only z_k, k < j), Q = |z|^2, B = z.g in
 * the order of ghmix_mix_tile_row, then ghmix_mix_row.  out is n x ncol,
 * column-major: log f (give_log) or f; with ncol = 4 also E[1/Y|x], E[Y|x]
 * and E[log Y|x] (NaN without GHMIX_ESTEP_LOGY), the layout of the E-step's
 * rows. */
GHMIX_INLINE void ghmix_mix_rows_one(size_t i, size_t n, int d, double *x,
                                     const double *par,
                                     const ghmix_mix_const *c, int give_log,
                                     int ncol, double *out) {
  const double *center = par, *chol = par + d, *g = par + d + (size_t)d * d;
  ghmix_mix_row_result r;
  double q = 0, bz = 0;
  int j, k;
  for (j = 0; j < d; j++) {
    double s = x[(size_t)j * n + i] - center[j];
    for (k = 0; k < j; k++)
      s -= chol[j + (size_t)k * d] * x[(size_t)k * n + i];
    s /= chol[j + (size_t)j * d];
    x[(size_t)j * n + i] = s;
    q += s * s;
    bz += s * g[j];
  }
  r.loglik = r.e_inv_y = r.e_y = r.e_log_y = NAN;
  ghmix_mix_row(c, q, bz, &r);
  out[i] = give_log ? r.loglik : exp(r.loglik);
  if (ncol == 4) {
    out[n + i] = r.e_inv_y;
    out[2 * n + i] = r.e_y;
    out[3 * n + i] = (c->what & GHMIX_ESTEP_LOGY) ? r.e_log_y : (double)NAN;
  }
}

#endif
