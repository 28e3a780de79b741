/* CPU-only build: the functions of cuda/ghmix_cuda.h without CUDA.  Every
 * query fails with GHMIX_ERR_CUDA_NOT_BUILT and says how to rebuild (on
 * Windows, where the build, src/Makevars.win, never has CUDA: where to
 * find a build that has it). */
#include "cuda/ghmix_cuda.h"

#ifdef _WIN32
#define NOT_BUILT_MSG                                                          \
  "this ghmix was built without CUDA, as every build on Windows is (the "      \
  "CUDA backend is built on Linux only): use backend = \"cpu\", or install "   \
  "ghmix with the CUDA toolkit under WSL 2"
#else
#define NOT_BUILT_MSG                                                          \
  "this ghmix was built without CUDA; reinstall it with the CUDA toolkit, "    \
  "e.g. GHMIX_CUDA=yes CUDA_HOME=/usr/local/cuda R CMD INSTALL ghmix"
#endif

static ghmix_status not_built(ghmix_error *err) {
  return ghmix_error_set(err, GHMIX_ERR_CUDA_NOT_BUILT, -1, "%s",
                         NOT_BUILT_MSG);
}

int ghmix_cuda_built(void) { return 0; }

const char *ghmix_cuda_fault(void) { return NULL; }

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

ghmix_status ghmix_cuda_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                          const double *nu, size_t nnu,
                                          double *logk, double *grad_x,
                                          double *grad_nu, int device,
                                          ghmix_error *err) {
  (void)n, (void)x, (void)nx, (void)nu, (void)nnu, (void)logk, (void)grad_x,
      (void)grad_nu, (void)device;
  return not_built(err);
}

ghmix_status ghmix_cuda_gig_expectation_batch(size_t n, const double *p,
                                              size_t np, const double *a,
                                              size_t na, const double *b,
                                              size_t nb, double *out_log,
                                              double *out_inv, double *out_y,
                                              int device, ghmix_error *err) {
  (void)n, (void)p, (void)np, (void)a, (void)na, (void)b, (void)nb,
      (void)out_log, (void)out_inv, (void)out_y, (void)device;
  return not_built(err);
}

ghmix_status
ghmix_cuda_gig_from_expectation_batch(const ghmix_gig_solve_args *s, int device,
                                      ghmix_error *err) {
  (void)s, (void)device;
  return not_built(err);
}

ghmix_status ghmix_cuda_mix_data_create(const double *x, size_t n, size_t ldx,
                                        int d, int device, void **handle,
                                        ghmix_error *err) {
  (void)x, (void)n, (void)ldx, (void)d, (void)device;
  *handle = NULL;
  return not_built(err);
}

void ghmix_cuda_mix_data_free(void *handle) { (void)handle; }

ghmix_status ghmix_cuda_mix_data_weights(void *handle, const double *weights,
                                         ghmix_error *err) {
  (void)handle, (void)weights;
  return not_built(err);
}

ghmix_status ghmix_cuda_mix_estep(void *handle, const ghmix_mix_model *model,
                                  double *stats, double *rows, int *launches,
                                  ghmix_error *err) {
  (void)handle, (void)model, (void)stats, (void)rows;
  if (launches != NULL)
    *launches = 0;
  return not_built(err);
}

ghmix_status ghmix_cuda_mix_estep_mixture(void *handle,
                                          const ghmix_mix_model *model,
                                          double *stats, double *rows,
                                          int *launches, ghmix_error *err) {
  return ghmix_cuda_mix_estep(handle, model, stats, rows, launches, err);
}

ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err) {
  (void)n, (void)in, (void)len, (void)give_log, (void)out, (void)device;
  return not_built(err);
}

ghmix_status ghmix_cuda_mix_rows(const double *x, size_t n, size_t ldx, int d,
                                 const ghmix_mix_model *model, int give_log,
                                 int ncol, double *out, int device,
                                 ghmix_error *err) {
  (void)x, (void)n, (void)ldx, (void)d, (void)model, (void)give_log, (void)ncol,
      (void)out, (void)device;
  return not_built(err);
}

ghmix_status ghmix_cuda_factor_data_create(const double *x, size_t n,
                                           size_t ldx, int d,
                                           const double *weights, int device,
                                           void **handle, ghmix_error *err) {
  (void)x, (void)n, (void)ldx, (void)d, (void)weights, (void)device;
  *handle = NULL;
  return not_built(err);
}

void ghmix_cuda_factor_data_free(void *handle) { (void)handle; }

ghmix_status ghmix_cuda_factor_data_weights(void *handle, const double *weights,
                                            ghmix_error *err) {
  (void)handle, (void)weights;
  return not_built(err);
}

ghmix_status ghmix_cuda_factor_estep(void *handle, const ghmix_factor_model *fm,
                                     double *stats, double *rows, int *launches,
                                     ghmix_error *err) {
  (void)handle, (void)fm, (void)stats, (void)rows;
  if (launches != NULL)
    *launches = 0;
  return not_built(err);
}

ghmix_status ghmix_cuda_factor_estep_mixture(void *handle, int G,
                                             const ghmix_factor_model *fms,
                                             const double *log_props, int what,
                                             double *out, double *rows,
                                             int *launches, ghmix_error *err) {
  (void)handle, (void)G, (void)fms, (void)log_props, (void)what, (void)out,
      (void)rows;
  if (launches != NULL)
    *launches = 0;
  return not_built(err);
}
