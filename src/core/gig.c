/* The GIG distribution: density, distribution and quantile functions by
 * double-exponential quadrature (de_quad.h) in the log variable.  See gig.h
 * for the parametrisation and the variable u = log(y / m).
 *
 * Normalisation.  log J comes from log K_p(sqrt(ab)) where its terms are
 * small (then exact to a few ulps), otherwise from the two half-line
 * integrals from the mode below, which stay exact where log K_p is in the
 * thousands.
 *
 * Quadrature.  Every integral needed here is an integral of exp(D(u)) over
 * a piece of the real line on which D is monotone: a half-line from a point
 * outward (away from the mode u = 0), or the finite interval between a point
 * and the mode.  Written relative to its start u0, D on a half-line is
 *   D(u0 + d) - D(u0) = d D'(u0) - A G(d) - B G(-d),
 *   A = alpha e^u0, B = beta e^-u0,
 * again a sum of non-positive terms when d has the sign of -D'(u0), so the
 * integrand is evaluated to full relative precision however far out u0 is.
 * Double-exponential rules (Takahasi and Mori 1974, "Double exponential
 * formulas for numerical integration", Publ. RIMS Kyoto Univ. 9:721-741;
 * the rule and its stopping test are de_quad.c's): half-lines by the
 * trapezoid rule in v after w = s exp(v - exp(-v)) (the transformation of
 * Ooura and Mori for integrands on [0, Inf) that decay exponentially), in
 * w = x or, when the decay comes from the wall exp(-A e^x), in w = e^x - 1;
 * finite intervals by the tanh-sinh rule.  They converge geometrically in
 * the number of nodes whatever the scale of the tails (the slow exponential
 * tails of the gamma and inverse-gamma limits with small shape included).
 *
 * Many points of one parameter set share the work through "anchors" (see
 * below): a tail is the tail from a nearby anchor plus a short
 * Gauss-Legendre integral.
 *
 * The random variates are in gig_sample.c. */
#include "gig.h"

#include <float.h>
#include <math.h>

#include "bessel.h"
#include "de_quad.h"
#include "logspace.h"

#define GIG_PI_2 1.5707963267948966
#define GIG_LN2 0.6931471805599453
#define GIG_LN2PI 1.8378770664093453 /* log(2 pi) */
/* W = sqrt(p^2 + ab) beyond which J and its halves take Laplace's form */
#define GIG_W_LAPLACE 0x1p1000
/* |u| beyond which a quantile gets a final Newton step on the double y */
#define GIG_REFINE_U 2.0

/* The walks of the half-line rule may reach w = sigma e^700: a flat law
 * (tiny sqrt(ab), |p| < 1) is log-uniform over hundreds of e-folds, so its
 * integrand in v stays of order 1 up to v ~ log(2 / Af); a walk ends once
 * its terms are negligible, which for every law that is not that flat is
 * long before v = 40. */
#define GIG_VMAX 700.0

/* ---------------------------------------------------------------------- */
/* Exponent pieces                                                          */

/* G(x) = e^x - 1 - x >= 0 without cancellation near x = 0. */
GHMIX_INLINE double gig_g_series(double x) {
  /* Taylor series sum_{k >= 2} x^k / k! up to k = 18; for |x| < 0.7 the
   * first term left out is below 4e-20 of the sum. */
  double s = 1.0 / 6402373705728000.0;
  s = 1.0 / 355687428096000.0 + x * s;
  s = 1.0 / 20922789888000.0 + x * s;
  s = 1.0 / 1307674368000.0 + x * s;
  s = 1.0 / 87178291200.0 + x * s;
  s = 1.0 / 6227020800.0 + x * s;
  s = 1.0 / 479001600.0 + x * s;
  s = 1.0 / 39916800.0 + x * s;
  s = 1.0 / 3628800.0 + x * s;
  s = 1.0 / 362880.0 + x * s;
  s = 1.0 / 40320.0 + x * s;
  s = 1.0 / 5040.0 + x * s;
  s = 1.0 / 720.0 + x * s;
  s = 1.0 / 120.0 + x * s;
  s = 1.0 / 24.0 + x * s;
  s = 1.0 / 6.0 + x * s;
  s = 0.5 + x * s;
  return x * x * s;
}

GHMIX_INLINE double gig_g(double x) {
  if (fabs(x) < 0.7)
    return gig_g_series(x);
  return expm1(x) - x;
}

/* c G(x) for a coefficient c >= 0 with log lc (lc = -Inf: the term is
 * absent).  Finite or +Inf, never NaN, for any real x. */
GHMIX_INLINE double gig_cg(double c, double lc, double x) {
  if (lc == -INFINITY)
    return 0.0;
  if (x <= 700.0 && c >= DBL_MIN)
    return c * gig_g(x);
  /* e^x dominates, or c underflowed: c G(x) = e^(lc + x) - c (1 + x) */
  return (x > -745.0 ? exp(lc + x) : 0.0) - c * (1.0 + x);
}

/* c (e^x - 1), same conventions. */
GHMIX_INLINE double gig_cem1(double c, double lc, double x) {
  if (lc == -INFINITY)
    return 0.0;
  if (x <= 700.0 && c >= DBL_MIN)
    return c * expm1(x);
  return (x > -745.0 ? exp(lc + x) : 0.0) - c;
}

