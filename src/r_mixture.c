/* .Call glue for the EM fitters (R/fit_model.R): the E-step statistics of a
 * data matrix, the M-step of the mixing distribution, and the E-step's
 * row-independent inputs.  The numerics are in src/core (mixture.h,
 * mstep.h) and src/cpu (mixture_cpu.h); here the SEXPs are unpacked and
 * the results named. */
#define USE_FC_LEN_T
#include "core/gig_moments.h"
#include "core/mixture.h"
#include "core/mixture_g.h"
#include "core/mstep.h"
#include "cpu/mixture_cpu.h"
#include "r_ffi.h"

#include <R_ext/Lapack.h>
#include <string.h>
#ifndef FCONE
#define FCONE
#endif

/* A list of nd doubles and then ni integers, named names[]. */
static SEXP named_list(const char **names, const double *dv, int nd,
                       const int *iv, int ni) {
  SEXP out = PROTECT(Rf_allocVector(VECSXP, nd + ni));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, nd + ni));
  int i;
  for (i = 0; i < nd + ni; i++) {
    SET_VECTOR_ELT(
        out, i, i < nd ? Rf_ScalarReal(dv[i]) : Rf_ScalarInteger(iv[i - nd]));
    SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
  }
  Rf_setAttrib(out, R_NamesSymbol, nm);
  UNPROTECT(2);
  return out;
}

