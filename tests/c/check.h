/* The pass/fail counter of the C tests (test_mixture.c, test_mixture_g.c,
 * test_factor.c): check(ok, fmt, ...) counts one case and prints "FAIL"
 * with the message when ok is 0; the counts are passed and failed.
 * note_worst(name, error, limit) keeps the worst error of each named
 * comparison, and report_worst() prints them ("worst NAME: E (limit L)"),
 * the numbers to compare across platforms (windows.mk).  test_unif() is
 * the tests' uniform generator: the same numbers on every platform (C's
 * rand() is not: RAND_MAX is 32767 on Windows). */
#ifndef GHMIX_TEST_CHECK_H
#define GHMIX_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int passed = 0, failed = 0;

static void check(int ok, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  if (!ok) {
    printf("FAIL ");
    vprintf(fmt, args);
    printf("\n");
  }
  va_end(args);
  if (ok)
    passed++;
  else
    failed++;
}

#define WORST_MAX 16
static struct {
  const char *name;
  double error, limit;
} worst_seen[WORST_MAX];
static int worst_count = 0;

static inline void note_worst(const char *name, double error, double limit) {
  int i;
  for (i = 0; i < worst_count && strcmp(worst_seen[i].name, name) != 0; i++)
    ;
  if (i == worst_count) {
    if (worst_count == WORST_MAX)
      return;
    worst_count++;
    worst_seen[i].name = name;
    worst_seen[i].error = 0;
    worst_seen[i].limit = limit;
  }
  if (!(error <= worst_seen[i].error)) /* NaN is the worst */
    worst_seen[i].error = isnan(error) ? INFINITY : error;
}

static inline void report_worst(void) {
  for (int i = 0; i < worst_count; i++)
    printf("worst %s: %.3g (limit %.3g)\n", worst_seen[i].name,
           worst_seen[i].error, worst_seen[i].limit);
}

/* xorshift64 (Marsaglia 2003), uniform on [lo, hi) */
static unsigned long long test_rng = 88172645463325252ULL;

static inline void test_seed(unsigned long long seed) {
  test_rng = 88172645463325252ULL ^ (seed * 0x9E3779B97F4A7C15ULL);
}

static inline double test_unif(double lo, double hi) {
  test_rng ^= test_rng << 13;
  test_rng ^= test_rng >> 7;
  test_rng ^= test_rng << 17;
  return lo + (hi - lo) * ((double)(test_rng >> 11) / 9007199254740992.0);
}

#endif
