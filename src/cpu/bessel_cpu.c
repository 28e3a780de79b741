#include "bessel_cpu.h"

#include <stddef.h>

#include "../core/elementwise.h"
#include "chunks.h"

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
  ghmix_bessel_logk_n(m, x, nu, v);
  for (j = 0; j < m; j++)
    a->logk[at[j]] = v[j];
}

/* Blocks of GHMIX_BESSEL_LOGK_BLOCK elements, without derivatives. */
static void logk_values_range(const ghmix_logk_args *a, ptrdiff_t lo,
                              ptrdiff_t hi, int threads) {
  const ptrdiff_t block = GHMIX_BESSEL_LOGK_BLOCK;
  ptrdiff_t nb = (hi - lo + block - 1) / block, b;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)                                  \
    schedule(static) if (threads > 1 && hi - lo >= BESSEL_PARALLEL_MIN)
#endif
  for (b = 0; b < nb; b++)
    logk_block(a, lo + b * block,
               hi - lo - b * block < block ? hi : lo + (b + 1) * block);
  (void)threads;
}

/* Its own loop rather than ghmix_run_elements(), over a private copy of the
 * arguments that the compiler keeps in registers: a value costs about
 * 100 ns, where a call through a function pointer, or reloading the
 * arguments after each Bessel call, shows. */
static void logk_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                       int threads) {
  const ghmix_logk_args a = *(const ghmix_logk_args *)job;
  ptrdiff_t i;
  if (a.grad_x == NULL && a.grad_nu == NULL) {
    logk_values_range(&a, lo, hi, threads);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) firstprivate(a)                  \
    schedule(static) if (threads > 1 && hi - lo >= BESSEL_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++)
    ghmix_logk_element(&a, (size_t)i);
  (void)threads;
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
