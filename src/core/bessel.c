/* log K_nu(x): dispatch to the regime that is exact and cheapest there.
 *   |nu| >= 16         uniform (Debye) expansion
 *   |nu| < 16, x <= 2  Temme's series and forward recurrence
 *   |nu| < 16, x > 2   Temme's continued fraction CF2 and forward recurrence
 *                      where it is the cheapest: x < 100 without
 *                      nu-derivatives, 5 <= x < 30 with first ones only;
 *                      elsewhere
 *   |nu| < 16, x >= 30 Hankel's large-x expansion
 *   |nu| < 16, x < 30  trapezoid rule centred on the peak of the integrand
 *                      (x < 5 with GRAD, any x with HESS); with GRAD and
 *                      without HESS taken at mu = nu - round(nu) and raised
 *                      by the recurrence (fewer nodes)
 * and, when no nu-derivatives are asked for, the closed form for
 * half-integer nu <= 40.5 (the NIG E-step with even d needs only these).
 * K_{-nu} = K_nu, so each regime sees nu >= 0 and odd nu-derivatives and
 * the two neighbour ratios are swapped back here. */
#include "bessel_impl.h"

#include <math.h>

GHMIX_INLINE void fill_all(ghmix_bessel_result *res, int what, double v) {
  res->logk = v;
  if (what & GHMIX_BESSEL_GRAD)
    res->dx = res->dnu = v;
  if (what & GHMIX_BESSEL_HESS)
    res->dnu2 = res->dnudx = res->dx2 = v;
  if (what & GHMIX_BESSEL_RATIOS)
    res->ratio_up = res->ratio_down = v;
}

/* n when nu = n + 1/2 with n <= GHMIX_HALFINT_N_MAX, else -1. */
GHMIX_INLINE int halfint_order(double nu) {
  double n = nu - 0.5;
  if (n >= 0 && n <= GHMIX_HALFINT_N_MAX && n == floor(n))
    return (int)n;
  return -1;
}

/* CF2 (x > 2) where it is the cheapest: the trapezoid rule is, with
 * nu-derivatives, below x = 5 (and the derivative part of CF2 costs as much
 * as its values), Hankel's series above x = 30 with derivatives and above
 * x = 100 without; CF2 has no second derivatives. */
GHMIX_INLINE int cf2_applies(double x, int what) {
  if (what & GHMIX_BESSEL_HESS)
    return 0;
  if (what & GHMIX_BESSEL_GRAD)
    return x >= GHMIX_CF2_GRAD_X_MIN && x < GHMIX_HANKEL_X_MIN;
  return x < GHMIX_CF2_X_MAX;
}

/* The trapezoid rule at mu = nu - n in [-1/2, 1/2), raised n orders:
 * with first nu-derivatives and 2 < x < 5, where the rule at nu itself
 * would need about 1.5 to 2.5 times the nodes (its tails in s widen as
 * nu / x grows); the recurrence needs d/dmu K_{mu+1} / K_mu, which the
 * same nodes give. */
GHMIX_INLINE void trapezoid_raised(double x, double nu, int what,
                                   ghmix_bessel_result *res) {
  int n = (int)(nu + 0.5);
  double mu = nu - n, dnu_up;
  ghmix_bessel_raised up;
  ghmix_bessel_result base;
  ghmix_bessel_trapezoid_up(x, mu, GHMIX_BESSEL_GRAD | GHMIX_BESSEL_RATIOS,
                            &base, &dnu_up);
  /* d/dmu (K_{mu+1} / K_mu) = r (dnu_up - dnu) */
  ghmix_bessel_raise(x, mu, n, base.ratio_up,
                     base.ratio_up * (dnu_up - base.dnu), 1, &up);
  res->logk = base.logk + log(up.kn);
  res->dnu = base.dnu + up.dlog;
  res->dx = -(nu / x + up.rdown);
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_down = up.rdown;
    res->ratio_up = up.rdown + 2.0 * (nu / x);
  }
}

