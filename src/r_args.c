/* The glue's argument checks, shared by every src/r_*.c file.  The R
 * callers validate what users pass (with errors that name the argument), so
 * a failure here is a bug in R/ and says "internal error". */
#include "r_ffi.h"

int ghmix_r_threads(SEXP threads) {
  int n = Rf_asInteger(threads);
  if (n == NA_INTEGER || n < 1)
    Rf_error("internal error: threads must be a positive integer");
  return n;
}

int ghmix_r_device(SEXP device) {
  int d = Rf_asInteger(device);
  if (d == NA_INTEGER || d < 0)
    Rf_error("internal error: device must be a non-negative integer");
  return d;
}

int ghmix_r_device_or_cpu(SEXP device) {
  return device == R_NilValue ? GHMIX_R_CPU : ghmix_r_device(device);
}

int ghmix_r_flag(SEXP x, const char *what) {
  int v = Rf_asLogical(x);
  if (v == NA_LOGICAL)
    Rf_error("internal error: %s must be TRUE or FALSE", what);
  return v;
}

int ghmix_r_int(SEXP x, const char *what, int lo, int hi) {
  int v = Rf_asInteger(x);
  if (v == NA_INTEGER || v < lo || v > hi)
    Rf_error("internal error: %s must be an integer in [%d, %d]", what, lo, hi);
  return v;
}

double *ghmix_r_doubles(SEXP x, const char *what) {
  if (TYPEOF(x) != REALSXP)
    Rf_error("internal error: %s must be a double vector", what);
  return REAL(x);
}

double *ghmix_r_double_matrix(SEXP x, R_xlen_t nrow, R_xlen_t ncol,
                              const char *what) {
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) ||
      (nrow >= 0 && (R_xlen_t)Rf_nrows(x) != nrow) ||
      (ncol >= 0 && (R_xlen_t)Rf_ncols(x) != ncol))
    Rf_error("internal error: %s must be a double matrix of the right shape",
             what);
  return REAL(x);
}

R_xlen_t ghmix_r_recycled_length(const SEXP *xs, int k) {
  R_xlen_t n = 0;
  int i;
  for (i = 0; i < k; i++) {
    R_xlen_t m = XLENGTH(xs[i]);
    if (m == 0)
      return 0;
    if (m > n)
      n = m;
  }
  return n;
}

const double *ghmix_r_weights(SEXP w, R_xlen_t n) {
  const double *v;
  R_xlen_t i;
  if (w == R_NilValue)
    return NULL;
  if (TYPEOF(w) != REALSXP || XLENGTH(w) != n)
    Rf_error("internal error: weights must be NULL or %lld doubles",
             (long long)n);
  v = REAL(w);
  for (i = 0; i < n; i++)
    if (!(isfinite(v[i]) && v[i] >= 0))
      Rf_error("internal error: weights must be finite and >= 0");
  return v;
}
