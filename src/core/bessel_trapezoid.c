/* log K_nu(x) by the trapezoid rule over the whole real line:
 *   K_nu(x) = 1/2 int exp(-x cosh t + nu t) dt,
 * with nodes t = t0 + k h on a grid anchored at the peak t0 = asinh(nu / x).
 * For this entire, fast-decaying integrand the rule converges exponentially;
 * its error is the alias 2 |K_{nu + 2 pi i / h}(x)| / K_nu(x) (Poisson
 * summation), which the step below keeps under 1e-17.  Relative to the
 * peak, the exponent is psi(s) = -nu (e^s - 1 - s) - c (cosh s - 1) with
 * c = sqrt(nu^2 + x^2) - nu, a sum of non-positive terms (no cancellation).
 * Per node: one exp() for the weight; e^{+-s} from Taylor polynomials near
 * the peak, beyond from the previous node, e^{s+h} = e^s + e^s (e^h - 1)
 * (one rounding per step, e^h - 1 from expm1: no error that repeats),
 * recomputed every few nodes; only the moments asked for are summed, and
 * the tails are cut where the largest of those weights falls below
 * e^-CUTOFF.
 *
 * d/dnu log K and d2/(dnu dx) log K are odd in nu.  For small nu the odd
 * moments (of s and of s g) are summed over the node pairs +-s, whose
 * weights differ by the odd part of the exponent, psi(+-s) = psi_e -+
 * nu (sinh s - s) with psi_e = -(nu + c) (cosh s - 1):
 *   w(s) - w(-s) = -2 e^psi_e sinh(nu (sinh s - s)),
 * so that they are relative to nu (summed node by node, the two weights
 * of a pair are equal in doubles once nu is below ~1e-16, and the moments
 * lose the digits of nu).
 */
#include "bessel_impl.h"

#include <math.h>
#include <stddef.h>

#define TWO_PI 6.283185307179586
/* Terms below exp(-CUTOFF) times the peak term are left out. */
#define CUTOFF 39.0
/* nodes |s| < TAYLOR_MAX: Taylor polynomials; beyond, exponentials */
#define TAYLOR_MAX 0.5
/* beyond, e^{+-s} is carried from node to node and recomputed with exp()
 * every ANCHOR_EVERY nodes */
#define ANCHOR_EVERY 8
/* the odd moments over node pairs for nu below this (above, the plain sums
 * lose at most ~4e-17 / nu relative: 4e-14) */
#define ODD_PAIRS_NU 1e-3

typedef struct {
  double cm1;  /* cosh s - 1 */
  double em1s; /* e^s - 1 - s */
  double em1;  /* e^s - 1 */
  double shms; /* sinh s - s */
} node_terms;

/* cosh s - 1, e^s - 1 - s and e^s - 1 at +s and -s, 0 <= s < TAYLOR_MAX,
 * without cancellation near s = 0; the nodes come in such pairs around the
 * peak, which share one pair of Taylor polynomials. */
GHMIX_INLINE void terms_pair(double s, node_terms *plus, node_terms *minus) {
  double s2 = s * s;
  /* Taylor series; at s = 1/2 the next terms are below 1e-18 */
  double cm1 =
      s2 * (0.5 +
            s2 * (1.0 / 24 +
                  s2 * (1.0 / 720 +
                        s2 * (1.0 / 40320 +
                              s2 * (1.0 / 3628800 + s2 * (1.0 / 479001600))))));
  double shms =
      s * s2 *
      (1.0 / 6 +
       s2 * (1.0 / 120 +
             s2 * (1.0 / 5040 +
                   s2 * (1.0 / 362880 +
                         s2 * (1.0 / 39916800 + s2 * (1.0 / 6227020800.0))))));
  plus->cm1 = minus->cm1 = cm1;
  plus->shms = shms;
  minus->shms = -shms;
  plus->em1s = cm1 + shms;
  minus->em1s = cm1 - shms;
  plus->em1 = plus->em1s + s;
  minus->em1 = minus->em1s - s;
}

