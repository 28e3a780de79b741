/* Tail partial moments of the univariate GH law (see gh_risk.h). */
#include "gh_risk.h"

#include <math.h>

#include "de_quad.h"
#include "gh_dist.h"

#define RISK_LOG_SQRT_2PI 0.91893853320467274178
#define RISK_SQRT1_2 0.70710678118654752440
#define RISK_CF_FROM 8.0 /* Mills' ratio by its continued fraction beyond */
#define RISK_CF_TERMS 40
/* |log y| beyond which a node is negligible (but for the power tail of an
 * inverse-gamma Y, integrated in logs beyond it) */
#define RISK_LY_MAX 700.0
#define RISK_VMAX 12.0
#define RISK_NEWTON_MAX 50
#define RISK_LM_MAX 300.0 /* the GIG's scale m within e^+-300 */
#define RISK_RULES 3 /* quantile_newton's rules: two fixed steps, adaptive */
#define RISK_RULE_STEPS 12    /* Newton steps at most on a fixed-step rule */
#define RISK_NEGLIGIBLE 1e-20 /* a fixed-step walk ends at a term this small   \
                               */
#define RISK_DIRECT_MAX 700.0 /* a term's GIG factor below e^700 in doubles */

/* ---------------------------------------------------------------------- */
/* The normal tail                                                          */

/* r1 in Mills' ratio R(t) = Phi(-t) / phi(t) = 1 / (t + r1), r1 = 1 / (t +
 * 2 / (t + 3 / (t + ...))) (Laplace's continued fraction, DLMF 7.9.2 for
 * erfc), summed backward; t >= RISK_CF_FROM. */
static double mills_tail(double t) {
  double r = 0.0;
  int k;
  for (k = RISK_CF_TERMS; k >= 1; k--)
    r = k / (t + r);
  return r;
}

static double log_norm_pdf(double z) {
  return -0.5 * z * z - RISK_LOG_SQRT_2PI;
}

double ghmix_log_norm_cdf(double z) {
  if (isnan(z))
    return z;
  if (z > 0)
    return log1p(-0.5 * erfc(z * RISK_SQRT1_2));
  if (z > -RISK_CF_FROM)
    return log(0.5 * erfc(-z * RISK_SQRT1_2));
  return log_norm_pdf(z) - log(-z + mills_tail(-z));
}

/* For z < 0, psi(z) = phi(t) (1 - t R(t)) with t = -z, and 1 - t R(t) =
 * r1 / (t + r1): no cancellation far out. */
double ghmix_log_norm_psi(double z) {
  double t = -z;
  if (isnan(z))
    return z;
  if (z >= 0)
    return log(exp(log_norm_pdf(z)) + z * (0.5 * erfc(-z * RISK_SQRT1_2)));
  if (t < RISK_CF_FROM)
    return log(exp(log_norm_pdf(t)) - t * (0.5 * erfc(t * RISK_SQRT1_2)));
  {
    double r1 = mills_tail(t);
    return log_norm_pdf(t) + log(r1 / (t + r1));
  }
}

/* ---------------------------------------------------------------------- */
/* The integrands in u = log(y / m)                                         */

/* The integrals: E[(zq - Z)^+], E[Y 1{Z <= zq}], P(Z <= zq). */
typedef enum { TAIL_SHORTFALL = 0, TAIL_Y_MASS = 1, TAIL_CDF = 2 } tail_kind;

typedef struct {
  const ghmix_gig *gig;
  double g, zq;
  tail_kind kind;
  double u0, c;   /* u = u0 + c sinh(v) */
  double log_ref; /* the log integrand at the peak */
  /* TAIL_CDF only: the shortfall's terms at the same nodes as well, over
   * sqrt(m) and relative to the same log_ref, summed with the CDF's; for
   * the checks of its sum: the last terms of the walks (left, right), its
   * sums before the last two halvings and the last node's v */
  int joint;
  double cdf_sum, sf_sum, sf_edge[2], sf_level[2], v_last;
  double walk_last[2]; /* the last terms of the walks (left, right) */
} tail_job;

/* D(u) = -alpha G(u) - beta G(-u), G(x) = e^x - 1 - x (gig.h). */
static double gig_log_u(const ghmix_gig *gig, double u) {
  double d = 0.0, e = expm1(u);
  if (gig->alpha > 0)
    d -= gig->alpha * (e - u);
  if (gig->beta > 0) /* e^-u - 1 = -e / (1 + e) (-1 where e overflows) */
    d -= gig->beta * (u - (isinf(e) ? 1.0 : e / (1.0 + e)));
  return d;
}

