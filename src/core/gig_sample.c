/* GIG random variates: Hoermann and Leydold (2014) (see gig_sample.h):
 * ratio-of-uniforms with a shift by the mode (Dagpunar 1989, Lehner 1989)
 * for larger shapes or concentrations, ratio-of-uniforms without shift in
 * between, and their rejection method for the non-T-concave region (small
 * sqrt(ab) and |p| < 1).  Written from the descriptions in the paper.
 *
 * H&L state the methods for the two-parameter form: with lambda = |p| (1/Y
 * ~ GIG(-p, b, a)) and omega = sqrt(ab), Z = X / mode has a density
 * z^(lambda-1) exp(-(psi (z-1) + chi (1/z-1))/2) with psi - chi =
 * 2 (lambda - 1) and psi chi = omega^2, which depends on (lambda, omega)
 * only, and X = mode * Z.  Where the plain computation of the constants
 * stays in the doubles (every ordinary parameter set) it is used as it
 * was; beyond, the same methods in the variable of the mode with the scale
 * applied last, in logs:
 * - a subnormal or huge a or b: the mode leaves the doubles; the constants
 *   come from (lambda, omega) and X = exp(log mode + log Z);
 * - psi > 1e8 (a concentrated law) or psi < 2^-10: the shifted method in
 *   d = z - 1 with a log density free of cancellation and bounds from
 *   the roots of its cubic found by safeguarded Newton steps (the
 *   trigonometric roots lose their digits there);
 * - omega < 1e-150: the non-T-concave hat in logs;
 * - the gamma limit (b = 0) with shape below 1: Gamma(1 + shape) U^(1/shape)
 *   (Stuart 1962) with the shape kept exact, Gamma(1 + shape) as Exp(1)
 *   for shape < 2^-53; and b > 0 negligible (lambda >= 1, omega < 1e-12:
 *   the factor e^(-b/(2y)) changes the law by less than omega^2 log(1/omega)
 *   < 2^-60): the gamma limit;
 * - sqrt(lambda^2 + omega^2) > 2^106 (relative sd below 2^-53): the
 *   mode, in logs. */
#include "gig_sample.h"

#include <float.h>
#include <math.h>

#include "batch.h"

#define GIG_PI 3.141592653589793
#define GIG_LN2 0.6931471805599453

enum {
  GIG_RNG_INVALID = 0,
  GIG_RNG_ROU_SHIFT = 1,   /* ratio-of-uniforms, shifted by the mode */
  GIG_RNG_ROU_NOSHIFT = 2, /* ratio-of-uniforms without shift */
  GIG_RNG_CONCAVE = 3,     /* H&L's hat for the non-T-concave region */
  GIG_RNG_SHIFT_D = 4,     /* the shifted method in d = z - 1 */
  GIG_RNG_CONCAVE_LOG = 5, /* the non-T-concave hat in logs */
  GIG_RNG_EXP = 6,         /* Gamma(1 + shape), shape < 2^-53: Exp(1) */
  GIG_RNG_MODE = 7         /* narrower than rounding: the mode */
};

/* The plain shifted method for psi in [GIG_PSI_LO, GIG_PSI_HI]. */
#define GIG_PSI_LO 0x1p-10
#define GIG_PSI_HI 1e8
/* the plain non-T-concave hat for omega >= GIG_OMEGA_LOG */
#define GIG_OMEGA_LOG 1e-150
/* b negligible for lambda >= 1 (the ratio-of-uniforms region) */
#define GIG_OMEGA_GAMMA 1e-12
/* sqrt(lambda^2 + omega^2) beyond which the mode is drawn */
#define GIG_W_MODE 0x1p106
/* the bounds of the shifted method in d, widened against rounding */
#define GIG_BOUND_WIDEN (1.0 + 1e-12)

/* log of z^(lambda-1) exp(-(psi (z-1) + chi (1/z-1))/2): the density of Z
 * relative to its value at the mode z = 1. */
