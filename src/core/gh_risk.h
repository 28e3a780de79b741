/* Tail partial moments of the univariate GH law, for expected shortfall
 * and its allocation.  With Z = Y g + sqrt(Y) N, N ~ N(0, 1) independent
 * of Y ~ GIG(p, a, b), and a point zq (the standardised quantile), given
 * Y = y the variable Z is normal with mean y g and variance y, so
 *   E[(zq - Z)^+ | Y = y] = sqrt(y) psi(z),     psi(z) = phi(z) + z Phi(z),
 *   P(Z <= zq | Y = y)    = Phi(z),             z = (zq - y g) / sqrt(y),
 * and the partial moments are one-dimensional integrals over the GIG law
 * of Y: E[(zq - Z)^+] and E[Y 1{Z <= zq}].  They are taken in u =
 * log(y / m) (gig.h: the density of U is exp(D(u)) / J, no cancellation)
 * by de_quad.c's rule after u = u0 + c sinh(v), u0 the peak of the
 * integrand and c its width: the peak is resolved at the first steps, and
 * tails that are only geometric in u (power tails of Y) become
 * double-exponential in v.  Everything is in logs relative to the peak,
 * psi and Phi far in their lower tails from the continued fraction of
 * Mills' ratio, so a tail of probability 1e-300 is as accurate as one of
 * 0.1.  Plain C, no R headers; host only (adaptive quadrature). */
#ifndef GHMIX_GH_RISK_H
#define GHMIX_GH_RISK_H

#include "gig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* E[(zq - Z)^+] into *shortfall and, when y_mass is not NULL, E[Y 1{Z <=
 * zq}] into *y_mass, for gig prepared by ghmix_gig_init_density (valid),
 * map NULL or the centre and width of the map to use (map[1] > 0; from
 * ghmix_gh1_risk_quantile at the same zq), else found here,
 * g and zq finite; Inf where the moment is infinite (a = 0: the shortfall
 * for p >= -1/2 with g = 0 and p >= -1 with g < 0, the y mass for p >= -1
 * with g <= 0); NaN where the integral fails and for laws beyond the
 * method's reach: a GIG scale m (the mode of log Y) outside e^+-300 or
 * W = sqrt(p^2 + ab) above 1e100. */
void ghmix_gh1_tail_moments(const ghmix_gig *gig, double g, double zq,
                            const double *map, double *shortfall,
                            double *y_mass);

/* The alpha-quantile of Z, 0 < alpha < 1 (NaN otherwise), for gig
 * prepared by ghmix_gig_init_density: the root of P(Z <= z) = alpha (or
 * of the upper tail beyond 1/2) with the distribution function from the
 * same mixture integral, to about 1e-15 relative.  map (or NULL): the
 * centre and width of the quadrature's map in log Y at the root, which
 * ghmix_gh1_tail_moments takes as a hint (map[1] = 0: none).  shortfall
 * (or NULL): E[(zq - Z)^+] from the nodes of the last integral of the
 * root's search (alpha <= 1/2), as accurate as ghmix_gh1_tail_moments'; NaN
 * where it is not available (then ghmix_gh1_tail_moments gives it). */
double ghmix_gh1_risk_quantile(const ghmix_gig *gig, double g, double alpha,
                               double map[2], double *shortfall);

/* log Phi(z) and log psi(z), psi(z) = phi(z) + z Phi(z) = E[(z - N)^+],
 * accurate relative to themselves for every z. */
double ghmix_log_norm_cdf(double z);
double ghmix_log_norm_psi(double z);

#ifdef __cplusplus
}
#endif

#endif
