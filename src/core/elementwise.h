/* The per-element bodies of the batch operations that run on both backends
 * (log K, the GIG expectation map, the GIG solve, the univariate GH
 * density) and of the CPU-only GIG moments: one element's inputs (recycled
 * as in R), its special values and its outputs.  The CPU drivers (src/cpu)
 * and the CUDA kernels (src/cuda/kernels.cu) keep only their loops,
 * blocking and reductions around them, so both backends run this code.
 *
 * NaN in an input gives the sum of the inputs, by ghmix_na_sum (batch.h),
 * which keeps R's NA payload on every platform.
 *
 * The element functions are single-source (host and device) and inline,
 * so that each driver's loop compiles them in place: a log K value costs
 * about 100 ns, where two more calls (one through the shared library's
 * PLT) add several per cent.  The checks at the end are host only: they
 * write the drivers' shared error messages. */
#ifndef GHMIX_ELEMENTWISE_H
#define GHMIX_ELEMENTWISE_H

#include <math.h>
#include <stddef.h>

#include "batch.h"
#include "bessel.h"
#include "gh_dist.h"
#include "ghmix_hd.h"
#include "gig_solve.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* log K_nu(x) at x[i % nx], nu[i % nnu], and its derivatives d/dx and
 * d/dnu when grad_x or grad_nu is not NULL.  Special values: NaN in x or
 * nu gives x + nu, x < 0 NaN, x = 0 +Inf, x = +Inf -Inf, |nu| = Inf with
 * 0 <= x < Inf +Inf, x and |nu| both infinite NaN; the derivatives follow
 * the same limits. */
typedef struct {
  size_t n;
  const double *x, *nu;
  size_t nx, nnu;
  double *logk, *grad_x, *grad_nu; /* n each; grad_x, grad_nu may be NULL */
} ghmix_logk_args;

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