/* c e^x, same conventions. */
GHMIX_INLINE double gig_cexp(double c, double lc, double x) {
  if (lc == -INFINITY)
    return 0.0;
  if (fabs(x) <= 700.0 && c >= DBL_MIN)
    return c * exp(x);
  return exp(lc + x);
}

/* D(u) = -alpha G(u) - beta G(-u) <= 0. */
GHMIX_INLINE double gig_d(const ghmix_gig *g, double u) {
  return -(gig_cg(g->alpha, g->la, u) + gig_cg(g->beta, g->lb, -u));
}

/* D'(u) = -alpha (e^u - 1) + beta (e^-u - 1). */
GHMIX_INLINE double gig_d1(const ghmix_gig *g, double u) {
  return -gig_cem1(g->alpha, g->la, u) + gig_cem1(g->beta, g->lb, -u);
}

/* Af G(x) + Ab G(-x) for x >= 0, sharing one expm1. */
GHMIX_INLINE double gig_pair(double af, double laf, double ab, double lab,
                             double x) {
  double r = 0.0;
  if (x < 0.7) {
    if (laf != -INFINITY)
      r += af >= DBL_MIN ? af * gig_g_series(x) : gig_cg(af, laf, x);
    if (lab != -INFINITY)
      r += ab >= DBL_MIN ? ab * gig_g_series(-x) : gig_cg(ab, lab, -x);
    return r;
  }
  if (x <= 700.0) {
    double e = expm1(x); /* G(x) = e - x, G(-x) = x - e / (1 + e) */
    if (laf != -INFINITY)
      r += af >= DBL_MIN ? af * (e - x) : gig_cg(af, laf, x);
    if (lab != -INFINITY)
      r += ab >= DBL_MIN ? ab * (x - e / (1.0 + e)) : gig_cg(ab, lab, -x);
    return r;
  }
  return gig_cg(af, laf, x) + gig_cg(ab, lab, -x);
}

/* ---------------------------------------------------------------------- */
/* Quadrature                                                               */

/* The integrand of a half-line from u0: exp(-s1 x - Af G(x) - Ab G(-x)),
 * x >= 0, with s1, Af, Ab >= 0. */
typedef struct {
  double s1, af, laf, ab, lab, sigma;
  int in_t; /* integrate in t = e^x - 1 instead of x */
} gig_tail;

/* The rule: the trapezoid rule in v after w = sigma exp(v - exp(-v)),
 * which clusters the nodes double-exponentially at w = 0 and spaces them
 * geometrically for large w, so that exponential and power-law decays
 * both become fast in v (Ooura and Mori's transformation for integrands
 * on [0, Inf)).  The variable w is x itself, or t = e^x - 1 (the variable
 * y / y0 - 1 of the original scale, or y0 / y - 1 for lower tails) when
 * the decay comes from the exponential wall exp(-Af e^x): in t the wall is
 * the plain exponential exp(-Af t), and the integrand
 * (1 + t)^-1 exp(-s1 x - Af G(x) - Ab G(-x)) a product of powers of
 * 1 + t, exp(-Af t) and exp(Ab t / (1 + t)), with no sharp feature. */
GHMIX_INLINE double gig_tail_term(const gig_tail *t, double v) {
  double e = exp(-v), wh = exp(v - e), w = t->sigma * wh, x, d, f;
  if (wh == 0.0 || isinf(w))
    return 0.0;
  if (!t->in_t) {
    d = -t->s1 * w - gig_pair(t->af, t->laf, t->ab, t->lab, w);
    f = exp(d);
    return f == 0.0 ? 0.0 : f * wh * (1.0 + e);
  }
  x = log1p(w);
  if (x < 0.7) {
    d = -t->s1 * x - gig_pair(t->af, t->laf, t->ab, t->lab, x);
  } else {
    /* G(x) = t - x and G(-x) = x - t / (1 + t) exactly */
    d = -t->s1 * x;
    if (t->laf != -INFINITY)
      d -= (t->af >= DBL_MIN ? t->af * (w - x) : gig_cg(t->af, t->laf, x));
    if (t->lab != -INFINITY)
      d -= (t->ab >= DBL_MIN ? t->ab * (x - w / (1.0 + w))
                             : gig_cg(t->ab, t->lab, -x));
  }
  f = exp(d);
  return f == 0.0 ? 0.0 : f * wh * (1.0 + e) / (1.0 + w);
}

/* One term of the tanh-sinh rule on [lo, hi] (without the step and the
 * length), the integrand exp(D(u)). */
GHMIX_INLINE double gig_finite_term(const ghmix_gig *g, double lo, double hi,
                                    double v) {
  double ev = exp(v), eiv = 1.0 / ev;
  double s = GIG_PI_2 * 0.5 * (ev - eiv), ch = 0.5 * (ev + eiv);
  double e = exp(-2.0 * fabs(s)), len = hi - lo;
  double dist = len * e / (1.0 + e); /* distance to the nearer end */
  double u = v > 0 ? hi - dist : lo + dist;
  double wgt = GIG_PI_2 * ch * 2.0 * e / ((1.0 + e) * (1.0 + e));
  double f = exp(gig_d(g, u));
  return f * wgt;
}

/* The integrand of a double-exponential sum (de_quad.h): a tail
 * (tail != NULL) or exp(D(u)) on [lo, hi]. */
typedef struct {
  const gig_tail *tail;
  const ghmix_gig *g;
  double lo, hi;
} gig_de;

