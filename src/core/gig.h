/* The generalized inverse Gaussian distribution GIG(p, a, b): density,
 * distribution function, quantile function and random variates.
 *
 *   f(y) = (a/b)^(p/2) / (2 K_p(sqrt(ab))) y^(p-1) exp(-(a y + b/y)/2),  y > 0
 *
 * with a >= 0, b >= 0; a = 0 (p < 0) is the inverse-gamma limit (shape -p,
 * scale b/2) and b = 0 (p > 0) the gamma limit (shape p, rate a/2).
 *
 * Everything is computed in the variable u = log(y / m), where m is the mode
 * of the density of log Y.  With
 *   W = sqrt(p^2 + ab),  alpha = (W + p)/2,  beta = (W - p)/2
 * (alpha beta = ab/4, alpha - beta = p, m = 2 alpha / a = b / (2 beta)) the
 * density of U = log(Y/m) is exp(D(u)) / J with
 *   D(u) = -alpha G(u) - beta G(-u),   G(x) = e^x - 1 - x >= 0,
 * a sum of non-positive terms (no cancellation) that is concave in u, and
 *   J = integral of exp(D(u)) over the real line.
 * The same formula covers the gamma (beta = 0) and inverse-gamma (alpha = 0)
 * limits.  J and the tail integrals are computed by double-exponential
 * quadrature (see gig.c), never through K_p, so the results do not lose
 * digits where log K_p(sqrt(ab)) is large (sqrt(ab) in the thousands, or tiny
 * sqrt(ab) with large |p|).
 *
 * Per-element functions are plain C without R headers; the sampler takes a
 * uniform generator as a function pointer (src/core/rng.h). */
#ifndef GHMIX_GIG_H
#define GHMIX_GIG_H

#include <stddef.h>

#include "ghmix_hd.h"
#include "rng.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GHMIX_GIG_INVALID = 0, /* parameters outside the domain: results are NaN */
  GHMIX_GIG_GENERAL = 1, /* a > 0, b > 0 */
  GHMIX_GIG_GAMMA = 2,   /* b = 0, p > 0 */
  GHMIX_GIG_INVGAMMA = 3 /* a = 0, p < 0 */
} ghmix_gig_kind;

/* A parameter set prepared for ghmix_gig_logpdf / _logcdf / _quantile. */
typedef struct {
  double p, a, b;
  int kind;              /* a ghmix_gig_kind */
  double alpha, beta;    /* D(u) = -alpha G(u) - beta G(-u) */
  double la, lb;         /* log alpha, log beta (-Inf when zero) */
  double w2;             /* W = sqrt(p^2 + ab) */
  double m, lm;          /* y = m e^u; lm = log m */
  int m_ok;              /* m is a finite normal number */
  double delta;          /* spacing of the anchors (see gig.c) */
  double log_j;          /* log of the integral of exp(D) */
  int have_halves;       /* log_l0 and log_r0 are set */
  double log_l0, log_r0; /* log of the integrals of exp(D) over
                            (-Inf, 0] and [0, Inf) */
} ghmix_gig;

/* Prepares g for (p, a, b).  Returns 1 for a valid parameter set, 0 (and
 * g->kind = GHMIX_GIG_INVALID) when any of p, a, b is NaN or infinite,
 * a < 0, b < 0, a = b = 0, a = 0 with p >= 0, or b = 0 with p <= 0.
 * log J comes from log K_p(sqrt(ab)) where that is exact to a few units in
 * the last place (small terms), else from two quadratures, which also give
 * the two halves log_l0, log_r0. */
GHMIX_HD int ghmix_gig_init(double p, double a, double b, ghmix_gig *g);

/* Computes the halves log_l0 and log_r0 if g does not have them yet.  The
 * distribution and quantile functions call it when they need them, so a g
 * shared between threads must be completed before (the batch drivers do
 * that); ghmix_gig_logpdf never needs it. */
GHMIX_HD void ghmix_gig_complete(ghmix_gig *g);

/* A cache of tail integrals at fixed points ("anchors") of one parameter
 * set, which makes the distribution and quantile functions at many points
 * cheap (see gig.c).  Results are the same with or without it.  Reset it
 * (ghmix_gig_anchors_reset) before first use and whenever the parameter
 * set changes; one per thread. */
#define GHMIX_GIG_ANCHORS 256
typedef struct {
  double tail[2][GHMIX_GIG_ANCHORS];  /* log tails: [0] lower, [1] upper */
  double inner[2][GHMIX_GIG_ANCHORS]; /* log of the pieces to the mode */
} ghmix_gig_anchors;

GHMIX_HD void ghmix_gig_anchors_reset(ghmix_gig_anchors *c);

/* log f(x) for a valid g.  x <= 0 and x = +Inf give -Inf, except the
 * right-hand limit at x = 0 of the gamma limit (b = 0): +Inf for p < 1,
 * log(a/2) for p = 1 (as dgamma).  NaN x gives NaN. */
GHMIX_HD double ghmix_gig_logpdf(const ghmix_gig *g, double x);

/* log P(Y <= q) and log P(Y > q) for a valid g, each computed directly
 * (no cancellation in either tail).  q <= 0 gives (-Inf, 0), q = +Inf gives
 * (0, -Inf). */
GHMIX_HD void ghmix_gig_logcdf(ghmix_gig *g, double q, double *log_lower,
                               double *log_upper);
/* The same with a cache (or NULL). */
GHMIX_HD void ghmix_gig_logcdf_cached(ghmix_gig *g, ghmix_gig_anchors *c,
                                      double q, double *log_lower,
                                      double *log_upper);

/* The quantile: the y with log P(Y <= y) = logprob (lower != 0) or
 * log P(Y > y) = logprob (lower == 0), for a valid g and logprob <= 0.
 * logprob = -Inf gives 0 (lower) or +Inf (upper); logprob = 0 the
 * opposite. */
GHMIX_HD double ghmix_gig_quantile(ghmix_gig *g, double logprob, int lower);
/* The same with a cache (or NULL). */
GHMIX_HD double ghmix_gig_quantile_cached(ghmix_gig *g, ghmix_gig_anchors *c,
                                          double logprob, int lower);

/* Base-R semantics in one call each (these prepare a ghmix_gig every time;
 * the batch drivers in src/cpu/gig_cpu.c reuse it across elements):
 * NaN in any argument gives the sum of the arguments (an R NA stays NA), an
 * invalid parameter set gives NaN, prob outside [0, 1] (log_p: outside
 * [-Inf, 0]) gives NaN. */
GHMIX_HD double ghmix_gig_density(double x, double p, double a, double b,
                                  int give_log);
GHMIX_HD double ghmix_gig_cdf(double q, double p, double a, double b,
                              int lower_tail, int log_p);
GHMIX_HD double ghmix_gig_qf(double prob, double p, double a, double b,
                             int lower_tail, int log_p);

/* The same with a prepared g (valid or not) and an optional cache c
 * (NULL, or one for g's parameters). */
GHMIX_HD double ghmix_gig_density_g(const ghmix_gig *g, double x, int give_log);
GHMIX_HD double ghmix_gig_cdf_g(ghmix_gig *g, ghmix_gig_anchors *c, double q,
                                int lower_tail, int log_p);
GHMIX_HD double ghmix_gig_qf_g(ghmix_gig *g, ghmix_gig_anchors *c, double prob,
                               int lower_tail, int log_p);

/* Random variates (Hoermann and Leydold 2014, see gig.c). */
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
