/* The CUDA kernels of ghmix and their host wrappers (see ghmix_cuda.h).
 *
 * Single source: the per-element work is the core's own functions
 * (core_device.cuh compiles src/core into this translation unit for host and
 * device); the kernels here only loop over elements, recycle inputs as the
 * CPU drivers do, and reduce.  One thread per element with every loop of the
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

ghmix_status copy_in(void *dst, const void *src, size_t bytes, const char *what,
                     ghmix_error *err) {
  cudaError_t e;
  if (bytes == 0)
    return GHMIX_OK;
  e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    char buf[128];
    snprintf(buf, sizeof buf, "cudaMemcpy of %s to the device", what);
    return cuda_fail(err, buf, e);
  }
  return GHMIX_OK;
}

ghmix_status copy_out(void *dst, const void *src, size_t bytes,
                      const char *what, ghmix_error *err) {
  cudaError_t e;
  if (bytes == 0 || dst == NULL)
    return GHMIX_OK;
  e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    char buf[128];
    snprintf(buf, sizeof buf, "cudaMemcpy of %s from the device", what);
    return cuda_fail(err, buf, e);
  }
  return GHMIX_OK;
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

/* ======================================================================
 * Element-wise kernels
 * ====================================================================== */

__device__ __forceinline__ size_t first_index() {
  return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t grid_stride() {
  return (size_t)gridDim.x * blockDim.x;
}

/* log K_nu(x) with or without d/dx, d/dnu: the loop body of
 * logk_range/grad_range in src/cpu/bessel_cpu.c. */
template <bool Grad>
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    logk_kernel(size_t n, const double *__restrict__ x, size_t nx,
                const double *__restrict__ nu, size_t nnu,
                double *__restrict__ logk, double *__restrict__ grad_x,
                double *__restrict__ grad_nu) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    double xi = x[ghmix_recycle((ptrdiff_t)i, nx, n)];
    double nui = nu[ghmix_recycle((ptrdiff_t)i, nnu, n)];
    double v, gx, gnu;
    if (!ghmix_logk_special(xi, nui, &v, &gx, &gnu)) {
      if (Grad) {
        ghmix_bessel_result r;
        ghmix_bessel_eval(xi, nui, GHMIX_BESSEL_GRAD, &r);
        v = r.logk;
        gx = r.dx;
        gnu = r.dnu;
      } else {
        v = ghmix_bessel_logk(xi, nui);
      }
    }
    logk[i] = v;
    if (Grad) {
      if (grad_x != NULL)
        grad_x[i] = gx;
      if (grad_nu != NULL)
        grad_nu[i] = gnu;
    }
  }
}

/* eta = (E log Y, E 1/Y, E Y): the loop body of expectation_range in
 * src/cpu/gig_solve_cpu.c. */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gig_expectation_kernel(size_t n, const double *__restrict__ p, size_t np,
                           const double *__restrict__ a, size_t na,
                           const double *__restrict__ b, size_t nb,
                           double *__restrict__ out_log,
                           double *__restrict__ out_inv,
                           double *__restrict__ out_y) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    double pi = p[ghmix_recycle((ptrdiff_t)i, np, n)];
    double ai = a[ghmix_recycle((ptrdiff_t)i, na, n)];
    double bi = b[ghmix_recycle((ptrdiff_t)i, nb, n)];
    double eta[3];
    if (isnan(pi) || isnan(ai) || isnan(bi)) {
      /* pi + ai + bi, keeping R's NA payload */
      eta[0] = eta[1] = eta[2] = ghmix_na_sum(ghmix_na_sum(pi, ai), bi);
    } else {
      ghmix_gig_expectation(pi, ai, bi, eta);
    }
    out_log[i] = eta[0];
    out_inv[i] = eta[1];
    out_y[i] = eta[2];
  }
}

