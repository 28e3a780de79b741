/* log K_nu(x) for 0 <= nu < 16 and x > 2: log K, the neighbour ratios and
 * the first derivatives (no second ones).  The dispatch (bessel.c) uses it
 * where it is the cheapest.
 *
 * Temme's method for x >= 2 (N. M. Temme, "On the numerical evaluation of
 * the modified Bessel function of the third kind", J. Comput. Phys. 19
 * (1975) 324-337; also Press et al., Numerical Recipes, section 6.7).  For
 * |mu| <= 1/2, K_mu(x) = sqrt(pi) (2x)^mu e^-x U_0 (DLMF 10.39.6), where
 * U_k = U(mu + 1/2 + k, 2 mu + 1, 2x) (Kummer's U) obey (DLMF 13.3(i))
 *   U_{k-1} = beta_k U_k - gamma_k U_{k+1},
 *   beta_k = 2 (k + x),  gamma_k = (k + 1/2)^2 - mu^2 > 0,
 * and U_k is its minimal solution, so f = U_1 / U_0 is the continued fraction
 *   f = 1 / (beta_1 - gamma_1 / (beta_2 - gamma_2 / (beta_3 - ...))).
 * Then (Temme)
 *   K_{mu+1} / K_mu = (mu + x + 1/2 - gamma_0 f) / x,
 *   e^x K_mu = sqrt(pi / (2x)) / S,  S = sum_k C_k U_k / U_0,
 *   C_k = gamma_0 gamma_1 ... gamma_{k-1} / k!,
 * from the expansion (2x)^{-mu-1/2} = sum_k C_k U_k.
 *
 * Both come from one pass over the convergents A_n / B_n of f
 * (B_0 = 1, B_1 = beta_1, B_n = beta_n B_{n-1} - gamma_{n-1} B_{n-2}).  The
 * n-th approximation of U_k / U_0 is the solution of the recurrence with
 * value 1 at k = 0 that vanishes at k = n + 1; it is p_k + f_n q_k, with p, q
 * the solutions that start (1, 0) and (0, 1), f_n = A_n / B_n and
 * q_k = B_{k-1} / (gamma_1 ... gamma_{k-1}).  Since p_n = -f_{n-1} q_n, the
 * n-th approximation of S grows by Q_n (f_n - f_{n-1}) (Steed's algorithm):
 *   S = 1 + gamma_0 sum_{n>=1} Q_n (f_n - f_{n-1}),
 *   Q_n = sum_{k=1}^n B_{k-1} / k!,
 *   f_n - f_{n-1} = gamma_1 ... gamma_{n-1} / (B_n B_{n-1}),
 * all terms positive.  The loop carries e_n = B_n / n! and
 * g_n = gamma_1 ... gamma_{n-1} / (n! (n-1)!):
 *   e_n = (2 + 2x / n) e_{n-1} - c_n e_{n-2},  g_n = c_n g_{n-1},
 *   c_n = gamma_{n-1} / (n (n-1)),  f_n - f_{n-1} = g_n / (e_n e_{n-1}),
 * so that, unlike Steed's d_n = 1 / (beta_n - gamma_{n-1} d_{n-1}), no
 * division lies on the path from one term to the next.  e is the dominant
 * solution of its recurrence (forward stable); e_n grows like
 * exp(2 sqrt(2 x n)) and the terms fall like 1/e_n: about 170/x terms for
 * 1e-17 (under 100 for x > 2; the tail after the last term is below 5 times
 * that term).  S is accumulated as S - 1: summed onto 1, the ~170/x
 * roundings of S would cost up to 1e-15.
 *
 * The order is raised by K_{m+1} = K_{m-1} + (2 (mu + m) / x) K_m
 * (DLMF 10.29.1) from k_0 = 1, k_1 = K_{mu+1} / K_mu: k_m = K_{mu+m} / K_mu,
 * all terms positive, at most K_16(2) / K_{1/2}(2) < 1e13 (no overflow).
 * 2/x is carried as hi + lo, so that the steps share no rounding error
 * (which would add up over the 16 steps).  For nu < 1/2 the recurrence is
 * not used: mu = -nu, so K_{mu+1} / K_mu = K_{1-nu} / K_nu = K_{nu-1} / K_nu
 * directly, as in the series.  Then
 *   log K_nu = log(e^-x sqrt(pi / (2x)) k_n / S),
 * one logarithm of the product (-x + log(...) would round log(...), of size
 * up to x + nu, to its own ulp).
 *
 * nu-derivative (forward-mode differentiation, exact up to rounding):
 * d/dnu = d/dmu at fixed n (= -d/dmu for nu < 1/2, where mu = -nu).  The
 * CF2 loop carries each quantity with its derivative in m2 = mu^2
 * (d gamma_k / d m2 = -1; d/dmu = 2 mu d/dm2, so odd in mu); those terms
 * fall at the rate of the values, up to a factor polynomial in n, and the
 * loop runs until both have.  The recurrence carries the increments
 * dl_m = d/dmu log(k_{m+1} / k_m) > 0 (log K_nu is convex in nu), which
 * obey
 *   dl_m = (2/x) k_m / k_{m+1} - (k_{m-1} / k_{m+1}) dl_{m-1},
 *   dl_0 = (d/dmu K_{mu+1}/K_mu) / (K_{mu+1}/K_mu),
 * damped (k_{m-1} / k_{m+1} < 1), and sums them with a two-sum
 * (differentiating k_m instead costs up to 1.2e-15 over 15 steps).  Then
 *   d/dnu log K_nu = sum_m dl_m - S'/S,  d/dx log K_nu =
 * -(nu / x + K_{nu-1} / K_nu) (DLMF 10.29.2). */
