/* The memberships and terms of a block of rows of a G-component mixture,
 * for the CPU drivers of G >= 1 components (mixture_cpu.c, factor_cpu.c):
 * from each row's component results, its tau and terms (ghmix_mixg_row,
 * src/core/mixture_g.h) added in row order into a slot's sums.  Plain C, no
 * R headers. */
#ifndef GHMIX_MIXG_BLOCK_H
#define GHMIX_MIXG_BLOCK_H

#include <stddef.h>
#include <string.h>

#include "../core/mixture_g.h"

/* What a mixture's rows share: G, the E-step flags, the rows n, the log
 * proportions (G), the rows' weights (NULL: 1) and the per-row output
 * (NULL, or that of ghmix_mixg_row_store). */
typedef struct {
  int G, what;
  size_t n;
  const double *log_prop, *weights;
  double *rows;
} ghmix_mixg_rows;

static inline ghmix_mixg_rows ghmix_mixg_rows_make(int G, int what, size_t n,
                                                   const double *log_prop,
                                                   const double *weights,
                                                   double *rows) {
  ghmix_mixg_rows mix = {G, what, n, log_prop, weights, rows};
  return mix;
}

/* The block of m rows starting at row lo: from res (m x G, row i's
 * component k at i G + k), each row's tau (tau, m x G alike) and terms,
 * added in row order into terms, a slot's sums (the whole model's
 * (ghmix_mixg_global), then G ghmix_mix_terms); its output row; and each
 * component's v = w tau_k and v E[1/Y | x] into v and vw (G blocks of m:
 * component k's at k m + i). */
static inline void ghmix_mixg_block_terms(const ghmix_mixg_rows *mix, size_t lo,
                                          int m,
                                          const ghmix_mix_row_result *res,
                                          double *tau, double *terms, double *v,
                                          double *vw) {
  const int G = mix->G;
  ghmix_mix_terms acc[GHMIX_MAX_COMPONENTS];
  ghmix_mixg_global gacc, glob;
  double logf;
  int i, k, ok;
  memcpy(&gacc, terms, sizeof gacc);
  memcpy(acc, terms + GHMIX_STAT_TAU, sizeof acc[0] * (size_t)G);
  for (i = 0; i < m; i++) {
    const ghmix_mix_row_result *r = res + (size_t)i * G;
    double *ti = tau + (size_t)i * G;
    double w = mix->weights != NULL ? mix->weights[lo + (size_t)i] : 1.0;
    /* ghmix_mixg_row, each component's terms added as they are made (from
     * an array of all G, their loads stalled on the stores just made) */
    ok = ghmix_mixg_row_tau(G, mix->log_prop, r, ti, &logf) && w > 0;
    ghmix_mixg_global_terms(ok, w, logf, &glob);
    ghmix_mixg_global_add(&gacc, &glob);
    for (k = 0; k < G; k++) {
      ghmix_mix_terms t;
      ghmix_mixg_comp_terms(mix->what, ok ? w * ti[k] : 0.0, &r[k], &t);
      ghmix_mix_terms_add(&acc[k], &t);
      v[(size_t)k * m + i] = t.v[GHMIX_TERM_ROWS];
      vw[(size_t)k * m + i] = t.v[GHMIX_TERM_INV_Y];
    }
    if (mix->rows != NULL)
      ghmix_mixg_row_store(G, mix->what, r, ti, logf, lo + (size_t)i, mix->n,
                           mix->rows);
  }
  memcpy(terms, &gacc, sizeof gacc);
  memcpy(terms + GHMIX_STAT_TAU, acc, sizeof acc[0] * (size_t)G);
}

#endif
