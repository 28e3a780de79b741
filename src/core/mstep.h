/* The M-step of the mixing distribution of a normal variance-mean mixture
 * (mixture.h): given eta = (E log Y, E 1/Y, E Y), the posterior means of
 * log Y, 1/Y and Y averaged over the rows (the statistics LOG_Y, INV_Y and
 * Y of estep.h over TAU), the member of the family's mixing distribution
 * that maximises the expected complete-data log-likelihood, i.e. that
 * matches eta in the family's own sufficient statistics. */
#ifndef GHMIX_MSTEP_H
#define GHMIX_MSTEP_H

#include "estep.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double p, a, b; /* the GIG(p, a, b) (a = 0 or b = 0: the limits) */
  int converged;  /* 1; for GH the solver's flag */
  int note;       /* GHMIX_GIG_NOTE_INTERIOR; for GH the solver's note */
} ghmix_mstep_mixing;

/* family: a ghmix_family.  start = (p, a, b), the current values, those
 * of the E-step that gave eta, where the GH solve starts.  dev: NULL, or
 * the means of the deviation statistics of that E-step (estep.h:
 * INV_Y_DEV and Y_DEV over TAU), which the NIG M-step takes where
 * sqrt(ab) >= GHMIX_MIX_W_SCALED (E 1/Y E Y - 1 is then O(1 / sqrt(ab))
 * and below the rounding of the two means).  Returns 0 for an unknown
 * family, else 1 (the parameters are NaN when eta gives none, except for
 * the GH near its normal limit, where it is the start: the ECM step of
 * mstep.c). */
int ghmix_mstep_mixing_solve(int family, const double eta[3],
                             const double dev[2], const double start[3],
                             ghmix_mstep_mixing *out);

/* The GIG M-step with p held (a fit with fixed p: the hyperbolic law,
 * Protassov 2004): (a, b) with E Y = eta[2] and E 1/Y = eta[1]; at the
 * gamma or inverse-gamma boundary (b = 0 or a = 0) where E Y E 1/Y is
 * beyond every interior GIG of that p; the start where E Y E 1/Y <= 1. */
void ghmix_mstep_mixing_fixed_p(double p, const double eta[3],
                                const double start[3], ghmix_mstep_mixing *out);

#ifdef __cplusplus
}
#endif

#endif