static int gig_de_term(void *ctx, double v, ghmix_de_phase phase, double *t) {
  const gig_de *f = (const gig_de *)ctx;
  (void)phase;
  *t = f->tail ? gig_tail_term(f->tail, v)
               : gig_finite_term(f->g, f->lo, f->hi, v);
  return 1;
}

static double gig_de_sum(gig_de *f, double vright, double vleft) {
  ghmix_de_integrand in = {gig_de_term, NULL, NULL, NULL, 0.0, 0.0};
  in.ctx = f;
  in.vright = vright;
  in.vleft = vleft;
  return ghmix_de_integrate(&in);
}

/* log of the integral over x >= 0 of exp(-s1 x - Af G(x) - Ab G(-x)). */
GHMIX_INLINE double gig_tail_log(gig_tail *t) {
  gig_de f;
  double xl = INFINITY, xq = INFINITY, xw = INFINITY, sig;
  /* Length scales of the decay: where each of the three terms alone
   * lowers the exponent by about 1.  The true one is within a small factor
   * of the smallest, and the rule does not depend on it beyond that. */
  if (t->s1 > 0)
    xl = 1.0 / t->s1;
  if (t->af + t->ab > 0)
    xq = sqrt(2.0 / (t->af + t->ab));
  if (t->laf != -INFINITY)
    xw = t->laf < -700.0 ? GIG_LN2 - t->laf : log1p(2.0 / t->af);
  sig = xl < xq ? xl : xq;
  /* the wall is far out (a feature the geometric spacing of the nodes
   * would resolve only with a small step) yet the integrand there is not
   * negligible */
  t->in_t =
      t->laf != -INFINITY && t->s1 * xw + gig_cg(t->ab, t->lab, -xw) < 42.0;
  if (t->in_t) {
    double tw = t->laf < -700.0 ? INFINITY : 2.0 / t->af;
    sig = sig < 700.0 ? expm1(sig) : INFINITY;
    sig = tw < sig ? tw : sig;
    sig = sig < 3.0 ? sig : 3.0; /* calibrated: the tail nodes in t need
                                    not start beyond t ~ 3 */
    if (!(sig > 0) || isinf(sig))
      sig = 1.0;
  } else {
    sig = xw < sig ? xw : sig;
    if (!(sig > 0) || isinf(sig))
      sig = 1.0;
  }
  t->sigma = sig;

  f.tail = t;
  f.g = NULL;
  f.lo = f.hi = 0.0;
  return log(gig_de_sum(&f, GIG_VMAX, 4.5)) + log(sig);
}

/* log of the integral of exp(D(u) - D(u0)) over the half-line from u0 in
 * direction dir (+1: [u0, Inf), -1: (-Inf, u0]); u0 must be on the side of
 * the mode that dir points away from (dir * u0 >= 0). */
GHMIX_INLINE double gig_halfline_log(const ghmix_gig *g, double u0, int dir) {
  gig_tail t;
  double la = g->la + u0, lb = g->lb - u0;
  double a = gig_cexp(g->alpha, g->la, u0), b = gig_cexp(g->beta, g->lb, -u0);
  double s1 = -dir * gig_d1(g, u0);
  t.s1 = s1 > 0 ? s1 : 0.0;
  if (dir > 0) {
    t.af = a;
    t.laf = g->la == -INFINITY ? -INFINITY : la;
    t.ab = b;
    t.lab = g->lb == -INFINITY ? -INFINITY : lb;
  } else {
    t.af = b;
    t.laf = g->lb == -INFINITY ? -INFINITY : lb;
    t.ab = a;
    t.lab = g->la == -INFINITY ? -INFINITY : la;
  }
  return gig_tail_log(&t);
}

/* log of the integral of exp(D(u)) over [lo, hi], lo < hi. */
GHMIX_INLINE double gig_finite_log(const ghmix_gig *g, double lo, double hi) {
  gig_de f = {NULL, g, lo, hi};
  return log(gig_de_sum(&f, 4.0, 4.0)) + log(hi - lo);
}

/* ---------------------------------------------------------------------- */
/* Set-up                                                                   */

