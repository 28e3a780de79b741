/* The expectation-parameter map of the generalized inverse Gaussian
 * distribution and its inverse.
 *
 * GIG(p, a, b): density proportional to y^(p-1) exp(-(a y + b / y) / 2) on
 * y > 0, a, b > 0; b = 0 with p > 0 is the gamma limit (shape p, rate a/2),
 * a = 0 with p < 0 the inverse-gamma limit (shape -p, scale b/2).
 * Sufficient statistics t(y) = (log y, 1/y, y), natural parameters
 * theta = (p - 1, -b/2, -a/2), log-partition
 * A(theta) = log 2 + log K_p(w) + (p/2) log(b/a) with w = sqrt(ab), and
 * expectation parameters eta = grad A = (E log Y, E 1/Y, E Y), always in
 * that order (the R columns E_log_y, E_inv_y, E_y).
 *
 * The per-element functions are single-source (host and device) and do not
 * allocate.  Maths and decisions: the comment at the top of gig_solve.c. */
#ifndef GHMIX_GIG_SOLVE_H
#define GHMIX_GIG_SOLVE_H

#include "ghmix_hd.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a solution lies (ghmix_gig_solution.note). */
enum {
  GHMIX_GIG_INTERIOR = 0,     /* a > 0, b > 0, all three moments matched */
  GHMIX_GIG_GAMMA = 1,        /* b = 0: eta is on the gamma boundary (to
                                 rounding) */
  GHMIX_GIG_GAMMA_MLE = 2,    /* b = 0: eta beyond the gamma boundary;
                                 E log Y and E Y matched, the given E 1/Y is
                                 above the gamma's */
  GHMIX_GIG_INVGAMMA = 3,     /* a = 0: on the inverse-gamma boundary */
  GHMIX_GIG_INVGAMMA_MLE = 4, /* a = 0: beyond it; E log Y and E 1/Y
                                 matched, the given E Y is above the inverse
                                 gamma's */
  GHMIX_GIG_OUT_OF_RANGE = 5  /* not converged: the solution needs
                                 sqrt(ab) < 1e-300, or a or b outside the
                                 doubles (E Y E 1/Y astronomically large) */
};

/* Which inequality an infeasible eta violates (ghmix_gig_solution
 * .infeasible); eta = (E log Y, E 1/Y, E Y). */
enum {
  GHMIX_GIG_FEASIBLE = 0,
  GHMIX_GIG_INF_PRODUCT = 1, /* E Y * E 1/Y <= 1 */
  GHMIX_GIG_INF_UPPER = 2,   /* E log Y >= log E Y */
  GHMIX_GIG_INF_LOWER = 3    /* E log Y <= -log E 1/Y */
};

typedef struct {
  int max_iter;  /* Newton steps at most, over all starts (default 100) */
  double tol;    /* converged when grad_norm <= tol (default 1e-12) */
  int has_start; /* nonzero: start from (start_p, start_a, start_b) */
  double start_p, start_a, start_b;
  int want_jacobian; /* nonzero: fill jacobian[] (condition is always set) */
} ghmix_gig_solve_control;

typedef struct {
  double p, a, b;
  int iterations;     /* Newton steps taken */
  int converged;      /* 1 when grad_norm <= tol */
  int note;           /* GHMIX_GIG_INTERIOR, GHMIX_GIG_GAMMA, ... */
  int infeasible;     /* GHMIX_GIG_FEASIBLE or the violated inequality */
  double grad_norm;   /* largest relative residual of the moment equations:
                         |model - eta| / eta for E 1/Y and E Y, and
                         / max(1, |E log Y|) for E log Y (the gradient of
                         A(theta) - <theta, eta> in those units); at an _MLE
                         boundary point, of the two moments matched */
  double condition;   /* relative condition number, see gig_solve.c; Inf on
                         a boundary */
  double jacobian[9]; /* d(p, a, b) / d(eta), row-major: rows p, a, b;
                         columns E log Y, E 1/Y, E Y */
} ghmix_gig_solution;

/* Defaults: max_iter 100, tol 1e-12, no start, no Jacobian. */
GHMIX_HD void ghmix_gig_solve_control_init(ghmix_gig_solve_control *ctrl);

/* 1 when (p, a, b) is a GIG or one of its limits: a, b finite and >= 0,
 * p finite, and a > 0 (or p < 0) and b > 0 (or p > 0). */
GHMIX_HD int ghmix_gig_valid(double p, double a, double b);

/* eta = (E log Y, E 1/Y, E Y).  A moment that does not exist (E 1/Y of a
 * gamma with p <= 1, E Y of an inverse gamma with p >= -1) is +Inf.
 * Invalid parameters (see ghmix_gig_valid) give NaN.  Returns 1 when valid. */
GHMIX_HD int ghmix_gig_expectation(double p, double a, double b, double eta[3]);

/* E[Y^r] for any real r, in log space (no overflow of K); +Inf where the
 * moment does not exist (limits only), NaN for invalid parameters or r. */
GHMIX_HD double ghmix_gig_moment(double p, double a, double b, double r);

/* Var(Y), without the cancellation of E[Y^2] - E[Y]^2; +Inf where it does
 * not exist, NaN for invalid parameters. */
GHMIX_HD double ghmix_gig_variance(double p, double a, double b);

/* The Fisher information of the natural parameters, Cov(t(Y)) = Hessian of
 * A(theta), row-major with rows and columns ordered as t(y) = (log y, 1/y,
 * y); analytic (from the first and second derivatives of log K_p).  Interior
 * points only (a > 0, b > 0); returns 0 and NaNs otherwise. */
GHMIX_HD int ghmix_gig_fisher(double p, double a, double b, double info[9]);

/* Feasibility only: GHMIX_GIG_FEASIBLE or the violated inequality;
 * -1 when eta is not finite or E 1/Y or E Y is not positive. */
GHMIX_HD int ghmix_gig_feasibility(const double eta[3]);

/* The gamma shape k with psi(k) - log k = c, c < 0: the gamma MLE from the
 * sample means of log Y and Y (c = mean log Y - log mean Y); the
 * variance-gamma and skew-t M-steps.  NaN unless c < 0. */
GHMIX_HD double ghmix_gamma_shape_mle(double c);

/* digamma(x), x > 0. */
GHMIX_HD double ghmix_digamma(double x);

/* Solve grad A(theta) = eta for (p, a, b).  ctrl may be NULL (defaults).
 * Returns GHMIX_OK, GHMIX_ERR_NO_CONVERGENCE (out holds the best iterate,
 * out->converged = 0), GHMIX_ERR_DOMAIN (eta not finite, or E 1/Y or E Y
 * not positive; NaNs) or GHMIX_ERR_INFEASIBLE (out->infeasible says which
 * inequality; NaNs).  Never allocates. */
GHMIX_HD ghmix_status ghmix_gig_from_expectation(
    const double eta[3], const ghmix_gig_solve_control *ctrl,
    ghmix_gig_solution *out);

#ifdef __cplusplus
}
#endif

#endif
