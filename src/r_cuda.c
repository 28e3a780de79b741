/* .Call glue for the CUDA backend (src/cuda/ghmix_cuda.h): the same results
 * as the CPU entry points of r_bessel.c, r_gig_solve.c, r_gh_dist.c (the
 * density) and r_mixture.c (the rows of an E-step), computed on a GPU, and
 * the device-resident data of the E-step.  The R callers validate
 * every argument first (so both backends give the same errors for bad
 * input); the checks here only guard against bugs in R/.  In a CPU-only
 * build the functions of ghmix_cuda.h are the stubs of cuda_stub.c and each
 * entry point signals ghmix_error_cuda_not_built.  The E-step and row
 * entry points unpack their model with r_mixture.c's ghmix_r_mix_model. */
#include <limits.h>

#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"
#include "r_gig_solve.h"

/* log_besselK(backend = "cuda"): as ffi_log_besselK. */
SEXP ffi_cuda_log_besselK(SEXP x, SEXP nu, SEXP gradient, SEXP device) {
  R_xlen_t nx, nnu, n;
  int want_grad, dev = ghmix_r_device(device);
  double *gx = NULL, *gnu = NULL;
  SEXP out, grad = R_NilValue;
  ghmix_error err;

  if (TYPEOF(x) != REALSXP || TYPEOF(nu) != REALSXP)
    Rf_error("internal error: x and nu must be double vectors");
  want_grad = Rf_asLogical(gradient);
  if (want_grad == NA_LOGICAL)
    Rf_error("internal error: gradient must be TRUE or FALSE");
  nx = XLENGTH(x);
  nnu = XLENGTH(nu);
  n = (nx == 0 || nnu == 0) ? 0 : (nx > nnu ? nx : nnu);
  if (want_grad && n > INT_MAX)
    Rf_error("gradient = TRUE supports at most %d values", INT_MAX);

  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (want_grad) {
    grad = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 2));
    gx = REAL(grad);
    gnu = gx + n;
  }
  if (ghmix_cuda_bessel_logk_batch((size_t)n, REAL(x), (size_t)nx, REAL(nu),
                                   (size_t)nnu, REAL(out), gx, gnu, dev,
                                   &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  if (want_grad) {
    Rf_setAttrib(out, Rf_install("gradient"), grad);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}

/* gig_expectation(backend = "cuda"): as ffi_gig_expectation. */
SEXP ffi_cuda_gig_expectation(SEXP p, SEXP a, SEXP b, SEXP device) {
  R_xlen_t n = 0, lens[3];
  int dev = ghmix_r_device(device), i;
  SEXP out;
  ghmix_error err;
  if (TYPEOF(p) != REALSXP || TYPEOF(a) != REALSXP || TYPEOF(b) != REALSXP)
    Rf_error("internal error: p, a and b must be double vectors");
  lens[0] = XLENGTH(p), lens[1] = XLENGTH(a), lens[2] = XLENGTH(b);
  for (i = 0; i < 3; i++)
    if (lens[i] > n)
      n = lens[i];
  if (lens[0] == 0 || lens[1] == 0 || lens[2] == 0)
    n = 0;
  if (n > INT_MAX)
    Rf_error("gig_expectation() supports at most %d values", INT_MAX);
  out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 3));
  if (ghmix_cuda_gig_expectation_batch(
          (size_t)n, REAL(p), (size_t)lens[0], REAL(a), (size_t)lens[1],
          REAL(b), (size_t)lens[2], REAL(out), REAL(out) + n, REAL(out) + 2 * n,
          dev, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* gig_from_expectation(backend = "cuda"): as ffi_gig_from_expectation,
 * the same list. */
SEXP ffi_cuda_gig_from_expectation(SEXP eta, SEXP start, SEXP max_iter,
                                   SEXP tol, SEXP jacobian, SEXP device) {
  ghmix_gig_solve_control ctrl;
  ghmix_error err;
  ghmix_status st;
  int dev = ghmix_r_device(device);
  double *jp;
  SEXP out = ghmix_r_gig_solve_prepare(eta, start, max_iter, tol, jacobian,
                                       &ctrl, &jp);
  R_xlen_t n = Rf_nrows(eta);
  st = ghmix_cuda_gig_from_expectation_batch(
      (size_t)n, REAL(eta), start == R_NilValue ? NULL : REAL(start), &ctrl,
      REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)),
      REAL(VECTOR_ELT(out, 2)), INTEGER(VECTOR_ELT(out, 3)),
      REAL(VECTOR_ELT(out, 4)), LOGICAL(VECTOR_ELT(out, 5)),
      REAL(VECTOR_ELT(out, 6)), INTEGER(VECTOR_ELT(out, 7)),
      INTEGER(VECTOR_ELT(out, 8)), jp, dev, &err);
  /* a bad row (index >= 0) is reported by R from `infeasible`, as for the
   * CPU; anything else (no device, CUDA failures) is an error here */
  if (st != GHMIX_OK &&
      !((st == GHMIX_ERR_INFEASIBLE || st == GHMIX_ERR_DOMAIN) &&
        err.index >= 0))
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

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

SEXP ffi_cuda_mix_data_free(SEXP handle) {
  if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != mix_data_tag())
    Rf_error("internal error: not a CUDA E-step data handle");
  mix_data_finalizer(handle);
  return R_NilValue;
}

/* The arguments of ffi_mix_estep (r_mixture.c) on the data of the handle;
 * the statistics (the layout of src/core/estep.h) carry attribute
 * "launches", the kernel launches of the call. */
SEXP ffi_cuda_mix_estep(SEXP handle, SEXP center, SEXP chol, SEXP g,
                        SEXP consts, SEXP what, SEXP rows) {
  int n, d, launches = 0;
  void *h = mix_data_get(handle, &n, &d);
  ghmix_r_estep e;
  ghmix_error err;
  SEXP l, stats = PROTECT(ghmix_r_estep_prepare(center, chol, g, consts, what,
                                                rows, d, n, &e));
  if (ghmix_cuda_mix_estep(h, &e.model, REAL(stats), e.row_out, &launches,
                           &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  l = PROTECT(Rf_ScalarInteger(launches));
  Rf_setAttrib(stats, Rf_install("launches"), l);
  UNPROTECT(2);
  return stats;
}

/* ---------------------------------------------------------------------
 * Densities and posterior moments per row (one launch each). */

/* dgh(backend = "cuda") for a univariate x: as ffi_dgh1 (R's recycling of
 * the seven double vectors x, mu, gamma, sigma, p, a, b). */
SEXP ffi_cuda_dgh1(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a,
                   SEXP b, SEXP give_log, SEXP device) {
  SEXP out;
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS];
  int dev = ghmix_r_device(device), lg = Rf_asLogical(give_log);
  R_xlen_t n;
  ghmix_error err;
  if (lg == NA_LOGICAL)
    Rf_error("internal error: log must be TRUE or FALSE");
  n = ghmix_r_gh1_args(x, mu, gamma, sigma, p, a, b, in, len);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (ghmix_cuda_gh1_density_batch((size_t)n, in, len, lg, REAL(out), dev,
                                   &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

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
