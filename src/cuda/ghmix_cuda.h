/* The CUDA backend behind one plain-C header: no CUDA types, callable from C.
 *
 * In a CUDA build these functions come from the .cu files in this directory
 * (compiled by nvcc); in a CPU-only build from src/cuda_stub.c, where every
 * query returns GHMIX_ERR_CUDA_NOT_BUILT. */
#ifndef GHMIX_CUDA_H
#define GHMIX_CUDA_H

#include <stddef.h>

#include "../core/elementwise.h"
#include "../core/factor.h"
#include "../core/mixture.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The message of the first sticky CUDA error of this process (an illegal
 * address or a failed launch in a kernel, ...: every later CUDA call of the
 * process fails), or NULL when there was none.  After one, every function
 * below returns GHMIX_ERR_CUDA_FAULT with that message, which says to
 * restart R. */
const char *ghmix_cuda_fault(void);

/* Number of usable devices.  GHMIX_OK with *count >= 1, or
 * GHMIX_ERR_NO_DEVICE with *count = 0 and the CUDA runtime's reason in
 * err->message (no driver, driver too old, no device, ...), or
 * GHMIX_ERR_CUDA_FAULT after a sticky error (ghmix_cuda_fault). */
ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err);

/* Properties of device dev (0-based).  GHMIX_ERR_DOMAIN for a bad index,
 * GHMIX_ERR_NO_DEVICE when the runtime cannot query it. */
ghmix_status ghmix_cuda_device_info(int dev, ghmix_cuda_device *info,
                                    ghmix_error *err);

/* ------------------------------------------------------------------------
 * Kernels (src/cuda/kernels.cu).  Each takes host pointers and a device
 * index, and does one allocation, the copies in, ONE kernel launch (one
 * thread per element, every loop inside the thread), the copies out, and
 * frees the device memory on every path.  Inputs, outputs, recycling and
 * special values are exactly those of the CPU drivers named; n == 0
 * returns GHMIX_OK once the device has been checked.  Errors:
 *   GHMIX_ERR_NO_DEVICE  no usable device (the runtime's reason);
 *   GHMIX_ERR_DOMAIN     device not in [0, count), or empty inputs;
 *   GHMIX_ERR_CUDA       a CUDA call failed: the message has the CUDA error
 *                        string (and, for an allocation, the bytes asked);
 *   GHMIX_ERR_CUDA_FAULT a sticky CUDA error, now or earlier in the process
 *                        (ghmix_cuda_fault): the GPU is unusable until the
 *                        process restarts;
 * plus the driver's own (see gig_from_expectation).  The calling thread's
 * current device is restored before returning.  Not interruptible: one
 * launch, synchronous. */

/* ghmix_bessel_logk_batch (src/cpu/bessel_cpu.h) on the GPU. */
ghmix_status ghmix_cuda_bessel_logk_batch(size_t n, const double *x, size_t nx,
                                          const double *nu, size_t nnu,
                                          double *logk, double *grad_x,
                                          double *grad_nu, int device,
                                          ghmix_error *err);

/* ghmix_gig_expectation_batch (src/cpu/gig_solve_cpu.h) on the GPU. */
ghmix_status ghmix_cuda_gig_expectation_batch(size_t n, const double *p,
                                              size_t np, const double *a,
                                              size_t na, const double *b,
                                              size_t nb, double *out_log,
                                              double *out_inv, double *out_y,
                                              int device, ghmix_error *err);

/* ghmix_gig_from_expectation_batch (src/cpu/gig_solve_cpu.h) on the GPU:
 * same arguments, outputs and errors (GHMIX_ERR_INFEASIBLE or
 * GHMIX_ERR_DOMAIN with err->index the first bad row and infeasible[]
 * filled, the other outputs then unspecified).  The feasibility check runs
 * inside the same launch as the solves. */
ghmix_status
ghmix_cuda_gig_from_expectation_batch(const ghmix_gig_solve_args *s, int device,
                                      ghmix_error *err);

/* ------------------------------------------------------------------------
 * Densities and posterior moments per row (src/cuda/mix_estep.cu): the same
 * rules as the kernels above (one allocation, one launch, device memory
 * freed on every path). */