/* log of the integrand at log y = ly > RISK_LY_MAX, where y may overflow,
 * for an inverse-gamma Y (the others have no mass there): in logs, with
 * z = zq e^(-ly/2) - g e^(ly/2) and, on the heavy side (g < 0, z large),
 * sqrt(y) psi(z) = zq - g y (1 + zq / (-g y)) to rounding. */
static double tail_log_far(const tail_job *j, double u, double ly) {
  double l = gig_log_u(j->gig, u), sy = exp(0.5 * ly), z;
  z = j->g == 0 ? j->zq * exp(-0.5 * ly) : j->zq / sy - j->g * sy;
  if (j->kind == TAIL_CDF)
    return l + ghmix_log_norm_cdf(z);
  if (j->kind == TAIL_Y_MASS)
    return l + ly + ghmix_log_norm_cdf(z);
  if (j->g < 0 && z > RISK_CF_FROM)
    return l + log(-j->g) + ly + log1p(j->zq * exp(-ly) / -j->g);
  return l + 0.5 * ly + ghmix_log_norm_psi(z);
}

/* log of the integrand at u (without 1/J).  For z >= 0 the shortfall's
 * sqrt(y) psi(z) is (zq - g y) Phi(z) + sqrt(y) phi(z), both terms >= 0. */
static double tail_log(const tail_job *j, double u) {
  double ly = j->gig->lm + u, y, sy, z, l;
  if (ly > RISK_LY_MAX && j->gig->kind == GHMIX_GIG_KIND_INVGAMMA)
    return tail_log_far(j, u, ly);
  if (!(fabs(ly) <= RISK_LY_MAX))
    return -INFINITY;
  sy = exp(0.5 * ly);
  y = sy * sy;
  z = j->zq / sy - j->g * sy;
  l = gig_log_u(j->gig, u);
  if (j->kind == TAIL_CDF)
    return l + ghmix_log_norm_cdf(z);
  if (j->kind == TAIL_Y_MASS)
    return l + ly + ghmix_log_norm_cdf(z);
  if (z >= 0)
    return l + log((j->zq - j->g * y) * (0.5 * erfc(-z * RISK_SQRT1_2)) +
                   sy * exp(log_norm_pdf(z)));
  return l + 0.5 * ly + ghmix_log_norm_psi(z);
}

/* The shortfall's term over sqrt(m), for a TAIL_CDF job, from the logs. */
static double tail_sf_log_rel(const tail_job *j, double u) {
  tail_job s = *j;
  s.kind = TAIL_SHORTFALL;
  return exp(tail_log(&s, u) - j->log_ref - 0.5 * j->gig->lm);
}

/* exp(tail_log(u) - log_ref) for the quadrature: one exponential for both
 * e^u - 1 (expm1 only near u = 0, where e^u - 1 - u cancels) and y, and
 * no logarithm where the normal factor is not far in its tail and the
 * term's GIG factor relative to the peak is within the doubles; the same
 * value as tail_log's to rounding.  sf (TAIL_CDF, or NULL): the
 * shortfall's term over sqrt(m), relative to the same log_ref. */
static double tail_rel(const tail_job *j, double u, double *sf) {
  const ghmix_gig *gig = j->gig;
  double e, y, sy, z, l, cdf;
  if (sf != NULL)
    *sf = 0.0;
  if (gig->lm + u > RISK_LY_MAX && gig->kind == GHMIX_GIG_KIND_INVGAMMA) {
    /* (the power tail of an inverse-gamma Y, in logs) */
    if (sf != NULL)
      *sf = tail_sf_log_rel(j, u);
    return exp(tail_log(j, u) - j->log_ref);
  }
  if (!(fabs(gig->lm + u) <= RISK_LY_MAX))
    return 0.0;
  if (!(fabs(u) <= RISK_DIRECT_MAX)) {
    if (sf != NULL)
      *sf = tail_sf_log_rel(j, u);
    return exp(tail_log(j, u) - j->log_ref);
  }
  e = fabs(u) < 1.0 ? expm1(u) : exp(u) - 1.0;
  y = gig->m * (1.0 + e);
  sy = sqrt(y);
  z = j->zq / sy - j->g * sy;
  l = -j->log_ref;
  if (gig->alpha > 0)
    l -= gig->alpha * (e - u);
  if (gig->beta > 0)
    l -= gig->beta * (u - e / (1.0 + e));
  if (!(z > -RISK_CF_FROM && l < RISK_DIRECT_MAX)) {
    if (sf != NULL)
      *sf = tail_sf_log_rel(j, u);
    return exp(tail_log(j, u) - j->log_ref);
  }
  cdf = 0.5 * erfc(-z * RISK_SQRT1_2);
  if (j->kind == TAIL_CDF) {
    double el = exp(l);
    if (sf != NULL) /* sy / sqrt(m) = sqrt(1 + e) */
      *sf = el * sqrt(1.0 + e) * (exp(log_norm_pdf(z)) + z * cdf);
    return el * cdf;
  }
  if (j->kind == TAIL_Y_MASS)
    return exp(l) * y * cdf;
  if (z >= 0)
    return exp(l) * ((j->zq - j->g * y) * cdf + sy * exp(log_norm_pdf(z)));
  return exp(l) * sy * (exp(log_norm_pdf(z)) + z * cdf);
}

