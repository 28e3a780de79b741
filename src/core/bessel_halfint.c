/* K_{n+1/2}(x) = sqrt(pi / (2x)) e^-x S_n(y), y = 1/(2x), with
 * S_n(y) = sum_{k=0}^n c_k y^k, c_k = (n+k)! / (k! (n-k)!)  (DLMF 10.49.12).
 * All terms are positive, so the sum loses nothing.  For y > 1 it is summed
 * from the top term down, S_n = c_n y^n T_n with
 * T_n = sum_j (c_{n-j} / c_n) y^-j, so that nothing overflows for tiny x;
 * c_n = (2n)!/n!, so c_{n+1}(n+1) / c_n(n) = 2 (2n + 1) and the ratios
 * S_{n+1}/S_n come without logarithms (which would cost digits when
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

/* S_{m}(y) / S_n(y) for m = n + 1 (up = 1) or m = n - 1 (up = 0, n >= 1). */
GHMIX_INLINE double halfint_ratio(int n, double y, double sn, int up) {
  int m = up ? n + 1 : n - 1;
  double sm = halfint_sum(m, y);
  if (y <= 1.0)
    return sm / sn;
  return up ? 2.0 * (2 * n + 1) * y * sm / sn
            : sm / (sn * 2.0 * (2 * n - 1) * y);
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
    res->ratio_up = halfint_ratio(n, y, sn, 1);
    /* K_{-1/2} = K_{1/2} */
    res->ratio_down = n == 0 ? 1.0 : halfint_ratio(n, y, sn, 0);
  }
}
