/* The per-thread steps of the CUDA E-step of a factor-analytic Sigma =
 * F F' + diag(D) (src/core/factor.h; src/cuda/factor_estep.cu), written
 * as host-and-device functions so that tests/c/mock_cuda.cc runs the same
 * code on the CPU.  The statistics are those of src/cpu/factor_cpu.h (the
 * layout of src/core/estep.h for one component, GHMIX_COV_FACTOR, r
 * factors): the scalars, sum v u, sum w u, the diagonal of S = sum w u u'
 * and S beta' (d x r), u = x - m, v the row's weight term, w its
 * E[1/Y|x] term.
 *
 * The model's arrays live on the device as one parameter array
 * (ghmix_factor_par_pack): m, 1 / D, s = Sigma^-1 gamma, gamma (d each),
 * beta' (d x r), C (r x r), beta gamma (r); ghmix_factor_par_view points a
 * copy of the host's model at them.
 *
 * A block of T threads takes a tile of T consecutive rows.  Step 1
 * (ghmix_factor_tile_row, thread t, row i): ghmix_factor_row_step_x on row
 * i of x (the core's per-row work, as on the CPU), with row weights its
 * terms times w_i; the row's results into rows (if not NULL); its beta u
 * into row t of the tile's r + 1 columns, its terms and its v, w (0 for a
 * row not accepted) into the term columns.  Step 2 (ghmix_factor_tile_sums,
 * after a barrier): local statistic s (the GHMIX_STAT_NSCALAR scalars, sum
 * v u, sum w u, diag S, then S beta' by rows: (j, k) at j r + k) to thread
 * s mod T, which adds the tile's rows in row order, u_j = x_ij - m_j read
 * from x again, into partial[s * G + block] (set by the block's first
 * tile).  Rows of v = 0 (w = 0) are left out of the sums they weight,
 * exactly as adding their zero products would leave them. */
#ifndef GHMIX_FACTOR_TILE_H
#define GHMIX_FACTOR_TILE_H

#include <stddef.h>

#include "../core/estep.h"
#include "../core/factor.h"
#include "../core/ghmix_hd.h"
#include "../core/mixture.h"
#include "mix_tile.h"

GHMIX_INLINE ghmix_estep_shape ghmix_factor_tile_shape(int d, int r) {
  ghmix_estep_shape s = ghmix_mix_tile_shape(d);
  s.cov = GHMIX_COV_FACTOR;
  s.factors = r;
  return s;
}

/* Statistics summed per block: every one of the layout. */
GHMIX_INLINE size_t ghmix_factor_nloc(int d, int r) {
  return (size_t)GHMIX_STAT_NSCALAR + (size_t)d * (3 + (size_t)r);
}

GHMIX_INLINE size_t ghmix_factor_par_len(int d, int r) {
  return (size_t)d * (4 + (size_t)r) + (size_t)r * ((size_t)r + 1);
}

GHMIX_INLINE void ghmix_factor_par_pack(const ghmix_factor_model *fm,
                                        double *par) {
  const size_t d = (size_t)fm->d, r = (size_t)fm->r;
  size_t j;
  for (j = 0; j < d; j++) {
    par[j] = fm->center[j];
    par[d + j] = fm->dinv[j];
    par[2 * d + j] = fm->s[j];
    par[3 * d + j] = fm->gamma[j];
  }
  for (j = 0; j < d * r; j++)
    par[4 * d + j] = fm->proj_t[j];
  for (j = 0; j < r * r; j++)
    par[(4 + r) * d + j] = fm->chol[j];
  for (j = 0; j < r; j++)
    par[(4 + r) * d + r * r + j] = fm->beta_gamma[j];
}

/* The model host with its arrays at those of par (packed from it). */
GHMIX_INLINE ghmix_factor_model
ghmix_factor_par_view(const ghmix_factor_model *host, const double *par) {
  const size_t d = (size_t)host->d, r = (size_t)host->r;
  ghmix_factor_model fm = *host;
  fm.center = par;
  fm.dinv = par + d;
  fm.s = par + 2 * d;
  fm.gamma = par + 3 * d;
  fm.proj_t = par + 4 * d;
  fm.chol = par + (4 + r) * d;
  fm.beta_gamma = fm.chol + r * r;
  return fm;
}

/* The launch for n rows: T = tile rows (threads per block), blocks (n, d
 * and r decide them, never the device), smem = bytes of shared memory per
 * block; the budgets of ghmix_mix_plan. */
typedef struct {
  int d, r, tile, blocks;
  size_t nloc, nstats, smem, npar;
} ghmix_factor_layout;

GHMIX_INLINE ghmix_factor_layout ghmix_factor_plan(size_t n, int d, int r) {
  ghmix_estep_shape shape = ghmix_factor_tile_shape(d, r);
  ghmix_factor_layout l;
  l.d = d;
  l.r = r;
  l.tile = r <= 16 ? 128 : (r <= 64 ? 64 : 32);
  l.nloc = ghmix_factor_nloc(d, r);
  l.nstats = ghmix_estep_nstats(&shape);
  l.npar = ghmix_factor_par_len(d, r);
  l.smem = ((size_t)l.tile * ((size_t)r + 1) +
            ((size_t)GHMIX_TERM_COUNT + 2) * ((size_t)l.tile + 1)) *
           sizeof(double);
  l.blocks = ghmix_mix_blocks(n, l.tile, l.nloc);
  return l;
}

/* The tile: beta u of row t at t (r + 1); from this offset on, the terms,
 * then v and w, T + 1 doubles each. */
