/* .Call glue for value_at_risk(), expected_shortfall() and es_attribution()
 * (src/cpu/gh_risk_cpu.h). */
#include "cpu/gh_risk_cpu.h"
#include "r_ffi.h"

/* level: lower-tail probabilities; mu, gamma, sigma: the n univariate laws
 * (one length); pab = c(p, a, b); shortfall, y_mass: TRUE for E[(q - X)^+]
 * and for E[Y 1{X <= q}] as well (y_mass needs shortfall).  Returns an
 * n x length(level) x 3 array: the quantiles, E[(q - X)^+] and E[Y 1{X <=
 * q}] (NaN where not asked for). */
SEXP ffi_gh_risk(SEXP level, SEXP mu, SEXP gamma, SEXP sigma, SEXP pab,
                 SEXP shortfall, SEXP y_mass, SEXP threads) {
  const double *lev = ghmix_r_doubles(level, "level");
  const double *m = ghmix_r_doubles(mu, "mu");
  const double *g = ghmix_r_doubles(gamma, "gamma");
  const double *s = ghmix_r_doubles(sigma, "sigma");
  const double *par = ghmix_r_doubles(pab, "pab");
  int sf = ghmix_r_flag(shortfall, "shortfall"),
      ym = ghmix_r_flag(y_mass, "y_mass");
  ghmix_risk_what w = ym   ? GHMIX_RISK_Y_MASS
                      : sf ? GHMIX_RISK_SHORTFALL
                           : GHMIX_RISK_VAR;
  int nthreads = ghmix_r_threads(threads);
  R_xlen_t n = XLENGTH(mu), nl = XLENGTH(level), i, size;
  SEXP out;
  double *o;
  ghmix_error err;
  ghmix_status st;
  if (XLENGTH(gamma) != n || XLENGTH(sigma) != n || XLENGTH(pab) != 3)
    Rf_error("internal error: mu, gamma, sigma of one length, pab of 3");
  size = n * nl;
  out = PROTECT(Rf_allocVector(REALSXP, 3 * size));
  o = REAL(out);
  for (i = 0; i < 3 * size; i++)
    o[i] = NAN;
  st = ghmix_gh1_risk_batch((size_t)n, m, g, s, (size_t)nl, lev, par[0], par[1],
                            par[2], w, o, o + size, o + 2 * size, nthreads,
                            &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
