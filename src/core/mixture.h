/* Normal variance-mean mixtures: one observation's E-step and log-density.
 *
 * X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z, Z ~ N(0, I_d), Y ~ GIG(p, a, b)
 * (a = 0 or b = 0: the inverse-gamma and gamma limits, see gig_solve.h).
 * For a row x write Q = (x - mu)' Sigma^-1 (x - mu) and
 * B = (x - mu)' Sigma^-1 gamma.  Then
 *   Y | X = x ~ GIG(q, A, b + Q), q = p - d/2, A = a + gamma' Sigma^-1 gamma,
 *   log f(x) = c(p, a, b) - (d/2) log(2 pi) - (1/2) log det Sigma + B
 *              - c(q, A, b + Q),
 * where c(p, a, b) = (p/2) log(a/b) - log 2 - log K_p(sqrt(ab)) is the log of
 * the GIG normalising constant (p log(a/2) - lgamma(p) in the gamma limit,
 * -p log(b/2) - lgamma(-p) in the inverse-gamma limit).  The integral that
 * gives this is DLMF 10.32.10.
 *
 * Where that sum of terms cancels, log f is evaluated in another form of
 * the same function (ghmix_mix_const.form, mixture.c): near-normal laws
 * (w = sqrt(ab) >= GHMIX_MIX_W_SCALED) with the exponentially scaled log K
 * and omega - w = (a Q + G (b + Q)) / (omega + w), omega = sqrt(A (b + Q)),
 * G = gamma' Sigma^-1 gamma; large orders (p >= GHMIX_MIX_P_LARGE) with
 * the exponents of the uniform expansion differenced in closed form;
 * Student-like laws (A = 0, -p >= GHMIX_MIX_K_LARGE) with lgamma
 * differences from Stirling's series.  Rows whose Q overflows (|x - mu|
 * beyond ~1e154 in units of Sigma) take r = sqrt(Q), computed with a scale
 * (ghmix_mix_norm), instead of Q (ghmix_mix_row_r).
 *
 * The per-row functions are single-source (host and device): the drivers
 * in src/cpu and src/cuda form Q and B for blocks of rows, call
 * ghmix_mix_row_step for each and sum its terms into the statistics of
 * estep.h.  The model they take (ghmix_mix_model) is completed once on the
 * host (ghmix_mix_model_complete) and read-only from then on. */
#ifndef GHMIX_MIXTURE_H
#define GHMIX_MIXTURE_H
#include <math.h>
#include <stddef.h>

#include "bessel.h"
#include "estep.h"
#include "ghmix_hd.h"
#include "status.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The forms of log f (mixture.c), by the parameters: the plain formula
 * above where it keeps its digits, else the one that does. */
#define GHMIX_MIX_W_SCALED 16.0 /* sqrt(ab) from which the scaled form */
#define GHMIX_MIX_P_LARGE 64.0  /* p from which the large-order form */
#define GHMIX_MIX_K_LARGE 16.0  /* -p from which the Student form (A = 0) */
typedef enum {
  GHMIX_MIX_FORM_PLAIN = 0,
  GHMIX_MIX_FORM_SCALED,
  GHMIX_MIX_FORM_ORDER,
  GHMIX_MIX_FORM_STUDENT
} ghmix_mix_form;

/* The row-independent part of the E-step for one parameter set. */
typedef struct {
  double q;          /* p - d/2, the order of the posterior GIG */
  double a_post;     /* A = a + G, G = gamma' Sigma^-1 gamma (+Inf when it
                        overflows; sqrt_a is finite) */
  double sqrt_a;     /* sqrt(A) */
  double log_sqrt_a; /* log sqrt(A) */
  double b;          /* the prior b */
  double log_const;  /* c(p, a, b) - (d/2) log(2 pi) - (1/2) log det Sigma */
  int what;          /* GHMIX_ESTEP_* flags (src/core/estep.h) */
  int form;          /* a ghmix_mix_form */
  int d;
  double p, a, w;     /* the prior p, a and w = sqrt(ab) */
  double gsg, g_norm; /* G (may be +Inf) and sqrt(G) */
  double l1p_g;       /* log(A / a) */
  double form_const;  /* the row-independent part of log f in its form */
  double p_hyp;       /* hypot(p, w) (the large-order form) */
  double dev_scale, log_dev_scale; /* ghmix_mix_dev_scale(a, b), its log */
  double inv_dev_scale;            /* 1 / dev_scale */
} ghmix_mix_const;

