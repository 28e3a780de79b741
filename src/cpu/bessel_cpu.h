/* Threaded batch drivers over the per-element Bessel functions of
 * src/core/bessel.h.  Plain C, no R headers. */
#ifndef GHMIX_BESSEL_CPU_H
#define GHMIX_BESSEL_CPU_H

#include <stddef.h>

#include "../core/status.h"

/* Elements processed between two interrupt polls. */
#define GHMIX_CHUNK ((size_t)1 << 16)

/* log K_nu(x) for i = 0..n-1 at x[i % nx], nu[i % nnu] (recycling as in R).
 *
 * logk must hold n doubles.  grad_x and grad_nu (d/dx and d/dnu of log K)
 * may each be NULL; when both are, only log K is computed.  Special values:
 * NaN in x or nu gives x + nu (an R NA stays NA); x < 0 gives NaN; x == 0
 * gives +Inf; x == +Inf gives -Inf; |nu| == Inf with 0 <= x < Inf gives +Inf;
 * x and |nu| both infinite give NaN.  The derivatives follow the same limits.
 *
 * threads is clamped to [1, ghmix_max_threads()].  The work is split into
 * chunks of GHMIX_CHUNK elements and ghmix_check_interrupt() is polled
 * between chunks, from the calling thread only; an interrupt returns
 * GHMIX_ERR_INTERRUPTED (logk etc. then hold partial results).  Results do
 * not depend on the thread count.  Returns GHMIX_OK, or GHMIX_ERR_DOMAIN when
 * n > 0 and nx or nnu is 0. */
ghmix_status ghmix_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                     const double *nu, size_t nnu, double *logk,
                                     double *grad_x, double *grad_nu,
                                     int threads, ghmix_error *err);

#endif
