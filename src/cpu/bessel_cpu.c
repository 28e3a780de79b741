#include "bessel_cpu.h"

#include <stddef.h>

#include "../core/elementwise.h"
#include "chunks.h"
#include "pool.h"

/* Fewer values than this are computed on the calling thread: waking a team
 * costs more (milliseconds on a loaded machine) than a few hundred values. */
#define BESSEL_PARALLEL_MIN 256

/* log K alone at elements lo..hi-1 (at most GHMIX_BESSEL_LOGK_BLOCK):
 * the special values here, the rest by ghmix_bessel_logk_n, which
 * evaluates the continued fraction's points several at a time. */
static void logk_block(const ghmix_logk_args *a, ptrdiff_t lo, ptrdiff_t hi) {
  double x[GHMIX_BESSEL_LOGK_BLOCK], nu[GHMIX_BESSEL_LOGK_BLOCK];
  double v[GHMIX_BESSEL_LOGK_BLOCK];
  ptrdiff_t at[GHMIX_BESSEL_LOGK_BLOCK], i;
  int m = 0, j;
  for (i = lo; i < hi; i++) {
    double xi = a->x[ghmix_recycle(i, a->nx, a->n)];
    double nui = a->nu[ghmix_recycle(i, a->nnu, a->n)];
    double gx, gnu;
    if (ew_logk_special(xi, nui, &a->logk[i], &gx, &gnu))
      continue;
    x[m] = xi;
    nu[m] = nui;
    at[m++] = i;
  }
  if (m == 0)
    return;
  ghmix_bessel_logk_n(m, x, nu, v);
  for (j = 0; j < m; j++)
    a->logk[at[j]] = v[j];
}

/* Elements [lo, hi) without derivatives, GHMIX_BESSEL_LOGK_BLOCK at a
 * time (a point's value does not depend on the block it falls in). */
static void logk_values_unit(const void *job, size_t lo, size_t hi,
                             int thread) {
  const ghmix_logk_args *a = (const ghmix_logk_args *)job;
  const size_t block = GHMIX_BESSEL_LOGK_BLOCK;
  (void)thread;
  for (; lo < hi; lo += block)
    logk_block(a, (ptrdiff_t)lo,
               (ptrdiff_t)(hi - lo < block ? hi : lo + block));
}

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
  const ghmix_logk_args *a = (const ghmix_logk_args *)job;
  size_t n = (size_t)(hi - lo);
  if (n < BESSEL_PARALLEL_MIN)
    threads = 1;
  ghmix_parallel_for(
      (size_t)lo, (size_t)hi,
      ghmix_claims_unit(n, threads, BESSEL_PARALLEL_MIN), threads,
      a->grad_x == NULL && a->grad_nu == NULL ? logk_values_unit : logk_unit,
      job);
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