/* The same for s >= TAYLOR_MAX from ep = e^s, em = e^-s. */
GHMIX_INLINE void terms_exp(double s, double ep, double em, node_terms *plus,
                            node_terms *minus) {
  plus->cm1 = minus->cm1 = 0.5 * (ep + em) - 1.0;
  plus->shms = 0.5 * (ep - em) - s;
  minus->shms = -plus->shms;
  plus->em1s = (ep - 1.0) - s;
  minus->em1s = (em - 1.0) + s;
  plus->em1 = ep - 1.0;
  minus->em1 = em - 1.0;
}

/* Angular frequency mu of the first alias that must be negligible: a blend
 * of the sharp-peak (Gaussian, mu ~ sqrt(2 * 39 * A)) and strip (small A)
 * limits, widened for the exponential left tail that appears when x << nu.
 * Calibrated against |K_{nu + i mu}(x)| / K_nu(x) = 1e-17 from mpmath. */
GHMIX_INLINE double alias_frequency(double a, double p) {
  double mu_peak = 8.9 * sqrt(a), r = 25.7 / mu_peak, r2 = r * r;
  return mu_peak * sqrt(sqrt(1.0 + r2 * r2)) * (1.0 + 0.25 * p);
}

typedef struct {
  double w, s, ss, em1, emm1, cm1, g, gg, sg, sem1;
  double odd_s, odd_sg; /* the pair sums of s and s g (small nu) */
} sums;

/* Adds the node at s; emm1 = e^-s - 1 (the em1 of the node at -s).  level 0:
 * the weights alone; 1: the first moments too (GRAD, RATIOS); 2: the second
 * ones too (HESS).  Returns the log of the node's largest weight in any sum
 * (e^s, e^-s and s widen the tails of the first moments by e^|s|, s^2 and
 * g^2 ~ e^{2|s|} those of the second). */
GHMIX_INLINE double add_node(sums *acc, double s, node_terms tm, double emm1,
                             double nu, double c, double nu_over_a, int level) {
  double psi = -nu * tm.em1s - c * tm.cm1;
  double w = exp(psi);
  acc->w += w;
  if (!level)
    return psi;
  acc->s += w * s;
  acc->sem1 += w * s * tm.em1;
  acc->em1 += w * tm.em1;
  acc->emm1 += w * emm1;
  acc->cm1 += w * tm.cm1;
  if (level < 2)
    return psi + fabs(s);
  /* g = (cosh t - cosh t0) * x / A, formed without cancellation */
  double sinh_s = tm.em1 - tm.cm1;
  double g = tm.cm1 + nu_over_a * sinh_s;
  acc->ss += w * s * s;
  acc->g += w * g;
  acc->gg += w * g * g;
  acc->sg += w * s * g;
  return psi + 2.0 * fabs(s);
}

/* Adds the odd parts of the pair +-s (s > 0, tm the node at +s) to the
 * pair sums: s (w(s) - w(-s)) and s (w(s) g(s) - w(-s) g(-s)), with
 * g(+-s) = (cosh s - 1) +- (nu / A) sinh s. */
GHMIX_INLINE void add_odd_pair(sums *acc, double s, node_terms tm, double nu,
                               double c, double nu_over_a, int level) {
  double ee = exp(-(nu + c) * tm.cm1), z = -nu * tm.shms;
  double e = expm1(z), sh = 0.5 * (e + e / (1.0 + e));
  double diff = 2.0 * ee * sh; /* w(s) - w(-s) */
  acc->odd_s += s * diff;
  if (level < 2)
    return;
  {
    double total = 2.0 * ee * (sh + 1.0 / (1.0 + e)); /* w(s) + w(-s) */
    double sinh_s = tm.em1 - tm.cm1;
    acc->odd_sg += s * (diff * tm.cm1 + nu_over_a * sinh_s * total);
  }
}

