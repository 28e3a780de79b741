/* The E-step of a factor-analytic Sigma = F F' + diag(D) on the GPU (see
 * ghmix_cuda.h; the per-thread steps are in factor_tile.h): its kernels
 * and host wrappers, a translation unit of its own (see kernels.cu).
 *
 * Kernel 1 (factor_estep_kernel): block b of G takes the tiles b, b + G,
 * ... of T = blockDim.x rows: step 1 (one row per thread: the core's
 * ghmix_factor_row_step_x, O(d r)), a barrier, step 2 (the tile's sums into
 * the block's partials), a barrier.  Shared memory holds beta u and the
 * terms of the tile only, so d is not limited by it; r is, to about 880
 * with the 227 KiB per block of an H100/H200.  Kernel 2
 * (factor_reduce_kernel): one block per statistic, the fixed-order sum of
 * the block partials (block_row_sum), written where the layout puts it. */

#include "core_device.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "device.cuh"
#include "factor_tile.h"
#include "ghmix_cuda.h"
#include "host.cuh"

using namespace ghmix_cu;

namespace {

__global__ void __launch_bounds__(128)
    factor_estep_kernel(size_t n, const double *__restrict__ x,
                        const double *__restrict__ weights,
                        ghmix_factor_model fm, double *__restrict__ rows,
                        double *__restrict__ partial) {
  extern __shared__ double tile[];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, G = (int)gridDim.x;
  const int b = (int)blockIdx.x;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  size_t tl;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)G) {
    ghmix_factor_tile_row(t, T, tl * (size_t)T + (size_t)t, n, x, weights, &fm,
                          rows, tile);
    __syncthreads();
    ghmix_factor_tile_sums(t, T, G, b, tl == (size_t)b, tl * (size_t)T, n, x,
                           &fm, weights != NULL, tile, partial);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(GHMIX_MIX_REDUCE_THREADS)
    factor_reduce_kernel(int d, int r, int nblocks,
                         const double *__restrict__ partial,
                         double *__restrict__ stats) {
  const size_t s = blockIdx.x;
  const double sum = block_row_sum(partial + s * (size_t)nblocks, nblocks);
  if (threadIdx.x == 0)
    stats[ghmix_factor_stat_slot(s, d, r)] = sum;
}

/* The E-step of G factor-analytic components (factor_tile.h): block b
 * takes the tiles b, b + NB, ... as factor_estep_kernel does; per tile,
 * step 1 for every component, then per component step 2, a barrier, the
 * tile's sums into the component's partials (and, for the first, the
 * whole model's), a barrier.  res, v, bu: every thread's G results,
 * weights and beta u, thread j's k-th at j + k NB T (global memory). */
__global__ void __launch_bounds__(128)
    factorg_estep_kernel(size_t n, int G, const double *__restrict__ x,
                         const double *__restrict__ weights,
                         const ghmix_factor_model *__restrict__ fms,
                         const double *__restrict__ log_prop, int what,
                         double *__restrict__ rows,
                         double *__restrict__ partial,
                         ghmix_mix_row_result *__restrict__ res,
                         double *__restrict__ v, double *__restrict__ bu) {
  extern __shared__ double tile[];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, NB = (int)gridDim.x;
  const int b = (int)blockIdx.x, d = fms[0].d, r = fms[0].r;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  const size_t rs = (size_t)NB * (size_t)T, me = (size_t)b * T + (size_t)t;
  size_t tl;
  int k;
  res += me;
  v += me;
  bu += me;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)NB) {
    const size_t i = tl * (size_t)T + (size_t)t;
    const int first = tl == (size_t)b;
    ghmix_factorg_tile_row(t, T, i, n, G, x, fms, log_prop, weights, what, rows,
                           tile, res, v, bu, rs);
    for (k = 0; k < G; k++) {
      ghmix_factorg_tile_comp(t, T, i, n, &fms[k], v[(size_t)k * rs],
                              &res[(size_t)k * rs],
                              bu + (size_t)k * (size_t)r * rs, rs, tile);
      __syncthreads();
      ghmix_factor_tile_sums(t, T, NB, b, first, tl * (size_t)T, n, x, &fms[k],
                             1, tile,
                             ghmix_factorg_partial(partial, d, r, k, NB));
      if (k == 0)
        ghmix_mixg_tile_global(t, T, NB, b, first,
                               ghmix_factorg_global_cols(tile, T, r), partial);
      __syncthreads();
    }
  }
}

__global__ void __launch_bounds__(GHMIX_MIX_REDUCE_THREADS)
    factorg_reduce_kernel(int d, int r, size_t nstats1, int nblocks,
                          const double *__restrict__ partial,
                          double *__restrict__ stats) {
  const size_t s = blockIdx.x;
  const double sum = block_row_sum(partial + s * (size_t)nblocks, nblocks);
  if (threadIdx.x == 0)
    stats[ghmix_factorg_stat_slot(s, d, r, nstats1)] = sum;
}

