/* CPU-only build: the functions of cuda/ghmix_cuda.h without CUDA.  Every
 * query fails with GHMIX_ERR_CUDA_NOT_BUILT and says how to rebuild. */
#include "cuda/ghmix_cuda.h"

#define NOT_BUILT_MSG                                                          \
  "this ghmix was built without CUDA; reinstall it with the CUDA toolkit, "    \
  "e.g. GHMIX_CUDA=yes CUDA_HOME=/usr/local/cuda R CMD INSTALL ghmix"

static ghmix_status not_built(ghmix_error *err) {
  return ghmix_error_set(err, GHMIX_ERR_CUDA_NOT_BUILT, -1, "%s",
                         NOT_BUILT_MSG);
}

int ghmix_cuda_built(void) { return 0; }

int ghmix_cuda_toolkit_version(void) { return 0; }

const char *ghmix_cuda_archs(void) { return ""; }

ghmix_status ghmix_cuda_versions(int *runtime, int *driver, ghmix_error *err) {
  *runtime = 0;
  *driver = 0;
  return not_built(err);
}

ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err) {
  *count = 0;
  return not_built(err);
}

ghmix_status ghmix_cuda_device_info(int dev, ghmix_cuda_device *info,
                                    ghmix_error *err) {
  (void)dev;
  (void)info;
  return not_built(err);
}
