/* Device and build queries for the CUDA backend (see ghmix_cuda.h). */
#include <cuda_runtime.h>
#include <string.h>

#include "ghmix_cuda.h"

#ifndef GHMIX_CUDA_ARCHS
#define GHMIX_CUDA_ARCHS "unknown"
#endif

/* Turn a failed runtime call into GHMIX_ERR_NO_DEVICE with the runtime's own
 * words, and clear the runtime's last error. */
static ghmix_status no_device(ghmix_error *err, const char *what,
                              cudaError_t e) {
  (void)cudaGetLastError();
  return ghmix_error_set(err, GHMIX_ERR_NO_DEVICE, -1, "%s: %s (%s)", what,
                         cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" int ghmix_cuda_built(void) { return 1; }

extern "C" int ghmix_cuda_toolkit_version(void) { return CUDART_VERSION; }

extern "C" const char *ghmix_cuda_archs(void) { return GHMIX_CUDA_ARCHS; }

extern "C" ghmix_status ghmix_cuda_versions(int *runtime, int *driver,
                                            ghmix_error *err) {
  cudaError_t e;
  ghmix_error_clear(err);
  *runtime = 0;
  *driver = 0;
  e = cudaRuntimeGetVersion(runtime);
  if (e != cudaSuccess)
    return ghmix_error_set(err, GHMIX_ERR_CUDA, -1,
                           "cudaRuntimeGetVersion failed: %s",
                           cudaGetErrorString(e));
  e = cudaDriverGetVersion(driver);
  if (e != cudaSuccess)
    *driver = 0;
  (void)cudaGetLastError();
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err) {
  int n = 0;
  cudaError_t e;
  ghmix_error_clear(err);
  *count = 0;
  if (ghmix_cuda_fault() != NULL)
    return ghmix_error_set(err, GHMIX_ERR_CUDA_FAULT, -1, "%s",
                           ghmix_cuda_fault());
  e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    return no_device(err, "no usable CUDA device", e);
  if (n <= 0)
    return ghmix_error_set(err, GHMIX_ERR_NO_DEVICE, -1,
                           "no usable CUDA device: the CUDA runtime reports "
                           "0 devices");
  *count = n;
  return GHMIX_OK;
}

extern "C" ghmix_status ghmix_cuda_device_info(int dev, ghmix_cuda_device *info,
                                               ghmix_error *err) {
  int n = 0;
  cudaDeviceProp prop;
  cudaError_t e;
  ghmix_status st = ghmix_cuda_device_count(&n, err);
  if (st != GHMIX_OK)
    return st;
  if (dev < 0 || dev >= n)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "device %d does not exist (%d device%s)", dev, n,
                           n == 1 ? "" : "s");
  e = cudaGetDeviceProperties(&prop, dev);
  if (e != cudaSuccess)
    return no_device(err, "cannot query the CUDA device", e);
  memset(info->name, 0, sizeof info->name);
  strncpy(info->name, prop.name, sizeof info->name - 1);
  info->total_mem_bytes = (double)prop.totalGlobalMem;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  return GHMIX_OK;
}
