/* The univariate generalized hyperbolic distribution: density, distribution
 * function and quantile function.
 *
 *   X = mu + Y gamma + sqrt(Y) sigma N,  N ~ N(0, 1),  Y ~ GIG(p, a, b)
 *
 * (a = 0, p < 0: inverse-gamma mixing, the skew-t; b = 0, p > 0: gamma
 * mixing, the variance gamma; see gig.h).  Everything here works with the
 * standardised variable Z = (X - mu) / sigma = Y g + sqrt(Y) N,
 * g = gamma / sigma, and with g >= 0: a negative g is handled by the
 * reflection Z -> -Z (`flip`), which swaps the two tails.
 *
 * Density.  log f comes from the mixture row of mixture.h (Q = z^2,
 * B = g z), except on the side z g > 0 far out, where B and
 * log K_q(sqrt(A (b + Q))) are large and cancel (the power tail of the
 * skew-t: log f ~ -s log z while B ~ z).  There gh_dist.c writes
 *   B + log K_q(w) = (B - w) + (log K_q(w) + w),
 *   B - w = -(a (b + z^2) + g^2 b) / (B + w)     (d = 1, exact),
 * with log K_q(w) + w from Hankel's expansion (DLMF 10.40.2).  The two
 * forms are the same function; the second keeps full relative accuracy of
 * log f at any z.
 *
 * Distribution function.  f is unimodal with its mode c >= 0 (g >= 0) and
 * analytic on the real line except possibly at z = 0 (b = 0: the variance
 * gamma's singularity or kink).  The line is cut at 0 and c into three
 * pieces on each of which f is monotone and analytic inside:
 *   P0 = integral over (-Inf, 0], P1 over [0, c], P2 over [c, Inf).
 * A tail beyond a point is integrated directly from that point outward
 * (no 1 - F), the complementary tail is the sum of the pieces between, so
 * both tails are accurate relative to themselves.  The integrals use
 * double-exponential rules (Takahasi and Mori 1974): half-lines by the
 * trapezoid rule after w = s exp(v - exp(-v)) (Ooura and Mori), finite
 * intervals by the tanh-sinh rule, the step halved until two estimates
 * agree, all in log space relative to the density at the start.  Where the
 * rule would need points outside the doubles (a power tail reaching beyond
 * |z| = 1e150, or an integrable singularity at 0 inside 1e-290) its nodes
 * continue on the local power law, whose corrections there are below
 * 1e-140 relative.
 *
 * Quantile function: Newton's method on the logarithm of the smaller tail
 * in the variable log|x - x0| (x0 = 0 or the mode), safeguarded by
 * bisection.
 *
 * Plain C, no R headers.  The set-up for the density and the density
 * (ghmix_gh1_init_density, ghmix_gh1_logpdf, ghmix_gh1_density_x) are
 * single-source host and device code, which the CUDA backend runs; the
 * complete set-up, the distribution and the quantile functions are host only
 * (the integrals are adaptive). */
#ifndef GHMIX_GH_DIST_H
#define GHMIX_GH_DIST_H

#include "ghmix_hd.h"
#include "mixture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A prepared parameter set of the standardised variable Z. */
typedef struct {
  int valid;          /* (p, a, b) is a GIG and g is finite */
  int flip;           /* the caller's g was negative: Z here is -Z there */
  double p, a, b, g;  /* g = |gamma / sigma| */
  ghmix_mix_const c;  /* mixture constants for d = 1 (log f only) */
  ghmix_mix_const cm; /* the same with the posterior moments */
  double w_hankel;    /* Hankel's expansion for log K_q(w) + w above this */
  double typical_y;   /* the mode of the density of log Y (a length^2) */
  /* Filled by ghmix_gh1_complete: */
  int complete;  /* the fields below are set */
  double mode;   /* c >= 0 */
  double s_left; /* length scales of the density on each side of c */
  double s_right;
  double log_piece[3]; /* log P0, log P1, log P2, normalised to sum to 1 */
  double log_norm;     /* log of the quadrature's P0 + P1 + P2 (about 0) */
} ghmix_gh1;

/* Prepares h for the density of Z = Y g + sqrt(Y) N with Y ~ GIG(p, a, b).
 * Returns 1 for a valid set, 0 (h->valid = 0) when (p, a, b) is not a GIG
 * (see ghmix_gig_valid) or g is not finite. */
GHMIX_HD int ghmix_gh1_init_density(double p, double a, double b, double g,
                                    ghmix_gh1 *h);

/* Finds the mode and the three pieces of a valid h unless it is complete.
 * The distribution and quantile functions read a complete h only (NaN
 * otherwise), so a shared h is completed once, before the threads start. */
void ghmix_gh1_complete(ghmix_gh1 *h);

/* ghmix_gh1_init_density and ghmix_gh1_complete: everything the density,
 * distribution and quantile functions need. */
int ghmix_gh1_init(double p, double a, double b, double g, ghmix_gh1 *h);

/* log f(z) of the caller's Z (flip applied); -Inf at z = +-Inf, +Inf at
 * the variance-gamma singularity z = 0, NaN for NaN z. */
GHMIX_HD double ghmix_gh1_logpdf(const ghmix_gh1 *h, double z);

/* log P(Z <= z) and log P(Z > z) of the caller's Z, each computed
 * directly; h complete. */
void ghmix_gh1_logcdf(const ghmix_gh1 *h, double z, double *log_lower,
                      double *log_upper);

/* The z with log P(Z <= z) = logprob (lower != 0) or log P(Z > z) =
 * logprob (lower == 0), logprob in [-Inf, 0]; h complete. */
double ghmix_gh1_quantile(const ghmix_gh1 *h, double logprob, int lower);

/* Base-R semantics for X = mu + sigma Z with a prepared h for
 * (p, a, b, gamma / sigma) (complete for the distribution and quantile
 * functions): NaN in x, mu or sigma gives their sum (an R NA stays NA), an
 * invalid h or sigma <= 0 gives NaN, a probability outside [0, 1] (log_p:
 * outside [-Inf, 0]) gives NaN. */
GHMIX_HD double ghmix_gh1_density_x(const ghmix_gh1 *h, double x, double mu,
                                    double sigma, int give_log);
double ghmix_gh1_cdf_x(const ghmix_gh1 *h, double q, double mu, double sigma,
                       int lower_tail, int log_p);
double ghmix_gh1_qf_x(const ghmix_gh1 *h, double prob, double mu, double sigma,
                      int lower_tail, int log_p);

#ifdef __cplusplus
}
#endif

#endif
