/* The CUDA kernels of the mixture's densities and E-steps (one component
 * with a full Sigma, and G components) and their host wrappers (see
 * ghmix_cuda.h; the per-thread steps are in mix_tile.h and mixg_tile.h). */
#include "core_device.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "device.cuh"
#include "ghmix_cuda.h"
#include "host.cuh"
#include "mix_tile.h"
#include "mixg_tile.h"

using namespace ghmix_cu;

namespace {

/* The mixture's density and posterior moments per row: ghmix_mix_rows_one
 * (mix_tile.h), which solves in place in x (the device's own copy). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    mix_rows_kernel(size_t n, int d, double *__restrict__ x,
                    const double *__restrict__ par, ghmix_mix_const c,
                    int give_log, int ncol, double *__restrict__ out) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    ghmix_mix_rows_one(i, n, d, x, par, &c, give_log, ncol, out);
}

/* ======================================================================
 * The E-step: the per-thread steps are in mix_tile.h.
 *
 * Kernel 1 (mix_estep_kernel): block b of G takes the tiles b, b + G,
 * b + 2G, ... of T = blockDim.x consecutive rows; for each, step 1
 * (ghmix_mix_tile_row: one row per thread, its z, Q, B, ghmix_mix_row_step
 * and its terms into the shared tile), a barrier, step 2 (ghmix_mix_tile_sums:
 * the tile's sums, statistic s owned by thread s mod T, into the block's
 * partial sums in global memory), a barrier.  Shared memory holds only the
 * tile, (d + GHMIX_TERM_COUNT) x (T + 1) doubles, so any d fits whose tile fits
 * the device: T is 128 for d <= 16, 64 for d <= 64, 32 beyond (d up to about
 * 870 with the 227 KiB of an H100/H200, 370 with 99 KiB).  G depends on n
 * and d only (at most 1024 blocks, and at most 128 MiB of partial sums).
 *
 * Kernel 2 (mix_reduce_kernel): one block per statistic; thread t sums the
 * partials of blocks t, t + 128, ... in order, then a fixed tree in shared
 * memory; thread 0 writes the statistic where the layout of src/core/
 * estep.h puts it (both triangles of the d x d block).
 *
 * Every sum has a fixed order, so repeated runs give bit-identical
 * results; two launches per E-step.
 * ====================================================================== */

__global__ void __launch_bounds__(128)
    mix_estep_kernel(size_t n, int d, const double *__restrict__ x,
                     const double *__restrict__ weights,
                     const double *__restrict__ par, ghmix_mix_const c,
                     double *__restrict__ rows, double *__restrict__ partial) {
  extern __shared__ double tile[];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, G = (int)gridDim.x;
  const int b = (int)blockIdx.x;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  size_t tl;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)G) {
    ghmix_mix_tile_row(t, T, tl * (size_t)T + (size_t)t, n, d, x, weights, par,
                       &c, rows, tile);
    __syncthreads();
    ghmix_mix_tile_sums(t, T, d, G, b, tl == (size_t)b, weights != NULL, tile,
                        partial);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(GHMIX_MIX_REDUCE_THREADS)
    mix_reduce_kernel(int d, int nblocks, const double *__restrict__ partial,
                      double *__restrict__ stats) {
  const size_t s = blockIdx.x;
  const double sum = block_row_sum(partial + s * (size_t)nblocks, nblocks);
  if (threadIdx.x == 0) {
    size_t slot[2];
    int k, m = ghmix_mix_stat_slots(s, d, slot);
    for (k = 0; k < m; k++)
      stats[slot[k]] = sum;
  }
}

/* The E-step of G components (mixg_tile.h): block b takes the tiles b,
 * b + NB, ... as mix_estep_kernel does; per tile, step 1 for every
 * component, then per component step 2, a barrier, mix_tile.h's sums into
 * the component's partials (and, for the first, the whole model's), a
 * barrier.  res and v: the G row results and weights of every thread of
 * the grid, thread j's k-th at j + k NB T (global memory). */
__global__ void __launch_bounds__(128) mixg_estep_kernel(
    size_t n, int d, int G, const double *__restrict__ x,
    const double *__restrict__ par, const ghmix_mix_const *__restrict__ c,
    const double *__restrict__ log_prop, const double *__restrict__ weights,
    int what, double *__restrict__ rows, double *__restrict__ partial,
    ghmix_mix_row_result *__restrict__ res, double *__restrict__ v) {
  extern __shared__ double tile[];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, NB = (int)gridDim.x;
  const int b = (int)blockIdx.x;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  const size_t plen = ghmix_mix_par_len(d), rs = (size_t)NB * (size_t)T;
  size_t tl;
  int k;
  res += (size_t)b * (size_t)T + (size_t)t;
  v += (size_t)b * (size_t)T + (size_t)t;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)NB) {
    const size_t i = tl * (size_t)T + (size_t)t;
    const int first = tl == (size_t)b;
    ghmix_mixg_tile_row(t, T, i, n, d, G, x, par, c, log_prop, weights, what,
                        rows, tile, res, v, rs);
    for (k = 0; k < G; k++) {
      ghmix_mixg_tile_comp(t, T, i, n, d, x, par + (size_t)k * plen, what,
                           v[(size_t)k * rs], &res[(size_t)k * rs], tile);
      __syncthreads();
      ghmix_mix_tile_sums_w(t, T, d, NB, b, first, tile,
                            ghmix_mixg_partial(partial, d, k, NB), 0,
                            (int)GHMIX_TERM_ROWS);
      if (k == 0)
        ghmix_mixg_tile_global(t, T, NB, b, first,
                               ghmix_mixg_global_cols(tile, d, T), partial);
      __syncthreads();
    }
  }
}

