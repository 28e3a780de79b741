/* Random variates of the generalized inverse Gaussian distribution
 * GIG(p, a, b) (see gig.h for the parametrisation): the generators of
 * Hoermann, W. and Leydold, J. (2014), "Generating generalized inverse
 * Gaussian random variates", Statistics and Computing 24:547-557.  Host
 * only: they take a uniform generator as a function pointer
 * (src/core/rng.h) and call it from the calling thread. */
#ifndef GHMIX_GIG_SAMPLE_H
#define GHMIX_GIG_SAMPLE_H

#include <stddef.h>

#include "rng.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parameter set prepared for drawing. */
typedef struct {
  int method;      /* internal: which generator */
  int reflect;     /* return 1/X instead of X */
  double scale;    /* X = scale * Z */
  double lambda;   /* shape of Z: |p|, or |p| + 1 with boost */
  double psi, chi; /* Z has density z^(lambda-1) exp(-(psi z + chi/z)/2) */
  double boost;    /* gamma limit with shape <= 1: 1/|p|, else 0 */
  double c[8];     /* method constants */
} ghmix_gig_sampler;

/* Prepares s for (p, a, b); returns 1 when valid, else 0 (draws are then
 * NaN). */
int ghmix_gig_sampler_init(double p, double a, double b, ghmix_gig_sampler *s);

/* One variate; calls unif (from the calling thread) as often as needed. */
double ghmix_gig_sampler_draw(const ghmix_gig_sampler *s, ghmix_unif_fn unif);

/* n variates with (p, a, b) recycled from arrays of lengths np, na, nb (as
 * R's rgamma recycles its parameters); invalid or NaN parameters give NaN.
 * Single-threaded; polls ghmix_check_interrupt() every GHMIX_GIG_CHUNK
 * draws.  Returns GHMIX_OK, GHMIX_ERR_DOMAIN (n > 0 with an empty parameter
 * array) or GHMIX_ERR_INTERRUPTED. */
#define GHMIX_GIG_CHUNK ((size_t)1 << 16)
ghmix_status ghmix_gig_sample(size_t n, const double *p, size_t np,
                              const double *a, size_t na, const double *b,
                              size_t nb, ghmix_unif_fn unif, double *out,
                              ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
