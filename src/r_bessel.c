/* .Call glue for log_besselK(), on the CPU or a CUDA device. */
#include <limits.h>

#include "cpu/bessel_cpu.h"
#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

/* device: NULL for the CPU (with `threads`), else a CUDA device index. */
SEXP ffi_log_besselK(SEXP x, SEXP nu, SEXP gradient, SEXP threads,
                     SEXP device) {
  SEXP xs[2], out, grad = R_NilValue;
  int want_grad = ghmix_r_flag(gradient, "gradient");
  int nthreads = ghmix_r_threads(threads), dev = ghmix_r_device_or_cpu(device);
  double *px = ghmix_r_doubles(x, "x"), *pnu = ghmix_r_doubles(nu, "nu");
  double *gx = NULL, *gnu = NULL;
  size_t nx = (size_t)XLENGTH(x), nnu = (size_t)XLENGTH(nu);
  R_xlen_t n;
  ghmix_error err;
  ghmix_status st;

  xs[0] = x;
  xs[1] = nu;
  n = ghmix_r_recycled_length(xs, 2);
  if (want_grad && n > INT_MAX)
    Rf_error("gradient = TRUE supports at most %d values", INT_MAX);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (want_grad) {
    grad = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 2));
    gx = REAL(grad);
    gnu = gx + n;
  }
  st = dev == GHMIX_R_CPU
           ? ghmix_bessel_logk_batch((size_t)n, px, nx, pnu, nnu, REAL(out), gx,
                                     gnu, nthreads, &err)
           : ghmix_cuda_bessel_logk_batch((size_t)n, px, nx, pnu, nnu,
                                          REAL(out), gx, gnu, dev, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  if (want_grad) {
    Rf_setAttrib(out, Rf_install("gradient"), grad);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return out;
}
