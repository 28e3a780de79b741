/* gig_from_expectation()'s argument checks and result list
 * (src/r_gig_solve.c), shared by the CPU and CUDA glue.  Kept out of
 * r_ffi.h: gig_solve.h and gig.h both define GHMIX_GIG_GAMMA. */
#ifndef GHMIX_R_GIG_SOLVE_H
#define GHMIX_R_GIG_SOLVE_H

#include "core/gig_solve.h"
#include "r_ffi.h"

SEXP ghmix_r_gig_solve_prepare(SEXP eta, SEXP start, SEXP max_iter, SEXP tol,
                               SEXP jacobian, ghmix_gig_solve_control *ctrl,
                               double **jp);

#endif
