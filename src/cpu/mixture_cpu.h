/* The E-step of a normal variance-mean mixture over a block of rows, on the
 * CPU: OpenMP threads; the triangular solve and the rank-k update as
 * vectorised loops for d <= 48 and by R's BLAS (level 3) above; from 4096
 * rows on, log K of the posterior's order tabulated for the E-step
 * (bessel_table.h) unless the half-integer closed form serves.
 *
 * The statistics are those of src/core/estep.h for the model's shape
 * (ghmix_estep_nstats doubles, each block where ghmix_estep_stat puts it),
 * additive over rows, so blocks of rows can be computed anywhere (threads,
 * GPUs, other machines) and summed.  They are taken about the centre m of
 * the component (the caller passes the current mu), which keeps the
 * cross-product sums free of cancellation.  Each row's terms come from
 * ghmix_mix_row_step (src/core/mixture.h), the same function the CUDA
 * kernels call.
 *
 * Results do not depend on the number of threads: rows are split into a
 * fixed number of slots, each summed in row order, and the slots summed in
 * order.  Every buffer is allocated before the first parallel region (one
 * per thread, reused by every round of the E-step); the model is completed
 * before the call and read-only in it. */
#ifndef GHMIX_MIXTURE_CPU_H
#define GHMIX_MIXTURE_CPU_H
#include <stddef.h>

#include "../core/mixture.h"
#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x: n x d, column-major with leading dimension ldx >= n (an R matrix).
 * model: completed (ghmix_mix_model_complete), of dimension d; the shapes
 * implemented are those ghmix_mix_model_check accepts (one component, a
 * full Sigma, with or without row weights: model->weights, n of them,
 * each finite and >= 0, with GHMIX_ESTEP_WEIGHTS; GHMIX_ERR_DOMAIN
 * otherwise).  With weights each row's terms are multiplied by its weight
 * (ghmix_mix_terms_weight): ROWS counts the rows of weight > 0 accepted,
 * WEIGHT and TAU sum their weights, and a row of weight 0 adds nothing,
 * not even to BAD.  stats:
 * ghmix_estep_nstats(&model->shape) doubles, overwritten.  rows: NULL, or
 * n x 4 as ghmix_mix_row_store writes them.  Returns GHMIX_OK,
 * GHMIX_ERR_DOMAIN, GHMIX_ERR_NOMEM (before any row is computed) or
 * GHMIX_ERR_INTERRUPTED. */
ghmix_status ghmix_mix_estep_cpu(const double *x, size_t n, size_t ldx, int d,
                                 const ghmix_mix_model *model, double *stats,
                                 double *rows, int threads, ghmix_error *err);

/* The E-step of a finite mixture of G >= 1 components (mixture_g.h), with
 * or without row weights: the same x, stats and threads, and the same
 * blocks, slots and order of summation (for G = 1 without weights its
 * statistics are those of ghmix_mix_estep_cpu, bit for bit).  model: a
 * shape ghmix_mix_model_check_g accepts (GHMIX_ERR_DOMAIN otherwise).
 * rows: NULL, or n x ghmix_mixg_row_ncol(G) as ghmix_mixg_row_store writes
 * them.  Per thread it holds the results of a block of rows for every
 * component: O(block G) doubles besides the buffers of one component. */
ghmix_status ghmix_mix_estep_mixture_cpu(const double *x, size_t n, size_t ldx,
                                         int d, const ghmix_mix_model *model,
                                         double *stats, double *rows,
                                         int threads, ghmix_error *err);

#ifdef __cplusplus
}
#endif

#endif
