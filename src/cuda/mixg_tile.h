/* The per-thread steps of the CUDA E-step of a finite mixture of G
 * components (src/cuda/mix_estep.cu, mixg_estep_kernel), host-and-device so
 * that tests/c/mock_cuda.cc runs the same code on the CPU.  They extend
 * those of mix_tile.h (one component) and reuse its solve, its tile and
 * its sums.
 *
 * The parameters live on the device as G parameter arrays of
 * ghmix_mix_par_len(d) doubles (ghmix_mix_par_pack), G ghmix_mix_const and
 * G log proportions.
 *
 * A block of T threads takes a tile of T consecutive rows.  Step 1
 * (ghmix_mixg_tile_row, thread t, row i): for each component k, z =
 * L_k^-1 (x_i - m_k) into column t of the tile and the component's row
 * result, kept by the thread in global memory (G results and G weights a
 * thread: ghmix_mixg_scratch_bytes, strided so that a warp's accesses are
 * contiguous; a per-thread array for the largest G would reserve device
 * memory for every resident thread of the device for the life of the
 * process, about 0.9 GiB on an H100); then
 * tau, log f and the whole model's terms (ghmix_mixg_row_tau, mixture_g.h)
 * into the tile's GHMIX_MIXG_NGLOBAL extra columns, v_k = w tau_k, and the
 * row's output.  Then for each component k: step 2 (ghmix_mixg_tile_comp)
 * puts u = x_i - m_k (0 where v_k = 0) and the component's terms into the
 * tile as mix_tile.h's step 1 does, a barrier, and mix_tile.h's step 2
 * (ghmix_mix_tile_sums_w, sum u weighted by v) adds the tile into component
 * k's partial sums; the
 * first GHMIX_STAT_NSCALAR - GHMIX_MIXG_NCOMP local statistics of a
 * component (those of the whole model in mix_tile.h's order) are not used
 * (ghmix_mixg_stat_slots gives them no slot): the whole model's sums come
 * from the extra columns (ghmix_mixg_tile_global, threads 0 to 3).
 *
 * Partial sums: local statistic s of ghmix_mixg_nloc(d, G) for block b at
 * partial[s * blocks + b]; s < GHMIX_MIXG_NGLOBAL the whole model's,
 * then ghmix_mix_nloc(d) for each component. */
#ifndef GHMIX_MIXG_TILE_H
#define GHMIX_MIXG_TILE_H

#include "../core/mixture_g.h"
#include "mix_tile.h"

#define GHMIX_MIXG_NGLOBAL ((int)GHMIX_STAT_TAU)

GHMIX_INLINE size_t ghmix_mixg_nloc(int d, int G) {
  return (size_t)GHMIX_MIXG_NGLOBAL + (size_t)G * ghmix_mix_nloc(d);
}

/* Bytes of a thread's G row results and weights (global memory). */
GHMIX_INLINE size_t ghmix_mixg_scratch_bytes(int G) {
  return (size_t)G * (sizeof(ghmix_mix_row_result) + sizeof(double));
}

/* The launch of the E-step of G components for n rows of d: the tile of
 * ghmix_mix_plan, blocks within its budgets for each block's partial sums
 * of all the statistics and its threads' scratch, and the extra shared
 * columns. */
GHMIX_INLINE ghmix_mix_layout ghmix_mixg_plan(size_t n, int d, int G) {
  ghmix_mix_layout l = ghmix_mix_plan(n, d);
  ghmix_estep_shape shape = ghmix_mix_tile_shape(d);
  shape.components = G;
  l.nloc = ghmix_mixg_nloc(d, G);
  l.nstats = ghmix_estep_nstats(&shape);
  l.smem += (size_t)GHMIX_MIXG_NGLOBAL * ((size_t)l.tile + 1) * sizeof(double);
  l.blocks = ghmix_mix_blocks_mem(
      n, l.tile,
      l.nloc * sizeof(double) + (size_t)l.tile * ghmix_mixg_scratch_bytes(G));
  return l;
}

/* The whole model's columns of the tile (after mix_tile.h's). */
GHMIX_INLINE double *ghmix_mixg_global_cols(double *tile, int d, int T) {
  return tile + ((size_t)d + GHMIX_TERM_COUNT) * (size_t)(T + 1);
}

/* A row's mixture from its G components' results (res, strided by rs):
 * tau into v, then v_k = w tau_k (0 for a row not accepted, of weight 0,
 * or i >= n), the row's output (rows, if not NULL) and the whole model's
 * terms into thread t's entries of the GHMIX_MIXG_NGLOBAL columns gcol
 * (T + 1 doubles apart). */
GHMIX_INLINE void ghmix_mixg_tile_tau(int t, int T, size_t i, size_t n, int G,
                                      const double *log_prop,
                                      const double *weights, int what,
                                      double *rows,
                                      const ghmix_mix_row_result *res,
                                      double *v, size_t rs, double *gcol) {
  const int S = T + 1;
  ghmix_mixg_global glob = {0, 0, 0, 0};
  double logf = 0, w = 0;
  int k, ok = 0;
  if (i < n) {
    w = weights != NULL ? weights[i] : 1.0;
    ok = ghmix_mixg_row_tau_strided(G, log_prop, res, v, rs, &logf) && w > 0;
    if (rows != NULL)
      ghmix_mixg_row_store_strided(G, what, res, v, rs, logf, i, n, rows);
    ghmix_mixg_global_terms(ok, w, logf, &glob);
  }
  for (k = 0; k < G; k++)
    v[(size_t)k * rs] = ok ? w * v[(size_t)k * rs] : 0.0;
  for (k = 0; k < GHMIX_MIXG_NGLOBAL; k++)
    gcol[(size_t)k * S + t] = ghmix_mixg_global_term(&glob, (ghmix_stat_id)k);
}