static double rou_logdens(const ghmix_gig_sampler *s, double z) {
  return s->lm1 * log(z) -
         0.5 * (s->psi * (z - 1.0) + s->chi * (1.0 / z - 1.0));
}

/* The two positive roots z- < 1 < z+ of the cubic whose roots are the
 * extrema of (z - 1) sqrt(density): with mode 1 (psi - chi = 2 (lambda-1)),
 *   z^3 + a2 z^2 + a1 z + a0 = 0,
 *   a2 = -(2 lambda + 2)/psi - 1, a1 = 1 - 2 chi/psi, a0 = chi/psi
 * (Dagpunar 1989; H&L 2014, sec. 2), solved by the trigonometric formula
 * for three real roots and polished by Newton's method. */
static void rou_shift_roots(double lambda, double psi, double chi, double *zm,
                            double *zp) {
  double a2 = -(2 * lambda + 2) / psi - 1, a1 = 1 - 2 * chi / psi,
         a0 = chi / psi;
  double pp = a1 - a2 * a2 / 3;
  double qq = 2 * a2 * a2 * a2 / 27 - a2 * a1 / 3 + a0;
  double r = sqrt(-pp / 3), c = -qq / (2 * r * r * r), th, z[2];
  int i, k;
  c = c > 1 ? 1 : (c < -1 ? -1 : c);
  th = acos(c);
  z[0] = 2 * r * cos(th / 3 - 2 * GIG_PI / 3) - a2 / 3; /* middle root */
  z[1] = 2 * r * cos(th / 3) - a2 / 3;                  /* largest root */
  for (i = 0; i < 2; i++) {
    for (k = 0; k < 3; k++) {
      double f = ((z[i] + a2) * z[i] + a1) * z[i] + a0;
      double df = (3 * z[i] + 2 * a2) * z[i] + a1;
      if (df != 0)
        z[i] -= f / df;
    }
  }
  *zm = z[0];
  *zp = z[1];
}

/* ---------------------------------------------------------------------- */
/* The shifted method in d = z - 1                                         */

/* R(s) = 2 (s^3/3 + s^5/5 + ...), s = d / (2 + d), |d| <= 1/2 (|s| <= 1/3):
 * log(1 + d) = 2 s + R (2 atanh s). */
static double log1p_rest(double d) {
  double s = d / (2.0 + d), s2 = s * s, t = s * s2, sum = 0.0;
  int k;
  for (k = 3; k < 80; k += 2) {
    double term = t / k;
    sum += term;
    if (fabs(term) <= 1e-17 * fabs(sum))
      break;
    t *= s2;
  }
  return 2.0 * sum;
}

/* log of the density of Z at z = 1 + d relative to the mode, as a sum of
 * non-positive terms: with L = lambda - 1 and psi - chi = 2 L,
 *   L >= 0:  -L (d - log z) - chi d^2 / (2 z),
 *   L < 0:    L (log z - d / z) - psi d^2 / (2 z),
 * and d - log z = d^2 / (2 + d) - R, log z - d / z = d^2 / ((2 + d) z) + R
 * near z = 1 (no cancellation of d and log z). */
static double shift_logdens(const ghmix_gig_sampler *s, double d) {
  double z = 1.0 + d, q = 0.5 * d * (d / z), g;
  if (fabs(d) <= 0.5) {
    double r = log1p_rest(d), dd = d * d / (2.0 + d);
    g = s->lm1 >= 0 ? dd - r : dd / z + r;
  } else {
    double lz = log1p(d);
    g = s->lm1 >= 0 ? d - lz : lz - d / z;
  }
  return s->lm1 >= 0 ? -s->lm1 * g - s->chi * q : s->lm1 * g - s->psi * q;
}

/* c0 + c1 x + c2 x^2 + c3 x^3 and its derivative */
static double cubic(const double *c, double x, double *df) {
  *df = c[1] + x * (2.0 * c[2] + 3.0 * x * c[3]);
  return c[0] + x * (c[1] + x * (c[2] + x * c[3]));
}

