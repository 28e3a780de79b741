/* .Call entry points (registered in init.c) and glue helpers.  Only the
 * src/r_*.c files and init.c include R headers. */
#ifndef GHMIX_R_FFI_H
#define GHMIX_R_FFI_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>

#include "core/mixture.h"
#include "core/status.h"

/* r_args.c: argument checks of the glue (an R caller's bug is an
 * "internal error"). */
int ghmix_r_threads(SEXP threads); /* a positive integer */
int ghmix_r_device(SEXP device);   /* a non-negative integer */
/* The backend of an entry point that serves both: NULL means the CPU
 * (GHMIX_R_CPU), anything else a CUDA device index (ghmix_r_device). */
#define GHMIX_R_CPU (-1)
int ghmix_r_device_or_cpu(SEXP device);
int ghmix_r_flag(SEXP x, const char *what); /* TRUE or FALSE */
int ghmix_r_int(SEXP x, const char *what, int lo, int hi);
/* REAL(x) of a double vector, or of a double matrix of nrow x ncol (-1:
 * any). */
double *ghmix_r_doubles(SEXP x, const char *what);
double *ghmix_r_double_matrix(SEXP x, R_xlen_t nrow, R_xlen_t ncol,
                              const char *what);
/* NULL for weights = NULL, else REAL(weights): a double vector of n
 * finite values >= 0 (the E-step's row weights). */
const double *ghmix_r_weights(SEXP weights, R_xlen_t n);
/* R's recycled length of k vectors: 0 if any is empty, else the longest. */
R_xlen_t ghmix_r_recycled_length(const SEXP *xs, int k);

/* r_mixture.c: the one-component E-step model of the .Call arguments
 * (center, chol = L, g = L^-1 gamma, consts = c(p, a, b, gsg, logdet) as
 * ffi_mix_consts gives them, what = GHMIX_ESTEP_* flags), completed, for
 * data of dimension d (an invalid parameter set is a classed R error). */
void ghmix_r_mix_model(SEXP center, SEXP chol, SEXP g, SEXP consts, SEXP what,
                       int d, ghmix_mix_component *comp,
                       ghmix_mix_model *model);

/* Gives the completed model the row weights of an E-step of n rows
 * (ghmix_r_weights; NULL leaves the model without weights). */
void ghmix_r_mix_weights(SEXP weights, R_xlen_t n, ghmix_mix_model *model);

/* The same for an E-step of n rows: the model in *e and the statistics
 * vector of its layout (returned unprotected), with attribute "rows" (an
 * n x 4 matrix, e->row_out its data; NULL without) when rows is TRUE. */
typedef struct {
  ghmix_mix_component comp;
  ghmix_mix_model model; /* model.comp is &comp: do not copy */
  double *row_out;
} ghmix_r_estep;
SEXP ghmix_r_estep_prepare(SEXP center, SEXP chol, SEXP g, SEXP consts,
                           SEXP what, SEXP rows, int d, R_xlen_t n,
                           ghmix_r_estep *e);

/* r_mix_estep.c: the G-component E-step model of the .Call arguments
 * (centers d x G, chols d x d x G, gs d x G, consts 5 x G, log_props G,
 * weights NULL or n, what), completed (R_alloc'ed components), and the
 * statistics vector of its layout (returned unprotected) with attribute
 * "rows" (n x ghmix_mixg_row_ncol(G), *row_out its data) when rows is
 * TRUE. */
void ghmix_r_mixg_model(SEXP centers, SEXP chols, SEXP gs, SEXP consts,
                        SEXP log_props, SEXP weights, SEXP what, int d,
                        R_xlen_t n, ghmix_mix_model *model);
SEXP ghmix_r_mixg_prepare(const ghmix_mix_model *model, SEXP rows, R_xlen_t n,
                          double **row_out);
/* With rows TRUE, the n x ghmix_mixg_row_ncol(G) matrix of a G-component
 * E-step's rows (columns named as ffi_mix_estep_mixture's) as attribute
 * "rows" of stats, and its data; NULL otherwise. */
double *ghmix_r_mixg_rows(SEXP stats, SEXP rows, int G, R_xlen_t n);

/* .Call entry points of log K, the GIG and the univariate GH functions
 * (src/r_bessel.c, r_gig_solve.c, r_gig.c, r_gh_dist.c).  device: NULL for
 * the CPU (with `threads`), else a CUDA device index. */
SEXP ffi_log_besselK(SEXP x, SEXP nu, SEXP gradient, SEXP threads, SEXP device);
SEXP ffi_gig_expectation(SEXP p, SEXP a, SEXP b, SEXP threads, SEXP device);
SEXP ffi_gig_moment(SEXP p, SEXP a, SEXP b, SEXP order, SEXP what,
                    SEXP threads);
SEXP ffi_gig_from_expectation(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                              SEXP jacobian, SEXP threads, SEXP device);

SEXP ffi_dgig(SEXP x, SEXP p, SEXP a, SEXP b, SEXP give_log, SEXP threads);
SEXP ffi_pgig(SEXP q, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads);
SEXP ffi_qgig(SEXP prob, SEXP p, SEXP a, SEXP b, SEXP lower_tail, SEXP log_p,
              SEXP threads);
SEXP ffi_rgig(SEXP n, SEXP p, SEXP a, SEXP b);

SEXP ffi_dgh1(SEXP x, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
              SEXP give_log, SEXP threads, SEXP device);
SEXP ffi_pgh(SEXP q, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads);
SEXP ffi_qgh(SEXP prob, SEXP mu, SEXP gamma, SEXP sigma, SEXP p, SEXP a, SEXP b,
             SEXP lower_tail, SEXP log_p, SEXP threads);
SEXP ffi_dgh_rows(SEXP Q, SEXP B, SEXP d, SEXP p, SEXP a, SEXP b, SEXP gSg,
                  SEXP logdet, SEXP give_log, SEXP threads);
SEXP ffi_gh_risk(SEXP level, SEXP mu, SEXP gamma, SEXP sigma, SEXP pab,
                 SEXP shortfall, SEXP y_mass, SEXP threads);

/* r_signal.c: ffi_sigint_hold(hold) blocks (TRUE) or unblocks SIGINT in
 * the calling thread and returns whether it was blocked (on Windows, which
 * has no such signal, it does nothing and returns FALSE); ffi_nap(us)
 * sleeps up to `us` microseconds (at most 1e5), then checks for an
 * interrupt as R's loops do. */
SEXP ffi_sigint_hold(SEXP hold);
SEXP ffi_nap(SEXP microseconds);

/* r_info.c */
SEXP ffi_build_info(void);
SEXP ffi_blas_threads_single(void);
SEXP ffi_blas_threads_restore(SEXP previous);
SEXP ffi_cuda_devices(void);
SEXP ffi_cuda_require(void);
SEXP ffi_max_threads(void);
SEXP ffi_pool_stop(void);

/* r_errors.c */

/* Raise err as a classed R condition (does not return): calls the R function
 * ghmix:::abort_status(message, status, index), which signals an error of
 * class c("ghmix_error_<status>", "ghmix_error", "error", "condition"), or
 * an R interrupt for GHMIX_ERR_INTERRUPTED. */
void ghmix_r_stop(const ghmix_error *err);

/* Interrupt hook for the core: nonzero when the user pressed Ctrl-C.  Calls
 * R_CheckUserInterrupt inside R_ToplevelExec so that it cannot longjmp over
 * C code. */
int ghmix_r_interrupt_hook(void);

#endif
