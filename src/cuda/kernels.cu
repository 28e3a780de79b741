/* The CUDA kernels of ghmix and their host wrappers (see ghmix_cuda.h).
 *
 * Single source: the per-element work is the core's own functions
 * (core_device.cuh compiles src/core into this translation unit for host and
 * device); the element-wise kernels here only loop over the element bodies
 * of src/core/elementwise.h that the CPU drivers run, and the E-step
 * kernels reduce.  One thread per element with every loop of the
 * element (regime choice, quadrature, Newton steps) inside it, so each batch
 * is one launch, never one per step.
 *
 * Host side: every CUDA call is checked; a failure becomes GHMIX_ERR_CUDA
 * with the CUDA error string; device memory is owned by small RAII guards,
 * so it is freed on every path, errors included; the calling thread's
 * current device is restored. */
#include "core_device.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ghmix_cuda.h"
#include "mix_tile.h"
#include "mixg_tile.h"

/* Threads per block of the element-wise kernels. */
#define GHMIX_CUDA_BLOCK 128
/* Blocks per multiprocessor at most for the element-wise kernels (they
 * loop over the rest, grid-stride). */
#define GHMIX_CUDA_BLOCKS_PER_SM 64
/* E-step: threads of the final (block-partials) reduction. */
#define GHMIX_MIX_REDUCE_THREADS 128

