/* GIG expectation parameters, moments and Fisher information: the
 * forward map (p, a, b) -> eta = (E log Y, E 1/Y, E Y) that
 * gig_solve.c inverts.
 *
 * Notation.  Y ~ GIG(p, a, b), w = sqrt(ab), s = sqrt(b/a); then Y = s Z
 * with Z ~ GIG(p, w, w), so with Ru = K_{p+1}(w)/K_p(w),
 * Rd = K_{p-1}(w)/K_p(w) and D = d/dp log K_p(w):
 *
 *   E Y = s Ru,   E 1/Y = Rd / s,   E log Y = log s + D.
 *
 * Coordinates phi = (p, omega = log w, sigma = log s); a = exp(omega -
 * sigma), b = exp(omega + sigma).  The derivatives of log Ru, log Rd and D
 * in p and omega come from d/dx, d2/dx2, d2/dnu dx and d2/dnu2 of
 * log K_nu at nu = |p| (recurrence forms that have no cancellation for
 * nu >= 0), plus one more evaluation at order |p| - 1 where the recurrence
 * form of Rd would cancel (small w). */
#include "gig_moments.h"

#include <float.h>
#include <math.h>

#include "bessel.h"
#include "gamma.h"

/* ---------------------------------------------------------------------- */
/* The scale-free family Z ~ GIG(p, w, w)                                   */

/* Values (and derivatives when deriv) at (p, w), w > 0.  Returns 1 when all
 * are finite. */
GHMIX_INLINE int gm_unit_eval(double p, double w, int deriv,
                              ghmix_gig_unit *e) {
  ghmix_bessel_result r;
  double nu = fabs(p);
  int what = GHMIX_BESSEL_GRAD | GHMIX_BESSEL_RATIOS;
  if (deriv)
    what |= GHMIX_BESSEL_HESS;
  ghmix_bessel_eval(w, nu, what, &r);
  e->ru = r.ratio_up;
  e->rd = r.ratio_down;
  e->lru = log(r.ratio_up);
  e->lrd = log(r.ratio_down);
  e->d = r.dnu;
  e->dx = r.dx;
  e->dx2 = deriv ? r.dx2 : NAN;
  if (deriv && w < 1e-100) {
    /* nu / w^2-sized terms (d2/dx2 log K) overflow: differences of the
     * first derivatives at the neighbouring orders instead */
    ghmix_bessel_result ru, rd;
    ghmix_bessel_eval(w, nu + 1.0, GHMIX_BESSEL_GRAD, &ru);
    ghmix_bessel_eval(w, nu - 1.0, GHMIX_BESSEL_GRAD, &rd);
    e->lru_p = ru.dnu - r.dnu;
    e->lru_w = w * ru.dx - w * r.dx;
    e->lrd_p = rd.dnu - r.dnu;
    e->lrd_w = w * rd.dx - w * r.dx;
    e->d_p = r.dnu2;
    e->d_w = w * r.dnudx;
  } else if (deriv) {
    double nuw = nu / w;
    /* K_{nu+1}/K_nu = nu/w - dx: both terms >= 0 (dnudx <= 0, dx2 >= 0
     * for nu >= 0), so these derivatives do not cancel. */
    e->lru_p = (1.0 / w - r.dnudx) / r.ratio_up;
    e->lru_w = -(nuw + w * r.dx2) / r.ratio_up;
    if (nuw <= 4.0 * r.ratio_down) {
      /* K_{nu-1}/K_nu = -dx - nu/w cancels at most 4 : 1 here */
      e->lrd_p = (-r.dnudx - 1.0 / w) / r.ratio_down;
      e->lrd_w = (nuw - w * r.dx2) / r.ratio_down;
    } else {
      ghmix_bessel_result r1;
      ghmix_bessel_eval(w, nu - 1.0, GHMIX_BESSEL_GRAD, &r1);
      e->lrd_p = r1.dnu - r.dnu;
      e->lrd_w = w * (r1.dx - r.dx);
    }
    e->d_p = r.dnu2;
    e->d_w = w * r.dnudx;
  }
  if (p < 0) { /* K_{-nu} = K_nu: swap the neighbours, flip odd terms */
    double t;
    t = e->ru, e->ru = e->rd, e->rd = t;
    t = e->lru, e->lru = e->lrd, e->lrd = t;
    e->d = -e->d;
    if (deriv) {
      double up_p = e->lru_p, up_w = e->lru_w;
      e->lru_p = -e->lrd_p;
      e->lru_w = e->lrd_w;
      e->lrd_p = -up_p;
      e->lrd_w = up_w;
      e->d_w = -e->d_w;
    }
  }
  if (!isfinite(e->lru) || !isfinite(e->lrd) || !isfinite(e->d))
    return 0;
  if (deriv &&
      !(isfinite(e->lru_p) && isfinite(e->lru_w) && isfinite(e->lrd_p) &&
        isfinite(e->lrd_w) && isfinite(e->d_p) && isfinite(e->d_w)))
    return 0;
  return 1;
}

