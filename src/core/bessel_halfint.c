/* K_{n+1/2}(x) = sqrt(pi / (2x)) e^-x S_n(y), y = 1/(2x), with
 * S_n(y) = sum_{k=0}^n c_k y^k, c_k = (n+k)! / (k! (n-k)!)  (DLMF 10.49.12).
 * All terms are positive, so the sum loses nothing.  For y > 1 it is summed
 * from the top term down, S_n = c_n y^n T_n with
 * T_n = sum_j (c_{n-j} / c_n) y^-j, so that nothing overflows for tiny x;
 * c_n = (2n)!/n!, so c_n(n) / c_{n-1}(n-1) = 2 (2n - 1) and the ratio
 * S_{n-1}/S_n comes without logarithms (which would cost digits when
 * log S_n is large). */
#include "bessel_impl.h"

#include <math.h>

#define HALFINT_LOG_SQRT_PI_2 0.22579135264472743236 /* log sqrt(pi/2) */

/* S_n(y) for y <= 1, T_n(y) for y > 1. */
GHMIX_INLINE double halfint_sum(int n, double y) {
  double term = 1.0, sum = 1.0;
  int k;
  if (y <= 1.0) {
    for (k = 0; k < n; k++) {
      term *= y * (double)((n + k + 1) * (n - k)) / (double)(k + 1);
      sum += term;
    }
  } else {
    /* c_{k-1} / c_k = k / ((n + k)(n - k + 1)) */
    for (k = n; k > 0; k--) {
      term *= (double)k / ((double)((n + k) * (n - k + 1)) * y);
      sum += term;
    }
  }
  return sum;
}

/* S_{n-1}(y) / S_n(y) (n >= 1) as K_{n-1/2}(x) / K_{n+1/2}(x). */
GHMIX_INLINE double halfint_ratio_down(int n, double y, double sn) {
  double sm = halfint_sum(n - 1, y);
  if (y <= 1.0)
    return sm / sn;
  return sm / (sn * 2.0 * (2 * n - 1) * y);
}

GHMIX_HD void ghmix_bessel_halfint(double x, int n, int what,
                                   ghmix_bessel_result *res) {
  double y = 0.5 / x, sn = halfint_sum(n, y), ls;
  if (y <= 1.0) {
    ls = log(sn);
  } else {
    double cn = 1.0;
    int k;
    for (k = 1; k <= n; k++)
      cn *= (double)(n + k);
    ls = log(cn) - n * log(2.0 * x) + log(sn);
  }
  res->logk = HALFINT_LOG_SQRT_PI_2 - 0.5 * log(x) - x + ls;
  if (what & GHMIX_BESSEL_RATIOS) {
    /* K_{-1/2} = K_{1/2}; upwards by K_{nu+1} = K_{nu-1} + (2 nu / x) K_nu
     * (DLMF 10.29.1), a sum of positive terms */
    res->ratio_down = n == 0 ? 1.0 : halfint_ratio_down(n, y, sn);
    res->ratio_up = res->ratio_down + (2 * n + 1) / x;
  }
}
