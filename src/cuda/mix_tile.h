/* The per-thread steps of the CUDA E-step and row kernel (src/cuda/
 * mix_estep.cu), written as host-and-device functions so that tests/c can run
 * the same code on the CPU (tests/c/mock_cuda.cc) and check its indexing
 * without a GPU.  Each row's result and terms come from the core's
 * ghmix_mix_row_step (src/core/mixture.h), as on the CPU; the statistics
 * are those of src/core/estep.h for one component with a full Sigma.
 *
 * The parameters live on the device as one array: centre m (d), lower
 * Cholesky factor L (d x d), g = L^-1 gamma (d) (ghmix_mix_par_pack).
 *
 * A block of T threads takes a tile of T consecutive rows.  The tile lives
 * in shared memory as d + GHMIX_TERM_COUNT columns of T + 1 doubles (the
 * + 1 keeps the reads of step 2 free of bank conflicts): d columns for z,
 * then u, of each row; then the row's terms (mixture.h), whose E[1/Y|x]
 * column is also the weight w of the vector sums.
 *
 * Step 1 (ghmix_mix_tile_row, thread t, row i = tile * T + t): z =
 * L^-1 (x_i - m) into column t (ghmix_mix_solve_row), ghmix_mix_row_step
 * (ghmix_mix_row_step_r from |z| where Q = |z|^2 overflows), with row
 * weights its terms times w_i (ghmix_mix_terms_weight); the row's results
 * into rows (if not NULL); then u = x_i - m (zeros for a row that is not
 * accepted, of weight 0, or i >= n) and the terms into column t.
 *
 * Step 2 (ghmix_mix_tile_sums, after a barrier): the NLOC local statistics
 * (the GHMIX_STAT_NSCALAR scalars in the order of ghmix_stat_id, sum u,
 * sum v u (v the weight term: 1 without weights), sum w u, and the lower
 * triangle of sum w u u' packed by columns) are
 * shared out, statistic s to thread s mod T, which adds the T rows of the
 * tile in row order and adds that to the block's partial sum,
 * partial[s * G + block] (set, not added to, by the block's first tile).
 * ghmix_mix_stat_slots says where each goes in the layout of estep.h. */
#ifndef GHMIX_MIX_TILE_H
#define GHMIX_MIX_TILE_H

#include <math.h>
#include <stddef.h>

#include "../core/estep.h"
#include "../core/ghmix_hd.h"
#include "../core/mixture.h"

/* The shape of the statistics the kernels compute for data of dimension
 * d (the flags do not change the layout). */
GHMIX_INLINE ghmix_estep_shape ghmix_mix_tile_shape(int d) {
  ghmix_estep_shape s;
  s.d = d;
  s.components = 1;
  s.cov = GHMIX_COV_FULL;
  s.factors = 0;
  s.what = GHMIX_ESTEP_MOMENTS;
  return s;
}

/* Statistics summed per block: the layout's less the upper triangle. */
GHMIX_INLINE size_t ghmix_mix_nloc(int d) {
  return (size_t)GHMIX_STAT_NSCALAR + 2 * (size_t)d +
         (size_t)d * ((size_t)d + 1) / 2;
}

/* Doubles of the parameter array, and the array from a component. */
GHMIX_INLINE size_t ghmix_mix_par_len(int d) {
  return 2 * (size_t)d + (size_t)d * (size_t)d;
}

GHMIX_INLINE void ghmix_mix_par_pack(const ghmix_mix_component *comp, int d,
                                     double *par) {
  size_t j, dd = (size_t)d * (size_t)d;
  for (j = 0; j < (size_t)d; j++) {
    par[j] = comp->center[j];
    par[(size_t)d + dd + j] = comp->g[j];
  }
  for (j = 0; j < dd; j++)
    par[(size_t)d + j] = comp->chol[j];
}

/* g = L^-1 gamma in the parameter array. */
GHMIX_INLINE const double *ghmix_mix_par_g(const double *par, int d) {
  return par + d + (size_t)d * d;
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
 * depend on the device); at most 1024 blocks, and as many as 128 MiB of
 * the blocks' own device memory (their partial sums: nloc doubles each)
 * allow, but never fewer than GHMIX_MIX_MIN_BLOCKS (or one per tile) while
 * they fit in 1 GiB: 2 per multiprocessor of an H100 or H200 (132), a
 * constant rather than the device's count so that the partition of the
 * rows, and with it every bit of the result, is the same on every device
 * (at d = 870, or G d^2 / 2 of 10^6, the budget alone left 12 to 81 blocks
 * of one warp: under one warp per multiprocessor); smem = bytes of shared
 * memory per block. */
#define GHMIX_MIX_MAX_BLOCKS 1024
#define GHMIX_MIX_PARTIAL_BUDGET ((size_t)128 << 20)
#define GHMIX_MIX_MIN_BLOCKS 264
#define GHMIX_MIX_FLOOR_BUDGET ((size_t)1 << 30)

typedef struct {
  int d, tile, blocks;
  size_t nloc, nstats, smem;
} ghmix_mix_layout;

