#include "mixture.h"
#include "mixture_g.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "bessel.h"
#include "gamma.h"
#include "gig_solve.h"

#define MIX_LOG_2PI 1.8378770664093454836
#define MIX_LN2 0.69314718055994530942

GHMIX_HD double ghmix_gig_log_norm(double p, double a, double b) {
  if (!ghmix_gig_valid(p, a, b))
    return NAN;
  if (b == 0) /* gamma: shape p, rate a/2 */
    return p * log(0.5 * a) - lgamma(p);
  if (a == 0) /* inverse gamma: shape -p, scale b/2 */
    return -p * log(0.5 * b) - lgamma(-p);
  /* log sqrt(a) - log sqrt(b) rather than log(a/b): a/b can overflow */
  return p * (0.5 * log(a) - 0.5 * log(b)) - MIX_LN2 -
         ghmix_bessel_logk(sqrt(a) * sqrt(b), p);
}

GHMIX_HD double ghmix_mix_dev_scale(double a, double b) {
  if (!(a > 0) || !(b > 0) || isinf(a) || isinf(b))
    return 1.0;
  return sqrt(b) / sqrt(a);
}

/* One term |v| of a norm kept as scale * sqrt(ssq) (LAPACK's dnrm2). */
GHMIX_INLINE void mix_norm_add(double v, double *scale, double *ssq) {
  v = fabs(v);
  if (v > *scale) {
    *ssq = 1 + *ssq * (*scale / v) * (*scale / v);
    *scale = v;
  } else if (v > 0) {
    *ssq += (v / *scale) * (v / *scale);
  }
}

GHMIX_HD double ghmix_mix_norm(int d, const double *z, size_t stride) {
  double scale = 0, ssq = 1;
  int j;
  for (j = 0; j < d; j++)
    mix_norm_add(z[(size_t)j * stride], &scale, &ssq);
  return scale * sqrt(ssq);
}

GHMIX_HD double ghmix_mix_perp(int d, const double *z, size_t stride,
                               const double *g, double g_norm, double B) {
  double t = (B / g_norm) / g_norm, scale = 0, ssq = 1;
  int j;
  for (j = 0; j < d; j++)
    mix_norm_add(z[(size_t)j * stride] - t * g[j], &scale, &ssq);
  return scale * sqrt(ssq);
}

/* log(u / v) for u, v > 0, also where u / v leaves the normal doubles. */
GHMIX_INLINE double mix_log_ratio(double u, double v) {
  double r = u / v;
  return r >= DBL_MIN && r <= DBL_MAX ? log(r) : log(u) - log(v);
}

/* The constants of the form that keeps log f's digits at these parameters
 * (c->form_const and the fields it needs); base = -(d/2) log(2 pi) -
 * (1/2) log det Sigma. */
GHMIX_LOCAL void mix_const_form(ghmix_mix_const *c, double base) {
  const double p = c->p, a = c->a, b = c->b, h = 0.5 * c->d;
  c->form = GHMIX_MIX_FORM_PLAIN;
  c->form_const = NAN;
  c->l1p_g = a > 0 ? (isfinite(c->gsg / a) ? log1p(c->gsg / a)
                                           : 2.0 * c->log_sqrt_a - log(a))
                   : NAN;
  if (a > 0 && b > 0 && p >= GHMIX_MIX_P_LARGE &&
      c->q >= GHMIX_BESSEL_REST_NU_MIN) {
    /* large order: log K_q(omega) - log K_p(w) by the uniform expansion
     * (see mix_row_order) */
    double rest = ghmix_bessel_log_rest(c->w, p, &c->p_hyp);
    c->form = GHMIX_MIX_FORM_ORDER;
    c->form_const = base - rest - p * c->l1p_g + h * (2.0 * c->log_sqrt_a);
  } else if (a > 0 && b > 0 && c->w >= GHMIX_MIX_W_SCALED) {
    /* near-normal: (p/2) log(a/b) + (q/2) log((b + Q) / A) = (d/4)
     * log(a/b) + (q/2) (log1p(Q/b) - log1p(G/a)), and log K_p(w) = lks -
     * w with the w kept for the row (see mix_row_scaled) */
    ghmix_bessel_scaled_result k;
    ghmix_bessel_eval_scaled(c->w, p, 0, &k);
    c->form = GHMIX_MIX_FORM_SCALED;
    c->form_const =
        base + 0.5 * h * mix_log_ratio(a, b) - k.lks - 0.5 * c->q * c->l1p_g;
  } else if (a == 0 && c->a_post == 0 && -p >= GHMIX_MIX_K_LARGE) {
    /* Student-like: c(p, 0, b) - c(q, 0, b + Q) = lgamma(k + h) -
     * lgamma(k) - h log(b/2) - (k + h) log((b + Q) / b), k = -p, the
     * lgamma difference from Stirling's series (DLMF 5.11.1, gamma.h)
     * without the cancellation of two O(k log k) terms */
    c->form = GHMIX_MIX_FORM_STUDENT;
    c->form_const = base + ghmix_lgamma_ratio(-p, h) - h * log(0.5 * b);
  }
}

