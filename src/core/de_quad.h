/* The double-exponential quadrature of the GIG and GH distribution
 * functions (Takahasi, H. and Mori, M. (1974), "Double exponential formulas
 * for numerical integration", Publ. RIMS Kyoto Univ. 9:721-741).
 *
 * The integrand has already been mapped to the real line by a
 * double-exponential change of variable (its business: Ooura and Mori's
 * map for a half-line, tanh-sinh for an interval), so the integral is
 * h times the sum of its terms at the nodes v = k h.  The rule walks the
 * nodes of step 1/2 out from v = 0, right then left, until a term is
 * negligible against the running sum (or the walk reaches vright, -vleft),
 * then halves h, reusing every sum, until two successive estimates agree:
 * once the rule converges at its double-exponential rate each halving
 * roughly squares the error, so the error of the latest estimate is about
 * delta^2 / delta_prev, delta the relative change of the last halving
 * (Bailey, Jeyabalan and Li 2005 use the same idea).
 *
 * A node the integrand cannot represent (beyond the doubles) ends a walk:
 * the integrand may then model the terms beyond the walked nodes (`edge`
 * and `beyond`), else the integral is NaN; while refining, such a node is
 * skipped.  Host only (adaptive; called through function pointers). */
#ifndef GHMIX_DE_QUAD_H
#define GHMIX_DE_QUAD_H

#ifdef __cplusplus
extern "C" {
#endif

/* The step of the walks (the first level's). */
#define GHMIX_DE_STEP 0.5

/* Which node the rule asks for (the `phase` of a term). */
typedef enum {
  GHMIX_DE_CENTRE = 0, /* v = 0, first */
  GHMIX_DE_RIGHT = 1,  /* the walk to the right, node by node outward */
  GHMIX_DE_LEFT = -1,  /* the walk to the left, node by node outward */
  GHMIX_DE_REFINE = 2  /* a node between walked ones */
} ghmix_de_phase;

typedef struct {
  /* The term at node v (the integrand times its Jacobian, >= 0, usually
   * relative to a reference value) into *t; returns 0 when v is not
   * representable. */
  int (*term)(void *ctx, double v, ghmix_de_phase phase, double *t);
  /* NULL, or: the walk in direction side (+1, -1) met a node it cannot
   * represent after its last node v_last; returns 0 when the terms beyond
   * cannot be modelled (the integral is then NaN). */
  int (*edge)(void *ctx, int side, double v_last);
  /* NULL, or: the sum of the terms beyond the walked nodes at step h
   * (not multiplied by h), given the sum of the walked ones. */
  double (*beyond)(void *ctx, double h, double walked);
  void *ctx;
  double vright, vleft; /* the walks stop beyond v = vright and v = -vleft */
} ghmix_de_integrand;

/* h times the sum of the terms at the converged step: the integral, or NaN
 * (the term at v = 0 not representable, or an edge that cannot be
 * modelled). */
double ghmix_de_integrate(const ghmix_de_integrand *f);

/* The stopping rule, from the relative changes of the last two halvings
 * (for a second sum over the same nodes, as the first's). */
int ghmix_de_converged(double delta, double delta_prev);

#ifdef __cplusplus
}
#endif

#endif