#include "bessel_impl.h"

#include <math.h>

#define CF2_EPS 1e-17
#define CF2_MAX_TERMS 128
#define SQRT_HALF_PI 1.25331413731550025121 /* sqrt(pi / 2) */

/* 1/k, 1 <= k < CF2_MAX_TERMS */
GHMIX_INLINE double cf2_inv(int k) {
  static const double inv[CF2_MAX_TERMS] = {
      0.0,       1.0,       1.0 / 2,   1.0 / 3,   1.0 / 4,   1.0 / 5,
      1.0 / 6,   1.0 / 7,   1.0 / 8,   1.0 / 9,   1.0 / 10,  1.0 / 11,
      1.0 / 12,  1.0 / 13,  1.0 / 14,  1.0 / 15,  1.0 / 16,  1.0 / 17,
      1.0 / 18,  1.0 / 19,  1.0 / 20,  1.0 / 21,  1.0 / 22,  1.0 / 23,
      1.0 / 24,  1.0 / 25,  1.0 / 26,  1.0 / 27,  1.0 / 28,  1.0 / 29,
      1.0 / 30,  1.0 / 31,  1.0 / 32,  1.0 / 33,  1.0 / 34,  1.0 / 35,
      1.0 / 36,  1.0 / 37,  1.0 / 38,  1.0 / 39,  1.0 / 40,  1.0 / 41,
      1.0 / 42,  1.0 / 43,  1.0 / 44,  1.0 / 45,  1.0 / 46,  1.0 / 47,
      1.0 / 48,  1.0 / 49,  1.0 / 50,  1.0 / 51,  1.0 / 52,  1.0 / 53,
      1.0 / 54,  1.0 / 55,  1.0 / 56,  1.0 / 57,  1.0 / 58,  1.0 / 59,
      1.0 / 60,  1.0 / 61,  1.0 / 62,  1.0 / 63,  1.0 / 64,  1.0 / 65,
      1.0 / 66,  1.0 / 67,  1.0 / 68,  1.0 / 69,  1.0 / 70,  1.0 / 71,
      1.0 / 72,  1.0 / 73,  1.0 / 74,  1.0 / 75,  1.0 / 76,  1.0 / 77,
      1.0 / 78,  1.0 / 79,  1.0 / 80,  1.0 / 81,  1.0 / 82,  1.0 / 83,
      1.0 / 84,  1.0 / 85,  1.0 / 86,  1.0 / 87,  1.0 / 88,  1.0 / 89,
      1.0 / 90,  1.0 / 91,  1.0 / 92,  1.0 / 93,  1.0 / 94,  1.0 / 95,
      1.0 / 96,  1.0 / 97,  1.0 / 98,  1.0 / 99,  1.0 / 100, 1.0 / 101,
      1.0 / 102, 1.0 / 103, 1.0 / 104, 1.0 / 105, 1.0 / 106, 1.0 / 107,
      1.0 / 108, 1.0 / 109, 1.0 / 110, 1.0 / 111, 1.0 / 112, 1.0 / 113,
      1.0 / 114, 1.0 / 115, 1.0 / 116, 1.0 / 117, 1.0 / 118, 1.0 / 119,
      1.0 / 120, 1.0 / 121, 1.0 / 122, 1.0 / 123, 1.0 / 124, 1.0 / 125,
      1.0 / 126, 1.0 / 127};
  return inv[k];
}

