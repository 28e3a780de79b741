/* A CPU stand-in for the CUDA backend: the functions of
 * src/cuda/ghmix_cuda.h on one CPU thread, so that test_cuda.cu can be
 * built and run without a GPU (`make -C tests/c cuda-mock`).  It checks the
 * test harness itself, and the E-step's per-thread code (src/cuda/
 * mix_tile.h), which it runs as the kernels do: block by block, tile by
 * tile, thread by thread, with the same partial sums and the same
 * fixed-order reduction (and so the factor E-step's, src/cuda/
 * factor_tile.h).  The element-wise functions call the CPU drivers;
 * device index, empty-input and allocation-size errors follow the real
 * backend's rules (a "device" of 2^40 bytes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "../../src/cpu/bessel_cpu.h"
#include "../../src/cpu/gh_dist_cpu.h"
#include "../../src/cpu/gig_solve_cpu.h"
#include "../../src/cuda/ghmix_cuda.h"
}
#include "../../src/cuda/factor_tile.h"
#include "../../src/cuda/mix_tile.h"
#include "../../src/cuda/mixg_tile.h"

#define MOCK_MEMORY 1099511627776.0 /* bytes */

static ghmix_status mock_device(int device, ghmix_error *err) {
  ghmix_error_clear(err);
  if (device != 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "CUDA device %d does not exist (1 device: 0 to 0)",
                           device);
  return GHMIX_OK;
}

static ghmix_status mock_alloc(double bytes, const char *what,
                               ghmix_error *err) {
  if (bytes > MOCK_MEMORY)
    return ghmix_error_set(err, GHMIX_ERR_CUDA, -1,
                           "cudaMalloc of %.0f bytes (%.3g GiB) for %s on "
                           "CUDA device 0 failed: out of memory (mock)",
                           bytes, bytes / 1073741824.0, what);
  return GHMIX_OK;
}

extern "C" int ghmix_cuda_built(void) { return 1; }
extern "C" const char *ghmix_cuda_fault(void) { return NULL; }
extern "C" int ghmix_cuda_toolkit_version(void) { return 0; }
extern "C" const char *ghmix_cuda_archs(void) { return "mock"; }