/* Blocks for n rows in tiles of T, `bytes` of device memory per block:
 * one per tile, within the limits above, at least 1. */
GHMIX_INLINE int ghmix_mix_blocks_mem(size_t n, int T, size_t bytes) {
  size_t tiles = (n + (size_t)T - 1) / (size_t)T, b = GHMIX_MIX_MAX_BLOCKS;
  size_t cap = GHMIX_MIX_PARTIAL_BUDGET / bytes;
  size_t floor = GHMIX_MIX_FLOOR_BUDGET / bytes;
  if (floor > GHMIX_MIX_MIN_BLOCKS)
    floor = GHMIX_MIX_MIN_BLOCKS;
  if (cap < floor)
    cap = floor;
  if (tiles < b)
    b = tiles;
  if (cap < b)
    b = cap;
  return b < 1 ? 1 : (int)b;
}

/* Blocks for n rows in tiles of T with nloc partial sums per block. */
GHMIX_INLINE int ghmix_mix_blocks(size_t n, int T, size_t nloc) {
  return ghmix_mix_blocks_mem(n, T, nloc * sizeof(double));
}

GHMIX_INLINE ghmix_mix_layout ghmix_mix_plan(size_t n, int d) {
  ghmix_estep_shape shape = ghmix_mix_tile_shape(d);
  ghmix_mix_layout l;
  l.d = d;
  l.tile = d <= 16 ? 128 : (d <= 64 ? 64 : 32);
  l.nloc = ghmix_mix_nloc(d);
  l.nstats = ghmix_estep_nstats(&shape);
  l.smem =
      ((size_t)d + GHMIX_TERM_COUNT) * ((size_t)l.tile + 1) * sizeof(double);
  l.blocks = ghmix_mix_blocks(n, l.tile, l.nloc);
  return l;
}

/* z = L^-1 (x_i - m) for one row by forward substitution, with entry j of
 * the row at xi[j * xs] and z_j written to z[j * zs]; z may be the row
 * itself (entry j is read before z_j is written over it, and the later
 * steps read only z_k, k < j).  *Q = |z|^2, *B = z.g, summed in order of j.
 * par: the parameter array. */
GHMIX_INLINE void ghmix_mix_solve_row(int d, const double *par,
                                      const double *xi, size_t xs, double *z,
                                      size_t zs, double *Q, double *B) {
  const double *center = par, *chol = par + d, *g = par + d + (size_t)d * d;
  double q = 0, bz = 0;
  int j, k;
  for (j = 0; j < d; j++) {
    double s = xi[(size_t)j * xs] - center[j];
    for (k = 0; k < j; k++)
      s -= chol[j + (size_t)k * d] * z[(size_t)k * zs];
    s /= chol[j + (size_t)j * d];
    z[(size_t)j * zs] = s;
    q += s * s;
    bz += s * g[j];
  }
  *Q = q;
  *B = bz;
}

/* Step 1 for thread t of T; x is n x d with leading dimension n; weights:
 * the n rows' weights, or NULL. */
GHMIX_INLINE void ghmix_mix_tile_row(int t, int T, size_t i, size_t n, int d,
                                     const double *x, const double *weights,
                                     const double *par,
                                     const ghmix_mix_const *c, double *rows,
                                     double *tile) {
  const int S = T + 1;
  double *ucol = tile, *tcol = tile + (size_t)d * S;
  ghmix_mix_terms terms;
  int ok = 0, j;
  if (i < n) {
    ghmix_mix_row_result r;
    double q, bz;
    ghmix_mix_solve_row(d, par, x + i, n, ucol + t, (size_t)S, &q, &bz);
    if (ghmix_mix_row_is_heavy(c, bz))
      ok = ghmix_mix_row_step_z(c, q, bz, ucol + t, (size_t)S,
                                ghmix_mix_par_g(par, d), &r, &terms);
    else if (isinf(q))
      ok = ghmix_mix_row_step_r(c, ghmix_mix_norm(d, ucol + t, (size_t)S), bz,
                                &r, &terms);
    else
      ok = ghmix_mix_row_step(c, q, bz, NULL, NULL, &r, &terms);
    if (weights != NULL)
      ok = ghmix_mix_terms_weight(&terms, weights[i]);
    if (rows != NULL)
      ghmix_mix_row_store(c, &r, i, n, rows);
  } else {
    for (j = 0; j < GHMIX_TERM_COUNT; j++)
      terms.v[j] = 0;
  }
  for (j = 0; j < d; j++)
    ucol[(size_t)j * S + t] = ok ? x[(size_t)j * n + i] - par[j] : 0.0;
  for (j = 0; j < GHMIX_TERM_COUNT; j++)
    tcol[(size_t)j * S + t] = terms.v[j];
}

/* Step 2 for thread t of T, in block b of G.  weighted: the scalar
 * statistics are those of weighted rows (ghmix_mix_term_of_weighted);
 * u_term: the term column sum u is weighted by (GHMIX_TERM_WEIGHT for
 * weighted rows of one component, GHMIX_TERM_ROWS for the v of
 * mixg_tile.h), or -1: u summed as it is (0 for the rows not accepted). */
