/* The inverse map eta -> (p, a, b) of the GIG expectation parameters
 * (gig_moments.h has the forward map and the notation: Z ~ GIG(p, w, w),
 * Ru, Rd, D, and the coordinates phi = (p, omega = log w, sigma = log s)).
 *
 * The inverse map.  With eta = (L, V, U) = (E log Y, E 1/Y, E Y), the scale
 * drops out of two combinations,
 *
 *   lm = log(U V)              = log Ru + log Rd             =: G1(p, w)
 *   l  = L - (log U - log V)/2 = D - (log Ru - log Rd) / 2   =: G2(p, w)
 *
 * (this is the rescaling of DESIGN.md section 2: Y / sqrt(U/V) has
 * E Y = E 1/Y), and sigma = (log U - log V)/2 - (log Ru - log Rd)/2 once
 * (p, w) is known.  So the solve is Newton's method on the 2 x 2 system
 * G(p, omega) = (lm, l), whose residuals are exactly the relative residuals
 * of the moment equations (r1 / 2 in E 1/Y and in E Y, r2 in E log Y), with
 * a backtracking line search on |r|^2 and capped steps.  The Jacobian of G
 * is analytic (from ghmix_gig_unit_eval).
 * G1 is even and G2 odd in p, so the solve runs with l >= 0 (p >= 0 at the
 * solution) and mirrors (Y -> 1/Y: p -> -p, a <-> b) otherwise.  The
 * omega-part of each step is taken in w^k / k, k the local power law of G
 * in w (see gs_newton), so that steps do not overshoot where G depends on
 * w exponentially in omega (near the gamma limit).  Cold starts come from
 * asymptotic forms of the map in its regimes (gs_starts: Laplace's method
 * for large sqrt(p^2 + w^2), first-order perturbation of the gamma near
 * b = 0, two-term small-w forms of K_p for |p| < 2); the one with the
 * smallest residual goes first, the others are fallbacks.  Typically 1 to
 * 5 Newton steps; the iteration stops when a step no longer reduces the
 * residual (its noise floor), so the result is as accurate as the Bessel
 * function allows, not just within tol.
 *
 * Feasibility.  A distribution on (0, inf) with these moments exists iff
 * U V > 1 and -log V < L < log U (Jensen; the three inequalities are sharp:
 * the convex hull of the curve t(y)).  But the GIG family is not steep: its
 * boundary members gamma (b = 0, p > 1) and inverse gamma (a = 0, p < -1)
 * have finite moments, and the interior family (a, b > 0) covers only the
 * part of that set between them.  In the scale-free coordinates (lm, l):
 * the gamma curve is p_g = 1 / (1 - exp(-lm)), l = lm/2 + psi(p_g) -
 * log(p_g), the inverse-gamma curve its mirror image l -> -l, and
 * a, b > 0 solve the equations exactly when l lies strictly between them.
 * Beyond the gamma curve (still inside Jensen) the maximiser of
 * <theta, eta> - A(theta) over the closed parameter set (the M-step's
 * answer) is the gamma that matches E log Y and E Y, whose E 1/Y is below
 * the given one; symmetrically for the inverse gamma.  We return those
 * limits: note GHMIX_GIG_NOTE_GAMMA (INVGAMMA) when eta is on the curve to
 * rounding, GHMIX_GIG_NOTE_GAMMA_MLE (INVGAMMA_MLE) when beyond it.  The gamma
 * shape comes from psi(p) - log p = L - log U (the gamma's MLE equation).
 *
 * Condition number.  The 2-norm of
 *   diag(1/max(1,|p|), 1/a, 1/b) * d(p,a,b)/d(eta) * diag(max(1,|L|), V, U),
 * i.e. how much a relative change of E 1/Y or E Y (an absolute change of
 * E log Y, relative when |E log Y| > 1) moves p / max(1,|p|), log a and
 * log b.  At a boundary point the Jacobian is that of the limit family
 * (b or a held at 0; its row is 0); on the boundary the condition number is
 * Inf (any change of eta moves b off 0), beyond it that of the limit family. */
#include "gig_solve.h"

#include <float.h>
#include <math.h>

#define GS_EPS DBL_EPSILON
#define GS_EULER 0.57721566490153286061

GHMIX_HD void ghmix_gig_solve_control_init(ghmix_gig_solve_control *ctrl) {
  ctrl->max_iter = 100;
  ctrl->tol = 1e-12;
  ctrl->has_start = 0;
  ctrl->start_p = ctrl->start_a = ctrl->start_b = NAN;
  ctrl->want_jacobian = 0;
}