/* The root of the cubic c in [lo, hi], where it is below 0 on its left
 * (rising) or above (falling), by Newton's method from x, bisecting when
 * a step leaves the bracket; to a relative 1e-14 (the bounds need it only
 * roughly: they are the extrema of a smooth function). */
static double cubic_root(const double *c, double lo, double hi, double x,
                         int rising) {
  int it;
  for (it = 0; it < 200; it++) {
    double df, f = cubic(c, x, &df), xn;
    if (f == 0)
      return x;
    if ((f < 0) == (rising != 0))
      lo = x;
    else
      hi = x;
    xn = x - f / df;
    if (!(xn > lo && xn < hi))
      xn = 0.5 * (lo + hi);
    if (fabs(xn - x) <= 1e-14 * fabs(xn) || hi - lo <= 1e-14 * fabs(xn))
      return xn;
    x = xn;
  }
  return x;
}

/* The extrema d- in (-1, 0) and d+ > 0 of d sqrt(h(1 + d)), z- = 1 + d- to
 * full relative accuracy: the roots of
 *   q(d) = 4 + 8 d + (2 L + 4 - 2 psi) d^2 - psi d^3
 * (the derivative of 2 log|d| + log h times 2 z^2 d, with psi - chi = 2 L),
 * the lower one, when below z = 1/2, as a root in z of
 *   C(z) = -chi + (2 chi - psi) z + (psi + 2 L + 4) z^2 - psi z^3.
 * For chi = 0 (the gamma) q = (1 + d) (4 + 4 d - 2 L d^2), in closed form. */
static void shift_d_roots(double lm1, double psi, double chi, double *dm,
                          double *zm, double *dp) {
  double q[4], c[4], sq, x0, hi, df;
  if (chi == 0) {
    sq = sqrt(2.0 * lm1 + 1.0);
    *dp = (1.0 + sq) / lm1;
    *dm = -2.0 / (1.0 + sq);
    *zm = lm1 / ((lm1 + 1.0) + sq);
    return;
  }
  q[0] = 4.0, q[1] = 8.0, q[2] = 2.0 * lm1 + 4.0 - 2.0 * psi, q[3] = -psi;
  x0 = sqrt(4.0 / (psi + chi)); /* the Gaussian's sqrt(2) sd */
  /* q < 0 beyond each of these: psi d^3 / 3 exceeds a term of q there */
  hi = fmax(3.0 * fabs(q[2]) / psi, fmax(sqrt(24.0 / psi), cbrt(12.0 / psi)));
  *dp = cubic_root(q, 0.0, hi, fmin(x0, 0.5 * hi), 0);
  if (cubic(q, -0.5, &df) < 0) {
    *dm = cubic_root(q, -0.5, 0.0, fmax(-x0, -0.25), 1);
    *zm = 1.0 + *dm;
  } else {
    c[0] = -chi, c[1] = 2.0 * chi - psi, c[2] = psi + 2.0 * lm1 + 4.0,
    c[3] = -psi;
    *zm = cubic_root(c, 0.0, 0.5, fmin(psi / c[2], 0.25), 1);
    *dm = *zm - 1.0;
  }
}

/* Sets up the shifted method in d for the standardised psi, chi (lm1 =
 * lambda - 1 exactly); the scale is s->lscale. */
static int init_shift_d(ghmix_gig_sampler *s) {
  double dm, zm, dp, um, up;
  shift_d_roots(s->lm1, s->psi, s->chi, &dm, &zm, &dp);
  (void)zm;
  um = dm * exp(0.5 * shift_logdens(s, dm)) * GIG_BOUND_WIDEN;
  up = dp * exp(0.5 * shift_logdens(s, dp)) * GIG_BOUND_WIDEN;
  if (!(isfinite(um) && isfinite(up) && um < 0 && up > 0))
    return 0;
  s->method = GIG_RNG_SHIFT_D;
  s->log_scale = 1;
  s->c[0] = um;
  s->c[1] = up - um;
  return 1;
}

