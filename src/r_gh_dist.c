/* .Call glue for dgh(), pgh(), qgh() (the univariate functions; the
 * density also on a CUDA device) and the multivariate density from the
 * quadratic forms R computes. */
#include "core/mixture.h"
#include "cpu/gh_dist_cpu.h"
#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

/* The seven recycled double vectors (x, mu, gamma, sigma, p, a, b) of a
 * univariate GH function: their data and lengths, and the result length
 * (the longest, or 0 if any is empty). */
static R_xlen_t gh1_args(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p,
                         SEXP a, SEXP b, const double **in, size_t *len) {
  static const char *const names[GHMIX_GH1_NARGS] = {
      "x", "mu", "gamma", "sigma", "p", "a", "b"};
  SEXP args[GHMIX_GH1_NARGS] = {x, mu, gamma, sigma, p, a, b};
  int k;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    in[k] = ghmix_r_doubles(args[k], names[k]);
    len[k] = (size_t)XLENGTH(args[k]);
  }
  return ghmix_r_recycled_length(args, GHMIX_GH1_NARGS);
}

/* device: NULL for the CPU (with `threads`), else a CUDA device index (the
 * density only). */
static SEXP gh1_dpq(ghmix_gh_fun fun, SEXP x, SEXP mu, SEXP gamma, SEXP sigma,
                    SEXP p, SEXP a, SEXP b, int flag1, int flag2, SEXP threads,
                    SEXP device) {
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS];
  int nthreads = ghmix_r_threads(threads), dev = ghmix_r_device_or_cpu(device);
  R_xlen_t n = gh1_args(x, mu, gamma, sigma, p, a, b, in, len);
  SEXP out;
  ghmix_error err;
  ghmix_status st;
  out = PROTECT(Rf_allocVector(REALSXP, n));
  st = dev == GHMIX_R_CPU
           ? ghmix_gh1_dpq_batch(fun, (size_t)n, in, len, flag1, flag2,
                                 REAL(out), nthreads, &err)
           : ghmix_cuda_gh1_density_batch((size_t)n, in, len, flag1, REAL(out),
                                          dev, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

SEXP ffi_dgh1(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
              SEXP give_log, SEXP threads, SEXP device) {
  return gh1_dpq(GHMIX_GH_FUN_DENSITY, x, mu, gamma, sigma, p, a, b,
                 ghmix_r_flag(give_log, "log"), 0, threads, device);
}

SEXP ffi_pgh(SEXP q, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads) {
  return gh1_dpq(GHMIX_GH_FUN_CDF, q, mu, gamma, sigma, p, a, b,
                 ghmix_r_flag(lower_tail, "lower.tail"),
                 ghmix_r_flag(log_p, "log.p"), threads, R_NilValue);
}

SEXP ffi_qgh(SEXP prob, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads) {
  return gh1_dpq(GHMIX_GH_FUN_QUANTILE, prob, mu, gamma, sigma, p, a, b,
                 ghmix_r_flag(lower_tail, "lower.tail"),
                 ghmix_r_flag(log_p, "log.p"), threads, R_NilValue);
}

/* The rows (1-based) of d >= 2 far out on the heavy side (mixture.h:
 * ghmix_mix_row_is_heavy), which need z and are left to the E-step: as the
 * attribute "heavy" of out, if there are any. */
static void dgh_rows_heavy(SEXP out, const double *B, R_xlen_t n, int d) {
  R_xlen_t i, k = 0;
  SEXP heavy;
  if (d < 2)
    return;
  for (i = 0; i < n; i++)
    k += B[i] > GHMIX_MIX_B_EXACT;
  if (k == 0)
    return;
  heavy = PROTECT(Rf_allocVector(REALSXP, k));
  for (i = 0, k = 0; i < n; i++)
    if (B[i] > GHMIX_MIX_B_EXACT)
      REAL(heavy)[k++] = (double)i + 1.0;
  Rf_setAttrib(out, Rf_install("heavy"), heavy);
  UNPROTECT(1);
}

SEXP ffi_dgh_rows(SEXP Q, SEXP B, SEXP d, SEXP p, SEXP a, SEXP b, SEXP gSg,
                  SEXP logdet, SEXP give_log, SEXP threads) {
  R_xlen_t n;
  int dim = Rf_asInteger(d), nthreads = ghmix_r_threads(threads);
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
                             Rf_asReal(logdet), ghmix_r_flag(give_log, "log"),
                             REAL(out), nthreads, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  dgh_rows_heavy(out, REAL(B), n, dim);
  UNPROTECT(1);
  return out;
}
