/* Digamma, trigamma and log Gamma ratios (x > 0) from the recurrences
 * psi(x) = psi(x+1) - 1/x, psi'(x) = psi'(x+1) + 1/x^2 (DLMF 5.5.2,
 * 5.15.5) and the asymptotic series DLMF 5.11.2 (psi), 5.15.8 (psi') and
 * 5.11.1 (Stirling) for x >= 16, where 7 terms are below 1e-17 relative. */
#include "gamma.h"

#include <float.h>
#include <math.h>

#define GAMMA_EPS DBL_EPSILON
#define GAMMA_ASYM_X 16.0

/* psi(z) - log z, z >= 16 (DLMF 5.11.2 with B_2 .. B_14). */
GHMIX_INLINE double gam_psi_asym(double z) {
  double z2 = 1.0 / (z * z);
  double s =
      z2 * (1.0 / 12 -
            z2 * (1.0 / 120 -
                  z2 * (1.0 / 252 -
                        z2 * (1.0 / 240 -
                              z2 * (1.0 / 132 -
                                    z2 * (691.0 / 32760 - z2 * (1.0 / 12)))))));
  return -0.5 / z - s;
}

/* z psi'(z) - 1, z >= 16 (DLMF 5.15.8). */
GHMIX_INLINE double gam_xtrigamma_asym_m1(double z) {
  double z2 = 1.0 / (z * z);
  double s =
      z2 *
      (1.0 / 6 -
       z2 * (1.0 / 30 -
             z2 * (1.0 / 42 -
                   z2 * (1.0 / 30 - z2 * (5.0 / 66 - z2 * (691.0 / 2730 -
                                                           z2 * (7.0 / 6)))))));
  return 0.5 / z + s;
}

/* Steps of the recurrence that bring x to >= 16. */
GHMIX_INLINE int gam_steps(double x) {
  if (!(x < GAMMA_ASYM_X) || !(x > -1e6)) /* callers pass x > 0 */
    return 0;
  return (int)ceil(GAMMA_ASYM_X - x);
}

/* The recurrence terms sum_{k < n} (x + k)^-power, power 1 or 2, summed
 * from k = n - 1 down. */
GHMIX_INLINE double gam_recurrence(double x, int n, int power) {
  double sum = 0;
  int k;
  for (k = n - 1; k >= 0; k--)
    sum += power == 1 ? 1.0 / (x + k) : 1.0 / ((x + k) * (x + k));
  return sum;
}

/* psi(x) - log x and x psi'(x) - 1 (inline here: the shape MLE's Newton
 * steps call them often). */
GHMIX_INLINE double gam_psi_minus_log(double x) {
  int n = gam_steps(x);
  double z = x + n;
  if (n == 0)
    return gam_psi_asym(x);
  return gam_psi_asym(z) + (log(z) - log(x)) - gam_recurrence(x, n, 1);
}

GHMIX_INLINE double gam_xtrigamma_m1(double x) {
  int n = gam_steps(x);
  double z = x + n;
  if (n == 0)
    return gam_xtrigamma_asym_m1(x);
  /* psi'(x) = psi'(z) + sum, psi'(z) = (1 + t(z)) / z */
  return x * ((1.0 + gam_xtrigamma_asym_m1(z)) / z + gam_recurrence(x, n, 2)) -
         1.0;
}

GHMIX_HD double ghmix_psi_minus_log(double x) { return gam_psi_minus_log(x); }

GHMIX_HD double ghmix_xtrigamma_m1(double x) { return gam_xtrigamma_m1(x); }

GHMIX_HD double ghmix_digamma(double x) {
  int n = gam_steps(x);
  double z = x + n;
  return (gam_psi_asym(z) + log(z)) - gam_recurrence(x, n, 1);
}

/* Stirling's series of log Gamma(z) without (z - 1/2) log z - z + log(2 pi)
 * / 2, z >= 16 (DLMF 5.11.1). */
GHMIX_INLINE double gam_stirling_tail(double z) {
  double z2 = 1.0 / (z * z);
  return (1.0 / 12 -
          z2 * (1.0 / 360 -
                z2 * (1.0 / 1260 -
                      z2 * (1.0 / 1680 -
                            z2 * (1.0 / 1188 -
                                  z2 * (691.0 / 360360 - z2 / 156.0)))))) /
         z;
}

GHMIX_HD double ghmix_lgamma_ratio(double x, double r) {
  double lo = r < 0 ? x + r : x, z1, z2, d, sum = 0;
  int n = gam_steps(lo), k;
  if (r == 0)
    return 0.0;
  for (k = 0; k < n; k++) {
    double t = r / (x + k);
    /* log((x + k + r) / (x + k)); near t = -1 from the exact sum */
    sum += fabs(t) < 0.5 ? log1p(t) : log((x + k + r) / (x + k));
  }
  z1 = x + n;
  z2 = z1 + r;
  d = (z1 - 0.5) * log1p(r / z1) + r * log(z2) - r + gam_stirling_tail(z2) -
      gam_stirling_tail(z1);
  return d - sum;
}

/* Newton in log k from Minka's approximation. */
GHMIX_HD double ghmix_gamma_shape_mle(double c) {
  double x = -c, k, u;
  int it;
  if (!(c < 0))
    return NAN;
  k = (3.0 - x + sqrt((x - 3.0) * (x - 3.0) + 24.0 * x)) / (12.0 * x);
  u = log(k);
  for (it = 0; it < 60; it++) {
    double f = gam_psi_minus_log(k) - c;
    double df = gam_xtrigamma_m1(k); /* d f / d log k */
    double du = -f / df;
    if (du > 2.0)
      du = 2.0;
    if (du < -2.0)
      du = -2.0;
    u += du;
    k = exp(u);
    if (fabs(du) <= 4 * GAMMA_EPS)
      break;
  }
  return k;
}

GHMIX_HD double ghmix_gamma_shape_deriv(double k) {
  return k / gam_xtrigamma_m1(k);
}
