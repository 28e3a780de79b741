#include "factor.h"

#include <math.h>
#include <stddef.h>

/* Entry j of the row u: u_j = x_j - m_j (x_j at x[j * stride]), or x_j
 * itself when m is NULL (x is then u). */
GHMIX_INLINE double factor_u(const double *x, size_t stride, const double *m,
                             int j) {
  const double v = x[(size_t)j * stride];
  return m != NULL ? v - m[j] : v;
}

/* u' D^-1 u, u' s and beta u (into bu) for u scaled by `scale`. */
GHMIX_LOCAL void factor_forms(const ghmix_factor_model *fm, const double *x,
                              size_t stride, const double *m, double scale,
                              double *bu, double *qd, double *b) {
  const int d = fm->d, r = fm->r;
  double q = 0, bs = 0;
  int j, k;
  for (k = 0; k < r; k++)
    bu[k] = 0;
  for (j = 0; j < d; j++) {
    const double uj = factor_u(x, stride, m, j) * scale;
    const double *pj = fm->proj_t + (size_t)j * r;
    q += uj * uj * fm->dinv[j];
    bs += uj * fm->s[j];
    for (k = 0; k < r; k++)
      bu[k] += uj * pj[k];
  }
  *qd = q;
  *b = bs;
}

/* v' M v = |C' v|^2 for an r vector v. */
GHMIX_LOCAL double factor_m_norm2(const double *chol, int r, const double *v) {
  double q = 0;
  int k, l;
  for (k = 0; k < r; k++) {
    const double *ck = chol + (size_t)k * r;
    double s = 0;
    for (l = k; l < r; l++)
      s += ck[l] * v[l];
    q += s * s;
  }
  return q;
}

GHMIX_HD void ghmix_factor_row_forms(const ghmix_factor_model *fm,
                                     const double *u, size_t stride, double *bu,
                                     double *qd, double *b) {
  factor_forms(fm, u, stride, NULL, 1.0, bu, qd, b);
}

/* r = sqrt(Q) of a row whose Q overflowed, from u / c, c = max_j |u_j| /
 * sqrt(D_j); bu: beta u (u as factor_u has it). */
GHMIX_LOCAL double factor_far_r(const ghmix_factor_model *fm, const double *x,
                                size_t stride, const double *m, double *bu) {
  double c = 0, qd, q, bs;
  int j, k;
  for (j = 0; j < fm->d; j++) {
    double v = fabs(factor_u(x, stride, m, j)) * sqrt(fm->dinv[j]);
    c = v > c ? v : c;
  }
  factor_forms(fm, x, stride, m, 1.0 / c, bu, &qd, &bs);
  q = qd - factor_m_norm2(fm->chol, fm->r, bu);
  for (k = 0; k < fm->r; k++)
    bu[k] *= c;
  return sqrt(q > 0 ? q : 0) * c;
}

/* |(v / c)' C|^2 for v = bu - t beta gamma (r vectors). */
GHMIX_LOCAL double factor_m_norm2_shift(const ghmix_factor_model *fm,
                                        const double *bu, double t, double c) {
  const int r = fm->r;
  double q = 0;
  int k, l;
  for (k = 0; k < r; k++) {
    const double *ck = fm->chol + (size_t)k * r;
    double s = 0;
    for (l = k; l < r; l++)
      s += ck[l] * ((bu[l] - t * fm->beta_gamma[l]) / c);
    q += s * s;
  }
  return q;
}

/* |z_perp| of the row u with B = b and beta u = bu (mixture.h): the
 * Sigma^-1 norm of v = u - t gamma, t = B / G, by the Woodbury form of Q
 * from v / c, c = max_j |v_j| / sqrt(D_j) (beta v = bu - t beta gamma). */
GHMIX_LOCAL double factor_perp(const ghmix_factor_model *fm, const double *x,
                               size_t stride, const double *m, double b,
                               const double *bu) {
  const double t = (b / fm->c.g_norm) / fm->c.g_norm;
  double c = 0, q = 0;
  int j;
  for (j = 0; j < fm->d; j++) {
    double v = fabs(factor_u(x, stride, m, j) - t * fm->gamma[j]);
    v *= sqrt(fm->dinv[j]);
    c = v > c ? v : c;
  }
  if (!(c > 0) || isinf(c))
    return c == 0 ? 0.0 : NAN;
  for (j = 0; j < fm->d; j++) {
    double v = (factor_u(x, stride, m, j) - t * fm->gamma[j]) / c;
    q += v * v * fm->dinv[j];
  }
  q -= factor_m_norm2_shift(fm, bu, t, c);
  return sqrt(q > 0 ? q : 0) * c;
}

