/* .Call registration only. */
#include <R_ext/Rdynload.h>

#include "cpu/threads.h"
#include "r_ffi.h"

/* EM fitting of normal variance-mean mixtures (src/r_mixture.c) */
SEXP ffi_mix_estep(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts,
                   SEXP what, SEXP rows, SEXP threads);
SEXP ffi_mix_estep_weighted(SEXP x, SEXP weights, SEXP center, SEXP chol,
                            SEXP g, SEXP consts, SEXP what, SEXP rows,
                            SEXP threads);
SEXP ffi_mix_estep_mixture(SEXP x, SEXP centers, SEXP chols, SEXP gs,
                           SEXP consts, SEXP log_props, SEXP weights, SEXP what,
                           SEXP rows, SEXP threads);
/* a factor-analytic Sigma (src/r_factor.c) */
SEXP ffi_mix_estep_factor(SEXP x, SEXP weights, SEXP center, SEXP loadings,
                          SEXP uniq, SEXP gamma, SEXP pab, SEXP what, SEXP rows,
                          SEXP threads);
SEXP ffi_factor_estep_mixture(SEXP x, SEXP weights, SEXP comps, SEXP log_props,
                              SEXP what, SEXP rows, SEXP threads);
SEXP ffi_cuda_factor_data_create(SEXP x, SEXP weights, SEXP device);
SEXP ffi_cuda_factor_data_free(SEXP handle);
SEXP ffi_cuda_factor_data_weights(SEXP handle, SEXP weights);
SEXP ffi_cuda_factor_estep_mixture(SEXP handle, SEXP comps, SEXP log_props,
                                   SEXP what, SEXP rows);
SEXP ffi_cuda_mix_estep_factor(SEXP handle, SEXP center, SEXP loadings,
                               SEXP uniq, SEXP gamma, SEXP pab, SEXP what,
                               SEXP rows);
SEXP ffi_mix_subordinator(SEXP family, SEXP eta, SEXP start);
SEXP ffi_mix_subordinator_fixed_p(SEXP p, SEXP eta, SEXP start);
SEXP ffi_chol_lower(SEXP a);
SEXP ffi_chol_upper(SEXP a);
SEXP ffi_eigen_values_sym(SEXP a);
SEXP ffi_mixture_estep_args(SEXP pars);
SEXP ffi_estep_decode(SEXP raw, SEXP comps, SEXP dims);
SEXP ffi_mix_consts(SEXP chol, SEXP gamma, SEXP pab);

/* Codes and layouts shared with R (src/r_codes.c) */
SEXP ffi_codes(void);
SEXP ffi_estep_layout(SEXP d, SEXP components, SEXP cov, SEXP factors,
                      SEXP what);

/* CUDA backend (src/r_cuda.c; in a CPU-only build every one of these
 * signals ghmix_error_cuda_not_built) */
SEXP ffi_cuda_mix_data_create(SEXP x, SEXP device);
SEXP ffi_cuda_mix_data_free(SEXP handle);
SEXP ffi_cuda_mix_data_weights(SEXP handle, SEXP weights);
SEXP ffi_cuda_mix_estep(SEXP handle, SEXP center, SEXP chol, SEXP g,
                        SEXP consts, SEXP what, SEXP rows);
SEXP ffi_cuda_mix_estep_mixture(SEXP handle, SEXP centers, SEXP chols, SEXP gs,
                                SEXP consts, SEXP log_props, SEXP weights,
                                SEXP what, SEXP rows);
SEXP ffi_cuda_mix_rows(SEXP x, SEXP center, SEXP chol, SEXP g, SEXP consts,
                       SEXP what, SEXP moments, SEXP give_log, SEXP device);

/* One entry: the routine under its own name, with its argument count.  The
 * cast through void (*)(void), which GCC's -Wcast-function-type (part of
 * -Wextra) lets through to and from any function type, keeps the glue free
 * of warnings under -Wextra (the Windows cross-build, tests/c/windows.mk). */
#define CALLDEF(name, n)                                                       \
  { #name, (DL_FUNC)(void (*)(void)) & name, n }

static const R_CallMethodDef call_methods[] = {
    CALLDEF(ffi_log_besselK, 5),
    CALLDEF(ffi_build_info, 0),
    CALLDEF(ffi_blas_threads_single, 0),
    CALLDEF(ffi_blas_threads_restore, 1),
    CALLDEF(ffi_cuda_devices, 0),
    CALLDEF(ffi_cuda_require, 0),
    CALLDEF(ffi_max_threads, 0),
    CALLDEF(ffi_pool_stop, 0),
    /* GIG expectation map */
    CALLDEF(ffi_gig_expectation, 5),
    CALLDEF(ffi_gig_moment, 6),
    CALLDEF(ffi_gig_from_expectation, 7),
    /* GIG distribution */
    CALLDEF(ffi_dgig, 6),
    CALLDEF(ffi_pgig, 7),
    CALLDEF(ffi_qgig, 7),
    CALLDEF(ffi_rgig, 4),
    /* GH distribution */
    CALLDEF(ffi_dgh1, 10),
    CALLDEF(ffi_pgh, 10),
    CALLDEF(ffi_qgh, 10),
    CALLDEF(ffi_dgh_rows, 10),
    /* GH risk measures */
    CALLDEF(ffi_gh_risk, 8),
    /* EM fitting */
    CALLDEF(ffi_mix_estep, 8),
    CALLDEF(ffi_mix_estep_weighted, 9),
    CALLDEF(ffi_mix_estep_mixture, 10),
    CALLDEF(ffi_mix_estep_factor, 10),
    CALLDEF(ffi_factor_estep_mixture, 7),
    CALLDEF(ffi_cuda_factor_data_create, 3),
    CALLDEF(ffi_cuda_factor_data_free, 1),
    CALLDEF(ffi_cuda_factor_data_weights, 2),
    CALLDEF(ffi_cuda_mix_estep_factor, 8),
    CALLDEF(ffi_cuda_factor_estep_mixture, 5),
    CALLDEF(ffi_mix_subordinator, 3),
    CALLDEF(ffi_mix_subordinator_fixed_p, 3),
    CALLDEF(ffi_chol_lower, 1),
    CALLDEF(ffi_chol_upper, 1),
    CALLDEF(ffi_eigen_values_sym, 1),
    CALLDEF(ffi_mixture_estep_args, 1),
    CALLDEF(ffi_estep_decode, 3),
    CALLDEF(ffi_mix_consts, 3),
    /* codes and layouts */
    CALLDEF(ffi_codes, 0),
    CALLDEF(ffi_estep_layout, 5),
    /* the cluster transport's signals */
    CALLDEF(ffi_sigint_hold, 1),
    CALLDEF(ffi_nap, 1),
    /* CUDA backend */
    CALLDEF(ffi_cuda_mix_data_create, 2),
    CALLDEF(ffi_cuda_mix_data_free, 1),
    CALLDEF(ffi_cuda_mix_data_weights, 2),
    CALLDEF(ffi_cuda_mix_estep, 7),
    CALLDEF(ffi_cuda_mix_estep_mixture, 9),
    CALLDEF(ffi_cuda_mix_rows, 9),
    {NULL, NULL, 0}};

void R_init_ghmix(DllInfo *dll) {
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  ghmix_set_interrupt_hook(ghmix_r_interrupt_hook);
  ghmix_threads_init();
}