int ghmix_gig_init_density(double p, double a, double b, ghmix_gig *g) {
  double w, lab, wr;
  g->p = p;
  g->a = a;
  g->b = b;
  g->kind = GHMIX_GIG_KIND_INVALID;
  g->complete = 0;
  g->log_j = g->log_l0 = g->log_r0 = NAN;
  if (!(isfinite(p) && isfinite(a) && isfinite(b)) || a < 0 || b < 0)
    return 0;
  if ((a == 0 && p >= 0) || (b == 0 && p <= 0))
    return 0; /* includes a = b = 0 */
  g->kind = a == 0 ? GHMIX_GIG_KIND_INVGAMMA
                   : (b == 0 ? GHMIX_GIG_KIND_GAMMA : GHMIX_GIG_KIND_GENERAL);
  w = sqrt(a) * sqrt(b);
  lab = (a > 0 && b > 0) ? log(a) + log(b) : -INFINITY; /* log(ab) */
  wr = hypot(p, w);
  g->w2 = wr;
  /* halves before the sum: wr + |p| overflows for |p| near DBL_MAX */
  if (p >= 0) { /* a > 0 */
    g->alpha = 0.5 * wr + 0.5 * p;
    g->la = log(g->alpha);
    g->lb = lab - 2 * GIG_LN2 - g->la;
    g->beta = (w > 1e-140 && w < 1e140) ? (0.5 * w) * (0.5 * w) / g->alpha
                                        : exp(g->lb);
    g->m = 2.0 * g->alpha / a;
    g->lm = GIG_LN2 + g->la - log(a);
  } else { /* b > 0 */
    g->beta = 0.5 * wr - 0.5 * p;
    g->lb = log(g->beta);
    g->la = lab - 2 * GIG_LN2 - g->lb;
    g->alpha = (w > 1e-140 && w < 1e140) ? (0.5 * w) * (0.5 * w) / g->beta
                                         : exp(g->la);
    g->m = b / (2.0 * g->beta);
    g->lm = log(b) - GIG_LN2 - g->lb;
  }
  g->m_ok = isfinite(g->m) && g->m >= DBL_MIN;
  g->delta = 0.25 / sqrt(wr);
  g->log_l0 = g->log_r0 = NAN;
  if (wr > GIG_W_LAPLACE) {
    /* Laplace's method: D(u) = -W u^2 / 2 + O(W u^3), so J = sqrt(2 pi / W)
     * (1 + O(1/W)) and each half is J/2 (1 + O(1/sqrt(W))): exact to
     * rounding here, where alpha + beta = W would overflow in the
     * quadrature's set-up */
    g->log_j = 0.5 * (GIG_LN2PI - log(wr));
    g->log_l0 = g->log_r0 = g->log_j - GIG_LN2;
    g->complete = 1;
    return 1;
  }
  if (g->kind == GHMIX_GIG_KIND_GENERAL && w >= DBL_MIN) {
    /* J = 2 K_p(w) e^(W - p tau), tau = asinh(p / w) = log(2 alpha / w):
     * cheap, and accurate when its terms are small (their rounding errors
     * are relative to their own size). */
    double tau = p >= 0 ? GIG_LN2 + g->la - log(w) : log(w) - GIG_LN2 - g->lb;
    double lk = ghmix_bessel_logk(w, p);
    if (fabs(lk) + wr + fabs(p * tau) <= 15.0) {
      g->log_j = GIG_LN2 + lk + (wr - p * tau);
      return 1;
    }
  }
  ghmix_gig_complete(g);
  return 1;
}

int ghmix_gig_init(double p, double a, double b, ghmix_gig *g) {
  int valid = ghmix_gig_init_density(p, a, b, g);
  ghmix_gig_complete(g);
  return valid;
}

void ghmix_gig_complete(ghmix_gig *g) {
  if (g->kind == GHMIX_GIG_KIND_INVALID || g->complete)
    return;
  g->log_l0 = gig_halfline_log(g, 0.0, -1);
  g->log_r0 = gig_halfline_log(g, 0.0, 1);
  if (isnan(g->log_j)) /* else it stays log K's: whether and when g was
                          completed does not change a result */
    g->log_j = ghmix_log_add(g->log_l0, g->log_r0);
  g->complete = 1;
}

/* u = log(y / m) for 0 < y < Inf. */
GHMIX_INLINE double gig_u(const ghmix_gig *g, double y) {
  if (g->m_ok) {
    double r = y / g->m;
    if (isfinite(r) && r >= DBL_MIN)
      return log(r);
  }
  return log(y) - g->lm;
}

/* ---------------------------------------------------------------------- */
/* Density and distribution function                                        */

double ghmix_gig_logpdf(const ghmix_gig *g, double x) {
  if (isnan(x))
    return x;
  if (x <= 0 || isinf(x)) {
    if (x == 0 && g->kind == GHMIX_GIG_KIND_GAMMA) {
      if (g->p < 1)
        return INFINITY;
      if (g->p == 1)
        return log(0.5 * g->a);
    }
    return -INFINITY;
  }
  return gig_d(g, gig_u(g, x)) - g->log_j - log(x);
}

/* ---------------------------------------------------------------------- */
/* Tails through anchors                                                    */
/*
 * A tail from u is the tail from an anchor further out plus the integral
 * between them; a piece between u and the mode is the piece between an
 * anchor nearer the mode and the mode plus the integral between them.  The
 * anchors sit at u = +-k delta (delta = 1/(4 sqrt W), a quarter of the
 * width of the peak); the short integral is one 8-point Gauss-Legendre
 * rule, used only where the exponent changes by at most about 1 over the
 * interval (so its error is far below 1e-16); elsewhere the tail comes from
 * the double-exponential rule directly.  The sums have positive terms only.
 * An anchor's value depends on the parameters only, so results do not
 * depend on whether it was cached, on the other points or on the threads.
 */

/* The local rate of change of the exponent at u: |D'| + sqrt(|D''|). */
GHMIX_INLINE double gig_rate(const ghmix_gig *g, double u) {
  double a = gig_cexp(g->alpha, g->la, u), b = gig_cexp(g->beta, g->lb, -u);
  return fabs(gig_d1(g, u)) + sqrt(a + b);
}

/* log of the integral of exp(D(v) - D(u)) over v between u and u + dx
 * (dx of either sign), by the 8-point rule in the difference form
 * D(u + x) - D(u) = x D'(u) - A G(x) - B G(-x). */
