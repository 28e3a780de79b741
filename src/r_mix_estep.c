/* .Call glue for the E-step of a finite mixture of G >= 1 components
 * (src/core/mixture_g.h; the CPU driver ghmix_mix_estep_mixture_cpu of
 * src/cpu/mixture_cpu.h, the CUDA one in r_cuda.c), for R/mix_estep.R. */
#include "core/mixture_g.h"
#include "cpu/mixture_cpu.h"
#include "r_ffi.h"

#include <stdio.h>

/* Component k of the .Call arguments: centre, L and g from column k of
 * centers (d x G), chols (d x d x G) and gs (d x G); consts column k
 * (p, a, b, gsg, logdet). */
static void mixg_component(SEXP centers, SEXP chols, SEXP gs, SEXP consts,
                           const double *log_props, int d, int k,
                           ghmix_mix_component *c) {
  const size_t dd = (size_t)d * (size_t)d;
  const double *kk = ghmix_r_doubles(consts, "consts") + 5 * (size_t)k;
  c->center = ghmix_r_doubles(centers, "centers") + (size_t)k * d;
  c->chol = ghmix_r_doubles(chols, "chols") + (size_t)k * dd;
  c->g = ghmix_r_doubles(gs, "gs") + (size_t)k * d;
  c->p = kk[0];
  c->a = kk[1];
  c->b = kk[2];
  c->gsg = kk[3];
  c->logdet = kk[4];
  c->log_prop = log_props[k];
}

void ghmix_r_mixg_model(SEXP centers, SEXP chols, SEXP gs, SEXP consts,
                        SEXP log_props, SEXP weights, SEXP what, int d,
                        R_xlen_t n, ghmix_mix_model *model) {
  R_xlen_t G = XLENGTH(log_props);
  const double *lp = ghmix_r_doubles(log_props, "log_props");
  ghmix_error err;
  int k;
  if (d < 1 || G < 1 || G > GHMIX_MAX_COMPONENTS)
    Rf_error("internal error: the E-step needs d >= 1 and 1 to %d components",
             GHMIX_MAX_COMPONENTS);
  if (XLENGTH(centers) != d * G || XLENGTH(chols) != (R_xlen_t)d * d * G ||
      XLENGTH(gs) != d * G || XLENGTH(consts) != 5 * G)
    Rf_error("internal error: E-step parameters of the wrong shape");
  model->comp = (ghmix_mix_component *)R_alloc((size_t)G, sizeof(*model->comp));
  for (k = 0; k < (int)G; k++)
    mixg_component(centers, chols, gs, consts, lp, d, k, &model->comp[k]);
  model->shape.d = d;
  model->shape.components = (int)G;
  model->shape.cov = GHMIX_COV_FULL;
  model->shape.factors = 0;
  model->shape.what =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  model->weights = ghmix_r_weights(weights, n);
  if (model->weights != NULL)
    model->shape.what |= GHMIX_ESTEP_WEIGHTS;
  if (ghmix_mix_model_complete(model, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
}

/* Column names of the per-row output: "loglik", then "tau_1" ...
 * "tau_G", "inv_y_1" ..., "y_1" ..., "log_y_1" ... (ghmix_mixg_row_col). */
static void mixg_row_names(SEXP r, int G) {
  static const char *blocks[GHMIX_MIXG_ROW_BLOCKS] = {"loglik", "tau", "inv_y",
                                                      "y", "log_y"};
  SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)ghmix_mixg_row_ncol(G)));
  char buf[32];
  int id, k;
  SET_STRING_ELT(nm, GHMIX_MIXG_ROW_LOGLIK,
                 Rf_mkChar(blocks[GHMIX_MIXG_ROW_LOGLIK]));
  for (id = GHMIX_MIXG_ROW_TAU; id < GHMIX_MIXG_ROW_BLOCKS; id++)
    for (k = 0; k < G; k++) {
      snprintf(buf, sizeof buf, "%s_%d", blocks[id], k + 1);
      SET_STRING_ELT(nm, (R_xlen_t)(ghmix_mixg_row_col(G, id) + (size_t)k),
                     Rf_mkChar(buf));
    }
  SET_VECTOR_ELT(dn, 1, nm);
  Rf_setAttrib(r, R_DimNamesSymbol, dn);
  UNPROTECT(2);
}

double *ghmix_r_mixg_rows(SEXP stats, SEXP rows, int G, R_xlen_t n) {
  SEXP r;
  if (!ghmix_r_flag(rows, "rows"))
    return NULL;
  r = PROTECT(Rf_allocMatrix(REALSXP, (int)n, (int)ghmix_mixg_row_ncol(G)));
  mixg_row_names(r, G);
  Rf_setAttrib(stats, Rf_install("rows"), r);
  UNPROTECT(1);
  return REAL(r);
}

SEXP ghmix_r_mixg_prepare(const ghmix_mix_model *model, SEXP rows, R_xlen_t n,
                          double **row_out) {
  SEXP stats = PROTECT(
      Rf_allocVector(REALSXP, (R_xlen_t)ghmix_estep_nstats(&model->shape)));
  *row_out = ghmix_r_mixg_rows(stats, rows, model->shape.components, n);
  UNPROTECT(1);
  return stats;
}

SEXP ffi_mix_estep_mixture(SEXP x, SEXP centers, SEXP chols, SEXP gs,
                           SEXP consts, SEXP log_props, SEXP weights, SEXP what,
                           SEXP rows, SEXP threads) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int d = Rf_ncols(x), nthreads = ghmix_r_threads(threads);
  R_xlen_t n = Rf_nrows(x);
  ghmix_mix_model model;
  ghmix_error err;
  double *row_out;
  SEXP stats;
  ghmix_r_mixg_model(centers, chols, gs, consts, log_props, weights, what, d, n,
                     &model);
  stats = PROTECT(ghmix_r_mixg_prepare(&model, rows, n, &row_out));
  if (ghmix_mix_estep_mixture_cpu(xp, (size_t)n, (size_t)n, d, &model,
                                  REAL(stats), row_out, nthreads,
                                  &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return stats;
}
