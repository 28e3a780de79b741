#include "gh_risk_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/gh_risk.h"
#include "../core/gig.h"
#include "chunks.h"
#include "pool.h"

/* portfolios between interrupt polls: each ~50 us per level, at most
 * ~0.2 s for a law beyond the quadrature's reach (NaN); a team is woken
 * once per chunk */
#define RISK_CHUNK 128

typedef struct {
  const double *mu, *gamma, *sigma, *level;
  size_t n, nl;
  ghmix_risk_what what;
  const ghmix_gig *gig;
  double *q, *shortfall, *y_mass;
} risk_job;

/* Every level of portfolio i. */
static void risk_one(const risk_job *j, size_t i) {
  double g = j->gamma[i] / j->sigma[i];
  size_t k;
  for (k = 0; k < j->nl; k++) {
    size_t o = i + j->n * k;
    double map[2], sf, sf2, ym;
    double zq = ghmix_gh1_risk_quantile(j->gig, g, j->level[k], map,
                                        j->what == GHMIX_RISK_VAR ? NULL : &sf);
    j->q[o] = j->mu[i] + j->sigma[i] * zq;
    if (j->what == GHMIX_RISK_VAR)
      continue;
    if (isnan(sf) || j->what == GHMIX_RISK_Y_MASS)
      ghmix_gh1_tail_moments(j->gig, g, zq, map, &sf2,
                             j->what == GHMIX_RISK_Y_MASS ? &ym : NULL);
    j->shortfall[o] = j->sigma[i] * (isnan(sf) ? sf2 : sf);
    if (j->what == GHMIX_RISK_Y_MASS)
      j->y_mass[o] = ym;
  }
}

static void risk_unit(const void *job, size_t lo, size_t hi, int thread) {
  size_t i;
  (void)thread;
  for (i = lo; i < hi; i++)
    risk_one((const risk_job *)job, i);
}

static void risk_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                       int threads) {
  if (hi - lo < 8)
    threads = 1;
  ghmix_parallel_for((size_t)lo, (size_t)hi, 8, threads, risk_unit, job);
}

ghmix_status ghmix_gh1_risk_batch(size_t n, const double *mu,
                                  const double *gamma, const double *sigma,
                                  size_t nl, const double *level, double p,
                                  double a, double b, ghmix_risk_what what,
                                  double *q, double *shortfall, double *y_mass,
                                  int threads, ghmix_error *err) {
  ghmix_gig gig;
  const risk_job j = {mu,   gamma, sigma, level,     n,     nl,
                      what, &gig,  q,     shortfall, y_mass};
  ghmix_error_clear(err);
  if (!ghmix_gig_init_density(p, a, b, &gig))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "invalid GIG parameters (p = %g, a = %g, b = %g)", p,
                           a, b);
  if (n == 0 || nl == 0)
    return GHMIX_OK;
  return ghmix_run_chunks(n, RISK_CHUNK, risk_range, &j, threads, err);
}
