/* The univariate GH distribution: density, distribution and quantile
 * functions of Z = Y g + sqrt(Y) N (see gh_dist.h for the plan).
 *
 * Quadrature.  Every integral is of f over a piece on which f is monotone,
 * taken from the end where f is larger (the "start" z0) toward the other:
 *   - a half-line z0 + dir w, w >= 0, by the trapezoid rule in v after
 *     w = s exp(v - exp(-v)) (Ooura and Mori's double-exponential map for
 *     [0, Inf): double-exponential clustering at w = 0, geometric spacing
 *     for large w, so exponential and power-law tails both decay fast in
 *     v, and a singularity w^(beta - 1) at the start is resolved);
 *   - a finite interval by the tanh-sinh rule (Takahasi and Mori 1974,
 *     "Double exponential formulas for numerical integration", Publ. RIMS
 *     Kyoto Univ. 9:721-741).
 * Terms are exp(log f(z) - l0 + log Jacobian) with l0 the log density near
 * the start, so nothing overflows or underflows however small the tail.
 * The rule itself (walks, step halving, stopping test) is de_quad.c's, the
 * one the GIG tails use too.
 *
 * Where a walk leaves the doubles before its terms are negligible, the
 * rule continues on a model of the integrand fitted at its last two nodes:
 *   - far end of a half-line beyond |z| = GH_ZCAP (a power tail
 *     f ~ C |z|^(-1-s), whose next corrections are O(1/z) <= 1e-150): the
 *     terms are then exactly geometric in v, and their infinite sum is
 *     summed in closed form;
 *   - the start at distance below GH_DMIN from z0 = 0 (the variance
 *     gamma's integrable singularity f ~ C |z|^(2p-1)): the terms follow
 *     exp(beta log dist) times the Jacobian, summed node by node.
 * The log density is exact there to the same relative precision as
 * elsewhere (see gh1_lpdf), which the models need. */
#include "gh_dist.h"

#include <float.h>
#include <math.h>

#include "bessel.h"
#include "de_quad.h"
#include "gig_solve.h"
#include "logspace.h"

#define GH_LN2 0.69314718055994530942
#define GH_PI 3.14159265358979323846
#define GH_HALF_LOG_HALF_PI 0.22579135264472743 /* log(pi / 2) / 2 */

/* Quadrature: the models beyond the walks of de_quad.c. */
#define GH_NEGLIGIBLE 1e-20 /* a modelled term that ends the model's sum */
#define GH_ZCAP 1e150       /* |z| beyond which a power tail is modelled */
#define GH_DMIN 1e-290      /* distances from z0 = 0 below this are modelled */
#define GH_VMAX 2000.0      /* bound of the half-line walks in v */
#define GH_FIN_VMAX 6.25    /* bound of the tanh-sinh walks */
#define GH_MODEL_MAX 200000
#define GH_TCAP 1e100 /* tails from beyond this continue on the power law */
#define GH_PURE 1e30  /* a power tail is pure (to 1e-30) this far out */

/* ---------------------------------------------------------------------- */
/* Log density                                                              */

/* log K_nu(w) + w by Hankel's expansion (DLMF 10.40.2):
 *   K_nu(w) = sqrt(pi / (2w)) e^-w sum_k a_k(nu) w^-k,
 *   a_k = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k).
 * For real nu the remainder after k >= |nu| - 1/2 terms is bounded by the
 * first neglected term (DLMF 10.40(ii)).  NaN when the terms do not fall
 * below 1e-17 of the sum (then the caller uses the general formula). */
GHMIX_LOCAL double hankel_scaled(double w, double nu) {
  double mu4 = 4.0 * nu * nu, t = 1.0, s = 1.0;
  int k;
  for (k = 1; k <= 250; k++) {
    double odd = 2.0 * k - 1.0;
    t *= (mu4 - odd * odd) / (8.0 * k * w);
    s += t;
    if (k >= fabs(nu) - 0.5 && fabs(t) < 1e-17 * fabs(s))
      return GH_HALF_LOG_HALF_PI - 0.5 * log(w) + log(s);
  }
  return NAN;
}

/* B - w = (B^2 - w^2) / (B + w), B^2 - w^2 = -(a (b + Q) + g^2 b) exactly
 * for d = 1 (sb = sqrt(b + Q)): no cancellation; divided before it is
 * multiplied where the numerator overflows. */
GHMIX_INLINE double gh1_b_less_w(const ghmix_gh1 *h, double bq, double sb,
                                 double B, double w) {
  double num = h->a * bq + h->g * h->g * h->b, t = 1.0 / (B + w);
  if (isfinite(num))
    return -num / (B + w);
  return -(h->a * sb * (sb * t) + h->g * (h->g * (h->b * t)));
}

/* log f(z) in the frame g >= 0.  z^2 overflows beyond |z| ~ 1e154: the
 * row then takes |z| itself (ghmix_mix_row_r). */
