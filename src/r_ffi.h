/* .Call entry points (registered in init.c) and glue helpers.  Only the
 * src/r_*.c files and init.c include R headers. */
#ifndef GHMIX_R_FFI_H
#define GHMIX_R_FFI_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>

#include "core/status.h"

/* r_gh_dist.c: the seven recycled double vectors of a univariate GH
 * function (x, mu, gamma, sigma, p, a, b) into in[] and len[] (7 each);
 * returns the result length. */
R_xlen_t ghmix_r_gh1_args(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p,
                          SEXP a, SEXP b, const double **in, size_t *len);

/* r_bessel.c */
SEXP ffi_log_besselK(SEXP x, SEXP nu, SEXP gradient, SEXP threads);

/* r_info.c */
SEXP ffi_build_info(void);
SEXP ffi_cuda_devices(void);
SEXP ffi_cuda_require(void);
SEXP ffi_max_threads(void);

/* r_errors.c */

/* Raise err as a classed R condition (does not return): calls the R function
 * ghmix:::abort_status(message, status, index), which signals an error of
 * class c("ghmix_error_<status>", "ghmix_error", "error", "condition"), or
 * an R interrupt for GHMIX_ERR_INTERRUPTED. */
void ghmix_r_stop(const ghmix_error *err);

/* Interrupt hook for the core: nonzero when the user pressed Ctrl-C.  Calls
 * R_CheckUserInterrupt inside R_ToplevelExec so that it cannot longjmp over
 * C code. */
int ghmix_r_interrupt_hook(void);

#endif
