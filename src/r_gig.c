/* .Call glue for dgig(), pgig(), qgig() and rgig(). */
#include <R_ext/Random.h>

#include "core/gig.h"
#include "cpu/gig_cpu.h"
#include "r_ffi.h"

SEXP ffi_dgig(SEXP x, SEXP p, SEXP a, SEXP b, SEXP give_log, SEXP threads);
SEXP ffi_pgig(SEXP q, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads);
SEXP ffi_qgig(SEXP prob, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads);
SEXP ffi_rgig(SEXP n, SEXP p, SEXP a, SEXP b);

static int flag_arg(SEXP x, const char *what) {
  int v = Rf_asLogical(x);
  if (v == NA_LOGICAL)
    Rf_error("internal error: %s must be TRUE or FALSE", what);
  return v;
}

static void check_double(SEXP x, const char *what) {
  if (TYPEOF(x) != REALSXP)
    Rf_error("internal error: %s must be a double vector", what);
}

static SEXP dpq(ghmix_gig_fun fun, SEXP x, SEXP p, SEXP a, SEXP b, int flag1,
                int flag2, SEXP threads) {
  R_xlen_t nx, np, na, nb, n;
  int nthreads;
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  check_double(x, "x");
  check_double(p, "p");
  check_double(a, "a");
  check_double(b, "b");
  nthreads = Rf_asInteger(threads);
  if (nthreads == NA_INTEGER || nthreads < 1)
    Rf_error("internal error: threads must be a positive integer");
  nx = XLENGTH(x);
  np = XLENGTH(p);
  na = XLENGTH(a);
  nb = XLENGTH(b);
  if (nx == 0 || np == 0 || na == 0 || nb == 0) {
    n = 0;
  } else {
    n = nx;
    n = np > n ? np : n;
    n = na > n ? na : n;
    n = nb > n ? nb : n;
  }
  out = PROTECT(Rf_allocVector(REALSXP, n));
  st = ghmix_gig_dpq_batch(fun, (size_t)n, REAL(x), (size_t)nx, REAL(p),
                           (size_t)np, REAL(a), (size_t)na, REAL(b), (size_t)nb,
                           flag1, flag2, REAL(out), nthreads, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

SEXP ffi_dgig(SEXP x, SEXP p, SEXP a, SEXP b, SEXP give_log, SEXP threads) {
  return dpq(GHMIX_GIG_FUN_DENSITY, x, p, a, b, flag_arg(give_log, "log"), 0,
             threads);
}

SEXP ffi_pgig(SEXP q, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads) {
  return dpq(GHMIX_GIG_FUN_CDF, q, p, a, b, flag_arg(lower_tail, "lower.tail"),
             flag_arg(log_p, "log.p"), threads);
}

SEXP ffi_qgig(SEXP prob, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads) {
  return dpq(GHMIX_GIG_FUN_QUANTILE, prob, p, a, b,
             flag_arg(lower_tail, "lower.tail"), flag_arg(log_p, "log.p"),
             threads);
}

/* R's uniform generator, for the core's RNG hook (called between
 * GetRNGstate and PutRNGstate, on R's thread only). */
static double r_unif(void) { return unif_rand(); }

SEXP ffi_rgig(SEXP n, SEXP p, SEXP a, SEXP b) {
  double dn;
  R_xlen_t len;
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  check_double(p, "p");
  check_double(a, "a");
  check_double(b, "b");
  dn = Rf_asReal(n);
  if (!(dn >= 0) || dn > (double)R_XLEN_T_MAX)
    Rf_error("internal error: n must be a non-negative count");
  len = (R_xlen_t)dn;
  out = PROTECT(Rf_allocVector(REALSXP, len));
  if (len > 0 && (XLENGTH(p) == 0 || XLENGTH(a) == 0 || XLENGTH(b) == 0))
    Rf_error("internal error: empty parameter vector");
  GetRNGstate();
  st = ghmix_gig_sample((size_t)len, REAL(p), (size_t)XLENGTH(p), REAL(a),
                        (size_t)XLENGTH(a), REAL(b), (size_t)XLENGTH(b), r_unif,
                        REAL(out), &err);
  PutRNGstate();
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