typedef struct {
  double s, s1; /* S and dS/dmu */
  double r, r1; /* K_{mu+1} / K_mu and its mu-derivative */
} cf2_sums;

/* S and K_{mu+1} / K_mu, with their mu-derivatives when deriv is set.  The
 * loop carries the derivatives in m2 = mu^2 (d gamma_k / d m2 = -1);
 * d/dmu = 2 mu d/dm2. */
GHMIX_INLINE cf2_sums cf2_eval(double x, double mu, int deriv) {
  double m2 = mu * mu, g0 = (0.5 - mu) * (0.5 + mu); /* gamma_0 */
  double ep = 1.0, e = 2.0 * (1.0 + x);              /* e_0, e_1 */
  double g = 1.0, q = 1.0, df = 1.0 / e;             /* g_1, Q_1, f_1 */
  double f = df, t = df;                             /* f_n, sum Q df */
  /* m2-derivatives of the same */
  double ep1 = 0.0, e1 = 0.0, g1 = 0.0, q1 = 0.0, f1 = 0.0, t1 = 0.0;
  double df1 = 0.0, dt1 = 0.0, w1 = 2.0 * fabs(mu);
  double sq = 0.25, x2 = 2.0 * x, iprev = 1.0;
  for (int n = 2; n < CF2_MAX_TERMS; n++) {
    double in = cf2_inv(n), inn = in * iprev;
    sq += 2 * (n - 1);                             /* (n - 1/2)^2, exact */
    double c = (sq - m2) * inn, a = 2.0 + x2 * in; /* c_n, 2 + 2x/n */
    double en = a * e - c * ep, id = 1.0 / (en * e);
    iprev = in;
    q += e * in;
    if (deriv) {
      double en1 = a * e1 - c * ep1 + inn * ep;
      q1 += e1 * in;
      g1 = c * g1 - inn * g;
      g *= c;
      df = g * id;
      df1 = (g1 - df * (en1 * e + en * e1)) * id;
      dt1 = q1 * df + q * df1;
      f1 += df1;
      t1 += dt1;
      ep1 = e1;
      e1 = en1;
    } else {
      g *= c;
      df = g * id;
    }
    ep = e;
    e = en;
    f += df;
    double term = q * df;
    t += term;
    /* the last increments of S - 1 = g0 t (S >= 1), of K_{mu+1}/K_mu (it
     * gains g0 df / x < g0 term) and of their mu-derivatives */
    if (g0 * term +
            (deriv ? w1 * (term + g0 * (fabs(dt1) + fabs(df1))) : 0.0) <=
        CF2_EPS)
      break;
  }
  cf2_sums out;
  out.s = 1.0 + g0 * t;
  out.r = ((x + 0.5 + mu) - g0 * f) / x;
  if (deriv) {
    double mu2 = 2.0 * mu;
    out.s1 = mu2 * (g0 * t1 - t);
    out.r1 = (1.0 + mu2 * (f - g0 * f1)) / x;
  } else {
    out.s1 = out.r1 = 0.0;
  }
  return out;
}

GHMIX_INLINE int cf2_order_shift(double nu) {
  return nu < 0.5 ? 0 : (int)(nu + 0.5);
}

GHMIX_HD void ghmix_bessel_raise(double x, double mu, int n, double r,
                                 double r1, int deriv,
                                 ghmix_bessel_raised *out) {
  /* k_{m-1}, k_m; with derivatives, dl_{m-1} and lam + lam_lo, the sum of
   * the dl so far */
  double tx = 2.0 / x, tx_lo = fma(-tx, x, 2.0) / x;
  double k0 = 1.0, k1 = r, dl = 0.0, lam = 0.0, lam_lo = 0.0;
  if (deriv)
    lam = dl = r1 / r;
  for (int m = 1; m < n; m++) {
    double am = mu + m; /* exact: mu and m are multiples of ulp(nu) */
    double u = k1 * tx + k1 * tx_lo, k2 = k0 + am * u; /* 2 k_m / x */
    if (deriv) {
      double ik2 = 1.0 / k2;
      dl = (u - k0 * dl) * ik2;
      /* two-sum; a compiler may fuse the product dl into its first
       * addition (nvcc does), which then rounds lam + (u - k0 dl) / k2
       * rather than lam + dl, but for lam, dl >= 0 the error terms below
       * still make lam + lam_lo exactly the sum of the dl (tests/c make
       * fused; and on 2e5 random pairs with exact rationals) */
      double sum = lam + dl, b = sum - lam;
      lam_lo += (lam - (sum - b)) + (dl - b);
      lam = sum;
    }
    k0 = k1;
    k1 = k2;
  }
  out->kn = k1;
  out->rdown = k0 / k1;
  out->dlog = lam + lam_lo;
}