GHMIX_LOCAL double gh1_lpdf(const ghmix_gh1 *h, double z) {
  ghmix_mix_row_result r;
  double Q, B;
  if (!isfinite(z))
    return isnan(z) ? z : -INFINITY;
  Q = z * z;
  B = h->g * z;
  if (B > 0 && h->c.a_post > 0 && h->c.form == GHMIX_MIX_FORM_PLAIN) {
    double bq = h->b + Q;
    double sb = isfinite(Q) ? sqrt(bq) : hypot(sqrt(h->b), z);
    double w = h->c.sqrt_a * sb;
    if (w >= h->w_hankel && isfinite(w)) {
      double hs = hankel_scaled(w, h->c.q);
      if (!isnan(hs)) {
        double ls = isfinite(Q) ? 0.5 * log(bq) - h->c.log_sqrt_a
                                : log(sb) - h->c.log_sqrt_a;
        return h->c.log_const + h->c.q * ls + GH_LN2 + hs +
               gh1_b_less_w(h, bq, sb, B, w);
      }
    }
  }
  if (isinf(Q))
    ghmix_mix_row_r(&h->c, fabs(z), B, &r);
  else
    ghmix_mix_row(&h->c, Q, B, &r);
  return r.loglik;
}

#ifndef GHMIX_CUDA_UNITY /* host only (see below) */
/* d/dz log f = g - z E[1/Y | z] for z > 0, used only to locate the mode.
 * With E[1/Y | z] = R / s, R = K_{q-1}(omega) / K_q(omega), s = sb /
 * sqrt(A), sb = sqrt(b + z^2), it is [g - z sqrt(A) / sb] - (z sqrt(A) /
 * sb) (R - 1), where (A = a + g^2, u = z / sb, v = sqrt(b) / sb)
 *   g - z sqrt(A) / sb = ((g v)^2 - a u^2) / (g + u sqrt(A))   (exact),
 * and R - 1 comes with its own relative accuracy (bessel.h): near the mode
 * of a law with large g the two terms of g - z E[1/Y | z] agree to many
 * digits, and their difference in doubles would be noise. */
static double gh1_dlpdf(const ghmix_gh1 *h, double z) {
  ghmix_bessel_scaled_result k;
  double Q = z * z, sa = h->c.sqrt_a;
  double sb = isfinite(Q) ? sqrt(h->b + Q) : hypot(sqrt(h->b), z);
  double u = z / sb, gv = h->g * (sqrt(h->b) / sb), den = h->g + u * sa;
  ghmix_bessel_eval_scaled(sa * sb, h->c.q, GHMIX_BESSEL_RATIOS, &k);
  return (gv * (gv / den) - h->a * u * (u / den)) - u * sa * k.down_m1;
}
#endif

/* ---------------------------------------------------------------------- */
/* Set-up                                                                   */

GHMIX_HD int ghmix_gh1_init_density(double p, double a, double b, double g,
                                    ghmix_gh1 *h) {
  double w, wr;
  h->valid = 0;
  h->complete = 0;
  h->flip = g < 0;
  h->p = p;
  h->a = a;
  h->b = b;
  h->g = fabs(g);
  if (!isfinite(g) || !ghmix_gig_valid(p, a, b))
    return 0;
  /* (g^2 may overflow: the constants take g itself then) */
  if (!ghmix_mix_const_init_g(1, p, a, b, h->g * h->g, h->g, 0.0, 0, &h->c) ||
      !ghmix_mix_const_init_g(1, p, a, b, h->g * h->g, h->g, 0.0,
                              GHMIX_ESTEP_MOMENTS, &h->cm))
    return 0;
  /* Hankel's series for log K_q(w) + w converges to 1e-17 within a few
   * dozen terms from here on; below it the general formula loses at most
   * ~eps w = 1e-13 absolute to the cancellation */
  h->w_hankel =
      fabs(h->c.q) > 150 ? INFINITY : fmax(64.0, 2.0 * h->c.q * h->c.q);
  /* the mode of the density of log Y: (W + p) / a or b / (W - p) */
  w = sqrt(a) * sqrt(b);
  wr = hypot(p, w);
  h->typical_y = p >= 0 ? (wr + p) / a : b / (wr - p);
  if (!(h->typical_y > 0) || !isfinite(h->typical_y))
    h->typical_y = 1.0;
  h->valid = 1;
  return 1;
}

GHMIX_HD double ghmix_gh1_logpdf(const ghmix_gh1 *h, double z) {
  if (!h->valid)
    return NAN;
  return gh1_lpdf(h, h->flip ? -z : z);
}

GHMIX_HD double ghmix_gh1_density_x(const ghmix_gh1 *h, double x, double mu,
                                    double sigma, int give_log) {
  double z, l;
  if (isnan(x) || isnan(mu) || isnan(sigma))
    return x + mu + sigma;
  if (!h->valid || !(sigma > 0) || !isfinite(sigma) || !isfinite(mu))
    return NAN;
  z = (x - mu) / sigma;
  l = isinf(z) ? -INFINITY : ghmix_gh1_logpdf(h, z) - log(sigma);
  return give_log ? l : exp(l);
}

/* Everything below is host only (adaptive quadrature, Newton with
 * bisection).  The CUDA backend compiles this file too, for the density
 * above (src/cuda/core_device.cuh defines GHMIX_CUDA_UNITY), and must not
 * define these functions a second time. */
#ifndef GHMIX_CUDA_UNITY

/* A length scale of the density from z0 in direction dir: the distance
 * over which log f drops by about 1 (within a factor of 4), from a guess.
 * A rough scale is all the double-exponential rules need. */
