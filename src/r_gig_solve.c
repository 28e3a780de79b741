/* .Call glue for gig_expectation(), gig_moments(), gig_var() and
 * gig_from_expectation(). */
#include <limits.h>

#include "cpu/gig_solve_cpu.h"
#include "r_ffi.h"
#include "r_gig_solve.h"

static int get_threads(SEXP threads) {
  int n = Rf_asInteger(threads);
  if (n == NA_INTEGER || n < 1)
    Rf_error("internal error: threads must be a positive integer");
  return n;
}

static void check_double(SEXP x, const char *what) {
  if (TYPEOF(x) != REALSXP)
    Rf_error("internal error: %s must be a double vector", what);
}

/* Recycled length as in R: 0 if any is empty, else the longest. */
static R_xlen_t recycled_length(SEXP *xs, int k) {
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

SEXP ffi_gig_expectation(SEXP p, SEXP a, SEXP b, SEXP threads) {
  SEXP xs[3], out;
  R_xlen_t n;
  ghmix_error err;
  int nt = get_threads(threads);
  check_double(p, "p");
  check_double(a, "a");
  check_double(b, "b");
  xs[0] = p, xs[1] = a, xs[2] = b;
  n = recycled_length(xs, 3);
  if (n > INT_MAX)
    Rf_error("gig_expectation() supports at most %d values", INT_MAX);
  out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 3));
  if (ghmix_gig_expectation_batch((size_t)n, REAL(p), (size_t)XLENGTH(p),
                                  REAL(a), (size_t)XLENGTH(a), REAL(b),
                                  (size_t)XLENGTH(b), REAL(out), REAL(out) + n,
                                  REAL(out) + 2 * n, nt, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* what: GHMIX_GIG_MOMENT_RAW (E[Y^order]) or _VARIANCE (order ignored) */
SEXP ffi_gig_moment(SEXP p, SEXP a, SEXP b, SEXP order, SEXP what,
                    SEXP threads) {
  SEXP xs[4], out;
  R_xlen_t n;
  ghmix_error err;
  int nt = get_threads(threads), w = Rf_asInteger(what);
  check_double(p, "p");
  check_double(a, "a");
  check_double(b, "b");
  check_double(order, "order");
  if (w != GHMIX_GIG_MOMENT_RAW && w != GHMIX_GIG_MOMENT_VARIANCE)
    Rf_error("internal error: unknown GIG moment kind");
  xs[0] = p, xs[1] = a, xs[2] = b, xs[3] = order;
  n = recycled_length(xs, w == GHMIX_GIG_MOMENT_VARIANCE ? 3 : 4);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (ghmix_gig_moment_batch((size_t)n, REAL(p), (size_t)XLENGTH(p), REAL(a),
                             (size_t)XLENGTH(a), REAL(b), (size_t)XLENGTH(b),
                             REAL(order), (size_t)XLENGTH(order), w, REAL(out),
                             nt, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* The argument checks and the result list shared by the CPU and CUDA
 * solvers: eta an n x 3 double matrix, start NULL or n x 3, the control
 * filled in ctrl, *jp the Jacobian's storage (NULL unless asked for).
 * Returns the list, PROTECTed once (the caller UNPROTECTs it):
 * list(p, a, b, iterations, grad_norm, converged, condition, note,
 * infeasible, jacobian). */
SEXP ghmix_r_gig_solve_prepare(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                               SEXP jacobian, ghmix_gig_solve_control *ctrl,
                               double **jp) {
  static const char *names[] = {
      "p",         "a",    "b",          "iterations", "grad_norm", "converged",
      "condition", "note", "infeasible", "jacobian",   ""};
  SEXP out;
  R_xlen_t n;
  int want_jac = Rf_asLogical(jacobian), i;
  check_double(eta, "eta");
  if (!Rf_isMatrix(eta) || Rf_ncols(eta) != 3)
    Rf_error("internal error: eta must be an n x 3 matrix");
  n = Rf_nrows(eta);
  if (start != R_NilValue) {
    check_double(start, "start");
    if (!Rf_isMatrix(start) || Rf_ncols(start) != 3 || Rf_nrows(start) != n)
      Rf_error("internal error: start must be an n x 3 matrix");
  }
  if (want_jac == NA_LOGICAL)
    Rf_error("internal error: jacobian must be TRUE or FALSE");
  ghmix_gig_solve_control_init(ctrl);
  ctrl->max_iter = Rf_asInteger(max_iter);
  ctrl->tol = Rf_asReal(tol);
  if (ctrl->max_iter == NA_INTEGER || ctrl->max_iter < 0 || !(ctrl->tol >= 0))
    Rf_error("internal error: bad max_iter or tol");
  out = PROTECT(Rf_mkNamed(VECSXP, names));
  for (i = 0; i < 9; i++) {
    SEXPTYPE type =
        (i == 3 || i == 7 || i == 8) ? INTSXP : (i == 5 ? LGLSXP : REALSXP);
    SET_VECTOR_ELT(out, i, Rf_allocVector(type, n));
  }
  *jp = NULL;
  if (want_jac) {
    SEXP dim = PROTECT(Rf_allocVector(INTSXP, 3)), jac;
    if (9.0 * (double)n > (double)R_XLEN_T_MAX)
      Rf_error("jacobian = TRUE: too many rows");
    INTEGER(dim)[0] = 3;
    INTEGER(dim)[1] = 3;
    INTEGER(dim)[2] = (int)n;
    jac = Rf_allocVector(REALSXP, 9 * n);
    SET_VECTOR_ELT(out, 9, jac);
    Rf_setAttrib(jac, R_DimSymbol, dim);
    UNPROTECT(1);
    *jp = REAL(jac);
  }
  return out;
}

/* eta: n x 3 double matrix; start: NULL or n x 3 double matrix.  Returns
 * the list of ghmix_r_gig_solve_prepare; on infeasible or non-finite rows
 * nothing is solved and only `infeasible` is meaningful (R raises the
 * error). */
SEXP ffi_gig_from_expectation(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                              SEXP jacobian, SEXP threads) {
  ghmix_gig_solve_control ctrl;
  ghmix_error err;
  ghmix_status st;
  int nt = get_threads(threads);
  double *jp;
  SEXP out = ghmix_r_gig_solve_prepare(eta, start, max_iter, tol, jacobian,
                                       &ctrl, &jp);
  R_xlen_t n = Rf_nrows(eta);
  st = ghmix_gig_from_expectation_batch(
      (size_t)n, REAL(eta), start == R_NilValue ? NULL : REAL(start), &ctrl,
      REAL(VECTOR_ELT(out, 0)), REAL(VECTOR_ELT(out, 1)),
      REAL(VECTOR_ELT(out, 2)), INTEGER(VECTOR_ELT(out, 3)),
      REAL(VECTOR_ELT(out, 4)), LOGICAL(VECTOR_ELT(out, 5)),
      REAL(VECTOR_ELT(out, 6)), INTEGER(VECTOR_ELT(out, 7)),
      INTEGER(VECTOR_ELT(out, 8)), jp, nt, &err);
  if (st != GHMIX_OK && st != GHMIX_ERR_INFEASIBLE && st != GHMIX_ERR_DOMAIN)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
