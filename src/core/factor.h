/* The E-step of a normal variance-mean mixture whose Sigma is
 * factor-analytic: Sigma = F F' + diag(D), F d x r (0 <= r < d), D > 0
 * (GHMIX_COV_FACTOR of estep.h).
 *
 * With M = I_r + F' D^-1 F = C C' (C lower) the Woodbury identity (Golub
 * and Van Loan, Matrix Computations, 4th ed., sec. 2.1.4) gives
 *   Sigma^-1 = D^-1 - D^-1 F M^-1 F' D^-1 = D^-1 - beta' F' D^-1,
 *   beta = M^-1 F' D^-1 (r x d, the factor-analysis projection: E[f | u]
 *   = beta u, Rubin and Thayer 1982),
 *   log det Sigma = log det M + sum_j log D_j (the determinant lemma),
 * so that for a row u = x - m
 *   Q = u' Sigma^-1 u = u' D^-1 u - (beta u)' M (beta u),
 *   B = u' Sigma^-1 gamma = u' s,  s = Sigma^-1 gamma,
 * in O(d r) per row, and no d x d matrix is ever formed.  The posterior of
 * Y then comes from ghmix_mix_row_step (mixture.h), exactly as for a full
 * Sigma, so that every form of log f (near-normal, large order, Student,
 * an overflowed Q) is the same.
 *
 * Q is a difference of two non-negative terms.  Since Sigma^-1 >= D^-1 /
 * (1 + lambda), lambda the largest eigenvalue of F' D^-1 F, Q >= u' D^-1 u
 * / (1 + lambda): the difference loses at most log10(1 + lambda) digits
 * (one factor: lambda = sum_j F_j1^2 / D_j, e.g. 468 for 468 columns with
 * half their variance in the factor, up to 2.7 digits), and a rounding
 * below 0 is clamped to 0.  gamma' Sigma^-1 gamma is formed the same way. */
#ifndef GHMIX_FACTOR_H
#define GHMIX_FACTOR_H
#include <stddef.h>

#include "ghmix_hd.h"
#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The row-independent part (ghmix_factor_model_init); read-only after. */
typedef struct {
  int d, r;
  const double *center;     /* m (d), the centre the statistics are taken at */
  const double *dinv;       /* 1 / D_j (d) */
  const double *proj_t;     /* beta' (d x r, row-major: beta_kj at j r + k),
                               i.e. beta as an r x d column-major matrix */
  const double *chol;       /* C (r x r, column-major, lower), M = C C' */
  const double *s;          /* Sigma^-1 gamma (d) */
  const double *gamma;      /* gamma (d) and beta gamma (r): the heavy rows' */
  const double *beta_gamma; /* |z_perp| (mixture.h, factor.c) */
  double gsg, logdet;       /* gamma' Sigma^-1 gamma (+Inf when it overflows)
                               and log det Sigma */
  ghmix_mix_const c;        /* the posterior's constants (mixture.h) */
} ghmix_factor_model;

/* u' D^-1 u (*qd), B = u' s (*b) and beta u (bu, r doubles) of the row
 * u (u_j = u[j * stride], u = x - m). */
GHMIX_HD void ghmix_factor_row_forms(const ghmix_factor_model *fm,
                                     const double *u, size_t stride, double *bu,
                                     double *qd, double *b);

/* The row's result and terms from those forms (ghmix_mix_row_step, or
 * ghmix_mix_row_step_r where Q overflows: then qd and bu are formed again
 * from u / max_j |u_j| / sqrt(D_j) and bu is scaled back); 1 when it is
 * accepted. */
GHMIX_HD int ghmix_factor_row_finish(const ghmix_factor_model *fm,
                                     const double *u, size_t stride, double qd,
                                     double b, double *bu,
                                     ghmix_mix_row_result *res,
                                     ghmix_mix_terms *t);

/* The two in one: the row's result, terms and beta u from u. */
GHMIX_HD int ghmix_factor_row_step(const ghmix_factor_model *fm,
                                   const double *u, size_t stride, double *bu,
                                   ghmix_mix_row_result *res,
                                   ghmix_mix_terms *t);

/* The same from the row x of the data itself (x_j = x[j * stride]), u =
 * x - m formed entry by entry as it is read (m = fm->center): what one
 * thread of the CUDA E-step does (src/cuda/factor_tile.h). */
GHMIX_HD int ghmix_factor_row_step_x(const ghmix_factor_model *fm,
                                     const double *x, size_t stride, double *bu,
                                     ghmix_mix_row_result *res,
                                     ghmix_mix_terms *t);

/* Host only (not compiled for the device). */

/* Doubles of the buffer ghmix_factor_model_init fills: d (1 / D), d r
 * (beta'), r r (C), d (s), r (scratch), d (gamma) and r (beta gamma). */
size_t ghmix_factor_buffer_size(int d, int r);

/* Fills fm from the centre m, F (d x r, column-major), D (d), gamma (d),
 * the mixing GIG (p, a, b) and the E-step flags `what`, with its arrays in
 * buf (ghmix_factor_buffer_size(d, r) doubles, which must outlive fm; the
 * centre is not copied).  O(d r^2) flops.  Returns 1, or 0
 * (fm unusable) when m, F, D or gamma are not finite, some D_j <= 0, M is
 * not numerically positive definite or (p, a, b) is not a GIG. */
int ghmix_factor_model_init(int d, int r, const double *center,
                            const double *loadings, const double *uniq,
                            const double *gamma, double p, double a, double b,
                            int what, double *buf, ghmix_factor_model *fm);

#ifdef __cplusplus
}
#endif
#endif
