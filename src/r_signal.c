/* The signal glue of the cluster transport (R/cluster.R): SIGINT held in
 * the calling thread while a request is written, and the nap between two
 * polls of a socket, which ends with R's interrupt check.
 *
 * On Windows there is no signal to hold: R for Windows takes Ctrl-C
 * (Rterm) or Esc (Rgui) as a flag that its event loop reads when R checks
 * for interrupts (R_CheckUserInterrupt(), R_ProcessEvents(), which honour
 * suspendInterrupts()), never as a signal that cuts a system call short
 * or runs a handler on another thread; ffi_sigint_hold() does nothing
 * there and answers FALSE (not held before). */
#ifndef _WIN32
#include <pthread.h>
#include <signal.h>
#endif

#include "cpu/nap.h"
#include "r_ffi.h"

SEXP ffi_sigint_hold(SEXP hold) {
  int on = ghmix_r_flag(hold, "hold");
#ifdef _WIN32
  (void)on;
  return Rf_ScalarLogical(FALSE);
#else
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  if (pthread_sigmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, &old) != 0)
    Rf_error("internal error: pthread_sigmask() failed");
  return Rf_ScalarLogical(sigismember(&old, SIGINT) == 1);
#endif
}

SEXP ffi_nap(SEXP microseconds) {
  /* a signal ends the nap early (EINTR): the check below sees it */
  ghmix_nap(ghmix_r_int(microseconds, "microseconds", 0, 100000));
  R_CheckUserInterrupt();
  return R_NilValue;
}
