/* One row of the E-step of a finite mixture of G >= 1 components
 * (estep.h), for every driver (src/cpu, src/cuda).
 *
 * Component k has log proportion log pi_k and its own row result r_k
 * (ghmix_mix_row_step about its own centre m_k, mixture.h).  The mixture's
 * log density is the log-sum-exp
 *   log f(x) = M + log sum_k exp(log pi_k + log f_k(x) - M),
 * M the largest log pi_k + log f_k(x), over the components that accept the
 * row (ghmix_mixg_accepts); the posterior membership is
 *   tau_k = exp(log pi_k + log f_k(x) - log f(x))
 *         = exp(log pi_k + log f_k(x) - M) / sum_j exp(log pi_j + log f_j - M),
 * computed in the second form, which does not difference log f (0 for the
 * others), and v_k = w tau_k weights every sum of component k
 * (w the row's weight, 1 without weights).  The row is accepted when log f
 * is finite; a component whose log f_k is +Inf or NaN (the variance-gamma
 * singularity, a NaN row) makes the mixture's density infinite or undefined,
 * so the row is then not accepted either.  A row of weight 0 adds nothing,
 * not even to BAD.
 *
 * For G = 1, log pi_1 = 0 and w = 1 these are exactly the terms of
 * ghmix_mix_row_terms (tau = exp(0) / 1 = 1, v = 1). */
#ifndef GHMIX_MIXTURE_G_H
#define GHMIX_MIXTURE_G_H

#include <math.h>
#include <stddef.h>

#include "estep.h"
#include "ghmix_hd.h"
#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most components an E-step takes (the drivers' per-row scratch is
 * sized by it; ghmix_mix_model_check_g refuses more). */
#define GHMIX_MAX_COMPONENTS 64

/* The terms of a row for the blocks of the whole model (estep.h). */
typedef struct {
  double rows, weight, loglik, bad;
} ghmix_mixg_global;

/* 1 when component k's result would be accepted on its own (as
 * ghmix_mix_row_terms decides). */
GHMIX_INLINE int ghmix_mixg_accepts(const ghmix_mix_row_result *r) {
  return isfinite(r->loglik) && isfinite(r->e_inv_y) && isfinite(r->e_y) &&
         r->e_inv_y > 0;
}

/* tau and the mixture's log f of a row from the components' results r
 * and log proportions (G each), r_k at r[k * stride] and tau_k at
 * tau[k * stride] (1: arrays; the CUDA kernel keeps a thread's in global
 * memory, strided by its threads); returns 1 when log f is finite. */
GHMIX_INLINE int ghmix_mixg_row_tau_strided(int G, const double *log_prop,
                                            const ghmix_mix_row_result *r,
                                            double *tau, size_t stride,
                                            double *logf) {
  double m = -INFINITY, s = 0;
  int k, broken = 0;
  for (k = 0; k < G; k++) {
    const ghmix_mix_row_result *rk = &r[(size_t)k * stride];
    double l = rk->loglik, *tk = &tau[(size_t)k * stride];
    broken |= isnan(l) || l == INFINITY;
    *tk = ghmix_mixg_accepts(rk) ? log_prop[k] + l : -INFINITY;
    if (*tk > m)
      m = *tk;
  }
  if (broken || !isfinite(m)) {
    for (k = 0; k < G; k++)
      tau[(size_t)k * stride] = 0;
    *logf = broken ? (double)NAN : -INFINITY;
    return 0;
  }
  for (k = 0; k < G; k++) {
    double *tk = &tau[(size_t)k * stride];
    /* exp(0) = 1 and exp(-Inf) = 0 exactly: the largest term and a
     * refused component cost no exp */
    *tk = *tk == m ? 1.0 : *tk == -INFINITY ? 0.0 : exp(*tk - m);
    s += *tk;
  }
  *logf = m + log(s);
  for (k = 0; k < G; k++)
    tau[(size_t)k * stride] /= s;
  return isfinite(*logf);
}

GHMIX_INLINE int ghmix_mixg_row_tau(int G, const double *log_prop,
                                    const ghmix_mix_row_result *r, double *tau,
                                    double *logf) {
  return ghmix_mixg_row_tau_strided(G, log_prop, r, tau, 1, logf);
}

/* The terms of component k (the layout of ghmix_mix_terms: ROWS is v, the
 * weight of TAU and U; INV_Y is v E[1/Y|x], also the weight of INV_Y_U and
 * INV_Y_UU; BAD and LOGLIK are 0) for v = w tau_k. */
GHMIX_INLINE void ghmix_mixg_comp_terms(int what, double v,
                                        const ghmix_mix_row_result *r,
                                        ghmix_mix_terms *t) {
  int ok = v > 0;
  t->v[GHMIX_TERM_ROWS] = ok ? v : 0.0;
  t->v[GHMIX_TERM_WEIGHT] = ok ? v : 0.0;
  t->v[GHMIX_TERM_BAD] = 0.0;
  t->v[GHMIX_TERM_LOGLIK] = 0.0;
  t->v[GHMIX_TERM_INV_Y] = ok ? v * r->e_inv_y : 0.0;
  t->v[GHMIX_TERM_Y] = ok ? v * r->e_y : 0.0;
  t->v[GHMIX_TERM_LOG_Y] =
      ok && (what & GHMIX_ESTEP_LOGY) ? v * r->e_log_y : 0.0;
  t->v[GHMIX_TERM_INV_Y_DEV] = ok ? v * r->inv_y_dev : 0.0;
  t->v[GHMIX_TERM_Y_DEV] = ok ? v * r->y_dev : 0.0;
}

