/* Threaded batch drivers for the GH distribution functions: the univariate
 * density, distribution and quantile functions of src/core/gh_dist.h with
 * R's recycling of every argument, and the multivariate density of rows
 * from their quadratic forms (src/core/mixture.h).  Plain C, no R
 * headers. */
#ifndef GHMIX_GH_DIST_CPU_H
#define GHMIX_GH_DIST_CPU_H

#include <stddef.h>

#include "../core/elementwise.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GHMIX_GH_FUN_DENSITY = 0,
  GHMIX_GH_FUN_CDF = 1,
  GHMIX_GH_FUN_QUANTILE = 2
} ghmix_gh_fun;

/* out[i] = fun(in[0][i % len[0]]; in[1][i % len[1]], ...) for i < n, the
 * GHMIX_GH1_NARGS inputs in the order of the R arguments (x, mu, gamma,
 * sigma, p, a, b; src/core/elementwise.h), with base-R semantics
 * (ghmix_gh1_density_x / _cdf_x / _qf_x in gh_dist.h):
 * NaN in any input gives the sum of the inputs (an R NA stays NA).  For
 * the density flag1 is give_log (flag2 ignored); for the distribution and
 * quantile functions flag1 is lower_tail and flag2 log_p.
 *
 * A parameter set is prepared once per run of equal consecutive values on
 * each thread (once in all when every parameter has length 1).  The work
 * is split into chunks; ghmix_check_interrupt() is polled between them
 * from the calling thread only.  Results do not depend on the thread
 * count.  Returns GHMIX_OK, GHMIX_ERR_DOMAIN (n > 0 and an empty input) or
 * GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_gh1_dpq_batch(ghmix_gh_fun fun, size_t n,
                                 const double *const in[GHMIX_GH1_NARGS],
                                 const size_t len[GHMIX_GH1_NARGS], int flag1,
                                 int flag2, double *out, int threads,
                                 ghmix_error *err);

/* The d-variate density at n rows given their quadratic forms
 * Q[i] = (x_i - mu)' Sigma^-1 (x_i - mu) and B[i] = (x_i - mu)' Sigma^-1
 * gamma, with gSg = gamma' Sigma^-1 gamma and logdet = log det Sigma:
 * out[i] = log f(x_i) (give_log) or f(x_i), by ghmix_mix_row.  NaN Q or B
 * give NaN.  Returns GHMIX_OK, GHMIX_ERR_DOMAIN (invalid parameters) or
 * GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_gh_density_rows(size_t n, const double *Q, const double *B,
                                   int d, double p, double a, double b,
                                   double gSg, double logdet, int give_log,
                                   double *out, int threads, ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
