/* The platform pieces of src/cpu, on Linux and, built for Windows
 * (windows.mk), under Wine: ghmix_nap() sleeps about as long as asked;
 * ghmix_blas_threads_single() and _restore() find OpenBLAS's thread
 * control where R's BLAS is (a stand-in, blas_stub.c: in this program on
 * Unix-alikes, Rblas.dll on Windows), set it to one thread and back, and
 * leave another BLAS alone; the thread counts are sane; the pool's
 * threads (pool.c) do every unit of a job exactly once, on thread numbers
 * below the count asked for, job after job, and a job started from inside
 * a job runs on its caller.  Each check is one
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
#include "../../src/cpu/pool.h"
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

/* A job over `n` counters: each unit adds 1 to its elements and records
 * the thread number; `nested`: each unit also runs a job of 2 threads
 * over a second set of counters. */
typedef struct {
  int *hits, *inner_hits;
  int bad_thread, threads, nested;
} count_job;

static void count_inner(const void *job, size_t lo, size_t hi, int thread) {
  const count_job *j = (const count_job *)job;
  size_t i;
  (void)thread;
  for (i = lo; i < hi; i++)
    j->inner_hits[i]++;
}

static void count_unit(const void *job, size_t lo, size_t hi, int thread) {
  count_job *j = (count_job *)job;
  size_t i;
  if (thread < 0 || thread >= j->threads)
    j->bad_thread = 1; /* (any thread may write the same 1) */
  for (i = lo; i < hi; i++)
    j->hits[i]++;
  if (j->nested)
    ghmix_parallel_for(lo, hi, 3, 2, count_inner, job);
}

/* hits[i] == 1 for every i < n (and inner_hits when nested). */
static int count_once(int threads, size_t n, size_t unit, int nested) {
  static int hits[100000], inner[100000];
  count_job j = {hits, inner, 0, threads, nested};
  size_t i;
  int ok = 1;
  for (i = 0; i < n; i++)
    hits[i] = inner[i] = 0;
  ghmix_parallel_for(0, n, unit, threads, count_unit, &j);
  for (i = 0; i < n; i++)
    ok &= hits[i] == 1 && (!nested || inner[i] == 1);
  return ok && !j.bad_thread;
}

static void test_pool(void) {
  static const int threads[] = {1, 2, 4};
  int k, rep, ok = 1;
  ghmix_claims c;
  size_t lo, hi, got = 0;
  ghmix_claims_init(&c, 5, 27, 10);
  while (ghmix_claim(&c, &lo, &hi))
    got += (hi - lo) * 1000 + lo;
  check(got == 10 * 1000 + 5 + 10 * 1000 + 15 + 2 * 1000 + 25,
        "pool: the claims of [5, 27) by 10 are [5, 15), [15, 25), [25, 27)");
  check(ghmix_claims_unit(1000, 2, 1) == 63 &&
            ghmix_claims_unit(10, 2, 4) == 4 && ghmix_claims_unit(0, 1, 0) == 1,
        "pool: the unit is 1/8 of a thread's share, at least the minimum");
  for (k = 0; k < 3; k++)
    check(count_once(threads[k], 100000, 37, 0),
          "pool: %d threads do each of 1e5 elements once", threads[k]);
  for (rep = 0; rep < 3000; rep++)
    ok &= count_once(2, 1 + (size_t)rep % 50, 1, 0);
  check(ok, "pool: 3000 small jobs on 2 threads, each element once");
  check(count_once(2, 5000, 11, 1),
        "pool: a job started from inside a job runs (on its caller)");
#ifdef _OPENMP
  check(ghmix_pool_workers() == 3, "pool: 3 workers after a job of 4 (%d)",
        ghmix_pool_workers());
#endif
}

int main(void) {
  test_nap();
  test_blas_threads();
  test_thread_counts();
  test_pool();
  printf("test_platform: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
