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

/* The device-resident data of a factor fit (the void * handle). */
struct factor_data {
  int device, d;
  size_t n;
  void *arena;     /* x and the weights */
  double *x;       /* n x d, leading dimension n */
  double *weights; /* n, or NULL */
};

/* The per-call buffers of an E-step and the kernels, for the handle's data
 * with layout l and the model fm. */
ghmix_status factor_run(const factor_data *h, const ghmix_factor_model *fm,
                        const ghmix_factor_layout *l, double *stats,
                        double *rows, int *launches, ghmix_error *err) {
  const size_t nrow = rows != NULL ? GHMIX_ROW_COUNT * h->n : 0;
  device_arena mem;
  const size_t o_par = mem.reserve(sizeof(double) * l->npar);
  const size_t o_part = mem.reserve(sizeof(double) * l->nloc * l->blocks);
  const size_t o_st = mem.reserve(sizeof(double) * l->nstats);
  const size_t o_rows = mem.reserve(sizeof(double) * nrow);
  double *host_par = static_cast<double *>(malloc(sizeof(double) * l->npar));
  ghmix_factor_model dev;
  ghmix_status st;
  cudaError_t e;
  if (host_par == NULL)
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the factor E-step parameters");
  ghmix_factor_par_pack(fm, host_par);
  st = mem.allocate("the factor E-step", h->device, err);
  if (st == GHMIX_OK)
    st = copy_in(mem.at<double>(o_par), host_par, sizeof(double) * l->npar,
                 "the factor E-step parameters", err);
  free(host_par);
  if (st != GHMIX_OK)
    return st;
  if ((st = allow_shared(factor_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  dev = ghmix_factor_par_view(fm, mem.at<double>(o_par));
  factor_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, h->x, h->weights, dev, nrow ? mem.at<double>(o_rows) : NULL,
      mem.at<double>(o_part));
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cuda_fail(err, "launching the factor E-step kernel", e);
  factor_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
      l->d, l->r, l->blocks, mem.at<double>(o_part), mem.at<double>(o_st));
  if (launches != NULL)
    *launches = 2;
  if ((st = finish_launch("factor E-step", err)) != GHMIX_OK ||
      (st = copy_out(stats, mem.at<double>(o_st), sizeof(double) * l->nstats,
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, mem.at<double>(o_rows), sizeof(double) * nrow,
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
  free_on_device(h->device, &h->arena, 1);
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

extern "C" ghmix_status ghmix_cuda_factor_estep(void *handle,
                                                const ghmix_factor_model *fm,
                                                double *stats, double *rows,
                                                int *launches,
                                                ghmix_error *err) {
  factor_data *h = static_cast<factor_data *>(handle);
  device_guard guard;
  ghmix_factor_layout l;
  ghmix_status st;
  size_t k;
  int optin = 0;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the factor E-step data handle is NULL (freed?)");
  if (fm->d != h->d || fm->r < 0 || fm->r >= fm->d)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "a factor model of d = %d, r = %d for data of "
                           "d = %d",
                           fm->d, fm->r, h->d);
  if ((st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  l = ghmix_factor_plan(h->n, h->d, fm->r);
  if (h->n == 0) {
    for (k = 0; k < l.nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  if ((st = shared_optin(h->device, &optin, err)) != GHMIX_OK)
    return st;
  if (l.smem > (size_t)optin)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "r = %d factors are too many for the CUDA E-step "
                           "on device %d (%.0f bytes of shared memory per "
                           "block, the device has %d); use backend = \"cpu\"",
                           fm->r, h->device, (double)l.smem, optin);
  return factor_run(h, fm, &l, stats, rows, launches, err);
}