GHMIX_INLINE void ghmix_mix_tile_sums_w(int t, int T, int d, int G, int b,
                                        int first_tile, const double *tile,
                                        double *partial, int weighted,
                                        int u_term) {
  const int S = T + 1;
  const size_t nloc = ghmix_mix_nloc(d), nsc = GHMIX_STAT_NSCALAR;
  const size_t nvec = nsc + 2 * (size_t)d;
  const double *ucol = tile, *tcol = tile + (size_t)d * S;
  const double *wcol = tcol + (size_t)GHMIX_TERM_INV_Y * S;
  const double *vcol = tcol + (size_t)(u_term < 0 ? 0 : u_term) * S;
  size_t s = (size_t)t;
  int pj = 0, pk = 0, r;
  for (; s < nvec; s += (size_t)T) {
    double sum = 0;
    if (s < nsc) {
      const int term = weighted ? ghmix_mix_term_of_weighted((ghmix_stat_id)s)
                                : ghmix_mix_term_of((ghmix_stat_id)s);
      const double *col = tcol + (size_t)term * S;
      for (r = 0; r < T; r++)
        sum += col[r];
    } else if (s < nsc + (size_t)d) {
      const double *col = ucol + (s - nsc) * S;
      if (u_term >= 0)
        for (r = 0; r < T; r++)
          sum += vcol[r] * col[r];
      else
        for (r = 0; r < T; r++)
          sum += col[r];
    } else {
      const double *col = ucol + (s - nsc - (size_t)d) * S;
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

/* The sums of one component's tile; weighted: its rows carry weights. */
GHMIX_INLINE void ghmix_mix_tile_sums(int t, int T, int d, int G, int b,
                                      int first_tile, int weighted,
                                      const double *tile, double *partial) {
  ghmix_mix_tile_sums_w(t, T, d, G, b, first_tile, tile, partial, weighted,
                        weighted ? (int)GHMIX_TERM_WEIGHT : -1);
}

/* Where the local statistic s goes in the layout of estep.h: one index,
 * or two (both triangles) for an off-diagonal entry of sum w u u'. */
GHMIX_INLINE int ghmix_mix_stat_slots(size_t s, int d, size_t slot[2]) {
  const ghmix_estep_shape shape = ghmix_mix_tile_shape(d);
  const size_t nsc = GHMIX_STAT_NSCALAR, nvec = nsc + 2 * (size_t)d;
  size_t uu;
  int j, k;
  if (s < nsc) {
    slot[0] = ghmix_estep_stat(&shape, 0, (ghmix_stat_id)s).offset;
    return 1;
  }
  if (s < nvec) {
    ghmix_stat_id id = s < nsc + (size_t)d ? GHMIX_STAT_U : GHMIX_STAT_INV_Y_U;
    size_t first = id == GHMIX_STAT_U ? nsc : nsc + (size_t)d;
    slot[0] = ghmix_estep_stat(&shape, 0, id).offset + (s - first);
    return 1;
  }
  uu = ghmix_estep_stat(&shape, 0, GHMIX_STAT_INV_Y_UU).offset;
  ghmix_mix_pair(s - nvec, d, &j, &k);
  slot[0] = uu + (size_t)j + (size_t)k * d;
  slot[1] = uu + (size_t)k + (size_t)j * d;
  return j == k ? 1 : 2;
}

/* One row of the row kernel (ghmix_cuda_mix_rows: one thread per row, no
 * shared memory, so any d): z = L^-1 (x_i - m) written over row i of x (the
 * device's own copy, n x d with leading dimension n), Q and B as in
 * ghmix_mix_tile_row, then ghmix_mix_row_step (its terms unused).  out is n x
 * ncol, column-major: log f (give_log) or f; with ncol = 4 also E[1/Y|x],
 * E[Y|x] and E[log Y|x], the layout of the E-step's rows. */
GHMIX_INLINE void ghmix_mix_rows_one(size_t i, size_t n, int d, double *x,
                                     const double *par,
                                     const ghmix_mix_const *c, int give_log,
                                     int ncol, double *out) {
  ghmix_mix_row_result r;
  ghmix_mix_terms terms; /* not summed here */
  double q, bz;
  ghmix_mix_solve_row(d, par, x + i, n, x + i, n, &q, &bz);
  if (ghmix_mix_row_is_heavy(c, bz))
    ghmix_mix_row_step_z(c, q, bz, x + i, n, ghmix_mix_par_g(par, d), &r,
                         &terms);
  else if (isinf(q)) /* Q overflowed: the row from |z| (scaled) */
    ghmix_mix_row_step_r(c, ghmix_mix_norm(d, x + i, n), bz, &r, &terms);
  else
    ghmix_mix_row_step(c, q, bz, NULL, NULL, &r, &terms);
  if (ncol == GHMIX_ROW_COUNT)
    ghmix_mix_row_store(c, &r, i, n, out);
  else
    out[i] = r.loglik;
  if (!give_log)
    out[i] = exp(out[i]);
}

#endif
