/* log K_nu(x) for large x by Hankel's expansion (DLMF 10.40.2):
 *   K_nu(x) ~ sqrt(pi / (2x)) e^{-x} sum_k a_k(nu) / x^k,
 *   a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k).
 * For real nu and x > 0 the remainder after the k-th term is bounded by the
 * first neglected term once k >= nu - 1/2 (DLMF 10.40(ii)), so summing until
 * the terms fall below 1e-17 of the sum is safe where the smallest term is
 * far below that (x >= GHMIX_HANKEL_X_MIN with nu < 16).  The nu-derivatives
 * come from carrying each term with its first two nu-derivatives; the
 * x-derivatives from d/dx (t_k / x^k) = -k t_k / x^{k+1}. */
#include "bessel_impl.h"

#include <math.h>

#define HALF_LOG_HALF_PI 0.22579135264472743 /* log(pi / 2) / 2 */
#define HANKEL_MAX_TERMS 200

typedef struct {
  double s, s_nu, s_nunu; /* sum t_k and its nu-derivatives */
  double k_s, k_s_nu;     /* sum k t_k, sum k dt_k/dnu */
  double kk_s;            /* sum k (k + 1) t_k */
  int converged;
} hankel_sums;

GHMIX_INLINE hankel_sums hankel_sum(double x, double nu) {
  hankel_sums acc = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0};
  double mu4 = 4.0 * nu * nu;
  double t = 1.0, t_nu = 0.0, t_nunu = 0.0;
  for (int k = 1; k <= HANKEL_MAX_TERMS; k++) {
    double odd = 2.0 * k - 1.0, scale = 1.0 / (8.0 * k * x);
    double q = (mu4 - odd * odd) * scale, q_nu = 8.0 * nu * scale,
           q_nunu = 8.0 * scale;
    t_nunu = t_nunu * q + 2.0 * t_nu * q_nu + t * q_nunu;
    t_nu = t_nu * q + t * q_nu;
    t = t * q;
    acc.s += t;
    acc.s_nu += t_nu;
    acc.s_nunu += t_nunu;
    acc.k_s += k * t;
    acc.k_s_nu += k * t_nu;
    acc.kk_s += k * (k + 1.0) * t;
    double size = (fabs(t) * (k + 1.0) + fabs(t_nu)) * (k + 1.0) + fabs(t_nunu);
    if (k > nu && size < 1e-17 * fabs(acc.s)) {
      acc.converged = 1;
      break;
    }
  }
  return acc;
}

GHMIX_HD int ghmix_bessel_hankel(double x, double nu, int what,
                                 ghmix_bessel_result *res) {
  hankel_sums acc = hankel_sum(x, nu);
  if (!acc.converged)
    return 0;
  double inv = 1.0 / acc.s;
  res->logk = HALF_LOG_HALF_PI - 0.5 * log(x) - x + log(acc.s);
  if (what == 0)
    return 1;
  double mean_nu = acc.s_nu * inv;
  double sx = -acc.k_s * inv / x; /* (d/dx S) / S */
  double dx = -0.5 / x - 1.0 + sx;
  if (what & GHMIX_BESSEL_GRAD) {
    res->dx = dx;
    res->dnu = mean_nu;
  }
  if (what & GHMIX_BESSEL_HESS) {
    res->dnu2 = acc.s_nunu * inv - mean_nu * mean_nu;
    res->dnudx = -acc.k_s_nu * inv / x - sx * mean_nu;
    res->dx2 = 0.5 / (x * x) + acc.kk_s * inv / (x * x) - sx * sx;
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    /* K'_nu = -K_{nu+1} + (nu/x) K_nu = -K_{nu-1} - (nu/x) K_nu; with
     * -dx > 1 and nu / x < 0.4 the difference loses under 2 bits */
    res->ratio_up = nu / x - dx;
    res->ratio_down = -dx - nu / x;
  }
  return 1;
}

/* log K + x = (1/2) log(pi / (2x)) + log S; with K' / K = -1 - 1/(2x) + sx,
 * sx = S' / S, the ratios less 1 are K_{nu+1} / K_nu - 1 = (nu + 1/2) / x
 * - sx and K_{nu-1} / K_nu - 1 = (1/2 - nu) / x - sx (DLMF 10.29.2), each
 * O(1/x) with its own relative accuracy. */
GHMIX_HD int ghmix_bessel_hankel_scaled(double x, double nu, int what,
                                        ghmix_bessel_scaled_result *res) {
  hankel_sums acc = hankel_sum(x, nu);
  if (!acc.converged)
    return 0;
  res->lks = HALF_LOG_HALF_PI - 0.5 * log(x) + log(acc.s);
  if (what & GHMIX_BESSEL_GRAD)
    res->dnu = acc.s_nu / acc.s;
  if (what & GHMIX_BESSEL_RATIOS) {
    double sx = -acc.k_s / (acc.s * x);
    res->up_m1 = (nu + 0.5) / x - sx;
    res->down_m1 = (0.5 - nu) / x - sx;
  }
  return 1;
}
