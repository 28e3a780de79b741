#include "elementwise.h"

#include <math.h>

#include "batch.h"
#include "bessel.h"

/* log K_nu(x), d/dx and d/dnu where x > 0 and nu finite do not both hold:
 * returns 1 when it has filled the outputs, 0 when (x, nu) is inside the
 * domain of ghmix_bessel_eval. */
GHMIX_INLINE int ew_logk_special(double x, double nu, double *v, double *gx,
                                 double *gnu) {
  if (isnan(x) || isnan(nu)) {
    *v = *gx = *gnu = ghmix_na_sum(x, nu);
    return 1;
  }
  if (x < 0) {
    *v = *gx = *gnu = NAN;
    return 1;
  }
  if (isinf(x)) { /* x = +Inf: K -> 0 */
    if (isinf(nu)) {
      *v = *gx = *gnu = NAN;
    } else {
      *v = -INFINITY;
      *gx = -1.0;
      *gnu = 0.0;
    }
    return 1;
  }
  if (x == 0 || isinf(nu)) { /* K -> +Inf */
    *v = INFINITY;
    *gx = -INFINITY;
    *gnu = nu == 0 ? 0.0 : copysign(INFINITY, nu);
    return 1;
  }
  return 0;
}

GHMIX_HD void ghmix_logk_element(const ghmix_logk_args *a, size_t i) {
  double x = a->x[ghmix_recycle((ptrdiff_t)i, a->nx, a->n)];
  double nu = a->nu[ghmix_recycle((ptrdiff_t)i, a->nnu, a->n)];
  double v, gx = NAN, gnu = NAN;
  int grad = a->grad_x != NULL || a->grad_nu != NULL;
  if (!ew_logk_special(x, nu, &v, &gx, &gnu)) {
    if (grad) {
      ghmix_bessel_result r;
      ghmix_bessel_eval(x, nu, GHMIX_BESSEL_GRAD, &r);
      v = r.logk;
      gx = r.dx;
      gnu = r.dnu;
    } else {
      v = ghmix_bessel_logk(x, nu);
    }
  }
  a->logk[i] = v;
  if (a->grad_x != NULL)
    a->grad_x[i] = gx;
  if (a->grad_nu != NULL)
    a->grad_nu[i] = gnu;
}

/* (p, a, b) of element i of n; returns 1 when one of them is NaN. */
GHMIX_INLINE int ew_gig_params(const ghmix_gig_params *g, size_t i, size_t n,
                               double *p, double *a, double *b) {
  *p = g->p[ghmix_recycle((ptrdiff_t)i, g->np, n)];
  *a = g->a[ghmix_recycle((ptrdiff_t)i, g->na, n)];
  *b = g->b[ghmix_recycle((ptrdiff_t)i, g->nb, n)];
  return isnan(*p) || isnan(*a) || isnan(*b);
}

GHMIX_HD void ghmix_gig_eta_element(const ghmix_gig_eta_args *a, size_t i) {
  double p, ga, gb, eta[3];
  if (ew_gig_params(&a->par, i, a->n, &p, &ga, &gb))
    eta[0] = eta[1] = eta[2] = ghmix_na_sum(ghmix_na_sum(p, ga), gb);
  else
    ghmix_gig_expectation(p, ga, gb, eta);
  a->out_log[i] = eta[0];
  a->out_inv[i] = eta[1];
  a->out_y[i] = eta[2];
}

GHMIX_HD void ghmix_gig_moment_element(const ghmix_gig_moment_args *a,
                                       size_t i) {
  int var = a->what == GHMIX_GIG_MOMENT_VARIANCE;
  double p, ga, gb;
  double r = var ? 0.0 : a->r[ghmix_recycle((ptrdiff_t)i, a->nr, a->n)];
  if (ew_gig_params(&a->par, i, a->n, &p, &ga, &gb) || isnan(r))
    a->out[i] = ghmix_na_sum(ghmix_na_sum(ghmix_na_sum(p, ga), gb), r);
  else if (var)
    a->out[i] = ghmix_gig_variance(p, ga, gb);
  else
    a->out[i] = ghmix_gig_moment(p, ga, gb, r);
}

