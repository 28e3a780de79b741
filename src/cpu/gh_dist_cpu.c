#include "gh_dist_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/batch.h"
#include "../core/gh_dist.h"
#include "../core/mixture.h"
#include "threads.h"

typedef struct {
  ghmix_gh_fun fun;
  size_t n;
  const double *const *in;
  const size_t *len;
  int flag1, flag2;
  double *out;
  ghmix_gh1 *shared; /* the one parameter set (complete), or NULL */
} gh1_batch;

static double eval_one(const gh1_batch *bt, ghmix_gh1 *h, double x, double mu,
                       double sigma) {
  switch (bt->fun) {
  case GHMIX_GH_FUN_DENSITY:
    return ghmix_gh1_density_x(h, x, mu, sigma, bt->flag1);
  case GHMIX_GH_FUN_CDF:
    return ghmix_gh1_cdf_x(h, x, mu, sigma, bt->flag1, bt->flag2);
  case GHMIX_GH_FUN_QUANTILE:
    return ghmix_gh1_qf_x(h, x, mu, sigma, bt->flag1, bt->flag2);
  }
  return 0.0;
}

static void gh1_range(const gh1_batch *bt, ptrdiff_t lo, ptrdiff_t hi,
                      int threads) {
  ptrdiff_t i;
  /* waking a team costs more than a few elements (and much more on a
   * loaded machine): about 1 us per density, 50 us per tail, 300 us per
   * quantile */
  ptrdiff_t min = bt->fun == GHMIX_GH_FUN_DENSITY
                      ? 2048
                      : (bt->fun == GHMIX_GH_FUN_CDF ? 32 : 8);
  int par = threads > 1 && hi - lo >= min;
  (void)par;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (par)
#endif
  {
    ghmix_gh1 h;
    int have = 0;
    double kp = 0, ka = 0, kb = 0, kg = 0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (i = lo; i < hi; i++) {
      double v[GHMIX_GH1_NARGS], sum = 0.0;
      ghmix_gh1 *hp = bt->shared;
      int k;
      for (k = 0; k < GHMIX_GH1_NARGS; k++) {
        v[k] = bt->in[k][ghmix_recycle(i, bt->len[k], bt->n)];
        sum += v[k];
      }
      if (isnan(sum)) {
        bt->out[i] = sum; /* keeps R's NA payload, as R's arithmetic does */
        continue;
      }
      if (hp == NULL) {
        double g = v[2] / v[3];
        if (!have || v[4] != kp || v[5] != ka || v[6] != kb || g != kg) {
          ghmix_gh1_init(v[4], v[5], v[6], g, &h);
          kp = v[4];
          ka = v[5];
          kb = v[6];
          kg = g;
          have = 1;
        }
        hp = &h;
      }
      bt->out[i] = eval_one(bt, hp, v[0], v[1], v[3]);
    }
  }
  (void)threads;
}

ghmix_status ghmix_gh1_dpq_batch(ghmix_gh_fun fun, size_t n,
                                 const double *const in[GHMIX_GH1_NARGS],
                                 const size_t len[GHMIX_GH1_NARGS], int flag1,
                                 int flag2, double *out, int threads,
                                 ghmix_error *err) {
  gh1_batch bt;
  ghmix_gh1 shared;
  size_t start, chunk;
  int k, scalar = 1;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if (len[k] == 0)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "inputs must not be empty when n > 0");
    if (k >= 2 && len[k] != 1)
      scalar = 0;
  }
  bt.fun = fun;
  bt.n = n;
  bt.in = in;
  bt.len = len;
  bt.flag1 = flag1;
  bt.flag2 = flag2;
  bt.out = out;
  bt.shared = NULL;
  if (scalar) {
    ghmix_gh1_init(in[4][0], in[5][0], in[6][0], in[2][0] / in[3][0], &shared);
    if (fun != GHMIX_GH_FUN_DENSITY)
      ghmix_gh1_complete(&shared); /* read-only in the threads from now */
    bt.shared = &shared;
  }
  threads = ghmix_clamp_threads(threads);
  /* well under 0.1 s of work on one thread between interrupt polls */
  chunk = fun == GHMIX_GH_FUN_DENSITY
              ? ((size_t)1 << 16)
              : (fun == GHMIX_GH_FUN_CDF ? (size_t)1 << 10 : (size_t)1 << 7);
  for (start = 0; start < n; start += chunk) {
    size_t end = n - start > chunk ? start + chunk : n;
    gh1_range(&bt, (ptrdiff_t)start, (ptrdiff_t)end, threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}

static void rows_range(const ghmix_mix_const *c, ptrdiff_t lo, ptrdiff_t hi,
                       const double *Q, const double *B, int give_log,
                       double *out, int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)                                  \
    schedule(static) if (threads > 1 && hi - lo >= 2048)
#endif
  for (i = lo; i < hi; i++) {
    ghmix_mix_row_result r;
    ghmix_mix_row(c, Q[i], B[i], &r);
    out[i] = give_log ? r.loglik : exp(r.loglik);
  }
  (void)threads;
}

ghmix_status ghmix_gh_density_rows(size_t n, const double *Q, const double *B,
                                   int d, double p, double a, double b,
                                   double gSg, double logdet, int give_log,
                                   double *out, int threads, ghmix_error *err) {
  ghmix_mix_const c;
  size_t start, chunk = (size_t)1 << 16;
  ghmix_error_clear(err);
  if (!ghmix_mix_const_init(d, p, a, b, gSg, logdet, 0, &c))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "invalid mixture parameters (p = %g, a = %g, "
                           "b = %g, d = %d)",
                           p, a, b, d);
  threads = ghmix_clamp_threads(threads);
  for (start = 0; start < n; start += chunk) {
    size_t end = n - start > chunk ? start + chunk : n;
    rows_range(&c, (ptrdiff_t)start, (ptrdiff_t)end, Q, B, give_log, out,
               threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}
