#include "bessel_cpu.h"

#include <stddef.h>

#include "../core/elementwise.h"
#include "chunks.h"
#include "pool.h"

/* Fewer values than this are computed on the calling thread: waking a team
 * costs more (milliseconds on a loaded machine) than a few hundred values. */
#define BESSEL_PARALLEL_MIN 256

/* Its own loop rather than ghmix_run_elements(), over a private copy of the
 * arguments that the compiler keeps in registers: a value costs about
 * 100 ns, where a call through a function pointer, or reloading the
 * arguments after each Bessel call, shows. */
static void logk_unit(const void *job, size_t lo, size_t hi, int thread) {
  const ghmix_logk_args a = *(const ghmix_logk_args *)job;
  size_t i;
  (void)thread;
  for (i = lo; i < hi; i++)
    ghmix_logk_element(&a, i);
}

static void logk_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                       int threads) {
  size_t n = (size_t)(hi - lo);
  if (n < BESSEL_PARALLEL_MIN)
    threads = 1;
  ghmix_parallel_for((size_t)lo, (size_t)hi,
                     ghmix_claims_unit(n, threads, BESSEL_PARALLEL_MIN),
                     threads, logk_unit, job);
}

ghmix_status ghmix_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                     const double *nu, size_t nnu, double *logk,
                                     double *grad_x, double *grad_nu,
                                     int threads, ghmix_error *err) {
  ghmix_logk_args a = {n, x, nu, nx, nnu, logk, grad_x, grad_nu};
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = ghmix_logk_args_check(&a, err)) != GHMIX_OK)
    return st;
  return ghmix_run_chunks(n, GHMIX_CHUNK, logk_range, &a, threads, err);
}
