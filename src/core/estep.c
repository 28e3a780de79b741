#include "estep.h"

#define ESTEP_KNOWN_FLAGS                                                      \
  (GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY | GHMIX_ESTEP_WEIGHTS)

GHMIX_HD int ghmix_estep_shape_valid(const ghmix_estep_shape *s) {
  if (s->d < 1 || s->components < 1 || (s->what & ~ESTEP_KNOWN_FLAGS) != 0)
    return 0;
  if (s->cov == GHMIX_COV_FULL)
    return s->factors == 0;
  if (s->cov == GHMIX_COV_FACTOR)
    return s->factors >= 0 && s->factors < s->d;
  return 0;
}

GHMIX_HD int ghmix_stat_is_global(ghmix_stat_id id) {
  return id >= GHMIX_STAT_ROWS && id <= GHMIX_STAT_BAD;
}

/* Rows and columns of block id as a matrix; 0 x 0 when the shape has no
 * such block. */
GHMIX_INLINE void estep_block_dims(const ghmix_estep_shape *s, ghmix_stat_id id,
                                   int *rows, int *cols) {
  const int full = s->cov == GHMIX_COV_FULL;
  *rows = *cols = 1;
  switch (id) {
  case GHMIX_STAT_U:
  case GHMIX_STAT_INV_Y_U:
    *rows = s->d;
    break;
  case GHMIX_STAT_INV_Y_UU:
    *rows = *cols = full ? s->d : 0;
    break;
  case GHMIX_STAT_INV_Y_UU_DIAG:
    *rows = full ? 0 : s->d;
    *cols = full ? 0 : 1;
    break;
  case GHMIX_STAT_INV_Y_UU_PROJ:
    *rows = full ? 0 : s->d;
    *cols = full ? 0 : s->factors;
    break;
  default:
    break;
  }
}

GHMIX_INLINE size_t estep_block_length(const ghmix_estep_shape *s,
                                       ghmix_stat_id id) {
  int rows, cols;
  estep_block_dims(s, id, &rows, &cols);
  return (size_t)rows * (size_t)cols;
}

GHMIX_HD size_t ghmix_estep_component_nstats(const ghmix_estep_shape *s) {
  size_t n = 0;
  int id;
  for (id = GHMIX_STAT_TAU; id < GHMIX_STAT_COUNT; id++)
    n += estep_block_length(s, (ghmix_stat_id)id);
  return n;
}

GHMIX_HD size_t ghmix_estep_nstats(const ghmix_estep_shape *s) {
  return (size_t)(GHMIX_STAT_BAD + 1) +
         (size_t)s->components * ghmix_estep_component_nstats(s);
}

GHMIX_HD ghmix_stat_block ghmix_estep_stat(const ghmix_estep_shape *s, int k,
                                           ghmix_stat_id id) {
  ghmix_stat_block blk;
  int i;
  estep_block_dims(s, id, &blk.rows, &blk.cols);
  blk.length = (size_t)blk.rows * (size_t)blk.cols;
  if (ghmix_stat_is_global(id)) {
    blk.offset = (size_t)id;
    return blk;
  }
  blk.offset = (size_t)(GHMIX_STAT_BAD + 1) +
               (size_t)k * ghmix_estep_component_nstats(s);
  for (i = GHMIX_STAT_TAU; i < (int)id; i++)
    blk.offset += estep_block_length(s, (ghmix_stat_id)i);
  return blk;
}

#ifndef GHMIX_CUDA_UNITY /* host only: names for the R glue and tests */

const char *ghmix_stat_name(ghmix_stat_id id) {
  switch (id) {
  case GHMIX_STAT_ROWS:
    return "rows";
  case GHMIX_STAT_WEIGHT:
    return "weight";
  case GHMIX_STAT_LOGLIK:
    return "loglik";
  case GHMIX_STAT_BAD:
    return "bad";
  case GHMIX_STAT_TAU:
    return "tau";
  case GHMIX_STAT_INV_Y:
    return "inv_y";
  case GHMIX_STAT_Y:
    return "y";
  case GHMIX_STAT_LOG_Y:
    return "log_y";
  case GHMIX_STAT_INV_Y_DEV:
    return "inv_y_dev";
  case GHMIX_STAT_Y_DEV:
    return "y_dev";
  case GHMIX_STAT_U:
    return "u";
  case GHMIX_STAT_INV_Y_U:
    return "inv_y_u";
  case GHMIX_STAT_INV_Y_UU:
    return "inv_y_uu";
  case GHMIX_STAT_INV_Y_UU_DIAG:
    return "inv_y_uu_diag";
  case GHMIX_STAT_INV_Y_UU_PROJ:
    return "inv_y_uu_proj";
  default:
    return NULL;
  }
}

const char *ghmix_family_name(int family) {
  static const char *const names[GHMIX_FAMILY_COUNT] = {"gh", "nig", "vg",
                                                        "skewt"};
  return family >= 0 && family < GHMIX_FAMILY_COUNT ? names[family] : NULL;
}

const char *ghmix_cov_name(int cov) {
  static const char *const names[GHMIX_COV_COUNT] = {"full", "factor"};
  return cov >= 0 && cov < GHMIX_COV_COUNT ? names[cov] : NULL;
}

#endif
