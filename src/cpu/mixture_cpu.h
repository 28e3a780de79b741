/* The E-step of a normal variance-mean mixture over a block of rows, on the
 * CPU: OpenMP threads; the triangular solve and the rank-k update as
 * vectorised loops for d <= 48 and by R's BLAS (level 3) above; from 4096
 * rows on, log K of the posterior's order tabulated for the E-step
 * (bessel_table.h) unless the half-integer closed form serves.
 *
 * The statistics are additive over rows, so blocks of rows can be computed
 * anywhere (threads, GPUs, other machines) and summed.  They are taken about
 * a fixed centre m (the caller passes the current mu), which keeps the
 * cross-product sums free of cancellation; layout (length
 * GHMIX_MIX_NSTATS(d)), with u = x - m, w = E[1/Y|x], y = E[Y|x]:
 *
 *   [0] n rows            [1] sum log f(x)     [2] sum w
 *   [3] sum y             [4] sum E[log Y|x]   [5] rows where f is not
 *                                                 finite and positive
 *   [6, 6+d)       sum u
 *   [6+d, 6+2d)    sum w u
 *   [6+2d, 6+2d+d*d)  sum w u u' (d x d, column-major, both triangles)
 *
 * Slot [4] is 0 unless GHMIX_ESTEP_LOGY is asked for.  Rows whose density is
 * not finite and positive (the variance-gamma singularity, underflow) are
 * counted in [5] and left out of the other sums.
 *
 * Results do not depend on the number of threads: rows are split into a
 * fixed number of slots, each summed in row order, and the slots summed in
 * order. */
#ifndef GHMIX_MIXTURE_CPU_H
#define GHMIX_MIXTURE_CPU_H
#include <stddef.h>

#include "../core/mixture.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GHMIX_MIX_NSTATS(d) (6 + 2 * (size_t)(d) + (size_t)(d) * (size_t)(d))

/* The parameters of one E-step.  chol is the lower Cholesky factor L of
 * Sigma (Sigma = L L', d x d column-major), g = L^-1 gamma, center = m. */
typedef struct {
  int d;
  const double *center;
  const double *chol;
  const double *g;
  ghmix_mix_const c;
} ghmix_mix_params;

/* x: n x d, column-major with leading dimension ldx >= n (an R matrix).
 * stats: GHMIX_MIX_NSTATS(d) doubles, overwritten.  rows: NULL, or n x 4
 * column-major (log f, E[1/Y|x], E[Y|x], E[log Y|x]) per row.  Returns
 * GHMIX_OK, GHMIX_ERR_NOMEM or GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_mix_estep_cpu(const double *x, size_t n, size_t ldx,
                                 const ghmix_mix_params *par, double *stats,
                                 double *rows, int threads, ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
