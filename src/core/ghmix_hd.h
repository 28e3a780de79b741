/* Portability macros for the single-source numerical core.
 *
 * Every per-element function in src/core is plain C99 that nvcc also
 * compiles for the device: GHMIX_HD marks it __host__ __device__ there and
 * expands to nothing for a C compiler.  No R headers anywhere in src/core.
 */
#ifndef GHMIX_HD_H
#define GHMIX_HD_H

#ifdef __CUDACC__
#define GHMIX_HD __host__ __device__
#define GHMIX_INLINE __host__ __device__ static inline
#else
#define GHMIX_HD
#define GHMIX_INLINE static inline
#endif

#endif
