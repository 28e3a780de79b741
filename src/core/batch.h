/* What every batch driver (src/cpu, src/cuda, and the serial sampler in
 * src/core) shares: R's recycling of vector arguments, the propagation of
 * NaN inputs, and the status of a batch stopped by an interrupt between
 * chunks.  The per-element bodies themselves are in elementwise.h. */
#ifndef GHMIX_BATCH_H
#define GHMIX_BATCH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ghmix_hd.h"
#include "status.h"

/* Index into a recycled input of length m for output element i (of n). */
GHMIX_INLINE size_t ghmix_recycle(ptrdiff_t i, size_t m, size_t n) {
  return m == n ? (size_t)i : (m == 1 ? 0 : (size_t)i % m);
}

/* x + y when x or y is NaN, as x86 (and Arm) compute it: the first NaN
 * operand, quieted, so that R's NA (a NaN with payload 1954) stays NA.  A
 * GPU's arithmetic returns its canonical NaN instead, losing the NA; batch
 * code that runs on both propagates NaN inputs with this.  x + y otherwise. */
GHMIX_INLINE double ghmix_na_sum(double x, double y) {
  double v = isnan(x) ? x : y;
  uint64_t bits;
  if (!isnan(v))
    return x + y;
  memcpy(&bits, &v, sizeof bits);
  bits |= (uint64_t)1 << 51; /* the quiet bit */
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* The status of a batch with an empty input `what` and n > 0 (host only). */
static inline ghmix_status ghmix_empty_input(ghmix_error *err,
                                             const char *what) {
  return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                         "%s must not be empty when n > 0", what);
}

/* The status of a batch stopped by an interrupt after `done` of n elements
 * (host only). */
static inline ghmix_status ghmix_interrupted(ghmix_error *err, size_t done,
                                             size_t n) {
  return ghmix_error_set(err, GHMIX_ERR_INTERRUPTED, (ptrdiff_t)done,
                         "interrupted after %.0f of %.0f values", (double)done,
                         (double)n);
}

#endif