/* ---------------------------------------------------------------------- */
/* Set-up                                                                  */

/* The standardised psi and chi from (lambda, omega) and log mode =
 * log(psi / psi0) = log(chi0 / chi) (lomega = log omega). */
static void standard_form(ghmix_gig_sampler *s, double lambda, double omega,
                          double lomega, double psi0, double chi0) {
  if (lambda >= 1) {
    s->psi = (lambda - 1) + hypot(lambda - 1, omega);
    s->chi = chi0 > 0 ? exp(2.0 * lomega - log(s->psi)) : 0.0;
    s->lscale = log(s->psi) - log(psi0);
  } else {
    s->chi = (1 - lambda) + hypot(1 - lambda, omega);
    s->psi = exp(2.0 * lomega - log(s->chi));
    s->lscale = log(chi0) - log(s->chi);
  }
}

/* The plain constants (as H&L compute them): the mode in the original
 * scale.  Returns 0 when they leave the doubles. */
static int plain_form(ghmix_gig_sampler *s, double lambda, double omega,
                      double psi0, double chi0) {
  double mode;
  if (lambda >= 1)
    mode = ((lambda - 1) + hypot(lambda - 1, omega)) / psi0;
  else
    mode = chi0 / ((1 - lambda) + hypot(1 - lambda, omega));
  s->scale = mode;
  s->psi = psi0 * mode;
  s->chi = chi0 / mode;
  return isfinite(mode) && mode >= DBL_MIN && isfinite(s->psi) &&
         isfinite(s->chi);
}

/* The ratio-of-uniforms methods: shifted (lambda > 2, omega > 3 or the
 * gamma limit), else without shift. */
static int init_rou(ghmix_gig_sampler *s, double lambda, double omega,
                    double lomega, double psi0, double chi0, int shift) {
  s->lambda = lambda;
  if (plain_form(s, lambda, omega, psi0, chi0)) {
    s->lscale = log(s->scale);
  } else {
    standard_form(s, lambda, omega, lomega, psi0, chi0);
    s->log_scale = 1;
  }
  if (shift) {
    double zm, zp, um, up;
    if (!(s->psi >= GIG_PSI_LO && s->psi <= GIG_PSI_HI))
      return init_shift_d(s);
    rou_shift_roots(lambda, s->psi, s->chi, &zm, &zp);
    um = (zm - 1) * exp(0.5 * rou_logdens(s, zm));
    up = (zp - 1) * exp(0.5 * rou_logdens(s, zp));
    if (!(isfinite(um) && isfinite(up) && um < 0 && up > 0))
      return init_shift_d(s);
    s->method = GIG_RNG_ROU_SHIFT;
    s->c[0] = um;
    s->c[1] = up - um;
  } else {
    double zu = ((lambda + 1) + hypot(lambda + 1, omega)) / s->psi;
    s->method = GIG_RNG_ROU_NOSHIFT;
    s->c[0] = zu * exp(0.5 * rou_logdens(s, zu));
  }
  return isfinite(s->c[0]) && isfinite(s->c[1]);
}

/* The gamma limit, shape lambda, rate psi0 / 2: the shifted method on
 * Gamma(lambda), or for lambda <= 1 on Gamma(lambda + 1) times U^(1/lambda)
 * (Stuart 1962), with lambda - 1 kept exact. */
static int init_gamma(ghmix_gig_sampler *s, double lambda, double psi0) {
  if (lambda <= 1) {
    s->boost = 1 / lambda;
    s->lm1 = lambda;
    if (lambda < 0x1p-53) {
      /* Gamma(1 + lambda) is Exp(1) to rounding: x = (2 / psi0) E */
      s->method = GIG_RNG_EXP;
      s->lambda = 1.0;
      s->log_scale = 1;
      s->lscale = GIG_LN2 - log(psi0);
      return 1;
    }
    lambda += 1;
  } else {
    s->lm1 = lambda - 1;
  }
  return init_rou(s, lambda, 0.0, -INFINITY, psi0, 0.0, 1);
}