static double drop_scale(const ghmix_gh1 *h, double z0, int dir, double guess) {
  double l0 = gh1_lpdf(h, z0), w = guess;
  int k, grew = 0, shrank = 0;
  if (!isfinite(l0) || !(w > 0) || !isfinite(w))
    return w > 0 && isfinite(w) ? w : 1.0;
  for (k = 0; k < 200; k++) {
    double z = z0 + dir * w, d;
    if (fabs(z) > GH_ZCAP)
      return w;
    d = l0 - gh1_lpdf(h, z);
    if (d < 0.25 && !shrank) {
      w *= 4.0;
      grew = 1;
    } else if (!(d <= 4.0) && !grew && w > 1e-280) {
      w *= 0.25;
      shrank = 1;
    } else {
      break;
    }
  }
  return w;
}

/* The mode c >= 0 (frame g >= 0) by bisection on the sign of d/dz log f:
 * positive left of the mode, negative right of it (the density is
 * unimodal). */
static double find_mode(const ghmix_gh1 *h, double s0) {
  double lo = 0.0, hi = s0;
  int k;
  if (h->g == 0)
    return 0.0;
  for (k = 0; k < 1100 && !(gh1_dlpdf(h, hi) < 0); k++) {
    hi *= 2.0;
    if (hi > GH_ZCAP)
      return GH_ZCAP;
  }
  for (k = 0; k < 400; k++) {
    double mid, d;
    if (lo > 0 && hi - lo <= 1e-10 * hi)
      break;
    if (lo == 0) {
      mid = 0.0625 * hi;
      if (mid < 1e-300)
        break;
    } else {
      mid = hi < 4.0 * lo ? lo + 0.5 * (hi - lo) : sqrt(lo) * sqrt(hi);
    }
    d = gh1_dlpdf(h, mid);
    if (d > 0)
      lo = mid;
    else
      hi = mid; /* (NaN too: the search stays finite) */
  }
  return lo == 0 ? 0.0 : lo + 0.5 * (hi - lo);
}

/* ---------------------------------------------------------------------- */
/* Double-exponential rules (de_quad.h)                                     */

typedef struct {
  const ghmix_gh1 *h;
  int finite; /* 0: half-line, 1: [z0, z1] by tanh-sinh */
  double z0, z1, dir;
  double ls; /* log s (half-line) or log |z1 - z0| (finite) */
  double l0; /* reference log density */
  /* the previous node of each walk: log term, log dist, log density */
  double lt_right, ld_left, ell_left;
  double lpure; /* log dist from where a power tail is pure */
  /* models beyond the walks */
  int left_model, right_model;
  double vlo;                /* outermost real node on the left */
  double lt_lo, ld_lo, beta; /* start model: log term, log dist, exponent */
  double lt_hi, slope;       /* far model: log term, d log term / dv */
  double v_pure, lt_pure;    /* first node where the power law is pure */
} de_job;

/* The node at v: log of its distance from z0 (ld), the log Jacobian
 * d dist / dv (lj), and its position z.  Returns 0 when the node is not
 * representable (too close to z0 = 0, or beyond GH_ZCAP). */
static int de_node(const de_job *j, double v, double *ld, double *lj,
                   double *z) {
  if (!j->finite) {
    double e = exp(-v);
    *ld = j->ls + v - e;
    *lj = *ld + log1p(e);
    if (j->z0 == 0 && *ld < log(GH_DMIN))
      return 0;
    *z = j->z0 + j->dir * exp(*ld);
    return fabs(*z) <= GH_ZCAP;
  } else {
    double sh = GH_PI * fabs(sinh(v)), e = exp(-sh), l1e = log1p(e);
    /* distance from the nearer end: len e / (1 + e) */
    double lnear = j->ls - sh - l1e;
    *lj = j->ls + log(GH_PI * cosh(v)) - sh - 2.0 * l1e;
    if (v <= 0) {
      *ld = lnear;
      if (j->z0 == 0 && lnear < log(GH_DMIN))
        return 0;
      *z = j->z0 + j->dir * exp(lnear);
    } else {
      *ld = NAN; /* not needed on this side */
      *z = j->z1 - j->dir * exp(lnear);
    }
    return 1;
  }
}

/* The non-distance part of the Jacobian, lj - ld, for the start model. */
static double de_jac_rest(const de_job *j, double v) {
  if (!j->finite)
    return log1p(exp(-v));
  {
    double sh = GH_PI * fabs(sinh(v));
    return log(GH_PI * cosh(v)) - log1p(exp(-sh));
  }
}

/* The term at v, exp(log f(z) - l0 + log Jacobian); along the walks, what
 * the models beyond them are fitted to: on the right the slope of the log
 * terms in v (and where the power law is pure), on the left the exponent
 * beta of f ~ dist^(beta - 1) near z0. */
static int de_term(void *ctx, double v, ghmix_de_phase phase, double *t) {
  de_job *j = (de_job *)ctx;
  double lj, z, lt, ld, ell;
  if (!de_node(j, v, &ld, &lj, &z))
    return 0;
  ell = gh1_lpdf(j->h, z);
  lt = ell - j->l0 + lj;
  *t = exp(lt);
  if (phase == GHMIX_DE_CENTRE) {
    j->lt_right = lt;
    j->ld_left = ld;
    j->ell_left = ell;
  } else if (phase == GHMIX_DE_RIGHT) {
    j->slope = (lt - j->lt_right) / GHMIX_DE_STEP;
    j->lt_right = lt;
    if (!j->finite && isnan(j->v_pure) && ld >= j->lpure) {
      j->v_pure = v;
      j->lt_pure = lt;
    }
  } else if (phase == GHMIX_DE_LEFT) {
    j->vlo = v;
    if (!j->finite || v <= 0) {
      j->beta = 1.0 + (ell - j->ell_left) / (ld - j->ld_left);
      j->lt_lo = lt;
      j->ld_lo = ld;
    }
    j->ld_left = ld;
    j->ell_left = ell;
  }
  return 1;
}

