/* The codes and layouts that R shares with C, read by R from here (so no
 * code or offset is written as a literal in R/): ffi_codes() once when the
 * package is loaded, ffi_estep_layout() once per model shape. */
#include <limits.h>

#include "core/elementwise.h"
#include "core/estep.h"
#include "core/gig_solve.h"
#include "core/mixture.h"
#include "r_ffi.h"

typedef struct {
  const char *name;
  int value;
} code_entry;

static SEXP named_ints(const code_entry *e, int n) {
  SEXP out = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, n));
  int i;
  for (i = 0; i < n; i++) {
    INTEGER(out)[i] = e[i].value;
    SET_STRING_ELT(names, i, Rf_mkChar(e[i].name));
  }
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(2);
  return out;
}

#define CODE_GROUP(e) named_ints(e, (int)(sizeof(e) / sizeof(e[0])))

SEXP ffi_codes(void) {
  static const code_entry family[] = {{"gh", GHMIX_FAMILY_GH},
                                      {"nig", GHMIX_FAMILY_NIG},
                                      {"vg", GHMIX_FAMILY_VG},
                                      {"skewt", GHMIX_FAMILY_SKEWT}};
  static const code_entry cov[] = {{"full", GHMIX_COV_FULL},
                                   {"factor", GHMIX_COV_FACTOR}};
  static const code_entry estep[] = {{"moments", GHMIX_ESTEP_MOMENTS},
                                     {"logy", GHMIX_ESTEP_LOGY},
                                     {"weights", GHMIX_ESTEP_WEIGHTS}};
  static const code_entry estep_row[] = {{"loglik", GHMIX_ROW_LOGLIK},
                                         {"inv_y", GHMIX_ROW_INV_Y},
                                         {"y", GHMIX_ROW_Y},
                                         {"log_y", GHMIX_ROW_LOG_Y}};
  static const code_entry gig_note[] = {
      {"interior", GHMIX_GIG_NOTE_INTERIOR},
      {"gamma", GHMIX_GIG_NOTE_GAMMA},
      {"gamma_mle", GHMIX_GIG_NOTE_GAMMA_MLE},
      {"invgamma", GHMIX_GIG_NOTE_INVGAMMA},
      {"invgamma_mle", GHMIX_GIG_NOTE_INVGAMMA_MLE},
      {"out_of_range", GHMIX_GIG_NOTE_OUT_OF_RANGE}};
  static const code_entry gig_infeasible[] = {
      {"feasible", GHMIX_GIG_INFEASIBLE_NONE},
      {"product", GHMIX_GIG_INFEASIBLE_PRODUCT},
      {"upper", GHMIX_GIG_INFEASIBLE_UPPER},
      {"lower", GHMIX_GIG_INFEASIBLE_LOWER}};
  static const code_entry gig_moment[] = {
      {"raw", GHMIX_GIG_MOMENT_RAW}, {"variance", GHMIX_GIG_MOMENT_VARIANCE}};
  static const char *groups[] = {"family",     "cov",      "estep",
                                 "estep_row",  "gig_note", "gig_infeasible",
                                 "gig_moment", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, groups));
  SET_VECTOR_ELT(out, 0, CODE_GROUP(family));
  SET_VECTOR_ELT(out, 1, CODE_GROUP(cov));
  SET_VECTOR_ELT(out, 2, CODE_GROUP(estep));
  SET_VECTOR_ELT(out, 3, CODE_GROUP(estep_row));
  SET_VECTOR_ELT(out, 4, CODE_GROUP(gig_note));
  SET_VECTOR_ELT(out, 5, CODE_GROUP(gig_infeasible));
  SET_VECTOR_ELT(out, 6, CODE_GROUP(gig_moment));
  UNPROTECT(1);
  return out;
}

static int layout_int(SEXP x, const char *what) {
  int v = Rf_asInteger(x);
  if (v == NA_INTEGER)
    Rf_error("internal error: E-step layout: %s must be an integer", what);
  return v;
}

/* One block's description for R: c(start (1-based), length, nrow, ncol,
 * component (0 for the whole model, else 1..G)), named so. */
static SEXP layout_block(ghmix_stat_block b, int k) {
  static const char *names[] = {"start", "length", "nrow", "ncol", "component"};
  SEXP v = PROTECT(Rf_allocVector(INTSXP, 5));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, 5));
  int i;
  INTEGER(v)[0] = (int)b.offset + 1;
  INTEGER(v)[1] = (int)b.length;
  INTEGER(v)[2] = b.rows;
  INTEGER(v)[3] = b.cols;
  INTEGER(v)[4] = k + 1;
  for (i = 0; i < 5; i++)
    SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
  Rf_setAttrib(v, R_NamesSymbol, nm);
  UNPROTECT(2);
  return v;
}

/* The blocks of the statistics of a shape: a list with nstats and, per
 * block present in the shape, its layout_block(), named by the block's
 * name (the same name once per component). */
SEXP ffi_estep_layout(SEXP d, SEXP components, SEXP cov, SEXP factors,
                      SEXP what) {
  ghmix_estep_shape s;
  SEXP blocks, names, out;
  int k, id, n = 0, i = 0;
  s.d = layout_int(d, "d");
  s.components = layout_int(components, "components");
  s.cov = layout_int(cov, "cov");
  s.factors = layout_int(factors, "factors");
  s.what = layout_int(what, "what");
  if (!ghmix_estep_shape_valid(&s))
    Rf_error("internal error: invalid E-step shape");
  if (ghmix_estep_nstats(&s) > (size_t)INT_MAX)
    Rf_error("d = %d is too large for the E-step statistics", s.d);
  for (k = -1; k < s.components; k++)
    for (id = 0; id < GHMIX_STAT_COUNT; id++)
      if ((k < 0) == ghmix_stat_is_global((ghmix_stat_id)id) &&
          ghmix_estep_stat(&s, k < 0 ? 0 : k, (ghmix_stat_id)id).length > 0)
        n++;
  blocks = PROTECT(Rf_allocVector(VECSXP, n));
  names = PROTECT(Rf_allocVector(STRSXP, n));
  for (k = -1; k < s.components; k++)
    for (id = 0; id < GHMIX_STAT_COUNT; id++) {
      ghmix_stat_block b;
      if ((k < 0) != ghmix_stat_is_global((ghmix_stat_id)id))
        continue;
      b = ghmix_estep_stat(&s, k < 0 ? 0 : k, (ghmix_stat_id)id);
      if (b.length == 0)
        continue;
      SET_VECTOR_ELT(blocks, i, layout_block(b, k));
      SET_STRING_ELT(names, i, Rf_mkChar(ghmix_stat_name((ghmix_stat_id)id)));
      i++;
    }
  Rf_setAttrib(blocks, R_NamesSymbol, names);
  {
    static const char *fields[] = {"nstats", "blocks", ""};
    out = PROTECT(Rf_mkNamed(VECSXP, fields));
  }
  SET_VECTOR_ELT(out, 0, Rf_ScalarReal((double)ghmix_estep_nstats(&s)));
  SET_VECTOR_ELT(out, 1, blocks);
  UNPROTECT(3);
  return out;
}