GHMIX_INLINE int raised_applies(double x, double nu, int what) {
  return (what & GHMIX_BESSEL_GRAD) && !(what & GHMIX_BESSEL_HESS) &&
         nu >= 0.5 && x < GHMIX_CF2_GRAD_X_MIN;
}

GHMIX_INLINE void eval_nonneg(double x, double nu, int what,
                              ghmix_bessel_result *res) {
  int n =
      (what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS)) ? -1 : halfint_order(nu);
  if (n >= 0)
    ghmix_bessel_halfint(x, n, what, res);
  else if (nu >= GHMIX_DEBYE_NU_MIN)
    ghmix_bessel_debye(x, nu, what, res);
  else if (x <= GHMIX_SERIES_X_MAX)
    ghmix_bessel_series(x, nu, what, res);
  else if (cf2_applies(x, what))
    ghmix_bessel_cf2(x, nu, what, res);
  else if (raised_applies(x, nu, what))
    trapezoid_raised(x, nu, what, res);
  else if (x < GHMIX_HANKEL_X_MIN || !ghmix_bessel_hankel(x, nu, what, res))
    ghmix_bessel_trapezoid(x, nu, what, res);
}

GHMIX_HD void ghmix_bessel_eval(double x, double nu, int what,
                                ghmix_bessel_result *res) {
  if (isnan(x) || isnan(nu) || x < 0) {
    fill_all(res, what, NAN);
    return;
  }
  if (x == 0 || isinf(nu)) {
    /* K_nu(0+) = +Inf; the derivatives are not finite either */
    fill_all(res, what, NAN);
    res->logk = INFINITY;
    return;
  }
  if (isinf(x)) {
    fill_all(res, what, NAN);
    res->logk = -INFINITY;
    return;
  }
  eval_nonneg(x, fabs(nu), what, res);
  if (nu < 0) {
    if (what & GHMIX_BESSEL_GRAD)
      res->dnu = -res->dnu;
    if (what & GHMIX_BESSEL_HESS)
      res->dnudx = -res->dnudx;
    if (what & GHMIX_BESSEL_RATIOS) {
      double up = res->ratio_up;
      res->ratio_up = res->ratio_down;
      res->ratio_down = up;
    }
  }
}

GHMIX_HD double ghmix_bessel_logk(double x, double nu) {
  ghmix_bessel_result res;
  ghmix_bessel_eval(x, nu, 0, &res);
  return res.logk;
}

/* 1 when ghmix_bessel_logk(x, nu) is ghmix_bessel_cf2(x, |nu|, 0, .)'s
 * log K (eval_nonneg without derivatives); 0 for NaN and infinities. */
GHMIX_INLINE int logk_takes_cf2(double x, double nu) {
  double a = fabs(nu);
  return a < GHMIX_DEBYE_NU_MIN && x > GHMIX_SERIES_X_MAX &&
         cf2_applies(x, 0) && halfint_order(a) < 0;
}

GHMIX_HD void ghmix_bessel_logk_n(int n, const double *x, const double *nu,
                                  double *logk) {
  double cx[GHMIX_BESSEL_LOGK_BLOCK], cnu[GHMIX_BESSEL_LOGK_BLOCK];
  double cv[GHMIX_BESSEL_LOGK_BLOCK];
  int at[GHMIX_BESSEL_LOGK_BLOCK];
  for (int lo = 0; lo < n; lo += GHMIX_BESSEL_LOGK_BLOCK) {
    int hi =
        n - lo < GHMIX_BESSEL_LOGK_BLOCK ? n : lo + GHMIX_BESSEL_LOGK_BLOCK;
    int m = 0;
    for (int i = lo; i < hi; i++) {
      if (logk_takes_cf2(x[i], nu[i])) {
        cx[m] = x[i];
        cnu[m] = fabs(nu[i]);
        at[m++] = i;
      } else {
        logk[i] = ghmix_bessel_logk(x[i], nu[i]);
      }
    }
    ghmix_bessel_cf2_logk_n(m, cx, cnu, cv);
    for (int j = 0; j < m; j++)
      logk[at[j]] = cv[j];
  }
}