GHMIX_INLINE size_t ghmix_factor_tile_terms(int T, int r) {
  return (size_t)T * ((size_t)r + 1);
}

/* Step 1 for thread t of T; x: n x d, leading dimension n; weights: the n
 * rows' weights, or NULL; fm: the model viewing the device's arrays. */
GHMIX_INLINE void ghmix_factor_tile_row(int t, int T, size_t i, size_t n,
                                        const double *x, const double *weights,
                                        const ghmix_factor_model *fm,
                                        double *rows, double *tile) {
  const int S = T + 1, r = fm->r;
  double *bu = tile + (size_t)t * ((size_t)r + 1);
  double *tcol = tile + ghmix_factor_tile_terms(T, r);
  double *vcol = tcol + (size_t)GHMIX_TERM_COUNT * S, *wcol = vcol + S;
  ghmix_mix_terms terms;
  int ok = 0, j;
  if (i < n) {
    ghmix_mix_row_result res;
    ok = ghmix_factor_row_step_x(fm, x + i, n, bu, &res, &terms);
    if (weights != NULL)
      ok = ghmix_mix_terms_weight(&terms, weights[i]);
    if (rows != NULL)
      ghmix_mix_row_store(&fm->c, &res, i, n, rows);
  } else {
    for (j = 0; j < GHMIX_TERM_COUNT; j++)
      terms.v[j] = 0;
  }
  for (j = 0; j < GHMIX_TERM_COUNT; j++)
    tcol[(size_t)j * S + t] = terms.v[j];
  vcol[t] = ok ? terms.v[GHMIX_TERM_WEIGHT] : 0.0;
  wcol[t] = ok ? terms.v[GHMIX_TERM_INV_Y] : 0.0;
  if (!ok)
    for (j = 0; j < r; j++)
      bu[j] = 0;
}

/* sum over the tile's rows q of a_q u_qj (b_q[k] too unless k < 0; u_qj
 * too when twice), rows of a_q = 0 left out; xj: column j of x at the
 * tile's first row, mj = m_j. */
GHMIX_INLINE double ghmix_factor_tile_dot(int T, const double *a,
                                          const double *xj, double mj,
                                          int twice, const double *bu, int r,
                                          int k) {
  double sum = 0;
  int q;
  for (q = 0; q < T; q++) {
    double u, v;
    if (a[q] == 0)
      continue;
    u = xj[q] - mj;
    v = a[q] * u; /* first: a u u' of a far row may be finite, u u' not */
    if (twice)
      v *= u;
    if (k >= 0)
      v *= bu[(size_t)q * ((size_t)r + 1) + (size_t)k];
    sum += v;
  }
  return sum;
}

/* Step 2 for thread t of T, in block b of G, the tile's first row i0 of
 * x (n x d); weighted: the scalars are those of weighted rows. */
GHMIX_INLINE void
ghmix_factor_tile_sums(int t, int T, int G, int b, int first_tile, size_t i0,
                       size_t n, const double *x, const ghmix_factor_model *fm,
                       int weighted, const double *tile, double *partial) {
  const int S = T + 1, d = fm->d, r = fm->r;
  const size_t nsc = GHMIX_STAT_NSCALAR, nloc = ghmix_factor_nloc(d, r);
  const double *tcol = tile + ghmix_factor_tile_terms(T, r);
  const double *vcol = tcol + (size_t)GHMIX_TERM_COUNT * S, *wcol = vcol + S;
  size_t s;
  for (s = (size_t)t; s < nloc; s += (size_t)T) {
    double sum = 0;
    if (s < nsc) {
      const int term = weighted ? ghmix_mix_term_of_weighted((ghmix_stat_id)s)
                                : ghmix_mix_term_of((ghmix_stat_id)s);
      int q;
      for (q = 0; q < T; q++)
        sum += tcol[(size_t)term * S + q];
    } else {
      const size_t e = s - nsc, part = e / (size_t)d;
      const int j = (int)(part < 3 ? e % (size_t)d : (e - 3 * d) / r);
      const int k = part < 3 ? -1 : (int)((e - 3 * (size_t)d) % (size_t)r);
      const double *xj = x + (size_t)j * n + i0;
      sum = ghmix_factor_tile_dot(T, part == 0 ? vcol : wcol, xj, fm->center[j],
                                  part == 2, tile, r, k);
    }
    if (first_tile)
      partial[s * (size_t)G + (size_t)b] = sum;
    else
      partial[s * (size_t)G + (size_t)b] += sum;
  }
}

/* Where local statistic s goes in the layout of estep.h. */
GHMIX_INLINE size_t ghmix_factor_stat_slot(size_t s, int d, int r) {
  const ghmix_estep_shape shape = ghmix_factor_tile_shape(d, r);
  const size_t nsc = GHMIX_STAT_NSCALAR;
  size_t e, part;
  if (s < nsc)
    return ghmix_estep_stat(&shape, 0, (ghmix_stat_id)s).offset;
  e = s - nsc;
  part = e / (size_t)d;
  if (part < 3) {
    const ghmix_stat_id id = part == 0   ? GHMIX_STAT_U
                             : part == 1 ? GHMIX_STAT_INV_Y_U
                                         : GHMIX_STAT_INV_Y_UU_DIAG;
    return ghmix_estep_stat(&shape, 0, id).offset + e % (size_t)d;
  }
  e -= 3 * (size_t)d;
  return ghmix_estep_stat(&shape, 0, GHMIX_STAT_INV_Y_UU_PROJ).offset +
         (e % (size_t)r) * (size_t)d + e / (size_t)r;
}

#endif
