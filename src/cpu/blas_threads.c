/* OpenBLAS's thread control is looked up at run time (dlsym), so nothing
 * changes with another BLAS and nothing links against OpenBLAS. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "blas_threads.h"

#include <stddef.h>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

typedef void (*blas_set_fn)(int);
typedef int (*blas_get_fn)(void);

#ifdef RTLD_DEFAULT
static blas_set_fn openblas_set(void) {
  blas_set_fn f;
  /* POSIX's way to turn dlsym's pointer into a function pointer */
  *(void **)(&f) = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  return f;
}

static blas_get_fn openblas_get(void) {
  blas_get_fn f;
  *(void **)(&f) = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  return f;
}
#endif

int ghmix_blas_threads_single(void) {
#ifdef RTLD_DEFAULT
  blas_set_fn set = openblas_set();
  blas_get_fn get = openblas_get();
  if (set != NULL && get != NULL) {
    int previous = get();
    if (previous > 1) {
      set(1);
      return previous;
    }
  }
#endif
  return 0;
}

void ghmix_blas_threads_restore(int previous) {
#ifdef RTLD_DEFAULT
  blas_set_fn set = openblas_set();
  if (previous > 1 && set != NULL)
    set(previous);
#else
  (void)previous;
#endif
}