GHMIX_HD int ghmix_gig_unit_eval(double p, double w, int deriv,
                                 ghmix_gig_unit *e) {
  return gm_unit_eval(p, w, deriv, e);
}

/* ---------------------------------------------------------------------- */
/* Forward maps                                                             */

GHMIX_HD int ghmix_gig_valid(double p, double a, double b) {
  if (!(isfinite(p) && isfinite(a) && isfinite(b)))
    return 0;
  if (a < 0 || b < 0)
    return 0;
  if (a == 0 && !(p < 0))
    return 0;
  if (b == 0 && !(p > 0))
    return 0;
  return 1;
}

/* w = sqrt(ab), log s = log sqrt(b/a), without overflow. */
GHMIX_INLINE void gm_scale(double a, double b, double *w, double *logs) {
  double sa = sqrt(a), sb = sqrt(b);
  *w = sa * sb;
  *logs = log(sb) - log(sa);
}

GHMIX_HD void ghmix_gig_scale(double a, double b, double *w, double *logs) {
  gm_scale(a, b, w, logs);
}

GHMIX_HD int ghmix_gig_expectation(double p, double a, double b,
                                   double eta[3]) {
  ghmix_gig_unit e;
  double w, logs, s;
  if (!ghmix_gig_valid(p, a, b)) {
    eta[0] = eta[1] = eta[2] = NAN;
    return 0;
  }
  if (b == 0) { /* gamma, shape p, rate a/2 */
    eta[0] = ghmix_digamma(p) - log(0.5 * a);
    eta[1] = p > 1 ? 0.5 * a / (p - 1.0) : INFINITY;
    eta[2] = 2.0 * p / a;
    return 1;
  }
  if (a == 0) { /* inverse gamma, shape q = -p, scale b/2 */
    double q = -p;
    eta[0] = log(0.5 * b) - ghmix_digamma(q);
    eta[1] = 2.0 * q / b;
    eta[2] = q > 1 ? 0.5 * b / (q - 1.0) : INFINITY;
    return 1;
  }
  gm_scale(a, b, &w, &logs);
  gm_unit_eval(p, w, 0, &e);
  s = exp(logs);
  eta[0] = logs + e.d;
  eta[1] = e.rd / s;
  eta[2] = s * e.ru;
  return 1;
}

/* log(K_{nu+f}(w) / K_nu(w)) for |f| <= 1/2. */
GHMIX_INLINE double gm_log_kratio_frac(double w, double nu, double f) {
  /* Gauss-Legendre, 8 nodes on [-1, 1] (half of them; symmetric); a table
   * at function scope, see ghmix_hd.h */
  static const double gm_gl_x[4] = {
      0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959,
      0.96028985649753623168};
  static const double gm_gl_w[4] = {
      0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054,
      0.10122853629037625915};
  double lk0, lk1;
  int i;
  if (f == 0)
    return 0.0;
  lk0 = ghmix_bessel_logk(w, nu);
  lk1 = ghmix_bessel_logk(w, nu + f);
  /* The difference of the two logs is accurate to eps * max |log K|;
   * otherwise integrate d/dnu log K over [nu, nu + f], which is analytic
   * there unless w is small and the interval is near 0 (where |log K| is
   * small anyway). */
  if (fmax(fabs(lk0), fabs(lk1)) <= 8.0 ||
      (w < 2.0 && fmin(fabs(nu), fabs(nu + f)) < 2.0))
    return lk1 - lk0;
  {
    double h = 0.5 * f, c = nu + h, sum = 0;
    for (i = 0; i < 4; i++) {
      ghmix_bessel_result r1, r2;
      ghmix_bessel_eval(w, c - h * gm_gl_x[i], GHMIX_BESSEL_GRAD, &r1);
      ghmix_bessel_eval(w, c + h * gm_gl_x[i], GHMIX_BESSEL_GRAD, &r2);
      sum += gm_gl_w[i] * (r1.dnu + r2.dnu);
    }
    return h * sum;
  }
}