/* The fixed-order sum of the block partials of mixg_estep_kernel, as
 * mix_reduce_kernel, each statistic where ghmix_mixg_stat_slots puts it. */
__global__ void __launch_bounds__(GHMIX_MIX_REDUCE_THREADS)
    mixg_reduce_kernel(int d, int G, int nblocks,
                       const double *__restrict__ partial,
                       double *__restrict__ stats) {
  const size_t s = blockIdx.x;
  const double sum = block_row_sum(partial + s * (size_t)nblocks, nblocks);
  if (threadIdx.x == 0) {
    size_t slot[2];
    int k, m = ghmix_mixg_stat_slots(s, d, G, slot);
    for (k = 0; k < m; k++)
      stats[slot[k]] = sum;
  }
}

/* The device-resident data of one fit (the void * handle). */
struct mix_data {
  int device;
  size_t n;
  ghmix_mix_layout layout;
  void *arena;         /* x, parameters, partials, statistics */
  double *x;           /* n x d, leading dimension n */
  double *par;         /* center (d), chol (d x d), g (d) */
  double *partial;     /* nloc x blocks */
  double *stats;       /* nstats */
  device_scratch rows; /* n x 4, from the first call that wants rows */
  device_scratch wts;  /* the n weights (ghmix_cuda_mix_data_weights) */
  double *weights;     /* wts.p, or NULL without weights */
  device_scratch mixg; /* the G-component E-step's buffers (mixg_run) */
  double *host_par;    /* staging for par */
};

} // namespace

