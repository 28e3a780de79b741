/* .Call glue for the EM fitters (R/fit.R): the E-step statistics of a data
 * matrix and the subordinator's M-step. */
#define USE_FC_LEN_T
#include <math.h>

#include "core/gig_solve.h"
#include "core/mixture.h"
#include "cpu/mixture_cpu.h"
#include "r_ffi.h"

#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

/* Checks the shapes the R caller promises; a failure is a bug in R/fit.R. */
static int mix_check_args(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts) {
  int d;
  if (!Rf_isMatrix(x) || TYPEOF(x) != REALSXP)
    Rf_error("internal error: x must be a double matrix");
  d = Rf_ncols(x);
  if (TYPEOF(center) != REALSXP || XLENGTH(center) != d ||
      TYPEOF(chol) != REALSXP || XLENGTH(chol) != (R_xlen_t)d * d ||
      TYPEOF(g) != REALSXP || XLENGTH(g) != d || TYPEOF(consts) != REALSXP ||
      XLENGTH(consts) != 5)
    Rf_error("internal error: E-step parameters of the wrong shape");
  return d;
}

/* consts = c(p, a, b, gSg, logdet); what = GHMIX_ESTEP_* flags. */
static void ghmix_r_mix_params(SEXP center, SEXP chol, SEXP g, SEXP consts,
                               SEXP what, int d, ghmix_mix_params *par) {
  const double *k = REAL(consts);
  par->d = d;
  par->center = REAL(center);
  par->chol = REAL(chol);
  par->g = REAL(g);
  if (!ghmix_mix_const_init(d, k[0], k[1], k[2], k[3], k[4], Rf_asInteger(what),
                            &par->c))
    Rf_error("internal error: invalid mixture parameters in the E-step");
}

SEXP ffi_mix_estep(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts,
                   SEXP what, SEXP rows, SEXP threads) {
  int d = mix_check_args(x, center, chol, g, consts);
  R_xlen_t n = Rf_nrows(x);
  ghmix_mix_params par;
  ghmix_error err;
  SEXP stats, row_out = R_NilValue;
  ghmix_r_mix_params(center, chol, g, consts, what, d, &par);
  stats = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)GHMIX_MIX_NSTATS(d)));
  if (Rf_asLogical(rows) == TRUE) {
    row_out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 4));
    Rf_setAttrib(stats, Rf_install("rows"), row_out);
    UNPROTECT(1);
  }
  if (ghmix_mix_estep_cpu(REAL(x), (size_t)n, (size_t)n, &par, REAL(stats),
                          row_out == R_NilValue ? NULL : REAL(row_out),
                          Rf_asInteger(threads), &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return stats;
}

/* The subordinator's M-step: the GIG (or limit) that maximises the expected
 * log-density given eta = (mean E log Y, mean E 1/Y, mean E Y).  family:
 * a ghmix_family (src/core/estep.h).
 * start = c(p, a, b), the current values (GH only).  Returns
 * c(p, a, b, converged, note). */
SEXP ffi_mix_subordinator(SEXP family, SEXP eta, SEXP start) {
  const double *e = REAL(eta);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 5));
  double *o = REAL(out);
  o[3] = 1;
  o[4] = 0;
  switch (Rf_asInteger(family)) {
  case GHMIX_FAMILY_GH: {
    ghmix_gig_solve_control ctrl;
    ghmix_gig_solution sol;
    ghmix_gig_solve_control_init(&ctrl);
    ctrl.has_start = 1;
    ctrl.start_p = REAL(start)[0];
    ctrl.start_a = REAL(start)[1];
    ctrl.start_b = REAL(start)[2];
    ghmix_gig_from_expectation(e, &ctrl, &sol);
    o[0] = sol.p, o[1] = sol.a, o[2] = sol.b;
    o[3] = sol.converged;
    o[4] = sol.note;
    break;
  }
  case GHMIX_FAMILY_NIG: /* inverse Gaussian MLE: sqrt(b/a) = E Y, 1/b = E 1/Y -
                            1/E Y */
    o[0] = -0.5;
    o[2] = 1.0 / (e[1] - 1.0 / e[2]);
    o[1] = o[2] / (e[2] * e[2]);
    break;
  case GHMIX_FAMILY_VG: /* gamma(p, rate a/2) MLE */
    o[0] = ghmix_gamma_shape_mle(e[0] - log(e[2]));
    o[1] = 2.0 * o[0] / e[2];
    o[2] = 0;
    break;
  case GHMIX_FAMILY_SKEWT: /* 1/Y ~ gamma(-p, rate b/2) MLE */
    o[0] = -ghmix_gamma_shape_mle(-e[0] - log(e[1]));
    o[1] = 0;
    o[2] = -2.0 * o[0] / e[1];
    break;
  default:
    Rf_error("internal error: unknown family");
  }
  UNPROTECT(1);
  return out;
}