/* One row's results.  loglik is log f(x); +Inf when the density is
 * infinite there (b = 0, x = mu, q <= 0: the variance-gamma singularity),
 * and then the moments are +Inf too.  inv_y_dev and y_dev are
 * c E[1/Y | x] - 1 and E[Y | x] / c - 1, c = ghmix_mix_dev_scale(a, b),
 * each with its own relative accuracy when the posterior concentrates at
 * c (near-normal laws), for the NIG M-step (mstep.h). */
typedef struct {
  double loglik;
  double e_inv_y;   /* E[1/Y | x] */
  double e_y;       /* E[Y | x] */
  double e_log_y;   /* E[log Y | x] (only with GHMIX_ESTEP_LOGY) */
  double inv_y_dev; /* c E[1/Y | x] - 1 */
  double y_dev;     /* E[Y | x] / c - 1 */
} ghmix_mix_row_result;

/* The centre c of the deviation statistics: sqrt(b / a), the scale of Y
 * (Y / c ~ GIG(p, sqrt(ab), sqrt(ab))); 1 when a or b is 0. */
GHMIX_HD double ghmix_mix_dev_scale(double a, double b);

/* |z| for z_j = z[j * stride], j < d, scaled as LAPACK's dnrm2 is, so that
 * it is finite whenever |z| is (no z_j^2 overflows or underflows). */
GHMIX_HD double ghmix_mix_norm(int d, const double *z, size_t stride);

/* log of the GIG normalising constant c(p, a, b) (limits included); NaN for
 * invalid parameters (see ghmix_gig_valid). */
GHMIX_HD double ghmix_gig_log_norm(double p, double a, double b);

/* Fills c from the mixture parameters: d, (p, a, b), gSg =
 * gamma' Sigma^-1 gamma and logdet = log det Sigma.  Returns 0 (and leaves
 * c unusable) when (p, a, b) is not a GIG, gSg < 0 or any input is not
 * finite. */
GHMIX_HD int ghmix_mix_const_init(int d, double p, double a, double b,
                                  double gSg, double logdet, int what,
                                  ghmix_mix_const *c);

/* The same with g_norm = sqrt(gamma' Sigma^-1 gamma) besides gSg, for
 * skewness whose square overflows: gSg may then be +Inf (g_norm finite). */
GHMIX_HD int ghmix_mix_const_init_g(int d, double p, double a, double b,
                                    double gSg, double g_norm, double logdet,
                                    int what, ghmix_mix_const *c);

/* One row: Q = (x-mu)' Sigma^-1 (x-mu) >= 0 and B = (x-mu)' Sigma^-1 gamma.
 * Returns 1 when the density is finite and positive, 0 otherwise (the
 * fields then say what happened: +Inf loglik for the singularity, -Inf for
 * an underflowed density).  A NaN Q or B gives a plain NaN in every field,
 * on every backend: no R NA has to survive here, since R/ drops or marks
 * the rows with NA before or after (fit_rows(), dgh_multi()) and the
 * fitters reject them. */
GHMIX_HD int ghmix_mix_row(const ghmix_mix_const *c, double Q, double B,
                           ghmix_mix_row_result *out);

/* The same for a row whose Q overflowed, from r = sqrt(Q) (finite). */
GHMIX_HD int ghmix_mix_row_r(const ghmix_mix_const *c, double r, double B,
                             ghmix_mix_row_result *out);

