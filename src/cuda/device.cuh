/* Device helpers of the CUDA kernels (src/cuda/kernels.cu, mix_estep.cu,
 * factor_estep.cu): the grid-stride loop's indices and the fixed-order
 * sum of the block partials of the E-steps. */
#ifndef GHMIX_CUDA_DEVICE_CUH
#define GHMIX_CUDA_DEVICE_CUH

#include <stddef.h>

/* E-step: threads of the final (block-partials) reduction. */
#define GHMIX_MIX_REDUCE_THREADS 128

static __device__ __forceinline__ size_t first_index() {
  return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ size_t grid_stride() {
  return (size_t)gridDim.x * blockDim.x;
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

#endif