/* ghmix_gh1_dpq_batch(GHMIX_GH_FUN_DENSITY, ...) (src/cpu/gh_dist_cpu.h) on
 * the GPU: the univariate GH density with R's recycling of the seven
 * inputs (x, mu, gamma, sigma, p, a, b), flag give_log; one thread per
 * element runs ghmix_gh1_density_x (src/core/gh_dist.h), with the
 * parameter set prepared on the host once when p, a, b, gamma and sigma
 * all have length 1, else per element on the device.  Errors as the CPU
 * driver's (GHMIX_ERR_DOMAIN for an empty input with n > 0) plus those
 * above. */
ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err);

/* The mixture at n rows of x (n x d, column-major, leading dimension
 * ldx >= n), model as for the E-step (checked as there; its component's
 * centre m, lower Cholesky factor L of Sigma, g = L^-1 gamma and constants;
 * m is usually mu): one thread per row solves z = L^-1 (x_i - m), forms
 * Q = |z|^2 and B = z.g and runs ghmix_mix_row_step (src/cuda/mix_tile.h,
 * ghmix_mix_rows_one).  out is n x ncol, column-major: ncol = 1, log f(x_i)
 * (give_log) or f(x_i), as ghmix_gh_density_rows (src/cpu/gh_dist_cpu.h)
 * from the same Q and B; ncol = 4, also E[1/Y|x], E[Y|x], E[log Y|x] (NaN
 * without GHMIX_ESTEP_LOGY): the rows of the E-step (ghmix_mix_row_store).
 * A row with NaN gives NaN.  No shared memory: any d.  GHMIX_ERR_DOMAIN
 * also for d < 1, ldx < n or ncol not 1 or 4. */
ghmix_status ghmix_cuda_mix_rows(const double *x, size_t n, size_t ldx, int d,
                                 const ghmix_mix_model *model, int give_log,
                                 int ncol, double *out, int device,
                                 ghmix_error *err);

/* ------------------------------------------------------------------------
 * The E-step of a normal variance-mean mixture (src/cuda/mix_estep.cu).
 *
 * The data live on the device for a whole fit: create copies x (n x d,
 * column-major, leading dimension ldx >= n) once; each E-step then copies
 * the parameters in (one small copy), runs two kernels (the fused per-row
 * E-step with per-block partial sums, then a fixed-order sum of the block
 * partials) and copies the statistics back.  model: completed, of the
 * data's d, a shape ghmix_mix_model_check accepts (GHMIX_ERR_DOMAIN
 * otherwise); stats: ghmix_estep_nstats(&model->shape) doubles in the
 * layout of src/core/estep.h, as ghmix_mix_estep_cpu (src/cpu/
 * mixture_cpu.h) writes them; rows NULL or n x 4 as there.  Results are
 * bit-identical from run to run (the partition of rows into blocks depends
 * on n and d only).  *launches, when not NULL, receives the number of
 * kernel launches of the call (2).  create fails with GHMIX_ERR_DOMAIN
 * when d is too large for the device's shared memory (about d > 870 with
 * the 227 KiB per block of an H100/H200, d > 370 with 99 KiB; use the CPU
 * then).  ghmix_cuda_mix_data_free(NULL) does nothing. */
ghmix_status ghmix_cuda_mix_data_create(const double *x, size_t n, size_t ldx,
                                        int d, int device, void **handle,
                                        ghmix_error *err);
void ghmix_cuda_mix_data_free(void *handle);
/* Row weights for the data of the handle (n finite values >= 0, copied to
 * the device now; NULL drops them).  An E-step whose model has
 * GHMIX_ESTEP_WEIGHTS takes its weights from this device copy (the model's
 * host pointer is not read) and is GHMIX_ERR_DOMAIN without one; the
 * weighted statistics are those of ghmix_mix_estep_cpu. */
ghmix_status ghmix_cuda_mix_data_weights(void *handle, const double *weights,
                                         ghmix_error *err);
ghmix_status ghmix_cuda_mix_estep(void *handle, const ghmix_mix_model *model,
                                  double *stats, double *rows, int *launches,
                                  ghmix_error *err);