/* ghmix_mix_row in three steps, for drivers that get the Bessel values
 * elsewhere (src/cpu/bessel_table.h): the argument x = sqrt(A (b + Q)) of
 * the posterior's K_q, with sqrt(b + Q) and log s = log sqrt((b + Q) / A),
 * when the row takes the Bessel path of the plain form (returns 0 for NaN,
 * the gamma / inverse-gamma limits and the other forms: use ghmix_mix_row
 * then); the Bessel flags the row needs; the row from K_q's values at x. */
typedef struct {
  double x, sb, ls;
} ghmix_mix_row_arg_t;
GHMIX_HD int ghmix_mix_row_arg(const ghmix_mix_const *c, double Q,
                               ghmix_mix_row_arg_t *arg);
GHMIX_HD int ghmix_mix_row_bessel_what(const ghmix_mix_const *c);
GHMIX_HD int ghmix_mix_row_finish(const ghmix_mix_const *c, double B,
                                  const ghmix_mix_row_arg_t *arg,
                                  const ghmix_bessel_result *r,
                                  ghmix_mix_row_result *out);
/* ghmix_mix_row_finish for a d = 1 row far out on the heavy side (B >
 * GHMIX_MIX_B_EXACT), where B + log K_q(x) cancels: log f from the scaled
 * log K (bessel.h) and B - x without the cancellation.  Callers branch
 * (ghmix_mix_row_done), so that the common path stays a leaf. */
#define GHMIX_MIX_B_EXACT 1e4
GHMIX_HD int ghmix_mix_row_finish_heavy(const ghmix_mix_const *c, double B,
                                        const ghmix_mix_row_arg_t *arg,
                                        const ghmix_bessel_result *r,
                                        ghmix_mix_row_result *out);
GHMIX_INLINE int ghmix_mix_row_done(const ghmix_mix_const *c, double B,
                                    const ghmix_mix_row_arg_t *arg,
                                    const ghmix_bessel_result *r,
                                    ghmix_mix_row_result *out) {
  if (c->d == 1 && B > GHMIX_MIX_B_EXACT)
    return ghmix_mix_row_finish_heavy(c, B, arg, r, out);
  return ghmix_mix_row_finish(c, B, arg, r, out);
}

/* Rows of d >= 2 far out on the heavy side of a skewed law (B >
 * GHMIX_MIX_B_EXACT), where B - omega cancels as for d = 1 but B^2 < G Q:
 * the drivers, which hold z = L^-1 (x - m) (z_j at z[j * stride]) and g =
 * L^-1 gamma, give such rows (ghmix_mix_row_is_heavy) to ghmix_mix_row_z,
 * which takes B - omega = -(omega^2 - B^2) / (B + omega) with omega^2 -
 * B^2 = a (b + Q) + G b + |g|^2 |z_perp|^2, z_perp = z - (g'z / |g|^2) g
 * (Lagrange's identity: G Q - B^2 = |g|^2 |z_perp|^2, formed from z_perp
 * rather than as a difference).  Q may be +Inf (overflowed; |z| is then
 * taken from z).  ghmix_mix_perp is |z_perp|, g_norm = |g|. */
GHMIX_HD double ghmix_mix_perp(int d, const double *z, size_t stride,
                               const double *g, double g_norm, double B);
GHMIX_HD int ghmix_mix_row_z(const ghmix_mix_const *c, double Q, double B,
                             const double *z, size_t stride, const double *g,
                             ghmix_mix_row_result *out);
/* The same from perp = |z_perp| (Sigma^-1 norm of the part of x - m
 * orthogonal to gamma in that metric) and, where Q = +Inf, r = sqrt(Q):
 * for drivers without z (src/core/factor.c). */
GHMIX_HD int ghmix_mix_row_perp(const ghmix_mix_const *c, double Q, double r,
                                double B, double perp,
                                ghmix_mix_row_result *out);
GHMIX_INLINE int ghmix_mix_row_is_heavy(const ghmix_mix_const *c, double B) {
  return c->d > 1 && B > GHMIX_MIX_B_EXACT;
}

/* ------------------------------------------------------------------------
 * One row of an E-step, for every driver (src/cpu, src/cuda). */