/* The non-T-concave region, 0 <= lambda < 1, small omega: H&L's rejection
 * from a hat that is constant on (0, x0], k2 x^(lambda-1) on [x0, x*],
 * k3 e^(-omega x/2) beyond, for the standardised density
 * x^(lambda-1) exp(-omega (x + 1/x)/2). */
static void init_concave(ghmix_gig_sampler *s, double lambda, double omega) {
  double x0, xs, m, lk1, lk2, lk3, la1, la2, la3, lmax, len;
  s->psi = s->chi = omega;
  m = omega / ((1 - lambda) + hypot(1 - lambda, omega));
  x0 = omega / (1 - lambda);
  xs = 2 / omega > x0 ? 2 / omega : x0;
  lk1 = (lambda - 1) * log(m) - 0.5 * omega * (m + 1 / m);
  lk2 = -omega;
  lk3 = (lambda - 1) * log(xs);
  len = log(xs / x0);
  la1 = lk1 + log(x0);
  la2 = xs > x0 ? lk2 + lambda * log(x0) +
                      log(lambda > 0 ? expm1(lambda * len) / lambda : len)
                : -INFINITY;
  la3 = lk3 + log(2 / omega) - 0.5 * omega * xs;
  lmax = la1 > la2 ? la1 : la2;
  lmax = lmax > la3 ? lmax : la3;
  s->method = GIG_RNG_CONCAVE;
  s->c[0] = x0;
  s->c[1] = xs;
  s->c[2] = exp(la1 - lmax);           /* A1 */
  s->c[3] = s->c[2] + exp(la2 - lmax); /* A1 + A2 */
  s->c[4] = s->c[3] + exp(la3 - lmax); /* A1 + A2 + A3 */
  s->c[5] = lk1;                       /* log k1 */
  s->c[6] = lambda > 0 ? expm1(lambda * len) : len;
  s->c[7] = len;
}

/* The same hat in logs, for any omega > 0 (lomega = log omega): x0, x*
 * and the areas as logs, len = log(x* / x0) up to ~1490. */
static void init_concave_log(ghmix_gig_sampler *s, double lambda,
                             double lomega) {
  double omega = exp(lomega), ch = (1 - lambda) + hypot(1 - lambda, omega);
  double lm = lomega - log(ch), lx0 = lomega - log1p(-lambda);
  double lxs = fmax(lx0, GIG_LN2 - lomega), len = lxs - lx0, e = lambda * len;
  /* log k1 = (lambda - 1) log m - omega (m + 1/m) / 2, omega / m = ch */
  double lk1 = (lambda - 1) * lm - 0.5 * (exp(lomega + lm) + ch);
  double lk3 = (lambda - 1) * lxs, la1, la2, la3, lmax;
  la1 = lk1 + lx0;
  if (!(len > 0))
    la2 = -INFINITY;
  else if (lambda == 0)
    la2 = -omega + log(len);
  else if (e <= 700)
    la2 = -omega + lambda * lx0 + log(expm1(e) / lambda);
  else /* (e^e - 1) / lambda = e^e (1 - e^-e) / lambda */
    la2 = -omega + lambda * lx0 + e + log(-expm1(-e)) - log(lambda);
  la3 = lk3 + GIG_LN2 - lomega - 0.5 * exp(lomega + lxs);
  lmax = fmax(la1, fmax(la2, la3));
  s->method = GIG_RNG_CONCAVE_LOG;
  s->log_scale = 1;
  s->psi = s->chi = omega;
  s->c[0] = lx0;
  s->c[1] = lxs;
  s->c[2] = exp(la1 - lmax);
  s->c[3] = s->c[2] + exp(la2 - lmax);
  s->c[4] = s->c[3] + exp(la3 - lmax);
  s->c[5] = lk1;
  s->c[6] = e <= 700 ? expm1(e) : INFINITY;
  s->c[7] = len;
  s->c[8] = lomega;
}