GHMIX_INLINE double gig_short_log(const ghmix_gig *g, double u, double dx) {
  /* 8-point Gauss-Legendre rule on [0, 1] (a table at function scope: see
   * ghmix_hd.h) */
  static const double gl_x[8] = {0.019855071751231884, 0.10166676129318664,
                                 0.2372337950418355,   0.40828267875217511,
                                 0.59171732124782495,  0.7627662049581645,
                                 0.89833323870681336,  0.98014492824876809};
  static const double gl_w[8] = {0.050614268145188129, 0.11119051722668724,
                                 0.15685332293894363,  0.181341891689181,
                                 0.181341891689181,    0.15685332293894363,
                                 0.11119051722668724,  0.050614268145188129};
  double la = g->la + u, lb = g->lb - u, sum = 0.0;
  double a = gig_cexp(g->alpha, g->la, u), b = gig_cexp(g->beta, g->lb, -u);
  double d1 = gig_d1(g, u);
  int i;
  if (g->la == -INFINITY)
    la = -INFINITY;
  if (g->lb == -INFINITY)
    lb = -INFINITY;
  for (i = 0; i < 8; i++) {
    double x = dx * gl_x[i];
    sum += gl_w[i] * exp(x * d1 - gig_cg(a, la, x) - gig_cg(b, lb, -x));
  }
  return log(sum) + log(fabs(dx));
}

/* Whether anchor k has a slot in the cache c. */
GHMIX_INLINE int gig_cached(const ghmix_gig_anchors *c, int k) {
  return c != NULL && k >= 1 && k <= GHMIX_GIG_ANCHORS;
}

/* log of the integral of exp(D) between u and the mode (side = sign of u),
 * directly. */
GHMIX_INLINE double gig_inner_direct(const ghmix_gig *g, double u, int side) {
  return side < 0 ? gig_finite_log(g, u, 0.0) : gig_finite_log(g, 0.0, u);
}

/* At the anchor u = side * k * delta: log of the tail outward (outer) or of
 * the integral to the mode (!outer), from the cache c when it has it. */
GHMIX_INLINE double gig_anchor(const ghmix_gig *g, ghmix_gig_anchors *c,
                               int side, int k, int outer) {
  double u = side * k * g->delta, v, *slot = NULL;
  int si = side > 0;
  if (!outer && k == 0)
    return -INFINITY;
  if (gig_cached(c, k))
    slot = outer ? &c->tail[si][k - 1] : &c->inner[si][k - 1];
  if (slot != NULL && !isnan(*slot))
    return *slot;
  if (outer) {
    v = gig_d(g, u);
    if (v != -INFINITY)
      v += gig_halfline_log(g, u, side);
  } else {
    v = gig_inner_direct(g, u, side);
  }
  if (slot != NULL)
    *slot = v;
  return v;
}

/* Whether the 8-point rule is exact enough between u and w. */
GHMIX_INLINE int gig_short_ok(const ghmix_gig *g, double u, double w) {
  double len = fabs(w - u);
  return len * gig_rate(g, u) <= 1.0 && len * gig_rate(g, w) <= 1.0;
}

/* log of the tail from u outward (outer; D(u) > -Inf) or of the integral
 * between u and the mode (!outer), side = sign of u: through the nearest
 * anchor beyond u (outer) or between u and the mode when the short rule
 * reaches it, else directly. */
GHMIX_INLINE double gig_piece_at(const ghmix_gig *g, ghmix_gig_anchors *c,
                                 double u, int side, int outer) {
  double r = side * u, k = outer ? ceil(r / g->delta) : floor(r / g->delta);
  if (k >= (outer ? 1 : 0) && k <= GHMIX_GIG_ANCHORS) {
    double w = side * k * g->delta;
    if (gig_short_ok(g, u, w)) {
      double la = gig_anchor(g, c, side, (int)k, outer);
      if (w == u)
        return la;
      return ghmix_log_add(gig_d(g, u) + gig_short_log(g, u, w - u), la);
    }
  }
  if (outer)
    return gig_d(g, u) + gig_halfline_log(g, u, side);
  return gig_inner_direct(g, u, side);
}

void ghmix_gig_anchors_reset(ghmix_gig_anchors *c) {
  int i;
  for (i = 0; i < GHMIX_GIG_ANCHORS; i++)
    c->tail[0][i] = c->tail[1][i] = c->inner[0][i] = c->inner[1][i] = NAN;
}

int ghmix_gig_logcdf(const ghmix_gig *g, double q, double *log_lower,
                     double *log_upper) {
  return ghmix_gig_logcdf_cached(g, NULL, q, log_lower, log_upper);
}

/* The two tails at the mode, or 0 (NaN) without the halves. */
GHMIX_INLINE int gig_at_mode(const ghmix_gig *g, double *log_lower,
                             double *log_upper) {
  *log_lower = g->complete ? g->log_l0 - g->log_j : NAN;
  *log_upper = g->complete ? g->log_r0 - g->log_j : NAN;
  return g->complete;
}

