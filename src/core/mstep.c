#include "mstep.h"

#include <float.h>
#include <math.h>

#include "gig_solve.h"
#include "mixture.h"

/* GH: GIG(p, a, b) with E t(Y) = eta, the convex problem of gig_solve.h.
 * Near the normal limit E Y E 1/Y - 1 = O(1 / sqrt(ab)): from
 * sqrt(ab) >= GHMIX_MIX_W_SCALED at the start it can round to <= 0 (eta
 * has no GIG), and from sqrt(ab) >= 1 / DBL_EPSILON it is below the
 * rounding of 1 (eta carries no information on the mixing law).  There
 * the step holds the mixing law at the start (an ECM step, Meng and Rubin
 * 1993: mu, gamma, Sigma still maximise, so the likelihood does not
 * fall). */
static void mstep_gh(const double eta[3], const double start[3],
                     ghmix_mstep_mixing *out) {
  ghmix_gig_solve_control ctrl;
  ghmix_gig_solution sol;
  double w;
  ghmix_gig_solve_control_init(&ctrl);
  ctrl.has_start = 1;
  ctrl.start_p = start[0];
  ctrl.start_a = start[1];
  ctrl.start_b = start[2];
  w = sqrt(start[1]) * sqrt(start[2]);
  if (w * DBL_EPSILON < 1.0)
    ghmix_gig_from_expectation(eta, &ctrl, &sol);
  if (w * DBL_EPSILON >= 1.0 ||
      (sol.infeasible == GHMIX_GIG_INFEASIBLE_PRODUCT &&
       w >= GHMIX_MIX_W_SCALED)) {
    out->p = start[0];
    out->a = start[1];
    out->b = start[2];
    return;
  }
  out->p = sol.p;
  out->a = sol.a;
  out->b = sol.b;
  out->converged = sol.converged;
  out->note = sol.note;
}

/* NIG: inverse Gaussian IG(m, l) = GIG(-1/2, l / m^2, l), MLE (Tweedie
 * 1957): m = E Y, 1/l = E 1/Y - 1/E Y.  With the deviation means u, v
 * about c (E 1/Y = (1 + u) / c, E Y = c (1 + v)), 1/l = (u + v + u v) /
 * (c (1 + v)): the same, without the cancellation of E 1/Y against 1/E Y
 * (u + v is O(1 / sqrt(ab)) with the relative accuracy of its terms). */
static void mstep_nig(const double eta[3], const double dev[2],
                      const double start[3], ghmix_mstep_mixing *out) {
  out->p = -0.5;
  if (dev != NULL && sqrt(start[1]) * sqrt(start[2]) >= GHMIX_MIX_W_SCALED) {
    double c = ghmix_mix_dev_scale(start[1], start[2]);
    double den = dev[0] + dev[1] + dev[0] * dev[1], v1 = 1.0 + dev[1];
    out->b = c * (v1 / den);
    out->a = (1.0 / (c * v1)) / den;
    return;
  }
  out->b = 1.0 / (eta[1] - 1.0 / eta[2]);
  out->a = out->b / (eta[2] * eta[2]);
}

int ghmix_mstep_mixing_solve(int family, const double eta[3],
                             const double dev[2], const double start[3],
                             ghmix_mstep_mixing *out) {
  out->converged = 1;
  out->note = GHMIX_GIG_NOTE_INTERIOR;
  switch (family) {
  case GHMIX_FAMILY_GH:
    mstep_gh(eta, start, out);
    return 1;
  case GHMIX_FAMILY_NIG:
    mstep_nig(eta, dev, start, out);
    return 1;
  case GHMIX_FAMILY_VG:
    /* gamma(p, rate a/2) MLE: psi(p) - log p = E log Y - log E Y,
     * a/2 = p / E Y */
    out->p = ghmix_gamma_shape_mle(eta[0] - log(eta[2]));
    out->a = 2.0 * out->p / eta[2];
    out->b = 0;
    return 1;
  case GHMIX_FAMILY_SKEWT:
    /* 1/Y ~ gamma(-p, rate b/2): the gamma MLE of 1/Y */
    out->p = -ghmix_gamma_shape_mle(-eta[0] - log(eta[1]));
    out->a = 0;
    out->b = -2.0 * out->p / eta[1];
    return 1;
  default:
    return 0;
  }
}

/* log(E Y E 1/Y) of GIG(p, a, b) at w = sqrt(ab): E Y E 1/Y =
 * K_{p+1}(w) K_{p-1}(w) / K_p(w)^2 (section 2 of DESIGN.md), free of the
 * scale sqrt(b/a). */
static double mstep_log_product(double p, double w) {
  return ghmix_bessel_logk(w, p + 1.0) + ghmix_bessel_logk(w, p - 1.0) -
         2.0 * ghmix_bessel_logk(w, p);
}

/* The boundary of a fixed-p M-step where E Y E 1/Y exceeds every interior
 * GIG's: the gamma law (p > 0, b = 0) or the inverse gamma (p < 0, a = 0)
 * with the same p, matching E Y or E 1/Y. */
static void mstep_fixed_p_boundary(double p, const double eta[3],
                                   ghmix_mstep_mixing *out) {
  out->a = p > 0 ? 2.0 * p / eta[2] : 0.0;
  out->b = p > 0 ? 0.0 : -2.0 * p / eta[1];
}

void ghmix_mstep_mixing_fixed_p(double p, const double eta[3],
                                const double start[3],
                                ghmix_mstep_mixing *out) {
  double target = log(eta[1] * eta[2]), lo = -1.0, hi = 1.0, t, w, r;
  int i;
  out->p = p;
  out->converged = 1;
  out->note = GHMIX_GIG_NOTE_INTERIOR;
  if (!(target > 0.0) || !isfinite(target)) {
    /* E Y E 1/Y <= 1: no GIG; hold the start (ECM) */
    out->a = start[1];
    out->b = start[2];
    return;
  }
  /* log(E Y E 1/Y) falls from its w -> 0 limit to 0 as w -> Inf: bracket
   * the root in t = log w, then bisect */
  for (i = 0; i < 60 && mstep_log_product(p, exp(lo)) < target; i++)
    lo -= 2.0;
  if (mstep_log_product(p, exp(lo)) < target) {
    mstep_fixed_p_boundary(p, eta, out);
    return;
  }
  for (i = 0; i < 60 && mstep_log_product(p, exp(hi)) > target; i++)
    hi += 2.0;
  for (i = 0; i < 200 && hi - lo > 4.0 * DBL_EPSILON * (1.0 + fabs(hi)); i++) {
    t = 0.5 * (lo + hi);
    if (mstep_log_product(p, exp(t)) > target)
      lo = t;
    else
      hi = t;
  }
  w = exp(0.5 * (lo + hi));
  /* E Y = sqrt(b/a) R matches eta[2] */
  r = eta[2] / exp(ghmix_bessel_logk(w, p + 1.0) - ghmix_bessel_logk(w, p));
  out->a = w / r;
  out->b = w * r;
}
