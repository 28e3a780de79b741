/* Turning a ghmix_error into a classed R condition. */
#include "r_ffi.h"

static const char *status_class(ghmix_status status) {
  switch (status) {
  case GHMIX_OK:
    return "ok";
  case GHMIX_ERR_DOMAIN:
    return "domain";
  case GHMIX_ERR_NOMEM:
    return "nomem";
  case GHMIX_ERR_INTERRUPTED:
    return "interrupted";
  case GHMIX_ERR_NO_CONVERGENCE:
    return "no_convergence";
  case GHMIX_ERR_INFEASIBLE:
    return "infeasible";
  case GHMIX_ERR_CUDA_NOT_BUILT:
    return "cuda_not_built";
  case GHMIX_ERR_NO_DEVICE:
    return "no_device";
  case GHMIX_ERR_CUDA:
    return "cuda";
  }
  return "unknown";
}

void ghmix_r_stop(const ghmix_error *err) {
  SEXP ns, msg, cls, idx, call;
  ns = PROTECT(R_FindNamespace(PROTECT(Rf_mkString("ghmix"))));
  msg = PROTECT(Rf_mkString(err->message));
  cls = PROTECT(Rf_mkString(status_class(err->status)));
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
