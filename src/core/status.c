#include "status.h"

#include <stdarg.h>
#include <stdio.h>

static ghmix_interrupt_hook interrupt_hook = NULL;

void ghmix_error_clear(ghmix_error *err) {
  err->status = GHMIX_OK;
  err->index = -1;
  err->message[0] = '\0';
}

ghmix_status ghmix_error_set(ghmix_error *err, ghmix_status status,
                             ptrdiff_t index, const char *fmt, ...) {
  va_list args;
  err->status = status;
  err->index = index;
  va_start(args, fmt);
  vsnprintf(err->message, GHMIX_MSG_LEN, fmt, args);
  va_end(args);
  return status;
}

const char *ghmix_status_name(ghmix_status status) {
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
  case GHMIX_ERR_CUDA_FAULT:
    return "cuda_fault";
  }
  return "unknown";
}

void ghmix_set_interrupt_hook(ghmix_interrupt_hook hook) {
  interrupt_hook = hook;
}

int ghmix_check_interrupt(void) {
  return interrupt_hook != NULL && interrupt_hook();
}