/* The E-step of a finite mixture of G >= 1 components (src/core/
 * mixture_g.h) on the same data: model a shape ghmix_mix_model_check_g
 * accepts; with GHMIX_ESTEP_WEIGHTS the weights are the handle's (copied
 * to the device once, ghmix_cuda_mix_data_weights; the model's host
 * pointer is not read), GHMIX_ERR_DOMAIN without them; stats as
 * ghmix_mix_estep_mixture_cpu writes them, rows NULL or n x
 * ghmix_mixg_row_ncol(G) as there.  One thread per row computes every
 * component (one launch of the fused kernel, then the fixed-order sum of
 * the block partials: *launches = 2).  Its device buffers (partial sums,
 * the threads' G row results, ...) stay with the handle for the next
 * call, grown when a call needs more. */
ghmix_status ghmix_cuda_mix_estep_mixture(void *handle,
                                          const ghmix_mix_model *model,
                                          double *stats, double *rows,
                                          int *launches, ghmix_error *err);

/* ------------------------------------------------------------------------
 * The E-step of a factor-analytic Sigma = F F' + diag(D) (src/core/
 * factor.h; src/cuda/factor_estep.cu).  The data (x, n x d, column-major,
 * leading dimension ldx >= n) and their row weights (NULL, or n finite
 * values >= 0) are copied to the device once, at create; each E-step
 * copies the model's arrays in, runs two kernels (one thread per row runs
 * ghmix_factor_row_step_x, with per-block partial sums; then their
 * fixed-order sum) and copies the statistics back.  fm: completed by
 * ghmix_factor_model_init for the data's d; stats:
 * ghmix_estep_nstats(ghmix_factor_shape(fm, weighted)) doubles, weighted
 * when the handle has weights, in the layout ghmix_factor_estep_cpu
 * (src/cpu/factor_cpu.h) writes; rows NULL or n x 4 as there.  Results are
 * bit-identical from run to run; *launches (when not NULL) receives 2.
 * Any d; the E-step is GHMIX_ERR_DOMAIN when r is too large for the
 * device's shared memory (about r > 880 with 227 KiB per block, r > 380
 * with 99 KiB).  ghmix_cuda_factor_data_free(NULL) does nothing. */
ghmix_status ghmix_cuda_factor_data_create(const double *x, size_t n,
                                           size_t ldx, int d,
                                           const double *weights, int device,
                                           void **handle, ghmix_error *err);
void ghmix_cuda_factor_data_free(void *handle);
/* New row weights for the data of a handle made with weights: n finite
 * values >= 0 in host memory, copied over the old ones, for the E-steps
 * that follow (a factor mixture's memberships times the row weights, each
 * component in turn, on one copy of the rows).  GHMIX_ERR_DOMAIN for a
 * NULL handle or one made without weights; nothing to do for n = 0. */
ghmix_status ghmix_cuda_factor_data_weights(void *handle, const double *weights,
                                            ghmix_error *err);
ghmix_status ghmix_cuda_factor_estep(void *handle, const ghmix_factor_model *fm,
                                     double *stats, double *rows, int *launches,
                                     ghmix_error *err);

/* The E-step of a mixture of G factor-analytic components (1 <= G <=
 * GHMIX_MAX_COMPONENTS; fms[k] completed for the data's d, all with the
 * same r; log_props[k] the log proportions; what the flags for rows) on
 * the data of a handle, whose weights w (or 1 without) are the rows'
 * weights: in one pass over the rows, each component's row result, the
 * memberships tau_k (src/core/mixture_g.h), and each component's factor
 * statistics with row weights v_k = w tau_k.  out: GHMIX_STAT_TAU (4)
 * doubles of the whole mixture (rows, weight, log-likelihood and bad rows,
 * as in estep.h), then for each component what ghmix_cuda_factor_estep
 * gives on the data with row weights v_k (ghmix_estep_nstats(
 * ghmix_factor_shape(&fms[k], 1)) doubles each); rows NULL or n x
 * ghmix_mixg_row_ncol(G), as ghmix_mix_estep_mixture_cpu writes them.
 * *launches (when not NULL) receives 2.  Its device buffers stay with the
 * handle for the next E-step. */
ghmix_status ghmix_cuda_factor_estep_mixture(void *handle, int G,
                                             const ghmix_factor_model *fms,
                                             const double *log_props, int what,
                                             double *out, double *rows,
                                             int *launches, ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
