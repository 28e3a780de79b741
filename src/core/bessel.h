/* log K_nu(x), the modified Bessel function of the second kind, in log space,
 * with its derivatives and the neighbouring-order ratios, for x > 0 and any
 * real nu.  Per-element functions are single-source (host and device).  */
#ifndef GHMIX_BESSEL_H
#define GHMIX_BESSEL_H

#include "ghmix_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ghmix_bessel_eval computes besides log K (bit flags). */
enum {
  GHMIX_BESSEL_GRAD = 1,  /* dx, dnu */
  GHMIX_BESSEL_HESS = 2,  /* dnu2, dnudx, dx2 */
  GHMIX_BESSEL_RATIOS = 4 /* ratio_up, ratio_down */
};

typedef struct {
  double logk;       /* log K_nu(x) */
  double dx;         /* d/dx log K_nu(x) */
  double dnu;        /* d/dnu log K_nu(x) */
  double dnu2;       /* d2/dnu2 log K_nu(x) */
  double dnudx;      /* d2/(dnu dx) log K_nu(x) */
  double dx2;        /* d2/dx2 log K_nu(x) */
  double ratio_up;   /* K_{nu+1}(x) / K_nu(x) */
  double ratio_down; /* K_{nu-1}(x) / K_nu(x) */
} ghmix_bessel_result;

/* log K_nu(x) alone.  x > 0 and finite nu; NaN in gives NaN out. */
GHMIX_HD double ghmix_bessel_logk(double x, double nu);

/* ghmix_bessel_logk at the n points (x[i], nu[i]) into logk[i], the same
 * values to the bit; the points of the continued fraction's region are
 * evaluated two at a time (their loops in lockstep). */
#define GHMIX_BESSEL_LOGK_BLOCK 64
GHMIX_HD void ghmix_bessel_logk_n(int n, const double *x, const double *nu,
                                  double *logk);

/* log K_nu(x) and whatever `what` asks for; fields not asked for are left
 * untouched. */
GHMIX_HD void ghmix_bessel_eval(double x, double nu, int what,
                                ghmix_bessel_result *res);

/* The exponentially scaled form, for arguments where log K_nu(x) ~ -x
 * would cancel against other terms of size x (bessel_scaled.c): lks =
 * log K_nu(x) + x, computed directly (not by adding x), and, as `what`
 * asks (GHMIX_BESSEL_GRAD: dnu; GHMIX_BESSEL_RATIOS: up_m1, down_m1), the
 * neighbour ratios less 1, each with its own relative accuracy where the
 * ratio is close to 1 (large x).  x > 0 and finite nu; NaN otherwise. */
typedef struct {
  double lks;     /* log K_nu(x) + x */
  double dnu;     /* d/dnu log K_nu(x) */
  double up_m1;   /* K_{nu+1}(x) / K_nu(x) - 1 */
  double down_m1; /* K_{nu-1}(x) / K_nu(x) - 1 */
} ghmix_bessel_scaled_result;

GHMIX_HD void ghmix_bessel_eval_scaled(double x, double nu, int what,
                                       ghmix_bessel_scaled_result *res);

/* For |nu| >= GHMIX_BESSEL_REST_NU_MIN: log K_nu(x) less the exponent of
 * the uniform expansion, log K_nu(x) - (nu asinh(nu / x) - hypot(nu, x))
 * (DLMF 10.41.4: (1/2) log(pi / (2 hypot(nu, x))) plus the log of the
 * series), an O(1) quantity, and *hyp = hypot(nu, x).  Callers that
 * difference log K at two large orders difference the exponents in closed
 * form and add these rests (mixture.c). */
#define GHMIX_BESSEL_REST_NU_MIN 16.0
GHMIX_HD double ghmix_bessel_log_rest(double x, double nu, double *hyp);

#ifdef __cplusplus
}
#endif

#endif