/* What a row adds to the statistics of its component (estep.h), by term:
 * every term is 0 unless the row is accepted, i.e. log f(x), E[1/Y|x] and
 * E[Y|x] are finite and E[1/Y|x] > 0. */
enum {
  GHMIX_TERM_ROWS = 0,  /* 1 for an accepted row: its weight in ROWS,
                           WEIGHT, TAU and U */
  GHMIX_TERM_BAD,       /* 1 for a row that is not accepted */
  GHMIX_TERM_LOGLIK,    /* log f(x) */
  GHMIX_TERM_INV_Y,     /* E[1/Y|x]: also the weight of INV_Y_U, INV_Y_UU */
  GHMIX_TERM_Y,         /* E[Y|x] */
  GHMIX_TERM_LOG_Y,     /* E[log Y|x] (0 without GHMIX_ESTEP_LOGY) */
  GHMIX_TERM_INV_Y_DEV, /* c E[1/Y|x] - 1 (ghmix_mix_row_result) */
  GHMIX_TERM_Y_DEV,     /* E[Y|x] / c - 1 */
  GHMIX_TERM_WEIGHT,    /* w_i for an accepted row (1 without weights): its
                           weight in WEIGHT, TAU and U */
  GHMIX_TERM_COUNT
};
typedef struct {
  double v[GHMIX_TERM_COUNT];
} ghmix_mix_terms;

/* The four functions below are inline (the drivers call them once per
 * row, in their innermost loops). */

/* The term that the scalar statistic id (GHMIX_STAT_ROWS to
 * GHMIX_STAT_LOG_Y, the statistics of length 1) sums over the rows. */
GHMIX_INLINE int ghmix_mix_term_of(ghmix_stat_id id) {
  switch (id) {
  case GHMIX_STAT_BAD:
    return GHMIX_TERM_BAD;
  case GHMIX_STAT_LOGLIK:
    return GHMIX_TERM_LOGLIK;
  case GHMIX_STAT_INV_Y:
    return GHMIX_TERM_INV_Y;
  case GHMIX_STAT_Y:
    return GHMIX_TERM_Y;
  case GHMIX_STAT_LOG_Y:
    return GHMIX_TERM_LOG_Y;
  case GHMIX_STAT_INV_Y_DEV:
    return GHMIX_TERM_INV_Y_DEV;
  case GHMIX_STAT_Y_DEV:
    return GHMIX_TERM_Y_DEV;
  default: /* ROWS, WEIGHT, TAU: rows without weights, one component */
    return GHMIX_TERM_ROWS;
  }
}

/* The same for rows with weights (GHMIX_ESTEP_WEIGHTS), one component:
 * WEIGHT and TAU sum the weights, ROWS counts the rows. */
GHMIX_INLINE int ghmix_mix_term_of_weighted(ghmix_stat_id id) {
  if (id == GHMIX_STAT_WEIGHT || id == GHMIX_STAT_TAU)
    return GHMIX_TERM_WEIGHT;
  return ghmix_mix_term_of(id);
}

/* The terms of a row's result r, and 1 when it is accepted. */
GHMIX_INLINE int ghmix_mix_row_terms(const ghmix_mix_const *c,
                                     const ghmix_mix_row_result *r,
                                     ghmix_mix_terms *t) {
  int ok = isfinite(r->loglik) && isfinite(r->e_inv_y) && isfinite(r->e_y) &&
           r->e_inv_y > 0;
  t->v[GHMIX_TERM_ROWS] = ok ? 1.0 : 0.0;
  t->v[GHMIX_TERM_BAD] = ok ? 0.0 : 1.0;
  t->v[GHMIX_TERM_LOGLIK] = ok ? r->loglik : 0.0;
  t->v[GHMIX_TERM_INV_Y] = ok ? r->e_inv_y : 0.0;
  t->v[GHMIX_TERM_Y] = ok ? r->e_y : 0.0;
  t->v[GHMIX_TERM_LOG_Y] =
      ok && (c->what & GHMIX_ESTEP_LOGY) ? r->e_log_y : 0.0;
  t->v[GHMIX_TERM_INV_Y_DEV] = ok ? r->inv_y_dev : 0.0;
  t->v[GHMIX_TERM_Y_DEV] = ok ? r->y_dev : 0.0;
  t->v[GHMIX_TERM_WEIGHT] = t->v[GHMIX_TERM_ROWS];
  return ok;
}

