/* Threaded batch drivers for the GIG distribution functions of
 * src/core/gig.h (density, distribution and quantile functions).  Plain C,
 * no R headers.  The random variates are drawn by ghmix_gig_sample() in the
 * core, on the calling thread only. */
#ifndef GHMIX_GIG_CPU_H
#define GHMIX_GIG_CPU_H

#include <stddef.h>

#include "../core/status.h"

typedef enum {
  GHMIX_GIG_FUN_DENSITY = 0,
  GHMIX_GIG_FUN_CDF = 1,
  GHMIX_GIG_FUN_QUANTILE = 2
} ghmix_gig_fun;

/* out[i] = fun(x[i % nx]; p[i % np], a[i % na], b[i % nb]) for
 * i = 0..n-1 (recycling as in R), with base-R semantics (see
 * ghmix_gig_density / _cdf / _qf in gig.h): for the density flag1 is
 * give_log and flag2 is ignored; for the distribution and quantile
 * functions flag1 is lower_tail and flag2 is log_p.
 *
 * A parameter set is prepared once per run of equal consecutive values on
 * each thread (once in all when p, a and b have length 1).  threads is
 * clamped to [1, ghmix_max_threads()]; the work is split into chunks and
 * ghmix_check_interrupt() is polled between them from the calling thread
 * only (GHMIX_ERR_INTERRUPTED: out holds partial results).  Results do not
 * depend on the thread count.  Returns GHMIX_OK, or GHMIX_ERR_DOMAIN when
 * n > 0 and an input is empty. */
ghmix_status ghmix_gig_dpq_batch(ghmix_gig_fun fun, size_t n, const double *x,
                                 size_t nx, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, int flag1, int flag2, double *out,
                                 int threads, ghmix_error *err);

#endif