/* The device-resident data of a factor fit (the void * handle). */
struct factor_data {
  int device, d;
  size_t n;
  void *arena;            /* x and the weights */
  double *x;              /* n x d, leading dimension n */
  double *weights;        /* n, or NULL */
  device_scratch scratch; /* an E-step's buffers, kept for the next */
};

/* Offset `bytes` further on, 256-byte aligned. */
size_t factor_carve(size_t *at, size_t bytes) {
  size_t off = *at;
  *at += (bytes + 255) / 256 * 256;
  return off;
}

/* The kernels of an E-step for the handle's data with layout l and the
 * model fm, on buffers of the handle (its scratch: parameters, partial
 * sums, statistics, rows; grown when this call needs more). */
ghmix_status factor_run(factor_data *h, const ghmix_factor_model *fm,
                        const ghmix_factor_layout *l, double *stats,
                        double *rows, int *launches, ghmix_error *err) {
  const size_t nrow = rows != NULL ? GHMIX_ROW_COUNT * h->n : 0;
  size_t at = 0;
  const size_t o_par = factor_carve(&at, sizeof(double) * l->npar);
  const size_t o_part = factor_carve(&at, sizeof(double) * l->nloc * l->blocks);
  const size_t o_st = factor_carve(&at, sizeof(double) * l->nstats);
  const size_t o_rows = factor_carve(&at, sizeof(double) * nrow);
  double *host_par = static_cast<double *>(malloc(sizeof(double) * l->npar));
  ghmix_factor_model dev;
  ghmix_status st;
  cudaError_t e;
  char *base;
  if (host_par == NULL)
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the factor E-step parameters");
  ghmix_factor_par_pack(fm, host_par);
  st = scratch_reserve(&h->scratch, at, "the factor E-step", h->device, err);
  base = static_cast<char *>(h->scratch.p);
  if (st == GHMIX_OK)
    st = copy_in(base + o_par, host_par, sizeof(double) * l->npar,
                 "the factor E-step parameters", err);
  free(host_par);
  if (st != GHMIX_OK)
    return st;
  if ((st = allow_shared(factor_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  dev = ghmix_factor_par_view(fm, reinterpret_cast<double *>(base + o_par));
  factor_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, h->x, h->weights, dev,
      nrow ? reinterpret_cast<double *>(base + o_rows) : NULL,
      reinterpret_cast<double *>(base + o_part));
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cuda_fail(err, "launching the factor E-step kernel", e);
  factor_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
      l->d, l->r, l->blocks, reinterpret_cast<double *>(base + o_part),
      reinterpret_cast<double *>(base + o_st));
  if (launches != NULL)
    *launches = 2;
  if ((st = finish_launch("factor E-step", err)) != GHMIX_OK ||
      (st = copy_out(stats, base + o_st, sizeof(double) * l->nstats,
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, base + o_rows, sizeof(double) * nrow,
                     "the E-step rows", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

} // namespace

extern "C" ghmix_status ghmix_cuda_factor_data_create(const double *x, size_t n,
                                                      size_t ldx, int d,
                                                      const double *weights,
                                                      int device, void **handle,
                                                      ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  size_t o_x, o_w;
  factor_data *h;
  ghmix_status st;
  ghmix_error_clear(err);
  *handle = NULL;
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n || (size_t)d > (size_t)1 << 20)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "bad factor E-step data: d = %d, n = %.0f, ldx = "
                           "%.0f",
                           d, (double)n, (double)ldx);
  if (n > max_elements / (size_t)d)
    return too_many(n * (size_t)d, err);
  o_x = mem.reserve(n * (size_t)d * sizeof(double));
  o_w = mem.reserve(weights != NULL ? n * sizeof(double) : 0);
  if ((st = mem.allocate("the factor E-step data", device, err)) != GHMIX_OK)
    return st;
  if ((st = copy_rows_in(mem.at<double>(o_x), x, n, ldx, d, "the data", err)) !=
      GHMIX_OK)
    return st;
  if (weights != NULL &&
      (st = copy_in(mem.at<double>(o_w), weights, n * sizeof(double),
                    "the E-step weights", err)) != GHMIX_OK)
    return st;
  h = static_cast<factor_data *>(calloc(1, sizeof *h));
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the factor E-step handle");
  h->device = device;
  h->d = d;
  h->n = n;
  h->x = mem.at<double>(o_x);
  h->weights = weights != NULL && n > 0 ? mem.at<double>(o_w) : NULL;
  h->arena = mem.release_ownership();
  *handle = h;
  return GHMIX_OK;
}

extern "C" void ghmix_cuda_factor_data_free(void *handle) {
  factor_data *h = static_cast<factor_data *>(handle);
  if (h == NULL)
    return;
  {
    void *const ptrs[2] = {h->scratch.p, h->arena};
    free_on_device(h->device, ptrs, 2);
  }
  free(h);
}

extern "C" ghmix_status ghmix_cuda_factor_data_weights(void *handle,
                                                       const double *weights,
                                                       ghmix_error *err) {
  factor_data *h = static_cast<factor_data *>(handle);
  device_guard guard;
  ghmix_status st;
  ghmix_error_clear(err);
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the factor E-step data handle is NULL (freed?)");
  if (h->n == 0)
    return GHMIX_OK;
  if (h->weights == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the factor E-step data have no weights to "
                           "replace");
  if ((st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  return copy_in(h->weights, weights, h->n * sizeof(double),
                 "the E-step weights", err);
}

/* The handle and the G models (all of the data's d and of one r):
 * GHMIX_ERR_DOMAIN unless they fit. */
static ghmix_status factor_models_check(const factor_data *h, int G,
                                        const ghmix_factor_model *fms,
                                        ghmix_error *err) {
  int c;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the factor E-step data handle is NULL (freed?)");
  if (G < 1 || G > GHMIX_MAX_COMPONENTS)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "%d components: the factor E-step takes 1 to %d", G,
                           GHMIX_MAX_COMPONENTS);
  for (c = 0; c < G; c++)
    if (fms[c].d != h->d || fms[c].r != fms[0].r || fms[c].r < 0 ||
        fms[c].r >= fms[c].d)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "a factor model of d = %d, r = %d (component %d) "
                             "for data of d = %d",
                             fms[c].d, fms[c].r, c + 1, h->d);
  return GHMIX_OK;
}

/* With the device current: no rows (the nstats statistics 0, *empty = 1),
 * or the plan's shared memory checked against the device's. */
static ghmix_status factor_ready(const factor_data *h,
                                 const ghmix_factor_layout *l, double *stats,
                                 int *empty, ghmix_error *err) {
  ghmix_status st;
  size_t k;
  int optin = 0;
  *empty = h->n == 0;
  if (*empty) {
    for (k = 0; k < l->nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  if ((st = shared_optin(h->device, &optin, err)) != GHMIX_OK)
    return st;
  if (l->smem > (size_t)optin)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "r = %d factors are too many for the CUDA E-step "
                           "on device %d (%.0f bytes of shared memory per "
                           "block, the device has %d); use backend = \"cpu\"",
                           l->r, h->device, (double)l->smem, optin);
  return GHMIX_OK;
}

/* The start of every factor E-step call: no error and no launch yet, the
 * G models checked against the handle, and the handle's device entered. */
static ghmix_status factor_call_enter(factor_data *h, int G,
                                      const ghmix_factor_model *fms,
                                      int *launches, device_guard *guard,
                                      ghmix_error *err) {
  ghmix_status st;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if ((st = factor_models_check(h, G, fms, err)) != GHMIX_OK)
    return st;
  return guard->enter(h->device, err);
}

extern "C" ghmix_status ghmix_cuda_factor_estep(void *handle,
                                                const ghmix_factor_model *fm,
                                                double *stats, double *rows,
                                                int *launches,
                                                ghmix_error *err) {
  factor_data *h = static_cast<factor_data *>(handle);
  device_guard guard;
  ghmix_factor_layout l;
  ghmix_status st;
  int empty = 0;
  if ((st = factor_call_enter(h, 1, fm, launches, &guard, err)) != GHMIX_OK)
    return st;
  l = ghmix_factor_plan(h->n, h->d, fm->r);
  if ((st = factor_ready(h, &l, stats, &empty, err)) != GHMIX_OK || empty)
    return st;
  return factor_run(h, fm, &l, stats, rows, launches, err);
}

/* The buffers of a G-component E-step in the handle's scratch (offsets). */
struct factorg_pieces {
  size_t par, models, part, st, rows, res, v, bu, total;
};

static factorg_pieces factorg_carve(const ghmix_factor_layout *l, int G,
                                    size_t nrow) {
  const size_t threads = (size_t)l->blocks * (size_t)l->tile;
  const size_t npar1 = ghmix_factor_par_len(l->d, l->r);
  factorg_pieces p;
  size_t at = 0;
  p.par = factor_carve(&at, sizeof(double) * (npar1 + 1) * G);
  p.models = factor_carve(&at, sizeof(ghmix_factor_model) * G);
  p.part = factor_carve(&at, sizeof(double) * l->nloc * l->blocks);
  p.st = factor_carve(&at, sizeof(double) * l->nstats);
  p.rows = factor_carve(&at, sizeof(double) * nrow);
  p.res = factor_carve(&at, sizeof(ghmix_mix_row_result) * threads * G);
  p.v = factor_carve(&at, sizeof(double) * threads * G);
  p.bu = factor_carve(&at, sizeof(double) * threads * G * (size_t)l->r);
  p.total = at;
  return p;
}

/* The G models' parameter arrays and log proportions packed on the host
 * (host, (npar1 + 1) G doubles) and their views of the device's copy at
 * dpar (models, G). */
static void factorg_pack(int G, const ghmix_factor_model *fms,
                         const double *log_props, size_t npar1, double *host,
                         const double *dpar, ghmix_factor_model *models) {
  int k;
  for (k = 0; k < G; k++) {
    ghmix_factor_par_pack(&fms[k], host + (size_t)k * npar1);
    models[k] = ghmix_factor_par_view(&fms[k], dpar + (size_t)k * npar1);
    host[npar1 * G + k] = log_props[k];
  }
}

static ghmix_status factorg_run(factor_data *h, int G,
                                const ghmix_factor_model *fms,
                                const double *log_props, int what,
                                const ghmix_factor_layout *l, double *out,
                                double *rows, int *launches, ghmix_error *err) {
  const size_t npar1 = ghmix_factor_par_len(l->d, l->r);
  const size_t nrow = rows != NULL ? h->n * ghmix_mixg_row_ncol(G) : 0;
  const factorg_pieces p = factorg_carve(l, G, nrow);
  double *host =
      static_cast<double *>(malloc(sizeof(double) * (npar1 + 1) * G));
  ghmix_factor_model *models =
      static_cast<ghmix_factor_model *>(malloc(sizeof(ghmix_factor_model) * G));
  ghmix_status st = GHMIX_OK;
  cudaError_t e;
  char *base;
  if (host == NULL || models == NULL)
    st = ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                         "cannot allocate the factor mixture's parameters");
  if (st == GHMIX_OK)
    st = scratch_reserve(&h->scratch, p.total, "the factor mixture E-step",
                         h->device, err);
  base = static_cast<char *>(h->scratch.p);
  if (st == GHMIX_OK) {
    factorg_pack(G, fms, log_props, npar1, host,
                 reinterpret_cast<double *>(base + p.par), models);
    if ((st = copy_in(base + p.par, host, sizeof(double) * (npar1 + 1) * G,
                      "the factor mixture's parameters", err)) == GHMIX_OK)
      st = copy_in(base + p.models, models, sizeof(ghmix_factor_model) * G,
                   "the factor mixture's models", err);
  }
  free(host);
  free(models);
  if (st != GHMIX_OK ||
      (st = allow_shared(factorg_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  factorg_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, G, h->x, h->weights,
      reinterpret_cast<const ghmix_factor_model *>(base + p.models),
      reinterpret_cast<const double *>(base + p.par) + npar1 * G, what,
      nrow ? reinterpret_cast<double *>(base + p.rows) : NULL,
      reinterpret_cast<double *>(base + p.part),
      reinterpret_cast<ghmix_mix_row_result *>(base + p.res),
      reinterpret_cast<double *>(base + p.v),
      reinterpret_cast<double *>(base + p.bu));
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cuda_fail(err, "launching the factor mixture E-step kernel", e);
  factorg_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
      l->d, l->r, (l->nstats - GHMIX_MIXG_NGLOBAL) / G, l->blocks,
      reinterpret_cast<double *>(base + p.part),
      reinterpret_cast<double *>(base + p.st));
  if (launches != NULL)
    *launches = 2;
  if ((st = finish_launch("factor mixture E-step", err)) != GHMIX_OK ||
      (st = copy_out(out, base + p.st, sizeof(double) * l->nstats,
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, base + p.rows, sizeof(double) * nrow,
                     "the E-step rows", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_factor_estep_mixture(
    void *handle, int G, const ghmix_factor_model *fms, const double *log_props,
    int what, double *out, double *rows, int *launches, ghmix_error *err) {
  factor_data *h = static_cast<factor_data *>(handle);
  device_guard guard;
  ghmix_factor_layout l;
  ghmix_status st;
  int empty = 0;
  if ((st = factor_call_enter(h, G, fms, launches, &guard, err)) != GHMIX_OK)
    return st;
  l = ghmix_factorg_plan(h->n, h->d, fms[0].r, G);
  if ((st = factor_ready(h, &l, out, &empty, err)) != GHMIX_OK || empty)
    return st;
  return factorg_run(h, G, fms, log_props, what, &l, out, rows, launches, err);
}