GHMIX_INLINE void ghmix_logk_element(const ghmix_logk_args *a, size_t i) {
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

/* Recycled GIG parameters: element i has p[i % np], a[i % na], b[i % nb]. */
typedef struct {
  const double *p, *a, *b;
  size_t np, na, nb;
} ghmix_gig_params;

/* eta = (E log Y, E 1/Y, E Y) of element i into out_log, out_inv, out_y;
 * invalid parameters give NaN. */
typedef struct {
  size_t n;
  ghmix_gig_params par;
  double *out_log, *out_inv, *out_y;
} ghmix_gig_eta_args;

/* (p, a, b) of element i of n; returns 1 when one of them is NaN. */
GHMIX_INLINE int ew_gig_params(const ghmix_gig_params *g, size_t i, size_t n,
                               double *p, double *a, double *b) {
  *p = g->p[ghmix_recycle((ptrdiff_t)i, g->np, n)];
  *a = g->a[ghmix_recycle((ptrdiff_t)i, g->na, n)];
  *b = g->b[ghmix_recycle((ptrdiff_t)i, g->nb, n)];
  return isnan(*p) || isnan(*a) || isnan(*b);
}

GHMIX_INLINE void ghmix_gig_eta_element(const ghmix_gig_eta_args *a, size_t i) {
  double p, ga, gb, eta[3];
  if (ew_gig_params(&a->par, i, a->n, &p, &ga, &gb))
    eta[0] = eta[1] = eta[2] = ghmix_na_sum(ghmix_na_sum(p, ga), gb);
  else
    ghmix_gig_expectation(p, ga, gb, eta);
  a->out_log[i] = eta[0];
  a->out_inv[i] = eta[1];
  a->out_y[i] = eta[2];
}

/* What ghmix_gig_moment_element computes. */
enum {
  GHMIX_GIG_MOMENT_RAW = 0,     /* E[Y^r] */
  GHMIX_GIG_MOMENT_VARIANCE = 1 /* Var(Y); r is ignored and may be NULL */
};

/* E[Y^r] (r = r[i % nr]) or Var(Y) of element i into out[i]. */
typedef struct {
  size_t n;
  ghmix_gig_params par;
  const double *r;
  size_t nr;
  int what; /* GHMIX_GIG_MOMENT_* */
  double *out;
} ghmix_gig_moment_args;

GHMIX_INLINE void ghmix_gig_moment_element(const ghmix_gig_moment_args *a,
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

/* GIG solves of n rows: eta n x 3, column-major (columns E log Y, E 1/Y,
 * E Y); start NULL or n x 3 (p, a, b), a row with a non-finite entry
 * meaning a cold start; outputs n each; jacobian NULL or 9 n doubles, row
 * i's d(p, a, b) / d(eta) at jacobian + 9 i, column-major. */
typedef struct {
  size_t n;
  const double *eta, *start;
  ghmix_gig_solve_control ctrl; /* start and want_jacobian set per row */
  double *p, *a, *b, *grad_norm, *condition, *jacobian;
  int *iterations, *converged, *note, *infeasible;
} ghmix_gig_solve_args;

/* The feasibility of row i into infeasible[i] (GHMIX_GIG_INFEASIBLE_*, or -1
 * when eta is not finite and positive); returns it. */
GHMIX_INLINE int ghmix_gig_solve_check(const ghmix_gig_solve_args *s,
                                       size_t i) {
  double eta[3];
  eta[0] = s->eta[i];
  eta[1] = s->eta[s->n + i];
  eta[2] = s->eta[2 * s->n + i];
  s->infeasible[i] = ghmix_gig_feasibility(eta);
  return s->infeasible[i];
}

/* Row i: its feasibility check and, when it is feasible, the solve and its
 * outputs.  Returns infeasible[i]. */
GHMIX_INLINE int ghmix_gig_solve_element(const ghmix_gig_solve_args *s,
                                         size_t i) {
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

/* The inputs of the univariate GH functions, in the order of the R
 * arguments: x (or q, prob), mu, gamma, sigma, p, a, b; element i has
 * in[k][i % len[k]]. */
#define GHMIX_GH1_NARGS 7
typedef struct {
  size_t n;
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS];
} ghmix_gh1_args;

/* 1 when p, a, b, gamma and sigma have length 1: one parameter set for
 * every element, prepared once. */
GHMIX_INLINE int ghmix_gh1_args_shared(const ghmix_gh1_args *a) {
  int k;
  for (k = 2; k < GHMIX_GH1_NARGS; k++)
    if (a->len[k] != 1)
      return 0;
  return 1;
}

/* The inputs of element i into v; returns 1, with their sum in *na_sum,
 * when that sum is NaN (then it is the element's result). */
GHMIX_INLINE int ghmix_gh1_element_inputs(const ghmix_gh1_args *a, size_t i,
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

/* The parameter set a thread prepared last (for the density), and its
 * parameters. */
typedef struct {
  ghmix_gh1 h;
  int have;
  double p, a, b, g;
} ghmix_gh1_cache;

/* Makes c->h the set of the inputs v (g = gamma / sigma); returns 1 when it
 * had to prepare it again, 0 when c already held it. */
GHMIX_INLINE int ghmix_gh1_cache_set(ghmix_gh1_cache *c,
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

/* The density (give_log: its log) of element i, with the parameter set
 * shared, or (shared == NULL) that of c. */
GHMIX_INLINE double ghmix_gh1_density_element(const ghmix_gh1_args *a, size_t i,
                                              const ghmix_gh1 *shared,
                                              ghmix_gh1_cache *c,
                                              int give_log) {
  double v[GHMIX_GH1_NARGS], na;
  if (ghmix_gh1_element_inputs(a, i, v, &na))
    return na;
  if (shared == NULL) {
    ghmix_gh1_cache_set(c, v);
    shared = &c->h;
  }
  return ghmix_gh1_density_x(shared, v[0], v[1], v[3], give_log);
}

/* ---------------------------------------------------------------------
 * The drivers' input checks, host only: GHMIX_OK, or GHMIX_ERR_DOMAIN
 * when n > 0 and an input is empty. */

static inline ghmix_status ghmix_logk_args_check(const ghmix_logk_args *a,
                                                 ghmix_error *err) {
  if (a->n > 0 && (a->nx == 0 || a->nnu == 0))
    return ghmix_empty_input(err, "x and nu");
  return GHMIX_OK;
}

static inline ghmix_status ghmix_gig_params_check(const ghmix_gig_params *g,
                                                  size_t n, ghmix_error *err) {
  if (n > 0 && (g->np == 0 || g->na == 0 || g->nb == 0))
    return ghmix_empty_input(err, "p, a and b");
  return GHMIX_OK;
}

static inline ghmix_status ghmix_gh1_args_check(const ghmix_gh1_args *a,
                                                ghmix_error *err) {
  int k;
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    if (a->n > 0 && a->len[k] == 0)
      return ghmix_empty_input(err, "inputs");
  return GHMIX_OK;
}

/* The error of a batch of solves whose first infeasible row is
 * first_infeasible and whose first row with eta not finite and positive is
 * first_domain (-1: none), in that order; GHMIX_OK when both are -1. */
static inline ghmix_status ghmix_gig_solve_bad_rows(ptrdiff_t first_infeasible,
                                                    ptrdiff_t first_domain,
                                                    ghmix_error *err) {
  if (first_infeasible >= 0)
    return ghmix_error_set(err, GHMIX_ERR_INFEASIBLE, first_infeasible,
                           "eta is infeasible in row %.0f",
                           (double)first_infeasible + 1);
  if (first_domain >= 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, first_domain,
                           "eta is not finite and positive in row %.0f",
                           (double)first_domain + 1);
  return GHMIX_OK;
}

#ifdef __cplusplus
}
#endif

#endif
