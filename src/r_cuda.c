/* .Call glue for the CUDA backend (src/cuda/ghmix_cuda.h) of the mixture:
 * the same results as the CPU entry points of r_mixture.c (the rows of an
 * E-step), computed on a GPU, and the device-resident data of the E-step.
 * (log K, the GIG expectation map and solver and the univariate GH density
 * take the device in their own entry points: r_bessel.c, r_gig_solve.c,
 * r_gh_dist.c.)  The R callers validate
 * every argument first (so both backends give the same errors for bad
 * input); the checks here only guard against bugs in R/.  In a CPU-only
 * build the functions of ghmix_cuda.h are the stubs of cuda_stub.c and each
 * entry point signals ghmix_error_cuda_not_built.  The E-step and row
 * entry points unpack their model with r_mixture.c's ghmix_r_mix_model. */
#include <limits.h>

#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

/* ---------------------------------------------------------------------
 * The E-step's device-resident data: an external pointer (tag
 * ghmix_cuda_mix_data, protected value c(n, d)) whose finalizer frees the
 * device memory; ffi_cuda_mix_data_free frees it at once (e.g. from
 * on.exit() at the end of a fit). */

static SEXP mix_data_tag(void) { return Rf_install("ghmix_cuda_mix_data"); }

static void mix_data_finalizer(SEXP ptr) {
  void *h = R_ExternalPtrAddr(ptr);
  if (h != NULL) {
    R_ClearExternalPtr(ptr);
    ghmix_cuda_mix_data_free(h);
  }
}

SEXP ffi_cuda_mix_data_create(SEXP x, SEXP device) {
  int dev = ghmix_r_device(device);
  void *h = NULL;
  ghmix_error err;
  SEXP ptr, dims;
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x))
    Rf_error("internal error: x must be a double matrix");
  dims = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(dims)[0] = (double)Rf_nrows(x);
  REAL(dims)[1] = (double)Rf_ncols(x);
  /* the pointer and its finalizer exist before the device memory, so
   * that nothing can leak if R jumps out in between */
  ptr = PROTECT(R_MakeExternalPtr(NULL, mix_data_tag(), dims));
  R_RegisterCFinalizerEx(ptr, mix_data_finalizer, TRUE);
  if (ghmix_cuda_mix_data_create(REAL(x), (size_t)Rf_nrows(x),
                                 (size_t)Rf_nrows(x), Rf_ncols(x), dev, &h,
                                 &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  R_SetExternalPtrAddr(ptr, h);
  UNPROTECT(2);
  return ptr;
}

static void *mix_data_get(SEXP handle, int *n, int *d) {
  SEXP dims;
  void *h;
  if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != mix_data_tag())
    Rf_error("internal error: not a CUDA E-step data handle");
  dims = R_ExternalPtrProtected(handle);
  *n = (int)REAL(dims)[0];
  *d = (int)REAL(dims)[1];
  h = R_ExternalPtrAddr(handle);
  if (h == NULL)
    Rf_error("the CUDA E-step data have been freed");
  return h;
}

/* Gives the data of the handle row weights (n finite values >= 0, copied
 * to the device once; NULL: none), which every E-step on the handle then
 * uses.  The vector is kept as attribute "weights" of the pointer's
 * protected value, whence ffi_cuda_mix_estep gives the model the weights
 * flag. */