GHMIX_HD double ghmix_gig_moment(double p, double a, double b, double r) {
  double w, logs, lr, f, nu;
  int k, j;
  if (!ghmix_gig_valid(p, a, b) || !isfinite(r))
    return NAN;
  if (r == 0)
    return 1.0;
  if (b == 0) /* E Y^r = Gamma(p + r) / Gamma(p) (2/a)^r */
    return p + r > 0 ? exp(ghmix_lgamma_ratio(p, r) + r * (log(2.0) - log(a)))
                     : INFINITY;
  if (a == 0) { /* Y = 1/X, X ~ Gamma(q, b/2): E X^-r */
    double q = -p;
    return q - r > 0 ? exp(ghmix_lgamma_ratio(q, -r) + r * (log(b) - log(2.0)))
                     : INFINITY;
  }
  gm_scale(a, b, &w, &logs);
  if (fabs(r) > 64.0) {
    /* far orders: one difference of logs (accurate to eps * |log K|) */
    lr = ghmix_bessel_logk(w, p + r) - ghmix_bessel_logk(w, p);
  } else {
    k = (int)floor(r + 0.5);
    f = r - (double)k;
    lr = 0.0;
    if (f != 0) {
      double lk0 = ghmix_bessel_logk(w, p), lk1 = ghmix_bessel_logk(w, p + r);
      if (fmax(fabs(lk0), fabs(lk1)) <= 8.0)
        return exp(r * logs + (lk1 - lk0));
      lr = gm_log_kratio_frac(w, p, f);
    }
    /* K_{p+r}/K_p = K_{p+f}/K_p * the neighbour ratios from p + f on, each
     * accurate to ~eps (no difference of large logs) */
    nu = p + f;
    for (j = 0; j < (k > 0 ? k : -k); j++) {
      ghmix_bessel_result res;
      ghmix_bessel_eval(w, nu, GHMIX_BESSEL_RATIOS, &res);
      if (k > 0) {
        lr += log(res.ratio_up);
        nu += 1.0;
      } else {
        lr += log(res.ratio_down);
        nu -= 1.0;
      }
    }
  }
  return exp(r * logs + lr);
}

/* s^2 t, s = exp(logs), t >= 0, without a spurious overflow or underflow
 * of s^2 (s^2 is Inf or 0 for b/a beyond the doubles, where s^2 t may not
 * be). */
GHMIX_INLINE double gm_times_s2(double logs, double t) {
  double s2 = exp(2.0 * logs), s;
  if (s2 >= DBL_MIN && s2 <= DBL_MAX)
    return s2 * t;
  s = exp(logs);
  if (s >= DBL_MIN && s <= DBL_MAX)
    return (s * t) * s;
  return exp(2.0 * logs + log(t));
}

/* Var Y for w = sqrt(ab) < GM_W_TINY, where the terms of Var Z (~ p / w^2)
 * overflow.  p >= 0: Var Y = T / a^2 with T = w^2 Var Z
 *   = w^2 + 4p + W (2 - 2p - W),  W = w K_{p-1}(w) / K_p(w)
 * (d/dw log K = -(p + W)/w and w^2 d2/dw2 log K = w^2 + p + W (1 - 2p - W),
 * DLMF 10.29.2 and the Bessel equation 10.25.1); W -> 0 as w -> 0, so T ->
 * 4p without cancellation (the gamma limit 4p / a^2).  p < 0: Var Z =
 * Ru(p) (Ru(p+1) - Ru(p)), Ru(q) = K_{q+1}(w) / K_q(w) (no cancellation
 * there), scaled by s = sqrt(b/a) factor by factor (s itself, not
 * exp(log s), whose rounding grows with |log s|). */