GHMIX_HD int ghmix_mix_const_init_g(int d, double p, double a, double b,
                                    double gSg, double g_norm, double logdet,
                                    int what, ghmix_mix_const *c) {
  double norm = ghmix_gig_log_norm(p, a, b);
  if (d < 1 || isnan(norm) || !(gSg >= 0) || !(g_norm >= 0) ||
      !isfinite(g_norm) || !isfinite(logdet))
    return 0;
  c->q = p - 0.5 * d;
  c->a_post = a + gSg;
  if (isfinite(c->a_post)) {
    c->sqrt_a = sqrt(c->a_post);
    c->log_sqrt_a = 0.5 * log(c->a_post);
  } else { /* A itself overflows: its root does not */
    c->sqrt_a = hypot(sqrt(a), g_norm);
    c->log_sqrt_a = log(c->sqrt_a);
  }
  c->b = b;
  c->log_const = norm - 0.5 * d * MIX_LOG_2PI - 0.5 * logdet;
  /* the drivers always read the moments (a row without them is no row) */
  c->what = what | GHMIX_ESTEP_MOMENTS;
  c->d = d;
  c->p = p;
  c->a = a;
  c->w = sqrt(a) * sqrt(b);
  c->gsg = gSg;
  c->g_norm = g_norm;
  c->p_hyp = NAN;
  c->dev_scale = ghmix_mix_dev_scale(a, b);
  c->inv_dev_scale = 1.0 / c->dev_scale;
  c->log_dev_scale = a > 0 && b > 0 ? 0.5 * mix_log_ratio(b, a) : 0.0;
  mix_const_form(c, -0.5 * d * MIX_LOG_2PI - 0.5 * logdet);
  return 1;
}

GHMIX_HD int ghmix_mix_const_init(int d, double p, double a, double b,
                                  double gSg, double logdet, int what,
                                  ghmix_mix_const *c) {
  if (!isfinite(gSg))
    return 0;
  return ghmix_mix_const_init_g(d, p, a, b, gSg, sqrt(gSg), logdet, what, c);
}

/* The deviation statistics' terms from the moments (where they are not
 * close to c, or not needed so). */
GHMIX_INLINE void mix_row_devs(const ghmix_mix_const *c,
                               ghmix_mix_row_result *out) {
  out->inv_y_dev = c->dev_scale * out->e_inv_y - 1.0;
  out->y_dev = out->e_y * c->inv_dev_scale - 1.0;
}

/* Posterior GIG(q, 0, bq) (inverse gamma, q < 0) or GIG(q, A, 0) (gamma,
 * q > 0); the closed forms of ghmix_gig_expectation.  lbq: log((b + Q) /
 * b) for the Student form. */
GHMIX_INLINE int mix_row_limit(const ghmix_mix_const *c, double bq, double lbq,
                               double B, ghmix_mix_row_result *out) {
  double eta[3];
  if (!ghmix_gig_valid(c->q, c->a_post, bq)) {
    /* b + Q = 0 with q <= 0: the density is infinite at x = mu */
    out->loglik = out->e_inv_y = out->e_y = out->e_log_y = INFINITY;
    out->inv_y_dev = out->y_dev = INFINITY;
    return 0;
  }
  if (c->form == GHMIX_MIX_FORM_STUDENT)
    out->loglik = c->form_const + B + c->q * lbq;
  else
    out->loglik = c->log_const + B - ghmix_gig_log_norm(c->q, c->a_post, bq);
  ghmix_gig_expectation(c->q, c->a_post, bq, eta);
  out->e_log_y = eta[0];
  out->e_inv_y = eta[1];
  out->e_y = eta[2];
  mix_row_devs(c, out);
  return isfinite(out->loglik);
}

