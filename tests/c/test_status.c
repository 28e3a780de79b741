/* Tests of src/core/status.c (error struct, status names, interrupt hook).
 * Each check is one test case.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "status.h"

static int passed = 0, failed = 0;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s\n", what);
  }
}

static int hook_calls = 0;
static int hook(void) { return ++hook_calls >= 2; }

int main(void) {
  ghmix_error e;
  ghmix_error_clear(&e);
  check(e.status == GHMIX_OK && e.index == -1 && e.message[0] == '\0', "clear");
  ghmix_status s = ghmix_error_set(&e, GHMIX_ERR_DOMAIN, 7, "x[%d] = %g", 8, -1.5);
  check(s == GHMIX_ERR_DOMAIN && e.status == GHMIX_ERR_DOMAIN && e.index == 7,
        "set returns and stores the status and index");
  check(!strcmp(e.message, "x[8] = -1.5"), "set formats the message");
  char longmsg[2 * GHMIX_MSG_LEN];
  memset(longmsg, 'a', sizeof longmsg - 1);
  longmsg[sizeof longmsg - 1] = '\0';
  ghmix_error_set(&e, GHMIX_ERR_NOMEM, -1, "%s", longmsg);
  check(strlen(e.message) == GHMIX_MSG_LEN - 1, "long messages are truncated");
  int distinct = 1;
  for (int a = GHMIX_OK; a <= GHMIX_ERR_CUDA_FAULT; a++) {
    const char *na = ghmix_status_name((ghmix_status)a);
    if (!na || !*na || !strcmp(na, "unknown")) distinct = 0;
    for (int b = GHMIX_OK; b < a; b++)
      if (!strcmp(na, ghmix_status_name((ghmix_status)b))) distinct = 0;
  }
  check(distinct, "every status has its own name");
  check(ghmix_check_interrupt() == 0, "no hook: no interrupt");
  ghmix_set_interrupt_hook(hook);
  int first = ghmix_check_interrupt(), second = ghmix_check_interrupt();
  check(first == 0 && second != 0 && hook_calls == 2, "hook is called");
  ghmix_set_interrupt_hook(NULL);
  check(ghmix_check_interrupt() == 0, "hook can be removed");
  printf("test_status: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
