/* .Call glue for dgig(), pgig(), qgig() and rgig(). */
#include <R_ext/Random.h>

#include "core/gig_sample.h"
#include "cpu/gig_cpu.h"
#include "r_ffi.h"

static SEXP dpq(ghmix_gig_fun fun, SEXP x, SEXP p, SEXP a, SEXP b, int flag1,
                int flag2, SEXP threads) {
  SEXP xs[4], out;
  int nthreads = ghmix_r_threads(threads);
  double *px = ghmix_r_doubles(x, "x"), *pp = ghmix_r_doubles(p, "p"),
         *pa = ghmix_r_doubles(a, "a"), *pb = ghmix_r_doubles(b, "b");
  R_xlen_t n;
  ghmix_error err;
  xs[0] = x, xs[1] = p, xs[2] = a, xs[3] = b;
  n = ghmix_r_recycled_length(xs, 4);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (ghmix_gig_dpq_batch(fun, (size_t)n, px, (size_t)XLENGTH(x), pp,
                          (size_t)XLENGTH(p), pa, (size_t)XLENGTH(a), pb,
                          (size_t)XLENGTH(b), flag1, flag2, REAL(out), nthreads,
                          &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

SEXP ffi_dgig(SEXP x, SEXP p, SEXP a, SEXP b, SEXP give_log, SEXP threads) {
  return dpq(GHMIX_GIG_FUN_DENSITY, x, p, a, b, ghmix_r_flag(give_log, "log"),
             0, threads);
}

SEXP ffi_pgig(SEXP q, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads) {
  return dpq(GHMIX_GIG_FUN_CDF, q, p, a, b,
             ghmix_r_flag(lower_tail, "lower.tail"),
             ghmix_r_flag(log_p, "log.p"), threads);
}

SEXP ffi_qgig(SEXP prob, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads) {
  return dpq(GHMIX_GIG_FUN_QUANTILE, prob, p, a, b,
             ghmix_r_flag(lower_tail, "lower.tail"),
             ghmix_r_flag(log_p, "log.p"), threads);
}

/* R's uniform generator, for the core's RNG hook (called between
 * GetRNGstate and PutRNGstate, on R's thread only). */
static double r_unif(void) { return unif_rand(); }

SEXP ffi_rgig(SEXP n, SEXP p, SEXP a, SEXP b) {
  double dn = Rf_asReal(n);
  double *pp = ghmix_r_doubles(p, "p"), *pa = ghmix_r_doubles(a, "a"),
         *pb = ghmix_r_doubles(b, "b");
  R_xlen_t len;
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  if (!(dn >= 0) || dn > (double)R_XLEN_T_MAX)
    Rf_error("internal error: n must be a non-negative count");
  len = (R_xlen_t)dn;
  out = PROTECT(Rf_allocVector(REALSXP, len));
  if (len > 0 && (XLENGTH(p) == 0 || XLENGTH(a) == 0 || XLENGTH(b) == 0))
    Rf_error("internal error: empty parameter vector");
  GetRNGstate();
  st = ghmix_gig_sample((size_t)len, pp, (size_t)XLENGTH(p), pa,
                        (size_t)XLENGTH(a), pb, (size_t)XLENGTH(b), r_unif,
                        REAL(out), &err);
  PutRNGstate();
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