#define GM_W_TINY 1e-100
GHMIX_INLINE double gm_variance_tiny(double p, double a, double b, double w,
                                     double logs) {
  ghmix_bessel_result r, r1;
  if (p >= 0) {
    double big_w, t;
    ghmix_bessel_eval(w, p, GHMIX_BESSEL_RATIOS, &r);
    big_w = w * r.ratio_down;
    t = w * w + 4.0 * p + big_w * (2.0 - 2.0 * p - big_w);
    return (t / a) / a;
  }
  ghmix_bessel_eval(w, p, GHMIX_BESSEL_RATIOS, &r);
  ghmix_bessel_eval(w, p + 1.0, GHMIX_BESSEL_RATIOS, &r1);
  {
    double ru = r.ratio_up, dr = r1.ratio_up - r.ratio_up;
    double s = sqrt(b) / sqrt(a);
    if (s >= DBL_MIN && s <= DBL_MAX)
      return (s * ru) * (s * dr);
    return exp(2.0 * logs + log(ru) + log(dr));
  }
}

GHMIX_HD double ghmix_gig_variance(double p, double a, double b) {
  double w, logs, t;
  ghmix_gig_unit e;
  if (!ghmix_gig_valid(p, a, b))
    return NAN;
  if (b == 0)
    return 4.0 * p / (a * a);
  if (a == 0) {
    double q = -p, m;
    if (!(q > 2))
      return INFINITY;
    m = 0.5 * b / (q - 1.0);
    return m * m / (q - 2.0);
  }
  gm_scale(a, b, &w, &logs);
  if (w < GM_W_TINY)
    return gm_variance_tiny(p, a, b, w, logs);
  {
    ghmix_bessel_result r;
    ghmix_bessel_eval(
        w, fabs(p), GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS | GHMIX_BESSEL_RATIOS,
        &r);
    /* Var Z = d2/dw2 log K - (d/dw log K)/w + 2p/w^2: the first two terms
     * are >= 0; the last cancels them only for p < 0 and small w. */
    double pos = r.dx2 - r.dx / w, last = 2.0 * p / (w * w);
    if (p >= 0 || -last <= 0.5 * pos) {
      t = pos + last;
    } else { /* Var Z = Ru(p) (Ru(p+1) - Ru(p)) */
      gm_unit_eval(p, w, 0, &e);
      {
        ghmix_bessel_result r1;
        ghmix_bessel_eval(w, p + 1.0, GHMIX_BESSEL_RATIOS, &r1);
        t = e.ru * (r1.ratio_up - e.ru);
      }
    }
  }
  return gm_times_s2(logs, t);
}

GHMIX_HD int ghmix_gig_fisher(double p, double a, double b, double info[9]) {
  ghmix_gig_unit e;
  double w = NAN, logs = NAN, V, U, g[9];
  int i, ok = ghmix_gig_valid(p, a, b) && a > 0 && b > 0;
  if (ok) {
    gm_scale(a, b, &w, &logs);
    ok = gm_unit_eval(p, w, 1, &e);
  }
  if (!ok) {
    for (i = 0; i < 9; i++)
      info[i] = NAN;
    return 0;
  }
  V = e.rd / exp(logs);
  U = exp(logs) * e.ru;
  /* d eta / d phi, rows (L, V, U), columns (p, omega, sigma) */
  g[0] = e.d_p, g[1] = e.d_w, g[2] = 1.0;
  g[3] = V * e.lrd_p, g[4] = V * e.lrd_w, g[5] = -V;
  g[6] = U * e.lru_p, g[7] = U * e.lru_w, g[8] = U;
  /* times (d theta / d phi)^-1 = [[1,0,0],[0,-1/b,-1/a],[0,-1/b,1/a]] */
  for (i = 0; i < 3; i++) {
    info[3 * i] = g[3 * i];
    info[3 * i + 1] = -(g[3 * i + 1] + g[3 * i + 2]) / b;
    info[3 * i + 2] = (g[3 * i + 2] - g[3 * i + 1]) / a;
  }
  return 1;
}
