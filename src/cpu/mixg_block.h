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

/* A mixture's block of m rows starting at row lo (of n): res and tau (m x
 * G, row i's component k at i G + k), the rows' weights (NULL: 1), and
 * where they go: terms, a slot's sums (the whole model's
 * (ghmix_mixg_global), then G ghmix_mix_terms), each in row order; v and
 * vw (G blocks of m: component k's at k m + i), each component's v = w
 * tau_k and v E[1/Y | x]; rows, NULL or the per-row output of
 * ghmix_mixg_row_store. */
typedef struct {
  int G, what, m;
  size_t lo, n;
  const double *log_prop, *weights;
  const ghmix_mix_row_result *res;
  double *tau, *terms, *v, *vw, *rows;
} ghmix_mixg_block;

/* Each row's tau and terms into b->terms, its output row, and v, vw. */
static inline void ghmix_mixg_block_terms(const ghmix_mixg_block *b) {
  const int G = b->G;
  ghmix_mix_terms acc[GHMIX_MAX_COMPONENTS];
  ghmix_mixg_global gacc, glob;
  double logf;
  int i, k, ok;
  memcpy(&gacc, b->terms, sizeof gacc);
  memcpy(acc, b->terms + GHMIX_STAT_TAU, sizeof acc[0] * (size_t)G);
  for (i = 0; i < b->m; i++) {
    const ghmix_mix_row_result *r = b->res + (size_t)i * G;
    double *tau = b->tau + (size_t)i * G;
    double w = b->weights != NULL ? b->weights[b->lo + (size_t)i] : 1.0;
    /* ghmix_mixg_row, each component's terms added as they are made (from
     * an array of all G, their loads stalled on the stores just made) */
    ok = ghmix_mixg_row_tau(G, b->log_prop, r, tau, &logf) && w > 0;
    ghmix_mixg_global_terms(ok, w, logf, &glob);
    ghmix_mixg_global_add(&gacc, &glob);
    for (k = 0; k < G; k++) {
      ghmix_mix_terms t;
      ghmix_mixg_comp_terms(b->what, ok ? w * tau[k] : 0.0, &r[k], &t);
      ghmix_mix_terms_add(&acc[k], &t);
      b->v[(size_t)k * b->m + i] = t.v[GHMIX_TERM_ROWS];
      b->vw[(size_t)k * b->m + i] = t.v[GHMIX_TERM_INV_Y];
    }
    if (b->rows != NULL)
      ghmix_mixg_row_store(G, b->what, r, tau, logf, b->lo + (size_t)i, b->n,
                           b->rows);
  }
  memcpy(b->terms, &gacc, sizeof gacc);
  memcpy(b->terms + GHMIX_STAT_TAU, acc, sizeof acc[0] * (size_t)G);
}

#endif
