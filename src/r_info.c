/* .Call glue for ghmix_info(), ghmix_threads(), the BLAS's threads and the
 * backend checks. */
#include <limits.h>

#include "cpu/blas_threads.h"
#include "cpu/pool.h"
#include "cpu/threads.h"
#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

static SEXP named_list(int n, const char **names) {
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, n));
  for (int i = 0; i < n; i++)
    SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
  Rf_setAttrib(out, R_NamesSymbol, nms);
  UNPROTECT(2);
  return out;
}

SEXP ffi_build_info(void) {
  const char *names[] = {"openmp",         "openmp_version", "cuda",
                         "cuda_version",   "cuda_archs",     "max_threads",
                         "default_threads"};
  SEXP out = PROTECT(named_list(7, names));
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(ghmix_openmp_built()));
  SET_VECTOR_ELT(out, 1, Rf_ScalarInteger(ghmix_openmp_version()));
  SET_VECTOR_ELT(out, 2, Rf_ScalarLogical(ghmix_cuda_built()));
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(ghmix_cuda_toolkit_version()));
  SET_VECTOR_ELT(out, 4, Rf_mkString(ghmix_cuda_archs()));
  SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(ghmix_max_threads()));
  SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(ghmix_default_threads()));
  UNPROTECT(1);
  return out;
}

SEXP ffi_cuda_devices(void) {
  const char *names[] = {"available",      "reason",   "runtime_version",
                         "driver_version", "name",     "memory_bytes",
                         "cc_major",       "cc_minor", "multiprocessors"};
  const SEXPTYPE types[] = {STRSXP, REALSXP, INTSXP, INTSXP, INTSXP};
  ghmix_error err;
  int runtime = 0, driver = 0, count = 0, i, k;
  SEXP out = PROTECT(named_list(9, names));
  ghmix_status st = ghmix_cuda_versions(&runtime, &driver, &err);

  SET_VECTOR_ELT(out, 2,
                 Rf_ScalarInteger(st == GHMIX_OK ? runtime : NA_INTEGER));
  SET_VECTOR_ELT(out, 3,
                 Rf_ScalarInteger(st == GHMIX_OK ? driver : NA_INTEGER));
  if (st == GHMIX_OK)
    st = ghmix_cuda_device_count(&count, &err);
  if (st != GHMIX_OK)
    count = 0;
  for (k = 0; k < 5; k++)
    SET_VECTOR_ELT(out, 4 + k, Rf_allocVector(types[k], count));
  for (i = 0; st == GHMIX_OK && i < count; i++) {
    ghmix_cuda_device dev;
    st = ghmix_cuda_device_info(i, &dev, &err);
    if (st != GHMIX_OK)
      break;
    SET_STRING_ELT(VECTOR_ELT(out, 4), i, Rf_mkChar(dev.name));
    REAL(VECTOR_ELT(out, 5))[i] = dev.total_mem_bytes;
    INTEGER(VECTOR_ELT(out, 6))[i] = dev.cc_major;
    INTEGER(VECTOR_ELT(out, 7))[i] = dev.cc_minor;
    INTEGER(VECTOR_ELT(out, 8))[i] = dev.multiprocessors;
  }
  if (st != GHMIX_OK) /* no usable device: report none, and why */
    for (k = 0; k < 5; k++)
      SET_VECTOR_ELT(out, 4 + k, Rf_allocVector(types[k], 0));
  SET_VECTOR_ELT(out, 0, Rf_ScalarLogical(st == GHMIX_OK));
  SET_VECTOR_ELT(out, 1,
                 st == GHMIX_OK ? Rf_ScalarString(NA_STRING)
                                : Rf_mkString(err.message));
  UNPROTECT(1);
  return out;
}

SEXP ffi_cuda_require(void) {
  ghmix_error err;
  int count = 0;
  if (ghmix_cuda_device_count(&count, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  return Rf_ScalarInteger(count);
}

SEXP ffi_max_threads(void) { return Rf_ScalarInteger(ghmix_max_threads()); }

/* The BLAS (OpenBLAS) on one thread: the count to restore (0: nothing was
 * changed), for ffi_blas_threads_restore. */
SEXP ffi_blas_threads_single(void) {
  return Rf_ScalarInteger(ghmix_blas_threads_single());
}

SEXP ffi_blas_threads_restore(SEXP previous) {
  ghmix_blas_threads_restore(ghmix_r_int(previous, "previous", 0, INT_MAX));
  return R_NilValue;
}

/* Ends ghmix's worker threads before the library is unloaded (.onUnload):
 * none may sleep inside its code once it is unmapped. */
SEXP ffi_pool_stop(void) {
  ghmix_pool_stop();
  return R_NilValue;
}
