/* log K_nu(x) by the trapezoid rule over the whole real line:
 *   K_nu(x) = 1/2 int exp(-x cosh t + nu t) dt,
 * with nodes t = t0 + k h on a grid anchored at the peak t0 = asinh(nu / x).
 * For this entire, fast-decaying integrand the rule converges exponentially;
 * its error is the alias 2 |K_{nu + 2 pi i / h}(x)| / K_nu(x) (Poisson
 * summation), which the step below keeps under 1e-17.  Relative to the
 * peak, the exponent is psi(s) = -nu (e^s - 1 - s) - c (cosh s - 1) with
 * c = sqrt(nu^2 + x^2) - nu, a sum of non-positive terms (no cancellation).
 */
#include "bessel_impl.h"

#include <math.h>

#define TWO_PI 6.283185307179586
/* Terms below exp(-CUTOFF) times the peak term are left out. */
#define CUTOFF 39.0

typedef struct {
  double cm1;  /* cosh s - 1 */
  double em1s; /* e^s - 1 - s */
  double em1;  /* e^s - 1 */
} node_terms;

/* cosh s - 1, e^s - 1 - s and e^s - 1 at +s and -s (s >= 0), without
 * cancellation near s = 0; the nodes come in such pairs around the peak,
 * which share one exp() or one pair of Taylor polynomials. */
GHMIX_INLINE void terms_pair(double s, node_terms *plus, node_terms *minus) {
  if (s < 0.5) {
    double s2 = s * s;
    /* Taylor series; at s = 1/2 the next terms are below 1e-18 */
    double cm1 =
        s2 * (0.5 +
              s2 * (1.0 / 24 +
                    s2 * (1.0 / 720 +
                          s2 * (1.0 / 40320 + s2 * (1.0 / 3628800 +
                                                    s2 * (1.0 / 479001600))))));
    double shms =
        s * s2 *
        (1.0 / 6 +
         s2 * (1.0 / 120 +
               s2 * (1.0 / 5040 +
                     s2 * (1.0 / 362880 + s2 * (1.0 / 39916800 +
                                                s2 * (1.0 / 6227020800.0))))));
    plus->cm1 = minus->cm1 = cm1;
    plus->em1s = cm1 + shms;
    minus->em1s = cm1 - shms;
    plus->em1 = plus->em1s + s;
    minus->em1 = minus->em1s - s;
  } else {
    double e = exp(s), inv = 1.0 / e;
    plus->cm1 = minus->cm1 = 0.5 * (e + inv) - 1.0;
    plus->em1s = (e - 1.0) - s;
    minus->em1s = (inv - 1.0) + s;
    plus->em1 = e - 1.0;
    minus->em1 = inv - 1.0;
  }
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
  double w, s, ss, em1, emm1, cm1, g, gg, sg;
} sums;

/* Adds the node at s; returns the log of its largest weight in any sum
 * (e^s, e^-s, s^2 and g^2 ~ e^{2|s|} widen the tails of the moments). */
GHMIX_INLINE double add_node(sums *acc, double s, node_terms tm, double nu,
                             double c, double nu_over_a, int full) {
  double psi = -nu * tm.em1s - c * tm.cm1;
  double w = exp(psi);
  acc->w += w;
  if (!full)
    return psi;
  /* g = (cosh t - cosh t0) * x / A, formed without cancellation */
  double sinh_s = tm.em1 - tm.cm1;
  double g = tm.cm1 + nu_over_a * sinh_s;
  acc->s += w * s;
  acc->ss += w * s * s;
  acc->em1 += w * tm.em1;
  /* e^{-s} - 1 = -(e^s - 1) e^{-s} */
  acc->emm1 += w * (-tm.em1 / (1.0 + tm.em1));
  acc->cm1 += w * tm.cm1;
  acc->g += w * g;
  acc->gg += w * g * g;
  acc->sg += w * s * g;
  return psi + 2.0 * fabs(s);
}

GHMIX_HD void ghmix_bessel_trapezoid(double x, double nu, int what,
                                     ghmix_bessel_result *res) {
  double a = hypot(nu, x);
  double c = x * (x / (a + nu)); /* A - nu */
  double p = nu / a;
  double h = TWO_PI / alias_frequency(a, p);
  int full = what != 0;
  sums acc = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  node_terms plus, minus;
  terms_pair(0.0, &plus, &minus);
  add_node(&acc, 0.0, plus, nu, c, p, full);
  int right = 1, left = 1;
  for (int k = 1; right || left; k++) {
    double s = k * h;
    terms_pair(s, &plus, &minus);
    if (right)
      right = add_node(&acc, s, plus, nu, c, p, full) > -CUTOFF;
    if (left)
      left = add_node(&acc, -s, minus, nu, c, p, full) > -CUTOFF;
  }
  double f = ghmix_bessel_peak_exponent(x, nu);
  res->logk = f + log(0.5 * h * acc.w);
  if (!full)
    return;
  double inv = 1.0 / acc.w;
  double mean_s = acc.s * inv;
  double mean_e = 1.0 + acc.em1 * inv;   /* E e^s */
  double mean_em = 1.0 + acc.emm1 * inv; /* E e^-s */
  double mean_cosh = 1.0 + acc.cm1 * inv;
  if (what & GHMIX_BESSEL_GRAD) {
    res->dnu = ghmix_bessel_peak_t0(x, nu) + mean_s;
    /* cosh(t0 + s) = (nu / x) e^s + (x / (A + nu)) cosh s */
    res->dx = -((nu / x) * mean_e + (x / (a + nu)) * mean_cosh);
  }
  if (what & GHMIX_BESSEL_HESS) {
    double mean_g = acc.g * inv;
    double var_s = acc.ss * inv - mean_s * mean_s;
    double var_g = acc.gg * inv - mean_g * mean_g;
    double cov_sg = acc.sg * inv - mean_s * mean_g;
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
