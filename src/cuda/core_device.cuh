/* The numerical core (src/core) compiled for the device: single-source.
 *
 * The CUDA kernels call the same per-element functions as the CPU drivers
 * (the element bodies of elementwise.h: log K_nu(x), the GIG expectation
 * map and its inverse, the univariate GH density; one observation's
 * E-step, with a full or a factor-analytic Sigma), compiled from the
 * same files.  This header includes those .c files into each translation
 * unit of kernels (kernels.cu, mix_estep.cu, factor_estep.cu: each keeps
 * only the device code its kernels call), with GHMIX_CUDA_UNITY defined
 * so that ghmix_hd.h makes every GHMIX_HD function
 * `__host__ __device__ static`: the device code can then be inlined into
 * the kernels (no relocatable device code, no device link step), and the
 * host copies that nvcc also emits stay private to this translation unit
 * instead of clashing with the symbols of the C objects built from the same
 * files.
 *
 * It must come before any other ghmix header in a .cu file.  A core source
 * file added later that these functions need must be added to the list
 * below (nvcc reports what is missing: a function used in device code but
 * never defined).  The host-only files are not included: gig.c and
 * gig_sample.c (the GIG distribution and its sampler), de_quad.c (the
 * adaptive quadrature), rng.c and status.c; of gh_dist.c only the set-up
 * and the density are compiled here (it leaves out its host-only
 * quadrature when GHMIX_CUDA_UNITY is defined). */
#ifndef GHMIX_CORE_DEVICE_CUH
#define GHMIX_CORE_DEVICE_CUH

#ifdef GHMIX_HD_H
#error "src/cuda/core_device.cuh must be included before any ghmix header"
#endif

#define GHMIX_CUDA_UNITY 1

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/ghmix_hd.h"

#include "../core/bessel.c"
#include "../core/bessel_cf2.c"
#include "../core/bessel_debye.c"
#include "../core/bessel_exponent.c"
#include "../core/bessel_halfint.c"
#include "../core/bessel_hankel.c"
#include "../core/bessel_scaled.c"
#include "../core/bessel_series.c"
#include "../core/bessel_trapezoid.c"
#include "../core/estep.c"
#include "../core/factor.c"
#include "../core/gamma.c"
#include "../core/gh_dist.c" /* the density only: see its GHMIX_CUDA_UNITY */
#include "../core/gig_moments.c"
#include "../core/gig_solve.c"
#include "../core/mixture.c"

#include "../core/batch.h"

#endif
