/* Internal pieces of the log K_nu(x) kernel, shared by its regimes.
 * Every regime function takes nu >= 0 (the caller applies K_{-nu} = K_nu)
 * and fills the fields of ghmix_bessel_result that `what` asks for. */
#ifndef GHMIX_BESSEL_IMPL_H
#define GHMIX_BESSEL_IMPL_H

#include "bessel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* t0 = asinh(nu / x), the peak of exp(-x cosh t + nu t); finite for every
 * x > 0 (no overflow of nu / x). */
GHMIX_HD double ghmix_bessel_peak_t0(double x, double nu);

/* f = nu asinh(nu / x) - sqrt(nu^2 + x^2), the exponent at the peak: the
 * leading term of log K_nu(x) in every regime.  Its two terms cancel near
 * x = 0.6627 nu, where f is computed without cancellation; the absolute
 * error stays within a few ulps of max(1, |f|). */
GHMIX_HD double ghmix_bessel_peak_exponent(double x, double nu);

/* Uniform (Debye) expansion, DLMF 10.41; for nu >= GHMIX_DEBYE_NU_MIN. */
#define GHMIX_DEBYE_NU_MIN 16.0
GHMIX_HD void ghmix_bessel_debye(double x, double nu, int what,
                                 ghmix_bessel_result *res);

/* The scaled form (bessel.h) by the same expansion, and the rest of log K
 * beyond the expansion's exponent (ghmix_bessel_log_rest); nu >= 15. */
GHMIX_HD void ghmix_bessel_debye_scaled(double x, double nu, int what,
                                        ghmix_bessel_scaled_result *res);
GHMIX_HD double ghmix_bessel_debye_rest(double x, double nu, double *hyp);

/* Small-x series (Temme's method, then forward recurrence in the order);
 * for x <= GHMIX_SERIES_X_MAX and nu < GHMIX_DEBYE_NU_MIN. */
#define GHMIX_SERIES_X_MAX 2.0
GHMIX_HD void ghmix_bessel_series(double x, double nu, int what,
                                  ghmix_bessel_result *res);

/* Hankel's large-x expansion; for x >= GHMIX_HANKEL_X_MIN and
 * nu < GHMIX_DEBYE_NU_MIN.  Returns 0, having set nothing, if its terms do
 * not fall below the tolerance (never seen for x >= 22). */
#define GHMIX_HANKEL_X_MIN 30.0
GHMIX_HD int ghmix_bessel_hankel(double x, double nu, int what,
                                 ghmix_bessel_result *res);

/* The scaled form (bessel.h) by Hankel's expansion; the same conditions
 * and return value. */
GHMIX_HD int ghmix_bessel_hankel_scaled(double x, double nu, int what,
                                        ghmix_bessel_scaled_result *res);

/* Temme's continued fraction CF2 and forward recurrence in the order; for
 * x > GHMIX_SERIES_X_MAX and nu < GHMIX_DEBYE_NU_MIN (valid for any such
 * x; fewer terms the larger x).  log K, the ratios and the first derivatives
 * (not the second: GHMIX_BESSEL_HESS is ignored).  The dispatch uses it for
 * x < GHMIX_CF2_X_MAX without nu-derivatives and for
 * GHMIX_CF2_GRAD_X_MIN <= x < GHMIX_HANKEL_X_MIN with first ones. */
#define GHMIX_CF2_X_MAX 100.0
#define GHMIX_CF2_GRAD_X_MIN 5.0
GHMIX_HD void ghmix_bessel_cf2(double x, double nu, int what,
                               ghmix_bessel_result *res);

/* log K_nu(x) alone, as ghmix_bessel_cf2 gives it, at the n <=
 * GHMIX_CF2_LOGK_N_MAX points (x[i], nu[i]), 2 < x[i] < 100 and
 * 0 <= nu[i] < 16, two at a time (the same values to the bit, in less
 * time). */
#define GHMIX_CF2_LOGK_N_MAX GHMIX_BESSEL_LOGK_BLOCK
GHMIX_HD void ghmix_bessel_cf2_logk_n(int n, const double *x, const double *nu,
                                      double *logk);

/* The order raised from mu to mu + n (n >= 1) by K_{m+1} = K_{m-1} +
 * (2 (mu + m) / x) K_m (DLMF 10.29.1), given r = K_{mu+1} / K_mu and, with
 * deriv, r1 = dr/dmu (see bessel_cf2.c): kn = K_{mu+n} / K_mu,
 * rdown = K_{mu+n-1} / K_{mu+n}, dlog = d/dmu log kn (0 without deriv). */
typedef struct {
  double kn, rdown, dlog;
} ghmix_bessel_raised;
GHMIX_HD void ghmix_bessel_raise(double x, double mu, int n, double r,
                                 double r1, int deriv,
                                 ghmix_bessel_raised *out);

/* Half-integer orders nu = n + 1/2, n <= GHMIX_HALFINT_N_MAX: the finite
 * sum DLMF 10.49.12; log K and the ratios only (no nu-derivatives). */
#define GHMIX_HALFINT_N_MAX 40
GHMIX_HD void ghmix_bessel_halfint(double x, int n, int what,
                                   ghmix_bessel_result *res);

/* Trapezoid rule over the whole line, centred on the peak; valid anywhere,
 * used where the others are not. */
GHMIX_HD void ghmix_bessel_trapezoid(double x, double nu, int what,
                                     ghmix_bessel_result *res);

/* The same with GRAD, when dnu_up is not NULL, also d/dnu log K_{nu+1}(x)
 * from the same nodes (for raising the order with derivatives). */
GHMIX_HD void ghmix_bessel_trapezoid_up(double x, double nu, int what,
                                        ghmix_bessel_result *res,
                                        double *dnu_up);

#ifdef __cplusplus
}
#endif

#endif
