/* The E-step contract: what an E-step works on and what it returns.
 *
 * An E-step maps a block of rows and the parameters of a model to additive
 * sufficient statistics: sums over the rows that can be computed anywhere
 * (threads, a GPU, other machines, chunks read from disk) and added.  Every
 * driver (src/cpu, src/cuda), the R glue and the R code that decodes the
 * statistics take their layout from here, and only from here.
 *
 * The model (normal variance-mean mixtures, see mixture.h): G >= 1
 * components, component k with mixing proportion pi_k and
 *   X = mu_k + Y gamma_k + sqrt(Y) Sigma_k^(1/2) Z,  Y ~ GIG(p_k, a_k, b_k),
 * optional non-negative row weights w_i, and Sigma_k given either by its
 * lower Cholesky factor (GHMIX_COV_FULL) or as F F' + diag(D) with F d x r
 * (GHMIX_COV_FACTOR, whose E-step works with O(d r) per row and returns
 * O(d r) statistics instead of the d x d scatter).
 *
 * Statistics, with u = x - m_k (m_k the centre the caller passes for
 * component k, usually the current mu_k), tau_ik the posterior membership
 * of row i in component k (1 when G = 1) and v_ik = w_i tau_ik (w_i = 1
 * without weights), are the blocks of ghmix_stat_id, laid out as
 * ghmix_estep_stat() says: first the blocks of the whole model, then those
 * of each component in turn.  Rows whose density is not finite and positive
 * (the variance-gamma singularity, underflow, NaN) are counted in
 * GHMIX_STAT_BAD and left out of every other sum. */
#ifndef GHMIX_ESTEP_H
#define GHMIX_ESTEP_H

#include <stddef.h>

#include "ghmix_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mixing family of a component.  The values are the codes R reads
 * (ffi_codes); they never change meaning. */
typedef enum {
  GHMIX_FAMILY_GH = 0,    /* p, a, b free */
  GHMIX_FAMILY_NIG = 1,   /* p = -1/2 */
  GHMIX_FAMILY_VG = 2,    /* b = 0: gamma mixing */
  GHMIX_FAMILY_SKEWT = 3, /* a = 0: inverse-gamma mixing */
  GHMIX_FAMILY_COUNT = 4
} ghmix_family;

/* How Sigma of a component is given. */
typedef enum {
  GHMIX_COV_FULL = 0,   /* the lower Cholesky factor L, Sigma = L L' */
  GHMIX_COV_FACTOR = 1, /* F (d x r) and D (d): Sigma = F F' + diag(D) */
  GHMIX_COV_COUNT = 2
} ghmix_cov_kind;

/* What an E-step computes (bit flags). */
enum {
  GHMIX_ESTEP_MOMENTS = 1, /* E[1/Y | x], E[Y | x]: always computed */
  GHMIX_ESTEP_LOGY = 2,    /* E[log Y | x] (needs d/dnu log K) */
  GHMIX_ESTEP_WEIGHTS = 4  /* the rows carry weights w_i */
};

/* The shape of a model: everything the layout depends on. */
typedef struct {
  int d;          /* dimension, >= 1 */
  int components; /* G, >= 1 */
  int cov;        /* a ghmix_cov_kind */
  int factors;    /* r, 0 <= r < d, for GHMIX_COV_FACTOR; 0 otherwise */
  int what;       /* GHMIX_ESTEP_* flags */
} ghmix_estep_shape;

/* The statistics: blocks of the whole model, then blocks of one component
 * (repeated for each).  Lengths in brackets. */