/* Feasibility of every row and, for the feasible ones, the solve: the
 * first pass and solve_range of src/cpu/gig_solve_cpu.c in one launch.
 * first[0] / first[1] receive the smallest infeasible / non-finite row
 * (they start at UINT64_MAX). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK) gig_solve_kernel(
    size_t n, const double *__restrict__ eta, const double *__restrict__ start,
    ghmix_gig_solve_control ctrl0, double *__restrict__ p,
    double *__restrict__ a, double *__restrict__ b,
    int *__restrict__ iterations, double *__restrict__ grad_norm,
    int *__restrict__ converged, double *__restrict__ condition,
    int *__restrict__ note, int *__restrict__ infeasible,
    double *__restrict__ jacobian, unsigned long long *__restrict__ first) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    double e[3];
    ghmix_gig_solve_control ctrl = ctrl0;
    ghmix_gig_solution sol;
    int f, k;
    e[0] = eta[i];
    e[1] = eta[n + i];
    e[2] = eta[2 * n + i];
    f = ghmix_gig_feasibility(e);
    infeasible[i] = f;
    if (f != 0) {
      atomicMin(&first[f > 0 ? 0 : 1], (unsigned long long)i);
      continue;
    }
    if (start != NULL) {
      ctrl.start_p = start[i];
      ctrl.start_a = start[n + i];
      ctrl.start_b = start[2 * n + i];
      ctrl.has_start = isfinite(ctrl.start_p) && isfinite(ctrl.start_a) &&
                       isfinite(ctrl.start_b);
    }
    ctrl.want_jacobian = jacobian != NULL;
    ghmix_gig_from_expectation(e, &ctrl, &sol);
    p[i] = sol.p;
    a[i] = sol.a;
    b[i] = sol.b;
    iterations[i] = sol.iterations;
    grad_norm[i] = sol.grad_norm;
    converged[i] = sol.converged;
    condition[i] = sol.condition;
    note[i] = sol.note;
    if (jacobian != NULL)
      for (k = 0; k < 9; k++) /* row-major -> column-major */
        jacobian[9 * i + 3 * (k % 3) + k / 3] = sol.jacobian[k];
  }
}

/* The univariate GH density: the loop body of gh1_range in
 * src/cpu/gh_dist_cpu.c (fun = GHMIX_GH_FUN_DENSITY).  shared is the
 * parameter set prepared on the host when have_shared, else each element
 * prepares its own (one Bessel evaluation more). */
struct gh1_inputs {
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS];
};