/* Step 1 for thread t of T: res and v, the thread's own G results and
 * weights, component k's at res[k * rs] and v[k * rs]. */
GHMIX_INLINE void
ghmix_mixg_tile_row(int t, int T, size_t i, size_t n, int d, int G,
                    const double *x, const double *par,
                    const ghmix_mix_const *c, const double *log_prop,
                    const double *weights, int what, double *rows, double *tile,
                    ghmix_mix_row_result *res, double *v, size_t rs) {
  const int S = T + 1;
  int k;
  if (i < n) {
    const size_t plen = ghmix_mix_par_len(d);
    for (k = 0; k < G; k++) {
      ghmix_mix_row_result *rk = &res[(size_t)k * rs];
      double q, bz;
      ghmix_mix_solve_row(d, par + (size_t)k * plen, x + i, n, tile + t,
                          (size_t)S, &q, &bz);
      if (ghmix_mix_row_is_heavy(&c[k], bz))
        ghmix_mix_row_z(&c[k], q, bz, tile + t, (size_t)S,
                        ghmix_mix_par_g(par + (size_t)k * plen, d), rk);
      else if (isinf(q))
        ghmix_mix_row_r(&c[k], ghmix_mix_norm(d, tile + t, (size_t)S), bz, rk);
      else
        ghmix_mix_row(&c[k], q, bz, rk);
    }
  }
  ghmix_mixg_tile_tau(t, T, i, n, G, log_prop, weights, what, rows, res, v, rs,
                      ghmix_mixg_global_cols(tile, d, T));
}

/* Step 2 for thread t and component k (parameters pk, result r, v). */
GHMIX_INLINE void ghmix_mixg_tile_comp(int t, int T, size_t i, size_t n, int d,
                                       const double *x, const double *pk,
                                       int what, double v,
                                       const ghmix_mix_row_result *r,
                                       double *tile) {
  const int S = T + 1;
  double *ucol = tile, *tcol = tile + (size_t)d * S;
  ghmix_mix_terms terms;
  int j, ok = i < n && v > 0;
  ghmix_mixg_comp_terms(what, ok ? v : 0.0, r, &terms);
  for (j = 0; j < d; j++)
    ucol[(size_t)j * S + t] = ok ? x[(size_t)j * n + i] - pk[j] : 0.0;
  for (j = 0; j < GHMIX_TERM_COUNT; j++)
    tcol[(size_t)j * S + t] = terms.v[j];
}

/* The whole model's sums of the tile (its columns gcol): statistic t <
 * GHMIX_MIXG_NGLOBAL by thread t, in row order, into the partial sums of
 * block b of NB. */
GHMIX_INLINE void ghmix_mixg_tile_global(int t, int T, int NB, int b,
                                         int first_tile, const double *gcol,
                                         double *partial) {
  const double *col = gcol + (size_t)t * (T + 1);
  double sum = 0;
  int r;
  if (t >= GHMIX_MIXG_NGLOBAL)
    return;
  for (r = 0; r < T; r++)
    sum += col[r];
  if (first_tile)
    partial[(size_t)t * NB + (size_t)b] = sum;
  else
    partial[(size_t)t * NB + (size_t)b] += sum;
}

/* The partial sums of component k (mix_tile.h's layout of one
 * component). */
GHMIX_INLINE double *ghmix_mixg_partial(double *partial, int d, int k, int NB) {
  return partial +
         ((size_t)GHMIX_MIXG_NGLOBAL + (size_t)k * ghmix_mix_nloc(d)) *
             (size_t)NB;
}

/* Where the local statistic s goes in the layout of estep.h for G
 * components: 0 slots (a component's unused sums of the whole model), 1,
 * or 2 (both triangles of an off-diagonal entry of sum w u u'). */
GHMIX_INLINE int ghmix_mixg_stat_slots(size_t s, int d, int G, size_t slot[2]) {
  ghmix_estep_shape shape = ghmix_mix_tile_shape(d), one = shape;
  size_t nloc = ghmix_mix_nloc(d), sl, shift;
  int k, m;
  shape.components = G;
  if (s < (size_t)GHMIX_MIXG_NGLOBAL) {
    slot[0] = ghmix_estep_stat(&shape, 0, (ghmix_stat_id)s).offset;
    return 1;
  }
  k = (int)((s - GHMIX_MIXG_NGLOBAL) / nloc);
  sl = (s - GHMIX_MIXG_NGLOBAL) % nloc;
  if (sl < (size_t)GHMIX_MIXG_NGLOBAL)
    return 0;
  shift = ghmix_estep_stat(&shape, k, GHMIX_STAT_TAU).offset -
          ghmix_estep_stat(&one, 0, GHMIX_STAT_TAU).offset;
  m = ghmix_mix_stat_slots(sl, d, slot);
  slot[0] += shift;
  if (m == 2)
    slot[1] += shift;
  return m;
}

#endif