/* The whole model's terms of a row of weight w >= 0 and log density logf,
 * accepted (ok) or not. */
GHMIX_INLINE void ghmix_mixg_global_terms(int ok, double w, double logf,
                                          ghmix_mixg_global *glob) {
  glob->rows = ok ? 1.0 : 0.0;
  glob->weight = ok ? w : 0.0;
  glob->loglik = ok ? w * logf : 0.0;
  glob->bad = !ok && w > 0 ? 1.0 : 0.0;
}

/* The whole row: from the components' results r (G), its weight w >= 0
 * and the flags what, the memberships tau (G), the mixture's *logf, the
 * terms of each component t (G) and those of the whole model; returns 1
 * when the row is accepted with w > 0. */
GHMIX_INLINE int ghmix_mixg_row(int G, int what, const double *log_prop,
                                double w, const ghmix_mix_row_result *r,
                                double *tau, double *logf, ghmix_mix_terms *t,
                                ghmix_mixg_global *glob) {
  int k, ok = ghmix_mixg_row_tau(G, log_prop, r, tau, logf) && w > 0;
  for (k = 0; k < G; k++)
    ghmix_mixg_comp_terms(what, ok ? w * tau[k] : 0.0, &r[k], &t[k]);
  ghmix_mixg_global_terms(ok, w, *logf, glob);
  return ok;
}

/* acc += t (the whole model's terms). */
GHMIX_INLINE void ghmix_mixg_global_add(ghmix_mixg_global *acc,
                                        const ghmix_mixg_global *t) {
  acc->rows += t->rows;
  acc->weight += t->weight;
  acc->loglik += t->loglik;
  acc->bad += t->bad;
}

/* The term that the scalar statistic id of the whole model sums. */
GHMIX_INLINE double ghmix_mixg_global_term(const ghmix_mixg_global *g,
                                           ghmix_stat_id id) {
  switch (id) {
  case GHMIX_STAT_ROWS:
    return g->rows;
  case GHMIX_STAT_WEIGHT:
    return g->weight;
  case GHMIX_STAT_LOGLIK:
    return g->loglik;
  default:
    return g->bad;
  }
}

/* The per-row output of a G-component E-step: n x ghmix_mixg_row_ncol(G),
 * column-major; column GHMIX_MIXG_ROW_LOGLIK is the mixture's log f(x),
 * then G columns each (component k at column first + k) of tau_k,
 * E[1/Y | x, k], E[Y | x, k] and E[log Y | x, k] (NaN without
 * GHMIX_ESTEP_LOGY): the component's own moments, whatever tau_k. */
enum {
  GHMIX_MIXG_ROW_LOGLIK = 0,
  GHMIX_MIXG_ROW_TAU,   /* blocks of G columns, by their first column / G */
  GHMIX_MIXG_ROW_INV_Y, /* ... at 1 + (id - 1) * G */
  GHMIX_MIXG_ROW_Y,
  GHMIX_MIXG_ROW_LOG_Y,
  GHMIX_MIXG_ROW_BLOCKS
};

GHMIX_INLINE size_t ghmix_mixg_row_ncol(int G) {
  return 1 + (size_t)(GHMIX_MIXG_ROW_BLOCKS - 1) * (size_t)G;
}

/* The first column of block id (GHMIX_MIXG_ROW_*). */
GHMIX_INLINE size_t ghmix_mixg_row_col(int G, int id) {
  return id == GHMIX_MIXG_ROW_LOGLIK ? 0 : 1 + (size_t)(id - 1) * (size_t)G;
}

/* Row i of that output. */
GHMIX_INLINE void ghmix_mixg_row_store_strided(int G, int what,
                                               const ghmix_mix_row_result *r,
                                               const double *tau, size_t stride,
                                               double logf, size_t i, size_t n,
                                               double *rows) {
  int k;
  rows[i] = logf;
  for (k = 0; k < G; k++) {
    const ghmix_mix_row_result *rk = &r[(size_t)k * stride];
    rows[(ghmix_mixg_row_col(G, GHMIX_MIXG_ROW_TAU) + k) * n + i] =
        tau[(size_t)k * stride];
    rows[(ghmix_mixg_row_col(G, GHMIX_MIXG_ROW_INV_Y) + k) * n + i] =
        rk->e_inv_y;
    rows[(ghmix_mixg_row_col(G, GHMIX_MIXG_ROW_Y) + k) * n + i] = rk->e_y;
    rows[(ghmix_mixg_row_col(G, GHMIX_MIXG_ROW_LOG_Y) + k) * n + i] =
        (what & GHMIX_ESTEP_LOGY) ? rk->e_log_y : (double)NAN;
  }
}

GHMIX_INLINE void ghmix_mixg_row_store(int G, int what,
                                       const ghmix_mix_row_result *r,
                                       const double *tau, double logf, size_t i,
                                       size_t n, double *rows) {
  ghmix_mixg_row_store_strided(G, what, r, tau, 1, logf, i, n, rows);
}

#ifdef __cplusplus
}
#endif

#endif