/* The inverse-gamma posterior (A = 0) of a row whose b + Q overflowed:
 * shape k = -q, scale (b + Q) / 2, with log(b + Q) = 2 log sb. */
GHMIX_INLINE int mix_row_limit_far(const ghmix_mix_const *c, double sb,
                                   double lbq, double B,
                                   ghmix_mix_row_result *out) {
  double k = -c->q, lb2 = 2.0 * log(sb) - MIX_LN2;
  if (c->form == GHMIX_MIX_FORM_STUDENT)
    out->loglik = c->form_const + B + c->q * lbq;
  else /* - c(q, 0, b + Q) = q log((b + Q) / 2) + lgamma(k) */
    out->loglik = c->log_const + B + c->q * lb2 + lgamma(k);
  out->e_inv_y = (2.0 * k / sb) / sb;
  out->e_y = k > 1 ? (sb / (2.0 * (k - 1.0))) * sb : INFINITY;
  out->e_log_y = lb2 - ghmix_digamma(k);
  mix_row_devs(c, out);
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_arg(const ghmix_mix_const *c, double Q,
                               ghmix_mix_row_arg_t *arg) {
  double bq = c->b + Q;
  if (isnan(Q) || bq == 0 || c->a_post == 0 || c->form != GHMIX_MIX_FORM_PLAIN)
    return 0;
  arg->sb = sqrt(bq);
  arg->x = c->sqrt_a * arg->sb;
  arg->ls = 0.5 * log(bq) - c->log_sqrt_a;
  return 1;
}

/* B - omega without the cancellation, u = 1 / (B + omega), sb = sqrt(b +
 * Q), perp = |z_perp| (ghmix_mix_perp; 0 for d = 1):
 *   omega^2 - B^2 = a (b + Q) + G b + (G Q - B^2),
 *   G Q - B^2 = |g|^2 |z_perp|^2
 * (Lagrange's identity in the whitened coordinates; 0 for d = 1). */
GHMIX_INLINE double mix_b_less_omega(const ghmix_mix_const *c, double sb,
                                     double perp, double u) {
  double s = c->a * sb * (sb * u) + c->g_norm * (c->g_norm * (c->b * u));
  if (perp > 0) {
    double gp = c->g_norm * perp;
    s += gp * (gp * u);
  }
  return -s;
}

/* log f of a row far out on the heavy side of a skewed law (B >
 * GHMIX_MIX_B_EXACT), where B + log K_q(omega) ~ B - omega would cancel:
 * with the scaled log K (bessel.h) and B - omega from mix_b_less_omega. */
GHMIX_LOCAL double mix_row_heavy_side(const ghmix_mix_const *c, double B,
                                      double perp,
                                      const ghmix_mix_row_arg_t *arg) {
  ghmix_bessel_scaled_result k;
  double bmo = mix_b_less_omega(c, arg->sb, perp, 1.0 / (B + arg->x));
  ghmix_bessel_eval_scaled(arg->x, c->q, 0, &k);
  return c->log_const + c->q * arg->ls + MIX_LN2 + k.lks + bmo;
}

/* The moments (and E log Y) of a Bessel-path row from K_q's values. */
GHMIX_INLINE void mix_row_moments(const ghmix_mix_const *c,
                                  const ghmix_mix_row_arg_t *arg,
                                  const ghmix_bessel_result *r,
                                  ghmix_mix_row_result *out) {
  if (c->what & GHMIX_ESTEP_MOMENTS) {
    double s = arg->sb / c->sqrt_a;
    out->e_y = s * r->ratio_up;
    out->e_inv_y = r->ratio_down / s;
    mix_row_devs(c, out);
  }
  if (c->what & GHMIX_ESTEP_LOGY)
    out->e_log_y = arg->ls + r->dnu;
}

GHMIX_HD int ghmix_mix_row_finish_heavy(const ghmix_mix_const *c, double B,
                                        const ghmix_mix_row_arg_t *arg,
                                        const ghmix_bessel_result *r,
                                        ghmix_mix_row_result *out) {
  out->loglik = mix_row_heavy_side(c, B, 0.0, arg);
  mix_row_moments(c, arg, r, out);
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_finish(const ghmix_mix_const *c, double B,
                                  const ghmix_mix_row_arg_t *arg,
                                  const ghmix_bessel_result *r,
                                  ghmix_mix_row_result *out) {
  /* - c(q, A, b') = (q/2) log(b'/A) + log 2 + log K_q(sqrt(A b')) */
  out->loglik = c->log_const + B + c->q * arg->ls + MIX_LN2 + r->logk;
  mix_row_moments(c, arg, r, out);
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_bessel_what(const ghmix_mix_const *c) {
  int what = 0;
  if (c->what & GHMIX_ESTEP_MOMENTS)
    what |= GHMIX_BESSEL_RATIOS;
  if (c->what & GHMIX_ESTEP_LOGY)
    what |= GHMIX_BESSEL_GRAD;
  return what;
}

/* A row's sqrt(b + Q) (sb) and its part omega^2 - w^2 = a Q + G (b + Q) of
 * the posterior's argument, from Q or, where Q overflowed (Q = +Inf), from
 * r = sqrt(Q); lbq = log((b + Q) / b) (b > 0). */
typedef struct {
  double sb, lbq;
} mix_geom;

GHMIX_INLINE mix_geom mix_row_geom(const ghmix_mix_const *c, double Q,
                                   double r) {
  mix_geom g;
  double ratio;
  if (isfinite(Q)) {
    g.sb = sqrt(c->b + Q);
    ratio = Q / c->b;
  } else {
    g.sb = hypot(sqrt(c->b), r);
    ratio = INFINITY;
  }
  g.lbq = isfinite(ratio) ? log1p(ratio) : 2.0 * log(g.sb) - log(c->b);
  return g;
}

/* (a Q + G (b + Q)) t with t = 1 / (omega + w): omega - w without the
 * cancellation, as omega^2 - w^2 = (a + G)(b + Q) - ab exactly. */
GHMIX_INLINE double mix_omega_less_w(const ghmix_mix_const *c, double Q,
                                     double r, double sb, double t) {
  double gs = c->g_norm * sb;
  double aq = isfinite(Q) ? c->a * Q * t : c->a * r * (r * t);
  return aq + gs * (gs * t);
}

/* The scaled form (w >= GHMIX_MIX_W_SCALED): log f = form_const + B +
 * (q/2) log((b + Q) / b) + lks_q(omega) - (omega - w), lks = log K + x
 * (bessel.h).  Where perp = |z_perp| is known (perp >= 0: every d = 1
 * row, the heavy rows of d >= 2) and B > 0, the exponent B - (omega - w)
 * is taken as (B - omega) + w where that has the smaller rounding
 * (mix_b_less_omega: the heavy side of a skewed law far out). */
GHMIX_LOCAL int mix_row_scaled(const ghmix_mix_const *c, double Q, double r,
                               double B, double perp,
                               ghmix_mix_row_result *out) {
  ghmix_bessel_scaled_result k;
  mix_geom g = mix_row_geom(c, Q, r);
  double omega = c->sqrt_a * g.sb;
  double om_w = mix_omega_less_w(c, Q, r, g.sb, 1.0 / (omega + c->w));
  double e = B - om_w, rel, s;
  if (perp >= 0 && B > 0) {
    double bmo = mix_b_less_omega(c, g.sb, perp, 1.0 / (B + omega));
    double e1 = bmo + c->w;
    if (isfinite(e1) && fmax(fabs(bmo), c->w) < fmax(B, om_w))
      e = e1;
  }
  ghmix_bessel_eval_scaled(omega, c->q, ghmix_mix_row_bessel_what(c), &k);
  out->loglik = c->form_const + 0.5 * c->q * g.lbq + k.lks + e;
  /* log(s / c), s = sqrt((b + Q) / A) the posterior's scale */
  rel = 0.5 * (g.lbq - c->l1p_g);
  s = g.sb / c->sqrt_a;
  out->e_y = s * (1.0 + k.up_m1);
  out->e_inv_y = (1.0 + k.down_m1) / s;
  out->y_dev = expm1(rel + log1p(k.up_m1));
  out->inv_y_dev = expm1(log1p(k.down_m1) - rel);
  if (c->what & GHMIX_ESTEP_LOGY)
    out->e_log_y = c->log_dev_scale + rel + k.dnu;
  return isfinite(out->loglik);
}

/* The large-order form (p >= GHMIX_MIX_P_LARGE): with log K_nu(x) =
 * f(x, nu) + rest (ghmix_bessel_log_rest), f + nu log x = F(x, nu) =
 * nu log(nu + hypot(nu, x)) - hypot(nu, x), so that log f = base + B +
 * F(omega, q) - F(w, p) + rest_q(omega) - rest_p(w) + p log a - q log A,
 * and, with H0 = hypot(p, w), H1 = hypot(q, omega), h = d/2 = p - q,
 *   F(omega, q) - F(w, p) = q log1p((D - h) / (p + H0)) - h log(p + H0) - D,
 *   D = H1 - H0 = (omega^2 - w^2 - h (2p - h)) / (H1 + H0):
 * each term O(1) or O(log p) where F itself is O(p log p). */
GHMIX_LOCAL int mix_row_order(const ghmix_mix_const *c, double Q, double r,
                              double B, double perp,
                              ghmix_mix_row_result *out) {
  ghmix_bessel_result k;
  mix_geom g = mix_row_geom(c, Q, r);
  const double p = c->p, q = c->q, h = 0.5 * c->d;
  double omega = c->sqrt_a * g.sb, h1, rest, dz2, dd, s, lead;
  rest = ghmix_bessel_log_rest(omega, q, &h1);
  dz2 = mix_omega_less_w(c, Q, r, g.sb, 1.0);
  dd = (dz2 - h * (2.0 * p - h)) / (h1 + c->p_hyp);
  lead = q * log1p((dd - h) / (p + c->p_hyp)) - h * log(p + c->p_hyp);
  if (perp >= 0 && B > GHMIX_MIX_B_EXACT) {
    /* the heavy side: B - D = (B - H1) + H0, B - H1 = (B^2 - q^2 -
     * omega^2) / (B + H1) */
    double u = 1.0 / (B + h1);
    out->loglik = c->form_const +
                  (lead + ((mix_b_less_omega(c, g.sb, perp, u) - q * (q * u)) +
                           c->p_hyp)) +
                  rest;
  } else {
    out->loglik = c->form_const + B + (lead - dd) + rest;
  }
  ghmix_bessel_eval(omega, q, ghmix_mix_row_bessel_what(c), &k);
  s = g.sb / c->sqrt_a;
  out->e_y = s * k.ratio_up;
  out->e_inv_y = k.ratio_down / s;
  mix_row_devs(c, out);
  if (c->what & GHMIX_ESTEP_LOGY)
    out->e_log_y = log(g.sb) - c->log_sqrt_a + k.dnu;
  return isfinite(out->loglik);
}

/* The row in the form of c: Q (+Inf with r = sqrt(Q) where Q overflowed)
 * and B, neither NaN; perp = |z_perp| where known, else -1. */
GHMIX_LOCAL int mix_row_form(const ghmix_mix_const *c, double Q, double r,
                             double B, double perp, ghmix_mix_row_result *out) {
  mix_geom g;
  if (c->form == GHMIX_MIX_FORM_SCALED)
    return mix_row_scaled(c, Q, r, B, perp, out);
  if (c->form == GHMIX_MIX_FORM_ORDER)
    return mix_row_order(c, Q, r, B, perp, out);
  g = mix_row_geom(c, Q, r);
  if (!isfinite(Q))
    return mix_row_limit_far(c, g.sb, g.lbq, B, out);
  return mix_row_limit(c, c->b + Q, g.lbq, B, out);
}

/* perp where the caller gives none: 0 for d = 1 (B^2 = G Q), else
 * unknown (-1). */
GHMIX_INLINE double mix_perp_known(const ghmix_mix_const *c) {
  return c->d == 1 ? 0.0 : -1.0;
}

/* A row with NaN in Q (or r) or B: NaN results. */
GHMIX_INLINE int mix_row_nan(ghmix_mix_row_result *out) {
  out->loglik = out->e_inv_y = out->e_y = out->e_log_y = NAN;
  out->inv_y_dev = out->y_dev = NAN;
  return 0;
}

GHMIX_HD int ghmix_mix_row(const ghmix_mix_const *c, double Q, double B,
                           ghmix_mix_row_result *out) {
  ghmix_mix_row_arg_t arg;
  ghmix_bessel_result r;
  if (isnan(Q) || isnan(B))
    return mix_row_nan(out);
  if (c->form != GHMIX_MIX_FORM_PLAIN)
    return mix_row_form(c, Q, NAN, B, mix_perp_known(c), out);
  if (!ghmix_mix_row_arg(c, Q, &arg))
    return mix_row_limit(c, c->b + Q, NAN, B, out);
  ghmix_bessel_eval(arg.x, c->q, ghmix_mix_row_bessel_what(c), &r);
  return ghmix_mix_row_done(c, B, &arg, &r, out);
}

/* A plain-form row whose omega = sqrt(A) sb overflows (sb finite): log K
 * by Hankel's leading term (DLMF 10.40.2; the next terms are O(q^2 /
 * omega), below 1e-300) and B - omega in units of sb, where perp is known
 * and B > 0 cancellation-free as -sb (a + (G b + |g|^2 perp^2) / sb^2) /
 * (B / sb + sqrt(A)) (mix_b_less_omega). */
#define MIX_HALF_LOG_HALF_PI 0.22579135264472743 /* log(pi / 2) / 2 */
GHMIX_LOCAL int mix_row_huge(const ghmix_mix_const *c, double sb, double B,
                             double perp, ghmix_mix_row_result *out) {
  double lsb = log(sb), bs = B / sb, e, s = sb / c->sqrt_a;
  if (perp >= 0 && B > 0) {
    double num = c->a + c->g_norm * (c->g_norm * ((c->b / sb) / sb));
    if (perp > 0) {
      double gp = c->g_norm * (perp / sb);
      num += gp * gp;
    }
    e = -sb * (num / (bs + c->sqrt_a));
  } else
    e = sb * (bs - c->sqrt_a);
  out->loglik = c->log_const + c->q * (lsb - c->log_sqrt_a) + MIX_LN2 +
                MIX_HALF_LOG_HALF_PI - 0.5 * (c->log_sqrt_a + lsb) + e;
  out->e_y = s;
  out->e_inv_y = 1.0 / s;
  out->e_log_y = lsb - c->log_sqrt_a;
  mix_row_devs(c, out);
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_r(const ghmix_mix_const *c, double r, double B,
                             ghmix_mix_row_result *out) {
  ghmix_mix_row_arg_t arg;
  ghmix_bessel_result k;
  if (isnan(r) || isnan(B))
    return mix_row_nan(out);
  if (c->form != GHMIX_MIX_FORM_PLAIN || c->a_post == 0)
    return mix_row_form(c, INFINITY, r, B, mix_perp_known(c), out);
  /* the Bessel path of the plain form with b + Q = (hypot(sqrt b, r))^2 */
  arg.sb = hypot(sqrt(c->b), r);
  arg.x = c->sqrt_a * arg.sb;
  if (isinf(arg.x) && isfinite(arg.sb))
    return mix_row_huge(c, arg.sb, B, mix_perp_known(c), out);
  arg.ls = log(arg.sb) - c->log_sqrt_a;
  ghmix_bessel_eval(arg.x, c->q, ghmix_mix_row_bessel_what(c), &k);
  return ghmix_mix_row_done(c, B, &arg, &k, out);
}

GHMIX_HD int ghmix_mix_row_perp(const ghmix_mix_const *c, double Q, double r,
                                double B, double perp,
                                ghmix_mix_row_result *out) {
  ghmix_mix_row_arg_t arg;
  ghmix_bessel_result k;
  if (isnan(Q) || isnan(B) || isnan(perp))
    return mix_row_nan(out);
  if (c->form != GHMIX_MIX_FORM_PLAIN || c->a_post == 0)
    return mix_row_form(c, Q, r, B, perp, out);
  arg.sb = isfinite(Q) ? sqrt(c->b + Q) : hypot(sqrt(c->b), r);
  arg.x = c->sqrt_a * arg.sb;
  if (isinf(arg.x) && isfinite(arg.sb))
    return mix_row_huge(c, arg.sb, B, perp, out);
  arg.ls = log(arg.sb) - c->log_sqrt_a;
  ghmix_bessel_eval(arg.x, c->q, ghmix_mix_row_bessel_what(c), &k);
  out->loglik = mix_row_heavy_side(c, B, perp, &arg);
  mix_row_moments(c, &arg, &k, out);
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_z(const ghmix_mix_const *c, double Q, double B,
                             const double *z, size_t stride, const double *g,
                             ghmix_mix_row_result *out) {
  double r = isinf(Q) ? ghmix_mix_norm(c->d, z, stride) : NAN;
  return ghmix_mix_row_perp(
      c, Q, r, B, ghmix_mix_perp(c->d, z, stride, g, c->g_norm, B), out);
}

#ifndef GHMIX_CUDA_UNITY /* host only: the model's set-up */

void ghmix_mix_chol_consts(int d, const double *chol, const double *gamma,
                           double *g, double *gsg, double *logdet) {
  double q = 0, ld = 0;
  int i, j;
  for (i = 0; i < d; i++) {
    double v = gamma[i];
    for (j = 0; j < i; j++)
      v -= chol[(size_t)j * d + i] * g[j];
    g[i] = v / chol[(size_t)i * d + i];
    q += g[i] * g[i];
    ld += log(chol[(size_t)i * d + i]);
  }
  *gsg = q;
  *logdet = 2.0 * ld;
}

ghmix_status ghmix_mix_model_complete(ghmix_mix_model *m, ghmix_error *err) {
  const ghmix_estep_shape *s = &m->shape;
  int k;
  m->complete = 0;
  if (!ghmix_estep_shape_valid(s) || m->comp == NULL ||
      ((s->what & GHMIX_ESTEP_WEIGHTS) != 0) != (m->weights != NULL))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "invalid E-step model: d = %d, %d components, "
                           "covariance kind %d, flags %d",
                           s->d, s->components, s->cov, s->what);
  for (k = 0; k < s->components; k++) {
    ghmix_mix_component *c = &m->comp[k];
    /* |g| directly where its square overflowed */
    double g_norm = isfinite(c->gsg) || isnan(c->gsg)
                        ? sqrt(c->gsg)
                        : ghmix_mix_norm(s->d, c->g, 1);
    if (!ghmix_mix_const_init_g(s->d, c->p, c->a, c->b, c->gsg, g_norm,
                                c->logdet, s->what, &c->c))
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, k,
                             "invalid mixture parameters (p = %g, a = %g, "
                             "b = %g, d = %d)",
                             c->p, c->a, c->b, s->d);
  }
  m->complete = 1;
  return GHMIX_OK;
}

ghmix_status ghmix_mix_model_check_g(const ghmix_mix_model *m, int d,
                                     ghmix_error *err) {
  const ghmix_estep_shape *s = &m->shape;
  if (!m->complete || !ghmix_estep_shape_valid(s))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "internal error: the E-step model is not complete "
                           "(ghmix_mix_model_complete)");
  if (s->d != d)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the parameters have d = %d, the data d = %d", s->d,
                           d);
  if (s->components > GHMIX_MAX_COMPONENTS)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "an E-step takes at most %d components, not %d",
                           GHMIX_MAX_COMPONENTS, s->components);
  if (s->cov != GHMIX_COV_FULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step of a %s covariance is not implemented "
                           "yet",
                           ghmix_cov_name(s->cov));
  return GHMIX_OK;
}

ghmix_status ghmix_mix_model_check(const ghmix_mix_model *m, int d,
                                   ghmix_error *err) {
  const ghmix_estep_shape *s = &m->shape;
  ghmix_status st = ghmix_mix_model_check_g(m, d, err);
  if (st != GHMIX_OK)
    return st;
  if (s->components != 1)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step of %d components and a %s covariance "
                           "is not implemented yet",
                           s->components, ghmix_cov_name(s->cov));
  return GHMIX_OK;
}

#endif
