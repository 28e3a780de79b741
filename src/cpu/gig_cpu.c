#include "gig_cpu.h"

#include <stddef.h>

#include "../core/batch.h"
#include "../core/gig.h"
#include "threads.h"

static inline double eval_one(ghmix_gig_fun fun, ghmix_gig *g,
                              ghmix_gig_anchors *c, double x, int flag1,
                              int flag2) {
  switch (fun) {
  case GHMIX_GIG_FUN_DENSITY:
    return ghmix_gig_density_g(g, x, flag1);
  case GHMIX_GIG_FUN_CDF:
    return ghmix_gig_cdf_g(g, c, x, flag1, flag2);
  case GHMIX_GIG_FUN_QUANTILE:
    return ghmix_gig_qf_g(g, c, x, flag1, flag2);
  }
  return 0.0;
}

typedef struct {
  ghmix_gig_fun fun;
  size_t n, nx, np, na, nb;
  const double *x, *p, *a, *b;
  int flag1, flag2;
  double *out;
  ghmix_gig *shared; /* the one parameter set (complete), or NULL */
} batch;

static void run_range(const batch *bt, ptrdiff_t lo, ptrdiff_t hi,
                      int threads) {
  ptrdiff_t i;
  int par = threads > 1 && hi - lo > 1 &&
            (bt->shared == NULL || bt->fun != GHMIX_GIG_FUN_DENSITY ||
             hi - lo >= 4096);
  (void)par;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (par)
#endif
  {
    ghmix_gig g;
    /* this thread's cache of tail integrals for the current parameters */
    ghmix_gig_anchors cache;
    int have = 0, cache_ok = 0;
    double cp = 0, ca = 0, cb = 0;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (i = lo; i < hi; i++) {
      double xi = bt->x[ghmix_recycle(i, bt->nx, bt->n)];
      ghmix_gig *gp = bt->shared;
      if (gp == NULL) {
        double pi = bt->p[ghmix_recycle(i, bt->np, bt->n)];
        double ai = bt->a[ghmix_recycle(i, bt->na, bt->n)];
        double bi = bt->b[ghmix_recycle(i, bt->nb, bt->n)];
        /* NaN parameters never match, so they are prepared each time
         * (cheap: the set-up stops at the validity check) */
        if (!have || pi != cp || ai != ca || bi != cb) {
          ghmix_gig_init(pi, ai, bi, &g);
          cp = pi;
          ca = ai;
          cb = bi;
          have = 1;
          cache_ok = 0;
        }
        gp = &g;
      }
      if (!cache_ok && bt->fun != GHMIX_GIG_FUN_DENSITY) {
        ghmix_gig_anchors_reset(&cache);
        cache_ok = 1;
      }
      bt->out[i] = eval_one(bt->fun, gp, &cache, xi, bt->flag1, bt->flag2);
    }
  }
  (void)threads;
}

ghmix_status ghmix_gig_dpq_batch(ghmix_gig_fun fun, size_t n, const double *x,
                                 size_t nx, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, int flag1, int flag2, double *out,
                                 int threads, ghmix_error *err) {
  batch bt;
  ghmix_gig shared;
  size_t start, chunk;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (nx == 0 || np == 0 || na == 0 || nb == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "inputs must not be empty when n > 0");
  bt.fun = fun;
  bt.n = n;
  bt.nx = nx;
  bt.np = np;
  bt.na = na;
  bt.nb = nb;
  bt.x = x;
  bt.p = p;
  bt.a = a;
  bt.b = b;
  bt.flag1 = flag1;
  bt.flag2 = flag2;
  bt.out = out;
  bt.shared = NULL;
  if (np == 1 && na == 1 && nb == 1) {
    ghmix_gig_init(p[0], a[0], b[0], &shared);
    if (fun != GHMIX_GIG_FUN_DENSITY)
      ghmix_gig_complete(&shared); /* read-only in the threads from now */
    bt.shared = &shared;
  }
  threads = ghmix_clamp_threads(threads);
  /* about 0.1 s of work on one thread between interrupt polls */
  chunk = fun == GHMIX_GIG_FUN_DENSITY
              ? ((size_t)1 << 16)
              : (fun == GHMIX_GIG_FUN_CDF ? (size_t)1 << 14 : (size_t)1 << 12);
  for (start = 0; start < n; start += chunk) {
    size_t end = n - start > chunk ? start + chunk : n;
    run_range(&bt, (ptrdiff_t)start, (ptrdiff_t)end, threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}
