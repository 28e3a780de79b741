/* What every batch driver (src/cpu, src/cuda, and the serial sampler in
 * src/core) shares: R's recycling of vector arguments, the values at the
 * edges of the per-element functions' domains, and the status of a batch
 * stopped by an interrupt between chunks. */
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

/* log K_nu(x), d/dx and d/dnu where x > 0 and nu finite do not both hold
 * (see ghmix_bessel_logk_batch in src/cpu/bessel_cpu.h): NaN in gives
 * x + nu (an R NA stays NA), x < 0 NaN, x = +Inf -Inf (NaN with |nu| =
 * Inf), x = 0 or |nu| = Inf +Inf.  Returns 1 when it has filled the outputs,
 * 0 when (x, nu) is inside the domain of ghmix_bessel_eval. */
GHMIX_INLINE int ghmix_logk_special(double x, double nu, double *v, double *gx,
                                    double *gnu) {
  if (isnan(x) || isnan(nu)) {
    *v = *gx = *gnu = ghmix_na_sum(x, nu); /* keeps R's NA payload */
    return 1;
  }
  if (x < 0) {
    *v = *gx = *gnu = NAN;
    return 1;
  }
  if (isinf(x)) { /* x = +Inf: K -> 0 */
    if (isinf(nu)) {
      *v = *gx = *gnu = NAN;
    } else {
      *v = -INFINITY;
      *gx = -1.0;
      *gnu = 0.0;
    }
    return 1;
  }
  if (x == 0 || isinf(nu)) { /* K -> +Inf */
    *v = INFINITY;
    *gx = -INFINITY;
    *gnu = nu == 0 ? 0.0 : copysign(INFINITY, nu);
    return 1;
  }
  return 0;
}

static inline ghmix_status ghmix_interrupted(ghmix_error *err, size_t done,
                                             size_t n) {
  return ghmix_error_set(err, GHMIX_ERR_INTERRUPTED, (ptrdiff_t)done,
                         "interrupted after %lu of %lu values",
                         (unsigned long)done, (unsigned long)n);
}

#endif