__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gh1_density_kernel(size_t n, gh1_inputs args, ghmix_gh1 shared,
                       int have_shared, int give_log,
                       double *__restrict__ out) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    double v[GHMIX_GH1_NARGS], sum = 0.0;
    ghmix_gh1 own;
    const ghmix_gh1 *hp = &shared;
    int k, nan = 0;
    for (k = 0; k < GHMIX_GH1_NARGS; k++) {
      v[k] = args.in[k][ghmix_recycle((ptrdiff_t)i, args.len[k], n)];
      nan |= isnan(v[k]);
    }
    if (nan) {
      /* the CPU's v[0] + v[1] + ... + v[6], keeping R's NA payload */
      for (k = 0; k < GHMIX_GH1_NARGS; k++)
        sum = k == 0 ? v[0] : ghmix_na_sum(sum, v[k]);
      out[i] = sum;
      continue;
    }
    if (!have_shared) {
      ghmix_gh1_init(v[4], v[5], v[6], v[2] / v[3], &own);
      hp = &own;
    }
    out[i] = ghmix_gh1_density_x(hp, v[0], v[1], v[3], give_log);
  }
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
 * tile, (d + 6) x (T + 1) doubles, so any d fits whose tile fits the
 * device: T is 128 for d <= 16, 64 for d <= 64, 32 beyond (d up to about
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
                     const double *__restrict__ par, ghmix_mix_const c,
                     double *__restrict__ rows, double *__restrict__ partial) {
  extern __shared__ double tile[];
  const int t = (int)threadIdx.x, T = (int)blockDim.x, G = (int)gridDim.x;
  const int b = (int)blockIdx.x;
  const size_t ntiles = (n + (size_t)T - 1) / (size_t)T;
  size_t tl;
  for (tl = (size_t)b; tl < ntiles; tl += (size_t)G) {
    ghmix_mix_tile_row(t, T, tl * (size_t)T + (size_t)t, n, d, x, par, &c, rows,
                       tile);
    __syncthreads();
    ghmix_mix_tile_sums(t, T, d, G, b, tl == (size_t)b, tile, partial);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(GHMIX_MIX_REDUCE_THREADS)
    mix_reduce_kernel(int d, int nblocks, const double *__restrict__ partial,
                      double *__restrict__ stats) {
  __shared__ double acc[GHMIX_MIX_REDUCE_THREADS];
  const size_t s = blockIdx.x;
  const double *row = partial + s * (size_t)nblocks;
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
  if (threadIdx.x == 0) {
    size_t slot[2];
    int k, m = ghmix_mix_stat_slots(s, d, slot);
    for (k = 0; k < m; k++)
      stats[slot[k]] = acc[0];
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
  double *host_par; /* staging for par */
};

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
  size_t o_x, o_nu, o_logk, o_gx = 0, o_gnu = 0;
  const bool grad = grad_x != NULL || grad_nu != NULL;
  unsigned blocks;
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  if (nx == 0 || nnu == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "x and nu must not be empty when n > 0");
  if (n > max_elements)
    return too_many(n, err);
  /* an input longer than n: only its first n elements are used */
  nx = nx < n ? nx : n;
  nnu = nnu < n ? nnu : n;
  o_x = mem.reserve(nx * sizeof(double));
  o_nu = mem.reserve(nnu * sizeof(double));
  o_logk = mem.reserve(n * sizeof(double));
  if (grad_x != NULL)
    o_gx = mem.reserve(n * sizeof(double));
  if (grad_nu != NULL)
    o_gnu = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("log_besselK", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_x), x, nx * sizeof(double), "x", err)) !=
          GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_nu), nu, nnu * sizeof(double), "nu",
                    err)) != GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  if (grad)
    logk_kernel<true><<<blocks, GHMIX_CUDA_BLOCK>>>(
        n, mem.at<double>(o_x), nx, mem.at<double>(o_nu), nnu,
        mem.at<double>(o_logk), grad_x ? mem.at<double>(o_gx) : NULL,
        grad_nu ? mem.at<double>(o_gnu) : NULL);
  else
    logk_kernel<false><<<blocks, GHMIX_CUDA_BLOCK>>>(
        n, mem.at<double>(o_x), nx, mem.at<double>(o_nu), nnu,
        mem.at<double>(o_logk), NULL, NULL);
  if ((st = finish_launch("log K", err)) != GHMIX_OK ||
      (st = copy_out(logk, mem.at<double>(o_logk), n * sizeof(double), "log K",
                     err)) != GHMIX_OK ||
      (st = copy_out(grad_x, mem.at<double>(o_gx), n * sizeof(double),
                     "d/dx log K", err)) != GHMIX_OK ||
      (st = copy_out(grad_nu, mem.at<double>(o_gnu), n * sizeof(double),
                     "d/dnu log K", err)) != GHMIX_OK)
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
  size_t o_p, o_a, o_b, o_out;
  unsigned blocks;
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  if (np == 0 || na == 0 || nb == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "p, a and b must not be empty when n > 0");
  if (n > max_elements)
    return too_many(n, err);
  np = np < n ? np : n;
  na = na < n ? na : n;
  nb = nb < n ? nb : n;
  o_p = mem.reserve(np * sizeof(double));
  o_a = mem.reserve(na * sizeof(double));
  o_b = mem.reserve(nb * sizeof(double));
  o_out = mem.reserve(3 * n * sizeof(double));
  if ((st = mem.allocate("gig_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_p), p, np * sizeof(double), "p", err)) !=
          GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_a), a, na * sizeof(double), "a", err)) !=
          GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_b), b, nb * sizeof(double), "b", err)) !=
          GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  gig_expectation_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      n, mem.at<double>(o_p), np, mem.at<double>(o_a), na, mem.at<double>(o_b),
      nb, mem.at<double>(o_out), mem.at<double>(o_out) + n,
      mem.at<double>(o_out) + 2 * n);
  if ((st = finish_launch("GIG expectation", err)) != GHMIX_OK ||
      (st = copy_out(out_log, mem.at<double>(o_out), n * sizeof(double),
                     "E log Y", err)) != GHMIX_OK ||
      (st = copy_out(out_inv, mem.at<double>(o_out) + n, n * sizeof(double),
                     "E 1/Y", err)) != GHMIX_OK ||
      (st = copy_out(out_y, mem.at<double>(o_out) + 2 * n, n * sizeof(double),
                     "E Y", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_gig_from_expectation_batch(
    size_t n, const double *eta, const double *start,
    const ghmix_gig_solve_control *ctrl, double *p, double *a, double *b,
    int *iterations, double *grad_norm, int *converged, double *condition,
    int *note, int *infeasible, double *jacobian, int device,
    ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  size_t o_eta, o_start = 0, o_dbl, o_int, o_jac = 0, o_first;
  unsigned long long first[2];
  unsigned blocks;
  double *dd;
  int *di;
  ghmix_status st;
  cudaError_t e;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  if (n > max_elements)
    return too_many(n, err);
  o_eta = mem.reserve(3 * n * sizeof(double));
  if (start != NULL)
    o_start = mem.reserve(3 * n * sizeof(double));
  o_dbl = mem.reserve(5 * n * sizeof(double)); /* p a b grad_norm cond. */
  o_int = mem.reserve(4 * n * sizeof(int));    /* iter. conv. note infeas. */
  if (jacobian != NULL)
    o_jac = mem.reserve(9 * n * sizeof(double));
  o_first = mem.reserve(sizeof first);
  if ((st = mem.allocate("gig_from_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_eta), eta, 3 * n * sizeof(double), "eta",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_start), start,
                    start ? 3 * n * sizeof(double) : 0, "start", err)) !=
          GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  e = cudaMemset(mem.at<void>(o_first), 0xff, sizeof first);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaMemset", e);
  dd = mem.at<double>(o_dbl);
  di = mem.at<int>(o_int);
  gig_solve_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      n, mem.at<double>(o_eta), start ? mem.at<double>(o_start) : NULL, *ctrl,
      dd, dd + n, dd + 2 * n, di, dd + 3 * n, di + n, dd + 4 * n, di + 2 * n,
      di + 3 * n, jacobian ? mem.at<double>(o_jac) : NULL,
      mem.at<unsigned long long>(o_first));
  if ((st = finish_launch("GIG solve", err)) != GHMIX_OK ||
      (st = copy_out(first, mem.at<void>(o_first), sizeof first,
                     "the first bad rows", err)) != GHMIX_OK ||
      (st = copy_out(infeasible, di + 3 * n, n * sizeof(int), "infeasible",
                     err)) != GHMIX_OK)
    return st;
  /* the CPU driver's errors, in its order */
  if (first[0] != ULLONG_MAX)
    return ghmix_error_set(err, GHMIX_ERR_INFEASIBLE, (ptrdiff_t)first[0],
                           "eta is infeasible in row %ld", (long)first[0] + 1);
  if (first[1] != ULLONG_MAX)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, (ptrdiff_t)first[1],
                           "eta is not finite and positive in row %ld",
                           (long)first[1] + 1);
  if ((st = copy_out(p, dd, n * sizeof(double), "p", err)) != GHMIX_OK ||
      (st = copy_out(a, dd + n, n * sizeof(double), "a", err)) != GHMIX_OK ||
      (st = copy_out(b, dd + 2 * n, n * sizeof(double), "b", err)) !=
          GHMIX_OK ||
      (st = copy_out(grad_norm, dd + 3 * n, n * sizeof(double), "grad_norm",
                     err)) != GHMIX_OK ||
      (st = copy_out(condition, dd + 4 * n, n * sizeof(double), "condition",
                     err)) != GHMIX_OK ||
      (st = copy_out(iterations, di, n * sizeof(int), "iterations", err)) !=
          GHMIX_OK ||
      (st = copy_out(converged, di + n, n * sizeof(int), "converged", err)) !=
          GHMIX_OK ||
      (st = copy_out(note, di + 2 * n, n * sizeof(int), "note", err)) !=
          GHMIX_OK ||
      (st = copy_out(jacobian, mem.at<double>(o_jac),
                     jacobian ? 9 * n * sizeof(double) : 0, "jacobian", err)) !=
          GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  gh1_inputs args;
  ghmix_gh1 shared;
  size_t off[GHMIX_GH1_NARGS], o_out;
  unsigned blocks;
  int k, have_shared = 1;
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK)
    return st;
  if (n == 0)
    return GHMIX_OK;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if (len[k] == 0)
      return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                             "inputs must not be empty when n > 0");
    if (k >= 2 && len[k] != 1)
      have_shared = 0;
  }
  if (n > max_elements)
    return too_many(n, err);
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    /* an input longer than n: only its first n elements are used */
    args.len[k] = len[k] < n ? len[k] : n;
    off[k] = mem.reserve(args.len[k] * sizeof(double));
  }
  o_out = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("dgh", device, err)) != GHMIX_OK)
    return st;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    static const char *const names[GHMIX_GH1_NARGS] = {
        "x", "mu", "gamma", "sigma", "p", "a", "b"};
    if ((st = copy_in(mem.at<double>(off[k]), in[k],
                      args.len[k] * sizeof(double), names[k], err)) != GHMIX_OK)
      return st;
    args.in[k] = mem.at<double>(off[k]);
  }
  if ((st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  memset(&shared, 0, sizeof shared);
  if (have_shared) /* as the CPU driver: once, on the host */
    ghmix_gh1_init(in[4][0], in[5][0], in[6][0], in[2][0] / in[3][0], &shared);
  gh1_density_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      n, args, shared, have_shared, give_log != 0, mem.at<double>(o_out));
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
  cudaError_t e;
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
  e = cudaMemcpy2D(mem.at<double>(o_x), n * sizeof(double), x,
                   ldx * sizeof(double), n * sizeof(double), (size_t)d,
                   cudaMemcpyHostToDevice);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaMemcpy2D of the rows to the device", e);
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
  int prev = -1;
  if (h == NULL)
    return;
  /* errors are ignored: this also runs from finalizers, possibly after the
   * CUDA runtime has shut down */
  if (cudaGetDevice(&prev) != cudaSuccess)
    prev = -1;
  if (prev != h->device)
    (void)cudaSetDevice(h->device);
  (void)cudaFree(h->rows);
  (void)cudaFree(h->arena);
  if (prev >= 0 && prev != h->device)
    (void)cudaSetDevice(prev);
  (void)cudaGetLastError();
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
  cudaError_t e;
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
  e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                             device);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaDeviceGetAttribute", e);
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
  if (n > 0) {
    e = cudaMemcpy2D(mem.at<double>(o_x), n * sizeof(double), x,
                     ldx * sizeof(double), n * sizeof(double), (size_t)d,
                     cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
      return cuda_fail(err, "cudaMemcpy2D of the data to the device", e);
  }
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
  int d;
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
  if (l->smem > 48 * 1024) {
    e = cudaFuncSetAttribute(mix_estep_kernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)l->smem);
    if (e != cudaSuccess)
      return cuda_fail(err, "cudaFuncSetAttribute", e);
  }
  mix_estep_kernel<<<l->blocks, l->tile, l->smem>>>(
      h->n, d, h->x, h->par, model->comp[0].c, rows != NULL ? h->rows : NULL,
      h->partial);
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
