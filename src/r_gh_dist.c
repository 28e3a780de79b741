/* .Call glue for dgh(), pgh(), qgh() (the univariate functions) and the
 * multivariate density from the quadratic forms R computes. */
#include "cpu/gh_dist_cpu.h"
#include "r_ffi.h"

SEXP ffi_dgh1(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
              SEXP give_log, SEXP threads);
SEXP ffi_pgh(SEXP q, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads);
SEXP ffi_qgh(SEXP prob, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads);
SEXP ffi_dgh_rows(SEXP Q, SEXP B, SEXP d, SEXP p, SEXP a, SEXP b, SEXP gSg,
                  SEXP logdet, SEXP give_log, SEXP threads);

static int gh_flag(SEXP x, const char *what) {
  int v = Rf_asLogical(x);
  if (v == NA_LOGICAL)
    Rf_error("internal error: %s must be TRUE or FALSE", what);
  return v;
}

static int gh_threads(SEXP threads) {
  int n = Rf_asInteger(threads);
  if (n == NA_INTEGER || n < 1)
    Rf_error("internal error: threads must be a positive integer");
  return n;
}

/* The seven recycled double vectors (x, mu, gamma, sigma, p, a, b) of a
 * univariate GH function: their data and lengths, and the result length
 * (the longest, or 0 if any is empty). */
R_xlen_t ghmix_r_gh1_args(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p,
                          SEXP a, SEXP b, const double **in, size_t *len) {
  SEXP args[GHMIX_GH1_NARGS];
  R_xlen_t n = 0;
  int k, empty = 0;
  args[0] = x;
  args[1] = mu;
  args[2] = gamma;
  args[3] = sigma;
  args[4] = p;
  args[5] = a;
  args[6] = b;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if (TYPEOF(args[k]) != REALSXP)
      Rf_error("internal error: argument %d must be a double vector", k + 1);
    in[k] = REAL(args[k]);
    len[k] = (size_t)XLENGTH(args[k]);
    if (len[k] == 0)
      empty = 1;
    if (XLENGTH(args[k]) > n)
      n = XLENGTH(args[k]);
  }
  return empty ? 0 : n;
}

static SEXP gh1_dpq(ghmix_gh_fun fun, SEXP x, SEXP mu, SEXP gamma, SEXP sigma,
                    SEXP p, SEXP a, SEXP b, int flag1, int flag2,
                    SEXP threads) {
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS];
  int nthreads = gh_threads(threads);
  R_xlen_t n = ghmix_r_gh1_args(x, mu, gamma, sigma, p, a, b, in, len);
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  out = PROTECT(Rf_allocVector(REALSXP, n));
  st = ghmix_gh1_dpq_batch(fun, (size_t)n, in, len, flag1, flag2, REAL(out),
                           nthreads, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

SEXP ffi_dgh1(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
              SEXP give_log, SEXP threads) {
  return gh1_dpq(GHMIX_GH_FUN_DENSITY, x, mu, gamma, sigma, p, a, b,
                 gh_flag(give_log, "log"), 0, threads);
}

SEXP ffi_pgh(SEXP q, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads) {
  return gh1_dpq(GHMIX_GH_FUN_CDF, q, mu, gamma, sigma, p, a, b,
                 gh_flag(lower_tail, "lower.tail"), gh_flag(log_p, "log.p"),
                 threads);
}

SEXP ffi_qgh(SEXP prob, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads) {
  return gh1_dpq(GHMIX_GH_FUN_QUANTILE, prob, mu, gamma, sigma, p, a, b,
                 gh_flag(lower_tail, "lower.tail"), gh_flag(log_p, "log.p"),
                 threads);
}

SEXP ffi_dgh_rows(SEXP Q, SEXP B, SEXP d, SEXP p, SEXP a, SEXP b, SEXP gSg,
                  SEXP logdet, SEXP give_log, SEXP threads) {
  R_xlen_t n;
  int dim = Rf_asInteger(d), nthreads = gh_threads(threads);
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  if (TYPEOF(Q) != REALSXP || TYPEOF(B) != REALSXP || XLENGTH(Q) != XLENGTH(B))
    Rf_error("internal error: Q and B must be double vectors of one length");
  if (dim == NA_INTEGER || dim < 1)
    Rf_error("internal error: d must be a positive integer");
  n = XLENGTH(Q);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  st = ghmix_gh_density_rows((size_t)n, REAL(Q), REAL(B), dim, Rf_asReal(p),
                             Rf_asReal(a), Rf_asReal(b), Rf_asReal(gSg),
                             Rf_asReal(logdet), gh_flag(give_log, "log"),
                             REAL(out), nthreads, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
