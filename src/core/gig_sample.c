/* GIG random variates: Hoermann and Leydold (2014) (see gig_sample.h):
 * ratio-of-uniforms with a shift by the mode (Dagpunar 1989, Lehner 1989)
 * for larger shapes or concentrations, ratio-of-uniforms without shift in
 * between, and their rejection method for the non-T-concave region (small
 * sqrt(ab) and |p| < 1).  Written from the descriptions in the paper. */
#include "gig_sample.h"

#include <math.h>

#include "batch.h"

#define GIG_PI 3.141592653589793

enum {
  GIG_RNG_INVALID = 0,
  GIG_RNG_ROU_SHIFT = 1,   /* ratio-of-uniforms, shifted by the mode */
  GIG_RNG_ROU_NOSHIFT = 2, /* ratio-of-uniforms without shift */
  GIG_RNG_CONCAVE = 3      /* H&L's hat for the non-T-concave region */
};

/* log of z^(lambda-1) exp(-(psi (z-1) + chi (1/z-1))/2): the density of Z
 * relative to its value at the mode z = 1. */
static double rou_logdens(const ghmix_gig_sampler *s, double z) {
  return (s->lambda - 1) * log(z) -
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

int ghmix_gig_sampler_init(double p, double a, double b, ghmix_gig_sampler *s) {
  double lambda, psi0, chi0, omega, mode;
  int k;
  s->method = GIG_RNG_INVALID;
  s->reflect = 0;
  s->boost = 0;
  s->scale = s->lambda = s->psi = s->chi = NAN;
  for (k = 0; k < 8; k++)
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

  if (chi0 == 0 && lambda <= 1) {
    /* gamma with shape <= 1: Gamma(lambda) = Gamma(lambda + 1) U^(1/lambda)
     * (Stuart 1962) */
    s->boost = 1 / lambda;
    lambda += 1;
  }
  if (lambda > 2 || omega > 3 || chi0 == 0 ||
      (lambda >= 1 - 2.25 * omega * omega || omega > 0.2)) {
    /* the ratio-of-uniforms methods, in the variable z = x / mode */
    if (lambda >= 1)
      mode = ((lambda - 1) + hypot(lambda - 1, omega)) / psi0;
    else
      mode = chi0 / ((1 - lambda) + hypot(1 - lambda, omega));
    s->scale = mode;
    s->lambda = lambda;
    s->psi = psi0 * mode;
    s->chi = chi0 / mode;
    if (lambda > 2 || omega > 3 || chi0 == 0) {
      double zm, zp, um, up;
      rou_shift_roots(lambda, s->psi, s->chi, &zm, &zp);
      um = (zm - 1) * exp(0.5 * rou_logdens(s, zm));
      up = (zp - 1) * exp(0.5 * rou_logdens(s, zp));
      s->method = GIG_RNG_ROU_SHIFT;
      s->c[0] = um;
      s->c[1] = up - um;
    } else {
      double zu = ((lambda + 1) + hypot(lambda + 1, omega)) / s->psi;
      s->method = GIG_RNG_ROU_NOSHIFT;
      s->c[0] = zu * exp(0.5 * rou_logdens(s, zu));
    }
  } else {
    /* 0 <= lambda < 1, omega small: H&L's rejection from a hat that is
     * constant on (0, x0], k2 x^(lambda-1) on [x0, x*], k3 e^(-omega x/2)
     * beyond, for the standardised density
     * x^(lambda-1) exp(-omega (x + 1/x)/2) */
    double x0, xs, m, lk1, lk2, lk3, la1, la2, la3, lmax, len;
    s->scale = sqrt(chi0) / sqrt(psi0);
    s->lambda = lambda;
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
  return 1;
}

static double draw_concave(const ghmix_gig_sampler *s, ghmix_unif_fn unif) {
  double lambda = s->lambda, omega = s->psi;
  double x0 = s->c[0], xs = s->c[1], a1 = s->c[2], a12 = s->c[3];
  double atot = s->c[4];
  for (;;) {
    double v = ghmix_unif_open(unif) * atot, x, lh, u, lg;
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
}

double ghmix_gig_sampler_draw(const ghmix_gig_sampler *s, ghmix_unif_fn unif) {
  double z, x;
  switch (s->method) {
  case GIG_RNG_ROU_SHIFT:
    for (;;) {
      double u = s->c[0] + s->c[1] * ghmix_unif_open(unif);
      double v = ghmix_unif_open(unif);
      z = u / v + 1;
      if (z > 0 && 2 * log(v) <= rou_logdens(s, z))
        break;
    }
    break;
  case GIG_RNG_ROU_NOSHIFT:
    for (;;) {
      double u = s->c[0] * ghmix_unif_open(unif);
      double v = ghmix_unif_open(unif);
      z = u / v;
      if (2 * log(v) <= rou_logdens(s, z))
        break;
    }
    break;
  case GIG_RNG_CONCAVE:
    z = draw_concave(s, unif);
    break;
  default:
    return NAN;
  }
  if (s->boost > 0) {
    /* gamma with shape lambda - 1 <= 1 */
    x = exp(log(s->scale * z) + log(ghmix_unif_open(unif)) * s->boost);
  } else {
    x = s->scale * z;
  }
  return s->reflect ? 1 / x : x;
}

ghmix_status ghmix_gig_sample(size_t n, const double *p, size_t np,
                              const double *a, size_t na, const double *b,
                              size_t nb, ghmix_unif_fn unif, double *out,
                              ghmix_error *err) {
  ghmix_gig_sampler s;
  double cp = NAN, ca = NAN, cb = NAN;
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
    out[i] = ghmix_gig_sampler_draw(&s, unif);
    if ((i + 1) % GHMIX_GIG_CHUNK == 0 && i + 1 < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, i + 1, n);
  }
  return GHMIX_OK;
}
