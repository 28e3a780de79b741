/* Portability macros for the single-source numerical core.
 *
 * Every per-element function in src/core is plain C99 that nvcc also
 * compiles for the device: GHMIX_HD marks it __host__ __device__ there and
 * expands to nothing for a C compiler.  No R headers anywhere in src/core.
 *
 * Rules for code that runs on the device too:
 * - Lookup tables live at function scope (`static const double t[] = ...`
 *   inside the function, or in a small accessor function that returns it,
 *   as ghmix_debye_nterms() does).  nvcc then places the table in device
 *   memory for the device code and in host memory for the host code.  A
 *   file-scope table is a host array that device code cannot read (nvcc:
 *   "identifier ... is undefined in device code").
 * - No calls to host-only functions (ghmix_error_set, the interrupt and RNG
 *   hooks, stdio, malloc): per-element functions return status codes and
 *   leave messages to the batch drivers.
 *
 * The CUDA backend compiles the core sources once more, inside each of its
 * kernels' translation units (src/cuda/core_device.cuh defines
 * GHMIX_CUDA_UNITY before including them).  There GHMIX_HD also makes each
 * function static, so that the host copies nvcc emits do not clash with the
 * symbols of the C objects built from the same files.
 */
#ifndef GHMIX_HD_H
#define GHMIX_HD_H

/* GHMIX_HD: a per-element function of the core's interface (declared in a
 * header).  GHMIX_INLINE: a small file-local helper.  GHMIX_LOCAL: a
 * file-local function that need not be inlined (write GHMIX_LOCAL, never
 * `static GHMIX_HD`, which is two storage classes in the CUDA build). */
#if defined(__CUDACC__) && defined(GHMIX_CUDA_UNITY)
#define GHMIX_HD __host__ __device__ static
#define GHMIX_INLINE __host__ __device__ static inline
#define GHMIX_LOCAL __host__ __device__ static
#elif defined(__CUDACC__)
#define GHMIX_HD __host__ __device__
#define GHMIX_INLINE __host__ __device__ static inline
#define GHMIX_LOCAL __host__ __device__ static
#else
#define GHMIX_HD
#define GHMIX_INLINE static inline
#define GHMIX_LOCAL static
#endif

#endif
