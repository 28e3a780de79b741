#include "threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

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
