/* Threaded driver of the risk measures of univariate GH laws that share
 * one mixing law GIG(p, a, b): the laws of portfolios w'X of one
 * multivariate GH law, or one univariate law at many levels.  Plain C, no
 * R headers. */
#ifndef GHMIX_GH_RISK_CPU_H
#define GHMIX_GH_RISK_CPU_H

#include <stddef.h>

#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ghmix_gh1_risk_batch computes. */
typedef enum {
  GHMIX_RISK_VAR = 0,       /* the quantiles only */
  GHMIX_RISK_SHORTFALL = 1, /* and E[(q - X)^+] */
  GHMIX_RISK_Y_MASS = 2     /* and E[Y 1{X <= q}] */
} ghmix_risk_what;

/* For the laws X_i = mu[i] + Y gamma[i] + sqrt(Y) sigma[i] N (i < n) and
 * the lower-tail probabilities level[k] (k < nl), into element i + n k of
 * each output: q = the level[k]-quantile (gh_risk.h), E[(q - X)^+]
 * and E[Y 1{X <= q}] (as `what` asks; the others untouched).  Returns
 * GHMIX_OK, GHMIX_ERR_DOMAIN (an invalid (p, a, b)) or
 * GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_gh1_risk_batch(size_t n, const double *mu,
                                  const double *gamma, const double *sigma,
                                  size_t nl, const double *level, double p,
                                  double a, double b, ghmix_risk_what what,
                                  double *q, double *shortfall, double *y_mass,
                                  int threads, ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
