/* The signal glue of the cluster transport (R/cluster.R): SIGINT held in
 * the calling thread while a request is written, and the nap between two
 * polls of a socket, which ends with R's interrupt check. */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "r_ffi.h"

SEXP ffi_sigint_hold(SEXP hold) {
  int on = ghmix_r_flag(hold, "hold");
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  if (pthread_sigmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, &old) != 0)
    Rf_error("internal error: pthread_sigmask() failed");
  return Rf_ScalarLogical(sigismember(&old, SIGINT) == 1);
}

SEXP ffi_nap(SEXP microseconds) {
  int us = ghmix_r_int(microseconds, "microseconds", 0, 100000);
  struct timespec ts = {0, 1000L * us};
  /* a signal ends the sleep early (EINTR): the check below sees it */
  nanosleep(&ts, NULL);
  R_CheckUserInterrupt();
  return R_NilValue;
}