/* A walk met a node beyond the doubles after its last node v_last: on the
 * right (beyond GH_ZCAP) the terms continue geometrically from the last
 * nodes, on the left (too close to z0 = 0) on the power law
 * dist^(beta - 1). */
static int de_edge(void *ctx, int side, double v_last) {
  de_job *j = (de_job *)ctx;
  if (side < 0) {
    j->left_model = 1;
    return v_last < 0 && j->beta > 0;
  }
  j->right_model = 1;
  j->lt_hi = j->lt_right;
  /* the terms are geometric in v from where the power law is pure: take
   * the ratio over that whole stretch (the rounding of log f, ~1e-16 of
   * its size, then hardly affects it) */
  if (!isnan(j->v_pure) && v_last - j->v_pure >= 5.0)
    j->slope = (j->lt_hi - j->lt_pure) / (v_last - j->v_pure);
  return j->slope < 0 && v_last >= GHMIX_DE_STEP;
}

/* Sum of the modelled terms beyond the real nodes, for step h (the
 * terms not yet multiplied by h); scale: the sum of the real terms, for the
 * stopping test. */
static double de_model_sum(void *ctx, double h, double scale) {
  const de_job *j = (const de_job *)ctx;
  double s = 0.0;
  if (j->right_model) /* sum_{k >= 1} T r^k, r = e^(slope h) < 1 */
    s += exp(j->lt_hi + j->slope * h) / -expm1(j->slope * h);
  if (j->left_model) {
    double jr0 = de_jac_rest(j, j->vlo);
    int k;
    for (k = 1; k <= GH_MODEL_MAX; k++) {
      double v = j->vlo - k * h, ld, t;
      if (j->finite) {
        double sh = GH_PI * fabs(sinh(v));
        ld = j->ls - sh - log1p(exp(-sh));
      } else {
        ld = j->ls + v - exp(-v);
      }
      t = exp(j->lt_lo + j->beta * (ld - j->ld_lo) + de_jac_rest(j, v) - jr0);
      s += t;
      if (t <= GH_NEGLIGIBLE * (s + scale) || !isfinite(ld))
        break;
    }
  }
  return s;
}

/* log of the integral described by j (j->l0 added back). */
/* log of the integral; *rel (if not NULL): the same less the log density
 * l0 at the start, computed as such (not as a difference of the two). */
static double de_integrate_rel(de_job *j, double *rel) {
  ghmix_de_integrand in = {de_term, de_edge, de_model_sum, NULL, 0.0, 0.0};
  double r;
  in.ctx = j;
  in.vright = in.vleft = j->finite ? GH_FIN_VMAX : GH_VMAX;
  j->left_model = j->right_model = 0;
  j->vlo = 0.0;
  j->slope = j->beta = NAN;
  j->v_pure = j->lt_pure = NAN;
  j->lpure = log(GH_PURE) + log(fmax(1.0, fmax(fabs(j->z0), exp(j->ls))));
  r = log(ghmix_de_integrate(&in));
  if (rel != NULL)
    *rel = r;
  return r + j->l0;
}

static double de_integrate(de_job *j) { return de_integrate_rel(j, NULL); }

/* log of the integral of f over the half-line from z0 in direction dir
 * (f decreasing away from z0), with length scale s; *rel (if not NULL)
 * that log less log f(z0). */
static double half_log_rel(const ghmix_gh1 *h, double z0, int dir, double s,
                           double *rel) {
  de_job j;
  j.h = h;
  j.finite = 0;
  j.z0 = z0;
  j.z1 = NAN;
  j.dir = dir;
  j.ls = log(s);
  j.l0 = gh1_lpdf(h, z0);
  if (!isfinite(j.l0)) {
    j.l0 = gh1_lpdf(h, z0 + dir * s);
    rel = NULL; /* (the start is not z0) */
  }
  return de_integrate_rel(&j, rel);
}

static double half_log(const ghmix_gh1 *h, double z0, int dir, double s) {
  return half_log_rel(h, z0, dir, s, NULL);
}

/* log of the integral of f between z0 and z1 != z0, f larger at z0. */
static double finite_log(const ghmix_gh1 *h, double z0, double z1) {
  de_job j;
  j.h = h;
  j.finite = 1;
  j.z0 = z0;
  j.z1 = z1;
  j.dir = z1 > z0 ? 1.0 : -1.0;
  j.ls = log(fabs(z1 - z0));
  j.l0 = gh1_lpdf(h, z0);
  if (!isfinite(j.l0))
    j.l0 = gh1_lpdf(h, z0 + 0.5 * (z1 - z0));
  return de_integrate(&j);
}

int ghmix_gh1_init(double p, double a, double b, double g, ghmix_gh1 *h) {
  int valid = ghmix_gh1_init_density(p, a, b, g, h);
  ghmix_gh1_complete(h);
  return valid;
}