/* log K alone, two points at a time -----------------------------------------
 * cf2_eval without derivatives and the recurrence of ghmix_bessel_raise
 * without them, for two points in lockstep while both run, then for the
 * one left: each loop is a chain of dependent multiplications and
 * divisions, and the two points' chains overlap in the processor (or
 * share its vector instructions: the state is kept as pairs, lane by
 * lane).  Each point goes through the same operations in the same order as
 * in ghmix_bessel_cf2(x, nu, 0, .), so the values are the same to the bit. */
typedef struct {
  double x[2], mu[2], m2[2], g0[2], x2[2];    /* the points' constants */
  double ep[2], e[2], g[2], q[2], f[2], t[2]; /* as in cf2_eval */
  double k0[2], k1[2], tx[2], tx_lo[2];       /* as in ghmix_bessel_raise */
  int shift[2];
} cf2_pair;

GHMIX_INLINE void lane_start(cf2_pair *p, int l, double x, double nu) {
  int shift = cf2_order_shift(nu);
  double mu = shift ? nu - shift : -nu;
  p->shift[l] = shift;
  p->mu[l] = mu;
  p->x[l] = x;
  p->m2[l] = mu * mu;
  p->g0[l] = (0.5 - mu) * (0.5 + mu);
  p->ep[l] = 1.0;
  p->e[l] = 2.0 * (1.0 + x);
  p->g[l] = 1.0;
  p->q[l] = 1.0;
  p->f[l] = p->t[l] = 1.0 / p->e[l];
  p->x2[l] = 2.0 * x;
}

/* CF2 term n of lane l (in = 1/n, inn = 1/(n (n-1)), sq = (n - 1/2)^2);
 * returns the last increment of S - 1, for the convergence test (a double
 * rather than the test's outcome: then the compilers vectorize the loop
 * over the two lanes). */
GHMIX_INLINE double lane_term(cf2_pair *p, int l, double in, double inn,
                              double sq) {
  double cn = (sq - p->m2[l]) * inn, a = 2.0 + p->x2[l] * in;
  double en = a * p->e[l] - cn * p->ep[l], id = 1.0 / (en * p->e[l]);
  p->q[l] += p->e[l] * in;
  p->g[l] *= cn;
  double df = p->g[l] * id;
  p->ep[l] = p->e[l];
  p->e[l] = en;
  p->f[l] += df;
  double term = p->q[l] * df;
  p->t[l] += term;
  return p->g0[l] * term + 0.0;
}

/* Lane l's terms from n on; sq and iprev as at term n - 1. */
GHMIX_INLINE void lane_rest(cf2_pair *p, int l, int n, double sq,
                            double iprev) {
  for (; n < CF2_MAX_TERMS; n++) {
    double in = cf2_inv(n), inn = in * iprev;
    sq += 2 * (n - 1);
    iprev = in;
    if (lane_term(p, l, in, inn, sq) <= CF2_EPS)
      break;
  }
}

/* The start of the recurrence: k_0 = 1, k_1 = K_{mu+1} / K_mu (k_0 is the
 * answer without a shift). */
GHMIX_INLINE void lane_raise_start(cf2_pair *p, int l) {
  double x = p->x[l];
  p->k0[l] = 1.0;
  p->k1[l] =
      p->shift[l] ? ((x + 0.5 + p->mu[l]) - p->g0[l] * p->f[l]) / x : 1.0;
  p->tx[l] = 2.0 / x;
  p->tx_lo[l] = fma(-p->tx[l], x, 2.0) / x;
}

GHMIX_INLINE void lane_raise_step(cf2_pair *p, int l, int m) {
  double am = p->mu[l] + m;
  double u = p->k1[l] * p->tx[l] + p->k1[l] * p->tx_lo[l];
  double k2 = p->k0[l] + am * u;
  p->k0[l] = p->k1[l];
  p->k1[l] = k2;
}

GHMIX_INLINE double lane_logk(const cf2_pair *p, int l) {
  double x = p->x[l], s = 1.0 + p->g0[l] * p->t[l];
  return log(exp(-x) * p->k1[l] * SQRT_HALF_PI / (sqrt(x) * s));
}

