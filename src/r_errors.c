/* Turning a ghmix_error into a classed R condition. */
#include "r_ffi.h"

void ghmix_r_stop(const ghmix_error *err) {
  SEXP ns, msg, cls, idx, call;
  ns = PROTECT(R_FindNamespace(PROTECT(Rf_mkString("ghmix"))));
  msg = PROTECT(Rf_mkString(err->message));
  cls = PROTECT(Rf_mkString(ghmix_status_name(err->status)));
  idx = PROTECT(
      Rf_ScalarReal(err->index >= 0 ? (double)err->index + 1.0 : NA_REAL));
  call = PROTECT(Rf_lang4(Rf_install("abort_status"), msg, cls, idx));
  Rf_eval(call, ns);
  /* abort_status() always signals; this is a safety net. */
  UNPROTECT(6);
  Rf_error("%s", err->message);
}

static void check_interrupt(void *data) {
  (void)data;
  R_CheckUserInterrupt();
}

int ghmix_r_interrupt_hook(void) {
  return R_ToplevelExec(check_interrupt, NULL) == FALSE;
}