void ghmix_gh1_complete(ghmix_gh1 *h) {
  double m, s0, c, s_zero, raw[3], total;
  if (!h->valid || h->complete)
    return;
  m = h->typical_y;
  s0 = sqrt(m) + h->g * m;
  c = find_mode(h, s0);
  h->mode = c;
  h->s_right = drop_scale(h, c, 1, s0);
  h->s_left = drop_scale(h, c, -1, s0);
  if (c >= GH_ZCAP) {
    /* the mode beyond the quadrature's reach (gamma ~ 1e150 and more): no
     * pieces (see far_mode_frame) */
    h->log_piece[0] = h->log_piece[1] = h->log_piece[2] = NAN;
    h->log_norm = 0.0;
    h->complete = 1;
    return;
  }
  raw[2] = half_log(h, c, 1, h->s_right);
  if (c > 0) {
    raw[1] = finite_log(h, c, 0.0);
    s_zero = drop_scale(h, 0.0, -1, h->s_left);
    raw[0] = half_log(h, 0.0, -1, s_zero);
  } else {
    raw[1] = -INFINITY;
    raw[0] = h->g == 0 ? raw[2] : half_log(h, 0.0, -1, h->s_left);
  }
  total = ghmix_log_add(ghmix_log_add(raw[0], raw[1]), raw[2]);
  h->log_piece[0] = raw[0] - total;
  h->log_piece[1] = raw[1] - total;
  h->log_piece[2] = raw[2] - total;
  h->log_norm = total;
  h->complete = 1;
}

/* ---------------------------------------------------------------------- */
/* Distribution function                                                    */

/* Scale of the tail from z outward: drop_scale from a guess. */
static double tail_scale(const ghmix_gh1 *h, double z, int dir) {
  double ref = dir > 0 ? h->mode : 0.0;
  double side = dir > 0 ? h->s_right : h->s_left;
  double guess = 0.25 * fmax(fabs(z - ref), side);
  return drop_scale(h, z, dir, guess);
}

/* The exponential rate of the tail on the side of sign dir (frame g >=
 * 0), kappa = sqrt(A) - dir g (A = a + g^2, cancellation-free on the side
 * dir = +1: a / (sqrt(A) + g)); 0 for a power tail. */
static double tail_rate(const ghmix_gh1 *h, int dir) {
  double sa = h->c.sqrt_a;
  if (!(h->c.a_post > 0))
    return 0.0;
  return dir > 0 ? h->a / (sa + h->g) : sa + h->g;
}

/* log U(lambda), U(lambda) = int_1^inf u^-beta e^(-lambda (u - 1)) du =
 * e^lambda E_beta(lambda) (DLMF 8.19.3), lambda >= 1, by the continued
 * fraction of E_beta (DLMF 8.19.17, its even part) with modified Lentz. */
static double far_log_u(double lambda, double beta) {
  double b = lambda + beta, c = 1e300, d = 1.0 / b, u = d;
  int i;
  if (lambda > 1e20)
    return -log(lambda) + log1p(-beta / lambda);
  for (i = 1; i < 1000; i++) {
    double an = -i * (beta - 1.0 + i), del;
    b += 2.0;
    d = an * d + b;
    d = 1.0 / (d == 0 ? 1e-300 : d);
    c = b + an / c;
    if (c == 0)
      c = 1e-300;
    del = c * d;
    u *= del;
    if (fabs(del - 1.0) <= 1e-16)
      break;
  }
  return log(u);
}

/* lambda = kappa |z| where the log tail from z outward is taken in its
 * asymptotic form (far_log_tail), else NaN: beyond |z| = GH_TCAP on an
 * exponential tail (lambda >= 1), and from |z| = GH_FAR_Z on where the
 * form is exact to rounding (lambda and the posterior argument sqrt(A)|z|
 * large: the neglected terms are O(q^2 / (sqrt(A) kappa z^2)) in log T)
 * and the quadrature's terms, differences of log f values of size
 * kappa |z|, would carry its rounding. */
#define GH_FAR_Z 1e8
static double far_lambda(const ghmix_gh1 *h, double z) {
  double t = fabs(z), lambda = tail_rate(h, z > 0 ? 1 : -1) * t;
  if (t > GH_TCAP)
    return lambda >= 1.0 ? lambda : NAN;
  if (t >= GH_FAR_Z && lambda >= 1e4 &&
      h->c.sqrt_a * t >= 1e4 * (h->c.q * h->c.q + 1.0))
    return lambda;
  return NAN;
}

/* The log tail from z outward in the asymptotic form: to O(1/z) log f(z)
 * = C - kappa |z| - beta log|z| (Hankel, DLMF 10.40.2: beta = 1 - p), so
 * that the tail is f(z) |z| U(kappa |z|) (far_log_u). */
static double far_log_tail(const ghmix_gh1 *h, double z, double lambda) {
  return gh1_lpdf(h, z) - h->log_norm + log(fabs(z)) +
         far_log_u(lambda, 1.0 - h->p);
}

/* log of the integral of f over [0, z], 0 < z <= c.  Where f falls from
 * z over a length far below z, the tanh-sinh walks from the middle would
 * meet only zeros: the integral is then the half-line from z leftward less
 * the piece below 0, when that is the smaller by far. */
