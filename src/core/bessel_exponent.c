/* The exponent at the peak of the integrand of K_nu(x), shared by the
 * quadrature and the Debye expansion. */
#include "bessel_impl.h"

#include <math.h>

/* Root of asinh(1/z) = sqrt(1 + z^2) as a double-double (mpmath, 40 digits). */
#define Z_ROOT_HI 0.6627434193491816
#define Z_ROOT_LO 8.155323790501267e-18
/* Around the root, f = -nu * integral_{z*}^{x/nu} sqrt(1 + u^2) / u du. */
#define Z_WINDOW 0.15
#define NU_PLAIN_MAX 6.0

GHMIX_HD double ghmix_bessel_peak_t0(double x, double nu) {
  double q = nu / x;
  /* asinh(q) = log(2q) + 1/(4q^2) - ...; the tail is below 1e-17 here */
  if (q > 1e8)
    return log(2.0 * nu) - log(x);
  return asinh(q);
}

/* 8-point Gauss-Legendre on [z*, z* + dz] of g(u) = sqrt(1 + u^2) / u, whose
 * nearest singularity (u = 0) is far outside the window. */
GHMIX_INLINE double exponent_near_root(double dz) {
  static const double node[4] = {0.18343464249564981, 0.52553240991632899,
                                 0.79666647741362673, 0.96028985649753629};
  static const double weight[4] = {0.36268378337836199, 0.31370664587788727,
                                   0.22238103445337448, 0.10122853629037626};
  double half = 0.5 * dz, mid = Z_ROOT_HI + half, sum = 0.0;
  for (int i = 0; i < 4; i++) {
    double lo = mid - half * node[i], hi = mid + half * node[i];
    sum += weight[i] * (sqrt(1.0 + lo * lo) / lo + sqrt(1.0 + hi * hi) / hi);
  }
  return -half * sum;
}

GHMIX_HD double ghmix_bessel_peak_exponent(double x, double nu) {
  if (nu > NU_PLAIN_MAX && x > (Z_ROOT_HI - Z_WINDOW) * nu &&
      x < (Z_ROOT_HI + Z_WINDOW) * nu) {
    /* dz = x / nu - z* to about ulp(dz): with q = x / nu rounded,
     * x / nu = q + r / nu exactly for r = x - q nu, which one fma gives
     * exactly; q - Z_ROOT_HI is exact (Sterbenz: q / z* is in [1/2, 2]).
     * No product enters an addition, so no compiler can fuse one
     * (x - nu * Z_ROOT_HI as one fma would count the product's rounding
     * twice, as nvcc did with a double-double nu z*: 1e-13 in log K). */
    double q = x / nu, r = fma(-q, nu, x);
    double dz = (q - Z_ROOT_HI) + (r / nu - Z_ROOT_LO);
    return nu * exponent_near_root(dz);
  }
  return nu * ghmix_bessel_peak_t0(x, nu) - hypot(nu, x);
}