/* sqrt(lambda^2 + omega^2) > 2^106: the mode of X, in logs (lambda - 1 +
 * hypot(lambda - 1, omega) in halves: it may exceed DBL_MAX). */
static int init_mode(ghmix_gig_sampler *s, double lambda, double omega,
                     double psi0, double chi0) {
  double h;
  if (!(hypot(lambda, omega) > GIG_W_MODE))
    return 0;
  s->method = GIG_RNG_MODE;
  s->log_scale = 1;
  if (lambda >= 1) {
    h = 0.5 * (lambda - 1) + hypot(0.5 * (lambda - 1), 0.5 * omega);
    s->lscale = log(h) + GIG_LN2 - log(psi0);
  } else {
    h = 0.5 * (1 - lambda) + hypot(0.5 * (1 - lambda), 0.5 * omega);
    s->lscale = log(chi0) - log(h) - GIG_LN2;
  }
  return 1;
}

int ghmix_gig_sampler_init(double p, double a, double b, ghmix_gig_sampler *s) {
  double lambda, psi0, chi0, omega, lomega;
  int k, ok;
  s->method = GIG_RNG_INVALID;
  s->reflect = 0;
  s->log_scale = 0;
  s->boost = 0;
  s->scale = s->lscale = s->lambda = s->lm1 = s->psi = s->chi = NAN;
  for (k = 0; k < 10; k++)
    s->c[k] = 0;
  if (!(isfinite(p) && isfinite(a) && isfinite(b)) || a < 0 || b < 0)
    return 0;
  if ((a == 0 && p >= 0) || (b == 0 && p <= 0))
    return 0;
  /* 1/Y ~ GIG(-p, b, a): work with lambda = |p| >= 0, psi0 > 0 */
  if (p < 0) {
    s->reflect = 1;
    lambda = -p;
    psi0 = b;
    chi0 = a;
  } else {
    lambda = p;
    psi0 = a;
    chi0 = b;
  }
  omega = sqrt(psi0) * sqrt(chi0);
  lomega = chi0 > 0 ? 0.5 * (log(psi0) + log(chi0)) : -INFINITY;
  s->lambda = lambda;
  if (init_mode(s, lambda, omega, psi0, chi0))
    return 1;
  if (chi0 == 0 || (lambda >= 1 && lambda <= 2 && omega < GIG_OMEGA_GAMMA))
    ok = init_gamma(s, lambda, psi0);
  else if (lambda > 2 || omega > 3 || lambda >= 1 - 2.25 * omega * omega ||
           omega > 0.2) {
    s->lm1 = lambda - 1;
    ok =
        init_rou(s, lambda, omega, lomega, psi0, chi0, lambda > 2 || omega > 3);
  } else {
    s->lambda = lambda;
    s->scale = sqrt(chi0) / sqrt(psi0);
    s->lscale = 0.5 * (log(chi0) - log(psi0));
    if (omega >= GIG_OMEGA_LOG && isfinite(s->scale) && s->scale >= DBL_MIN)
      init_concave(s, lambda, omega);
    else
      init_concave_log(s, lambda, lomega);
    ok = 1;
  }
  if (!ok)
    s->method = GIG_RNG_INVALID;
  return 1;
}

/* ---------------------------------------------------------------------- */
/* Draws                                                                   */

/* Each returns Z (plain methods) or log Z (the others), NaN after
 * GHMIX_GIG_MAX_TRIALS trials; *trials counts them. */

