/* OpenBLAS's thread control is looked up at run time, so nothing changes
 * with another BLAS and nothing links against OpenBLAS: on Unix-alikes by
 * dlsym() over the process's libraries, on Windows in Rblas.dll, the BLAS
 * R for Windows calls (which users may replace by an OpenBLAS build). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "blas_threads.h"

#include <stddef.h>

#if defined(_WIN32)
#include <windows.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

typedef void (*any_fn)(void);
typedef void (*blas_set_fn)(int);
typedef int (*blas_get_fn)(void);

/* The function `name` of the BLAS R calls, or NULL. */
static any_fn blas_function(const char *name) {
#if defined(_WIN32)
  HMODULE blas = GetModuleHandleA("Rblas.dll");
  return blas == NULL ? NULL : (any_fn)GetProcAddress(blas, name);
#elif defined(RTLD_DEFAULT)
  any_fn f;
  /* POSIX's way to turn dlsym's pointer into a function pointer */
  *(void **)(&f) = dlsym(RTLD_DEFAULT, name);
  return f;
#else
  (void)name;
  return NULL;
#endif
}

static blas_set_fn openblas_set(void) {
  return (blas_set_fn)blas_function("openblas_set_num_threads");
}

static blas_get_fn openblas_get(void) {
  return (blas_get_fn)blas_function("openblas_get_num_threads");
}

int ghmix_blas_threads_single(void) {
  blas_set_fn set = openblas_set();
  blas_get_fn get = openblas_get();
  if (set != NULL && get != NULL) {
    int previous = get();
    if (previous > 1) {
      set(1);
      return previous;
    }
  }
  return 0;
}

void ghmix_blas_threads_restore(int previous) {
  blas_set_fn set = openblas_set();
  if (previous > 1 && set != NULL)
    set(previous);
}