SEXP ffi_cuda_mix_data_weights(SEXP handle, SEXP weights) {
  int n, d;
  void *h = mix_data_get(handle, &n, &d);
  const double *w = ghmix_r_weights(weights, n);
  ghmix_error err;
  if (ghmix_cuda_mix_data_weights(h, w, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  Rf_setAttrib(R_ExternalPtrProtected(handle), Rf_install("weights"), weights);
  return R_NilValue;
}

SEXP ffi_cuda_mix_data_free(SEXP handle) {
  if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != mix_data_tag())
    Rf_error("internal error: not a CUDA E-step data handle");
  mix_data_finalizer(handle);
  return R_NilValue;
}

/* Attribute "launches" (the kernel launches of the call) on stats. */
static void set_launches(SEXP stats, int launches) {
  SEXP l = PROTECT(Rf_ScalarInteger(launches));
  Rf_setAttrib(stats, Rf_install("launches"), l);
  UNPROTECT(1);
}

/* The arguments of ffi_mix_estep (r_mixture.c) on the data of the handle
 * (with its weights, ffi_cuda_mix_data_weights);
 * the statistics (the layout of src/core/estep.h) carry attribute
 * "launches", the kernel launches of the call. */
SEXP ffi_cuda_mix_estep(SEXP handle, SEXP center, SEXP chol, SEXP g,
                        SEXP consts, SEXP what, SEXP rows) {
  int n, d, launches = 0;
  void *h = mix_data_get(handle, &n, &d);
  ghmix_r_estep e;
  ghmix_error err;
  SEXP stats = PROTECT(
      ghmix_r_estep_prepare(center, chol, g, consts, what, rows, d, n, &e));
  ghmix_r_mix_weights(
      Rf_getAttrib(R_ExternalPtrProtected(handle), Rf_install("weights")), n,
      &e.model);
  if (ghmix_cuda_mix_estep(h, &e.model, REAL(stats), e.row_out, &launches,
                           &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  set_launches(stats, launches);
  UNPROTECT(1);
  return stats;
}

/* The arguments of ffi_mix_estep_mixture (r_mix_estep.c, less threads) on
 * the data of the handle, with attribute "launches" as above. */
SEXP ffi_cuda_mix_estep_mixture(SEXP handle, SEXP centers, SEXP chols, SEXP gs,
                                SEXP consts, SEXP log_props, SEXP weights,
                                SEXP what, SEXP rows) {
  int n, d, launches = 0;
  void *h = mix_data_get(handle, &n, &d);
  ghmix_mix_model model;
  ghmix_error err;
  double *row_out;
  SEXP stats;
  ghmix_r_mixg_model(centers, chols, gs, consts, log_props, weights, what, d, n,
                     &model);
  stats = PROTECT(ghmix_r_mixg_prepare(&model, rows, n, &row_out));
  if (ghmix_cuda_mix_estep_mixture(h, &model, REAL(stats), row_out, &launches,
                                   &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  set_launches(stats, launches);
  UNPROTECT(1);
  return stats;
}

/* ---------------------------------------------------------------------
 * Densities and posterior moments per row (one launch each). */

/* The mixture at the rows of the double matrix x, on the GPU: one thread
 * per row solves z = L^-1 (x_i - center) and runs ghmix_mix_row.  center,
 * chol, g, consts and what as for ffi_cuda_mix_estep.  moments = FALSE:
 * the n densities (log f with give_log), as ffi_dgh_rows from the Q and B
 * of the same parameters (dgh() for a multivariate x); moments = TRUE: the
 * n x 4 matrix of ffi_mix_estep's rows, log f, E[1/Y|x], E[Y|x], E[log
 * Y|x] (predict() and fitted() of a fit). */
SEXP ffi_cuda_mix_rows(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts,
                       SEXP what, SEXP moments, SEXP give_log, SEXP device) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int dev = ghmix_r_device(device), want_mom = ghmix_r_flag(moments, "moments"),
      lg = ghmix_r_flag(give_log, "log"), n = Rf_nrows(x), d = Rf_ncols(x);
  ghmix_mix_component comp;
  ghmix_mix_model model;
  ghmix_error err;
  SEXP out;
  ghmix_r_mix_model(center, chol, g, consts, what, d, &comp, &model);
  out = PROTECT(want_mom ? Rf_allocMatrix(REALSXP, n, GHMIX_ROW_COUNT)
                         : Rf_allocVector(REALSXP, n));
  if (ghmix_cuda_mix_rows(xp, (size_t)n, (size_t)n, d, &model, lg,
                          want_mom ? GHMIX_ROW_COUNT : 1, REAL(out), dev,
                          &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
