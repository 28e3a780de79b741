/* Threaded batch drivers over the GIG expectation map and its inverse
 * (src/core/gig_solve.h).  Plain C, no R headers.
 *
 * The per-element bodies are those of src/core/elementwise.h.  Inputs of
 * the forward maps are recycled as in R: element i uses
 * p[i % np], a[i % na], b[i % nb] (and r[i % nr]).  NaN in gives NaN out
 * (an R NA stays NA); invalid parameters give NaN.  threads is clamped to
 * [1, ghmix_max_threads()]; the interrupt hook is polled between chunks
 * from the calling thread only, and an interrupt returns
 * GHMIX_ERR_INTERRUPTED.  Results do not depend on the thread count. */
#ifndef GHMIX_GIG_SOLVE_CPU_H
#define GHMIX_GIG_SOLVE_CPU_H

#include <stddef.h>

#include "../core/elementwise.h"
#include "../core/gig_solve.h"
#include "../core/status.h"

/* Rows solved between two interrupt polls. */
#define GHMIX_GIG_SOLVE_CHUNK ((size_t)4096)

/* eta = (E log Y, E 1/Y, E Y) into out_log, out_inv, out_y (n each). */
ghmix_status ghmix_gig_expectation_batch(size_t n, const double *p, size_t np,
                                         const double *a, size_t na,
                                         const double *b, size_t nb,
                                         double *out_log, double *out_inv,
                                         double *out_y, int threads,
                                         ghmix_error *err);

/* E[Y^r] or Var(Y) (what: GHMIX_GIG_MOMENT_*, elementwise.h). */
ghmix_status ghmix_gig_moment_batch(size_t n, const double *p, size_t np,
                                    const double *a, size_t na, const double *b,
                                    size_t nb, const double *r, size_t nr,
                                    int what, double *out, int threads,
                                    ghmix_error *err);

/* Solves the s->n rows of s (ghmix_gig_solve_args, elementwise.h: eta and
 * start n x 3, column-major; outputs n each; jacobian NULL or 9 n doubles,
 * row i's d(p, a, b) / d(eta) at jacobian + 9 i in column-major order, R's
 * array(dim = c(3, 3, n)); s->ctrl's start and want_jacobian are set per
 * row).
 *
 * A first pass checks every row: when some row is not finite or not
 * positive (infeasible[i] = -1) or infeasible (infeasible[i] = the violated
 * inequality, GHMIX_GIG_INFEASIBLE_*), nothing is solved and
 * GHMIX_ERR_INFEASIBLE (or GHMIX_ERR_DOMAIN when only domain errors) is
 * returned with err->index the first such row.  Rows that do not converge are
 * not an error: converged[i] = 0. */
ghmix_status ghmix_gig_from_expectation_batch(const ghmix_gig_solve_args *s,
                                              int threads, ghmix_error *err);

#endif