GHMIX_INLINE double cf2_logk_one(double x, double nu) {
  cf2_pair p;
  lane_start(&p, 0, x, nu);
  lane_rest(&p, 0, 2, 0.25, 1.0);
  lane_raise_start(&p, 0);
  for (int m = 1; m < p.shift[0]; m++)
    lane_raise_step(&p, 0, m);
  return lane_logk(&p, 0);
}

GHMIX_INLINE void cf2_logk_two(const double *x, const double *nu,
                               double *logk) {
  cf2_pair p;
  lane_start(&p, 0, x[0], nu[0]);
  lane_start(&p, 1, x[1], nu[1]);
  double sq = 0.25, iprev = 1.0;
  int n = 2, done0 = 0, done1 = 0;
  for (; n < CF2_MAX_TERMS && !done0 && !done1; n++) {
    double in = cf2_inv(n), inn = in * iprev;
    double last[2];
    sq += 2 * (n - 1);
    iprev = in;
    for (int l = 0; l < 2; l++) /* a loop, for the vectorizers */
      last[l] = lane_term(&p, l, in, inn, sq);
    done0 = last[0] <= CF2_EPS;
    done1 = last[1] <= CF2_EPS;
  }
  if (!done0)
    lane_rest(&p, 0, n, sq, iprev);
  if (!done1)
    lane_rest(&p, 1, n, sq, iprev);
  lane_raise_start(&p, 0);
  lane_raise_start(&p, 1);
  int m = 1;
  for (; m < p.shift[0] && m < p.shift[1]; m++) {
    for (int l = 0; l < 2; l++)
      lane_raise_step(&p, l, m);
  }
  for (int l = 0; l < 2; l++)
    for (int ml = m; ml < p.shift[l]; ml++)
      lane_raise_step(&p, l, ml);
  logk[0] = lane_logk(&p, 0);
  logk[1] = lane_logk(&p, 1);
}

/* About log2(x) / 2 for 2 < x < 100: points of one class take similar
 * numbers of terms (about 170/x), so that a pair of them runs in lockstep
 * for most of its terms. */
#define CF2_CLASSES 11
GHMIX_INLINE int cf2_class(double x) {
  return (x >= 2.83) + (x >= 4.0) + (x >= 5.66) + (x >= 8.0) + (x >= 11.3) +
         (x >= 16.0) + (x >= 22.6) + (x >= 32.0) + (x >= 45.3) + (x >= 64.0);
}

GHMIX_HD void ghmix_bessel_cf2_logk_n(int n, const double *x, const double *nu,
                                      double *logk) {
  int count[CF2_CLASSES + 1] = {0}, order[GHMIX_CF2_LOGK_N_MAX];
  unsigned char cls[GHMIX_CF2_LOGK_N_MAX];
  for (int i = 0; i < n; i++) {
    cls[i] = (unsigned char)cf2_class(x[i]);
    count[cls[i] + 1]++;
  }
  for (int c = 1; c <= CF2_CLASSES; c++)
    count[c] += count[c - 1];
  for (int i = 0; i < n; i++)
    order[count[cls[i]]++] = i;
  int k = 0;
  for (; k + 1 < n; k += 2) {
    int i = order[k], j = order[k + 1];
    double px[2] = {x[i], x[j]}, pnu[2] = {nu[i], nu[j]}, v[2];
    cf2_logk_two(px, pnu, v);
    logk[i] = v[0];
    logk[j] = v[1];
  }
  if (k < n)
    logk[order[k]] = cf2_logk_one(x[order[k]], nu[order[k]]);
}

GHMIX_HD void ghmix_bessel_cf2(double x, double nu, int what,
                               ghmix_bessel_result *res) {
  int n = cf2_order_shift(nu), deriv = what & GHMIX_BESSEL_GRAD;
  double mu = n ? nu - n : -nu;
  cf2_sums c = deriv ? cf2_eval(x, mu, 1) : cf2_eval(x, mu, 0);
  ghmix_bessel_raised up = {1.0, c.r, 0.0};
  if (n > 0)
    ghmix_bessel_raise(x, mu, n, c.r, c.r1, deriv, &up);
  res->logk = log(exp(-x) * up.kn * SQRT_HALF_PI / (sqrt(x) * c.s));
  double nx = nu / x;
  if (deriv) {
    /* d/dmu log k_n - S'/S; for n = 0 (mu = -nu) -(-S'/S) */
    double ls1 = c.s1 / c.s;
    res->dnu = n ? up.dlog - ls1 : 0.0 + ls1; /* +0, not -0, at nu = 0 */
    res->dx = -(nx + up.rdown);
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_down = up.rdown;
    res->ratio_up = up.rdown + 2.0 * nx;
  }
}
