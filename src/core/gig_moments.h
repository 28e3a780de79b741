/* The expectation-parameter map of the generalized inverse Gaussian
 * distribution, its moments and its Fisher information.
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
 * Single-source (host and device); nothing allocates.  The inverse map is
 * in gig_solve.h. */
#ifndef GHMIX_GIG_MOMENTS_H
#define GHMIX_GIG_MOMENTS_H

#include "ghmix_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The scale-free family Z ~ GIG(p, w, w) at one point: Y = sqrt(b/a) Z for
 * Y ~ GIG(p, a, b), w = sqrt(ab).  What the moments, the Fisher information
 * and the solver share. */
typedef struct {
  double ru, rd;      /* E Z, E 1/Z */
  double lru, lrd, d; /* log E Z, log E 1/Z, E log Z */
  /* derivatives in p and in omega = log w */
  double lru_p, lru_w, lrd_p, lrd_w, d_p, d_w;
  double dx, dx2; /* d/dw, d2/dw2 of log K_|p|(w) (for the variance) */
} ghmix_gig_unit;

/* Values (and the derivatives when deriv) at (p, w), w > 0.  Returns 1 when
 * all are finite. */
GHMIX_HD int ghmix_gig_unit_eval(double p, double w, int deriv,
                                 ghmix_gig_unit *e);

/* w = sqrt(ab) and log sqrt(b/a), without overflow. */
GHMIX_HD void ghmix_gig_scale(double a, double b, double *w, double *logs);

#ifdef __cplusplus
}
#endif

#endif
