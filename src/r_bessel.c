/* .Call glue for log_besselK(). */
#include <limits.h>

#include "cpu/bessel_cpu.h"
#include "r_ffi.h"

SEXP ffi_log_besselK(SEXP x, SEXP nu, SEXP gradient, SEXP threads) {
  R_xlen_t nx, nnu, n;
  int want_grad, nthreads;
  double *gx = NULL, *gnu = NULL;
  SEXP out, grad = R_NilValue;
  ghmix_error err;
  ghmix_status st;

  if (TYPEOF(x) != REALSXP || TYPEOF(nu) != REALSXP)
    Rf_error("internal error: x and nu must be double vectors");
  want_grad = Rf_asLogical(gradient);
  if (want_grad == NA_LOGICAL)
    Rf_error("internal error: gradient must be TRUE or FALSE");
  nthreads = Rf_asInteger(threads);
  if (nthreads == NA_INTEGER || nthreads < 1)
    Rf_error("internal error: threads must be a positive integer");

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
  st = ghmix_bessel_logk_batch((size_t)n, REAL(x), (size_t)nx, REAL(nu),
                               (size_t)nnu, REAL(out), gx, gnu, nthreads, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  if (want_grad) {
    Rf_setAttrib(out, Rf_install("gradient"), grad);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}
