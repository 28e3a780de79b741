/* Sums and differences of numbers held as their logarithms, and
 * probabilities that may be given as theirs. */
#ifndef GHMIX_LOGSPACE_H
#define GHMIX_LOGSPACE_H

#include <math.h>

#include "ghmix_hd.h"

/* log(e^x + e^y); -Inf terms allowed. */
GHMIX_INLINE double ghmix_log_add(double x, double y) {
  double hi = x > y ? x : y, lo = x > y ? y : x;
  if (lo == -INFINITY)
    return hi;
  return hi + log1p(exp(lo - hi));
}

/* log(e^x - e^y) for y <= x - log 2 (no cancellation). */
GHMIX_INLINE double ghmix_log_sub(double x, double y) {
  return x + log1p(-exp(y - x));
}

/* log(1 - e^x) for x <= 0, accurate at both ends (Maechler 2012, "Accurately
 * computing log(1 - exp(-|a|))", the Rmpfr vignette). */
GHMIX_INLINE double ghmix_log1m_exp(double x) {
  return x > -0.6931471805599453 ? log(-expm1(x)) : log1p(-exp(x));
}

/* 1 when prob is a probability: in [0, 1], or, as a log (log_p), in
 * [-Inf, 0]. */
GHMIX_INLINE int ghmix_prob_ok(double prob, int log_p) {
  return log_p ? prob <= 0 : prob >= 0 && prob <= 1;
}

#endif