int ghmix_gig_logcdf_cached(const ghmix_gig *g, ghmix_gig_anchors *c, double q,
                            double *log_lower, double *log_upper) {
  double u, lt, *ltail, *lother, half;
  int side;
  if (isnan(q)) {
    *log_lower = *log_upper = q;
    return 1;
  }
  if (q <= 0 || isinf(q)) {
    *log_lower = q <= 0 ? -INFINITY : 0.0;
    *log_upper = q <= 0 ? 0.0 : -INFINITY;
    return 1;
  }
  u = gig_u(g, q);
  if (u == 0)
    return gig_at_mode(g, log_lower, log_upper);
  side = u < 0 ? -1 : 1;
  ltail = side < 0 ? log_lower : log_upper;
  lother = side < 0 ? log_upper : log_lower;
  if (gig_d(g, u) == -INFINITY) {
    *ltail = -INFINITY;
    *lother = 0.0;
    return 1;
  }
  lt = gig_piece_at(g, c, u, side, 1); /* the tail away from the mode */
  *ltail = lt - g->log_j;
  if (*ltail <= -GIG_LN2) {
    *lother = log1p(-exp(*ltail)); /* >= 1/2: no cancellation */
  } else if (!g->complete) {
    *ltail = *lother = NAN;
    return 0;
  } else {
    /* between the median and the mode: the other tail directly, as the
     * piece between q and the mode plus the other half */
    half = side < 0 ? g->log_r0 : g->log_l0;
    *lother = ghmix_log_add(gig_piece_at(g, c, u, side, 0), half) - g->log_j;
  }
  if (*log_lower > 0)
    *log_lower = 0;
  if (*log_upper > 0)
    *log_upper = 0;
  return 1;
}

/* ---------------------------------------------------------------------- */
/* Quantile function                                                        */

/* Safeguarded Newton for a decreasing function of r >= 0: the root stays
 * bracketed in [lo, hi]; a step that leaves the bracket is replaced by
 * bisection (geometric while the bracket spans orders of magnitude), or by
 * doubling while no upper bound is known; and when two Newton steps in a
 * row have not halved the bracket (Newton crawls, as on a double-
 * exponential wall), the next step bisects. */
typedef struct {
  double lo, hi, width; /* width: the bracket two steps ago */
  int newton;           /* Newton steps since the last check */
} gig_bracket;

GHMIX_INLINE void gig_bracket_init(gig_bracket *br) {
  br->lo = 0.0;
  br->hi = INFINITY;
  br->width = INFINITY;
  br->newton = 0;
}

GHMIX_INLINE double gig_step(gig_bracket *br, double r, double f, double dfdr) {
  double rn;
  int bisect;
  if (f > 0)
    br->lo = r;
  else
    br->hi = r;
  rn = r - f / dfdr;
  if (isinf(br->hi)) {
    /* no upper bound yet: Newton moves right; at most quadruple */
    if (!(isfinite(rn) && rn > r))
      rn = 2 * r + 1;
    return rn < 4 * r + 1 ? rn : 4 * r + 1;
  }
  bisect = !(isfinite(rn) && rn > br->lo && rn < br->hi);
  if (!bisect && ++br->newton == 2) {
    bisect = br->hi - br->lo > 0.5 * br->width;
    br->newton = 0;
    br->width = br->hi - br->lo;
  }
  if (bisect) {
    rn = (br->lo > 0 && br->hi > 4 * br->lo) ? sqrt(br->lo * br->hi)
                                             : 0.5 * (br->lo + br->hi);
    br->newton = 0;
    br->width = br->hi - br->lo;
  }
  return rn;
}

/* A first r for a tail whose log-probability is `gap` below that of its
 * half: the Gaussian guess; far out, where the exponential wall c G(+-r)
 * (c = alpha for the upper tail, beta for the lower) alone takes the gap
 * (v = gap / c > 1), the root of G(r) = v, r = log1p(v + r) (two steps of
 * that iteration from below), if smaller; without a wall (the gamma's lower
 * and the inverse gamma's upper tail, where W = |p|) D is linear far out,
 * |p| G(-+r) <= |p| r, so r is at least gap / |p|.  So the far tails (gap
 * up to DBL_MAX) start within a few steps of the root. */
GHMIX_INLINE double gig_tail_start(const ghmix_gig *g, double gap, int side) {
  double q = 2.0 * gap / g->w2, wall = side > 0 ? g->alpha : g->beta;
  double r = isfinite(q) ? sqrt(q) : sqrt(gap) * sqrt(2.0 / g->w2), v, rw;
  if (wall > 0) {
    v = gap / wall;
    if (isinf(v)) { /* gap near DBL_MAX: log1p(v + log1p(v)) in logs */
      double lv = log(gap) - log(wall);
      rw = lv + log1p(lv * exp(-lv));
      r = rw < r ? rw : r;
    } else if (v > 1) {
      rw = log1p(v + log1p(v));
      r = rw < r ? rw : r;
    }
    return r;
  }
  rw = gap / fabs(g->p);
  return rw > r ? rw : r;
}

/* Solves log(tail(u) / J) = target on one side of the mode (side = -1:
 * lower tail, u <= 0; side = +1: upper tail, u >= 0), where the target is
 * at most the log-probability of that half; works in the outward distance
 * r = side * u >= 0, in which the log tail is decreasing and concave (the
 * tail of a log-concave density is log-concave), so that Newton's method
 * converges monotonically from beyond the root. */