typedef enum {
  /* the whole model */
  GHMIX_STAT_ROWS = 0, /* [1] rows in the sums */
  GHMIX_STAT_WEIGHT,   /* [1] sum w_i over those rows (= ROWS without
                          weights) */
  GHMIX_STAT_LOGLIK,   /* [1] sum w_i log f(x_i), f the mixture density */
  GHMIX_STAT_BAD,      /* [1] rows left out: f(x_i) not finite and > 0 */
  /* each component k */
  GHMIX_STAT_TAU,   /* [1] sum v_ik */
  GHMIX_STAT_INV_Y, /* [1] sum v_ik E[1/Y | x_i, k] */
  GHMIX_STAT_Y,     /* [1] sum v_ik E[Y | x_i, k] */
  GHMIX_STAT_LOG_Y, /* [1] sum v_ik E[log Y | x_i, k] (0 without
                       GHMIX_ESTEP_LOGY) */
  /* [1] sum v_ik (c_k E[1/Y | x_i, k] - 1) and [1] sum v_ik (E[Y | x_i, k] /
   * c_k - 1), c_k = sqrt(b_k / a_k) (1 when a_k or b_k is 0), each term
   * with its own relative accuracy (mixture.h): the NIG M-step's input
   * where E 1/Y E Y - 1 is below the rounding of its factors */
  GHMIX_STAT_INV_Y_DEV,
  GHMIX_STAT_Y_DEV,
  GHMIX_STAT_U,       /* [d] sum v_ik u */
  GHMIX_STAT_INV_Y_U, /* [d] sum v_ik E[1/Y | x_i, k] u */
  /* GHMIX_COV_FULL: [d x d, column-major, both triangles]
   * sum v_ik E[1/Y | x_i, k] u u' */
  GHMIX_STAT_INV_Y_UU,
  /* GHMIX_COV_FACTOR: [d] the diagonal of that sum, and [d x r] that sum
   * times the component's projection matrix (the M-step's S beta') */
  GHMIX_STAT_INV_Y_UU_DIAG,
  GHMIX_STAT_INV_Y_UU_PROJ,
  GHMIX_STAT_COUNT
} ghmix_stat_id;

/* The blocks ROWS to Y_DEV have length 1 (the scalar statistics of the
 * model and of each component); the others are vectors or matrices. */
#define GHMIX_STAT_NSCALAR ((int)GHMIX_STAT_Y_DEV + 1)

/* Where a block lies in the statistics vector.  length 0: the block is
 * not part of this shape (e.g. INV_Y_UU of a factor model). */
typedef struct {
  size_t offset, length;
  int rows, cols; /* the block as a matrix (rows x cols = length) */
} ghmix_stat_block;

/* 1 when the shape is one the layout is defined for (d >= 1, G >= 1, a
 * known cov kind, 0 <= r < d for factor models and r = 0 otherwise, no
 * unknown flags), else 0. */
GHMIX_HD int ghmix_estep_shape_valid(const ghmix_estep_shape *s);

/* Doubles in the statistics of one component, and in all of them. */
GHMIX_HD size_t ghmix_estep_component_nstats(const ghmix_estep_shape *s);
GHMIX_HD size_t ghmix_estep_nstats(const ghmix_estep_shape *s);

/* The block `id` of component k (0-based; ignored for the blocks of the
 * whole model).  A valid shape and id are the caller's promise. */
GHMIX_HD ghmix_stat_block ghmix_estep_stat(const ghmix_estep_shape *s, int k,
                                           ghmix_stat_id id);

/* 1 for the blocks of the whole model (ROWS, WEIGHT, LOGLIK, BAD). */
GHMIX_HD int ghmix_stat_is_global(ghmix_stat_id id);

/* Host only (not compiled for the device). */

/* The snake_case name of a block ("rows", "inv_y_uu", ...), which is the
 * name R decodes by; NULL for an unknown id. */
const char *ghmix_stat_name(ghmix_stat_id id);

/* The snake_case name of a family ("gh", "nig", "vg", "skewt") and of a
 * cov kind ("full", "factor"); NULL when unknown. */
const char *ghmix_family_name(int family);
const char *ghmix_cov_name(int cov);

#ifdef __cplusplus
}
#endif

#endif