GHMIX_HD int ghmix_gig_solve_check(const ghmix_gig_solve_args *s, size_t i) {
  double eta[3];
  eta[0] = s->eta[i];
  eta[1] = s->eta[s->n + i];
  eta[2] = s->eta[2 * s->n + i];
  s->infeasible[i] = ghmix_gig_feasibility(eta);
  return s->infeasible[i];
}

GHMIX_HD int ghmix_gig_solve_element(const ghmix_gig_solve_args *s, size_t i) {
  size_t n = s->n;
  double eta[3];
  ghmix_gig_solve_control ctrl = s->ctrl;
  ghmix_gig_solution sol;
  int f = ghmix_gig_solve_check(s, i), k;
  if (f != GHMIX_GIG_INFEASIBLE_NONE)
    return f;
  eta[0] = s->eta[i];
  eta[1] = s->eta[n + i];
  eta[2] = s->eta[2 * n + i];
  if (s->start != NULL) {
    ctrl.start_p = s->start[i];
    ctrl.start_a = s->start[n + i];
    ctrl.start_b = s->start[2 * n + i];
    ctrl.has_start = isfinite(ctrl.start_p) && isfinite(ctrl.start_a) &&
                     isfinite(ctrl.start_b);
  }
  ctrl.want_jacobian = s->jacobian != NULL;
  ghmix_gig_from_expectation(eta, &ctrl, &sol);
  s->p[i] = sol.p;
  s->a[i] = sol.a;
  s->b[i] = sol.b;
  s->iterations[i] = sol.iterations;
  s->grad_norm[i] = sol.grad_norm;
  s->converged[i] = sol.converged;
  s->condition[i] = sol.condition;
  s->note[i] = sol.note;
  if (s->jacobian != NULL)
    for (k = 0; k < 9; k++) /* row-major -> column-major */
      s->jacobian[9 * i + 3 * (k % 3) + k / 3] = sol.jacobian[k];
  return f;
}

GHMIX_HD int ghmix_gh1_args_shared(const ghmix_gh1_args *a) {
  int k;
  for (k = 2; k < GHMIX_GH1_NARGS; k++)
    if (a->len[k] != 1)
      return 0;
  return 1;
}

GHMIX_HD int ghmix_gh1_element_inputs(const ghmix_gh1_args *a, size_t i,
                                      double v[GHMIX_GH1_NARGS],
                                      double *na_sum) {
  double sum = 0.0;
  int k;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    v[k] = a->in[k][ghmix_recycle((ptrdiff_t)i, a->len[k], a->n)];
    sum = ghmix_na_sum(sum, v[k]);
  }
  *na_sum = sum;
  return isnan(sum);
}

GHMIX_HD int ghmix_gh1_cache_set(ghmix_gh1_cache *c,
                                 const double v[GHMIX_GH1_NARGS]) {
  double g = v[2] / v[3];
  if (c->have && v[4] == c->p && v[5] == c->a && v[6] == c->b && g == c->g)
    return 0;
  ghmix_gh1_init_density(v[4], v[5], v[6], g, &c->h);
  c->p = v[4];
  c->a = v[5];
  c->b = v[6];
  c->g = g;
  c->have = 1;
  return 1;
}

GHMIX_HD double ghmix_gh1_density_element(const ghmix_gh1_args *a, size_t i,
                                          const ghmix_gh1 *shared,
                                          ghmix_gh1_cache *c, int give_log) {
  double v[GHMIX_GH1_NARGS], na;
  if (ghmix_gh1_element_inputs(a, i, v, &na))
    return na;
  if (shared == NULL) {
    ghmix_gh1_cache_set(c, v);
    shared = &c->h;
  }
  return ghmix_gh1_density_x(shared, v[0], v[1], v[3], give_log);
}