GHMIX_INLINE double gig_solve_tail(const ghmix_gig *g, ghmix_gig_anchors *c,
                                   double target, int side) {
  double gap = (side < 0 ? g->log_l0 : g->log_r0) - g->log_j - target, r;
  gig_bracket br;
  int it;
  if (!(gap > 0))
    return 0.0; /* the mode itself (or rounding beyond it) */

  r = gig_tail_start(g, gap, side);
  if (gap > 3) {
    /* far out: Newton on the approximation
     * log tail ~ D(u) - log(|D'(u)| + sqrt(|D''(u)|)), right in the far
     * tails up to a factor 1 + o(1), for a cheap first guess */
    gig_bracket_init(&br);
    for (it = 0; it < 60; it++) {
      double u = side * r, d = gig_d(g, u), d1 = fabs(gig_d1(g, u));
      double a = gig_cexp(g->alpha, g->la, u), b = gig_cexp(g->beta, g->lb, -u);
      double c = d - log(d1 + sqrt(a + b)) - g->log_j - target, rn;
      if (isnan(c))
        break;
      rn = gig_step(&br, r, c, -(d1 > 0 ? d1 : DBL_MIN));
      if (fabs(rn - r) <= 1e-3 * (1 + r) || br.hi - br.lo <= 1e-3 * (1 + r)) {
        r = rn;
        break;
      }
      r = rn;
    }
  }

  /* Newton with the exact tail: d/dr log tail = -exp(D) / tail = -1 / I */
  gig_bracket_init(&br);
  for (it = 0; it < 200; it++) {
    double u = side * r, d = gig_d(g, u), li = 0.0, f, rn, newton;
    if (d == -INFINITY) {
      f = -INFINITY;
    } else {
      li = gig_piece_at(g, c, u, side, 1) - d; /* log of tail / exp(D(u)) */
      f = d + li - g->log_j - target;
    }
    if (f == 0)
      break;
    newton = isfinite(f) ? r + f * exp(li) : NAN;
    if (fabs(newton - r) <= 2 * DBL_EPSILON * (r > 1 ? r : 1)) {
      /* converged to rounding (gig_step would take such a step for one
       * leaving the bracket, and bisect) */
      r = newton;
      break;
    }
    rn = gig_step(&br, r, f, isfinite(f) ? -exp(-li) : -1.0);
    if (rn == newton && fabs(rn - r) <= 1e-12 * (r > 1 ? r : 1)) {
      r = rn; /* Newton converges quadratically: this step ends it */
      break;
    }
    r = rn;
    if (isfinite(br.hi) &&
        br.hi - br.lo <= 4 * DBL_EPSILON * (br.hi > 1 ? br.hi : 1))
      break;
  }
  return side * r;
}

/* Double-double pieces of the final correction of a quantile. */
#define GIG_LN2_HI 6.93147180369123816490e-01 /* 21 trailing zero bits */
#define GIG_LN2_LO 1.90821492927058770002e-10

/* (hi, lo) = a + b exactly (Knuth's two-sum) */
GHMIX_INLINE void gig_two_sum(double a, double b, double *hi, double *lo) {
  double s = a + b, bb = s - a;
  *hi = s;
  *lo = (a - (s - bb)) + (b - bb);
}

/* log x as hi + lo to about 1e-16 absolute for 0 < x < Inf (the rounded
 * log errs by up to ulp(log x) / 2, 5.7e-14 at x = 1e-300): with x = f 2^e,
 * f in [1/2, 1), log x = log f + e log 2, e log 2 split so that e LN2_HI
 * is exact. */
GHMIX_INLINE void gig_log_dd(double x, double *hi, double *lo) {
  int e;
  double f = frexp(x, &e);
  gig_two_sum(e * GIG_LN2_HI, e * GIG_LN2_LO + log(f), hi, lo);
}

/* u = log(y / m) as hi + lo. */
GHMIX_INLINE void gig_u_dd(const ghmix_gig *g, double y, double *hi,
                           double *lo) {
  double r = g->m_ok ? y / g->m : NAN;
  if (isfinite(r) && r >= DBL_MIN) {
    /* y / m = r + e / m exactly, log(y / m) = log r + e / y */
    double e = fma(-r, g->m, y);
    gig_log_dd(r, hi, lo);
    *lo += e / y;
    return;
  }
  gig_log_dd(y, hi, lo);
  gig_two_sum(*hi, *lo - g->lm, hi, lo);
}

/* One Newton step on the double y for log P(tail beyond y) = t_hi + t_lo,
 * side as in gig_solve_tail, with the residual evaluated at y itself: so
 * that neither the rounding of u = log(y / m) (ulp(|u|) / 2, 2.8e-14 at
 * |u| = 460) nor that of the large terms of the log tail enters.  With
 * D(u) = p u - alpha (e^u - 1) - beta (e^-u - 1), the log tail is
 *   p u + [-alpha (e^u - 1) - beta (e^-u - 1)] + li(u) - log J,
 * li = log of the tail relative to e^D(u): the linear term p u (which
 * alone carries a power-law tail) in double-double, the others, whose
 * rounding is relative to the slope they give the tail, in double. */
GHMIX_INLINE double gig_refine(const ghmix_gig *g, double y, double t_hi,
                               double t_lo, int side) {
  double uh, ul, rest, li, f, du;
  if (!(y > 0 && y < INFINITY))
    return y;
  gig_u_dd(g, y, &uh, &ul);
  if (side * uh <= 0 || gig_d(g, uh) == -INFINITY)
    return y;
  li = gig_halfline_log(g, uh, side);
  rest = -gig_cem1(g->alpha, g->la, uh) - gig_cem1(g->beta, g->lb, -uh) +
         gig_d1(g, uh) * ul;
  /* p uh - t_hi rounded once by fma: no rounded product left for a
   * compiler to fuse into an addition while its error is counted apart */
  f = fma(g->p, uh, -t_hi) + (((g->p * ul + rest) - t_lo) + (li - g->log_j));
  du = side * f * exp(li); /* -f / (d log tail / du) */
  if (!(fabs(du) <= 1e-8))
    return y; /* not the small step of a converged solve: keep y */
  return y + y * expm1(du);
}