static double piece_log(const ghmix_gh1 *h, double z) {
  double s = drop_scale(h, z, -1, 0.25 * z), half;
  if (s < 1e-3 * z) {
    half = half_log(h, z, -1, s) - h->log_norm;
    if (half >= h->log_piece[0] + 1.0)
      return ghmix_log_sub(half, h->log_piece[0]) + h->log_norm;
  }
  return finite_log(h, z, 0.0);
}

/* Both log tails where the mode lies beyond GH_ZCAP: only a lower tail at
 * 0 < z <= GH_ZCAP far below the mode, where f falls from z over a length
 * below z / 1000, is within reach: the half-line from z leftward (the
 * density is normalised exactly).  NaN elsewhere. */
static void far_mode_frame(const ghmix_gh1 *h, double z, double *lo,
                           double *up) {
  double s;
  *lo = *up = NAN;
  if (!(z > 0) || z > GH_ZCAP)
    return;
  s = drop_scale(h, z, -1, 0.25 * z);
  if (!(s < 1e-3 * z))
    return;
  *lo = half_log(h, z, -1, s);
  *up = log1p(-exp(*lo));
}

/* Both log tails at z in the frame g >= 0, h complete. */
static void logcdf_frame(const ghmix_gh1 *h, double z, double *lo, double *up) {
  const double *lp = h->log_piece;
  double c = h->mode, out, inner;
  if (isnan(z)) {
    *lo = *up = z;
    return;
  }
  if (z == -INFINITY) {
    *lo = -INFINITY;
    *up = 0.0;
    return;
  }
  if (z == INFINITY) {
    *lo = 0.0;
    *up = -INFINITY;
    return;
  }
  if (c >= GH_ZCAP) {
    far_mode_frame(h, z, lo, up);
    return;
  }
  if ((z < 0 || z > c) && !isnan(far_lambda(h, z))) {
    /* an exponential tail far out: its asymptotic form */
    out = far_log_tail(h, z, far_lambda(h, z));
    inner = log1p(-exp(out));
    *lo = z > 0 ? inner : out;
    *up = z > 0 ? out : inner;
    return;
  }
  if (fabs(z) > GH_TCAP && (z < 0 || c < 0.5 * GH_TCAP)) {
    /* a power tail beyond 1e100, continued from 1e100 on its power law */
    double zr = z > 0 ? GH_TCAP : -GH_TCAP, lo_r, up_r, out_r, kappa;
    logcdf_frame(h, zr, &lo_r, &up_r);
    out_r = z > 0 ? up_r : lo_r;
    kappa = exp(log(GH_TCAP) + gh1_lpdf(h, zr) - h->log_norm - out_r);
    out = out_r - kappa * log(fabs(z) / GH_TCAP);
    inner = log1p(-exp(out));
    *lo = z > 0 ? inner : out;
    *up = z > 0 ? out : inner;
    return;
  }
  if (z < 0) {
    out = half_log(h, z, -1, tail_scale(h, z, -1)) - h->log_norm;
    inner = out <= lp[0] - GH_LN2 ? ghmix_log_sub(lp[0], out)
                                  : finite_log(h, 0.0, z) - h->log_norm;
    *lo = out;
    *up = ghmix_log_add(inner, ghmix_log_add(lp[1], lp[2]));
  } else if (z <= c) {
    double i0, i1;
    if (z == 0) {
      *lo = lp[0];
      *up = ghmix_log_add(lp[1], lp[2]);
      return;
    }
    if (z == c) {
      *lo = ghmix_log_add(lp[0], lp[1]);
      *up = lp[2];
      return;
    }
    i0 = piece_log(h, z) - h->log_norm; /* [0, z]: f larger at z */
    i1 = i0 <= lp[1] - GH_LN2 ? ghmix_log_sub(lp[1], i0)
                              : finite_log(h, c, z) - h->log_norm;
    *lo = ghmix_log_add(lp[0], i0);
    *up = ghmix_log_add(i1, lp[2]);
  } else {
    out = half_log(h, z, 1, tail_scale(h, z, 1)) - h->log_norm;
    inner = out <= lp[2] - GH_LN2 ? ghmix_log_sub(lp[2], out)
                                  : finite_log(h, c, z) - h->log_norm;
    *up = out;
    *lo = ghmix_log_add(ghmix_log_add(lp[0], lp[1]), inner);
  }
  /* the larger tail from the smaller one (at most about 1/2): the two
   * then sum to 1 to rounding, and the larger is exact in log for log.p */
  if (*lo <= *up)
    *up = log1p(-exp(*lo));
  else
    *lo = log1p(-exp(*up));
  /* a tail can exceed 1 by the quadrature's rounding */
  if (*lo > 0)
    *lo = 0;
  if (*up > 0)
    *up = 0;
}

void ghmix_gh1_logcdf(const ghmix_gh1 *h, double z, double *log_lower,
                      double *log_upper) {
  if (!h->valid || !h->complete) {
    *log_lower = *log_upper = NAN;
    return;
  }
  if (h->flip)
    logcdf_frame(h, -z, log_upper, log_lower);
  else
    logcdf_frame(h, z, log_lower, log_upper);
}

/* ---------------------------------------------------------------------- */
/* Quantile function                                                        */

/* The tail the quantile search works with, at x = base + sgn exp(xi). */
typedef struct {
  const ghmix_gh1 *h;
  int lower; /* the target is the lower tail */
  double base, sgn;
  int increasing; /* the tail increases with xi */
} q_job;

