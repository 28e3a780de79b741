/* The inverse of the GIG expectation-parameter map: eta = (E log Y,
 * E 1/Y, E Y) -> (p, a, b), with the feasibility of eta, the boundary
 * limits and the Jacobian.  The forward map, the moments and the notation
 * are in gig_moments.h (included), the gamma functions of the limits in
 * gamma.h (included).
 *
 * The per-element functions are single-source (host and device) and do not
 * allocate.  Maths and decisions: the comment at the top of gig_solve.c. */
#ifndef GHMIX_GIG_SOLVE_H
#define GHMIX_GIG_SOLVE_H

#include "gamma.h"
#include "ghmix_hd.h"
#include "gig_moments.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a solution lies (ghmix_gig_solution.note). */
enum {
  GHMIX_GIG_NOTE_INTERIOR = 0,     /* a > 0, b > 0, all three moments
                                      matched */
  GHMIX_GIG_NOTE_GAMMA = 1,        /* b = 0: eta is on the gamma boundary
                                      (to rounding) */
  GHMIX_GIG_NOTE_GAMMA_MLE = 2,    /* b = 0: eta beyond the gamma boundary;
                                      E log Y and E Y matched, the given
                                      E 1/Y is above the gamma's */
  GHMIX_GIG_NOTE_INVGAMMA = 3,     /* a = 0: on the inverse-gamma boundary */
  GHMIX_GIG_NOTE_INVGAMMA_MLE = 4, /* a = 0: beyond it; E log Y and E 1/Y
                                      matched, the given E Y is above the
                                      inverse gamma's */
  GHMIX_GIG_NOTE_OUT_OF_RANGE = 5  /* not converged: the solution needs
                                      sqrt(ab) < 1e-300, or a or b outside
                                      the doubles (E Y E 1/Y astronomically
                                      large) */
};

/* Which inequality an infeasible eta violates (ghmix_gig_solution
 * .infeasible); eta = (E log Y, E 1/Y, E Y). */
enum {
  GHMIX_GIG_INFEASIBLE_NONE = 0,
  GHMIX_GIG_INFEASIBLE_PRODUCT = 1, /* E Y * E 1/Y <= 1 */
  GHMIX_GIG_INFEASIBLE_UPPER = 2,   /* E log Y >= log E Y */
  GHMIX_GIG_INFEASIBLE_LOWER = 3    /* E log Y <= -log E 1/Y */
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
  int note;           /* GHMIX_GIG_NOTE_* */
  int infeasible;     /* GHMIX_GIG_INFEASIBLE_* */
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

/* Feasibility only: GHMIX_GIG_INFEASIBLE_NONE or the violated inequality;
 * -1 when eta is not finite or E 1/Y or E Y is not positive. */
GHMIX_HD int ghmix_gig_feasibility(const double eta[3]);

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