static double draw_concave(const ghmix_gig_sampler *s, ghmix_unif_fn unif,
                           uint64_t *trials) {
  double lambda = s->lambda, omega = s->psi;
  double x0 = s->c[0], xs = s->c[1], a1 = s->c[2], a12 = s->c[3];
  double atot = s->c[4];
  int k;
  for (k = 0; k < GHMIX_GIG_MAX_TRIALS; k++) {
    double v = ghmix_unif_open(unif) * atot, x, lh, u, lg;
    ++*trials;
    if (v <= a1) {
      x = x0 * v / a1;
      lh = s->c[5];
    } else if (v <= a12) {
      double t = (v - a1) / (a12 - a1);
      x = lambda > 0 ? x0 * exp(log1p(t * s->c[6]) / lambda)
                     : x0 * exp(t * s->c[7]);
      lh = -omega + (lambda - 1) * log(x);
    } else {
      double t = (v - a12) / (atot - a12);
      if (!(t > 0))
        continue;
      x = xs - 2 / omega * log(t);
      lh = (lambda - 1) * log(xs) - 0.5 * omega * x;
    }
    if (!(x > 0))
      continue;
    u = ghmix_unif_open(unif);
    lg = (lambda - 1) * log(x) - 0.5 * omega * (x + 1 / x);
    if (log(u) + lh <= lg)
      return x;
  }
  return NAN;
}

/* log x of draw_concave, all in logs (omega = e^lomega). */
static double draw_concave_log(const ghmix_gig_sampler *s, ghmix_unif_fn unif,
                               uint64_t *trials) {
  double lambda = s->lambda, lomega = s->c[8], lx0 = s->c[0], lxs = s->c[1];
  double a1 = s->c[2], a12 = s->c[3], atot = s->c[4], len = s->c[7];
  int k;
  for (k = 0; k < GHMIX_GIG_MAX_TRIALS; k++) {
    double v = ghmix_unif_open(unif) * atot, lx, lh, lg;
    ++*trials;
    if (v <= a1) {
      lx = lx0 + log(v / a1);
      lh = s->c[5];
    } else if (v <= a12) {
      /* x^lambda = x0^lambda + t (x*^lambda - x0^lambda) */
      double t = (v - a1) / (a12 - a1);
      if (lambda == 0)
        lx = lx0 + t * len;
      else if (isfinite(s->c[6]))
        lx = lx0 + log1p(t * s->c[6]) / lambda;
      else
        lx = lxs + log(t + (1 - t) * exp(-lambda * len)) / lambda;
      lh = -s->psi + (lambda - 1) * lx;
    } else {
      /* x = x* - (2 / omega) log t */
      double t = (v - a12) / (atot - a12);
      if (!(t > 0))
        continue;
      lx = lxs + log1p(-exp(GIG_LN2 - lomega - lxs) * log(t));
      lh = (lambda - 1) * lxs - 0.5 * exp(lomega + lx);
    }
    lg = (lambda - 1) * lx - 0.5 * (exp(lomega + lx) + exp(lomega - lx));
    if (log(ghmix_unif_open(unif)) + lh <= lg)
      return lx;
  }
  return NAN;
}

static double draw_rou_shift(const ghmix_gig_sampler *s, ghmix_unif_fn unif,
                             uint64_t *trials) {
  int k;
  for (k = 0; k < GHMIX_GIG_MAX_TRIALS; k++) {
    double u = s->c[0] + s->c[1] * ghmix_unif_open(unif);
    double v = ghmix_unif_open(unif);
    double z = u / v + 1;
    ++*trials;
    if (z > 0 && 2 * log(v) <= rou_logdens(s, z))
      return z;
  }
  return NAN;
}

static double draw_rou_noshift(const ghmix_gig_sampler *s, ghmix_unif_fn unif,
                               uint64_t *trials) {
  int k;
  for (k = 0; k < GHMIX_GIG_MAX_TRIALS; k++) {
    double u = s->c[0] * ghmix_unif_open(unif);
    double v = ghmix_unif_open(unif);
    double z = u / v;
    ++*trials;
    if (2 * log(v) <= rou_logdens(s, z))
      return z;
  }
  return NAN;
}