/* log tail at xi; also the derivative in xi, d f(x) / T(x).  For an
 * outer tail far out (|log T| > Q_REL_MIN) the ratio T / f comes without
 * the difference of log T and log f, large numbers whose difference in
 * doubles would be noise: from the asymptotic form (f / T = 1 / (|x|
 * U), far_log_tail) or from the quadrature itself. */
#define Q_REL_MIN 1e4
static double q_eval(const q_job *q, double xi, double *dg) {
  double d = exp(xi), x = q->base + q->sgn * d, lo, up, g, ell, rel, lam;
  int dir = q->sgn > 0 ? 1 : -1;
  logcdf_frame(q->h, x, &lo, &up);
  g = q->lower ? lo : up;
  if (!q->increasing && g < -Q_REL_MIN) {
    lam = far_lambda(q->h, x);
    if (!isnan(lam)) {
      *dg = -exp(log(d) - log(fabs(x)) - far_log_u(lam, 1.0 - q->h->p));
      return g;
    }
    if (fabs(x) <= GH_TCAP &&
        isfinite(half_log_rel(q->h, x, dir, tail_scale(q->h, x, dir), &rel)) &&
        isfinite(rel)) {
      *dg = -exp(log(d) - rel);
      return g;
    }
  }
  ell = gh1_lpdf(q->h, x) - q->h->log_norm;
  *dg = (q->increasing ? 1.0 : -1.0) * exp(log(d) + ell - g);
  return g;
}

/* An outer quantile far out on an exponential tail (far_lambda): the
 * root t = |x| of far_log_tail(x) = lt by Newton's method in t (slope
 * -1 / (t U)), from t0; NaN where the asymptotic form does not apply. */
static double q_far(const q_job *q, double lt, double t0) {
  int dir = q->sgn > 0 ? 1 : -1, k;
  double t = t0;
  for (k = 0; k < 20; k++) {
    double lam = far_lambda(q->h, dir * t), lu, r, tn;
    if (isnan(lam))
      return NAN;
    lu = far_log_u(lam, 1.0 - q->h->p);
    r = far_log_tail(q->h, dir * t, lam) - lt;
    tn = t + r * (t * exp(lu));
    if (!(tn > 0) || isinf(tn))
      return isinf(tn) ? dir * tn : NAN;
    if (fabs(tn - t) <= 1e-16 * t) {
      t = tn;
      break;
    }
    t = tn;
  }
  return dir * t;
}

/* A starting point for a tail far below the piece's own mass: solves
 * log f(x) + log(tail length) = lt on cheap density evaluations only, the
 * tail length taken as 1 / (k - 1/d), k = -d/dx log f, d = |x - base|
 * (exact for a power tail |x|^(-1-s), close for an exponential tail where
 * k d >> 1; Newton's method then corrects the rest). */
static double q_start_far(const q_job *q, double lt, double xi0) {
  const ghmix_gh1 *h = q->h;
  double lo = xi0, hi = xi0, step = 1.0, r;
  int k;
  /* H(xi) = log f + log(length) - lt, decreasing in the tail */
#define Q_H(xi, out)                                                           \
  do {                                                                         \
    double d_ = exp(xi), x_ = q->base + q->sgn * d_, e_ = 1e-4 * d_;           \
    double l_ = gh1_lpdf(h, x_), l2_ = gh1_lpdf(h, x_ + q->sgn * e_);          \
    double k_ = (l_ - l2_) / e_, kp_ = k_ - 1.0 / d_;                          \
    k_ = kp_ > 0 ? kp_ : k_;                                                   \
    (out) = k_ > 0 ? l_ - h->log_norm - log(k_) - lt : l_ - h->log_norm - lt;  \
  } while (0)
  Q_H(hi, r);
  if (!(r > 0))
    return xi0;
  for (k = 0; k < 200; k++) {
    hi += step;
    step *= 1.5;
    if (hi > log(GH_TCAP)) {
      hi = log(GH_TCAP);
      break;
    }
    Q_H(hi, r);
    if (!(r > 0))
      break;
    lo = hi;
  }
  if (r > 0)
    return hi;
  for (k = 0; k < 60 && hi - lo > 1e-3; k++) {
    double mid = 0.5 * (lo + hi);
    Q_H(mid, r);
    if (r > 0)
      lo = mid;
    else
      hi = mid;
  }
#undef Q_H
  return 0.5 * (lo + hi);
}

/* The quantile in the frame g >= 0: target log tail lt <= log(1/2) of the
 * lower (lower != 0) or upper tail. */
