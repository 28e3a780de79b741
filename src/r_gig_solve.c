/* .Call glue for gig_expectation(), gig_moments(), gig_var() and
 * gig_from_expectation(); the expectation map and the solver on the CPU or
 * a CUDA device (device: NULL for the CPU with `threads`, else a CUDA
 * device index). */
#include <limits.h>

#include "cpu/gig_solve_cpu.h"
#include "cuda/ghmix_cuda.h"
#include "r_ffi.h"

SEXP ffi_gig_expectation(SEXP p, SEXP a, SEXP b, SEXP threads, SEXP device) {
  SEXP xs[3], out;
  int nt = ghmix_r_threads(threads), dev = ghmix_r_device_or_cpu(device);
  double *pp = ghmix_r_doubles(p, "p"), *pa = ghmix_r_doubles(a, "a"),
         *pb = ghmix_r_doubles(b, "b"), *o;
  size_t np = (size_t)XLENGTH(p), na = (size_t)XLENGTH(a),
         nb = (size_t)XLENGTH(b);
  R_xlen_t n;
  ghmix_error err;
  ghmix_status st;
  xs[0] = p, xs[1] = a, xs[2] = b;
  n = ghmix_r_recycled_length(xs, 3);
  if (n > INT_MAX)
    Rf_error("gig_expectation() supports at most %d values", INT_MAX);
  out = PROTECT(Rf_allocMatrix(REALSXP, (int)n, 3));
  o = REAL(out);
  st = dev == GHMIX_R_CPU
           ? ghmix_gig_expectation_batch((size_t)n, pp, np, pa, na, pb, nb, o,
                                         o + n, o + 2 * n, nt, &err)
           : ghmix_cuda_gig_expectation_batch((size_t)n, pp, np, pa, na, pb, nb,
                                              o, o + n, o + 2 * n, dev, &err);
  if (st != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* what: GHMIX_GIG_MOMENT_RAW (E[Y^order]) or _VARIANCE (order ignored) */
SEXP ffi_gig_moment(SEXP p, SEXP a, SEXP b, SEXP order, SEXP what,
                    SEXP threads) {
  SEXP xs[4], out;
  int nt = ghmix_r_threads(threads),
      w = ghmix_r_int(what, "what", GHMIX_GIG_MOMENT_RAW,
                      GHMIX_GIG_MOMENT_VARIANCE);
  double *pp = ghmix_r_doubles(p, "p"), *pa = ghmix_r_doubles(a, "a"),
         *pb = ghmix_r_doubles(b, "b"), *po = ghmix_r_doubles(order, "order");
  R_xlen_t n;
  ghmix_error err;
  xs[0] = p, xs[1] = a, xs[2] = b, xs[3] = order;
  n = ghmix_r_recycled_length(xs, w == GHMIX_GIG_MOMENT_VARIANCE ? 3 : 4);
  out = PROTECT(Rf_allocVector(REALSXP, n));
  if (ghmix_gig_moment_batch((size_t)n, pp, (size_t)XLENGTH(p), pa,
                             (size_t)XLENGTH(a), pb, (size_t)XLENGTH(b), po,
                             (size_t)XLENGTH(order), w, REAL(out), nt,
                             &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}

/* The argument checks and the result list: eta an n x 3 double matrix,
 * start NULL or n x 3, the control filled in ctrl, *jp the Jacobian's
 * storage (NULL unless asked for).  Returns the list, PROTECTed once (the
 * caller UNPROTECTs it): list(p, a, b, iterations, grad_norm, converged,
 * condition, note, infeasible, jacobian). */
static SEXP solve_prepare(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                          SEXP jacobian, ghmix_gig_solve_control *ctrl,
                          double **jp) {
  static const char *names[] = {
      "p",         "a",    "b",          "iterations", "grad_norm", "converged",
      "condition", "note", "infeasible", "jacobian",   ""};
  SEXP out;
  R_xlen_t n;
  int want_jac = ghmix_r_flag(jacobian, "jacobian"), i;
  ghmix_r_double_matrix(eta, -1, 3, "eta");
  n = Rf_nrows(eta);
  if (start != R_NilValue)
    ghmix_r_double_matrix(start, n, 3, "start");
  ghmix_gig_solve_control_init(ctrl);
  ctrl->max_iter = ghmix_r_int(max_iter, "max_iter", 0, INT_MAX);
  ctrl->tol = Rf_asReal(tol);
  if (!(ctrl->tol >= 0))
    Rf_error("internal error: bad tol");
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
 * the list of solve_prepare; on infeasible or non-finite rows nothing is
 * solved and only `infeasible` is meaningful (R raises the error). */
SEXP ffi_gig_from_expectation(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                              SEXP jacobian, SEXP threads, SEXP device) {
  ghmix_gig_solve_args s;
  ghmix_error err;
  ghmix_status st;
  int nt = ghmix_r_threads(threads), dev = ghmix_r_device_or_cpu(device);
  SEXP out =
      solve_prepare(eta, start, max_iter, tol, jacobian, &s.ctrl, &s.jacobian);
  s.n = (size_t)Rf_nrows(eta);
  s.eta = REAL(eta);
  s.start = start == R_NilValue ? NULL : REAL(start);
  s.p = REAL(VECTOR_ELT(out, 0));
  s.a = REAL(VECTOR_ELT(out, 1));
  s.b = REAL(VECTOR_ELT(out, 2));
  s.iterations = INTEGER(VECTOR_ELT(out, 3));
  s.grad_norm = REAL(VECTOR_ELT(out, 4));
  s.converged = LOGICAL(VECTOR_ELT(out, 5));
  s.condition = REAL(VECTOR_ELT(out, 6));
  s.note = INTEGER(VECTOR_ELT(out, 7));
  s.infeasible = INTEGER(VECTOR_ELT(out, 8));
  st = dev == GHMIX_R_CPU
           ? ghmix_gig_from_expectation_batch(&s, nt, &err)
           : ghmix_cuda_gig_from_expectation_batch(&s, dev, &err);
  /* a bad row (index >= 0) is reported by R from `infeasible`; anything
   * else (no device, CUDA failures, an interrupt) is an error here */
  if (st != GHMIX_OK &&
      !((st == GHMIX_ERR_INFEASIBLE || st == GHMIX_ERR_DOMAIN) &&
        err.index >= 0))
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return out;
}
