/* Small-x regime of log K_nu(x): 0 <= nu < 16, 0 < x <= 2.
 *
 * Temme's method (N. M. Temme, "On the numerical evaluation of the modified
 * Bessel function of the third kind", J. Comput. Phys. 19 (1975) 324-337;
 * also Press et al., Numerical Recipes, section 6.7, routine bessik) gives
 * K_mu(x) and K_{mu+1}(x) for |mu| <= 1/2 from series in y = (x/2)^2:
 *
 *   K_mu = sum_k c_k f_k,   (x/2) K_{mu+1} = sum_k c_k (p_k - k f_k),
 *   c_k = y^k / k!,
 *   f_k = (k f_{k-1} + p_{k-1} + q_{k-1}) / (k^2 - mu^2),
 *   p_k = p_{k-1} / (k - mu),  q_k = q_{k-1} / (k + mu),
 *   p_0 = (1/2) (x/2)^-mu Gamma(1+mu),  q_0 = (1/2) (x/2)^mu Gamma(1-mu),
 *   f_0 = mu pi / sin(mu pi) [Gamma1(mu) cosh(e) + Gamma2(mu) d sinh(e)/e],
 *   d = log(2/x),  e = mu d,
 *   Gamma1 = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu),
 *   Gamma2 = (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2.
 *
 * Gamma1 and Gamma2 are the odd and even parts of the Taylor series of
 * 1/Gamma(1+z) (DLMF 5.7.1), so mu -> 0 has no cancellation, and
 * mu pi / sin(mu pi) = Gamma(1+mu) Gamma(1-mu) (DLMF 5.5.3).
 *
 * The order is raised by K_{m+1} = K_{m-1} + (2m/x) K_m (DLMF 10.29.1),
 * carried as k_m = (x/2)^m K_{mu+m} (times a constant), for which
 * k_{m+1} = y k_{m-1} + (mu + m) k_m: all terms positive, no division, no
 * overflow (K itself overflows for tiny x).
 *
 * nu-derivatives: every quantity is a second-order jet in mu (d/dnu = d/dmu
 * for n = round(nu) fixed).  (log v)'' = v''/v - (v'/v)^2 cancels when v
 * carries a factor (x/2)^-+mu with d large, so the sums are scaled by that
 * factor before the logarithm is taken: for |e| < 2 by (x/2)^-mu; beyond,
 * f_k is split into its (x/2)^-mu and (x/2)^mu parts, from
 * f_0 = Gamma(mu)/2 (x/2)^-mu + Gamma(-mu)/2 (x/2)^mu, each part with its
 * own factor.
 *
 * For nu < 1/2 the series runs at mu = -nu: it then yields K_nu and
 * K_{1-nu} = K_{nu-1} directly, so K_{nu-1}/K_nu needs no subtraction.
 *
 * x-derivatives follow from w = x K_{nu-1}/K_nu: d/dx log K = -(nu + w)/x
 * (DLMF 10.29.2) and, by the Bessel equation,
 * d2/dx2 log K = 1 + (nu + w (1 - 2 nu - w)) / x^2. */
#include "bessel_impl.h"
#include "bessel_series_coef.h"

#include <math.h>

#define SERIES_EPS 1e-17
#define SERIES_MAX_TERMS 40
/* jets: the split form from |e| = |mu| d >= E_SPLIT on */
#define E_SPLIT 2.0
/* log 2 = LN2_HI + LN2_LO, LN2_HI with 21 trailing zero bits */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

typedef struct {
  double v, d1, d2;
} jet;

GHMIX_INLINE jet jmake(double v, double d1, double d2) {
  jet r;
  r.v = v;
  r.d1 = d1;
  r.d2 = d2;
  return r;
}

GHMIX_INLINE jet jconst(double v) { return jmake(v, 0.0, 0.0); }

GHMIX_INLINE jet jadd(jet a, jet b) {
  return jmake(a.v + b.v, a.d1 + b.d1, a.d2 + b.d2);
}

GHMIX_INLINE jet jsub(jet a, jet b) {
  return jmake(a.v - b.v, a.d1 - b.d1, a.d2 - b.d2);
}

