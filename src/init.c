/* .Call registration only. */
#include <R_ext/Rdynload.h>

#include "r_ffi.h"

static const R_CallMethodDef call_methods[] = {
    {"ffi_log_besselK", (DL_FUNC)&ffi_log_besselK, 4},
    {"ffi_build_info", (DL_FUNC)&ffi_build_info, 0},
    {"ffi_cuda_devices", (DL_FUNC)&ffi_cuda_devices, 0},
    {"ffi_cuda_require", (DL_FUNC)&ffi_cuda_require, 0},
    {"ffi_max_threads", (DL_FUNC)&ffi_max_threads, 0},
    {NULL, NULL, 0}};

void R_init_ghmix(DllInfo *dll) {
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  ghmix_set_interrupt_hook(ghmix_r_interrupt_hook);
}
