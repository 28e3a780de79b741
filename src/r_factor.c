/* .Call glue for the E-step of a factor-analytic Sigma = F F' + diag(D)
 * (src/core/factor.h; the CPU driver of src/cpu/factor_cpu.h and the CUDA
 * one of src/cuda/ghmix_cuda.h, with its device-resident data), for
 * R/factor_estep.R. */
#include "core/factor.h"
#include "core/mixture_g.h"
#include "cpu/factor_cpu.h"
#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

#include <string.h>

/* The model of the .Call arguments for data of dimension d (its arrays
 * R_alloc'ed); 0 when the parameters are not usable. */
static int factor_model(SEXP center, SEXP loadings, SEXP uniq, SEXP gamma,
                        SEXP pab, SEXP what, int d, ghmix_factor_model *fm) {
  const double *f = ghmix_r_double_matrix(loadings, d, -1, "loadings");
  const double *k = ghmix_r_doubles(pab, "pab");
  int r = Rf_ncols(loadings);
  int flags =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  double *buf;
  if (d < 1 || r >= d)
    Rf_error("internal error: the factor E-step needs d >= 1, 0 <= r < d");
  if (XLENGTH(center) != d || XLENGTH(uniq) != d || XLENGTH(gamma) != d ||
      XLENGTH(pab) != 3)
    Rf_error("internal error: E-step parameters of the wrong shape");
  buf = (double *)R_alloc(ghmix_factor_buffer_size(d, r), sizeof(double));
  return ghmix_factor_model_init(
      d, r, ghmix_r_doubles(center, "center"), f, ghmix_r_doubles(uniq, "uniq"),
      ghmix_r_doubles(gamma, "gamma"), k[0], k[1], k[2], flags, buf, fm);
}

/* The statistics vector of the shape (returned unprotected), with the
 * attributes proj (beta, r x d), logdet, gsg and, when want_rows, rows (an
 * n x 4 matrix, *row_out its data; NULL without). */
static SEXP factor_prepare(const ghmix_factor_model *fm, int weighted,
                           int want_rows, R_xlen_t n, double **row_out) {
  const ghmix_estep_shape shape = ghmix_factor_shape(fm, weighted);
  SEXP stats =
      PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)ghmix_estep_nstats(&shape)));
  SEXP proj = PROTECT(Rf_allocMatrix(REALSXP, fm->r, fm->d));
  memcpy(REAL(proj), fm->proj_t, sizeof(double) * (size_t)fm->r * fm->d);
  Rf_setAttrib(stats, Rf_install("proj"), proj);
  Rf_setAttrib(stats, Rf_install("logdet"), Rf_ScalarReal(fm->logdet));
  Rf_setAttrib(stats, Rf_install("gsg"), Rf_ScalarReal(fm->gsg));
  *row_out = NULL;
  if (want_rows) {
    SEXP r = PROTECT(Rf_allocMatrix(REALSXP, (int)n, GHMIX_ROW_COUNT));
    Rf_setAttrib(stats, Rf_install("rows"), r);
    *row_out = REAL(r);
    UNPROTECT(1);
  }
  UNPROTECT(2);
  return stats;
}

/* The factor E-step (weights NULL or n finite values >= 0; pab = c(p, a,
 * b)): R NULL when the parameters are not usable (ghmix_factor_model_init),
 * else the statistics of src/core/estep.h for the factor shape with the
 * attributes of factor_prepare. */