/* The quantile for the log-probability lp_hi + lp_lo (lp_lo: the rounding
 * of log(prob), or 0). */
GHMIX_INLINE double gig_quantile(const ghmix_gig *g, ghmix_gig_anchors *c,
                                 double lp, double lp_lo, int lower) {
  double llo, lup, u, y;
  int side;
  if (!g->complete)
    return NAN;
  if (isnan(lp))
    return lp;
  if (lp == -INFINITY)
    return lower ? 0.0 : INFINITY;
  if (lp >= 0)
    return lower ? INFINITY : 0.0;
  /* the log-probabilities of both tails at the answer */
  llo = lower ? lp : ghmix_log1m_exp(lp);
  lup = lower ? ghmix_log1m_exp(lp) : lp;
  side = llo <= g->log_l0 - g->log_j ? -1 : 1;
  u = gig_solve_tail(g, c, side < 0 ? llo : lup, side);
  y = exp(u);
  if (g->m_ok && y >= DBL_MIN && y <= DBL_MAX)
    y *= g->m;
  else
    y = exp(g->lm + u);
  if (fabs(u) > GIG_REFINE_U) {
    int own = (side < 0) == (lower != 0); /* the target is lp itself */
    y = gig_refine(g, y, side < 0 ? llo : lup, own ? lp_lo : 0.0, side);
  }
  return y;
}

double ghmix_gig_quantile(const ghmix_gig *g, double logprob, int lower) {
  return gig_quantile(g, NULL, logprob, 0.0, lower);
}

double ghmix_gig_quantile_cached(const ghmix_gig *g, ghmix_gig_anchors *c,
                                 double logprob, int lower) {
  return gig_quantile(g, c, logprob, 0.0, lower);
}

/* ---------------------------------------------------------------------- */
/* Base-R semantics                                                         */

double ghmix_gig_density_g(const ghmix_gig *g, double x, int give_log) {
  double v;
  if (isnan(x) || isnan(g->p) || isnan(g->a) || isnan(g->b))
    return x + g->p + g->a + g->b;
  if (g->kind == GHMIX_GIG_KIND_INVALID)
    return NAN;
  v = ghmix_gig_logpdf(g, x);
  return give_log ? v : exp(v);
}

int ghmix_gig_cdf_g(const ghmix_gig *g, ghmix_gig_anchors *c, double q,
                    int lower_tail, int log_p, double *value) {
  double lo, up, v;
  int done;
  if (isnan(q) || isnan(g->p) || isnan(g->a) || isnan(g->b)) {
    *value = q + g->p + g->a + g->b;
    return 1;
  }
  if (g->kind == GHMIX_GIG_KIND_INVALID) {
    *value = NAN;
    return 1;
  }
  done = ghmix_gig_logcdf_cached(g, c, q, &lo, &up);
  v = lower_tail ? lo : up;
  *value = log_p ? v : exp(v);
  return done;
}

double ghmix_gig_qf_g(const ghmix_gig *g, ghmix_gig_anchors *c, double prob,
                      int lower_tail, int log_p) {
  double lp, lp_hi, lp_lo;
  if (isnan(prob) || isnan(g->p) || isnan(g->a) || isnan(g->b))
    return prob + g->p + g->a + g->b;
  if (g->kind == GHMIX_GIG_KIND_INVALID)
    return NAN;
  if (!ghmix_prob_ok(prob, log_p))
    return NAN;
  if (log_p)
    return gig_quantile(g, c, prob, 0.0, lower_tail);
  if (prob == 0)
    return gig_quantile(g, c, -INFINITY, 0.0, lower_tail);
  /* the target of the solve stays the rounded log, its rounding error
   * comes in for the final step */
  gig_log_dd(prob, &lp_hi, &lp_lo);
  lp = log(prob);
  return gig_quantile(g, c, lp, (lp_hi - lp) + lp_lo, lower_tail);
}

double ghmix_gig_density(double x, double p, double a, double b, int give_log) {
  ghmix_gig g; /* with NaN parameters too: density_g sees them */
  ghmix_gig_init_density(p, a, b, &g);
  return ghmix_gig_density_g(&g, x, give_log);
}

double ghmix_gig_cdf(double q, double p, double a, double b, int lower_tail,
                     int log_p) {
  ghmix_gig g;
  double v;
  ghmix_gig_init_density(p, a, b, &g);
  if (!ghmix_gig_cdf_g(&g, NULL, q, lower_tail, log_p, &v)) {
    ghmix_gig_complete(&g);
    ghmix_gig_cdf_g(&g, NULL, q, lower_tail, log_p, &v);
  }
  return v;
}

double ghmix_gig_qf(double prob, double p, double a, double b, int lower_tail,
                    int log_p) {
  ghmix_gig g;
  ghmix_gig_init(p, a, b, &g);
  return ghmix_gig_qf_g(&g, NULL, prob, lower_tail, log_p);
}
