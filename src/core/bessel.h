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

/* log K_nu(x) and whatever `what` asks for; fields not asked for are left
 * untouched. */
GHMIX_HD void ghmix_bessel_eval(double x, double nu, int what,
                                ghmix_bessel_result *res);

#ifdef __cplusplus
}
#endif

#endif