extern "C" ghmix_status ghmix_cuda_versions(int *runtime, int *driver,
                                            ghmix_error *err) {
  ghmix_error_clear(err);
  *runtime = *driver = 0;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err) {
  ghmix_error_clear(err);
  *count = 1;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_device_info(int dev, ghmix_cuda_device *info,
                                               ghmix_error *err) {
  ghmix_status st = mock_device(dev, err);
  if (st != GHMIX_OK)
    return st;
  memset(info, 0, sizeof *info);
  strcpy(info->name, "CPU mock of the CUDA backend");
  info->total_mem_bytes = MOCK_MEMORY;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_bessel_logk_batch(size_t n, const double *x, size_t nx,
                             const double *nu, size_t nnu, double *logk,
                             double *grad_x, double *grad_nu, int device,
                             ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  double bytes = 8.0 * ((double)nx + (double)nnu +
                        (double)n * (1 + (grad_x != NULL) + (grad_nu != NULL)));
  if (st != GHMIX_OK || n == 0)
    return st;
  if (nx == 0 || nnu == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "x and nu must not be empty when n > 0");
  if ((st = mock_alloc(bytes, "log_besselK", err)) != GHMIX_OK)
    return st;
  return ghmix_bessel_logk_batch(n, x, nx, nu, nnu, logk, grad_x, grad_nu, 1,
                                 err);
}

extern "C" ghmix_status
ghmix_cuda_gig_expectation_batch(size_t n, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, double *out_log, double *out_inv,
                                 double *out_y, int device, ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  if (st != GHMIX_OK || n == 0)
    return st;
  return ghmix_gig_expectation_batch(n, p, np, a, na, b, nb, out_log, out_inv,
                                     out_y, 1, err);
}

extern "C" ghmix_status
ghmix_cuda_gig_from_expectation_batch(const ghmix_gig_solve_args *s, int device,
                                      ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  double bytes =
      (double)s->n *
      (8.0 * (3 + (s->start ? 3 : 0) + 5 + (s->jacobian ? 9 : 0)) + 16.0);
  if (st != GHMIX_OK || s->n == 0)
    return st;
  if ((st = mock_alloc(bytes, "gig_from_expectation", err)) != GHMIX_OK)
    return st;
  return ghmix_gig_from_expectation_batch(s, 1, err);
}

/* The n x d rows x (leading dimension ldx) copied with leading dimension
 * n, as on the device. */
static double *mock_copy_rows(const double *x, size_t n, size_t ldx, int d) {
  double *c = (double *)malloc((n * (size_t)d + 1) * sizeof(double));
  int j;
  for (j = 0; j < d; j++)
    memcpy(c + (size_t)j * n, x + (size_t)j * ldx, n * sizeof(double));
  return c;
}

struct mock_mix {
  size_t n;
  int d;
  double *x, *weights;
};

extern "C" ghmix_status ghmix_cuda_mix_data_create(const double *x, size_t n,
                                                   size_t ldx, int d,
                                                   int device, void **handle,
                                                   ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  mock_mix *h;
  *handle = NULL;
  if (st != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "bad E-step data");
  if ((st = mock_alloc(8.0 * (double)n * d, "the E-step data", err)) !=
      GHMIX_OK)
    return st;
  h = (mock_mix *)calloc(1, sizeof *h);
  h->n = n;
  h->d = d;
  h->x = mock_copy_rows(x, n, ldx, d);
  *handle = h;
  return GHMIX_OK;
}

extern "C" void ghmix_cuda_mix_data_free(void *handle) {
  mock_mix *h = (mock_mix *)handle;
  if (h == NULL)
    return;
  free(h->x);
  free(h->weights);
  free(h);
}

extern "C" ghmix_status ghmix_cuda_mix_data_weights(void *handle,
                                                    const double *weights,
                                                    ghmix_error *err) {
  mock_mix *h = (mock_mix *)handle;
  ghmix_error_clear(err);
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "NULL handle");
  free(h->weights);
  h->weights = NULL;
  if (weights == NULL || h->n == 0)
    return GHMIX_OK;
  h->weights = (double *)malloc(h->n * sizeof(double));
  memcpy(h->weights, weights, h->n * sizeof(double));
  return GHMIX_OK;
}

/* The two kernels of src/cuda/mix_estep.cu, one thread at a time. */
extern "C" ghmix_status ghmix_cuda_mix_estep(void *handle,
                                             const ghmix_mix_model *model,
                                             double *stats, double *rows,
                                             int *launches, ghmix_error *err) {
  mock_mix *h = (mock_mix *)handle;
  ghmix_mix_layout l;
  ghmix_status st;
  double *pbuf, *partial, *tile, acc[128];
  size_t ntiles, tl, s, k;
  const double *wt;
  int b, t, d;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  d = h->d;
  if ((st = ghmix_mix_model_check(model, d, err)) != GHMIX_OK)
    return st;
  wt = (model->shape.what & GHMIX_ESTEP_WEIGHTS) ? h->weights : NULL;
  if (wt == NULL && (model->shape.what & GHMIX_ESTEP_WEIGHTS) && h->n > 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "no device weights");
  l = ghmix_mix_plan(h->n, d);
  if (h->n == 0) {
    for (k = 0; k < l.nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  pbuf = (double *)malloc(ghmix_mix_par_len(d) * sizeof(double));
  ghmix_mix_par_pack(&model->comp[0], d, pbuf);
  partial = (double *)malloc(l.nloc * (size_t)l.blocks * sizeof(double));
  for (k = 0; k < l.nloc * (size_t)l.blocks; k++) /* garbage, as on a GPU */
    partial[k] = 1e300;
  tile = (double *)malloc(l.smem);
  ntiles = (h->n + (size_t)l.tile - 1) / (size_t)l.tile;
  for (b = 0; b < l.blocks; b++)
    for (tl = (size_t)b; tl < ntiles; tl += (size_t)l.blocks) {
      for (k = 0; k < l.smem / sizeof(double); k++)
        tile[k] = NAN; /* stale shared memory */
      for (t = 0; t < l.tile; t++)
        ghmix_mix_tile_row(t, l.tile, tl * (size_t)l.tile + (size_t)t, h->n, d,
                           h->x, wt, pbuf, &model->comp[0].c, rows, tile);
      for (t = 0; t < l.tile; t++)
        ghmix_mix_tile_sums(t, l.tile, d, l.blocks, b, tl == (size_t)b,
                            wt != NULL, tile, partial);
    }
  for (s = 0; s < l.nloc; s++) {
    size_t slot[2];
    int m, hh;
    for (t = 0; t < 128; t++) {
      double sum = 0;
      for (b = t; b < l.blocks; b += 128)
        sum += partial[s * (size_t)l.blocks + (size_t)b];
      acc[t] = sum;
    }
    for (hh = 64; hh > 0; hh /= 2)
      for (t = 0; t < hh; t++)
        acc[t] += acc[t + hh];
    m = ghmix_mix_stat_slots(s, d, slot);
    for (t = 0; t < m; t++)
      stats[slot[t]] = acc[0];
  }
  free(pbuf);
  free(partial);
  free(tile);
  if (launches != NULL)
    *launches = 2;
  return GHMIX_OK;
}

/* The fixed-order sum of the block partials (mix_reduce_kernel's tree of
 * 128) of local statistic s. */
static double mock_block_sum(const double *partial, size_t s, int blocks) {
  double acc[128];
  int t, b, hh;
  for (t = 0; t < 128; t++) {
    double sum = 0;
    for (b = t; b < blocks; b += 128)
      sum += partial[s * (size_t)blocks + (size_t)b];
    acc[t] = sum;
  }
  for (hh = 64; hh > 0; hh /= 2)
    for (t = 0; t < hh; t++)
      acc[t] += acc[t + hh];
  return acc[0];
}

/* One tile of mixg_estep_kernel, thread by thread between its barriers;
 * res and v: each thread's G results and weights, thread t's k-th at
 * t + k T (the kernel's layout, for the block's T threads). */
static void mock_mixg_tile(const mock_mix *h, const ghmix_mix_layout *l, int G,
                           const double *par, const ghmix_mix_const *c,
                           const double *lp, const ghmix_mix_model *model,
                           double *rows, size_t tl, int b, double *tile,
                           ghmix_mix_row_result *res, double *v,
                           double *partial) {
  const int T = l->tile, d = h->d, first = tl == (size_t)b;
  const size_t plen = ghmix_mix_par_len(d);
  size_t i;
  int t, k;
  for (i = 0; i < l->smem / sizeof(double); i++)
    tile[i] = NAN; /* stale shared memory */
  const double *wt =
      (model->shape.what & GHMIX_ESTEP_WEIGHTS) ? h->weights : NULL;
  for (t = 0; t < T; t++)
    ghmix_mixg_tile_row(t, T, tl * (size_t)T + (size_t)t, h->n, d, G, h->x, par,
                        c, lp, wt, model->shape.what, rows, tile, res + t,
                        v + t, (size_t)T);
  for (k = 0; k < G; k++) {
    for (t = 0; t < T; t++)
      ghmix_mixg_tile_comp(t, T, tl * (size_t)T + (size_t)t, h->n, d, h->x,
                           par + (size_t)k * plen, model->shape.what,
                           v[(size_t)k * T + t], &res[(size_t)k * T + t], tile);
    for (t = 0; t < T; t++) {
      ghmix_mix_tile_sums_w(t, T, d, l->blocks, b, first, tile,
                            ghmix_mixg_partial(partial, d, k, l->blocks), 0,
                            (int)GHMIX_TERM_ROWS);
      if (k == 0)
        ghmix_mixg_tile_global(t, T, l->blocks, b, first,
                               ghmix_mixg_global_cols(tile, d, T), partial);
    }
  }
}

/* The two kernels of the G-component E-step, one thread at a time. */
extern "C" ghmix_status
ghmix_cuda_mix_estep_mixture(void *handle, const ghmix_mix_model *model,
                             double *stats, double *rows, int *launches,
                             ghmix_error *err) {
  mock_mix *h = (mock_mix *)handle;
  const int G = model->shape.components;
  ghmix_mix_layout l;
  ghmix_mix_const *c;
  ghmix_mix_row_result *res;
  ghmix_status st;
  double *par, *partial, *tile, *v;
  size_t ntiles, tl, s, k, plen;
  int b;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if ((st = ghmix_mix_model_check_g(model, h->d, err)) != GHMIX_OK)
    return st;
  if ((model->shape.what & GHMIX_ESTEP_WEIGHTS) && h->weights == NULL &&
      h->n > 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "no device weights");
  l = ghmix_mixg_plan(h->n, h->d, G);
  for (k = 0; k < l.nstats; k++)
    stats[k] = 0; /* (the kernels write every statistic) */
  if (h->n == 0)
    return GHMIX_OK;
  plen = ghmix_mix_par_len(h->d);
  par = (double *)malloc(sizeof(double) * (plen + 1) * G);
  c = (ghmix_mix_const *)malloc(sizeof(ghmix_mix_const) * G);
  for (b = 0; b < G; b++) {
    ghmix_mix_par_pack(&model->comp[b], h->d, par + plen * b);
    c[b] = model->comp[b].c;
    par[plen * G + b] = model->comp[b].log_prop;
  }
  partial = (double *)malloc(l.nloc * (size_t)l.blocks * sizeof(double));
  for (k = 0; k < l.nloc * (size_t)l.blocks; k++) /* garbage, as on a GPU */
    partial[k] = 1e300;
  tile = (double *)malloc(l.smem);
  res = (ghmix_mix_row_result *)malloc(sizeof(*res) * l.tile * G);
  v = (double *)malloc(sizeof(double) * l.tile * G);
  ntiles = (h->n + (size_t)l.tile - 1) / (size_t)l.tile;
  for (b = 0; b < l.blocks; b++)
    for (tl = (size_t)b; tl < ntiles; tl += (size_t)l.blocks)
      mock_mixg_tile(h, &l, G, par, c, par + plen * G, model, rows, tl, b, tile,
                     res, v, partial);
  for (s = 0; s < l.nloc; s++) {
    size_t slot[2];
    double sum = mock_block_sum(partial, s, l.blocks);
    int m = ghmix_mixg_stat_slots(s, h->d, G, slot), j;
    for (j = 0; j < m; j++)
      stats[slot[j]] = sum;
  }
  free(par);
  free(c);
  free(partial);
  free(tile);
  free(res);
  free(v);
  if (launches != NULL)
    *launches = 2;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  double bytes = 8.0 * (double)n;
  int k;
  if (st != GHMIX_OK || n == 0)
    return st;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if (len[k] == 0)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "inputs must not be empty when n > 0");
    bytes += 8.0 * (double)(len[k] < n ? len[k] : n);
  }
  if ((st = mock_alloc(bytes, "dgh", err)) != GHMIX_OK)
    return st;
  return ghmix_gh1_dpq_batch(GHMIX_GH_FUN_DENSITY, n, in, len, give_log, 0, out,
                             1, err);
}

/* The row kernel of src/cuda/mix_estep.cu, one thread at a time, on a copy
 * of x as on the device. */
extern "C" ghmix_status ghmix_cuda_mix_rows(const double *x, size_t n,
                                            size_t ldx, int d,
                                            const ghmix_mix_model *model,
                                            int give_log, int ncol, double *out,
                                            int device, ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  double *xd, *pbuf;
  size_t i;
  int j;
  if (st != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n || (ncol != 1 && ncol != 4))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "bad arguments for the CUDA row kernel");
  if ((st = ghmix_mix_model_check(model, d, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  if ((st = mock_alloc(8.0 * (double)n * (d + ncol), "the density rows",
                       err)) != GHMIX_OK)
    return st;
  xd = (double *)malloc(n * (size_t)d * sizeof(double));
  pbuf = (double *)malloc(ghmix_mix_par_len(d) * sizeof(double));
  for (j = 0; j < d; j++)
    memcpy(xd + (size_t)j * n, x + (size_t)j * ldx, n * sizeof(double));
  ghmix_mix_par_pack(&model->comp[0], d, pbuf);
  for (i = 0; i < n; i++)
    ghmix_mix_rows_one(i, n, d, xd, pbuf, &model->comp[0].c, give_log, ncol,
                       out);
  free(xd);
  free(pbuf);
  return GHMIX_OK;
}

struct mock_factor {
  size_t n;
  int d;
  double *x, *weights;
};

extern "C" ghmix_status ghmix_cuda_factor_data_create(const double *x, size_t n,
                                                      size_t ldx, int d,
                                                      const double *weights,
                                                      int device, void **handle,
                                                      ghmix_error *err) {
  ghmix_status st = mock_device(device, err);
  mock_factor *h;
  *handle = NULL;
  if (st != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "bad E-step data");
  if ((st = mock_alloc(8.0 * (double)n * (d + (weights != NULL)),
                       "the factor E-step data", err)) != GHMIX_OK)
    return st;
  h = (mock_factor *)calloc(1, sizeof *h);
  h->n = n;
  h->d = d;
  h->x = mock_copy_rows(x, n, ldx, d);
  if (weights != NULL && n > 0) {
    h->weights = (double *)malloc(n * sizeof(double));
    memcpy(h->weights, weights, n * sizeof(double));
  }
  *handle = h;
  return GHMIX_OK;
}

extern "C" void ghmix_cuda_factor_data_free(void *handle) {
  mock_factor *h = (mock_factor *)handle;
  if (h == NULL)
    return;
  free(h->x);
  free(h->weights);
  free(h);
}

extern "C" ghmix_status ghmix_cuda_factor_data_weights(void *handle,
                                                       const double *weights,
                                                       ghmix_error *err) {
  mock_factor *h = (mock_factor *)handle;
  ghmix_error_clear(err);
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "NULL handle");
  if (h->n == 0)
    return GHMIX_OK;
  if (h->weights == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "no weights to replace");
  memcpy(h->weights, weights, h->n * sizeof(double));
  return GHMIX_OK;
}

/* The two kernels of src/cuda/factor_estep.cu, one thread at a time, on
 * the model viewing a packed copy of its arrays (as on the device). */
extern "C" ghmix_status ghmix_cuda_factor_estep(void *handle,
                                                const ghmix_factor_model *fm,
                                                double *stats, double *rows,
                                                int *launches,
                                                ghmix_error *err) {
  mock_factor *h = (mock_factor *)handle;
  ghmix_factor_layout l;
  ghmix_factor_model dev;
  double *par, *partial, *tile;
  size_t ntiles, tl, s, k;
  int b, t;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "NULL handle");
  if (fm->d != h->d || fm->r < 0 || fm->r >= fm->d)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "a factor model of another d");
  l = ghmix_factor_plan(h->n, h->d, fm->r);
  if (h->n == 0) {
    for (k = 0; k < l.nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  par = (double *)malloc(l.npar * sizeof(double));
  ghmix_factor_par_pack(fm, par);
  dev = ghmix_factor_par_view(fm, par);
  partial = (double *)malloc(l.nloc * (size_t)l.blocks * sizeof(double));
  for (k = 0; k < l.nloc * (size_t)l.blocks; k++) /* garbage, as on a GPU */
    partial[k] = 1e300;
  tile = (double *)malloc(l.smem);
  ntiles = (h->n + (size_t)l.tile - 1) / (size_t)l.tile;
  for (b = 0; b < l.blocks; b++)
    for (tl = (size_t)b; tl < ntiles; tl += (size_t)l.blocks) {
      for (k = 0; k < l.smem / sizeof(double); k++)
        tile[k] = NAN; /* stale shared memory */
      for (t = 0; t < l.tile; t++)
        ghmix_factor_tile_row(t, l.tile, tl * (size_t)l.tile + (size_t)t, h->n,
                              h->x, h->weights, &dev, rows, tile);
      for (t = 0; t < l.tile; t++)
        ghmix_factor_tile_sums(t, l.tile, l.blocks, b, tl == (size_t)b,
                               tl * (size_t)l.tile, h->n, h->x, &dev,
                               h->weights != NULL, tile, partial);
    }
  for (s = 0; s < l.nloc; s++)
    stats[ghmix_factor_stat_slot(s, h->d, fm->r)] =
        mock_block_sum(partial, s, l.blocks);
  free(par);
  free(partial);
  free(tile);
  if (launches != NULL)
    *launches = 2;
  return GHMIX_OK;
}

/* The two kernels of the factor mixture's E-step (src/cuda/factor_estep.cu,
 * factor_tile.h), one thread at a time; each thread's G results, weights
 * and beta u in arrays of T threads (thread t's k-th at t + k T). */
extern "C" ghmix_status ghmix_cuda_factor_estep_mixture(
    void *handle, int G, const ghmix_factor_model *fms, const double *log_props,
    int what, double *out, double *rows, int *launches, ghmix_error *err) {
  mock_factor *h = (mock_factor *)handle;
  ghmix_factor_layout l;
  std::vector<double> par, partial, tile, v, bu;
  std::vector<ghmix_mix_row_result> res;
  std::vector<ghmix_factor_model> dev;
  size_t ntiles, tl, s, k, npar1, nstats1;
  int b, t, c, r;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "NULL handle");
  if (G < 1 || G > GHMIX_MAX_COMPONENTS)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1, "bad G");
  for (c = 0; c < G; c++)
    if (fms[c].d != h->d || fms[c].r != fms[0].r || fms[c].r >= fms[c].d)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "a factor model of another d or r");
  r = fms[0].r;
  l = ghmix_factorg_plan(h->n, h->d, r, G);
  if (h->n == 0) {
    for (k = 0; k < l.nstats; k++)
      out[k] = 0;
    return GHMIX_OK;
  }
  npar1 = ghmix_factor_par_len(h->d, r);
  nstats1 = (l.nstats - GHMIX_MIXG_NGLOBAL) / (size_t)G;
  par.resize((npar1 + 1) * (size_t)G);
  dev.resize((size_t)G);
  for (c = 0; c < G; c++) {
    ghmix_factor_par_pack(&fms[c], par.data() + (size_t)c * npar1);
    dev[(size_t)c] = ghmix_factor_par_view(&fms[c], par.data() + c * npar1);
    par[npar1 * G + (size_t)c] = log_props[c];
  }
  partial.assign(l.nloc * (size_t)l.blocks, 1e300); /* garbage, as on a GPU */
  tile.resize(l.smem / sizeof(double));
  res.resize((size_t)l.tile * G);
  v.resize((size_t)l.tile * G);
  bu.resize((size_t)l.tile * G * (size_t)r + 1);
  ntiles = (h->n + (size_t)l.tile - 1) / (size_t)l.tile;
  for (b = 0; b < l.blocks; b++)
    for (tl = (size_t)b; tl < ntiles; tl += (size_t)l.blocks) {
      const size_t i0 = tl * (size_t)l.tile, T = (size_t)l.tile;
      std::fill(tile.begin(), tile.end(), NAN); /* stale shared memory */
      for (t = 0; t < l.tile; t++)
        ghmix_factorg_tile_row(t, l.tile, i0 + t, h->n, G, h->x, dev.data(),
                               par.data() + npar1 * G, h->weights, what, rows,
                               tile.data(), res.data() + t, v.data() + t,
                               bu.data() + t, T);
      for (c = 0; c < G; c++) {
        for (t = 0; t < l.tile; t++)
          ghmix_factorg_tile_comp(t, l.tile, i0 + t, h->n, &dev[(size_t)c],
                                  v[c * T + t], &res[c * T + t],
                                  bu.data() + (size_t)c * r * T + t, T,
                                  tile.data());
        for (t = 0; t < l.tile; t++) {
          ghmix_factor_tile_sums(
              t, l.tile, l.blocks, b, tl == (size_t)b, i0, h->n, h->x,
              &dev[(size_t)c], 1, tile.data(),
              ghmix_factorg_partial(partial.data(), h->d, r, c, l.blocks));
          if (c == 0)
            ghmix_mixg_tile_global(
                t, l.tile, l.blocks, b, tl == (size_t)b,
                ghmix_factorg_global_cols(tile.data(), l.tile, r),
                partial.data());
        }
      }
    }
  for (s = 0; s < l.nloc; s++)
    out[ghmix_factorg_stat_slot(s, h->d, r, nstats1)] =
        mock_block_sum(partial.data(), s, l.blocks);
  if (launches != NULL)
    *launches = 2;
  return GHMIX_OK;
}
