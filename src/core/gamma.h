/* Gamma-function kernels for the GIG code: digamma and trigamma in the
 * forms the gamma and inverse-gamma limits need (psi(x) - log x and
 * x psi'(x) - 1 without cancellation for large x), ratios of gamma
 * functions, and the gamma shape MLE.  Single-source (host and device),
 * x > 0 throughout. */
#ifndef GHMIX_GAMMA_H
#define GHMIX_GAMMA_H

#include "ghmix_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* digamma(x). */
GHMIX_HD double ghmix_digamma(double x);

/* psi(x) - log x, accurate also for large x where the two cancel. */
GHMIX_HD double ghmix_psi_minus_log(double x);

/* x psi'(x) - 1 > 0. */
GHMIX_HD double ghmix_xtrigamma_m1(double x);

/* log Gamma(x + r) - log Gamma(x) for x > 0, x + r > 0, without the
 * cancellation of two lgamma values. */
GHMIX_HD double ghmix_lgamma_ratio(double x, double r);

/* The gamma shape k with psi(k) - log k = c, c < 0: the gamma MLE from the
 * sample means of log Y and Y (c = mean log Y - log mean Y); the
 * variance-gamma and skew-t M-steps.  NaN unless c < 0. */
GHMIX_HD double ghmix_gamma_shape_mle(double c);

/* d k / d c of that equation at its solution k. */
GHMIX_HD double ghmix_gamma_shape_deriv(double k);

#ifdef __cplusplus
}
#endif

#endif
