/* A stand-in for the few declarations of the CUDA runtime that
 * src/cuda/host.cu uses, so that its host helpers compile with a plain C++
 * compiler and run against the recording fake of test_cuda_host.cc (no
 * GPU, no toolkit).  Values as in CUDA 13's driver_types.h. */
#ifndef GHMIX_FAKE_CUDA_RUNTIME_H
#define GHMIX_FAKE_CUDA_RUNTIME_H

#include <stddef.h>

typedef enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719
} cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3
};

enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaGetLastError(void);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
template <typename K>
cudaError_t cudaFuncSetAttribute(K, enum cudaFuncAttribute, int) {
  return cudaSuccess;
}

#endif