namespace {

/* ======================================================================
 * Host helpers
 * ====================================================================== */

ghmix_status cuda_fail(ghmix_error *err, const char *what, cudaError_t e) {
  (void)cudaGetLastError(); /* clears the error unless it is sticky */
  return ghmix_error_set(err, GHMIX_ERR_CUDA, -1, "%s failed: %s (%s)", what,
                         cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Makes `device` current for the lifetime of the guard (after checking that
 * it exists) and restores the previous current device afterwards. */
class device_guard {
public:
  device_guard() : prev_(-1), restore_(false) {}
  ~device_guard() {
    if (restore_)
      (void)cudaSetDevice(prev_);
  }
  ghmix_status enter(int device, ghmix_error *err) {
    int count = 0;
    cudaError_t e;
    ghmix_status st = ghmix_cuda_device_count(&count, err);
    if (st != GHMIX_OK)
      return st;
    if (device < 0 || device >= count)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "CUDA device %d does not exist (%d device%s: "
                             "0 to %d)",
                             device, count, count == 1 ? "" : "s", count - 1);
    e = cudaGetDevice(&prev_);
    if (e != cudaSuccess)
      return cuda_fail(err, "cudaGetDevice", e);
    if (prev_ != device) {
      e = cudaSetDevice(device);
      if (e != cudaSuccess)
        return cuda_fail(err, "cudaSetDevice", e);
      restore_ = true;
    }
    return GHMIX_OK;
  }

private:
  int prev_;
  bool restore_;
  device_guard(const device_guard &);
  device_guard &operator=(const device_guard &);
};

/* One device allocation carved into aligned pieces; freed by the
 * destructor (cudaFree of NULL is a no-op). */
class device_arena {
public:
  device_arena() : base_(NULL), size_(0) {}
  ~device_arena() { release(); }
  /* Reserves `bytes` and returns the offset of the piece. */
  size_t reserve(size_t bytes) {
    size_t off = size_;
    size_ += (bytes + 255) / 256 * 256;
    return off;
  }
  ghmix_status allocate(const char *what, int device, ghmix_error *err) {
    cudaError_t e;
    if (size_ == 0)
      return GHMIX_OK;
    e = cudaMalloc(&base_, size_);
    if (e != cudaSuccess) {
      base_ = NULL;
      (void)cudaGetLastError();
      return ghmix_error_set(
          err, GHMIX_ERR_CUDA, -1,
          "cudaMalloc of %.0f bytes (%.3g GiB) for %s on CUDA device %d "
          "failed: %s (%s)",
          (double)size_, (double)size_ / 1073741824.0, what, device,
          cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return GHMIX_OK;
  }
  template <typename T> T *at(size_t off) const {
    return reinterpret_cast<T *>(static_cast<char *>(base_) + off);
  }
  /* Hands the allocation over (the arena no longer frees it). */
  void *release_ownership() {
    void *p = base_;
    base_ = NULL;
    return p;
  }
  void release() {
    if (base_ != NULL)
      (void)cudaFree(base_);
    base_ = NULL;
  }

private:
  void *base_;
  size_t size_;
  device_arena(const device_arena &);
  device_arena &operator=(const device_arena &);
};

/* cudaMemcpy of `bytes` (nothing when 0); dir, "to" or "from" the device,
 * words the error message. */
ghmix_status copy_bytes(void *dst, const void *src, size_t bytes,
                        cudaMemcpyKind kind, const char *what, const char *dir,
                        ghmix_error *err) {
  cudaError_t e;
  if (bytes == 0)
    return GHMIX_OK;
  e = cudaMemcpy(dst, src, bytes, kind);
  if (e != cudaSuccess) {
    char buf[128];
    snprintf(buf, sizeof buf, "cudaMemcpy of %s %s the device", what, dir);
    return cuda_fail(err, buf, e);
  }
  return GHMIX_OK;
}

ghmix_status copy_in(void *dst, const void *src, size_t bytes, const char *what,
                     ghmix_error *err) {
  return copy_bytes(dst, src, bytes, cudaMemcpyHostToDevice, what, "to", err);
}

/* (nothing when dst is NULL: an output not asked for) */
ghmix_status copy_out(void *dst, const void *src, size_t bytes,
                      const char *what, ghmix_error *err) {
  if (dst == NULL)
    return GHMIX_OK;
  return copy_bytes(dst, src, bytes, cudaMemcpyDeviceToHost, what, "from", err);
}

/* Checks a launch and waits for the kernel, so that a fault is reported
 * as the kernel's rather than the next copy's. */
ghmix_status finish_launch(const char *kernel, ghmix_error *err) {
  char buf[128];
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    snprintf(buf, sizeof buf, "launching the %s kernel", kernel);
    return cuda_fail(err, buf, e);
  }
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    snprintf(buf, sizeof buf, "running the %s kernel", kernel);
    return cuda_fail(err, buf, e);
  }
  return GHMIX_OK;
}

/* Blocks for an element-wise kernel over n elements (grid-stride beyond). */
ghmix_status grid_for(size_t n, int device, unsigned *blocks,
                      ghmix_error *err) {
  int sms = 0;
  size_t want = (n + GHMIX_CUDA_BLOCK - 1) / GHMIX_CUDA_BLOCK, cap;
  cudaError_t e =
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaDeviceGetAttribute", e);
  cap = (size_t)(sms > 0 ? sms : 1) * GHMIX_CUDA_BLOCKS_PER_SM;
  *blocks = (unsigned)(want < cap ? want : cap);
  if (*blocks == 0)
    *blocks = 1;
  return GHMIX_OK;
}

/* Elements above this would overflow byte counts (n * 9 * 8 bytes). */
const size_t max_elements = SIZE_MAX / 128;

ghmix_status too_many(size_t n, ghmix_error *err) {
  return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                         "%.0f elements are too many for one CUDA batch",
                         (double)n);
}

/* The n x d rows x (leading dimension ldx) into dst on the device (leading
 * dimension n); what words the error message. */
ghmix_status copy_rows_in(double *dst, const double *x, size_t n, size_t ldx,
                          int d, const char *what, ghmix_error *err) {
  char buf[128];
  cudaError_t e;
  if (n == 0)
    return GHMIX_OK;
  e = cudaMemcpy2D(dst, n * sizeof(double), x, ldx * sizeof(double),
                   n * sizeof(double), (size_t)d, cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    return GHMIX_OK;
  snprintf(buf, sizeof buf, "cudaMemcpy2D of %s to the device", what);
  return cuda_fail(err, buf, e);
}

/* *optin: the bytes of shared memory a block may opt in to on `device`. */
ghmix_status shared_optin(int device, int *optin, ghmix_error *err) {
  cudaError_t e = cudaDeviceGetAttribute(
      optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  return e == cudaSuccess ? GHMIX_OK
                          : cuda_fail(err, "cudaDeviceGetAttribute", e);
}

/* Lets `kernel` have smem bytes of dynamic shared memory (beyond the
 * default 48 KiB, up to the opt-in limit). */
template <typename K>
ghmix_status allow_shared(K kernel, size_t smem, ghmix_error *err) {
  cudaError_t e;
  if (smem <= 48 * 1024)
    return GHMIX_OK;
  e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           (int)smem);
  return e == cudaSuccess ? GHMIX_OK
                          : cuda_fail(err, "cudaFuncSetAttribute", e);
}

/* cudaFree of the count pointers on `device`, from any current device;
 * errors are ignored: this also runs from finalizers, possibly after the
 * CUDA runtime has shut down. */
void free_on_device(int device, void *const *ptrs, int count) {
  int prev = -1, k;
  if (cudaGetDevice(&prev) != cudaSuccess)
    prev = -1;
  if (prev != device)
    (void)cudaSetDevice(device);
  for (k = 0; k < count; k++)
    (void)cudaFree(ptrs[k]);
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  (void)cudaGetLastError();
}

/* ======================================================================
 * Element-wise kernels
 * ====================================================================== */

__device__ __forceinline__ size_t first_index() {
  return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t grid_stride() {
  return (size_t)gridDim.x * blockDim.x;
}

/* The element-wise kernels: one thread per element (grid-stride beyond),
 * each running the element body of src/core/elementwise.h, the same as the
 * CPU drivers' loops. */

__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    logk_kernel(ghmix_logk_args a) {
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    ghmix_logk_element(&a, i);
}

__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gig_eta_kernel(ghmix_gig_eta_args a) {
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    ghmix_gig_eta_element(&a, i);
}

/* Every row's feasibility check and, for the feasible ones, the solve, in
 * one launch; first[0] / first[1] receive the smallest infeasible / not
 * finite and positive row (they start at ULLONG_MAX). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gig_solve_kernel(ghmix_gig_solve_args s,
                     unsigned long long *__restrict__ first) {
  for (size_t i = first_index(); i < s.n; i += grid_stride()) {
    int f = ghmix_gig_solve_element(&s, i);
    if (f != GHMIX_GIG_INFEASIBLE_NONE)
      atomicMin(&first[f > 0 ? 0 : 1], (unsigned long long)i);
  }
}

/* shared is the parameter set prepared on the host when have_shared, else
 * each thread prepares its own (one Bessel evaluation more). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gh1_density_kernel(ghmix_gh1_args a, ghmix_gh1 shared, int have_shared,
                       int give_log, double *__restrict__ out) {
  ghmix_gh1_cache cache;
  cache.have = 0;
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    out[i] = ghmix_gh1_density_element(&a, i, have_shared ? &shared : NULL,
                                       &cache, give_log);
}

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

/* The sum of row[0, nblocks) in a fixed order (each thread's strided sum,
 * then a tree over the threads), in every thread of a block of
 * GHMIX_MIX_REDUCE_THREADS. */
static __device__ double block_row_sum(const double *__restrict__ row,
                                       int nblocks) {
  __shared__ double acc[GHMIX_MIX_REDUCE_THREADS];
  double sum = 0;
  int b, h;
  for (b = (int)threadIdx.x; b < nblocks; b += GHMIX_MIX_REDUCE_THREADS)
    sum += row[b];
  acc[threadIdx.x] = sum;
  __syncthreads();
  for (h = GHMIX_MIX_REDUCE_THREADS / 2; h > 0; h /= 2) {
    if ((int)threadIdx.x < h)
      acc[threadIdx.x] += acc[threadIdx.x + h];
    __syncthreads();
  }
  return acc[0];
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
 * barrier.  res and v are each thread's own (local memory). */
__global__ void __launch_bounds__(128)
    mixg_estep_kernel(size_t n, int d, int G, const double *__restrict__ x,
                      const double *__restrict__ par,
                      const ghmix_mix_const *__restrict__ c,
                      const double *__restrict__ log_prop,
                      const double *__restrict__ weights, int what,
                      double *__restrict__ rows, double *__restrict__ partial) {
  extern __shared__ double tile[];
  ghmix_mix_row_result res[GHMIX_MAX_COMPONENTS];
  double v[GHMIX_MAX_COMPONENTS];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, NB = (int)gridDim.x;
  const int b = (int)blockIdx.x;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  const size_t plen = ghmix_mix_par_len(d);
  size_t tl;
  int k;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)NB) {
    const size_t i = tl * (size_t)T + (size_t)t;
    const int first = tl == (size_t)b;
    ghmix_mixg_tile_row(t, T, i, n, d, G, x, par, c, log_prop, weights, what,
                        rows, tile, res, v);
    for (k = 0; k < G; k++) {
      ghmix_mixg_tile_comp(t, T, i, n, d, x, par + (size_t)k * plen, what, v[k],
                           &res[k], tile);
      __syncthreads();
      ghmix_mix_tile_sums_w(t, T, d, NB, b, first, tile,
                            ghmix_mixg_partial(partial, d, k, NB), 0,
                            (int)GHMIX_TERM_ROWS);
      if (k == 0)
        ghmix_mixg_tile_global(t, T, d, NB, b, first, tile, partial);
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
  void *arena;      /* x, parameters, partials, statistics */
  double *x;        /* n x d, leading dimension n */
  double *par;      /* center (d), chol (d x d), g (d) */
  double *partial;  /* nloc x blocks */
  double *stats;    /* nstats */
  double *rows;     /* n x 4, allocated at the first call that wants rows */
  double *weights;  /* n, or NULL (ghmix_cuda_mix_data_weights) */
  double *host_par; /* staging for par */
};

/* An input of length len for n elements on the device: only its first n
 * elements are used. */
size_t used_length(size_t len, size_t n) { return len < n ? len : n; }

/* The row index of an atomicMin slot, -1 when no row wrote it. */
ptrdiff_t first_row(unsigned long long slot) {
  return slot == ULLONG_MAX ? -1 : (ptrdiff_t)slot;
}

} // namespace

/* ======================================================================
 * C interface
 * ====================================================================== */

extern "C" ghmix_status
ghmix_cuda_bessel_logk_batch(size_t n, const double *x, size_t nx,
                             const double *nu, size_t nnu, double *logk,
                             double *grad_x, double *grad_nu, int device,
                             ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_logk_args a;
  size_t o_x, o_nu, o_logk, o_gx = 0, o_gnu = 0;
  unsigned blocks;
  ghmix_status st;
  a.n = n;
  a.nx = used_length(nx, n);
  a.nnu = used_length(nnu, n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_logk_args_check(&a, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_x = mem.reserve(a.nx * sizeof(double));
  o_nu = mem.reserve(a.nnu * sizeof(double));
  o_logk = mem.reserve(n * sizeof(double));
  if (grad_x != NULL)
    o_gx = mem.reserve(n * sizeof(double));
  if (grad_nu != NULL)
    o_gnu = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("log_besselK", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_x), x, a.nx * sizeof(double), "x", err)) !=
          GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_nu), nu, a.nnu * sizeof(double), "nu",
                    err)) != GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  a.x = mem.at<double>(o_x);
  a.nu = mem.at<double>(o_nu);
  a.logk = mem.at<double>(o_logk);
  a.grad_x = grad_x != NULL ? mem.at<double>(o_gx) : NULL;
  a.grad_nu = grad_nu != NULL ? mem.at<double>(o_gnu) : NULL;
  logk_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(a);
  if ((st = finish_launch("log K", err)) != GHMIX_OK ||
      (st = copy_out(logk, a.logk, n * sizeof(double), "log K", err)) !=
          GHMIX_OK ||
      (st = copy_out(grad_x, a.grad_x, n * sizeof(double), "d/dx log K",
                     err)) != GHMIX_OK ||
      (st = copy_out(grad_nu, a.grad_nu, n * sizeof(double), "d/dnu log K",
                     err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gig_expectation_batch(size_t n, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, double *out_log, double *out_inv,
                                 double *out_y, int device, ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_gig_eta_args e;
  size_t o_p, o_a, o_b, o_out;
  unsigned blocks;
  ghmix_status st;
  e.n = n;
  e.par.np = used_length(np, n);
  e.par.na = used_length(na, n);
  e.par.nb = used_length(nb, n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_gig_params_check(&e.par, n, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_p = mem.reserve(e.par.np * sizeof(double));
  o_a = mem.reserve(e.par.na * sizeof(double));
  o_b = mem.reserve(e.par.nb * sizeof(double));
  o_out = mem.reserve(3 * n * sizeof(double));
  if ((st = mem.allocate("gig_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_p), p, e.par.np * sizeof(double), "p",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_a), a, e.par.na * sizeof(double), "a",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_b), b, e.par.nb * sizeof(double), "b",
                    err)) != GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  e.par.p = mem.at<double>(o_p);
  e.par.a = mem.at<double>(o_a);
  e.par.b = mem.at<double>(o_b);
  e.out_log = mem.at<double>(o_out);
  e.out_inv = e.out_log + n;
  e.out_y = e.out_log + 2 * n;
  gig_eta_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(e);
  if ((st = finish_launch("GIG expectation", err)) != GHMIX_OK ||
      (st = copy_out(out_log, e.out_log, n * sizeof(double), "E log Y", err)) !=
          GHMIX_OK ||
      (st = copy_out(out_inv, e.out_inv, n * sizeof(double), "E 1/Y", err)) !=
          GHMIX_OK ||
      (st = copy_out(out_y, e.out_y, n * sizeof(double), "E Y", err)) !=
          GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gig_from_expectation_batch(const ghmix_gig_solve_args *h, int device,
                                      ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_gig_solve_args s = *h; /* the same, with device pointers */
  const size_t n = h->n;
  size_t o_eta, o_start = 0, o_dbl, o_int, o_jac = 0, o_first;
  unsigned long long first[2];
  unsigned blocks;
  ghmix_status st;
  cudaError_t e;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_eta = mem.reserve(3 * n * sizeof(double));
  if (h->start != NULL)
    o_start = mem.reserve(3 * n * sizeof(double));
  o_dbl = mem.reserve(5 * n * sizeof(double)); /* p a b grad_norm cond. */
  o_int = mem.reserve(4 * n * sizeof(int));    /* iter. conv. note infeas. */
  if (h->jacobian != NULL)
    o_jac = mem.reserve(9 * n * sizeof(double));
  o_first = mem.reserve(sizeof first);
  if ((st = mem.allocate("gig_from_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_eta), h->eta, 3 * n * sizeof(double),
                    "eta", err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_start), h->start,
                    h->start ? 3 * n * sizeof(double) : 0, "start", err)) !=
          GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  e = cudaMemset(mem.at<void>(o_first), 0xff, sizeof first);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaMemset", e);
  s.eta = mem.at<double>(o_eta);
  s.start = h->start != NULL ? mem.at<double>(o_start) : NULL;
  s.p = mem.at<double>(o_dbl);
  s.a = s.p + n;
  s.b = s.p + 2 * n;
  s.grad_norm = s.p + 3 * n;
  s.condition = s.p + 4 * n;
  s.jacobian = h->jacobian != NULL ? mem.at<double>(o_jac) : NULL;
  s.iterations = mem.at<int>(o_int);
  s.converged = s.iterations + n;
  s.note = s.iterations + 2 * n;
  s.infeasible = s.iterations + 3 * n;
  gig_solve_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      s, mem.at<unsigned long long>(o_first));
  if ((st = finish_launch("GIG solve", err)) != GHMIX_OK ||
      (st = copy_out(first, mem.at<void>(o_first), sizeof first,
                     "the first bad rows", err)) != GHMIX_OK ||
      (st = copy_out(h->infeasible, s.infeasible, n * sizeof(int), "infeasible",
                     err)) != GHMIX_OK ||
      (st = ghmix_gig_solve_bad_rows(first_row(first[0]), first_row(first[1]),
                                     err)) != GHMIX_OK)
    return st;
  /* p a b grad_norm condition, then iterations converged note: contiguous
   * on the device, separate in host memory */
  {
    static const char *const dbl_names[5] = {"p", "a", "b", "grad_norm",
                                             "condition"};
    static const char *const int_names[3] = {"iterations", "converged", "note"};
    double *dbl_out[5] = {h->p, h->a, h->b, h->grad_norm, h->condition};
    int *int_out[3] = {h->iterations, h->converged, h->note};
    int k;
    for (k = 0; k < 5; k++)
      if ((st = copy_out(dbl_out[k], s.p + k * n, n * sizeof(double),
                         dbl_names[k], err)) != GHMIX_OK)
        return st;
    for (k = 0; k < 3; k++)
      if ((st = copy_out(int_out[k], s.iterations + k * n, n * sizeof(int),
                         int_names[k], err)) != GHMIX_OK)
        return st;
  }
  return copy_out(h->jacobian, s.jacobian,
                  h->jacobian ? 9 * n * sizeof(double) : 0, "jacobian", err);
}

extern "C" ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err) {
  static const char *const names[GHMIX_GH1_NARGS] = {
      "x", "mu", "gamma", "sigma", "p", "a", "b"};
  device_guard guard;
  device_arena mem;
  ghmix_gh1_args args;
  ghmix_gh1 shared;
  size_t off[GHMIX_GH1_NARGS], o_out;
  unsigned blocks;
  int k, have_shared;
  ghmix_status st;
  args.n = n;
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    args.len[k] = used_length(len[k], n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_gh1_args_check(&args, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    off[k] = mem.reserve(args.len[k] * sizeof(double));
  o_out = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("dgh", device, err)) != GHMIX_OK)
    return st;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if ((st = copy_in(mem.at<double>(off[k]), in[k],
                      args.len[k] * sizeof(double), names[k], err)) != GHMIX_OK)
      return st;
    args.in[k] = mem.at<double>(off[k]);
  }
  if ((st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  memset(&shared, 0, sizeof shared);
  have_shared = ghmix_gh1_args_shared(&args);
  if (have_shared) /* as the CPU driver: once, on the host */
    ghmix_gh1_init_density(in[4][0], in[5][0], in[6][0], in[2][0] / in[3][0],
                           &shared);
  gh1_density_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      args, shared, have_shared, give_log != 0, mem.at<double>(o_out));
  if ((st = finish_launch("GH density", err)) != GHMIX_OK ||
      (st = copy_out(out, mem.at<double>(o_out), n * sizeof(double),
                     "the densities", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

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
    void *const ptrs[3] = {h->rows, h->weights, h->arena};
    free_on_device(h->device, ptrs, 3);
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
  h->rows = NULL;
  h->arena = mem.release_ownership();
  *handle = h;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_mix_data_weights(void *handle,
                                                    const double *weights,
                                                    ghmix_error *err) {
  mix_data *h = static_cast<mix_data *>(handle);
  device_guard guard;
  size_t bytes;
  ghmix_status st;
  cudaError_t e;
  ghmix_error_clear(err);
  if (h == NULL)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step data handle is NULL (freed?)");
  if ((st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  (void)cudaFree(h->weights);
  h->weights = NULL;
  if (weights == NULL || h->n == 0)
    return GHMIX_OK;
  bytes = h->n * sizeof(double);
  e = cudaMalloc(&h->weights, bytes);
  if (e != cudaSuccess) {
    h->weights = NULL;
    (void)cudaGetLastError();
    return cuda_fail(err, "cudaMalloc of the E-step weights", e);
  }
  return copy_in(h->weights, weights, bytes, "the E-step weights", err);
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
  if (weighted && h->weights == NULL && h->n > 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "the E-step has row weights but the device data "
                           "have none (ghmix_cuda_mix_data_weights)");
  if ((st = guard.enter(h->device, err)) != GHMIX_OK)
    return st;
  if (h->n == 0) {
    for (k = 0; k < l->nstats; k++)
      stats[k] = 0;
    return GHMIX_OK;
  }
  if (rows != NULL && h->rows == NULL) {
    size_t bytes = GHMIX_ROW_COUNT * h->n * sizeof(double);
    e = cudaMalloc(&h->rows, bytes);
    if (e != cudaSuccess) {
      h->rows = NULL;
      (void)cudaGetLastError();
      return ghmix_error_set(
          err, GHMIX_ERR_CUDA, -1,
          "cudaMalloc of %.0f bytes for the E-step rows on CUDA device %d "
          "failed: %s (%s)",
          (double)bytes, h->device, cudaGetErrorString(e), cudaGetErrorName(e));
    }
  }
  ghmix_mix_par_pack(&model->comp[0], d, h->host_par);
  if ((st = copy_in(h->par, h->host_par, ghmix_mix_par_len(d) * sizeof(double),
                    "the E-step parameters", err)) != GHMIX_OK)
    return st;
  if ((st = allow_shared(mix_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  mix_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, d, h->x, weighted ? h->weights : NULL, h->par, model->comp[0].c,
      rows != NULL ? h->rows : NULL, h->partial);
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
      (st = copy_out(rows, h->rows,
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

/* Copies in the parameters and weights, runs the two kernels and copies
 * out the statistics and rows; the arena holds the per-call buffers. */
static ghmix_status mixg_run(const mix_data *h, const ghmix_mix_model *model,
                             const ghmix_mix_layout *l, const mixg_host *hp,
                             double *stats, double *rows, int *launches,
                             ghmix_error *err) {
  const int d = l->d, G = model->shape.components;
  const size_t plen = ghmix_mix_par_len(d), n = h->n;
  const size_t nrow = rows != NULL ? n * ghmix_mixg_row_ncol(G) : 0;
  const size_t nw = model->weights != NULL ? n : 0;
  device_arena mem;
  size_t o_par = mem.reserve(sizeof(double) * (plen + 1) * G);
  size_t o_c = mem.reserve(sizeof(ghmix_mix_const) * G);
  size_t o_w = mem.reserve(sizeof(double) * nw);
  size_t o_part = mem.reserve(sizeof(double) * l->nloc * (size_t)l->blocks);
  size_t o_st = mem.reserve(sizeof(double) * l->nstats);
  size_t o_rows = mem.reserve(sizeof(double) * nrow);
  ghmix_status st;
  cudaError_t e;
  if ((st = mem.allocate("the mixture E-step", h->device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_par), hp->par,
                    sizeof(double) * (plen + 1) * G, "the E-step parameters",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<ghmix_mix_const>(o_c), hp->c,
                    sizeof(ghmix_mix_const) * G, "the E-step constants",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_w), model->weights, sizeof(double) * nw,
                    "the row weights", err)) != GHMIX_OK)
    return st;
  if ((st = allow_shared(mixg_estep_kernel, l->smem, err)) != GHMIX_OK)
    return st;
  mixg_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      n, d, G, h->x, mem.at<double>(o_par), mem.at<ghmix_mix_const>(o_c),
      mem.at<double>(o_par) + plen * G, nw ? mem.at<double>(o_w) : NULL,
      model->shape.what, nrow ? mem.at<double>(o_rows) : NULL,
      mem.at<double>(o_part));
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return cuda_fail(err, "launching the mixture E-step kernel", e);
  mixg_reduce_kernel<<<(unsigned)l->nloc, GHMIX_MIX_REDUCE_THREADS>>>(
      d, G, l->blocks, mem.at<double>(o_part), mem.at<double>(o_st));
  if (launches != NULL)
    *launches = 2;
  if ((st = finish_launch("mixture E-step", err)) != GHMIX_OK ||
      (st = copy_out(stats, mem.at<double>(o_st), sizeof(double) * l->nstats,
                     "the E-step statistics", err)) != GHMIX_OK ||
      (st = copy_out(rows, mem.at<double>(o_rows), sizeof(double) * nrow,
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

/* the E-step of a factor-analytic Sigma (uses the helpers above) */
#include "factor_estep.cuh"
