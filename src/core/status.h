/* Status codes shared by the core, the CPU drivers, the CUDA backend and the
 * R glue (which turns each into a classed R condition).  */
#ifndef GHMIX_STATUS_H
#define GHMIX_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GHMIX_OK = 0,
  GHMIX_ERR_DOMAIN = 1,      /* an argument outside the function's domain */
  GHMIX_ERR_NOMEM = 2,       /* an allocation failed */
  GHMIX_ERR_INTERRUPTED = 3, /* the user interrupted a long computation */
  GHMIX_ERR_NO_CONVERGENCE = 4,
  GHMIX_ERR_INFEASIBLE = 5,
  GHMIX_ERR_CUDA_NOT_BUILT = 6,
  GHMIX_ERR_NO_DEVICE = 7,
  GHMIX_ERR_CUDA = 8,
  GHMIX_ERR_CUDA_FAULT = 9 /* a sticky CUDA error: the process's GPU context
                              is lost until it restarts */
} ghmix_status;

#define GHMIX_MSG_LEN 256

/* Details of the first failure: which element and why. */
typedef struct {
  ghmix_status status;
  ptrdiff_t index; /* 0-based element, or -1 when not tied to one */
  char message[GHMIX_MSG_LEN];
} ghmix_error;

void ghmix_error_clear(ghmix_error *err);
ghmix_status ghmix_error_set(ghmix_error *err, ghmix_status status,
                             ptrdiff_t index, const char *fmt, ...);
/* snake_case name of a status; the R glue signals ghmix_error_<name>. */
const char *ghmix_status_name(ghmix_status status);

/* Hooks the core calls back into its host (R, a C test, ...), set once. */
typedef int (*ghmix_interrupt_hook)(void); /* nonzero: stop now */
void ghmix_set_interrupt_hook(ghmix_interrupt_hook hook);
int ghmix_check_interrupt(void);

#ifdef __cplusplus
}
#endif

#endif
