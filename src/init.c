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
SEXP ffi_mixture_unpack_components(SEXP raw, SEXP comps, SEXP sxx_dim);
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

static const R_CallMethodDef call_methods[] = {
    {"ffi_log_besselK", (DL_FUNC)&ffi_log_besselK, 5},
    {"ffi_build_info", (DL_FUNC)&ffi_build_info, 0},
    {"ffi_cuda_devices", (DL_FUNC)&ffi_cuda_devices, 0},
    {"ffi_cuda_require", (DL_FUNC)&ffi_cuda_require, 0},
    {"ffi_max_threads", (DL_FUNC)&ffi_max_threads, 0},
    /* GIG expectation map */
    {"ffi_gig_expectation", (DL_FUNC)&ffi_gig_expectation, 5},
    {"ffi_gig_moment", (DL_FUNC)&ffi_gig_moment, 6},
    {"ffi_gig_from_expectation", (DL_FUNC)&ffi_gig_from_expectation, 7},
    /* GIG distribution */
    {"ffi_dgig", (DL_FUNC)&ffi_dgig, 6},
    {"ffi_pgig", (DL_FUNC)&ffi_pgig, 7},
    {"ffi_qgig", (DL_FUNC)&ffi_qgig, 7},
    {"ffi_rgig", (DL_FUNC)&ffi_rgig, 4},
    /* GH distribution */
    {"ffi_dgh1", (DL_FUNC)&ffi_dgh1, 10},
    {"ffi_pgh", (DL_FUNC)&ffi_pgh, 10},
    {"ffi_qgh", (DL_FUNC)&ffi_qgh, 10},
    {"ffi_dgh_rows", (DL_FUNC)&ffi_dgh_rows, 10},
    /* GH risk measures */
    {"ffi_gh_risk", (DL_FUNC)&ffi_gh_risk, 8},
    /* EM fitting */
    {"ffi_mix_estep", (DL_FUNC)&ffi_mix_estep, 8},
    {"ffi_mix_estep_weighted", (DL_FUNC)&ffi_mix_estep_weighted, 9},
    {"ffi_mix_estep_mixture", (DL_FUNC)&ffi_mix_estep_mixture, 10},
    {"ffi_mix_estep_factor", (DL_FUNC)&ffi_mix_estep_factor, 10},
    {"ffi_cuda_factor_data_create", (DL_FUNC)&ffi_cuda_factor_data_create, 3},
    {"ffi_cuda_factor_data_free", (DL_FUNC)&ffi_cuda_factor_data_free, 1},
    {"ffi_cuda_factor_data_weights", (DL_FUNC)&ffi_cuda_factor_data_weights, 2},
    {"ffi_cuda_mix_estep_factor", (DL_FUNC)&ffi_cuda_mix_estep_factor, 8},
    {"ffi_cuda_factor_estep_mixture", (DL_FUNC)&ffi_cuda_factor_estep_mixture,
     5},
    {"ffi_mix_subordinator", (DL_FUNC)&ffi_mix_subordinator, 3},
    {"ffi_mix_subordinator_fixed_p", (DL_FUNC)&ffi_mix_subordinator_fixed_p, 3},
    {"ffi_chol_lower", (DL_FUNC)&ffi_chol_lower, 1},
    {"ffi_chol_upper", (DL_FUNC)&ffi_chol_upper, 1},
    {"ffi_eigen_values_sym", (DL_FUNC)&ffi_eigen_values_sym, 1},
    {"ffi_mixture_estep_args", (DL_FUNC)&ffi_mixture_estep_args, 1},
    {"ffi_mixture_unpack_components", (DL_FUNC)&ffi_mixture_unpack_components,
     3},
    {"ffi_mix_consts", (DL_FUNC)&ffi_mix_consts, 3},
    /* codes and layouts */
    {"ffi_codes", (DL_FUNC)&ffi_codes, 0},
    {"ffi_estep_layout", (DL_FUNC)&ffi_estep_layout, 5},
    /* the cluster transport's signals */
    {"ffi_sigint_hold", (DL_FUNC)&ffi_sigint_hold, 1},
    {"ffi_nap", (DL_FUNC)&ffi_nap, 1},
    /* CUDA backend */
    {"ffi_cuda_mix_data_create", (DL_FUNC)&ffi_cuda_mix_data_create, 2},
    {"ffi_cuda_mix_data_free", (DL_FUNC)&ffi_cuda_mix_data_free, 1},
    {"ffi_cuda_mix_data_weights", (DL_FUNC)&ffi_cuda_mix_data_weights, 2},
    {"ffi_cuda_mix_estep", (DL_FUNC)&ffi_cuda_mix_estep, 7},
    {"ffi_cuda_mix_estep_mixture", (DL_FUNC)&ffi_cuda_mix_estep_mixture, 9},
    {"ffi_cuda_mix_rows", (DL_FUNC)&ffi_cuda_mix_rows, 9},
    {NULL, NULL, 0}};

void R_init_ghmix(DllInfo *dll) {
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  ghmix_set_interrupt_hook(ghmix_r_interrupt_hook);
  ghmix_threads_init();
}
