/* The pass/fail counter of the C tests (test_mixture.c, test_mixture_g.c,
 * test_factor.c): check(ok, fmt, ...) counts one case and prints "FAIL"
 * with the message when ok is 0; the counts are passed and failed. */
#ifndef GHMIX_TEST_CHECK_H
#define GHMIX_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

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

#endif
