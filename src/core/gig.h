/* The generalized inverse Gaussian distribution GIG(p, a, b): density,
 * distribution function and quantile function.
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
 * Plain C without R headers, host only (the quadrature is adaptive); the
 * random variates are in gig_sample.h. */
#ifndef GHMIX_GIG_H
#define GHMIX_GIG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GHMIX_GIG_KIND_INVALID = 0, /* parameters outside the domain: NaN */
  GHMIX_GIG_KIND_GENERAL = 1, /* a > 0, b > 0 */
  GHMIX_GIG_KIND_GAMMA = 2,   /* b = 0, p > 0 */
  GHMIX_GIG_KIND_INVGAMMA = 3 /* a = 0, p < 0 */
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
  int complete;          /* log_l0 and log_r0 are set (ghmix_gig_complete) */
  double log_l0, log_r0; /* log of the integrals of exp(D) over
                            (-Inf, 0] and [0, Inf) */
} ghmix_gig;

/* Prepares g for (p, a, b), complete: everything the density, distribution
 * and quantile functions need.  Returns 1 for a valid parameter set, 0 (and
 * g->kind = GHMIX_GIG_KIND_INVALID) when any of p, a, b is NaN or infinite,
 * a < 0, b < 0, a = b = 0, a = 0 with p >= 0, or b = 0 with p <= 0. */
int ghmix_gig_init(double p, double a, double b, ghmix_gig *g);

/* The same without the halves where log J does not need them (cheaper):
 * log J comes from log K_p(sqrt(ab)) where that is exact to a few units in
 * the last place (small terms), else from the two half-line quadratures,
 * which also complete g.  Enough for the density and for the distribution
 * function in the tails (see ghmix_gig_logcdf). */
int ghmix_gig_init_density(double p, double a, double b, ghmix_gig *g);

/* Computes the halves log_l0 and log_r0 unless g is complete (log J stays:
 * a result does not depend on whether or when g was completed).  The
 * evaluators never write into g: a g shared between threads is completed
 * once, before they start, and a g of one thread by that thread when an
 * evaluator asks for it. */
void ghmix_gig_complete(ghmix_gig *g);

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

void ghmix_gig_anchors_reset(ghmix_gig_anchors *c);

/* log f(x) for a valid g.  x <= 0 and x = +Inf give -Inf, except the
 * right-hand limit at x = 0 of the gamma limit (b = 0): +Inf for p < 1,
 * log(a/2) for p = 1 (as dgamma).  NaN x gives NaN. */
double ghmix_gig_logpdf(const ghmix_gig *g, double x);

/* log P(Y <= q) and log P(Y > q) for a valid g, each computed directly (no
 * cancellation in either tail).  q <= 0 gives (-Inf, 0), q = +Inf gives
 * (0, -Inf).  Returns 1, or 0 when q is at the mode or between the median
 * and the mode, where the halves are needed, and g is not complete: the
 * outputs are then NaN; complete g (ghmix_gig_complete) and call again. */
int ghmix_gig_logcdf(const ghmix_gig *g, double q, double *log_lower,
                     double *log_upper);
/* The same with a cache (or NULL). */
int ghmix_gig_logcdf_cached(const ghmix_gig *g, ghmix_gig_anchors *c, double q,
                            double *log_lower, double *log_upper);

/* The quantile: the y with log P(Y <= y) = logprob (lower != 0) or
 * log P(Y > y) = logprob (lower == 0), for a valid, complete g and
 * logprob <= 0.  logprob = -Inf gives 0 (lower) or +Inf (upper);
 * logprob = 0 the opposite. */
double ghmix_gig_quantile(const ghmix_gig *g, double logprob, int lower);
/* The same with a cache (or NULL). */
double ghmix_gig_quantile_cached(const ghmix_gig *g, ghmix_gig_anchors *c,
                                 double logprob, int lower);

/* Base-R semantics in one call each (these prepare a ghmix_gig every time;
 * the batch drivers in src/cpu/gig_cpu.c reuse it across elements):
 * NaN in any argument gives the sum of the arguments (an R NA stays NA), an
 * invalid parameter set gives NaN, prob outside [0, 1] (log_p: outside
 * [-Inf, 0]) gives NaN. */
double ghmix_gig_density(double x, double p, double a, double b, int give_log);
double ghmix_gig_cdf(double q, double p, double a, double b, int lower_tail,
                     int log_p);
double ghmix_gig_qf(double prob, double p, double a, double b, int lower_tail,
                    int log_p);

/* The same with a prepared g (valid or not; complete for the quantile
 * function) and an optional cache c (NULL, or one for g's parameters).
 * The distribution function returns its value in *value and 1, or 0 as
 * ghmix_gig_logcdf does. */
double ghmix_gig_density_g(const ghmix_gig *g, double x, int give_log);
int ghmix_gig_cdf_g(const ghmix_gig *g, ghmix_gig_anchors *c, double q,
                    int lower_tail, int log_p, double *value);
double ghmix_gig_qf_g(const ghmix_gig *g, ghmix_gig_anchors *c, double prob,
                      int lower_tail, int log_p);

#ifdef __cplusplus
}
#endif

#endif