GHMIX_INLINE jet jscale(double s, jet a) {
  return jmake(s * a.v, s * a.d1, s * a.d2);
}

/* a + s b */
GHMIX_INLINE jet jaxpy(jet a, double s, jet b) {
  return jmake(a.v + s * b.v, a.d1 + s * b.d1, a.d2 + s * b.d2);
}

GHMIX_INLINE jet jmul(jet a, jet b) {
  return jmake(a.v * b.v, a.d1 * b.v + a.v * b.d1,
               a.d2 * b.v + 2.0 * a.d1 * b.d1 + a.v * b.d2);
}

/* a (c + mu) for a constant c, given as cm = c + mu */
GHMIX_INLINE jet jmul_lin(jet a, double cm) {
  return jmake(cm * a.v, a.v + cm * a.d1, 2.0 * a.d1 + cm * a.d2);
}

GHMIX_INLINE jet jdiv(jet a, jet b) {
  double q = a.v / b.v;
  double q1 = (a.d1 - q * b.d1) / b.v;
  return jmake(q, q1, (a.d2 - 2.0 * q1 * b.d1 - q * b.d2) / b.v);
}

GHMIX_INLINE jet jlog(jet a) {
  double l1 = a.d1 / a.v;
  return jmake(log(a.v), l1, a.d2 / a.v - l1 * l1);
}

/* exp(slope * mu + const), whose value is ev */
GHMIX_INLINE jet jexp_lin(double ev, double slope) {
  return jmake(ev, slope * ev, slope * slope * ev);
}

/* (hi, lo) = a + b exactly */
GHMIX_INLINE void two_sum(double a, double b, double *hi, double *lo) {
  double s = a + b, bb = s - a;
  *hi = s;
  *lo = (a - (s - bb)) + (b - bb);
}

/* d = log(2/x) as hi + lo: a rounded log would put an error of ulp(d) into
 * (x/2)^+-mu = exp(+-mu d), up to 1e-13 relative at x = 1e-300 */
GHMIX_INLINE void log_two_over_x(double x, double *hi, double *lo) {
  if (x >= 1.0) {
    *hi = -log(0.5 * x);
    *lo = 0.0;
    return;
  }
  int k;
  double m = frexp(x, &k);
  two_sum((1 - k) * LN2_HI, (1 - k) * LN2_LO - log(m), hi, lo);
}

/* exp(hi + lo), |lo| <= ulp(hi) */
GHMIX_INLINE double exp_hl(double hi, double lo) {
  return exp(hi) * (1.0 + lo);
}

/* sum_{j<n} c_j y^j, n even, as two chains in y^2 */
GHMIX_INLINE double poly2(const double *c, int n, double y) {
  double z = y * y, a = c[n - 2], b = c[n - 1];
  for (int j = n - 4; j >= 0; j -= 2) {
    a = a * z + c[j];
    b = b * z + c[j + 1];
  }
  return a + y * b;
}