/* log z of the shifted method in d. */
static double draw_shift_d(const ghmix_gig_sampler *s, ghmix_unif_fn unif,
                           uint64_t *trials) {
  int k;
  for (k = 0; k < GHMIX_GIG_MAX_TRIALS; k++) {
    double u = s->c[0] + s->c[1] * ghmix_unif_open(unif);
    double v = ghmix_unif_open(unif);
    double d = u / v;
    ++*trials;
    if (d > -1 && 2 * log(v) <= shift_logdens(s, d))
      return log1p(d);
  }
  return NAN;
}

double ghmix_gig_sampler_draw_counted(const ghmix_gig_sampler *s,
                                      ghmix_unif_fn unif, uint64_t *trials) {
  double z, x, lx;
  /* the plain methods first: an if-chain is cheaper than the switch's
   * dispatch at the rate of ordinary draws */
  if (s->method == GIG_RNG_ROU_SHIFT)
    z = draw_rou_shift(s, unif, trials);
  else if (s->method == GIG_RNG_ROU_NOSHIFT)
    z = draw_rou_noshift(s, unif, trials);
  else if (s->method == GIG_RNG_CONCAVE)
    z = draw_concave(s, unif, trials);
  else if (s->method == GIG_RNG_SHIFT_D)
    z = draw_shift_d(s, unif, trials);
  else if (s->method == GIG_RNG_CONCAVE_LOG)
    z = draw_concave_log(s, unif, trials);
  else if (s->method == GIG_RNG_EXP) {
    ++*trials;
    z = log(ghmix_exp_rand(unif));
  } else if (s->method == GIG_RNG_MODE)
    z = 0.0;
  else
    return NAN;
  if (isnan(z))
    return z;
  if (!s->log_scale) {
    if (s->boost > 0) {
      /* gamma with shape lambda - 1 <= 1 */
      x = exp(log(s->scale * z) + log(ghmix_unif_open(unif)) * s->boost);
    } else {
      x = s->scale * z;
    }
    return s->reflect ? 1 / x : x;
  }
  /* the log methods return log z; the plain ones with a log scale z */
  lx = s->lscale +
       (s->method == GIG_RNG_ROU_SHIFT || s->method == GIG_RNG_ROU_NOSHIFT
            ? log(z)
            : z);
  if (s->boost > 0)
    lx += log(ghmix_unif_open(unif)) * s->boost;
  return exp(s->reflect ? -lx : lx);
}

double ghmix_gig_sampler_draw(const ghmix_gig_sampler *s, ghmix_unif_fn unif) {
  uint64_t trials = 0;
  return ghmix_gig_sampler_draw_counted(s, unif, &trials);
}

ghmix_status ghmix_gig_sample(size_t n, const double *p, size_t np,
                              const double *a, size_t na, const double *b,
                              size_t nb, ghmix_unif_fn unif, double *out,
                              ghmix_error *err) {
  ghmix_gig_sampler s;
  double cp = NAN, ca = NAN, cb = NAN;
  uint64_t trials = 0, polled = 0;
  int have = 0;
  size_t i;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (np == 0 || na == 0 || nb == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "p, a and b must not be empty when n > 0");
  for (i = 0; i < n; i++) {
    double pi = p[ghmix_recycle((ptrdiff_t)i, np, n)],
           ai = a[ghmix_recycle((ptrdiff_t)i, na, n)],
           bi = b[ghmix_recycle((ptrdiff_t)i, nb, n)];
    if (!have || pi != cp || ai != ca || bi != cb) {
      ghmix_gig_sampler_init(pi, ai, bi, &s);
      cp = pi;
      ca = ai;
      cb = bi;
      have = 1;
    }
    out[i] = ghmix_gig_sampler_draw_counted(&s, unif, &trials);
    if (i + 1 < n && ((i + 1) % GHMIX_GIG_CHUNK == 0 ||
                      trials - polled >= GHMIX_GIG_POLL_TRIALS)) {
      polled = trials;
      if (ghmix_check_interrupt())
        return ghmix_interrupted(err, i + 1, n);
    }
  }
  return GHMIX_OK;
}