/* The terms of a row of weight w >= 0 from those of ghmix_mix_row_terms:
 * each sum's term times w, the row still counted once in ROWS or BAD; a
 * row of weight 0 adds nothing at all (as if it were not there).  Returns
 * 1 when the row is accepted and has w > 0. */
GHMIX_INLINE int ghmix_mix_terms_weight(ghmix_mix_terms *t, double w) {
  int j;
  if (!(w > 0)) {
    for (j = 0; j < GHMIX_TERM_COUNT; j++)
      t->v[j] = 0.0;
    return 0;
  }
  for (j = GHMIX_TERM_LOGLIK; j <= GHMIX_TERM_Y_DEV; j++)
    t->v[j] *= w;
  t->v[GHMIX_TERM_WEIGHT] = t->v[GHMIX_TERM_ROWS] * w;
  return t->v[GHMIX_TERM_ROWS] > 0;
}

/* The row from Q and B (k = NULL: K_q evaluated here; else K_q's values at
 * *arg, with ghmix_mix_row_arg(c, Q, arg) true and B not NaN), its terms,
 * and 1 when it is accepted. */
GHMIX_INLINE int ghmix_mix_row_step(const ghmix_mix_const *c, double Q,
                                    double B, const ghmix_mix_row_arg_t *arg,
                                    const ghmix_bessel_result *k,
                                    ghmix_mix_row_result *r,
                                    ghmix_mix_terms *t) {
  if (k != NULL)
    ghmix_mix_row_done(c, B, arg, k, r);
  else
    ghmix_mix_row(c, Q, B, r);
  return ghmix_mix_row_terms(c, r, t);
}

/* The same for a row whose Q overflowed (r = sqrt(Q), ghmix_mix_row_r). */
GHMIX_INLINE int ghmix_mix_row_step_r(const ghmix_mix_const *c, double r,
                                      double B, ghmix_mix_row_result *res,
                                      ghmix_mix_terms *t) {
  ghmix_mix_row_r(c, r, B, res);
  return ghmix_mix_row_terms(c, res, t);
}

/* The same for a heavy row of d >= 2 (ghmix_mix_row_z). */
GHMIX_INLINE int ghmix_mix_row_step_z(const ghmix_mix_const *c, double Q,
                                      double B, const double *z, size_t stride,
                                      const double *g,
                                      ghmix_mix_row_result *res,
                                      ghmix_mix_terms *t) {
  ghmix_mix_row_z(c, Q, B, z, stride, g, res);
  return ghmix_mix_row_terms(c, res, t);
}

/* acc += t, term by term (written out: the drivers' running sums stay in
 * registers). */
GHMIX_INLINE void ghmix_mix_terms_add(ghmix_mix_terms *acc,
                                      const ghmix_mix_terms *t) {
  acc->v[GHMIX_TERM_ROWS] += t->v[GHMIX_TERM_ROWS];
  acc->v[GHMIX_TERM_BAD] += t->v[GHMIX_TERM_BAD];
  acc->v[GHMIX_TERM_LOGLIK] += t->v[GHMIX_TERM_LOGLIK];
  acc->v[GHMIX_TERM_INV_Y] += t->v[GHMIX_TERM_INV_Y];
  acc->v[GHMIX_TERM_Y] += t->v[GHMIX_TERM_Y];
  acc->v[GHMIX_TERM_LOG_Y] += t->v[GHMIX_TERM_LOG_Y];
  acc->v[GHMIX_TERM_INV_Y_DEV] += t->v[GHMIX_TERM_INV_Y_DEV];
  acc->v[GHMIX_TERM_Y_DEV] += t->v[GHMIX_TERM_Y_DEV];
  acc->v[GHMIX_TERM_WEIGHT] += t->v[GHMIX_TERM_WEIGHT];
}