/* ---------------------------------------------------------------------- */
/* Feasibility and the boundary limits                                      */

/* log(u v) for u, v > 0 without overflow, and with relative accuracy of
 * u v - 1 near 1 (no cancellation of log u + log v). */
GHMIX_INLINE double gs_log_product(double u, double v) {
  int eu, ev, k;
  double prod = frexp(u, &eu) * frexp(v, &ev);
  k = eu + ev;
  if (k >= -4 && k <= 4)
    return log(ldexp(prod, k));
  return log(prod) + k * 0.69314718055994530942;
}

typedef struct {
  double L, lV, lU; /* E log Y, log E 1/Y, log E Y */
  double lm;        /* log(E Y E 1/Y) */
  double c_up;      /* L - log U < 0 */
  double c_dn;      /* L + log V > 0 */
  double sl;        /* scale of E log Y residuals: max(1, |L|) */
} gs_target;

GHMIX_INLINE int gs_target_init(const double eta[3], gs_target *t) {
  double L = eta[0], V = eta[1], U = eta[2];
  if (!(isfinite(L) && isfinite(V) && isfinite(U)) || !(V > 0) || !(U > 0))
    return -1;
  t->L = L;
  t->lV = log(V);
  t->lU = log(U);
  t->lm = gs_log_product(U, V);
  t->c_up = L - t->lU;
  t->c_dn = L + t->lV;
  t->sl = fmax(1.0, fabs(L));
  if (!(t->lm > 0))
    return GHMIX_GIG_INFEASIBLE_PRODUCT;
  if (!(t->c_up < 0))
    return GHMIX_GIG_INFEASIBLE_UPPER;
  if (!(t->c_dn > 0))
    return GHMIX_GIG_INFEASIBLE_LOWER;
  return GHMIX_GIG_INFEASIBLE_NONE;
}

GHMIX_HD int ghmix_gig_feasibility(const double eta[3]) {
  gs_target t;
  return gs_target_init(eta, &t);
}

/* Largest eigenvalue of a symmetric 3 x 3 matrix (row-major), by the
 * trigonometric solution of the characteristic cubic. */
GHMIX_INLINE double gs_sym3_max_eig(const double m[9]) {
  double q = (m[0] + m[4] + m[8]) / 3.0;
  double p1 = m[1] * m[1] + m[2] * m[2] + m[5] * m[5];
  double d0 = m[0] - q, d1 = m[4] - q, d2 = m[8] - q, p2, pp, r, phi, det;
  p2 = d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1;
  if (!(p2 > 0))
    return q;
  pp = sqrt(p2 / 6.0);
  /* det((m - q I) / pp) / 2 */
  det = d0 * (d1 * d2 - m[5] * m[5]) - m[1] * (m[1] * d2 - m[5] * m[2]) +
        m[2] * (m[1] * m[5] - d1 * m[2]);
  r = det / (2.0 * pp * pp * pp);
  if (r <= -1)
    phi = 3.14159265358979323846 / 3.0;
  else if (r >= 1)
    phi = 0;
  else
    phi = acos(r) / 3.0;
  return q + 2.0 * pp * cos(phi);
}

/* 2-norm of a 3 x 3 matrix (row-major). */
GHMIX_INLINE double gs_norm2(const double c[9]) {
  double m[9], scale = 0;
  int i, j, k;
  for (i = 0; i < 9; i++)
    scale = fmax(scale, fabs(c[i]));
  if (!(scale > 0))
    return scale == 0 ? 0.0 : NAN;
  if (!isfinite(scale))
    return INFINITY;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double s = 0;
      for (k = 0; k < 3; k++)
        s += (c[3 * k + i] / scale) * (c[3 * k + j] / scale);
      m[3 * i + j] = s;
    }
  return scale * sqrt(fmax(0.0, gs_sym3_max_eig(m)));
}

/* Fill out from the relative sensitivities rel (rows p / max(1,|p|),
 * log a, log b; columns L / max(1,|L|), log V, log U). */
GHMIX_INLINE void gs_finish_jacobian(const double rel[9], const gs_target *t,
                                     int want, ghmix_gig_solution *out) {
  int i;
  out->condition = gs_norm2(rel);
  if (!want) {
    for (i = 0; i < 9; i++)
      out->jacobian[i] = NAN;
    return;
  }
  {
    double rs[3], cs[3];
    rs[0] = fmax(1.0, fabs(out->p));
    rs[1] = out->a;
    rs[2] = out->b;
    cs[0] = t->sl;
    cs[1] = exp(t->lV);
    cs[2] = exp(t->lU);
    for (i = 0; i < 9; i++)
      out->jacobian[i] = rel[i] * rs[i / 3] / cs[i % 3];
  }
}

