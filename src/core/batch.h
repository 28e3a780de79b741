/* What every batch driver (src/cpu, and the serial sampler in src/core)
 * shares: R's recycling of vector arguments and the
 * status of a batch stopped by an interrupt between chunks. */
#ifndef GHMIX_BATCH_H
#define GHMIX_BATCH_H

#include <stddef.h>

#include "status.h"

/* Index into a recycled input of length m for output element i (of n). */
static inline size_t ghmix_recycle(ptrdiff_t i, size_t m, size_t n) {
  return m == n ? (size_t)i : (m == 1 ? 0 : (size_t)i % m);
}

static inline ghmix_status ghmix_interrupted(ghmix_error *err, size_t done,
                                             size_t n) {
  return ghmix_error_set(err, GHMIX_ERR_INTERRUPTED, (ptrdiff_t)done,
                         "interrupted after %lu of %lu values",
                         (unsigned long)done, (unsigned long)n);
}

#endif
