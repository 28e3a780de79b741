/* .Call glue for the E-step of a factor-analytic Sigma = F F' + diag(D)
 * (src/core/factor.h; the CPU driver of src/cpu/factor_cpu.h), for
 * R/factor_estep.R. */
#include "core/factor.h"
#include "cpu/factor_cpu.h"
#include "r_ffi.h"

#include <string.h>

/* The model of the .Call arguments for data of dimension d (its arrays
 * R_alloc'ed); 0 when the parameters are not usable. */
static int factor_model(SEXP center, SEXP loadings, SEXP uniq, SEXP gamma,
                        SEXP pab, SEXP what, int d, ghmix_factor_model *fm) {
  const double *f = ghmix_r_double_matrix(loadings, d, -1, "loadings");
  const double *k = ghmix_r_doubles(pab, "pab");
  int r = Rf_ncols(loadings);
  int flags =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  double *buf;
  if (d < 1 || r >= d)
    Rf_error("internal error: the factor E-step needs d >= 1, 0 <= r < d");
  if (XLENGTH(center) != d || XLENGTH(uniq) != d || XLENGTH(gamma) != d ||
      XLENGTH(pab) != 3)
    Rf_error("internal error: E-step parameters of the wrong shape");
  buf = (double *)R_alloc(ghmix_factor_buffer_size(d, r), sizeof(double));
  return ghmix_factor_model_init(
      d, r, ghmix_r_doubles(center, "center"), f, ghmix_r_doubles(uniq, "uniq"),
      ghmix_r_doubles(gamma, "gamma"), k[0], k[1], k[2], flags, buf, fm);
}

/* The statistics vector of the shape (returned unprotected), with the
 * attributes proj (beta, r x d), logdet, gsg and, when want_rows, rows (an
 * n x 4 matrix, *row_out its data; NULL without). */
static SEXP factor_prepare(const ghmix_factor_model *fm, int weighted,
                           int want_rows, R_xlen_t n, double **row_out) {
  const ghmix_estep_shape shape = ghmix_factor_shape(fm, weighted);
  SEXP stats =
      PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)ghmix_estep_nstats(&shape)));
  SEXP proj = PROTECT(Rf_allocMatrix(REALSXP, fm->r, fm->d));
  memcpy(REAL(proj), fm->proj_t, sizeof(double) * (size_t)fm->r * fm->d);
  Rf_setAttrib(stats, Rf_install("proj"), proj);
  Rf_setAttrib(stats, Rf_install("logdet"), Rf_ScalarReal(fm->logdet));
  Rf_setAttrib(stats, Rf_install("gsg"), Rf_ScalarReal(fm->gsg));
  *row_out = NULL;
  if (want_rows) {
    SEXP r = PROTECT(Rf_allocMatrix(REALSXP, (int)n, GHMIX_ROW_COUNT));
    Rf_setAttrib(stats, Rf_install("rows"), r);
    *row_out = REAL(r);
    UNPROTECT(1);
  }
  UNPROTECT(2);
  return stats;
}

/* The factor E-step (weights NULL or n finite values >= 0; pab = c(p, a,
 * b)): R NULL when the parameters are not usable (ghmix_factor_model_init),
 * else the statistics of src/core/estep.h for the factor shape with the
 * attributes of factor_prepare. */
SEXP ffi_mix_estep_factor(SEXP x, SEXP weights, SEXP center, SEXP loadings,
                          SEXP uniq, SEXP gamma, SEXP pab, SEXP what, SEXP rows,
                          SEXP threads) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int d = Rf_ncols(x), nthreads = ghmix_r_threads(threads);
  int want_rows = ghmix_r_flag(rows, "rows");
  R_xlen_t n = Rf_nrows(x);
  const double *w = ghmix_r_weights(weights, n);
  ghmix_factor_model fm;
  ghmix_error err;
  double *row_out;
  SEXP stats;
  if (!factor_model(center, loadings, uniq, gamma, pab, what, d, &fm))
    return R_NilValue;
  stats = PROTECT(factor_prepare(&fm, w != NULL, want_rows, n, &row_out));
  if (ghmix_factor_estep_cpu(xp, (size_t)n, (size_t)n, &fm, w, REAL(stats),
                             row_out, nthreads, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return stats;
}