static double quantile_frame(const ghmix_gh1 *h, double lt, int lower) {
  const double *lp = h->log_piece;
  double c = h->mode, xi, xi_lo = -INFINITY, xi_hi = INFINITY, g0, s = 1.0;
  double xi_cap = log(GH_TCAP);
  int k, bounded = 0;
  q_job q;
  q.h = h;
  q.lower = lower;
  if (lower) {
    double l01 = ghmix_log_add(lp[0], lp[1]);
    if (lt <= lp[0]) { /* x <= 0 */
      q.base = 0.0;
      q.sgn = -1.0;
      q.increasing = 0;
      g0 = lp[0];
      s = h->s_left;
    } else if (lt <= l01) { /* 0 < x <= c */
      q.base = 0.0;
      q.sgn = 1.0;
      q.increasing = 1;
      g0 = lp[0];
      bounded = 1;
    } else { /* x > c */
      q.base = c;
      q.sgn = 1.0;
      q.increasing = 1;
      g0 = l01;
      s = h->s_right;
    }
  } else {
    double u12 = ghmix_log_add(lp[1], lp[2]);
    if (lt <= lp[2]) { /* x >= c */
      q.base = c;
      q.sgn = 1.0;
      q.increasing = 0;
      g0 = lp[2];
      s = h->s_right;
    } else if (lt <= u12) { /* 0 <= x < c */
      q.base = c;
      q.sgn = -1.0;
      q.increasing = 1;
      g0 = lp[2];
      bounded = 1;
    } else { /* x < 0 */
      q.base = 0.0;
      q.sgn = -1.0;
      q.increasing = 1;
      g0 = u12;
      s = h->s_left;
    }
  }
  if (lt == g0)
    return q.base;
  if (bounded) {
    xi_hi = log(c);
    xi = xi_hi - GH_LN2;
  } else {
    xi = log(s);
    if (!q.increasing && lt < g0 - 3.0)
      xi = q_start_far(&q, lt, xi);
  }
  for (k = 0; k < 100; k++) {
    double dg, g = q_eval(&q, xi, &dg), r = g - lt, xn, d;
    if (r == 0 || isnan(g))
      break;
    if ((r < 0) == (q.increasing != 0))
      xi_lo = xi; /* the root is further out */
    else
      xi_hi = xi;
    if (!bounded && !q.increasing && isinf(xi_hi) && xi >= xi_cap) {
      /* beyond 1e100: an exponential tail's asymptotic form, or a power
       * tail continued (the log tail is linear in xi there, slope dg) */
      double far = q_far(&q, lt, GH_TCAP * (1 + 1e-15));
      if (!isnan(far))
        return far;
      return q.base + q.sgn * exp(xi - r / dg);
    }
    xn = xi - r / dg;
    if (!isfinite(xn) || xn <= xi_lo || xn >= xi_hi) {
      if (isinf(xi_lo))
        xn = xi_hi - 2.0;
      else if (isinf(xi_hi))
        xn = xi_lo + 2.0;
      else
        xn = 0.5 * (xi_lo + xi_hi);
    }
    if (isinf(xi_hi) && xn > xi + 5.0)
      xn = xi + 5.0;
    if (isinf(xi_lo) && xn < xi - 5.0)
      xn = xi - 5.0;
    if (!bounded && xn > xi_cap)
      xn = xi_cap;
    d = fabs(xn - xi);
    xi = xn;
    /* |change of x| below 1e-14 |x| */
    if (d * exp(xi) <= 1e-14 * fabs(q.base + q.sgn * exp(xi)))
      break;
    if (xi_hi - xi_lo <= 1e-15 * fmax(1.0, fabs(xi)))
      break;
  }
  if (!bounded && !q.increasing) {
    /* far out, the root in x itself (exp(xi) would cost ulps of xi) */
    double far = q_far(&q, lt, fabs(q.base + q.sgn * exp(xi)));
    if (!isnan(far))
      return far;
  }
  return q.base + q.sgn * exp(xi);
}

double ghmix_gh1_quantile(const ghmix_gh1 *h, double logprob, int lower) {
  if (!h->valid || !h->complete || isnan(logprob) || logprob > 0 ||
      h->mode >= GH_ZCAP) /* (the mode beyond the quadrature's reach) */
    return NAN;
  if (logprob == -INFINITY)
    return lower ? -INFINITY : INFINITY;
  if (logprob == 0)
    return lower ? INFINITY : -INFINITY;
  /* work with the smaller tail */
  if (logprob > -GH_LN2) {
    logprob = log(-expm1(logprob));
    lower = !lower;
  }
  if (h->flip)
    return -quantile_frame(h, logprob, !lower);
  return quantile_frame(h, logprob, lower);
}

/* ---------------------------------------------------------------------- */
/* Base-R semantics                                                         */

double ghmix_gh1_cdf_x(const ghmix_gh1 *h, double q, double mu, double sigma,
                       int lower_tail, int log_p) {
  double lo, up, l;
  if (isnan(q) || isnan(mu) || isnan(sigma))
    return q + mu + sigma;
  if (!h->valid || !(sigma > 0) || !isfinite(sigma) || !isfinite(mu))
    return NAN;
  ghmix_gh1_logcdf(h, (q - mu) / sigma, &lo, &up);
  l = lower_tail ? lo : up;
  return log_p ? l : exp(l);
}

double ghmix_gh1_qf_x(const ghmix_gh1 *h, double prob, double mu, double sigma,
                      int lower_tail, int log_p) {
  double lp;
  if (isnan(prob) || isnan(mu) || isnan(sigma))
    return prob + mu + sigma;
  if (!h->valid || !(sigma > 0) || !isfinite(sigma) || !isfinite(mu))
    return NAN;
  if (!ghmix_prob_ok(prob, log_p))
    return NAN;
  if (log_p) {
    lp = prob;
  } else if (prob > 0.5) {
    /* 1 - prob is exact for prob >= 1/2: take the smaller tail here */
    lp = log1p(-prob);
    lower_tail = !lower_tail;
  } else {
    lp = log(prob);
  }
  return mu + sigma * ghmix_gh1_quantile(h, lp, lower_tail);
}

#endif /* GHMIX_CUDA_UNITY */
