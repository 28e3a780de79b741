/* log K_nu(x), its neighbour ratios and d/dnu log K_nu(x) at one fixed
 * order as piecewise Chebyshev interpolants in t = log x, for an E-step:
 * every row of an E-step needs K at the same order q = p - d/2 and its own
 * x, so a table built from a few hundred exact evaluations serves all rows.
 *
 * The functions are analytic in t in the strip |Im t| < pi/2 (K_nu(z) has
 * no zeros or singularities for |arg z| < pi/2), so on panels of width 1/8
 * the Chebyshev coefficients fall like rho^-k with rho near 50 (Bernstein
 * ellipse): 16 points and 10 coefficients per panel resolve them, and the
 * rounding noise of the exact values (about 1e-15) is what remains.  The
 * table is not trusted on that argument alone: it is built only if, at
 * points between the nodes and at the ends of every panel, it agrees with
 * the exact kernel to 1e-14 relative (ghmix_bessel_table_build returns 0
 * otherwise, and the caller evaluates every row exactly).  Against 40-digit
 * mpmath its values are within about 5e-15, the exact kernel's within
 * 2e-15. */
#ifndef GHMIX_BESSEL_TABLE_H
#define GHMIX_BESSEL_TABLE_H

#include "../core/bessel.h"

typedef struct {
  double nu;
  int what;     /* GHMIX_BESSEL_RATIOS and/or GHMIX_BESSEL_GRAD */
  double t_lo;  /* log x at the left end of panel 0 */
  double inv_w; /* 1 / panel width */
  int npanel;
  int nfun;        /* functions per panel: log K + x, ratios, dnu */
  double *coef;    /* npanel x nfun Chebyshev series (bessel_table.c) */
  double *cosines; /* the nodes' and the transform's (bessel_table.c) */
} ghmix_bessel_table;

/* Builds the table for nu and what over x in [x_lo, x_hi] (0 < x_lo <=
 * x_hi finite).  Returns 1 when built and verified, 0 otherwise (nothing
 * to free then). */
int ghmix_bessel_table_build(double nu, int what, double x_lo, double x_hi,
                             ghmix_bessel_table *tab);

/* The build in steps, for callers that build panels on several threads:
 * ghmix_bessel_table_init sets up the table (1, or 0 with nothing to
 * free); ghmix_bessel_table_panel fills and verifies panel p (1, or 0:
 * the table must not be used), each panel independently of the others
 * and with the same values as ghmix_bessel_table_build; then
 * ghmix_bessel_table_free. */
int ghmix_bessel_table_init(double nu, int what, double x_lo, double x_hi,
                            ghmix_bessel_table *tab);
int ghmix_bessel_table_panel(ghmix_bessel_table *tab, int p);

/* The fields of res that tab->what asks for, at x with log x = t; x must
 * lie in the table's range. */
void ghmix_bessel_table_eval(const ghmix_bessel_table *tab, double x, double t,
                             ghmix_bessel_result *res);

/* ghmix_bessel_table_eval at the n points x[i] (log x[i] = t[i]) into
 * res[i], with the same values, faster than one call per point. */
void ghmix_bessel_table_eval_n(const ghmix_bessel_table *tab, int n,
                               const double *x, const double *t,
                               ghmix_bessel_result *res);

void ghmix_bessel_table_free(ghmix_bessel_table *tab);

#endif
