#include "bessel_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/batch.h"
#include "../core/bessel.h"
#include "threads.h"

/* Fewer values than this are computed on the calling thread: waking a team
 * costs more (milliseconds on a loaded machine) than a few hundred values. */
#define BESSEL_PARALLEL_MIN 256

static void logk_range(ptrdiff_t lo, ptrdiff_t hi, size_t n, const double *x,
                       size_t nx, const double *nu, size_t nnu, double *logk,
                       int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)                                  \
    schedule(static) if (threads > 1 && hi - lo >= BESSEL_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++) {
    double xi = x[ghmix_recycle(i, nx, n)], nui = nu[ghmix_recycle(i, nnu, n)],
           gx, gnu;
    if (!ghmix_logk_special(xi, nui, &logk[i], &gx, &gnu))
      logk[i] = ghmix_bessel_logk(xi, nui);
  }
  (void)threads;
}

static void grad_range(ptrdiff_t lo, ptrdiff_t hi, size_t n, const double *x,
                       size_t nx, const double *nu, size_t nnu, double *logk,
                       double *grad_x, double *grad_nu, int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)                                  \
    schedule(static) if (threads > 1 && hi - lo >= BESSEL_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++) {
    double xi = x[ghmix_recycle(i, nx, n)], nui = nu[ghmix_recycle(i, nnu, n)],
           v, gx, gnu;
    if (!ghmix_logk_special(xi, nui, &v, &gx, &gnu)) {
      ghmix_bessel_result r;
      ghmix_bessel_eval(xi, nui, GHMIX_BESSEL_GRAD, &r);
      v = r.logk;
      gx = r.dx;
      gnu = r.dnu;
    }
    logk[i] = v;
    if (grad_x != NULL)
      grad_x[i] = gx;
    if (grad_nu != NULL)
      grad_nu[i] = gnu;
  }
  (void)threads;
}

ghmix_status ghmix_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                     const double *nu, size_t nnu, double *logk,
                                     double *grad_x, double *grad_nu,
                                     int threads, ghmix_error *err) {
  size_t start;
  int want_grad = grad_x != NULL || grad_nu != NULL;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (nx == 0 || nnu == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "x and nu must not be empty when n > 0");
  threads = ghmix_clamp_threads(threads);
  for (start = 0; start < n; start += GHMIX_CHUNK) {
    size_t end = n - start > GHMIX_CHUNK ? start + GHMIX_CHUNK : n;
    if (want_grad)
      grad_range((ptrdiff_t)start, (ptrdiff_t)end, n, x, nx, nu, nnu, logk,
                 grad_x, grad_nu, threads);
    else
      logk_range((ptrdiff_t)start, (ptrdiff_t)end, n, x, nx, nu, nnu, logk,
                 threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}
