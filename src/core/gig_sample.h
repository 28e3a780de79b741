/* Random variates of the generalized inverse Gaussian distribution
 * GIG(p, a, b) (see gig.h for the parametrisation): the generators of
 * Hoermann, W. and Leydold, J. (2014), "Generating generalized inverse
 * Gaussian random variates", Statistics and Computing 24:547-557.  Host
 * only: they take a uniform generator as a function pointer
 * (src/core/rng.h) and call it from the calling thread. */
#ifndef GHMIX_GIG_SAMPLE_H
#define GHMIX_GIG_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parameter set prepared for drawing. */
typedef struct {
  int method;      /* internal: which generator */
  int reflect;     /* return 1/X instead of X */
  int log_scale;   /* X = exp(lscale + log Z) (scale is not a double) */
  double scale;    /* X = scale * Z */
  double lscale;   /* log of the scale */
  double lambda;   /* shape of Z: |p|, or |p| + 1 with boost */
  double lm1;      /* lambda - 1, exactly (|p| with boost) */
  double psi, chi; /* Z has density z^(lambda-1) exp(-(psi z + chi/z)/2) */
  double boost;    /* gamma limit with shape <= 1: 1/|p|, else 0 */
  double c[10];    /* method constants */
} ghmix_gig_sampler;

/* Prepares s for (p, a, b); returns 1 when valid, else 0 (draws are then
 * NaN).  Every valid (p, a, b), the limits and the extremes of the doubles
 * included, gets a generator whose expected number of trials per draw is
 * bounded (Hoermann and Leydold's constants in the variable of the mode,
 * computed from (lambda, omega = sqrt(ab)) and in logs where they leave the
 * doubles, the scale applied last); a law narrower than the rounding of its
 * mode draws the mode. */
int ghmix_gig_sampler_init(double p, double a, double b, ghmix_gig_sampler *s);

/* One variate; calls unif (from the calling thread) as often as needed, at
 * most GHMIX_GIG_MAX_TRIALS rejection trials: then NaN (not reached with
 * valid constants: the chance is below 1e-1000). */
#define GHMIX_GIG_MAX_TRIALS 10000
double ghmix_gig_sampler_draw(const ghmix_gig_sampler *s, ghmix_unif_fn unif);

/* The same, adding the number of trials it took to *trials. */
double ghmix_gig_sampler_draw_counted(const ghmix_gig_sampler *s,
                                      ghmix_unif_fn unif, uint64_t *trials);

/* n variates with (p, a, b) recycled from arrays of lengths np, na, nb (as
 * R's rgamma recycles its parameters); invalid or NaN parameters give NaN.
 * Single-threaded; polls ghmix_check_interrupt() between draws, every
 * GHMIX_GIG_CHUNK draws and every GHMIX_GIG_POLL_TRIALS trials (a slow
 * parameter set takes more trials per draw).  Returns GHMIX_OK,
 * GHMIX_ERR_DOMAIN (n > 0 with an empty parameter array) or
 * GHMIX_ERR_INTERRUPTED. */
#define GHMIX_GIG_CHUNK ((size_t)1 << 16)
#define GHMIX_GIG_POLL_TRIALS ((uint64_t)1 << 20)
ghmix_status ghmix_gig_sample(size_t n, const double *p, size_t np,
                              const double *a, size_t na, const double *b,
                              size_t nb, ghmix_unif_fn unif, double *out,
                              ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