/* Gamma1 = -sum a_{2j+1} mu^2j, Gamma2 = sum a_{2j} mu^2j */
GHMIX_INLINE void temme_gammas(double mu, double *g1, double *g2) {
  static const double even[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_EVEN;
  static const double odd[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_ODD;
  double y = mu * mu;
  *g1 = -poly2(odd, GHMIX_RGAMMA_N, y);
  *g2 = poly2(even, GHMIX_RGAMMA_N, y);
}

typedef struct {
  jet g1, g2, gampl, gammi; /* Gamma1, Gamma2, 1/Gamma(1+mu), 1/Gamma(1-mu) */
} gamma_jets;

/* g(t) = P(t^2) as a t-jet, from the tables of P, P', P'':
 * g' = 2 t P', g'' = 2 P' + 4 t^2 P'' */
GHMIX_INLINE jet even_poly_jet(const double *c0, const double *c1,
                               const double *c2, int n, double t) {
  double y = t * t, p1 = poly2(c1, n, y);
  return jmake(poly2(c0, n, y), 2.0 * t * p1,
               2.0 * p1 + 4.0 * y * poly2(c2, n, y));
}

GHMIX_INLINE gamma_jets temme_gammas_jet(double mu) {
  static const double e0[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_EVEN;
  static const double e1[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_EVEN_D1;
  static const double e2[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_EVEN_D2;
  static const double o0[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_ODD;
  static const double o1[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_ODD_D1;
  static const double o2[GHMIX_RGAMMA_N] = GHMIX_RGAMMA_ODD_D2;
  gamma_jets g;
  g.g1 = jscale(-1.0, even_poly_jet(o0, o1, o2, GHMIX_RGAMMA_N, mu));
  g.g2 = even_poly_jet(e0, e1, e2, GHMIX_RGAMMA_N, mu);
  jet mg1 = jmul(jmake(mu, 1.0, 0.0), g.g1);
  g.gampl = jsub(g.g2, mg1);
  g.gammi = jadd(g.g2, mg1);
  return g;
}

/* 1 / (Gamma(1+mu) Gamma(1-mu)) = Gamma2^2 - mu^2 Gamma1^2 (= sin(pi mu) /
 * (pi mu), DLMF 5.5.3) as an even jet: its derivatives from the even jets
 * Gamma1, Gamma2 directly, relative to mu near 0 (the product of the jets
 * of 1/Gamma(1+-mu) gets them as the difference of two O(1) terms).  The
 * value is the product of the two values, as in temme_plain. */
GHMIX_INLINE jet gamma_product_jet(const gamma_jets *g, double mu) {
  jet g1 = g->g1, g2 = g->g2;
  double m2 = mu * mu;
  double d1 =
      2.0 * g2.v * g2.d1 - 2.0 * mu * g1.v * g1.v - 2.0 * m2 * g1.v * g1.d1;
  double d2 = 2.0 * (g2.d1 * g2.d1 + g2.v * g2.d2) - 2.0 * g1.v * g1.v -
              8.0 * mu * g1.v * g1.d1 -
              2.0 * m2 * (g1.d1 * g1.d1 + g1.v * g1.d2);
  return jmake(g->gampl.v * g->gammi.v, d1, d2);
}

/* S(e) = sinh(e)/e and its e-derivatives, |e| < 2 */
GHMIX_INLINE jet sinhc_jet(double e) {
  static const double c0[GHMIX_SINHC_N] = GHMIX_SINHC;
  static const double c1[GHMIX_SINHC_N] = GHMIX_SINHC_D1;
  static const double c2[GHMIX_SINHC_N] = GHMIX_SINHC_D2;
  return even_poly_jet(c0, c1, c2, GHMIX_SINHC_N, e);
}

/* 1/k, 1 <= k < SERIES_MAX_TERMS */
GHMIX_INLINE double inv_int(int k) {
  static const double inv[SERIES_MAX_TERMS] = {
      0.0,      1.0,      1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,  1.0 / 6,
      1.0 / 7,  1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13,
      1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20,
      1.0 / 21, 1.0 / 22, 1.0 / 23, 1.0 / 24, 1.0 / 25, 1.0 / 26, 1.0 / 27,
      1.0 / 28, 1.0 / 29, 1.0 / 30, 1.0 / 31, 1.0 / 32, 1.0 / 33, 1.0 / 34,
      1.0 / 35, 1.0 / 36, 1.0 / 37, 1.0 / 38, 1.0 / 39};
  return inv[k];
}

/* Temme's sums: *sk = K_mu(x), *sk1 = (x/2) K_{mu+1}(x). */
GHMIX_INLINE void temme_plain(double y, double dh, double dl, double mu,
                              double *sk, double *sk1) {
  double g1, g2;
  temme_gammas(mu, &g1, &g2);
  double gampl = g2 - mu * g1, gammi = g2 + mu * g1;
  double eh = mu * dh, ex, exi, t;
  if (fabs(eh) < 1.0) {
    double em1 = expm1(eh);
    ex = 1.0 + em1;
    exi = 1.0 / ex;
    /* sinh(e)/mu = d (1 + e^2/6 + ...); for a subnormal mu, e = mu d is
     * rounded to the subnormal grid and e / mu is not d */
    t = fabs(eh) < 1e-150 ? dh : 0.5 * (em1 + em1 * exi) / mu;
  } else {
    ex = exp_hl(eh, fma(mu, dh, -eh) + mu * dl);
    exi = 1.0 / ex;
    t = 0.5 * (ex - exi) / mu;
  }
  /* 1/Gamma(1+-mu) = Gamma(1-+mu) mu pi / sin(mu pi) */
  double fact = 1.0 / (gampl * gammi);
  double f = fact * (g1 * 0.5 * (ex + exi) + g2 * t);
  double p = 0.5 * fact * ex * gammi, q = 0.5 * fact * exi * gampl;
  double c = 1.0, s = f, s1 = p;
  for (int k = 1; k < SERIES_MAX_TERMS; k++) {
    double a = k - mu, b = k + mu, r = 1.0 / (a * b);
    f = (k * f + (p + q)) * r;
    p *= b * r;
    q *= a * r;
    c *= y * inv_int(k);
    double t0 = c * f, t1 = c * (p - k * f);
    s += t0;
    s1 += t1;
    if (fabs(t0) <= SERIES_EPS * fabs(s) && fabs(t1) <= SERIES_EPS * fabs(s1))
      break;
  }
  *sk = s;
  *sk1 = s1;
}

/* 1/(k - mu), 1/(k + mu), 1/(k^2 - mu^2) as mu-jets */
GHMIX_INLINE void recip_jets(int k, double mu, jet *ia, jet *ib, jet *iab) {
  double a = k - mu, b = k + mu, r = 1.0 / (a * b), ra = b * r, rb = a * r;
  *ia = jmake(ra, ra * ra, 2.0 * ra * ra * ra);
  *ib = jmake(rb, -rb * rb, 2.0 * rb * rb * rb);
  *iab = jmake(r, 2.0 * mu * r * r, 2.0 * r * r + 8.0 * mu * mu * r * r * r);
}

/* Series at mu = -nu, nu < 1/2: log K_nu and w = x K_{nu-1}/K_nu. */
typedef struct {
  jet lk;    /* log K_mu, mu-jet */
  double w;  /* x K_{mu+1}/K_mu */
  double w1; /* 1 + dw/dnu */
} series_low;

/* Series for raising the order (n >= 1), scaled by (x/2)^mu = exp(-e). */
typedef struct {
  jet s1;  /* (x/2) K_{mu+1} exp(-e) */
  jet ysk; /* y K_mu exp(-e) */
  jet u0;  /* K_mu / K_{mu+1} */
} series_up;

/* |e| < 2, nu < 1/2.  Everything is kept even in mu, so that the odd
 * derivatives vanish at mu = 0 and are accurate near it: with
 * sigma_k = p_k + q_k and (p_k - q_k)/mu = f_k (true at k = 0 and kept by
 * the recurrences),
 *   f_k = (k f_{k-1} + sigma_{k-1}) / (k^2 - mu^2),
 *   sigma_k = (k sigma_{k-1} + mu^2 f_{k-1}) / (k^2 - mu^2),
 *   sigma_0 = mu pi / sin(mu pi) [Gamma2 cosh(e) + mu^2 d Gamma1 sinh(e)/e],
 * and x K_{mu+1}/K_mu - mu = sum c_k (sigma_k - 2k f_k) / K_mu, even too.
 * p_k themselves are needed only as values. */
GHMIX_INLINE series_low series_even(double y, double d, double mu) {
  gamma_jets g = temme_gammas_jet(mu);
  double e = mu * d, ex = exp(e), exi = 1.0 / ex;
  jet fact = jdiv(jconst(1.0), gamma_product_jet(&g, mu));
  jet sc = sinhc_jet(e);
  double chv = 0.5 * (ex + exi);
  jet ch = jmake(chv, d * e * sc.v, d * d * chv);
  jet tj = jmake(d * sc.v, d * d * sc.d1, d * d * d * sc.d2);
  jet m2 = jmake(mu * mu, 2.0 * mu, 2.0);
  jet f = jmul(fact, jadd(jmul(g.g1, ch), jmul(g.g2, tj)));
  jet sig = jmul(fact, jadd(jmul(g.g2, ch), jmul(m2, jmul(g.g1, tj))));
  double p = 0.5 * ex / g.gampl.v, c = 1.0, s1 = p;
  jet sk = f, ps = sig;
  for (int k = 1; k < SERIES_MAX_TERMS; k++) {
    double rv = 1.0 / ((k - mu) * (k + mu));
    jet r = jmake(rv, 2.0 * mu * rv * rv,
                  2.0 * rv * rv + 8.0 * mu * mu * rv * rv * rv);
    jet fn = jmul(jaxpy(sig, k, f), r);
    sig = jmul(jaxpy(jmul(m2, f), k, sig), r);
    f = fn;
    p *= (k + mu) * rv;
    c *= y * inv_int(k);
    jet t = jaxpy(sig, -2.0 * k, f);
    double t1 = c * (p - k * f.v);
    sk = jaxpy(sk, c, f);
    ps = jaxpy(ps, c, t);
    s1 += t1;
    if (fabs(c * f.v) <= SERIES_EPS * fabs(sk.v) &&
        fabs(c * t.v) <= SERIES_EPS * fabs(ps.v) &&
        fabs(t1) <= SERIES_EPS * fabs(s1))
      break;
  }
  series_low out;
  out.lk = jlog(sk);
  out.w = 2.0 * s1 / sk.v;
  /* w(nu) = -nu + psi(nu) with psi even: 1 + w' = psi'(nu) = -psi'(mu) */
  out.w1 = -jdiv(ps, sk).d1;
  return out;
}

/* |e| < 2, n >= 1: scaled by exp(-e), cosh(e) e^-e = (1 + z)/2 with
 * z = e^-2e, and d sinh(e)/e e^-e = d V(e) with V = S(e) e^-e. */
GHMIX_INLINE series_up series_scaled(double x, double y, double d, double mu) {
  gamma_jets g = temme_gammas_jet(mu);
  double e = mu * d, exi = exp(-e), z = exi * exi;
  jet fact = jdiv(jconst(1.0), jmul(g.gampl, g.gammi));
  jet sc = sinhc_jet(e);
  jet ch = jmake(0.5 * (1.0 + z), -d * z, 2.0 * d * d * z);
  double v0 = sc.v * exi, v1 = (sc.d1 - sc.v) * exi;
  double v2 = (sc.d2 - 2.0 * sc.d1 + sc.v) * exi;
  jet tj = jmake(d * v0, d * d * v1, d * d * d * v2);
  jet p = jdiv(jconst(0.5), g.gampl);
  jet q = jmul(jexp_lin(z, -2.0 * d), jdiv(jconst(0.5), g.gammi));
  jet f = jmul(fact, jadd(jmul(g.g1, ch), jmul(g.g2, tj)));
  jet sk = f, s1 = p;
  double c = 1.0;
  for (int k = 1; k < SERIES_MAX_TERMS; k++) {
    jet ia, ib, iab;
    recip_jets(k, mu, &ia, &ib, &iab);
    f = jmul(jaxpy(jadd(p, q), k, f), iab);
    p = jmul(p, ia);
    q = jmul(q, ib);
    c *= y * inv_int(k);
    jet h = jaxpy(p, -k, f);
    sk = jaxpy(sk, c, f);
    s1 = jaxpy(s1, c, h);
    if (fabs(c * f.v) <= SERIES_EPS * fabs(sk.v) &&
        fabs(c * h.v) <= SERIES_EPS * fabs(s1.v))
      break;
  }
  series_up out;
  out.s1 = s1;
  out.ysk = jscale(y, sk);
  out.u0 = jscale(0.5, jdiv(jscale(x, sk), s1));
  return out;
}

/* |e| >= 2: f_k = (x/2)^-mu alpha_k + (x/2)^mu beta_k with
 * alpha_0 = Gamma(mu)/2, beta_0 = Gamma(-mu)/2 (the two terms of f_0 no
 * longer cancel); each part obeys the recurrence with q = 0, resp. p = 0.
 * ska, skb: the two parts of K_mu; s1a, s1b: of (x/2) K_{mu+1}, s1b
 * without its factor y. */
typedef struct {
  jet ska, skb, s1a, s1b;
} split_sums;

GHMIX_INLINE split_sums series_split_sums(double y, double mu) {
  gamma_jets g = temme_gammas_jet(mu);
  jet p = jdiv(jconst(0.5), g.gampl), q = jdiv(jconst(0.5), g.gammi);
  double im = 1.0 / mu;
  jet inv_mu = jmake(im, -im * im, 2.0 * im * im * im);
  jet a = jmul(p, inv_mu), b = jscale(-1.0, jmul(q, inv_mu));
  split_sums s;
  s.ska = a;
  s.skb = b;
  s.s1a = p;
  jet ta = jconst(0.0), tb = ta, th = ta, tq = ta;
  double c = 1.0;
  for (int k = 1; k < SERIES_MAX_TERMS; k++) {
    jet ia, ib, iab;
    recip_jets(k, mu, &ia, &ib, &iab);
    a = jmul(jaxpy(p, k, a), iab);
    b = jmul(jaxpy(q, k, b), iab);
    p = jmul(p, ia);
    q = jmul(q, ib);
    c *= inv_int(k);
    jet h = jaxpy(p, -k, a);
    ta = jaxpy(ta, c, a);
    tb = jaxpy(tb, c, b);
    th = jaxpy(th, c, h);
    tq = jaxpy(tq, -c * k, b);
    if (fabs(c * a.v) <= SERIES_EPS * fabs(ta.v) &&
        fabs(c * b.v) <= SERIES_EPS * fabs(tb.v) &&
        fabs(c * h.v) <= SERIES_EPS * fabs(th.v) &&
        fabs(c * k * b.v) <= SERIES_EPS * fabs(tq.v))
      break;
    c *= y;
  }
  s.ska = jaxpy(s.ska, y, ta);
  s.skb = jaxpy(s.skb, y, tb);
  s.s1a = jaxpy(s.s1a, y, th);
  s.s1b = tq;
  return s;
}

/* mu = -nu < 0 */
GHMIX_INLINE series_low series_split_low(double y, double d, double eh,
                                         double el, double mu) {
  split_sums s = series_split_sums(y, mu);
  /* K_mu scaled by exp(|e|) = exp(-e), (x/2) K_{mu+1} by exp(e) */
  double gsq = exp_hl(2.0 * eh, 2.0 * el);
  jet sk = jadd(s.skb, jmul(jexp_lin(gsq, 2.0 * d), s.ska));
  jet r = jexp_lin(exp(-2.0 * (d + eh)), -2.0 * d);
  jet s1 = jadd(s.s1a, jmul(r, s.s1b));
  jet wj = jmul(jscale(2.0, jdiv(s1, sk)), jexp_lin(gsq, 2.0 * d));
  jet lk = jlog(sk);
  series_low out;
  out.lk = jmake(lk.v - eh, lk.d1 - d, lk.d2);
  out.w = wj.v;
  out.w1 = 1.0 - wj.d1;
  return out;
}

GHMIX_INLINE series_up series_split_up(double x, double y, double dh, double dl,
                                       double eh, double el, double mu) {
  split_sums s = series_split_sums(y, mu);
  double d = dh;
  jet gsq = jexp_lin(exp(-2.0 * fabs(eh)), mu > 0.0 ? -2.0 * d : 2.0 * d);
  jet r = jexp_lin(exp(-2.0 * (d + eh)), -2.0 * d);
  series_up out;
  out.s1 = jadd(s.s1a, jmul(r, s.s1b));
  if (mu > 0.0) {
    jet sk = jadd(s.ska, jmul(gsq, s.skb));
    out.ysk = jscale(y, sk);
    out.u0 = jscale(0.5, jdiv(jscale(x, sk), out.s1));
  } else {
    /* K_mu is scaled by exp(-e) here; (x/2) exp(-2e) = exp(-d - 2e) */
    jet sk = jadd(s.skb, jmul(gsq, s.ska));
    out.ysk = jmul(r, sk);
    double hi, lo;
    two_sum(-dh, -2.0 * eh, &hi, &lo);
    jet qf = jexp_lin(exp_hl(hi, lo - dl - 2.0 * el), -2.0 * d);
    out.u0 = jdiv(jmul(qf, sk), out.s1);
  }
  return out;
}

GHMIX_INLINE int order_shift(double nu) {
  return nu < 0.5 ? 0 : (int)(nu + 0.5);
}

GHMIX_LOCAL void series_value(double x, double nu, int what,
                              ghmix_bessel_result *res) {
  int n = order_shift(nu);
  double mu = n ? nu - n : -nu;
  double x2 = 0.5 * x, y = x2 * x2, dh, dl, sk, sk1;
  log_two_over_x(x, &dh, &dl);
  temme_plain(y, dh, dl, mu, &sk, &sk1);
  double rdown;
  if (n == 0) {
    res->logk = log(sk);
    rdown = 2.0 * (sk1 / sk) / x;
  } else {
    /* k_{m-1}, k_m; two steps at a time, k_{m+2} from k_{m-1} and k_m */
    double k0 = sk, k1 = sk1;
    int m = 1;
    for (; m + 2 <= n; m += 2) {
      double a = mu + m, b = a + 1.0;
      double k2 = y * k0 + a * k1;
      k1 = (y + a * b) * k1 + y * b * k0;
      k0 = k2;
    }
    if (m < n) {
      double k2 = y * k0 + (mu + m) * k1;
      k0 = k1;
      k1 = k2;
    }
    res->logk = n * dh + log(k1);
    /* (x/2) underflows for the least subnormal x */
    rdown = 0.5 * (n == 1 ? x * k0 / k1 : x * (k0 / k1));
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_down = rdown;
    res->ratio_up = rdown + 2.0 * nu / x;
  }
}

GHMIX_LOCAL void series_jet(double x, double nu, int what,
                            ghmix_bessel_result *res) {
  int n = order_shift(nu);
  double mu = n ? nu - n : -nu;
  double x2 = 0.5 * x, y = x2 * x2, dh, dl;
  log_two_over_x(x, &dh, &dl);
  double eh = mu * dh, el = fma(mu, dh, -eh) + mu * dl;
  int split = fabs(eh) >= E_SPLIT;
  double dnu, dnu2, w, w1, rdown; /* w1 = 1 + dw/dnu */
  if (n == 0) {
    series_low s =
        split ? series_split_low(y, dh, eh, el, mu) : series_even(y, dh, mu);
    res->logk = s.lk.v;
    dnu = 0.0 - s.lk.d1; /* +0, not -0, at nu = 0 */
    dnu2 = s.lk.d2;
    w = s.w;
    w1 = s.w1;
    rdown = w / x;
  } else {
    series_up s = split ? series_split_up(x, y, dh, dl, eh, el, mu)
                        : series_scaled(x, y, dh, mu);
    /* a = y k_{m-1}, b = k_m, as in series_value */
    jet a = s.ysk, b = s.s1, bprev = b, u = s.u0;
    int m = 1;
    for (; m + 2 <= n; m += 2) {
      double am = mu + m;
      jet k1 = jadd(a, jmul_lin(b, am));
      jet c2 = jmake(am * (am + 1.0) + y, 2.0 * am + 1.0, 2.0);
      b = jadd(jmul(c2, b), jmul_lin(a, am + 1.0));
      a = jscale(y, k1);
      bprev = k1;
    }
    if (m < n) {
      bprev = b;
      b = jadd(a, jmul_lin(b, mu + m));
    }
    if (n > 1)
      u = jscale(0.5, jscale(x, jdiv(bprev, b)));
    jet lb = jlog(b);
    res->logk = nu * dh + lb.v;
    dnu = dh + lb.d1;
    dnu2 = lb.d2;
    rdown = u.v;
    w = x * u.v;
    w1 = 1.0 + x * u.d1;
  }
  if (what & GHMIX_BESSEL_GRAD) {
    res->dnu = dnu;
    res->dx = -(nu / x + rdown);
  }
  if (what & GHMIX_BESSEL_HESS) {
    res->dnu2 = dnu2;
    res->dnudx = (0.0 - w1) / x;
    res->dx2 = 1.0 + (nu + w * (1.0 - 2.0 * nu - w)) / x / x;
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_down = rdown;
    res->ratio_up = rdown + 2.0 * nu / x;
  }
}

GHMIX_HD void ghmix_bessel_series(double x, double nu, int what,
                                  ghmix_bessel_result *res) {
  if (what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS))
    series_jet(x, nu, what, res);
  else
    series_value(x, nu, what, res);
}