void ghmix_r_mix_model(SEXP center, SEXP chol, SEXP g, SEXP consts, SEXP what,
                       int d, ghmix_mix_component *comp,
                       ghmix_mix_model *model) {
  const double *k;
  ghmix_error err;
  if (d < 1)
    Rf_error("internal error: the E-step needs d >= 1");
  comp->center = ghmix_r_doubles(center, "center");
  comp->chol = ghmix_r_doubles(chol, "chol");
  comp->g = ghmix_r_doubles(g, "g");
  k = ghmix_r_doubles(consts, "consts");
  if (XLENGTH(center) != d || XLENGTH(chol) != (R_xlen_t)d * d ||
      XLENGTH(g) != d || XLENGTH(consts) != 5)
    Rf_error("internal error: E-step parameters of the wrong shape");
  comp->p = k[0];
  comp->a = k[1];
  comp->b = k[2];
  comp->gsg = k[3];
  comp->logdet = k[4];
  comp->log_prop = 0;
  model->shape.d = d;
  model->shape.components = 1;
  model->shape.cov = GHMIX_COV_FULL;
  model->shape.factors = 0;
  model->shape.what =
      ghmix_r_int(what, "what", 0, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY);
  model->comp = comp;
  model->weights = NULL;
  if (ghmix_mix_model_complete(model, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
}

SEXP ghmix_r_estep_prepare(SEXP center, SEXP chol, SEXP g, SEXP consts,
                           SEXP what, SEXP rows, int d, R_xlen_t n,
                           ghmix_r_estep *e) {
  SEXP stats, r;
  ghmix_r_mix_model(center, chol, g, consts, what, d, &e->comp, &e->model);
  stats = PROTECT(
      Rf_allocVector(REALSXP, (R_xlen_t)ghmix_estep_nstats(&e->model.shape)));
  e->row_out = NULL;
  if (ghmix_r_flag(rows, "rows")) {
    r = PROTECT(Rf_allocMatrix(REALSXP, (int)n, GHMIX_ROW_COUNT));
    Rf_setAttrib(stats, Rf_install("rows"), r);
    e->row_out = REAL(r);
    UNPROTECT(1);
  }
  UNPROTECT(1);
  return stats;
}

void ghmix_r_mix_weights(SEXP weights, R_xlen_t n, ghmix_mix_model *model) {
  ghmix_error err;
  const double *w = ghmix_r_weights(weights, n);
  if (w == NULL)
    return;
  model->weights = w;
  model->shape.what |= GHMIX_ESTEP_WEIGHTS;
  if (ghmix_mix_model_complete(model, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
}

/* The E-step of ffi_mix_estep and ffi_mix_estep_weighted. */
static SEXP mix_estep(SEXP x, SEXP weights, SEXP center, SEXP chol, SEXP g,
                      SEXP consts, SEXP what, SEXP rows, SEXP threads) {
  const double *xp = ghmix_r_double_matrix(x, -1, -1, "x");
  int d = Rf_ncols(x), nthreads = ghmix_r_threads(threads);
  R_xlen_t n = Rf_nrows(x);
  ghmix_r_estep e;
  ghmix_error err;
  SEXP stats = PROTECT(
      ghmix_r_estep_prepare(center, chol, g, consts, what, rows, d, n, &e));
  ghmix_r_mix_weights(weights, n, &e.model);
  if (ghmix_mix_estep_cpu(xp, (size_t)n, (size_t)n, d, &e.model, REAL(stats),
                          e.row_out, nthreads, &err) != GHMIX_OK)
    ghmix_r_stop(&err);
  UNPROTECT(1);
  return stats;
}

SEXP ffi_mix_estep(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts,
                   SEXP what, SEXP rows, SEXP threads) {
  return mix_estep(x, R_NilValue, center, chol, g, consts, what, rows, threads);
}

/* ffi_mix_estep with row weights (NULL, or n finite values >= 0): the
 * weighted statistics of src/core/estep.h. */
SEXP ffi_mix_estep_weighted(SEXP x, SEXP weights, SEXP center, SEXP chol,
                            SEXP g, SEXP consts, SEXP what, SEXP rows,
                            SEXP threads) {
  return mix_estep(x, weights, center, chol, g, consts, what, rows, threads);
}

/* The mixing distribution's M-step (src/core/mstep.h): family a
 * ghmix_family, eta = (mean E log Y, mean E 1/Y, mean E Y), optionally
 * followed by the means of the deviation statistics (inv_y_dev, y_dev),
 * start = c(p, a, b), the values of the E-step.  Returns list(p, a, b,
 * converged, note). */
SEXP ffi_mix_subordinator(SEXP family, SEXP eta, SEXP start) {
  static const char *names[] = {"p", "a", "b", "converged", "note"};
  ghmix_mstep_mixing m;
  const double *e;
  double v[3];
  int iv[2];
  if ((XLENGTH(eta) != 3 && XLENGTH(eta) != 5) || XLENGTH(start) != 3)
    Rf_error("internal error: eta must have length 3 or 5, start length 3");
  e = ghmix_r_doubles(eta, "eta");
  if (!ghmix_mstep_mixing_solve(
          ghmix_r_int(family, "family", 0, GHMIX_FAMILY_COUNT - 1), e,
          XLENGTH(eta) == 5 ? e + 3 : NULL, ghmix_r_doubles(start, "start"),
          &m))
    Rf_error("internal error: unknown family");
  v[0] = m.p, v[1] = m.a, v[2] = m.b;
  iv[0] = m.converged, iv[1] = m.note;
  return named_list(names, v, 3, iv, 2);
}

/* The mixing distribution's M-step with p held (ghmix_mstep_mixing_fixed_p):
 * p, eta = (mean E log Y, mean E 1/Y, mean E Y), start = c(p, a, b).
 * Returns list(p, a, b, converged, note). */
SEXP ffi_mix_subordinator_fixed_p(SEXP p, SEXP eta, SEXP start) {
  static const char *names[] = {"p", "a", "b", "converged", "note"};
  ghmix_mstep_mixing m;
  double v[3];
  int iv[2];
  if (XLENGTH(p) != 1 || XLENGTH(eta) != 3 || XLENGTH(start) != 3)
    Rf_error("internal error: p must have length 1, eta and start 3");
  ghmix_mstep_mixing_fixed_p(*ghmix_r_doubles(p, "p"),
                             ghmix_r_doubles(eta, "eta"),
                             ghmix_r_doubles(start, "start"), &m);
  v[0] = m.p, v[1] = m.a, v[2] = m.b;
  iv[0] = m.converged, iv[1] = m.note;
  return named_list(names, v, 3, iv, 2);
}

/* The lower Cholesky factor L (A = L L', upper triangle zero) of a
 * symmetric matrix, from its lower triangle; NULL when A is not positive
 * definite.  The EM's per-point factorisation without chol()'s R-level
 * overhead and error handling. */
static int chol_lower_into(const double *a, int d, double *l) {
  int info = 0, i, j;
  for (j = 0; j < d; j++)
    for (i = 0; i < d; i++)
      l[(size_t)j * d + i] = i >= j ? a[(size_t)j * d + i] : 0.0;
  F77_CALL(dpotrf)("L", &d, l, &d, &info FCONE);
  return info;
}

SEXP ffi_chol_lower(SEXP a) {
  int d = Rf_nrows(a), info;
  SEXP out;
  if (!Rf_isMatrix(a) || TYPEOF(a) != REALSXP || Rf_ncols(a) != d)
    Rf_error("internal error: chol of a non-square or non-double matrix");
  out = PROTECT(Rf_allocMatrix(REALSXP, d, d));
  info = chol_lower_into(REAL(a), d, REAL(out));
  UNPROTECT(1);
  return info == 0 ? out : R_NilValue;
}

/* Element `name` of the list x (the first of that name; R_NilValue where
 * there is none). */
static SEXP list_elt(SEXP x, const char *name) {
  SEXP nm = Rf_getAttrib(x, R_NamesSymbol);
  R_xlen_t i, n = XLENGTH(x);
  if (TYPEOF(nm) != STRSXP)
    return R_NilValue;
  for (i = 0; i < n; i++)
    if (strcmp(CHAR(STRING_ELT(nm, i)), name) == 0)
      return VECTOR_ELT(x, i);
  return R_NilValue;
}

static SEXP par_elt(SEXP par, const char *name, R_xlen_t len) {
  SEXP v = list_elt(par, name);
  if (TYPEOF(v) != REALSXP || XLENGTH(v) != len)
    Rf_error("internal error: `%s` of a component is not a double vector of "
             "length %d",
             name, (int)len);
  return v;
}

/* The E-step arguments of G components (R/mix_estep.R,
 * mixture_estep_args()): list(centers = d x G mu, chols = d x d x G lower
 * factors L of sigma, gs = d x G L^-1 gamma, consts = 5 x G (p, a, b, gsg,
 * logdet)), or NULL where a component is not usable: sigma not positive
 * definite, an invalid GIG, mu or gamma not finite. */
SEXP ffi_mixture_estep_args(SEXP pars) {
  static const char *fields[] = {"centers", "chols", "gs", "consts", ""};
  int g, d, k, i;
  size_t dd;
  SEXP out, sigma;
  double *centers, *chols, *gs, *consts, *l, *c, p, a, b;
  const double *mu, *gamma, *s;
  if (TYPEOF(pars) != VECSXP || XLENGTH(pars) < 1 ||
      XLENGTH(pars) > GHMIX_MAX_COMPONENTS)
    Rf_error("internal error: pars must be a list of 1 to %d components",
             GHMIX_MAX_COMPONENTS);
  g = (int)XLENGTH(pars);
  for (k = 0; k < g; k++)
    if (TYPEOF(VECTOR_ELT(pars, k)) != VECSXP)
      Rf_error("internal error: a component is not a list");
  sigma = list_elt(VECTOR_ELT(pars, 0), "sigma");
  d = Rf_isMatrix(sigma) ? Rf_nrows(sigma) : 0;
  if (d < 1)
    Rf_error("internal error: `sigma` of a component is not a matrix");
  for (k = 0; k < g; k++) {
    SEXP par = VECTOR_ELT(pars, k);
    sigma = list_elt(par, "sigma");
    if (!Rf_isMatrix(sigma) || TYPEOF(sigma) != REALSXP ||
        Rf_nrows(sigma) != d || Rf_ncols(sigma) != d)
      Rf_error("internal error: `sigma` of a component is not a %d x %d "
               "double matrix",
               d, d);
    par_elt(par, "mu", d);
    par_elt(par, "gamma", d);
    par_elt(par, "p", 1);
    par_elt(par, "a", 1);
    par_elt(par, "b", 1);
  }
  dd = (size_t)d * d;
  out = PROTECT(Rf_mkNamed(VECSXP, fields));
  SET_VECTOR_ELT(out, 0, Rf_allocMatrix(REALSXP, d, g));
  SET_VECTOR_ELT(out, 1, Rf_alloc3DArray(REALSXP, d, d, g));
  SET_VECTOR_ELT(out, 2, Rf_allocMatrix(REALSXP, d, g));
  SET_VECTOR_ELT(out, 3, Rf_allocMatrix(REALSXP, 5, g));
  centers = REAL(VECTOR_ELT(out, 0));
  chols = REAL(VECTOR_ELT(out, 1));
  gs = REAL(VECTOR_ELT(out, 2));
  consts = REAL(VECTOR_ELT(out, 3));
  for (k = 0; k < g; k++) {
    SEXP par = VECTOR_ELT(pars, k);
    s = REAL(list_elt(par, "sigma"));
    mu = REAL(list_elt(par, "mu"));
    gamma = REAL(list_elt(par, "gamma"));
    p = REAL(list_elt(par, "p"))[0];
    a = REAL(list_elt(par, "a"))[0];
    b = REAL(list_elt(par, "b"))[0];
    l = chols + (size_t)k * dd;
    if (chol_lower_into(s, d, l) != 0 || !ghmix_gig_valid(p, a, b)) {
      UNPROTECT(1);
      return R_NilValue;
    }
    for (i = 0; i < d; i++)
      if (!R_FINITE(mu[i]) || !R_FINITE(gamma[i])) {
        UNPROTECT(1);
        return R_NilValue;
      }
    for (i = 0; i < d; i++)
      centers[(size_t)k * d + i] = mu[i];
    c = consts + 5 * (size_t)k;
    c[0] = p;
    c[1] = a;
    c[2] = b;
    ghmix_mix_chol_consts(d, l, gamma, gs + (size_t)k * d, c + 3, c + 4);
  }
  UNPROTECT(1);
  return out;
}

/* The E-step statistics raw by name (R/codes.R, estep_blocks()): for each
 * of the lists of positions in comps, the list of raw[positions] by the
 * same names; a block named in the list dims gets that dim attribute. */
static SEXP decode_dim(SEXP dims, const char *name, R_xlen_t len) {
  SEXP nm = Rf_getAttrib(dims, R_NamesSymbol), dim;
  R_xlen_t j;
  for (j = 0; j < XLENGTH(dims); j++) {
    if (strcmp(CHAR(STRING_ELT(nm, j)), name) != 0)
      continue;
    dim = VECTOR_ELT(dims, j);
    if (TYPEOF(dim) != INTSXP || XLENGTH(dim) != 2 ||
        (double)INTEGER(dim)[0] * INTEGER(dim)[1] != (double)len)
      Rf_error("internal error: %s of the wrong dimension", name);
    return dim;
  }
  return R_NilValue;
}

SEXP ffi_estep_decode(SEXP raw, SEXP comps, SEXP dims) {
  R_xlen_t g, k, f, nf, i, len, n = XLENGTH(raw);
  SEXP out;
  if (TYPEOF(raw) != REALSXP || TYPEOF(comps) != VECSXP ||
      TYPEOF(dims) != VECSXP ||
      (XLENGTH(dims) > 0 &&
       TYPEOF(Rf_getAttrib(dims, R_NamesSymbol)) != STRSXP))
    Rf_error("internal error: E-step statistics of the wrong type");
  g = XLENGTH(comps);
  out = PROTECT(Rf_allocVector(VECSXP, g));
  for (k = 0; k < g; k++) {
    SEXP ix = VECTOR_ELT(comps, k), nm, one;
    if (TYPEOF(ix) != VECSXP)
      Rf_error("internal error: E-step statistics of the wrong type");
    nm = Rf_getAttrib(ix, R_NamesSymbol);
    nf = XLENGTH(ix);
    if (TYPEOF(nm) != STRSXP)
      Rf_error("internal error: E-step statistics without names");
    one = Rf_allocVector(VECSXP, nf);
    SET_VECTOR_ELT(out, k, one);
    Rf_setAttrib(one, R_NamesSymbol, nm);
    for (f = 0; f < nf; f++) {
      SEXP pos = VECTOR_ELT(ix, f), v, dim;
      const int *pp;
      if (TYPEOF(pos) != INTSXP)
        Rf_error("internal error: E-step statistics of the wrong type");
      len = XLENGTH(pos);
      pp = INTEGER(pos);
      v = Rf_allocVector(REALSXP, len);
      SET_VECTOR_ELT(one, f, v);
      for (i = 0; i < len; i++) {
        if (pp[i] < 1 || pp[i] > n)
          Rf_error("internal error: a statistic's position is out of range");
        REAL(v)[i] = REAL(raw)[pp[i] - 1];
      }
      dim = decode_dim(dims, CHAR(STRING_ELT(nm, f)), len);
      if (dim != R_NilValue)
        Rf_setAttrib(v, R_DimSymbol, Rf_duplicate(dim));
    }
  }
  UNPROTECT(1);
  return out;
}

/* chol(a) as chol.default gives it (La_chol in R's Lapack.c): the upper
 * factor U, A = U'U, from the upper triangle, with a's attributes; an
 * error where A is not positive definite. */
SEXP ffi_chol_upper(SEXP a) {
  int d = Rf_nrows(a), info = 0, i, j;
  SEXP out;
  double *u;
  if (!Rf_isMatrix(a) || TYPEOF(a) != REALSXP || Rf_ncols(a) != d || d < 1)
    Rf_error("internal error: chol of a non-square or non-double matrix");
  out = PROTECT(Rf_duplicate(a));
  u = REAL(out);
  for (j = 0; j < d; j++)
    for (i = j + 1; i < d; i++)
      u[(size_t)j * d + i] = 0.0;
  F77_CALL(dpotrf)("U", &d, u, &d, &info FCONE);
  if (info > 0)
    Rf_error("the leading minor of order %d is not positive definite", info);
  if (info < 0)
    Rf_error("argument %d of Lapack routine %s had invalid value", -info,
             "dpotrf");
  UNPROTECT(1);
  return out;
}

/* eigen(a, symmetric = TRUE, only.values = TRUE)$values (La_rs in R's
 * Lapack.c, reversed as eigen() reverses them): decreasing. */
SEXP ffi_eigen_values_sym(SEXP a) {
  int n = Rf_nrows(a), lwork = -1, liwork = -1, info = 0, il = 0, iu = 0, m,
      itmp, *iwork, *isuppz, i;
  double vl = 0.0, vu = 0.0, abstol = 0.0, tmp, *x, *w, *work, *v, t;
  R_xlen_t k, len;
  SEXP out;
  if (!Rf_isMatrix(a) || TYPEOF(a) != REALSXP || Rf_ncols(a) != n || n < 1)
    Rf_error("internal error: eigen of a non-square or non-double matrix");
  len = XLENGTH(a);
  for (k = 0; k < len; k++)
    if (!R_FINITE(REAL(a)[k]))
      Rf_error("infinite or missing values in 'x'");
  x = (double *)R_alloc((size_t)n * n, sizeof(double));
  memcpy(x, REAL(a), (size_t)n * n * sizeof(double));
  out = PROTECT(Rf_allocVector(REALSXP, n));
  w = REAL(out);
  isuppz = (int *)R_alloc(2 * (size_t)n, sizeof(int));
  F77_CALL(dsyevr)
  ("N", "A", "L", &n, x, &n, &vl, &vu, &il, &iu, &abstol, &m, w, NULL, &n,
   isuppz, &tmp, &lwork, &itmp, &liwork, &info FCONE FCONE FCONE);
  if (info != 0)
    Rf_error("error code %d from Lapack routine '%s'", info, "dsyevr");
  lwork = (int)tmp;
  liwork = itmp;
  work = (double *)R_alloc(lwork, sizeof(double));
  iwork = (int *)R_alloc(liwork, sizeof(int));
  F77_CALL(dsyevr)
  ("N", "A", "L", &n, x, &n, &vl, &vu, &il, &iu, &abstol, &m, w, NULL, &n,
   isuppz, work, &lwork, iwork, &liwork, &info FCONE FCONE FCONE);
  if (info != 0)
    Rf_error("error code %d from Lapack routine '%s'", info, "dsyevr");
  for (i = 0, v = w + n - 1; i < n / 2; i++, v--) {
    t = w[i];
    w[i] = *v;
    *v = t;
  }
  UNPROTECT(1);
  return out;
}

/* The row-independent inputs of the E-step (ghmix_mix_chol_consts) from
 * the lower factor L of Sigma, gamma and pab = c(p, a, b): list(g =
 * L^-1 gamma, consts = c(p, a, b, gsg, logdet)), consts as the E-step
 * entry points take it. */
SEXP ffi_mix_consts(SEXP chol, SEXP gamma, SEXP pab) {
  static const char *fields[] = {"g", "consts", ""};
  static const char *cnames[] = {"p", "a", "b", "gsg", "logdet"};
  int d = Rf_nrows(chol), i;
  const double *l = ghmix_r_double_matrix(chol, d, d, "chol");
  const double *k = ghmix_r_doubles(pab, "pab");
  SEXP out, g, consts, nm;
  double *c;
  if (XLENGTH(gamma) != d || XLENGTH(pab) != 3)
    Rf_error("internal error: E-step constants of the wrong shape");
  out = PROTECT(Rf_mkNamed(VECSXP, fields));
  g = Rf_allocVector(REALSXP, d);
  SET_VECTOR_ELT(out, 0, g);
  consts = Rf_allocVector(REALSXP, 5);
  SET_VECTOR_ELT(out, 1, consts);
  nm = Rf_allocVector(STRSXP, 5);
  Rf_setAttrib(consts, R_NamesSymbol, nm);
  c = REAL(consts);
  for (i = 0; i < 5; i++)
    SET_STRING_ELT(nm, i, Rf_mkChar(cnames[i]));
  for (i = 0; i < 3; i++)
    c[i] = k[i];
  ghmix_mix_chol_consts(d, l, ghmix_r_doubles(gamma, "gamma"), REAL(g), c + 3,
                        c + 4);
  UNPROTECT(1);
  return out;
}