/* log of the GIG normalising constant (limits included), vectorised over p
 * with scalar a, b; used for log-likelihood gradients in R. */
SEXP ffi_gig_log_norm(SEXP p, SEXP a, SEXP b) {
  R_xlen_t i, n = XLENGTH(p);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  for (i = 0; i < n; i++)
    REAL(out)[i] = ghmix_gig_log_norm(REAL(p)[i], Rf_asReal(a), Rf_asReal(b));
  UNPROTECT(1);
  return out;
}

/* The lower Cholesky factor L (A = L L', upper triangle zero) of a
 * symmetric matrix, from its lower triangle; NULL when A is not positive
 * definite.  The EM's per-point factorisation without chol()'s R-level
 * overhead and error handling. */
SEXP ffi_chol_lower(SEXP a) {
  int d = Rf_nrows(a), info = 0, i, j;
  SEXP out;
  double *l;
  if (!Rf_isMatrix(a) || TYPEOF(a) != REALSXP || Rf_ncols(a) != d)
    Rf_error("internal error: chol of a non-square or non-double matrix");
  out = PROTECT(Rf_allocMatrix(REALSXP, d, d));
  l = REAL(out);
  for (j = 0; j < d; j++)
    for (i = 0; i < d; i++)
      l[(size_t)j * d + i] = i >= j ? REAL(a)[(size_t)j * d + i] : 0.0;
  F77_CALL(dpotrf)("L", &d, l, &d, &info FCONE);
  UNPROTECT(1);
  return info == 0 ? out : R_NilValue;
}

/* The row-independent inputs of the E-step from the lower factor L of
 * Sigma, gamma and (p, a, b): c(g, p, a, b, g'g, log det Sigma) with
 * g = L^-1 gamma (length d + 5). */
SEXP ffi_mix_consts(SEXP chol, SEXP gamma, SEXP pab) {
  int d = Rf_nrows(chol), i, j;
  const double *l = REAL(chol), *gam = REAL(gamma);
  SEXP out;
  double *o, gsg = 0, logdet = 0;
  if (TYPEOF(chol) != REALSXP || TYPEOF(gamma) != REALSXP ||
      XLENGTH(gamma) != d || TYPEOF(pab) != REALSXP || XLENGTH(pab) != 3)
    Rf_error("internal error: E-step constants of the wrong shape");
  out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)d + 5));
  o = REAL(out);
  for (i = 0; i < d; i++) {
    double v = gam[i];
    for (j = 0; j < i; j++)
      v -= l[(size_t)j * d + i] * o[j];
    o[i] = v / l[(size_t)i * d + i];
    gsg += o[i] * o[i];
    logdet += log(l[(size_t)i * d + i]);
  }
  for (i = 0; i < 3; i++)
    o[d + i] = REAL(pab)[i];
  o[d + 3] = gsg;
  o[d + 4] = 2.0 * logdet;
  UNPROTECT(1);
  return out;
}