/* ghmix_factor_row_finish for the row u of factor_u(x, stride, m, .). */
GHMIX_LOCAL int factor_finish(const ghmix_factor_model *fm, const double *x,
                              size_t stride, const double *m, double qd,
                              double b, double *bu, ghmix_mix_row_result *res,
                              ghmix_mix_terms *t) {
  double q = qd - factor_m_norm2(fm->chol, fm->r, bu), r = NAN;
  int near = isnan(qd) || (isfinite(q) && isfinite(qd));
  if (near && q < 0) /* rounding (see factor.h) */
    q = 0;
  if (ghmix_mix_row_is_heavy(&fm->c, b) && !isnan(qd)) {
    if (!near) {
      q = INFINITY;
      r = factor_far_r(fm, x, stride, m, bu);
    }
    ghmix_mix_row_perp(&fm->c, q, r, b, factor_perp(fm, x, stride, m, b, bu),
                       res);
    return ghmix_mix_row_terms(&fm->c, res, t);
  }
  if (near)
    return ghmix_mix_row_step(&fm->c, q, b, NULL, NULL, res, t);
  return ghmix_mix_row_step_r(&fm->c, factor_far_r(fm, x, stride, m, bu), b,
                              res, t);
}

GHMIX_HD int ghmix_factor_row_finish(const ghmix_factor_model *fm,
                                     const double *u, size_t stride, double qd,
                                     double b, double *bu,
                                     ghmix_mix_row_result *res,
                                     ghmix_mix_terms *t) {
  return factor_finish(fm, u, stride, NULL, qd, b, bu, res, t);
}

/* The forms and the finish of the row u of factor_u(x, stride, m, .). */
GHMIX_LOCAL int factor_step(const ghmix_factor_model *fm, const double *x,
                            size_t stride, const double *m, double *bu,
                            ghmix_mix_row_result *res, ghmix_mix_terms *t) {
  double qd, b;
  factor_forms(fm, x, stride, m, 1.0, bu, &qd, &b);
  return factor_finish(fm, x, stride, m, qd, b, bu, res, t);
}

GHMIX_HD int ghmix_factor_row_step(const ghmix_factor_model *fm,
                                   const double *u, size_t stride, double *bu,
                                   ghmix_mix_row_result *res,
                                   ghmix_mix_terms *t) {
  return factor_step(fm, u, stride, NULL, bu, res, t);
}

GHMIX_HD int ghmix_factor_row_step_x(const ghmix_factor_model *fm,
                                     const double *x, size_t stride, double *bu,
                                     ghmix_mix_row_result *res,
                                     ghmix_mix_terms *t) {
  return factor_step(fm, x, stride, fm->center, bu, res, t);
}

#ifndef GHMIX_CUDA_UNITY /* host only: the model's set-up */

size_t ghmix_factor_buffer_size(int d, int r) {
  return (size_t)d * (3 + (size_t)r) + (size_t)r * (2 + (size_t)r);
}

/* In place: the lower Cholesky factor of the r x r matrix a (its lower
 * triangle; the upper one is set to 0); 0 when a is not numerically
 * positive definite. */
static int factor_chol(int r, double *a) {
  int i, j, k;
  for (j = 0; j < r; j++) {
    double *aj = a + (size_t)j * r, s = aj[j];
    for (k = 0; k < j; k++)
      s -= a[(size_t)k * r + j] * a[(size_t)k * r + j];
    if (!(s > 0) || !isfinite(s))
      return 0;
    aj[j] = sqrt(s);
    for (i = j + 1; i < r; i++) {
      double v = aj[i];
      for (k = 0; k < j; k++)
        v -= a[(size_t)k * r + i] * a[(size_t)k * r + j];
      aj[i] = v / aj[j];
    }
    for (i = 0; i < j; i++)
      aj[i] = 0;
  }
  return 1;
}

/* v = C^-1 v (forward substitution; C lower, column-major). */
static void factor_forward(const double *chol, int r, double *v) {
  int i, k;
  for (k = 0; k < r; k++) {
    v[k] /= chol[(size_t)k * r + k];
    for (i = k + 1; i < r; i++)
      v[i] -= chol[(size_t)k * r + i] * v[k];
  }
}

/* v = C'^-1 v (back substitution). */
static void factor_back(const double *chol, int r, double *v) {
  int i, k;
  for (k = r - 1; k >= 0; k--) {
    double s = v[k];
    for (i = k + 1; i < r; i++)
      s -= chol[(size_t)k * r + i] * v[i];
    v[k] = s / chol[(size_t)k * r + k];
  }
}