/* The gamma limit matching E log Y and E Y (mirror = 0), or the inverse
 * gamma matching E log Y and E 1/Y (mirror = 1), with shape pg. */
GHMIX_INLINE void gs_limit(const gs_target *t, double pg, double lmg,
                           int mirror, int on_boundary, int want,
                           ghmix_gig_solution *out) {
  double rel[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  double dp = ghmix_gamma_shape_deriv(pg); /* d pg / d c */
  double c = mirror ? -t->c_dn : t->c_up;
  double res = fabs(ghmix_psi_minus_log(pg) - c) / t->sl;
  if (on_boundary)
    res = fmax(res, 0.5 * fabs(expm1(lmg - t->lm)));
  out->converged = 1;
  out->iterations = 0;
  out->grad_norm = res;
  if (!mirror) {
    /* p = pg(L - log U), a = 2 p / U, b = 0 */
    out->p = pg;
    out->a = 2.0 * pg / exp(t->lU);
    out->b = 0.0;
    out->note = on_boundary ? GHMIX_GIG_NOTE_GAMMA : GHMIX_GIG_NOTE_GAMMA_MLE;
    rel[0] = dp * t->sl / fmax(1.0, pg);
    rel[2] = -dp / fmax(1.0, pg);
    rel[3] = dp * t->sl / pg;
    rel[5] = -dp / pg - 1.0;
  } else {
    /* q = pg(-(L + log V)), p = -q, b = 2 q / V, a = 0 */
    out->p = -pg;
    out->a = 0.0;
    out->b = 2.0 * pg / exp(t->lV);
    out->note =
        on_boundary ? GHMIX_GIG_NOTE_INVGAMMA : GHMIX_GIG_NOTE_INVGAMMA_MLE;
    /* dq/dL = -dp, dq/dlogV = -dp; p = -q */
    rel[0] = dp * t->sl / fmax(1.0, pg);
    rel[1] = dp / fmax(1.0, pg);
    rel[6] = -dp * t->sl / pg;
    rel[7] = -dp / pg - 1.0;
  }
  gs_finish_jacobian(rel, t, want, out);
  if (on_boundary) /* b (a) moves off 0 under any change of eta */
    out->condition = INFINITY;
}

/* Checks the gamma (and inverse gamma) regions; returns 1 when out is
 * filled with a limit. */
GHMIX_INLINE int gs_try_limits(const gs_target *t, int want,
                               ghmix_gig_solution *out) {
  int mirror;
  for (mirror = 0; mirror < 2; mirror++) {
    /* the matched (inverse) gamma has shape pg > 1 iff c > -gamma */
    double c = mirror ? -t->c_dn : t->c_up, pg, lmg, tolb;
    if (!(c > -GS_EULER))
      continue;
    pg = ghmix_gamma_shape_mle(c);
    lmg = -log1p(-1.0 / pg);
    /* rounding in lm, and in c as amplified by d lmg / d c =
     * 1 / ((p - 1)(p psi'(p) - 1)) */
    tolb = 4.0 * GS_EPS * (1.0 + t->lm) +
           4.0 * GS_EPS * (1.0 + fabs(t->L) + fabs(mirror ? t->lV : t->lU)) /
               ((pg - 1.0) * ghmix_xtrigamma_m1(pg));
    if (t->lm >= lmg - tolb) {
      gs_limit(t, pg, lmg, mirror, t->lm <= lmg + tolb, want, out);
      return 1;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------------- */
/* The interior solve                                                       */

#define GS_OMEGA_MIN (-705.0) /* w in about [1e-306, 1e306] */
#define GS_OMEGA_MAX 705.0

/* Residuals of the scale-free equations at e: r[0] = G1 - lm (relative
 * error of E Y E 1/Y), r[1] = G2 - l (error of E log Y). */
GHMIX_INLINE void gs_residual(const ghmix_gig_unit *e, double lm, double l,
                              double r[2]) {
  r[0] = (e->lru + e->lrd) - lm;
  r[1] = (e->d - 0.5 * (e->lru - e->lrd)) - l;
}

/* Largest relative residual of the moment equations. */
GHMIX_INLINE double gs_rho(const double r[2], double sl) {
  return fmax(0.5 * fabs(r[0]), fabs(r[1]) / sl);
}

/* The line-search merit: both residuals are scale-free (the scale of Y
 * only enters the convergence test through max(1, |E log Y|)). */
GHMIX_INLINE double gs_merit(const double r[2]) {
  return 0.25 * r[0] * r[0] + r[1] * r[1];
}

/* The reduced Jacobian d(G1, G2) / d(p, omega). */
GHMIX_INLINE void gs_jac(const ghmix_gig_unit *e, double j[4]) {
  j[0] = e->lru_p + e->lrd_p;
  j[1] = e->lru_w + e->lrd_w;
  j[2] = e->d_p - 0.5 * (e->lru_p - e->lrd_p);
  j[3] = e->d_w - 0.5 * (e->lru_w - e->lrd_w);
}

#define GS_NSTART 4

/* The concentrated regime: with rho = sqrt(p^2 + w^2) and beta = p / rho,
 * log Z - mode has density proportional to exp(-rho (cosh y - 1) - p (sinh y
 * - y)), and Laplace's method (Gaussian moments of y sqrt(rho), by computer
 * algebra; checked against mpmath, and against the gamma at beta = 1) gives
 *   lm = 1/rho + (beta^2 - 1/2)/rho^2 + (25 beta^4/8 - 13 beta^2/4 + 11/24)
 *        / rho^3 + (15 beta^6 - 191 beta^4/8 + 39 beta^2/4 - 5/8) / rho^4,
 *   l  = beta/(6 rho^2) + (2 beta^3/3 - beta/2)/rho^3 + (175 beta^5/48
 *        - 39 beta^3/8 + 109 beta/80)/rho^4,
 * to O(rho^-5) (relative errors 1e-4 in lm and 2e-2 in l at rho = 10).
 * Newton's method on this model gives (p, w); returns 0 when it does not
 * settle on rho > 2 and 0 <= beta < 1. */
GHMIX_INLINE int gs_concentrated(double lm, double l, double *p, double *w) {
  double rho = 1.0 / lm, beta = 6.0 * l * rho * rho;
  int it;
  if (beta > 0.99)
    beta = 0.99;
  for (it = 0; it < 8; it++) {
    double e = 1.0 / rho, e2 = e * e, e3 = e2 * e, e4 = e2 * e2;
    double b2 = beta * beta, b3 = b2 * beta, b4 = b2 * b2, b5 = b4 * beta;
    double c3 = 25.0 / 8 * b4 - 13.0 / 4 * b2 + 11.0 / 24;
    double c4 = 15.0 * b4 * b2 - 191.0 / 8 * b4 + 39.0 / 4 * b2 - 5.0 / 8;
    double d3 = 2.0 / 3 * b3 - 0.5 * beta;
    double d4 = 175.0 / 48 * b5 - 39.0 / 8 * b3 + 109.0 / 80 * beta;
    double f1 = e + (b2 - 0.5) * e2 + c3 * e3 + c4 * e4 - lm;
    double f2 = beta / 6 * e2 + d3 * e3 + d4 * e4 - l;
    /* derivatives in e = 1/rho and in beta */
    double f1e = 1.0 + 2.0 * (b2 - 0.5) * e + 3.0 * c3 * e2 + 4.0 * c4 * e3;
    double f1b = 2.0 * beta * e2 + (12.5 * b3 - 6.5 * beta) * e3 +
                 (90.0 * b5 - 95.5 * b3 + 19.5 * beta) * e4;
    double f2e = beta / 3 * e + 3.0 * d3 * e2 + 4.0 * d4 * e3;
    double f2b = e2 / 6 + (2.0 * b2 - 0.5) * e3 +
                 (875.0 / 48 * b4 - 117.0 / 8 * b2 + 109.0 / 80) * e4;
    double det = f1e * f2b - f1b * f2e, de, db;
    if (!(det != 0 && isfinite(det)))
      return 0;
    de = -(f2b * f1 - f1b * f2) / det;
    db = -(-f2e * f1 + f1e * f2) / det;
    e += de;
    beta += db;
    if (!(e > 0 && e < 0.5))
      return 0;
    if (beta < 0)
      beta = 0;
    if (beta > 0.999)
      beta = 0.999;
    rho = 1.0 / e;
  }
  *p = beta * rho;
  *w = rho * sqrt((1.0 - beta) * (1.0 + beta));
  return 1;
}

/* Cold starts for l >= 0, from asymptotic forms of the map (p, w) ->
 * (lm, l) in its regimes; writes up to GS_NSTART candidates (p, omega) and
 * returns their number.  The solver keeps the one with the smallest
 * residual and falls back on the others. */
GHMIX_INLINE int gs_starts(double lm, double l, double c_up, double *ps,
                           double *oms) {
  double pg = -1.0 / expm1(-lm); /* gamma shape on the boundary at this lm */
  double lg = 0.5 * lm + ghmix_psi_minus_log(pg); /* its l */
  double tt = l / lg, pc = ghmix_gamma_shape_mle(c_up), m = exp(lm), w;
  int n = 0;
  if (tt > 0.999999)
    tt = 0.999999;
  if (tt < 0)
    tt = 0;

  /* 1. concentrated (large rho = sqrt(p^2 + w^2)): log Z is nearly normal
   * with variance 1/rho; see gs_concentrated.  Cruder for small rho:
   * p ~ t p_g, w ~ sqrt(rho^2 - p^2) */
  if (lm < 0.5 && gs_concentrated(lm, l, &ps[n], &w)) {
    oms[n++] = log(fmax(w, 1e-300));
  } else {
    ps[n] = tt * pg;
    w = (lm < 1.0 ? 1.0 / lm - 0.5 : 0.5 / lm) * sqrt(1.0 - tt * tt);
    oms[n++] = log(fmax(w, 1e-300));
  }

  /* 2. near the gamma boundary (b -> 0 at fixed p): to first order in
   * eps = w^2/4, c_up = f(p) + eps / (p (p-1)^2) and lm = -log(1 - 1/p)
   * - 2 eps / (p (p-1) (p-2)) for p > 2, with f(p) = psi(p) - log p (from
   * d eta / d theta_2 = Cov(t(Y), 1/Y) of the gamma); for 1 < p < 2 the
   * leading term is E 1/Y's relative drop |Gamma(1-p)|/Gamma(p-1)
   * (w/2)^(2p-2). */
  if (pc > 1.0) {
    double gap = -log1p(-1.0 / pc) - lm, eps = INFINITY, pn = pc;
    if (gap > 0 && pc > 2.05) {
      double fp = ghmix_xtrigamma_m1(pc) / pc; /* f'(p) = psi'(p) - 1/p */
      double pm1 = pc - 1.0;
      double k = 2.0 / (pc * pm1 * (pc - 2.0)) -
                 1.0 / (pc * pc * pm1 * pm1 * pm1 * fp);
      if (k > 0) {
        eps = gap / k;
        pn = pc - eps / (pc * pm1 * pm1 * fp);
      }
    } else if (gap > 0 && pc > 1.5 && pc < 2.0) {
      double lga = ghmix_lgamma_ratio(1.0, pc - 2.0); /* log Gamma(pc - 1) */
      /* log |Gamma(1 - pc)| = log Gamma(2 - pc) - log(pc - 1) */
      double lgb = ghmix_lgamma_ratio(1.0, 1.0 - pc) - log(pc - 1.0);
      double hw = exp((log(gap) + lga - lgb) / (2.0 * (pc - 1.0)));
      eps = hw * hw;
    }
    if (eps < 0.05 * pc * pc && pn > 1.0) {
      ps[n] = pn;
      oms[n++] = log(fmax(2.0 * sqrt(eps), 1e-300));
    }
  }

  /* 3. small w, p near 1 (0.5 < p < 1.5): with X = log(2/w), mu = p - 1,
   * E Z ~ 2p/w and K_mu / K_p ~ (1 - R e^(-2 mu X)) / (mu e^X) with
   * R = Gamma(1 - mu) / Gamma(1 + mu), so m ~ (p/mu) (1 - R e^(-2 mu X))
   * (the gamma's p/(p-1) as X -> inf for mu > 0, 2p(X - gamma) at mu = 0),
   * while psi(p) - log p ~ c_up fixes p. */
  if (pc > 0.5 && pc < 1.5) {
    double mu = pc - 1.0, x;
    if (fabs(mu) < 1e-8) {
      x = m / (2.0 * pc) + GS_EULER;
    } else {
      double z = -m * mu / pc, lr;
      lr = ghmix_lgamma_ratio(1.0, -mu) - ghmix_lgamma_ratio(1.0, mu);
      x = z > -1.0 ? (lr - log1p(z)) / (2.0 * mu) : -1.0;
    }
    if (x > 1.0) {
      ps[n] = pc;
      oms[n++] = fmax(log(2.0) - x, GS_OMEGA_MIN);
    }
  }

  /* 4. small w, 0 < p < 1: upper tail gamma-like (psi(p) - log p ~ c_up)
   * and lm ~ 2 (1 - p) log(2/w) + log(p Gamma(1-p) / Gamma(p)) */
  if (lm > 1.0 && pc < 0.98) {
    double lg1 = ghmix_lgamma_ratio(1.0, -pc),
           lg0 = ghmix_lgamma_ratio(1.0, pc);
    double x = (lm - (2.0 * log(pc) + lg1 - lg0)) / (2.0 * (1.0 - pc));
    if (x < 0.7)
      x = 0.7;
    ps[n] = pc;
    oms[n++] = fmax(log(2.0) - x, GS_OMEGA_MIN);
  }
  return n;
}

/* The change of omega for a Newton change d in zeta = w^k / k coordinates
 * (see gs_newton). */
GHMIX_INLINE double gs_omega_step(double k, double d) {
  double z;
  if (k == 0)
    return d;
  z = 1.0 + k * d;
  if (z < 0.05)
    z = 0.05;
  return log(z) / k;
}

/* Newton on G(p, omega) = (lm, l) for l >= 0 (the mirrored frame).  On
 * return *p, *om hold the last iterate and e its evaluation (with
 * derivatives); returns the residual measure rho. */
GHMIX_INLINE double gs_newton(double lm, double l, double sl, double tol,
                              int budget, double *pp, double *pom,
                              ghmix_gig_unit *e, int *iters) {
  double p = *pp, om = *pom, r[2], rho, merit, prev_rho = INFINITY;
  double mark = INFINITY; /* rho at the last check for stagnation */
  int it = 0;
  if (!ghmix_gig_unit_eval(p, exp(om), 1, e)) {
    *iters = 0;
    return INFINITY;
  }
  gs_residual(e, lm, l, r);
  rho = gs_rho(r, sl);
  merit = gs_merit(r);
  for (;;) {
    double j[4], det, dp, dom, k, alpha;
    double floor = 4.0 * GS_EPS; /* below: nothing left to gain */
    int ok = 0, ls;
    if (rho <= floor)
      break;
    if (rho <= tol && rho > 0.1 * prev_rho)
      break; /* at the noise floor: Newton no longer gains */
    if (it >= budget)
      break;
    if (it % 10 == 0) { /* give up when 10 steps did not halve rho */
      if (it > 0 && rho > 0.5 * mark)
        break;
      mark = rho;
    }
    gs_jac(e, j);
    det = j[0] * j[3] - j[1] * j[2];
    if (!(isfinite(det) && det != 0))
      break;
    dp = -(j[3] * r[0] - j[1] * r[1]) / det;
    dom = -(-j[2] * r[0] + j[0] * r[1]) / det;
    /* Take the omega part of the step in zeta = w^k / k, where k is the
     * local power law of G in w: 2 near the gamma limit (G - G_gamma ~ w^2,
     * w^(2(p-1)) for 1 < p < 2), 0 for small w and |p| < 1 (G ~ log w),
     * -1 for large w (G ~ 1/w), blended through rho^2 = max(1,|p|)^2 + w^2.
     * The trial points p + alpha dp, omega + log(1 + k alpha dom) / k are
     * Newton's method in (p, zeta), a path whose tangent at alpha = 0 is
     * the Newton direction in (p, omega); it does not overshoot where G is
     * exponential in omega. */
    {
      double nu = fabs(p), w = exp(om), c2 = fmax(1.0, nu) * fmax(1.0, nu);
      double ks = nu > 2.0 ? 2.0 : (nu > 1.0 ? 2.0 * (nu - 1.0) : 0.0);
      k = (ks * c2 - w * w) / (c2 + w * w);
      if (fabs(k) < 1e-3)
        k = 0;
    }
    /* caps: w changes by at most e^3, p by at most 1 + |p| */
    alpha = 1.0;
    if (fabs(dp) > 1.0 + fabs(p))
      alpha = (1.0 + fabs(p)) / fabs(dp);
    while (fabs(gs_omega_step(k, alpha * dom)) > 3.0)
      alpha *= 0.5;
    for (ls = 0; ls < 60; ls++) {
      double pt = p + alpha * dp, omt = om + gs_omega_step(k, alpha * dom);
      double rt[2], mt;
      ghmix_gig_unit et;
      if (omt < GS_OMEGA_MIN)
        omt = GS_OMEGA_MIN;
      if (omt > GS_OMEGA_MAX)
        omt = GS_OMEGA_MAX;
      if (ghmix_gig_unit_eval(pt, exp(omt), 1, &et)) {
        gs_residual(&et, lm, l, rt);
        mt = gs_merit(rt);
        if (mt <= (1.0 - 1e-4 * alpha) * merit) {
          p = pt;
          om = omt;
          *e = et;
          r[0] = rt[0];
          r[1] = rt[1];
          merit = mt;
          ok = 1;
          break;
        }
      }
      alpha *= 0.5;
    }
    if (!ok)
      break;
    it++;
    prev_rho = rho;
    rho = gs_rho(r, sl);
  }
  *pp = p;
  *pom = om;
  *iters = it;
  return rho;
}

/* Newton from the warm start (if any) and then from the cold starts in
 * order of their residuals, until one converges; otherwise the attempt with
 * the smallest residual.  Returns rho (Inf when nothing could be evaluated).
 */
GHMIX_INLINE double gs_solve_interior(double lm, double l, double c_up,
                                      double sl,
                                      const ghmix_gig_solve_control *ctrl,
                                      int mirror, double *p_out, double *om_out,
                                      ghmix_gig_unit *e_out, int *iters_out) {
  double ps[GS_NSTART + 1], oms[GS_NSTART + 1], merit[GS_NSTART + 1];
  double best_rho = INFINITY;
  int n = 0, warm = 0, i, tried, total = 0, ranked = 0;
  ghmix_gig_unit e;
  if (ctrl->has_start &&
      ghmix_gig_valid(ctrl->start_p, ctrl->start_a, ctrl->start_b) &&
      ctrl->start_a > 0 && ctrl->start_b > 0) {
    double w0, ls0;
    ghmix_gig_scale(ctrl->start_a, ctrl->start_b, &w0, &ls0);
    ps[0] = mirror ? -ctrl->start_p : ctrl->start_p;
    oms[0] = log(w0);
    warm = n = 1;
  }
  n += gs_starts(lm, l, c_up, ps + n, oms + n);
  /* merit -1: next in line without a look; -2: used */
  for (i = 0; i < n; i++)
    merit[i] = (i < warm || n - warm == 1) ? -1.0 : 0.0;
  for (tried = 0; tried < n; tried++) {
    int best = -1, it;
    double p, om, rho;
    if (tried == warm && !ranked && n - warm > 1) {
      /* rank the cold starts by their residuals (looked at only when a
       * warm start, if any, has failed) */
      for (i = warm; i < n; i++) {
        double r[2];
        merit[i] = INFINITY;
        if (ghmix_gig_unit_eval(ps[i], exp(oms[i]), 0, &e)) {
          gs_residual(&e, lm, l, r);
          if (gs_merit(r) == gs_merit(r))
            merit[i] = gs_merit(r);
        }
      }
      ranked = 1;
    }
    for (i = 0; i < n; i++)
      if (merit[i] >= -1.0 && (best < 0 || merit[i] < merit[best]))
        best = i;
    if (best < 0 || merit[best] == INFINITY)
      break;
    merit[best] = -2.0;
    p = ps[best];
    om = oms[best];
    rho = gs_newton(lm, l, sl, ctrl->tol, ctrl->max_iter - total, &p, &om, &e,
                    &it);
    total += it;
    if (rho < best_rho) {
      best_rho = rho;
      *p_out = p;
      *om_out = om;
      *e_out = e;
    }
    if (rho <= ctrl->tol || total >= ctrl->max_iter)
      break;
  }
  *iters_out = total;
  return best_rho;
}

/* Relative sensitivities (rows p / max(1,|p|), log a, log b; columns
 * L / sl, log V, log U) at the solution e, from the reduced Jacobian:
 *   d(lm) = dlogV + dlogU,  d(l) = dL + (dlogV - dlogU) / 2,
 *   (dp, domega) = Jr^-1 (d lm, d l),
 *   dsigma = (dlogU - dlogV)/2 - (d(lru - lrd)) / 2,
 *   dlog a = domega - dsigma, dlog b = domega + dsigma. */
GHMIX_INLINE int gs_rel_sensitivity(const ghmix_gig_unit *e, double p,
                                    double sl, double rel[9]) {
  double j[4], det, inv[4], y[6], pr[6], hp, hw, srow[3];
  int c;
  gs_jac(e, j);
  det = j[0] * j[3] - j[1] * j[2];
  if (!(isfinite(det) && det != 0))
    return 0;
  inv[0] = j[3] / det;
  inv[1] = -j[1] / det;
  inv[2] = -j[2] / det;
  inv[3] = j[0] / det;
  /* y: d(lm, l) / d(L / sl, log V, log U) */
  y[0] = 0, y[1] = 1, y[2] = 1;
  y[3] = sl, y[4] = 0.5, y[5] = -0.5;
  for (c = 0; c < 3; c++) {
    pr[c] = inv[0] * y[c] + inv[1] * y[3 + c];     /* dp */
    pr[3 + c] = inv[2] * y[c] + inv[3] * y[3 + c]; /* domega */
  }
  hp = e->lru_p - e->lrd_p;
  hw = e->lru_w - e->lrd_w;
  srow[0] = -0.5 * (hp * pr[0] + hw * pr[3]);
  srow[1] = -0.5 - 0.5 * (hp * pr[1] + hw * pr[4]);
  srow[2] = 0.5 - 0.5 * (hp * pr[2] + hw * pr[5]);
  for (c = 0; c < 3; c++) {
    rel[c] = pr[c] / fmax(1.0, fabs(p));
    rel[3 + c] = pr[3 + c] - srow[c];
    rel[6 + c] = pr[3 + c] + srow[c];
  }
  return 1;
}

GHMIX_INLINE void gs_fail(ghmix_gig_solution *out) {
  int i;
  out->p = out->a = out->b = NAN;
  out->iterations = 0;
  out->converged = 0;
  out->note = GHMIX_GIG_NOTE_INTERIOR;
  out->infeasible = GHMIX_GIG_INFEASIBLE_NONE;
  out->grad_norm = NAN;
  out->condition = NAN;
  for (i = 0; i < 9; i++)
    out->jacobian[i] = NAN;
}

GHMIX_HD ghmix_status ghmix_gig_from_expectation(
    const double eta[3], const ghmix_gig_solve_control *ctrl_in,
    ghmix_gig_solution *out) {
  ghmix_gig_solve_control defaults;
  const ghmix_gig_solve_control *ctrl = ctrl_in;
  gs_target t;
  ghmix_gig_unit e = {0};
  int feas, mirror, iters;
  double lU, lV, c_up, l, p0 = NAN, om0 = NAN, rho, sigma, rel[9];

  if (ctrl == NULL) {
    ghmix_gig_solve_control_init(&defaults);
    ctrl = &defaults;
  }
  gs_fail(out);
  feas = gs_target_init(eta, &t);
  if (feas < 0)
    return GHMIX_ERR_DOMAIN;
  if (feas != GHMIX_GIG_INFEASIBLE_NONE) {
    out->infeasible = feas;
    return GHMIX_ERR_INFEASIBLE;
  }
  if (gs_try_limits(&t, ctrl->want_jacobian, out))
    return GHMIX_OK;

  /* the mirrored frame Y -> 1/Y has l >= 0 */
  l = 0.5 * (t.c_up + t.c_dn);
  mirror = l < 0;
  if (mirror) {
    lU = t.lV, lV = t.lU, c_up = -t.c_dn, l = -l;
  } else {
    lU = t.lU, lV = t.lV, c_up = t.c_up;
  }
  rho = gs_solve_interior(t.lm, l, c_up, t.sl, ctrl, mirror, &p0, &om0, &e,
                          &iters);
  if (!isfinite(rho))
    return GHMIX_ERR_NO_CONVERGENCE;
  sigma = 0.5 * (lU - lV) - 0.5 * (e.lru - e.lrd);
  out->iterations = iters;
  out->grad_norm = rho;
  out->converged = rho <= ctrl->tol;
  out->note = GHMIX_GIG_NOTE_INTERIOR;
  out->p = mirror ? -p0 : p0;
  out->a = exp(om0 - (mirror ? -sigma : sigma));
  out->b = exp(om0 + (mirror ? -sigma : sigma));
  if (!(out->a >= DBL_MIN && out->b >= DBL_MIN && out->a <= DBL_MAX &&
        out->b <= DBL_MAX) ||
      (!out->converged && om0 <= GS_OMEGA_MIN + 10.0)) {
    /* the solution (or where the iteration was heading) is not
     * representable */
    out->converged = 0;
    out->note = GHMIX_GIG_NOTE_OUT_OF_RANGE;
  }
  if (gs_rel_sensitivity(&e, p0, t.sl, rel)) {
    if (mirror) {
      /* p = -p', log a = log b', log b = log a'; columns L = -L',
       * log V = log U', log U = log V' */
      double m[9];
      int i, k;
      for (i = 0; i < 3; i++)
        for (k = 0; k < 3; k++) {
          /* index maps 0 -> 0, 1 -> 2, 2 -> 1 */
          double v = rel[3 * (i ? 3 - i : 0) + (k ? 3 - k : 0)];
          if (i == 0)
            v = -v;
          if (k == 0)
            v = -v;
          m[3 * i + k] = v;
        }
      for (i = 0; i < 9; i++)
        rel[i] = m[i];
    }
    gs_finish_jacobian(rel, &t, ctrl->want_jacobian, out);
  }
  return out->converged ? GHMIX_OK : GHMIX_ERR_NO_CONVERGENCE;
}
