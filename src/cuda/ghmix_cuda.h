/* The CUDA backend behind one plain-C header: no CUDA types, callable from C.
 *
 * In a CUDA build these functions come from the .cu files in this directory
 * (compiled by nvcc); in a CPU-only build from src/cuda_stub.c, where every
 * query returns GHMIX_ERR_CUDA_NOT_BUILT. */
#ifndef GHMIX_CUDA_H
#define GHMIX_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../core/status.h"

#define GHMIX_CUDA_NAME_LEN 256

/* One device, as reported by cudaGetDeviceProperties. */
typedef struct {
  char name[GHMIX_CUDA_NAME_LEN];
  double total_mem_bytes; /* global memory */
  int cc_major;           /* compute capability */
  int cc_minor;
  int multiprocessors;
} ghmix_cuda_device;

/* 1 in a CUDA build, 0 in a CPU-only build. */
int ghmix_cuda_built(void);

/* CUDART_VERSION of the toolkit compiled against (1000 * major + 10 * minor,
 * e.g. 13000 for 13.0), 0 in a CPU-only build. */
int ghmix_cuda_toolkit_version(void);

/* GPU code compiled in, comma-separated, e.g. "sm_80,sm_90,compute_90" (SASS
 * for each sm_XX, PTX for compute_XX); "" in a CPU-only build. */
const char *ghmix_cuda_archs(void);

/* Versions of the CUDA runtime linked and of the installed driver (same
 * encoding as above; the driver version is 0 when no driver is installed). */
ghmix_status ghmix_cuda_versions(int *runtime, int *driver, ghmix_error *err);

/* Number of usable devices.  GHMIX_OK with *count >= 1, or
 * GHMIX_ERR_NO_DEVICE with *count = 0 and the CUDA runtime's reason in
 * err->message (no driver, driver too old, no device, ...). */
ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err);

/* Properties of device dev (0-based).  GHMIX_ERR_DOMAIN for a bad index,
 * GHMIX_ERR_NO_DEVICE when the runtime cannot query it. */
ghmix_status ghmix_cuda_device_info(int dev, ghmix_cuda_device *info,
                                    ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
