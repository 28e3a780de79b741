/* Normal variance-mean mixtures: one observation's E-step and log-density.
 *
 * X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z, Z ~ N(0, I_d), Y ~ GIG(p, a, b)
 * (a = 0 or b = 0: the inverse-gamma and gamma limits, see gig_solve.h).
 * For a row x write Q = (x - mu)' Sigma^-1 (x - mu) and
 * B = (x - mu)' Sigma^-1 gamma.  Then
 *   Y | X = x ~ GIG(q, A, b + Q), q = p - d/2, A = a + gamma' Sigma^-1 gamma,
 *   log f(x) = c(p, a, b) - (d/2) log(2 pi) - (1/2) log det Sigma + B
 *              - c(q, A, b + Q),
 * where c(p, a, b) = (p/2) log(a/b) - log 2 - log K_p(sqrt(ab)) is the log of
 * the GIG normalising constant (p log(a/2) - lgamma(p) in the gamma limit,
 * -p log(b/2) - lgamma(-p) in the inverse-gamma limit).  The integral that
 * gives this is DLMF 10.32.10.
 *
 * Everything here is per row and single-source (host and device); the
 * drivers in src/cpu (and src/cuda) form Q and B for blocks of rows and sum
 * the statistics. */
#ifndef GHMIX_MIXTURE_H
#define GHMIX_MIXTURE_H
#include "bessel.h"
#include "estep.h"
#include "ghmix_hd.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The row-independent part of the E-step for one parameter set. */
typedef struct {
  double q;          /* p - d/2, the order of the posterior GIG */
  double a_post;     /* A = a + gamma' Sigma^-1 gamma */
  double sqrt_a;     /* sqrt(A) */
  double log_sqrt_a; /* log sqrt(A) */
  double b;          /* the prior b */
  double log_const;  /* c(p, a, b) - (d/2) log(2 pi) - (1/2) log det Sigma */
  int what;          /* GHMIX_ESTEP_* flags (src/core/estep.h) */
} ghmix_mix_const;

/* One row's results.  loglik is log f(x); +Inf when the density is
 * infinite there (b = 0, x = mu, q <= 0: the variance-gamma singularity),
 * and then the moments are +Inf too. */
typedef struct {
  double loglik;
  double e_inv_y; /* E[1/Y | x] */
  double e_y;     /* E[Y | x] */
  double e_log_y; /* E[log Y | x] (only with GHMIX_ESTEP_LOGY) */
} ghmix_mix_row_result;

/* log of the GIG normalising constant c(p, a, b) (limits included); NaN for
 * invalid parameters (see ghmix_gig_valid). */
GHMIX_HD double ghmix_gig_log_norm(double p, double a, double b);

/* Fills c from the mixture parameters: d, (p, a, b), gSg =
 * gamma' Sigma^-1 gamma and logdet = log det Sigma.  Returns 0 (and leaves
 * c unusable) when (p, a, b) is not a GIG, gSg < 0 or any input is not
 * finite. */
GHMIX_HD int ghmix_mix_const_init(int d, double p, double a, double b,
                                  double gSg, double logdet, int what,
                                  ghmix_mix_const *c);

/* One row: Q = (x-mu)' Sigma^-1 (x-mu) >= 0 and B = (x-mu)' Sigma^-1 gamma.
 * Returns 1 when the density is finite and positive, 0 otherwise (the
 * fields then say what happened: +Inf loglik for the singularity, -Inf for
 * an underflowed density, NaN for NaN input). */
GHMIX_HD int ghmix_mix_row(const ghmix_mix_const *c, double Q, double B,
                           ghmix_mix_row_result *out);

/* ghmix_mix_row in three steps, for drivers that get the Bessel values
 * elsewhere (src/cpu/bessel_table.h): the argument x = sqrt(A (b + Q)) of
 * the posterior's K_q, with sqrt(b + Q) and log s = log sqrt((b + Q) / A),
 * when the row takes the Bessel path (returns 0 for NaN and the gamma /
 * inverse-gamma limits: use ghmix_mix_row then); the Bessel flags the row
 * needs; the row from K_q's values at x. */
typedef struct {
  double x, sb, ls;
} ghmix_mix_row_arg_t;
GHMIX_HD int ghmix_mix_row_arg(const ghmix_mix_const *c, double Q,
                               ghmix_mix_row_arg_t *arg);
GHMIX_HD int ghmix_mix_row_bessel_what(const ghmix_mix_const *c);
GHMIX_HD int ghmix_mix_row_finish(const ghmix_mix_const *c, double B,
                                  const ghmix_mix_row_arg_t *arg,
                                  const ghmix_bessel_result *r,
                                  ghmix_mix_row_result *out);

#ifdef __cplusplus
}
#endif
#endif
