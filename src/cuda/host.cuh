/* The host helpers of the CUDA wrappers (src/cuda/kernels.cu,
 * mix_estep.cu, factor_estep.cu; defined in host.cu): every CUDA call is
 * checked and a failure becomes GHMIX_ERR_CUDA with the CUDA error string;
 * device memory is owned by small RAII guards, so it is freed on every
 * path, errors included; the calling thread's current device is restored.
 * Host code only: no device code, so it needs no core_device.cuh. */
#ifndef GHMIX_CUDA_HOST_CUH
#define GHMIX_CUDA_HOST_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "ghmix_cuda.h"

/* Threads per block of the element-wise kernels. */
#define GHMIX_CUDA_BLOCK 128

namespace ghmix_cu {

/* GHMIX_ERR_CUDA with the CUDA error string, or, for an error that leaves
 * the process's CUDA context unusable (an illegal address, a failed
 * launch, ...: sticky, every later call fails with it), GHMIX_ERR_CUDA_FAULT
 * with that said, remembered for ghmix_cuda_fault() and every later call
 * (fault_status()). */
ghmix_status cuda_fail(ghmix_error *err, const char *what, cudaError_t e);

/* 1 for the CUDA errors after which the process must be restarted. */
int cuda_error_sticky(cudaError_t e);

/* A failed cudaMalloc of `bytes` for `what`: GHMIX_ERR_CUDA naming the
 * bytes (GHMIX_ERR_CUDA_FAULT for a sticky error). */
ghmix_status malloc_fail(ghmix_error *err, cudaError_t e, size_t bytes,
                         const char *what, int device);

/* GHMIX_ERR_CUDA_FAULT with the first sticky error's message when there
 * was one (GHMIX_OK otherwise). */
ghmix_status fault_status(ghmix_error *err);

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
    ghmix_status st = fault_status(err);
    if (st != GHMIX_OK)
      return st;
    st = ghmix_cuda_device_count(&count, err);
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
      return malloc_fail(err, e, size_, what, device);
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

/* cudaMemcpy of `bytes` (nothing when 0) to / from the device (nothing
 * when dst is NULL: an output not asked for); what words the error
 * message. */
ghmix_status copy_in(void *dst, const void *src, size_t bytes, const char *what,
                     ghmix_error *err);
ghmix_status copy_out(void *dst, const void *src, size_t bytes,
                      const char *what, ghmix_error *err);

/* Checks a launch and waits for the kernel, so that a fault is reported
 * as the kernel's rather than the next copy's. */
ghmix_status finish_launch(const char *kernel, ghmix_error *err);

/* Blocks for an element-wise kernel over n elements (grid-stride beyond). */
ghmix_status grid_for(size_t n, int device, unsigned *blocks, ghmix_error *err);

/* Elements above this would overflow byte counts (n * 9 * 8 bytes). */
const size_t max_elements = SIZE_MAX / 128;

ghmix_status too_many(size_t n, ghmix_error *err);

/* The n x d rows x (leading dimension ldx) into dst on the device (leading
 * dimension n), by plain copies: one when ldx == n, else one per column
 * (cudaMemcpy2D refuses a pitch beyond 2^31 - 1 bytes, n >= 2^28 rows);
 * what words the error message. */
ghmix_status copy_rows_in(double *dst, const double *x, size_t n, size_t ldx,
                          int d, const char *what, ghmix_error *err);

/* *optin: the bytes of shared memory a block may opt in to on `device`. */
ghmix_status shared_optin(int device, int *optin, ghmix_error *err);

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

/* Device memory that a data handle keeps between its E-steps (scratch of
 * a size known only at the call): grown when a call needs more, never
 * shrunk; freed with the handle (free_on_device of p). */
struct device_scratch {
  void *p;
  size_t bytes;
};

/* s at least `bytes` long (its contents are lost when it grows). */
ghmix_status scratch_reserve(device_scratch *s, size_t bytes, const char *what,
                             int device, ghmix_error *err);

/* cudaFree of the count pointers on `device`, from any current device;
 * errors are ignored: this also runs from finalizers, possibly after the
 * CUDA runtime has shut down. */
void free_on_device(int device, void *const *ptrs, int count);

} // namespace ghmix_cu

#endif