SEXP ffi_mix_estep_factor(SEXP x, SEXP weights, SEXP center, SEXP loadings,
                          SEXP uniq, SEXP gamma, SEXP pab, SEXP what, SEXP rows,
                          SEXP threads) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int d = Rf_ncols(x), nthreads = ghmix_r_threads(threads);
  int want_rows = ghmix_r_flag(rows, "rows");
  R_xlen_t n = Rf_nrows(x);
  const double *w = ghmix_r_weights(weights, n);
  ghmix_factor_model fm;
  ghmix_error err;
  double *row_out;
  SEXP stats;
  if (!factor_model(center, loadings, uniq, gamma, pab, what, d, &fm))
    return R_NilValue;
  stats = PROTECT(factor_prepare(&fm, w != NULL, want_rows, n, &row_out));
  if (ghmix_factor_estep_cpu(xp, (size_t)n, (size_t)n, &fm, w, REAL(stats),
                             row_out, nthreads, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return stats;
}

/* ---------------------------------------------------------------------
 * The CUDA E-step's device-resident data: an external pointer (tag
 * ghmix_cuda_factor_data, protected value c(n, d, weighted)) whose
 * finalizer frees the device memory; ffi_cuda_factor_data_free frees it
 * at once. */

static SEXP factor_data_tag(void) {
  return Rf_install("ghmix_cuda_factor_data");
}

static void factor_data_finalizer(SEXP ptr) {
  void *h = R_ExternalPtrAddr(ptr);
  if (h != NULL) {
    R_ClearExternalPtr(ptr);
    ghmix_cuda_factor_data_free(h);
  }
}

/* The device data of a handle, its n, d and whether it has weights. */
static void *factor_handle(SEXP handle, int *n, int *d, int *weighted) {
  SEXP dims;
  void *h;
  if (TYPEOF(handle) != EXTPTRSXP ||
      R_ExternalPtrTag(handle) != factor_data_tag())
    Rf_error("internal error: not a CUDA factor E-step data handle");
  dims = R_ExternalPtrProtected(handle);
  *n = (int)REAL(dims)[0];
  *d = (int)REAL(dims)[1];
  *weighted = REAL(dims)[2] != 0;
  h = R_ExternalPtrAddr(handle);
  if (h == NULL)
    Rf_error("the CUDA factor E-step data have been freed");
  return h;
}

/* Attribute "launches" (the kernel launches of the call) on stats. */
static void factor_launches(SEXP stats, int launches) {
  Rf_setAttrib(stats, Rf_install("launches"),
               PROTECT(Rf_ScalarInteger(launches)));
  UNPROTECT(1);
}

/* The rows of the double matrix x and their weights (NULL or n finite
 * values >= 0) on CUDA device `device`. */
SEXP ffi_cuda_factor_data_create(SEXP x, SEXP weights, SEXP device) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int dev = ghmix_r_device(device), n = Rf_nrows(x), d = Rf_ncols(x);
  const double *w = ghmix_r_weights(weights, n);
  void *h = NULL;
  ghmix_error err;
  SEXP ptr, dims = PROTECT(Rf_allocVector(REALSXP, 3));
  REAL(dims)[0] = (double)n;
  REAL(dims)[1] = (double)d;
  REAL(dims)[2] = w != NULL;
  /* the pointer and its finalizer first, so that nothing can leak */
  ptr = PROTECT(R_MakeExternalPtr(NULL, factor_data_tag(), dims));
  R_RegisterCFinalizerEx(ptr, factor_data_finalizer, TRUE);
  if (ghmix_cuda_factor_data_create(xp, (size_t)n, (size_t)n, d, w, dev, &h,
                                    &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  R_SetExternalPtrAddr(ptr, h);
  UNPROTECT(2);
  return ptr;
}

SEXP ffi_cuda_factor_data_free(SEXP handle) {
  if (TYPEOF(handle) != EXTPTRSXP ||
      R_ExternalPtrTag(handle) != factor_data_tag())
    Rf_error("internal error: not a CUDA factor E-step data handle");
  factor_data_finalizer(handle);
  return R_NilValue;
}

/* New weights (n finite values >= 0) for the rows of a handle made with
 * weights. */
SEXP ffi_cuda_factor_data_weights(SEXP handle, SEXP weights) {
  ghmix_error err;
  int n, d, weighted;
  void *h = factor_handle(handle, &n, &d, &weighted);
  const double *w = ghmix_r_weights(weights, n);
  if (w == NULL)
    Rf_error("internal error: no CUDA factor E-step weights given");
  if (ghmix_cuda_factor_data_weights(h, w, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  return R_NilValue;
}

/* The arguments of ffi_mix_estep_factor less x, weights and threads, on the
 * data (and weights) of the handle: the same result, with attribute
 * "launches" (the kernel launches of the call). */
SEXP ffi_cuda_mix_estep_factor(SEXP handle, SEXP center, SEXP loadings,
                               SEXP uniq, SEXP gamma, SEXP pab, SEXP what,
                               SEXP rows) {
  int want_rows = ghmix_r_flag(rows, "rows"), n, d, weighted, launches = 0;
  void *h = factor_handle(handle, &n, &d, &weighted);
  ghmix_factor_model fm;
  ghmix_error err;
  double *row_out;
  SEXP stats;
  if (!factor_model(center, loadings, uniq, gamma, pab, what, d, &fm))
    return R_NilValue;
  stats = PROTECT(factor_prepare(&fm, weighted, want_rows, n, &row_out));
  if (ghmix_cuda_factor_estep(h, &fm, REAL(stats), row_out, &launches, &err) !=
      GHMIX_OK)
    ghmix_r_stop(&err);
  factor_launches(stats, launches);
  UNPROTECT(1);
  return stats;
}

/* The sums of ghmix_cuda_factor_estep_mixture (the mixture's, then each
 * component's as a whole one-component E-step gives them) in the layout of
 * the shape s of G factor components: each component's blocks without the
 * model sums of its own (one: the doubles of a one-component E-step). */
static void factor_mixture_layout(const ghmix_estep_shape *s, size_t one,
                                  const double *sums, double *out) {
  size_t per = ghmix_estep_component_nstats(s);
  int k;
  memcpy(out, sums, sizeof(double) * (size_t)GHMIX_STAT_TAU);
  for (k = 0; k < s->components; k++)
    memcpy(out + ghmix_estep_stat(s, k, GHMIX_STAT_TAU).offset,
           sums + (size_t)GHMIX_STAT_TAU + (size_t)k * one + (one - per),
           sizeof(double) * per);
}

/* The G models of a factor mixture's .Call arguments (comps: a list of G
 * lists of the arguments of ffi_mix_estep_factor, center, loadings,
 * uniquenesses, gamma, pab, what: R's factor_estep_args(); log_props: G)
 * for data of dimension d (R_alloc'ed); NULL when a component's
 * parameters are not usable. */
static ghmix_factor_model *factor_models(SEXP comps, SEXP log_props, int d) {
  ghmix_factor_model *fms;
  int G, k;
  if (TYPEOF(comps) != VECSXP || XLENGTH(comps) < 1 ||
      XLENGTH(comps) > GHMIX_MAX_COMPONENTS ||
      XLENGTH(log_props) != XLENGTH(comps))
    Rf_error("internal error: the factor mixture needs 1 to %d components",
             GHMIX_MAX_COMPONENTS);
  G = (int)XLENGTH(comps);
  fms = (ghmix_factor_model *)R_alloc((size_t)G, sizeof(ghmix_factor_model));
  for (k = 0; k < G; k++) {
    SEXP a = VECTOR_ELT(comps, k);
    if (TYPEOF(a) != VECSXP || XLENGTH(a) != 6)
      Rf_error("internal error: a factor mixture component's arguments");
    if (!factor_model(VECTOR_ELT(a, 0), VECTOR_ELT(a, 1), VECTOR_ELT(a, 2),
                      VECTOR_ELT(a, 3), VECTOR_ELT(a, 4), VECTOR_ELT(a, 5), d,
                      &fms[k]))
      return NULL;
    if (fms[k].r != fms[0].r)
      Rf_error("internal error: factor mixture components of different r");
  }
  return fms;
}

/* The statistics vector of G factor components like fms[0] (returned
 * unprotected), with attribute "rows" when asked (*row_out: its data). */
static SEXP factor_mixture_prepare(const ghmix_factor_model *fms, int G,
                                   SEXP rows, R_xlen_t n, double **row_out) {
  ghmix_estep_shape shape = ghmix_factor_shape(fms, 1);
  SEXP out;
  shape.components = G;
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)ghmix_estep_nstats(&shape)));
  *row_out = ghmix_r_mixg_rows(out, rows, G, n);
  UNPROTECT(1);
  return out;
}

/* The E-step of a mixture of G factor-analytic components on the rows of
 * x (weights NULL or n finite values >= 0) in one pass
 * (ghmix_factor_estep_mixture_cpu): comps and log_props as
 * factor_models() takes them, what (the flags), rows (flag), threads.  R
 * NULL when a component's parameters are not usable; else the statistics
 * of G factor components (src/core/estep.h: the mixture's sums, then each
 * component's blocks, with row weights w tau_k), with attribute "rows"
 * when asked (as those of ffi_mix_estep_mixture). */
SEXP ffi_factor_estep_mixture(SEXP x, SEXP weights, SEXP comps, SEXP log_props,
                              SEXP what, SEXP rows, SEXP threads) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  const double *lp = ghmix_r_doubles(log_props, "log_props");
  int d = Rf_ncols(x), nthreads = ghmix_r_threads(threads);
  int flags =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  R_xlen_t n = Rf_nrows(x);
  const double *w = ghmix_r_weights(weights, n);
  ghmix_factor_model *fms = factor_models(comps, log_props, d);
  ghmix_error err;
  double *row_out;
  SEXP out;
  if (fms == NULL)
    return R_NilValue;
  out = PROTECT(
      factor_mixture_prepare(fms, (int)XLENGTH(comps), rows, n, &row_out));
  if (ghmix_factor_estep_mixture_cpu(
          xp, (size_t)n, (size_t)n, (int)XLENGTH(comps), fms, lp, flags, w,
          REAL(out), row_out, nthreads, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* The same on the data of the handle, whose weights are the rows' (none:
 * 1), in one pass on the GPU (ghmix_cuda_factor_estep_mixture), with
 * attribute "launches". */
SEXP ffi_cuda_factor_estep_mixture(SEXP handle, SEXP comps, SEXP log_props,
                                   SEXP what, SEXP rows) {
  int n, d, weighted, G = (int)XLENGTH(comps), launches = 0;
  int flags =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  void *h = factor_handle(handle, &n, &d, &weighted);
  const double *lp = ghmix_r_doubles(log_props, "log_props");
  ghmix_factor_model *fms = factor_models(comps, log_props, d);
  ghmix_estep_shape shape;
  ghmix_error err;
  double *row_out, *sums;
  size_t one;
  SEXP out;
  if (fms == NULL)
    return R_NilValue;
  shape = ghmix_factor_shape(&fms[0], 1);
  one = ghmix_estep_nstats(&shape);
  sums = (double *)R_alloc((size_t)GHMIX_STAT_TAU + (size_t)G * one,
                           sizeof(double));
  shape.components = G;
  out = PROTECT(factor_mixture_prepare(fms, G, rows, n, &row_out));
  if (ghmix_cuda_factor_estep_mixture(h, G, fms, lp, flags, sums, row_out,
                                      &launches, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  factor_mixture_layout(&shape, one, sums, REAL(out));
  (void)weighted;
  factor_launches(out, launches);
  UNPROTECT(1);
  return out;
}