GHMIX_LOCAL void trapezoid_rule(double x, double nu, int what,
                                ghmix_bessel_result *res, double *dnu_up,
                                int pairs) {
  double a = hypot(nu, x);
  double c = x * (x / (a + nu)); /* A - nu */
  double p = nu / a;
  double h = TWO_PI / alias_frequency(a, p);
  int level = (what & GHMIX_BESSEL_HESS)                           ? 2
              : (what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_RATIOS)) ? 1
                                                                   : 0;
  sums acc = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  node_terms plus, minus;
  terms_pair(0.0, &plus, &minus);
  add_node(&acc, 0.0, plus, 0.0, nu, c, p, level);
  /* e^{+-s} for s >= TAYLOR_MAX: anchored with exp() every ANCHOR_EVERY
   * nodes, in between e^{s+h} = e^s + e^s (e^h - 1) */
  double ep = 0.0, em = 0.0, ep_m1 = expm1(h), em_m1 = expm1(-h);
  int since = ANCHOR_EVERY;
  int right = 1, left = 1;
  for (int k = 1; right || left; k++) {
    double s = k * h;
    if (s < TAYLOR_MAX) {
      terms_pair(s, &plus, &minus);
    } else {
      if (since == ANCHOR_EVERY) {
        ep = exp(s);
        em = 1.0 / ep;
        since = 0;
      } else {
        ep += ep * ep_m1;
        em += em * em_m1;
      }
      since++;
      terms_exp(s, ep, em, &plus, &minus);
    }
    if (pairs)
      add_odd_pair(&acc, s, plus, nu, c, p, level);
    if (right)
      right = add_node(&acc, s, plus, minus.em1, nu, c, p, level) > -CUTOFF;
    if (left)
      left = add_node(&acc, -s, minus, plus.em1, nu, c, p, level) > -CUTOFF;
  }
  double f = ghmix_bessel_peak_exponent(x, nu);
  res->logk = f + log(0.5 * h * acc.w);
  if (!level)
    return;
  double inv = 1.0 / acc.w;
  double mean_s = (pairs ? acc.odd_s : acc.s) * inv;
  double mean_e = 1.0 + acc.em1 * inv;   /* E e^s */
  double mean_em = 1.0 + acc.emm1 * inv; /* E e^-s */
  double mean_cosh = 1.0 + acc.cm1 * inv;
  if (what & GHMIX_BESSEL_GRAD) {
    double t0 = ghmix_bessel_peak_t0(x, nu);
    res->dnu = t0 + mean_s;
    /* order nu + 1: the weights times e^t = e^t0 e^s */
    if (dnu_up != NULL)
      *dnu_up = t0 + (acc.s + acc.sem1) / (acc.w + acc.em1);
    /* cosh(t0 + s) = (nu / x) e^s + (x / (A + nu)) cosh s */
    res->dx = -((nu / x) * mean_e + (x / (a + nu)) * mean_cosh);
  }
  if (what & GHMIX_BESSEL_HESS) {
    double mean_g = acc.g * inv;
    double var_s = acc.ss * inv - mean_s * mean_s;
    double var_g = acc.gg * inv - mean_g * mean_g;
    double cov_sg = (pairs ? acc.odd_sg : acc.sg) * inv - mean_s * mean_g;
    double scale = a / x; /* cosh t - cosh t0 = (A / x) g */
    res->dnu2 = var_s;
    res->dnudx = -scale * cov_sg;
    res->dx2 = scale * scale * var_g;
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_up = ((nu + a) / x) * mean_e;
    res->ratio_down = (x / (nu + a)) * mean_em;
  }
}

GHMIX_HD void ghmix_bessel_trapezoid(double x, double nu, int what,
                                     ghmix_bessel_result *res) {
  int odd = what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS);
  trapezoid_rule(x, nu, what, res, NULL, odd && nu < ODD_PAIRS_NU);
}

/* The raised order needs the derivatives of the base order mu in absolute
 * terms only (its own are O(1)): no pair sums. */
GHMIX_HD void ghmix_bessel_trapezoid_up(double x, double nu, int what,
                                        ghmix_bessel_result *res,
                                        double *dnu_up) {
  trapezoid_rule(x, nu, what, res, dnu_up, 0);
}
