#include "mixture.h"

#include <math.h>
#include <stddef.h>

#include "bessel.h"
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

GHMIX_HD int ghmix_mix_const_init(int d, double p, double a, double b,
                                  double gSg, double logdet, int what,
                                  ghmix_mix_const *c) {
  double norm = ghmix_gig_log_norm(p, a, b);
  if (d < 1 || isnan(norm) || !(gSg >= 0) || !isfinite(gSg) ||
      !isfinite(logdet))
    return 0;
  c->q = p - 0.5 * d;
  c->a_post = a + gSg;
  c->sqrt_a = sqrt(c->a_post);
  c->log_sqrt_a = 0.5 * log(c->a_post);
  c->b = b;
  c->log_const = norm - 0.5 * d * MIX_LOG_2PI - 0.5 * logdet;
  /* the drivers always read the moments (a row without them is no row) */
  c->what = what | GHMIX_ESTEP_MOMENTS;
  return 1;
}

/* Posterior GIG(q, 0, bq) (inverse gamma, q < 0) or GIG(q, A, 0) (gamma,
 * q > 0); the closed forms of ghmix_gig_expectation. */
GHMIX_INLINE int mix_row_limit(const ghmix_mix_const *c, double bq, double B,
                               ghmix_mix_row_result *out) {
  double eta[3];
  if (!ghmix_gig_valid(c->q, c->a_post, bq)) {
    /* b + Q = 0 with q <= 0: the density is infinite at x = mu */
    out->loglik = out->e_inv_y = out->e_y = out->e_log_y = INFINITY;
    return 0;
  }
  out->loglik = c->log_const + B - ghmix_gig_log_norm(c->q, c->a_post, bq);
  ghmix_gig_expectation(c->q, c->a_post, bq, eta);
  out->e_log_y = eta[0];
  out->e_inv_y = eta[1];
  out->e_y = eta[2];
  return isfinite(out->loglik);
}

GHMIX_HD int ghmix_mix_row_arg(const ghmix_mix_const *c, double Q,
                               ghmix_mix_row_arg_t *arg) {
  double bq = c->b + Q;
  if (isnan(Q) || bq == 0 || c->a_post == 0)
    return 0;
  arg->sb = sqrt(bq);
  arg->x = c->sqrt_a * arg->sb;
  arg->ls = 0.5 * log(bq) - c->log_sqrt_a;
  return 1;
}

GHMIX_HD int ghmix_mix_row_finish(const ghmix_mix_const *c, double B,
                                  const ghmix_mix_row_arg_t *arg,
                                  const ghmix_bessel_result *r,
                                  ghmix_mix_row_result *out) {
  /* - c(q, A, b') = (q/2) log(b'/A) + log 2 + log K_q(sqrt(A b')) */
  out->loglik = c->log_const + B + c->q * arg->ls + MIX_LN2 + r->logk;
  if (c->what & GHMIX_ESTEP_MOMENTS) {
    double s = arg->sb / c->sqrt_a;
    out->e_y = s * r->ratio_up;
    out->e_inv_y = r->ratio_down / s;
  }
  if (c->what & GHMIX_ESTEP_LOGY)
    out->e_log_y = arg->ls + r->dnu;
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

GHMIX_HD int ghmix_mix_row(const ghmix_mix_const *c, double Q, double B,
                           ghmix_mix_row_result *out) {
  ghmix_mix_row_arg_t arg;
  ghmix_bessel_result r;
  if (isnan(Q) || isnan(B)) {
    out->loglik = out->e_inv_y = out->e_y = out->e_log_y = NAN;
    return 0;
  }
  if (!ghmix_mix_row_arg(c, Q, &arg))
    return mix_row_limit(c, c->b + Q, B, out);
  ghmix_bessel_eval(arg.x, c->q, ghmix_mix_row_bessel_what(c), &r);
  return ghmix_mix_row_finish(c, B, &arg, &r, out);
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
    if (!ghmix_mix_const_init(s->d, c->p, c->a, c->b, c->gsg, c->logdet,
                              s->what, &c->c))
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, k,
                             "invalid mixture parameters (p = %g, a = %g, "
                             "b = %g, d = %d)",
                             c->p, c->a, c->b, s->d);
  }
  m->complete = 1;
  return GHMIX_OK;
}

ghmix_status ghmix_mix_model_check(const ghmix_mix_model *m, int d,
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
  if (s->components != 1 || s->cov != GHMIX_COV_FULL ||
      (s->what & GHMIX_ESTEP_WEIGHTS))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step of %d components, a %s covariance%s is "
                           "not implemented yet",
                           s->components, ghmix_cov_name(s->cov),
                           (s->what & GHMIX_ESTEP_WEIGHTS) ? " and row weights"
                                                           : "");
  return GHMIX_OK;
}

#endif