extern "C" ghmix_status ghmix_cuda_mix_rows(const double *x, size_t n,
                                            size_t ldx, int d,
                                            const ghmix_mix_model *model,
                                            int give_log, int ncol, double *out,
                                            int device, ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  size_t o_x, o_par, o_out;
  unsigned blocks;
  double *dpar;
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n || (size_t)d > (size_t)1 << 20 ||
      (ncol != 1 && ncol != GHMIX_ROW_COUNT))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "bad arguments for the CUDA row kernel: d = %d, "
                           "n = %.0f, ldx = %.0f, ncol = %d",
                           d, (double)n, (double)ldx, ncol);
  if ((st = ghmix_mix_model_check(model, d, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  if (n > max_elements / (size_t)d)
    return too_many(n * (size_t)d, err);
  o_x = mem.reserve(n * (size_t)d * sizeof(double));
  o_par = mem.reserve(ghmix_mix_par_len(d) * sizeof(double));
  o_out = mem.reserve(n * (size_t)ncol * sizeof(double));
  if ((st = mem.allocate("the density rows", device, err)) != GHMIX_OK)
    return st;
  if ((st = copy_rows_in(mem.at<double>(o_x), x, n, ldx, d, "the rows", err)) !=
      GHMIX_OK)
    return st;
  dpar = mem.at<double>(o_par);
  {
    double *host_par =
        static_cast<double *>(malloc(ghmix_mix_par_len(d) * sizeof(double)));
    if (host_par == NULL)
      return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                             "cannot allocate the row kernel's parameters");
    ghmix_mix_par_pack(&model->comp[0], d, host_par);
    st = copy_in(dpar, host_par, ghmix_mix_par_len(d) * sizeof(double),
                 "the parameters", err);
    free(host_par);
  }
  if (st != GHMIX_OK || (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  mix_rows_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(n, d, mem.at<double>(o_x), dpar,
                                                model->comp[0].c, give_log != 0,
                                                ncol, mem.at<double>(o_out));
  if ((st = finish_launch("density rows", err)) != GHMIX_OK ||
      (st = copy_out(out, mem.at<double>(o_out),
                     n * (size_t)ncol * sizeof(double), "the row results",
                     err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" void ghmix_cuda_mix_data_free(void *handle) {
  mix_data *h = static_cast<mix_data *>(handle);
  if (h == NULL)
    return;
  {
    void *const ptrs[4] = {h->rows.p, h->wts.p, h->mixg.p, h->arena};
    free_on_device(h->device, ptrs, 4);
  }
  free(h->host_par);
  free(h);
}

extern "C" ghmix_status ghmix_cuda_mix_data_create(const double *x, size_t n,
                                                   size_t ldx, int d,
                                                   int device, void **handle,
                                                   ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_mix_layout l;
  size_t o_x, o_par, o_partial, o_stats, npar;
  mix_data *h;
  ghmix_status st;
  int optin = 0;
  ghmix_error_clear(err);
  *handle = NULL;
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (d < 1 || ldx < n || (size_t)d > (size_t)1 << 20)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "bad E-step data: d = %d, n = %.0f, ldx = %.0f", d,
                           (double)n, (double)ldx);
  if (n > max_elements / (size_t)d)
    return too_many(n * (size_t)d, err);
  l = ghmix_mix_plan(n, d);
  if ((st = shared_optin(device, &optin, err)) != GHMIX_OK)
    return st;
  if (l.smem > (size_t)optin)
    return ghmix_error_set(
        err, GHMIX_ERR_DOMAIN, -1,
        "d = %d is too large for the CUDA E-step on device %d: it needs %.0f "
        "bytes of shared memory per block and the device has %d; use "
        "backend = \"cpu\"",
        d, device, (double)l.smem, optin);
  npar = ghmix_mix_par_len(d);
  o_x = mem.reserve(n * (size_t)d * sizeof(double));
  o_par = mem.reserve(npar * sizeof(double));
  o_partial = mem.reserve(l.nloc * (size_t)l.blocks * sizeof(double));
  o_stats = mem.reserve(l.nstats * sizeof(double));
  if ((st = mem.allocate("the E-step data", device, err)) != GHMIX_OK)
    return st;
  if ((st = copy_rows_in(mem.at<double>(o_x), x, n, ldx, d, "the data", err)) !=
      GHMIX_OK)
    return st;
  h = static_cast<mix_data *>(calloc(1, sizeof *h));
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate the E-step handle");
  h->host_par = static_cast<double *>(malloc(npar * sizeof(double)));
  if (h->host_par == NULL) {
    free(h);
    return ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                           "cannot allocate %.0f bytes for the E-step",
                           (double)(npar * sizeof(double)));
  }
  h->device = device;
  h->n = n;
  h->layout = l;
  h->x = mem.at<double>(o_x);
  h->par = mem.at<double>(o_par);
  h->partial = mem.at<double>(o_partial);
  h->stats = mem.at<double>(o_stats);
  h->arena = mem.release_ownership();
  *handle = h;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_mix_data_weights(void *handle,
                                                    const double *weights,
                                                    ghmix_error *err) {
  mix_data *h = static_cast<mix_data *>(handle);
  device_guard guard;
  ghmix_status st;
  ghmix_error_clear(err);
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step data handle is NULL (freed?)");
  if ((st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  h->weights = NULL;
  if (weights == NULL || h->n == 0)
    return GHMIX_OK;
  if ((st = scratch_reserve(&h->wts, h->n * sizeof(double),
                            "the E-step weights", h->device, err)) !=
          GHMIX_OK ||
      (st = copy_in(h->wts.p, weights, h->n * sizeof(double),
                    "the E-step weights", err)) != GHMIX_OK)
    return st;
  h->weights = static_cast<double *>(h->wts.p);
  return GHMIX_OK;
}

/* An E-step of the handle's data whose model has (or has not) row weights:
 * GHMIX_ERR_DOMAIN when it has and the data have none. */
static ghmix_status mix_weights_check(const mix_data *h,
                                      const ghmix_mix_model *model,
                                      ghmix_error *err) {
  if ((model->shape.what & GHMIX_ESTEP_WEIGHTS) && h->weights == NULL &&
      h->n > 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step has row weights but the device data "
                           "have none (ghmix_cuda_mix_data_weights)");
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_mix_estep(void *handle,
                                             const ghmix_mix_model *model,
                                             double *stats, double *rows,
                                             int *launches, ghmix_error *err) {
  mix_data *h = static_cast<mix_data *>(handle);
  device_guard guard;
  const ghmix_mix_layout *l;
  size_t k;
  ghmix_status st;
  cudaError_t e;
  int d, weighted;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step data handle is NULL (freed?)");
  l = &h->layout;
  d = l->d;
  if ((st = ghmix_mix_model_check(model, d, err)) != GHMIX_OK)
    return st;
  weighted = (model->shape.what & GHMIX_ESTEP_WEIGHTS) != 0;
  if ((st = mix_weights_check(h, model, err)) != GHMIX_OK ||
      (st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  if (h->n == 0) {
    for (k = 0; k < l->nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  if (rows != NULL &&
      (st = scratch_reserve(&h->rows, GHMIX_ROW_COUNT * h->n * sizeof(double),
                            "the E-step rows", h->device, err)) != GHMIX_OK)
    return st;
  ghmix_mix_par_pack(&model->comp[0], d, h->host_par);
  if ((st = copy_in(h->par, h->host_par, ghmix_mix_par_len(d) * sizeof(double),
                    "the E-step parameters", err)) != GHMIX_OK)
    return st;
  if ((st = allow_shared(mix_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  mix_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, d, h->x, weighted ? h->weights : NULL, h->par, model->comp[0].c,
      rows != NULL ? static_cast<double *>(h->rows.p) : NULL, h->partial);
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cuda_fail(err, "launching the E-step kernel", e);
  if (launches != NULL)
    *launches += 1;
  mix_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
      d, l->blocks, h->partial, h->stats);
  if (launches != NULL)
    *launches += 1;
  if ((st = finish_launch("E-step", err)) != GHMIX_OK ||
      (st = copy_out(stats, h->stats, l->nstats * sizeof(double),
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, h->rows.p,
                     rows ? GHMIX_ROW_COUNT * h->n * sizeof(double) : 0,
                     "the E-step rows", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

/* The parameters of the G components on the host, as the kernels take
 * them; 0 when an allocation fails. */
struct mixg_host {
  double *par, *log_prop;
  ghmix_mix_const *c;
};

static int mixg_host_pack(const ghmix_mix_model *model, mixg_host *p) {
  const int d = model->shape.d, G = model->shape.components;
  const size_t plen = ghmix_mix_par_len(d);
  int k;
  p->par = static_cast<double *>(malloc(sizeof(double) * (plen + 1) * G));
  p->c = static_cast<ghmix_mix_const *>(malloc(sizeof(ghmix_mix_const) * G));
  if (p->par == NULL || p->c == NULL)
    return 0;
  p->log_prop = p->par + plen * G;
  for (k = 0; k < G; k++) {
    ghmix_mix_par_pack(&model->comp[k], d, p->par + plen * k);
    p->c[k] = model->comp[k].c;
    p->log_prop[k] = model->comp[k].log_prop;
  }
  return 1;
}

/* The pieces of the handle's G-component scratch for layout l and G
 * components (offsets into h->mixg, each 256-byte aligned): the
 * parameters, constants, partial sums, statistics, rows (nrow doubles) and
 * the threads' row results and weights. */
struct mixg_pieces {
  size_t par, c, part, st, rows, res, v, total;
};

static size_t mixg_align(size_t *at, size_t bytes) {
  size_t off = *at;
  *at += (bytes + 255) / 256 * 256;
  return off;
}

static mixg_pieces mixg_carve(const ghmix_mix_layout *l, int G, size_t nrow) {
  const size_t threads = (size_t)l->blocks * (size_t)l->tile;
  mixg_pieces p;
  size_t at = 0;
  p.par = mixg_align(&at, sizeof(double) * (ghmix_mix_par_len(l->d) + 1) * G);
  p.c = mixg_align(&at, sizeof(ghmix_mix_const) * G);
  p.part = mixg_align(&at, sizeof(double) * l->nloc * (size_t)l->blocks);
  p.st = mixg_align(&at, sizeof(double) * l->nstats);
  p.rows = mixg_align(&at, sizeof(double) * nrow);
  p.res = mixg_align(&at, sizeof(ghmix_mix_row_result) * threads * G);
  p.v = mixg_align(&at, sizeof(double) * threads * G);
  p.total = at;
  return p;
}

/* Copies in the parameters, runs the two kernels and copies out the
 * statistics and rows; every buffer is the handle's (h->mixg, grown when
 * this call needs more), the weights the handle's own copy. */
static ghmix_status mixg_run(mix_data *h, const ghmix_mix_model *model,
                             const ghmix_mix_layout *l, const mixg_host *hp,
                             double *stats, double *rows, int *launches,
                             ghmix_error *err) {
  const int d = l->d, G = model->shape.components;
  const size_t plen = ghmix_mix_par_len(d), n = h->n;
  const size_t nrow = rows != NULL ? n * ghmix_mixg_row_ncol(G) : 0;
  const int weighted = (model->shape.what & GHMIX_ESTEP_WEIGHTS) != 0;
  const mixg_pieces p = mixg_carve(l, G, nrow);
  char *base;
  ghmix_status st;
  cudaError_t e;
  if ((st = scratch_reserve(&h->mixg, p.total, "the mixture E-step", h->device,
                            err)) != GHMIX_OK)
    return st;
  base = static_cast<char *>(h->mixg.p);
  if ((st = copy_in(base + p.par, hp->par, sizeof(double) * (plen + 1) * G,
                    "the E-step parameters", err)) != GHMIX_OK ||
      (st = copy_in(base + p.c, hp->c, sizeof(ghmix_mix_const) * G,
                    "the E-step constants", err)) != GHMIX_OK ||
      (st = allow_shared(mixg_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  {
    double *par = reinterpret_cast<double *>(base + p.par);
    double *part = reinterpret_cast<double *>(base + p.part);
    mixg_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
        n, d, G, h->x, par, reinterpret_cast<ghmix_mix_const *>(base + p.c),
        par + plen * G, weighted ? h->weights : NULL, model->shape.what,
        nrow ? reinterpret_cast<double *>(base + p.rows) : NULL, part,
        reinterpret_cast<ghmix_mix_row_result *>(base + p.res),
        reinterpret_cast<double *>(base + p.v));
    e = cudaGetLastError();
    if (e != cudaSuccess)
      return cuda_fail(err, "launching the mixture E-step kernel", e);
    mixg_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
        d, G, l->blocks, part, reinterpret_cast<double *>(base + p.st));
  }
  if (launches != NULL)
    *launches = 2;
  if ((st = finish_launch("mixture E-step", err)) != GHMIX_OK ||
      (st = copy_out(stats, base + p.st, sizeof(double) * l->nstats,
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, base + p.rows, sizeof(double) * nrow,
                     "the E-step rows", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_mix_estep_mixture(void *handle, const ghmix_mix_model *model,
                             double *stats, double *rows, int *launches,
                             ghmix_error *err) {
  mix_data *h = static_cast<mix_data *>(handle);
  device_guard guard;
  ghmix_mix_layout l;
  mixg_host hp = {NULL, NULL, NULL};
  ghmix_status st;
  size_t k;
  int optin = 0;
  ghmix_error_clear(err);
  if (launches != NULL)
    *launches = 0;
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step data handle is NULL (freed?)");
  if ((st = ghmix_mix_model_check_g(model, h->layout.d, err)) != GHMIX_OK ||
      (st = mix_weights_check(h, model, err)) != GHMIX_OK ||
      (st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  l = ghmix_mixg_plan(h->n, h->layout.d, model->shape.components);
  if (h->n == 0) {
    for (k = 0; k < l.nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  if ((st = shared_optin(h->device, &optin, err)) != GHMIX_OK)
    return st;
  if (l.smem > (size_t)optin)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "d = %d is too large for the CUDA mixture E-step on "
                           "device %d; use backend = \"cpu\"",
                           l.d, h->device);
  if (!mixg_host_pack(model, &hp))
    st = ghmix_error_set(err, GHMIX_ERR_NOMEM, -1,
                         "cannot allocate the E-step parameters");
  else
    st = mixg_run(h, model, &l, &hp, stats, rows, launches, err);
  free(hp.par);
  free(hp.c);
  return st;
}
