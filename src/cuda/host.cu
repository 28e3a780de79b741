/* The host helpers of the CUDA wrappers (see host.cuh). */
#include "host.cuh"

#include <stdio.h>

/* Blocks per multiprocessor at most for the element-wise kernels (they
 * loop over the rest, grid-stride). */
#define GHMIX_CUDA_BLOCKS_PER_SM 64

/* The first sticky error of the process ("" while there was none). */
static char fault_message[GHMIX_MSG_LEN];

extern "C" const char *ghmix_cuda_fault(void) {
  return fault_message[0] != '\0' ? fault_message : NULL;
}

namespace ghmix_cu {

/* Those whose documentation (driver_types.h, CUDA 13) says that the
 * process must be terminated and relaunched to use CUDA again. */
int cuda_error_sticky(cudaError_t e) {
  switch ((int)e) {
  case 226: /* cudaErrorContained */
  case 700: /* cudaErrorIllegalAddress */
  case 702: /* cudaErrorLaunchTimeout */
  case 710: /* cudaErrorAssert */
  case 714: /* cudaErrorHardwareStackError */
  case 715: /* cudaErrorIllegalInstruction */
  case 716: /* cudaErrorMisalignedAddress */
  case 717: /* cudaErrorInvalidAddressSpace */
  case 718: /* cudaErrorInvalidPc */
  case 719: /* cudaErrorLaunchFailure */
  case 721: /* cudaErrorTensorMemoryLeak */
  case 810: /* cudaErrorMpsClientTerminated */
  case 911: /* cudaErrorExternalDevice */
    return 1;
  default:
    return 0;
  }
}

ghmix_status fault_status(ghmix_error *err) {
  if (fault_message[0] == '\0')
    return GHMIX_OK;
  return ghmix_error_set(err, GHMIX_ERR_CUDA_FAULT, -1, "%s", fault_message);
}

ghmix_status cuda_fail(ghmix_error *err, const char *what, cudaError_t e) {
  if (cuda_error_sticky(e)) {
    if (fault_message[0] == '\0')
      snprintf(fault_message, sizeof fault_message,
               "%s failed: %s (%s). The GPU's CUDA context is lost for "
               "this process: restart R to use the GPU again (backend = "
               "\"cpu\" still works)",
               what, cudaGetErrorString(e), cudaGetErrorName(e));
    return fault_status(err);
  }
  (void)cudaGetLastError(); /* clears the error (a sticky one stays) */
  return ghmix_error_set(err, GHMIX_ERR_CUDA, -1, "%s failed: %s (%s)", what,
                         cudaGetErrorString(e), cudaGetErrorName(e));
}

/* cudaMemcpy of `bytes` (nothing when 0); dir, "to" or "from" the device,
 * words the error message. */
static ghmix_status copy_bytes(void *dst, const void *src, size_t bytes,
                               cudaMemcpyKind kind, const char *what,
                               const char *dir, ghmix_error *err) {
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

ghmix_status copy_out(void *dst, const void *src, size_t bytes,
                      const char *what, ghmix_error *err) {
  if (dst == NULL)
    return GHMIX_OK;
  return copy_bytes(dst, src, bytes, cudaMemcpyDeviceToHost, what, "from", err);
}

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

ghmix_status too_many(size_t n, ghmix_error *err) {
  return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                         "%.0f elements are too many for one CUDA batch",
                         (double)n);
}

ghmix_status copy_rows_in(double *dst, const double *x, size_t n, size_t ldx,
                          int d, const char *what, ghmix_error *err) {
  ghmix_status st = GHMIX_OK;
  int j;
  if (n == 0)
    return GHMIX_OK;
  if (ldx == n)
    return copy_in(dst, x, n * (size_t)d * sizeof(double), what, err);
  for (j = 0; j < d && st == GHMIX_OK; j++)
    st = copy_in(dst + (size_t)j * n, x + (size_t)j * ldx, n * sizeof(double),
                 what, err);
  return st;
}

ghmix_status scratch_reserve(device_scratch *s, size_t bytes, const char *what,
                             int device, ghmix_error *err) {
  cudaError_t e;
  if (s->bytes >= bytes)
    return GHMIX_OK;
  (void)cudaFree(s->p);
  s->p = NULL;
  s->bytes = 0;
  e = cudaMalloc(&s->p, bytes);
  if (e != cudaSuccess) {
    s->p = NULL;
    return malloc_fail(err, e, bytes, what, device);
  }
  s->bytes = bytes;
  return GHMIX_OK;
}

ghmix_status malloc_fail(ghmix_error *err, cudaError_t e, size_t bytes,
                         const char *what, int device) {
  if (cuda_error_sticky(e))
    return cuda_fail(err, "cudaMalloc", e);
  (void)cudaGetLastError();
  return ghmix_error_set(
      err, GHMIX_ERR_CUDA, -1,
      "cudaMalloc of %.0f bytes (%.3g GiB) for %s on CUDA device %d failed: "
      "%s (%s)",
      (double)bytes, (double)bytes / 1073741824.0, what, device,
      cudaGetErrorString(e), cudaGetErrorName(e));
}

ghmix_status shared_optin(int device, int *optin, ghmix_error *err) {
  cudaError_t e = cudaDeviceGetAttribute(
      optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  return e == cudaSuccess ? GHMIX_OK
                          : cuda_fail(err, "cudaDeviceGetAttribute", e);
}

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

} // namespace ghmix_cu
