/* The platform pieces of src/cpu, on Linux and, built for Windows
 * (windows.mk), under Wine: ghmix_nap() sleeps about as long as asked;
 * ghmix_blas_threads_single() and _restore() find OpenBLAS's thread
 * control where R's BLAS is (a stand-in, blas_stub.c: in this program on
 * Unix-alikes, Rblas.dll on Windows), set it to one thread and back, and
 * leave another BLAS alone; the thread counts are sane.  Each check is one
 * test case; ends with "N passed, M failed". */
#ifdef _WIN32
#include <windows.h>
#elif !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime() under -std=c99 */
#endif

#include <stdio.h>
#include <time.h>

#include "../../src/cpu/blas_threads.h"
#include "../../src/cpu/nap.h"
#include "../../src/cpu/threads.h"
#include "check.h"

static double now_seconds(void) {
#ifdef _WIN32
  LARGE_INTEGER t, f;
  QueryPerformanceCounter(&t);
  QueryPerformanceFrequency(&f);
  return (double)t.QuadPart / (double)f.QuadPart;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

/* (no upper bound: a loaded machine may sleep longer) */
static void test_nap(void) {
  static const int us[] = {0, 50, 1000, 20000};
  for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
    double t0 = now_seconds(), took;
    ghmix_nap(us[i]);
    took = now_seconds() - t0;
    check(took >= 0.5e-6 * us[i], "nap of %d us took %.0f us (at least half)",
          us[i], 1e6 * took);
  }
}

#ifdef _WIN32
typedef int (*get_fn)(void);
static int stub_get(void) {
  HMODULE blas = GetModuleHandleA("Rblas.dll");
  get_fn get = blas == NULL ? NULL
                            : (get_fn)(void (*)(void))GetProcAddress(
                                  blas, "openblas_get_num_threads");
  return get == NULL ? -1 : get();
}
#else
int openblas_get_num_threads(void);
static int stub_get(void) { return openblas_get_num_threads(); }
#endif

static void test_blas_threads(void) {
  int previous;
#ifdef _WIN32
  check(ghmix_blas_threads_single() == 0,
        "BLAS threads: nothing to change without Rblas.dll");
  check(LoadLibraryA("Rblas.dll") != NULL, "BLAS threads: load Rblas.dll");
#endif
  previous = ghmix_blas_threads_single();
  check(previous == 4 && stub_get() == 1,
        "BLAS threads: 4 set to 1 (returned %d, now %d)", previous, stub_get());
  check(ghmix_blas_threads_single() == 0 && stub_get() == 1,
        "BLAS threads: nothing to change at 1");
  ghmix_blas_threads_restore(previous);
  check(stub_get() == 4, "BLAS threads: 4 again (now %d)", stub_get());
  ghmix_blas_threads_restore(0);
  check(stub_get() == 4, "BLAS threads: restore(0) changes nothing");
}

static void test_thread_counts(void) {
  int max = ghmix_max_threads(), def = ghmix_default_threads();
  ghmix_threads_init();
  check(max >= 1 && def >= 1 && def <= max,
        "threads: 1 <= default (%d) <= max (%d)", def, max);
  check(ghmix_clamp_threads(0) == 1 && ghmix_clamp_threads(max + 5) == max &&
            ghmix_clamp_threads(1) == 1,
        "threads: clamped to [1, max]");
}

int main(void) {
  test_nap();
  test_blas_threads();
  test_thread_counts();
  printf("test_platform: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