/* A joint job's bookkeeping of the shortfall's term t at v: the sums, the
 * walks' last terms, and the sum before each halving (a refinement starts
 * at the lowest node). */
static void tail_joint_add(tail_job *j, double v, ghmix_de_phase phase,
                           double cdf, double t) {
  if (phase == GHMIX_DE_REFINE && !(v > j->v_last)) {
    j->sf_level[0] = j->sf_level[1];
    j->sf_level[1] = j->sf_sum;
  }
  if (phase == GHMIX_DE_LEFT || phase == GHMIX_DE_RIGHT)
    j->sf_edge[phase == GHMIX_DE_RIGHT] = t;
  j->v_last = phase == GHMIX_DE_REFINE ? v : INFINITY;
  j->cdf_sum += cdf;
  j->sf_sum += t;
}

/* The term at v of u = u0 + c sinh(v): sinh and cosh from one e^v. */
static int tail_term(void *ctx, double v, ghmix_de_phase phase, double *t) {
  tail_job *j = (tail_job *)ctx;
  double ev = exp(v), iv = 1.0 / ev, w = 0.5 * (ev + iv), sf;
  *t = tail_rel(j, j->u0 + j->c * (0.5 * (ev - iv)), j->joint ? &sf : NULL) * w;
  if (isnan(*t))
    return 0;
  if (phase == GHMIX_DE_LEFT || phase == GHMIX_DE_RIGHT)
    j->walk_last[phase == GHMIX_DE_RIGHT] = *t;
  if (j->joint)
    tail_joint_add(j, v, phase, *t, sf * w);
  return 1;
}

/* log of the shortfall's integral from a joint job's sums, given lF, the
 * CDF's: NaN unless the shortfall's terms pass the tests that end
 * de_quad.c's walks and halvings (their tails may be heavier). */
static double tail_joint_log_sf(const tail_job *j, double lF) {
  double s = j->sf_sum, s1 = j->sf_level[1], s0 = j->sf_level[0];
  double delta = fabs(s - 2.0 * s1) / s;
  double delta_prev = s0 > 0 ? fabs(s1 - 2.0 * s0) / s1 : 1.0;
  if (!(j->sf_edge[0] <= 1e-20 * s && j->sf_edge[1] <= 1e-20 * s) ||
      !(s1 > 0) || !ghmix_de_converged(delta, delta_prev))
    return NAN;
  return lF + log(s / j->cdf_sum) + 0.5 * j->gig->lm;
}

/* The peak u0 of the log integrand, from u = 0 (the mode of U) uphill in
 * steps doubling from s0, then by golden-section search. */
