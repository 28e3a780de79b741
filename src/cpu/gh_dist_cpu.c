#include "gh_dist_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/elementwise.h"
#include "../core/gh_dist.h"
#include "../core/mixture.h"
#include "chunks.h"
#include "pool.h"

/* Elements between interrupt polls, by ghmix_gh_fun: well under 0.1 s of
 * work on one thread. */
static const size_t gh1_chunk[3] = {(size_t)1 << 16, (size_t)1 << 10,
                                    (size_t)1 << 7};

typedef struct {
  ghmix_gh_fun fun;
  ghmix_gh1_args args;
  int flag1, flag2;
  double *out;
  const ghmix_gh1 *shared; /* the one parameter set, or NULL */
} gh1_job;

/* Element i with the thread's cache c: the density is the element body of
 * both backends; the distribution and quantile functions (host only)
 * complete each set the thread prepares before they read it. */
static double gh1_element(const gh1_job *j, size_t i, ghmix_gh1_cache *c) {
  double v[GHMIX_GH1_NARGS], na;
  const ghmix_gh1 *h = j->shared;
  if (j->fun == GHMIX_GH_FUN_DENSITY)
    return ghmix_gh1_density_element(&j->args, i, h, c, j->flag1);
  if (ghmix_gh1_element_inputs(&j->args, i, v, &na))
    return na;
  if (h == NULL) {
    if (ghmix_gh1_cache_set(c, v))
      ghmix_gh1_complete(&c->h);
    h = &c->h;
  }
  if (j->fun == GHMIX_GH_FUN_CDF)
    return ghmix_gh1_cdf_x(h, v[0], v[1], v[3], j->flag1, j->flag2);
  return ghmix_gh1_qf_x(h, v[0], v[1], v[3], j->flag1, j->flag2);
}

typedef struct {
  const gh1_job *j;
  ghmix_claims claims;
} gh1_team;

/* The elements thread `thread` claims, with its own cache. */
static void gh1_do(void *team, int thread) {
  gh1_team *m = (gh1_team *)team;
  ghmix_gh1_cache cache;
  size_t lo, hi, i;
  (void)thread;
  cache.have = 0;
  while (ghmix_claim(&m->claims, &lo, &hi))
    for (i = lo; i < hi; i++)
      m->j->out[i] = gh1_element(m->j, i, &cache);
}

static void gh1_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                      int threads) {
  gh1_team m;
  /* waking a thread costs more than a few elements (and much more on a
   * loaded machine): about 1 us per density, 50 us per tail, 300 us per
   * quantile */
  ptrdiff_t min;
  m.j = (const gh1_job *)job;
  min = m.j->fun == GHMIX_GH_FUN_DENSITY
            ? 2048
            : (m.j->fun == GHMIX_GH_FUN_CDF ? 32 : 8);
  if (hi - lo < min)
    threads = 1;
  ghmix_claims_init(&m.claims, (size_t)lo, (size_t)hi, 16);
  ghmix_team_run(threads, gh1_do, &m);
}

ghmix_status ghmix_gh1_dpq_batch(ghmix_gh_fun fun, size_t n,
                                 const double *const in[GHMIX_GH1_NARGS],
                                 const size_t len[GHMIX_GH1_NARGS], int flag1,
                                 int flag2, double *out, int threads,
                                 ghmix_error *err) {
  gh1_job j;
  ghmix_gh1 shared;
  ghmix_status st;
  int k;
  j.fun = fun;
  j.args.n = n;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    j.args.in[k] = in[k];
    j.args.len[k] = len[k];
  }
  j.flag1 = flag1;
  j.flag2 = flag2;
  j.out = out;
  j.shared = NULL;
  ghmix_error_clear(err);
  if ((st = ghmix_gh1_args_check(&j.args, err)) != GHMIX_OK || n == 0)
    return st;
  if (ghmix_gh1_args_shared(&j.args)) {
    double g = in[2][0] / in[3][0];
    if (fun == GHMIX_GH_FUN_DENSITY)
      ghmix_gh1_init_density(in[4][0], in[5][0], in[6][0], g, &shared);
    else if (ghmix_gh1_init(in[4][0], in[5][0], in[6][0], g, &shared) &&
             !shared.complete)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "internal error: the GH parameter set was not "
                             "completed before the threads read it");
    j.shared = &shared;
  }
  return ghmix_run_chunks(n, gh1_chunk[fun], gh1_range, &j, threads, err);
}

typedef struct {
  ghmix_mix_const c;
  const double *Q, *B;
  int give_log;
  double *out;
} rows_job;

static void rows_one(const void *job, size_t i) {
  const rows_job *j = (const rows_job *)job;
  ghmix_mix_row_result r;
  ghmix_mix_row(&j->c, j->Q[i], j->B[i], &r);
  j->out[i] = j->give_log ? r.loglik : exp(r.loglik);
}

ghmix_status ghmix_gh_density_rows(size_t n, const double *Q, const double *B,
                                   int d, double p, double a, double b,
                                   double gSg, double logdet, int give_log,
                                   double *out, int threads, ghmix_error *err) {
  const ghmix_schedule sched = {(size_t)1 << 16, 2048, 0};
  rows_job j;
  ghmix_error_clear(err);
  if (!ghmix_mix_const_init(d, p, a, b, gSg, logdet, 0, &j.c))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "invalid mixture parameters (p = %g, a = %g, "
                           "b = %g, d = %d)",
                           p, a, b, d);
  j.Q = Q;
  j.B = B;
  j.give_log = give_log;
  j.out = out;
  return ghmix_run_elements(n, sched, rows_one, &j, threads, err);
}