/* The columns of the E-step's per-row output (n x GHMIX_ROW_COUNT,
 * column-major); the values are the codes R reads (ffi_codes). */
enum {
  GHMIX_ROW_LOGLIK = 0, /* log f(x) */
  GHMIX_ROW_INV_Y,      /* E[1/Y|x] */
  GHMIX_ROW_Y,          /* E[Y|x] */
  GHMIX_ROW_LOG_Y,      /* E[log Y|x] (NaN without GHMIX_ESTEP_LOGY) */
  GHMIX_ROW_COUNT
};

/* Row i of that output. */
GHMIX_INLINE void ghmix_mix_row_store(const ghmix_mix_const *c,
                                      const ghmix_mix_row_result *r, size_t i,
                                      size_t n, double *rows) {
  rows[GHMIX_ROW_LOGLIK * n + i] = r->loglik;
  rows[GHMIX_ROW_INV_Y * n + i] = r->e_inv_y;
  rows[GHMIX_ROW_Y * n + i] = r->e_y;
  rows[GHMIX_ROW_LOG_Y * n + i] =
      (c->what & GHMIX_ESTEP_LOGY) ? r->e_log_y : (double)NAN;
}

/* ------------------------------------------------------------------------
 * The model an E-step takes (the shape of estep.h and its parameters). */

/* Component k.  The caller fills everything but c; Sigma = L L' with L the
 * lower Cholesky factor (GHMIX_COV_FULL). */
typedef struct {
  const double *center; /* m_k (d), the centre the statistics are taken at */
  const double *chol;   /* L (d x d, column-major, upper triangle ignored) */
  const double *g;      /* L^-1 gamma_k (d) */
  double p, a, b;       /* the mixing GIG(p, a, b) */
  double gsg, logdet;   /* gamma' Sigma^-1 gamma and log det Sigma */
  double log_prop;      /* log pi_k (0 for G = 1) */
  ghmix_mix_const c;    /* set by ghmix_mix_model_complete */
} ghmix_mix_component;

typedef struct {
  ghmix_estep_shape shape;
  ghmix_mix_component *comp; /* shape.components of them */
  const double *weights;     /* the rows' weights with GHMIX_ESTEP_WEIGHTS */
  int complete;              /* set by ghmix_mix_model_complete */
} ghmix_mix_model;

/* Host only (not compiled for the device). */

/* g = L^-1 gamma (forward substitution), gamma' Sigma^-1 gamma = |g|^2 and
 * log det Sigma = 2 sum log L_jj, for a d x d lower Cholesky factor L:
 * the E-step's row-independent inputs, computed here and nowhere else
 * (gamma' Sigma^-1 gamma is +Inf when it overflows: the model takes |g| from
 * g then). */
void ghmix_mix_chol_consts(int d, const double *chol, const double *gamma,
                           double *g, double *gsg, double *logdet);

/* Completes m once, before any E-step (and so before any parallel region):
 * checks the shape and fills every component's constants.  GHMIX_OK, or
 * GHMIX_ERR_DOMAIN (m->complete = 0) for an invalid shape or component. */
ghmix_status ghmix_mix_model_complete(ghmix_mix_model *m, ghmix_error *err);

/* What the E-step drivers ask of a model before they start: completed,
 * valid, of dimension d, and a shape they implement.  ghmix_mix_model_check
 * for the one-component drivers (today: one component, a full Sigma, with or
 * without weights); ghmix_mix_model_check_g for those of G >= 1 components
 * (mixture_g.h: at most GHMIX_MAX_COMPONENTS, a full Sigma, with or without
 * weights).  GHMIX_OK or GHMIX_ERR_DOMAIN. */
ghmix_status ghmix_mix_model_check(const ghmix_mix_model *m, int d,
                                   ghmix_error *err);
ghmix_status ghmix_mix_model_check_g(const ghmix_mix_model *m, int d,
                                     ghmix_error *err);

#ifdef __cplusplus
}
#endif
#endif
