#include "gig_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/batch.h"
#include "../core/elementwise.h"
#include "../core/gig.h"
#include "chunks.h"
#include "pool.h"

/* Elements between interrupt polls, by ghmix_gig_fun: about 0.1 s of work
 * on one thread. */
static const size_t gig_chunk[3] = {(size_t)1 << 16, (size_t)1 << 14,
                                    (size_t)1 << 12};

typedef struct {
  ghmix_gig_fun fun;
  size_t n;
  const double *x;
  size_t nx;
  ghmix_gig_params par;
  int flag1, flag2;
  double *out;
  const ghmix_gig *shared; /* the one parameter set, or NULL */
} gig_job;

/* A thread's parameter set and its cache of tail integrals. */
typedef struct {
  ghmix_gig g;
  ghmix_gig_anchors anchors;
  int have;
  double p, a, b;
} gig_cache;

/* The set of element i: the shared one, or the thread's, prepared again
 * (complete for the quantile function) unless it holds these parameters.
 * NaN parameters never match, so they are prepared each time (cheap: the
 * set-up stops at the validity check). */
static const ghmix_gig *gig_set(const gig_job *j, size_t i, gig_cache *c) {
  double p, a, b;
  if (j->shared != NULL)
    return j->shared;
  p = j->par.p[ghmix_recycle((ptrdiff_t)i, j->par.np, j->n)];
  a = j->par.a[ghmix_recycle((ptrdiff_t)i, j->par.na, j->n)];
  b = j->par.b[ghmix_recycle((ptrdiff_t)i, j->par.nb, j->n)];
  if (!c->have || p != c->p || a != c->a || b != c->b) {
    if (j->fun == GHMIX_GIG_FUN_QUANTILE)
      ghmix_gig_init(p, a, b, &c->g);
    else
      ghmix_gig_init_density(p, a, b, &c->g);
    if (j->fun != GHMIX_GIG_FUN_DENSITY)
      ghmix_gig_anchors_reset(&c->anchors);
    c->p = p;
    c->a = a;
    c->b = b;
    c->have = 1;
  }
  return &c->g;
}

/* The distribution function; a set of this thread's that lacks the halves
 * for x is completed here, by its owner (a shared set is complete). */
static double gig_cdf(const ghmix_gig *g, double x, const gig_job *j,
                      gig_cache *c) {
  double v;
  if (!ghmix_gig_cdf_g(g, &c->anchors, x, j->flag1, j->flag2, &v) &&
      g == &c->g) {
    ghmix_gig_complete(&c->g);
    ghmix_gig_cdf_g(g, &c->anchors, x, j->flag1, j->flag2, &v);
  }
  return v;
}

static double gig_element(const gig_job *j, size_t i, gig_cache *c) {
  const ghmix_gig *g = gig_set(j, i, c);
  double x = j->x[ghmix_recycle((ptrdiff_t)i, j->nx, j->n)];
  switch (j->fun) {
  case GHMIX_GIG_FUN_DENSITY:
    return ghmix_gig_density_g(g, x, j->flag1);
  case GHMIX_GIG_FUN_CDF:
    return gig_cdf(g, x, j, c);
  case GHMIX_GIG_FUN_QUANTILE:
    return ghmix_gig_qf_g(g, &c->anchors, x, j->flag1, j->flag2);
  }
  return NAN;
}

typedef struct {
  const gig_job *j;
  ghmix_claims claims;
} gig_team;

/* The elements thread `thread` claims, with its own cache. */
static void gig_do(void *team, int thread) {
  gig_team *m = (gig_team *)team;
  const gig_job *j = m->j;
  gig_cache cache;
  size_t lo, hi, i;
  (void)thread;
  cache.have = 0;
  if (j->shared != NULL && j->fun != GHMIX_GIG_FUN_DENSITY)
    ghmix_gig_anchors_reset(&cache.anchors);
  while (ghmix_claim(&m->claims, &lo, &hi))
    for (i = lo; i < hi; i++)
      j->out[i] = gig_element(j, i, &cache);
}

static void gig_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                      int threads) {
  gig_team m;
  size_t n = (size_t)(hi - lo);
  m.j = (const gig_job *)job;
  if (n < 2 ||
      (m.j->shared != NULL && m.j->fun == GHMIX_GIG_FUN_DENSITY && n < 4096))
    threads = 1;
  ghmix_claims_init(&m.claims, (size_t)lo, (size_t)hi,
                    ghmix_claims_unit(n, threads, 1));
  ghmix_team_run(threads, gig_do, &m);
}

ghmix_status ghmix_gig_dpq_batch(ghmix_gig_fun fun, size_t n, const double *x,
                                 size_t nx, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, int flag1, int flag2, double *out,
                                 int threads, ghmix_error *err) {
  gig_job j = {fun, n, x, nx, {p, a, b, np, na, nb}, flag1, flag2, out, NULL};
  ghmix_gig shared;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (nx == 0 || np == 0 || na == 0 || nb == 0)
    return ghmix_empty_input(err, "inputs");
  if (np == 1 && na == 1 && nb == 1) {
    if (fun == GHMIX_GIG_FUN_DENSITY)
      ghmix_gig_init_density(p[0], a[0], b[0], &shared);
    else if (ghmix_gig_init(p[0], a[0], b[0], &shared) && !shared.complete)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "internal error: the GIG parameter set was not "
                             "completed before the threads read it");
    j.shared = &shared;
  }
  return ghmix_run_chunks(n, gig_chunk[fun], gig_range, &j, threads, err);
}
