/* Tests of the E-step contract's layout (src/core/estep.c) against the
 * block sizes written out from the definition in estep.h: the blocks of
 * every shape tile the statistics vector exactly, in the documented order.
 * Each check is one test case.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "estep.h"

static int passed = 0, failed = 0;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s\n", what);
  }
}

/* The length of block id from estep.h's table, written out here. */
static size_t expected_length(const ghmix_estep_shape *s, int id) {
  size_t d = (size_t)s->d, r = (size_t)s->factors;
  int full = s->cov == GHMIX_COV_FULL;
  switch (id) {
  case GHMIX_STAT_U:
  case GHMIX_STAT_INV_Y_U:
    return d;
  case GHMIX_STAT_INV_Y_UU:
    return full ? d * d : 0;
  case GHMIX_STAT_INV_Y_UU_DIAG:
    return full ? 0 : d;
  case GHMIX_STAT_INV_Y_UU_PROJ:
    return full ? 0 : d * r;
  default:
    return 1;
  }
}

static void check_shape(const ghmix_estep_shape *s, const char *label) {
  char what[128];
  size_t per = 0, total, next = 0;
  int k, id, tiles = 1, names = 1;
  for (id = GHMIX_STAT_TAU; id < GHMIX_STAT_COUNT; id++)
    per += expected_length(s, id);
  total = 4 + (size_t)s->components * per;
  snprintf(what, sizeof what, "%s: component and total counts", label);
  check(ghmix_estep_component_nstats(s) == per &&
            ghmix_estep_nstats(s) == total,
        what);
  /* global blocks first, then each component's in enum order, contiguous */
  for (k = -1; k < s->components; k++)
    for (id = 0; id < GHMIX_STAT_COUNT; id++) {
      ghmix_stat_block b;
      if ((k < 0) != ghmix_stat_is_global((ghmix_stat_id)id))
        continue;
      b = ghmix_estep_stat(s, k < 0 ? 0 : k, (ghmix_stat_id)id);
      if (b.length != expected_length(s, id) ||
          b.length != (size_t)b.rows * (size_t)b.cols ||
          (b.length > 0 && b.offset != next))
        tiles = 0;
      next += b.length;
      if (ghmix_stat_name((ghmix_stat_id)id) == NULL)
        names = 0;
    }
  snprintf(what, sizeof what, "%s: blocks tile the vector in order", label);
  check(tiles && next == total, what);
  snprintf(what, sizeof what, "%s: every block has a name", label);
  check(names, what);
}

int main(void) {
  ghmix_estep_shape s = {3, 1, GHMIX_COV_FULL, 0, GHMIX_ESTEP_MOMENTS};
  ghmix_stat_block b;
  check(ghmix_estep_shape_valid(&s), "full d = 3 is valid");
  check_shape(&s, "full d = 3, G = 1");
  /* the documented offsets of the one-component full model */
  b = ghmix_estep_stat(&s, 0, GHMIX_STAT_INV_Y_UU);
  check(ghmix_estep_nstats(&s) == 4 + 6 + 2 * 3 + 9 && b.offset == 16 &&
            b.rows == 3 && b.cols == 3,
        "full d = 3: 25 statistics, sum w u u' at 16, 3 x 3");
  s.components = 3;
  s.d = 5;
  check_shape(&s, "full d = 5, G = 3");
  b = ghmix_estep_stat(&s, 2, GHMIX_STAT_TAU);
  check(b.offset == 4 + 2 * (6 + 10 + 25), "G = 3: component 3 starts at 86");
  s.cov = GHMIX_COV_FACTOR;
  s.factors = 2;
  check(ghmix_estep_shape_valid(&s), "factor d = 5, r = 2 is valid");
  check_shape(&s, "factor d = 5, r = 2, G = 3");
  b = ghmix_estep_stat(&s, 0, GHMIX_STAT_INV_Y_UU);
  check(b.length == 0, "factor: no d x d block");
  b = ghmix_estep_stat(&s, 0, GHMIX_STAT_INV_Y_UU_PROJ);
  check(b.rows == 5 && b.cols == 2, "factor: S beta' is d x r");
  s.factors = 5;
  check(!ghmix_estep_shape_valid(&s), "r = d is invalid");
  s.factors = -1;
  check(!ghmix_estep_shape_valid(&s), "r < 0 is invalid");
  s.cov = GHMIX_COV_FULL;
  s.factors = 1;
  check(!ghmix_estep_shape_valid(&s), "r > 0 with a full Sigma is invalid");
  s.factors = 0;
  s.what = 64;
  check(!ghmix_estep_shape_valid(&s), "unknown flags are invalid");
  s.what = GHMIX_ESTEP_MOMENTS;
  s.components = 0;
  check(!ghmix_estep_shape_valid(&s), "G = 0 is invalid");
  s.components = 1;
  s.d = 0;
  check(!ghmix_estep_shape_valid(&s), "d = 0 is invalid");
  check(!strcmp(ghmix_family_name(GHMIX_FAMILY_SKEWT), "skewt") &&
            ghmix_family_name(GHMIX_FAMILY_COUNT) == NULL,
        "family names");
  printf("test_estep: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
