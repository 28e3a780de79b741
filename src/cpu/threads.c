#include "threads.h"

#include "pool.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define GHMIX_HAVE_ATFORK 1
#endif

/* Set in a child forked from this process, which then runs on one thread
 * (as data.table does): fork() copies the calling thread only, so ghmix's
 * workers (pool.c) are not in the child, and neither are those of GNU
 * OpenMP, whose next parallel region in the child would hang (R itself
 * links libgomp).  The handler cannot be unregistered: it stays for
 * the life of the process, as ghmix's library does (it is never unloaded:
 * no .onUnload calls library.dynam.unload()).  Windows has no fork()
 * (parallel's clusters there start fresh R processes): no handler, and
 * the flag stays 0. */
static volatile int in_forked_child = 0;

#ifdef GHMIX_HAVE_ATFORK
static void mark_forked_child(void) {
  in_forked_child = 1;
  ghmix_pool_forget();
}
#endif

void ghmix_threads_init(void) {
#ifdef GHMIX_HAVE_ATFORK
  static int registered = 0;
  if (!registered && pthread_atfork(NULL, NULL, mark_forked_child) == 0)
    registered = 1;
#endif
}

int ghmix_openmp_built(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

int ghmix_openmp_version(void) {
#ifdef _OPENMP
  return (int)_OPENMP;
#else
  return 0;
#endif
}

int ghmix_max_threads(void) {
  if (in_forked_child)
    return 1;
#ifdef _OPENMP
  int n = omp_get_num_procs();
  int limit = omp_get_thread_limit();
  if (limit > 0 && limit < n)
    n = limit;
  return n > 0 ? n : 1;
#else
  return 1;
#endif
}

int ghmix_default_threads(void) {
  int n = ghmix_max_threads();
#ifdef _OPENMP
  int m = omp_get_max_threads();
  if (m > 0 && m < n)
    n = m;
#endif
  return n > 0 ? n : 1;
}

int ghmix_clamp_threads(int threads) {
  int max = ghmix_max_threads();
  if (threads < 1)
    return 1;
  return threads > max ? max : threads;
}
