#include "bessel_cpu.h"

#include <stddef.h>

#include "../core/elementwise.h"
#include "chunks.h"

static void logk_one(const void *job, size_t i) {
  ghmix_logk_element((const ghmix_logk_args *)job, i);
}

ghmix_status ghmix_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                     const double *nu, size_t nnu, double *logk,
                                     double *grad_x, double *grad_nu,
                                     int threads, ghmix_error *err) {
  /* fewer than 256 values are computed on the calling thread: waking a
   * team costs more (milliseconds on a loaded machine) */
  const ghmix_schedule sched = {GHMIX_CHUNK, 256, 0};
  ghmix_logk_args a = {n, x, nu, nx, nnu, logk, grad_x, grad_nu};
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = ghmix_logk_args_check(&a, err)) != GHMIX_OK)
    return st;
  return ghmix_run_elements(n, sched, logk_one, &a, threads, err);
}
