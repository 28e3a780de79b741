/* The exponentially scaled log K_nu(x) + x (bessel.h), for arguments where
 * log K_nu(x) ~ -x would cancel against other terms of size x (the
 * near-normal GH laws of mixture.c):
 *   |nu| >= 16         the uniform (Debye) expansion, DLMF 10.41.4, with
 *                      its exponent nu asinh(nu / x) - sqrt(nu^2 + x^2) + x
 *                      written without cancellation (bessel_debye.c)
 *   |nu| < 16, x >= 30 Hankel's expansion, DLMF 10.40.2, whose sum is
 *                      K_nu(x) e^x directly (bessel_hankel.c)
 *   elsewhere          log K + x from ghmix_bessel_eval: x < 30 there, so
 *                      the sum costs at most a few ulps of 30.
 * K_{-nu} = K_nu: the regimes see |nu|, the order derivative and the two
 * ratios are mirrored back here, as in bessel.c. */
#include "bessel_impl.h"

#include <math.h>

GHMIX_INLINE void scaled_fill(ghmix_bessel_scaled_result *res, double lks,
                              double rest) {
  res->lks = lks;
  res->dnu = res->up_m1 = res->down_m1 = rest;
}

GHMIX_INLINE void scaled_plain(double x, double nu, int what,
                               ghmix_bessel_scaled_result *res) {
  ghmix_bessel_result r;
  ghmix_bessel_eval(x, nu, what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_RATIOS),
                    &r);
  res->lks = r.logk + x;
  if (what & GHMIX_BESSEL_GRAD)
    res->dnu = r.dnu;
  if (what & GHMIX_BESSEL_RATIOS) {
    res->up_m1 = r.ratio_up - 1.0;
    res->down_m1 = r.ratio_down - 1.0;
  }
}

GHMIX_HD void ghmix_bessel_eval_scaled(double x, double nu, int what,
                                       ghmix_bessel_scaled_result *res) {
  double anu = fabs(nu);
  if (isnan(x) || isnan(nu) || !(x > 0) || isinf(nu)) {
    scaled_fill(res, NAN, NAN);
    return;
  }
  if (isinf(x)) { /* K_nu(x) e^x ~ sqrt(pi / (2x)) */
    scaled_fill(res, -INFINITY, 0.0);
    return;
  }
  if (anu >= GHMIX_DEBYE_NU_MIN)
    ghmix_bessel_debye_scaled(x, anu, what, res);
  else if (x < GHMIX_HANKEL_X_MIN ||
           !ghmix_bessel_hankel_scaled(x, anu, what, res))
    scaled_plain(x, anu, what, res);
  if (nu < 0) {
    if (what & GHMIX_BESSEL_GRAD)
      res->dnu = -res->dnu;
    if (what & GHMIX_BESSEL_RATIOS) {
      double up = res->up_m1;
      res->up_m1 = res->down_m1;
      res->down_m1 = up;
    }
  }
}

GHMIX_HD double ghmix_bessel_log_rest(double x, double nu, double *hyp) {
  nu = fabs(nu);
  if (!(nu >= GHMIX_BESSEL_REST_NU_MIN) || isinf(nu) || !(x > 0) || isinf(x)) {
    *hyp = NAN;
    return NAN;
  }
  return ghmix_bessel_debye_rest(x, nu, hyp);
}