static double tail_peak(const tail_job *j, double s0) {
  const double gr = 0.38196601125010515; /* (3 - sqrt(5)) / 2 */
  double lo, hi, x1, x2, f1, f2, step = s0, l0 = tail_log(j, 0.0);
  int dir, k;
  if (tail_log(j, step) > l0)
    dir = 1;
  else if (tail_log(j, -step) > l0)
    dir = -1;
  else
    return 0.0;
  lo = 0.0;
  hi = dir * step;
  for (k = 0; k < 80; k++) {
    double lh = tail_log(j, hi);
    if (!(lh > l0))
      break;
    l0 = lh;
    lo = hi - dir * step;
    step *= 2.0;
    hi += dir * step;
  }
  if (lo > hi) {
    x1 = lo;
    lo = hi;
    hi = x1;
  }
  x1 = lo + gr * (hi - lo);
  x2 = hi - gr * (hi - lo);
  f1 = tail_log(j, x1);
  f2 = tail_log(j, x2);
  for (k = 0; k < 100 && hi - lo > 1e-2 * s0; k++) {
    if (f1 >= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = lo + gr * (hi - lo);
      f1 = tail_log(j, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = hi - gr * (hi - lo);
      f2 = tail_log(j, x2);
    }
  }
  return 0.5 * (lo + hi);
}

/* The width 1 / sqrt(-L'') of the peak from a second difference, within
 * [1e-3, 10] times s0. */
static double tail_width(const tail_job *j, double s0) {
  double e = 0.05 * s0, l0 = tail_log(j, j->u0);
  double d2 =
      (tail_log(j, j->u0 + e) - 2.0 * l0 + tail_log(j, j->u0 - e)) / (e * e);
  double c = d2 < 0 ? 1.0 / sqrt(-d2) : s0;
  if (!(c >= 1e-3 * s0))
    c = 1e-3 * s0;
  if (!(c <= 10.0 * s0))
    c = 10.0 * s0;
  return c;
}

/* The trapezoid sum of step h over the nodes walked out from v = 0 until a
 * term is negligible: a cheaper, unverified estimate (NaN at a node that
 * is not representable). */
static double tail_fixed_step(tail_job *j, double h) {
  double sum, t;
  int side, k;
  if (!tail_term(j, 0.0, GHMIX_DE_CENTRE, &sum))
    return NAN;
  for (side = -1; side <= 1; side += 2) {
    for (k = 1; k * h <= RISK_VMAX; k++) {
      if (!tail_term(j, side * k * h, GHMIX_DE_REFINE, &t))
        return NAN;
      sum += t;
      if (t <= RISK_NEGLIGIBLE * sum)
        break;
    }
  }
  return sum * h;
}

/* log of the integral of kind at zq, by the adaptive rule (step 0) or the
 * fixed step h = step; *u0 and *c: the centre and width of the map, found
 * here when *c is not positive, else used as they are (a nearby zq's).
 * log_sf (TAIL_CDF by the adaptive rule, or NULL): log E[(zq - Z)^+] from
 * the same nodes, the shortfall's sum over the CDF's times the CDF. */
static double tail_log_integral(const ghmix_gig *gig, double g, double zq,
                                tail_kind kind, double step, double *u0,
                                double *c, double *log_sf) {
  tail_job j;
  ghmix_de_integrand in = {tail_term, NULL, NULL, NULL, RISK_VMAX, RISK_VMAX};
  double w = gig->alpha + gig->beta, s0 = w > 1e-4 ? 1.0 / sqrt(w) : 100.0;
  double sum;
  j.gig = gig;
  j.g = g;
  j.zq = zq;
  j.kind = kind;
  j.joint = log_sf != NULL;
  j.cdf_sum = j.sf_sum = j.sf_level[0] = j.sf_level[1] = 0.0;
  j.sf_edge[0] = j.sf_edge[1] = INFINITY;
  j.v_last = INFINITY;
  j.walk_last[0] = j.walk_last[1] = 0.0;
  if (log_sf != NULL)
    *log_sf = NAN;
  if (*c > 0) {
    j.u0 = *u0;
    j.c = *c;
  } else {
    j.u0 = 0.0;
    j.u0 = tail_peak(&j, s0);
    j.c = tail_width(&j, s0);
    *u0 = j.u0;
    *c = j.c;
  }
  j.log_ref = tail_log(&j, j.u0);
  if (!isfinite(j.log_ref))
    return j.log_ref == -INFINITY ? -INFINITY : NAN;
  in.ctx = &j;
  sum = step > 0 ? tail_fixed_step(&j, step) : ghmix_de_integrate(&in);
  /* terms are at most about cosh(v) relative to the peak: a huge sum
   * means the search missed the peak (a law beyond the method's reach) */
  if (!(sum <= 1e100))
    return NAN;
  /* a walk that reached the end of the map before its terms became
   * negligible (a power tail of Y too slow for it: a moment next to
   * infinite) has no estimate */
  if (step <= 0 &&
      !(fmax(j.walk_last[0], j.walk_last[1]) <= 1e-12 * sum / GHMIX_DE_STEP))
    return NAN;
  sum = j.log_ref - gig->log_j + log(j.c) + log(sum);
  if (log_sf != NULL)
    *log_sf = tail_joint_log_sf(&j, sum);
  return sum;
}

/* A valid GIG within the method's reach. */
static int risk_gig_ok(const ghmix_gig *gig) {
  return gig->kind != GHMIX_GIG_KIND_INVALID && gig->m_ok &&
         fabs(gig->lm) <= RISK_LM_MAX && gig->alpha + gig->beta <= 1e100;
}

/* Whether E[(zq - Z)^+] (kind TAIL_SHORTFALL) or E[Y 1{Z <= zq}]
 * (TAIL_Y_MASS) is infinite.  Only for an inverse-gamma Y (a = 0, density
 * ~ y^(p-1) for large y; a > 0 cuts the tail off by exp(-a y / 2)), where
 * z = zq / sqrt(y) - g sqrt(y): for g = 0, z -> 0, sqrt(y) psi(z) ~
 * sqrt(y) phi(0) and Phi(z) -> 1/2: the shortfall is infinite iff p >=
 * -1/2 (a symmetric t with at most 1 degree of freedom), the y mass iff p
 * >= -1; for g < 0 (the heavy side) sqrt(y) psi(z) ~ -g y and Phi(z) ->
 * 1: both iff p >= -1 (at most 2 degrees of freedom); for g > 0 (the light
 * side) both terms fall as exp(-g^2 y / 2): never. */
static int tail_infinite(const ghmix_gig *gig, double g, tail_kind kind) {
  double limit = kind == TAIL_SHORTFALL && g == 0 ? -0.5 : -1.0;
  return gig->kind == GHMIX_GIG_KIND_INVGAMMA && g <= 0 && gig->p >= limit;
}

static double tail_integral(const ghmix_gig *gig, double g, double zq,
                            tail_kind kind, const double *map) {
  double u0 = map != NULL ? map[0] : 0.0, c = map != NULL ? map[1] : 0.0;
  if (tail_infinite(gig, g, kind))
    return INFINITY; /* (before a quadrature of a divergent integral) */
  return exp(tail_log_integral(gig, g, zq, kind, 0.0, &u0, &c, NULL));
}

void ghmix_gh1_tail_moments(const ghmix_gig *gig, double g, double zq,
                            const double *map, double *shortfall,
                            double *y_mass) {
  int ok = risk_gig_ok(gig) && isfinite(g) && isfinite(zq);
  *shortfall = ok ? tail_integral(gig, g, zq, TAIL_SHORTFALL, map) : NAN;
  if (y_mass != NULL)
    *y_mass = ok ? tail_integral(gig, g, zq, TAIL_Y_MASS, map) : NAN;
}

/* ---------------------------------------------------------------------- */
/* The quantile                                                             */

/* Newton's step from z on log F - log alpha = r (log F = lF, the slope
 * f / F from the density), within the bracket (lo, hi): else bisection,
 * or a move outward by max(1, 2 |z|) while the bracket is open. */
static double newton_step(const ghmix_gh1 *h, double z, double r, double lF,
                          double lo, double hi) {
  double zn = z - r * exp(lF - ghmix_gh1_logpdf(h, z));
  if (zn >= lo && zn <= hi) /* (zn = z: a step below rounding) */
    return zn;
  if (isfinite(lo) && isfinite(hi))
    return 0.5 * (lo + hi);
  return z + (r < 0 ? -1.0 : 1.0) * fmax(1.0, 2.0 * fabs(z));
}

/* E[(z + dz - Z)^+] = E[(z - Z)^+] + dz F(z) + dz^2 f / 2 + ..., from the
 * logs lsf and lF of the first two at z, after Newton's step dz on the
 * residual r = log F - la (dz f = -r F); NaN when dz^2 f / 2 is not
 * negligible. */
static double root_shortfall(double dz, double r, double lF, double lsf) {
  double f_dz2 = fabs(dz * r) * exp(lF);
  if (!(f_dz2 <= 1e-17 * exp(lsf)))
    return NAN;
  return exp(lsf) + dz * exp(lF);
}

/* Newton's method on log F(z) - la from z (F from the mixture integral,
 * the slope f / F from the density), safeguarded by a bracket, with the
 * rules from `rule` on: a fixed-step rule until its step is below its
 * tolerance, then the next rule from there (a bracket of its own); the
 * adaptive rule last, to the root (as a whole Newton's method before).  NaN
 * when a fixed-step rule fails (a failed integral, F >= 1 or too many steps) or
 * there is no convergence. The map of an integral is kept while z moves by less
 * than a fraction of its own size (the fixed steps need a map close to the
 * peak).  sf (or NULL): E[(root - Z)^+] from the last integral's nodes, NaN
 * where root_shortfall cannot give it. */
static double quantile_newton(const ghmix_gig *gig, const ghmix_gh1 *h,
                              double g, double la, double z, int rule,
                              double map[2], double *sf) {
  static const double rule_step[RISK_RULES] = {0.25, 0.125, 0.0};
  /* a fixed-step rule hands over after a step below its tolerance: the
   * point after it is within about the square of it (1e-10 after 1e-5,
   * where the adaptive rule's first step is its last) */
  static const double rule_tol[RISK_RULES] = {1e-2, 1e-5, 1e-8};
  static const double rule_keep[RISK_RULES] = {0.1, 0.1, 0.5};
  double lo = -INFINITY, hi = INFINITY, u0 = map[0], c = map[1], z_map = z;
  int k, k_rule = 0;
  if (sf != NULL)
    *sf = NAN;
  for (k = 0; k < RISK_NEWTON_MAX; k++) {
    double lF, r, zn, lsf = NAN;
    int last = rule == RISK_RULES - 1, done, tight;
    if (fabs(z - z_map) > rule_keep[rule] * fmax(1.0, fabs(z_map)))
      c = 0.0;
    if (!(c > 0))
      z_map = z;
    lF = tail_log_integral(gig, g, z, TAIL_CDF, rule_step[rule], &u0, &c,
                           last && sf != NULL ? &lsf : NULL);
    map[0] = u0;
    map[1] = c;
    if (!(lF <= 1e-12) || (!last && (lF >= 0 || ++k_rule > RISK_RULE_STEPS)))
      return NAN;
    r = lF - la;
    if (r == 0 && last) {
      if (sf != NULL)
        *sf = exp(lsf);
      return z;
    }
    if (r < 0)
      lo = z;
    else
      hi = z;
    zn = newton_step(h, z, r, lF, lo, hi);
    /* (converging quadratically: the error after a step of 1e-8 is
     * O(1e-16)) */
    done = fabs(zn - z) <= rule_tol[rule] * fmax(1.0, fabs(z));
    if (last && done) {
      if (sf != NULL)
        *sf = root_shortfall(zn - z, r, lF, lsf);
      return fabs(r) <= 1e-6 ? zn : NAN;
    }
    tight = isfinite(lo) && isfinite(hi) && hi - lo <= 1e-15 * fabs(lo);
    if (last && tight)
      return zn;
    if (done || tight) {
      rule++;
      k_rule = 0;
      lo = -INFINITY;
      hi = INFINITY;
    }
    z = zn;
  }
  return NAN; /* (no convergence: the law is beyond the quadrature) */
}

/* The lower-tail quantile for log alpha = la <= log(1/2), from the normal
 * approximation at the GIG's scale: by the fixed-step rules first, so
 * that usually one adaptive integral confirms the root, else by the
 * adaptive rule only. */
static double quantile_lower(const ghmix_gig *gig, const ghmix_gh1 *h, double g,
                             double la, double map[2], double *sf) {
  double y0 = gig->m, z0 = y0 * g - sqrt(y0) * sqrt(-2.0 * la), z;
  map[0] = map[1] = 0.0;
  z = quantile_newton(gig, h, g, la, z0, 0, map, sf);
  if (!isnan(z))
    return z;
  map[0] = map[1] = 0.0;
  return quantile_newton(gig, h, g, la, z0, RISK_RULES - 1, map, sf);
}

double ghmix_gh1_risk_quantile(const ghmix_gig *gig, double g, double alpha,
                               double map[2], double *shortfall) {
  ghmix_gh1 h;
  int upper = alpha > 0.5;
  double unused[2];
  map = map != NULL ? map : unused;
  map[1] = 0.0;
  if (shortfall != NULL)
    *shortfall = NAN;
  if (!(alpha > 0 && alpha < 1) || !isfinite(g) || !risk_gig_ok(gig))
    return NAN;
  /* the upper tail of Z is the lower tail of -Z = Y (-g) + sqrt(Y) (-N) */
  if (upper)
    g = -g;
  if (!ghmix_gh1_init_density(gig->p, gig->a, gig->b, g, &h))
    return NAN;
  if (upper) {
    double z = -quantile_lower(gig, &h, g, log1p(-alpha), map, NULL);
    map[1] = 0.0; /* (the map of -Z's lower tail, no hint for Z's) */
    return z;
  }
  {
    double z = quantile_lower(gig, &h, g, log(alpha), map, shortfall);
    if (shortfall != NULL && tail_infinite(gig, g, TAIL_SHORTFALL))
      *shortfall = INFINITY;
    return z;
  }
}