static int factor_all_finite(size_t n, const double *v) {
  size_t i;
  for (i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return 0;
  return 1;
}

/* M = I + F' D^-1 F into m (r x r, lower triangle), then its factor C. */
static int factor_m_chol(int d, int r, const double *f, const double *dinv,
                         double *m) {
  int j, k, l;
  for (k = 0; k < r; k++)
    for (l = k; l < r; l++) {
      const double *fk = f + (size_t)k * d, *fl = f + (size_t)l * d;
      double s = k == l ? 1.0 : 0.0;
      for (j = 0; j < d; j++)
        s += fk[j] * dinv[j] * fl[j];
      m[(size_t)k * r + l] = s;
    }
  return factor_chol(r, m);
}

/* beta' = D^-1 F M^-1, row j = M^-1 (F_j. / D_j). */
static void factor_proj(int d, int r, const double *f, ghmix_factor_model *fm,
                        double *proj_t) {
  int j, k;
  for (j = 0; j < d; j++) {
    double *pj = proj_t + (size_t)j * r;
    for (k = 0; k < r; k++)
      pj[k] = f[(size_t)k * d + j] * fm->dinv[j];
    factor_forward(fm->chol, r, pj);
    factor_back(fm->chol, r, pj);
  }
}

/* s = Sigma^-1 gamma = D^-1 gamma - beta' (F' D^-1 gamma) and gamma'
 * Sigma^-1 gamma = gamma' D^-1 gamma - |C^-1 F' D^-1 gamma|^2, both from
 * gamma / c, c = max_j |gamma_j| / sqrt(D_j), so that nothing overflows
 * before the end; *g_norm: sqrt(gamma' Sigma^-1 gamma). */
static void factor_gamma(int d, int r, const double *f, const double *gamma,
                         double *s, double *tg, ghmix_factor_model *fm,
                         double *g_norm) {
  double c = 0, gd = 0, w = 0;
  int j, k;
  for (j = 0; j < d; j++) {
    double v = fabs(gamma[j]) * sqrt(fm->dinv[j]);
    c = v > c ? v : c;
  }
  for (k = 0; k < r; k++)
    tg[k] = 0;
  for (j = 0; j < d; j++) {
    double g = c > 0 ? gamma[j] / c : 0.0;
    gd += g * g * fm->dinv[j];
    s[j] = g * fm->dinv[j];
    for (k = 0; k < r; k++)
      tg[k] += f[(size_t)k * d + j] * s[j];
  }
  for (j = 0; j < d; j++) {
    const double *pj = fm->proj_t + (size_t)j * r;
    double v = s[j];
    for (k = 0; k < r; k++)
      v -= pj[k] * tg[k];
    s[j] = v * c;
  }
  factor_forward(fm->chol, r, tg);
  for (k = 0; k < r; k++)
    w += tg[k] * tg[k];
  gd = gd > w ? gd - w : 0.0; /* rounding (see factor.h) */
  *g_norm = sqrt(gd) * c;
  fm->gsg = gd * c * c;
}

int ghmix_factor_model_init(int d, int r, const double *center,
                            const double *loadings, const double *uniq,
                            const double *gamma, double p, double a, double b,
                            int what, double *buf, ghmix_factor_model *fm) {
  double *dinv = buf, *proj_t = dinv + d, *chol = proj_t + (size_t)d * r;
  double *s = chol + (size_t)r * r, *tg = s + d, *gam = tg + r;
  double *bg = gam + d, g_norm, ld = 0, gq, gb;
  int j, k;
  if (d < 1 || r < 0 || r >= d || !factor_all_finite((size_t)d, center) ||
      !factor_all_finite((size_t)d * r, loadings) ||
      !factor_all_finite((size_t)d, uniq) ||
      !factor_all_finite((size_t)d, gamma))
    return 0;
  for (j = 0; j < d; j++) {
    if (!(uniq[j] > 0))
      return 0;
    dinv[j] = 1.0 / uniq[j];
    ld += log(uniq[j]);
  }
  if (!factor_all_finite((size_t)d, dinv) ||
      !factor_m_chol(d, r, loadings, dinv, chol))
    return 0;
  for (k = 0; k < r; k++)
    ld += 2.0 * log(chol[(size_t)k * r + k]);
  fm->d = d;
  fm->r = r;
  fm->center = center;
  fm->dinv = dinv;
  fm->proj_t = proj_t;
  fm->chol = chol;
  fm->s = s;
  fm->logdet = ld;
  factor_proj(d, r, loadings, fm, proj_t);
  factor_gamma(d, r, loadings, gamma, s, tg, fm, &g_norm);
  for (j = 0; j < d; j++)
    gam[j] = gamma[j];
  ghmix_factor_row_forms(fm, gam, 1, bg, &gq, &gb); /* bg = beta gamma */
  fm->gamma = gam;
  fm->beta_gamma = bg;
  return ghmix_mix_const_init_g(d, p, a, b, fm->gsg, g_norm, ld, what, &fm->c);
}

#endif
