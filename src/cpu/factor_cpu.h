/* The E-step of a normal variance-mean mixture with a factor-analytic
 * Sigma = F F' + diag(D) (src/core/factor.h) over a block of rows, on the
 * CPU: OpenMP threads over O(d r) work per row, no d x d matrix.
 *
 * The statistics are those of src/core/estep.h for the shape (d, one
 * component, GHMIX_COV_FACTOR, r factors, the flags), about the model's
 * centre m: the scalar blocks, sum v u, sum v E[1/Y|x] u, the diagonal of
 * S = sum v E[1/Y|x] u u' and S beta' (d x r), beta the model's projection.
 *
 * As in mixture_cpu.h, results do not depend on the number of threads:
 * rows are split into a fixed number of slots, each summed in row order
 * (blocks of rows, fixed groups of rows within a block), and the slots
 * summed in order.  Memory: per thread a block of rows (O(block d)), per
 * slot O(d r) partial sums; every buffer is allocated before the first
 * parallel region. */
#ifndef GHMIX_FACTOR_CPU_H
#define GHMIX_FACTOR_CPU_H
#include <stddef.h>

#include "../core/factor.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x: n x d (d = fm->d), column-major with leading dimension ldx >= n.
 * fm: completed by ghmix_factor_model_init.  weights: NULL, or n finite
 * weights >= 0 (then each row's terms are multiplied by its weight, as
 * ghmix_mix_terms_weight does: a row of weight 0 adds nothing).  stats:
 * ghmix_estep_nstats(shape) doubles for the shape above (with
 * GHMIX_ESTEP_WEIGHTS when weights is not NULL), overwritten.  rows: NULL,
 * or n x 4 as ghmix_mix_row_store writes them.  Returns GHMIX_OK,
 * GHMIX_ERR_NOMEM (before any row is computed) or GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_factor_estep_cpu(const double *x, size_t n, size_t ldx,
                                    const ghmix_factor_model *fm,
                                    const double *weights, double *stats,
                                    double *rows, int threads,
                                    ghmix_error *err);

/* The E-step of a finite mixture of G factor-analytic components (1 <= G
 * <= GHMIX_MAX_COMPONENTS, all of the same d and r; fm: G models) in one
 * pass over the rows: per block of rows each component's forms and row
 * results, then each row's memberships tau_k and terms
 * (ghmix_mixg_row, src/core/mixture_g.h: log_prop the G log proportions,
 * what the flags), then each component's sums with the row weights v_k =
 * w tau_k.  x, n, ldx, weights, threads: as above.  stats: the statistics
 * of G factor components (ghmix_estep_nstats of the shape (d, G,
 * GHMIX_COV_FACTOR, r, what)), overwritten.  rows: NULL, or n x
 * ghmix_mixg_row_ncol(G) as ghmix_mixg_row_store writes them.  The same
 * blocks, slots and order of summation as above, so the thread count
 * changes no bit.  Returns GHMIX_OK, GHMIX_ERR_DOMAIN (G out of range, d or
 * r differ), GHMIX_ERR_NOMEM or GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_factor_estep_mixture_cpu(
    const double *x, size_t n, size_t ldx, int G, const ghmix_factor_model *fm,
    const double *log_prop, int what, const double *weights, double *stats,
    double *rows, int threads, ghmix_error *err);

/* The shape of those statistics. */
ghmix_estep_shape ghmix_factor_shape(const ghmix_factor_model *fm,
                                     int weighted);

#ifdef __cplusplus
}
#endif

#endif
