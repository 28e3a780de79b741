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
 * into row t of the tile (ghmix_factor_bu_stride(r) doubles a row), its
 * terms and its v, w (0 for a
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
#include "mixg_tile.h"

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

/* Doubles between two rows' beta u in the tile: r + 1 or r + 2, odd, so
 * that the 16 threads of a half-warp reading their row's entry k hit 16
 * different banks (an even stride put 2 to 16 of them on one bank). */
GHMIX_INLINE size_t ghmix_factor_bu_stride(int r) {
  return (size_t)r + 1 + (size_t)(r & 1);
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
  l.smem = ((size_t)l.tile * ghmix_factor_bu_stride(r) +
            ((size_t)GHMIX_TERM_COUNT + 2) * ((size_t)l.tile + 1)) *
           sizeof(double);
  l.blocks = ghmix_mix_blocks(n, l.tile, l.nloc);
  return l;
}

/* The tile: beta u of row t at t ghmix_factor_bu_stride(r); from this
 * offset on, the terms, then v and w, T + 1 doubles each. */
GHMIX_INLINE size_t ghmix_factor_tile_terms(int T, int r) {
  return (size_t)T * ghmix_factor_bu_stride(r);
}

/* Row t's terms (accepted: ok; its beta u already in the tile) into the
 * tile's term columns and its v, w (0, and beta u 0, for a row not
 * accepted). */
GHMIX_INLINE void ghmix_factor_tile_put(int t, int T, int r, int ok,
                                        const ghmix_mix_terms *terms,
                                        double *tile) {
  const int S = T + 1;
  double *bu = tile + (size_t)t * ghmix_factor_bu_stride(r);
  double *tcol = tile + ghmix_factor_tile_terms(T, r);
  double *vcol = tcol + (size_t)GHMIX_TERM_COUNT * S, *wcol = vcol + S;
  int j;
  for (j = 0; j < GHMIX_TERM_COUNT; j++)
    tcol[(size_t)j * S + t] = terms->v[j];
  vcol[t] = ok ? terms->v[GHMIX_TERM_WEIGHT] : 0.0;
  wcol[t] = ok ? terms->v[GHMIX_TERM_INV_Y] : 0.0;
  if (!ok)
    for (j = 0; j < r; j++)
      bu[j] = 0;
}

/* Step 1 for thread t of T; x: n x d, leading dimension n; weights: the n
 * rows' weights, or NULL; fm: the model viewing the device's arrays. */
GHMIX_INLINE void ghmix_factor_tile_row(int t, int T, size_t i, size_t n,
                                        const double *x, const double *weights,
                                        const ghmix_factor_model *fm,
                                        double *rows, double *tile) {
  double *bu = tile + (size_t)t * ghmix_factor_bu_stride(fm->r);
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
  ghmix_factor_tile_put(t, T, fm->r, ok, &terms, tile);
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
      v *= bu[(size_t)q * ghmix_factor_bu_stride(r) + (size_t)k];
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

/* ------------------------------------------------------------------
 * The E-step of a mixture of G factor-analytic components (R's
 * `components = G` with `factors = r`; ghmix_cuda_factor_estep_mixture),
 * one pass over the rows: the G models (all of r factors), each viewing
 * its own parameter array, log proportions, the rows' weights w.  Step 1
 * (ghmix_factorg_tile_row): every component's row result and beta u (kept
 * by the thread in global memory, strided by rs as in mixg_tile.h), then
 * the memberships, v_k = w tau_k and the whole model's terms
 * (ghmix_mixg_tile_tau) into GHMIX_MIXG_NGLOBAL more columns after the
 * factor tile's.  Then per component k: ghmix_factorg_tile_comp puts the
 * terms of a factor E-step of row weight v_k, its beta u and v, w into the
 * tile, a barrier, ghmix_factor_tile_sums (weighted) into component k's
 * partial sums (and, for the first, the whole model's:
 * ghmix_mixg_tile_global), a barrier.  Component k's statistics are then
 * those of the one-component factor E-step with row weights v_k (the
 * layout of ghmix_factor_shape(fm, 1)), and the whole model's the
 * GHMIX_MIXG_NGLOBAL mixture sums: partial sums GHMIX_MIXG_NGLOBAL, then
 * ghmix_factor_nloc(d, r) for each component; statistics
 * GHMIX_MIXG_NGLOBAL, then ghmix_estep_nstats of the one-component shape
 * for each. */

/* Bytes of a thread's G results, weights and beta u (global memory). */
GHMIX_INLINE size_t ghmix_factorg_scratch_bytes(int G, int r) {
  return ghmix_mixg_scratch_bytes(G) + (size_t)G * (size_t)r * sizeof(double);
}

GHMIX_INLINE ghmix_factor_layout ghmix_factorg_plan(size_t n, int d, int r,
                                                    int G) {
  ghmix_factor_layout l = ghmix_factor_plan(n, d, r);
  l.nloc = (size_t)GHMIX_MIXG_NGLOBAL + (size_t)G * ghmix_factor_nloc(d, r);
  l.nstats = (size_t)GHMIX_MIXG_NGLOBAL + (size_t)G * l.nstats;
  l.smem += (size_t)GHMIX_MIXG_NGLOBAL * ((size_t)l.tile + 1) * sizeof(double);
  l.blocks = ghmix_mix_blocks_mem(n, l.tile,
                                  l.nloc * sizeof(double) +
                                      (size_t)l.tile *
                                          ghmix_factorg_scratch_bytes(G, r));
  return l;
}

/* The whole model's columns of the tile (after the factor tile's). */
GHMIX_INLINE double *ghmix_factorg_global_cols(double *tile, int T, int r) {
  return tile + ghmix_factor_tile_terms(T, r) +
         ((size_t)GHMIX_TERM_COUNT + 2) * ((size_t)T + 1);
}

/* Step 1 for thread t of T: res, v and bu the thread's own (component k's
 * at res[k rs], v[k rs], beta u entry j at bu[(k r + j) rs]). */
GHMIX_INLINE void
ghmix_factorg_tile_row(int t, int T, size_t i, size_t n, int G, const double *x,
                       const ghmix_factor_model *fms, const double *log_prop,
                       const double *weights, int what, double *rows,
                       double *tile, ghmix_mix_row_result *res, double *v,
                       double *bu, size_t rs) {
  const int r = fms[0].r;
  double *row_bu = tile + (size_t)t * ghmix_factor_bu_stride(r);
  int k, j;
  if (i < n)
    for (k = 0; k < G; k++) {
      ghmix_mix_terms unused; /* (the terms come from res at step 2) */
      ghmix_factor_row_step_x(&fms[k], x + i, n, row_bu, &res[(size_t)k * rs],
                              &unused);
      for (j = 0; j < r; j++)
        bu[((size_t)k * r + (size_t)j) * rs] = row_bu[j];
    }
  ghmix_mixg_tile_tau(t, T, i, n, G, log_prop, weights, what, rows, res, v, rs,
                      ghmix_factorg_global_cols(tile, T, r));
}

/* Step 2 of thread t for component k (model fm, its result res, weight v,
 * beta u bu_k strided by rs): the tile as ghmix_factor_tile_row fills it
 * for a row of weight v. */
GHMIX_INLINE void ghmix_factorg_tile_comp(int t, int T, size_t i, size_t n,
                                          const ghmix_factor_model *fm,
                                          double v,
                                          const ghmix_mix_row_result *res,
                                          const double *bu_k, size_t rs,
                                          double *tile) {
  double *row_bu = tile + (size_t)t * ghmix_factor_bu_stride(fm->r);
  ghmix_mix_terms terms;
  int ok = 0, j;
  if (i < n) {
    (void)ghmix_mix_row_terms(&fm->c, res, &terms);
    ok = ghmix_mix_terms_weight(&terms, v);
    for (j = 0; j < fm->r; j++)
      row_bu[j] = bu_k[(size_t)j * rs];
  } else {
    for (j = 0; j < GHMIX_TERM_COUNT; j++)
      terms.v[j] = 0;
  }
  ghmix_factor_tile_put(t, T, fm->r, ok, &terms, tile);
}

/* The partial sums of component k (after the whole model's). */
GHMIX_INLINE double *ghmix_factorg_partial(double *partial, int d, int r, int k,
                                           int NB) {
  return partial +
         ((size_t)GHMIX_MIXG_NGLOBAL + (size_t)k * ghmix_factor_nloc(d, r)) *
             (size_t)NB;
}

/* Where local statistic s goes: the whole model's, then each component's
 * in the one-component layout (nstats1 statistics each). */
GHMIX_INLINE size_t ghmix_factorg_stat_slot(size_t s, int d, int r,
                                            size_t nstats1) {
  const size_t nloc1 = ghmix_factor_nloc(d, r);
  if (s < (size_t)GHMIX_MIXG_NGLOBAL)
    return s;
  s -= GHMIX_MIXG_NGLOBAL;
  return (size_t)GHMIX_MIXG_NGLOBAL + (s / nloc1) * nstats1 +
         ghmix_factor_stat_slot(s % nloc1, d, r);
}

#endif
