#include "chunks.h"

#include "../core/batch.h"
#include "pool.h"
#include "threads.h"

ghmix_status ghmix_run_chunks(size_t n, size_t chunk, ghmix_range_fn fn,
                              const void *job, int threads, ghmix_error *err) {
  size_t start;
  threads = ghmix_clamp_threads(threads);
  for (start = 0; start < n; start += chunk) {
    size_t end = n - start > chunk ? start + chunk : n;
    fn(job, (ptrdiff_t)start, (ptrdiff_t)end, threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}

typedef struct {
  ghmix_schedule sched;
  ghmix_element_fn fn;
  const void *job;
} element_job;

static void element_unit(const void *job, size_t lo, size_t hi, int thread) {
  const element_job *e = (const element_job *)job;
  size_t i;
  (void)thread;
  for (i = lo; i < hi; i++)
    e->fn(e->job, i);
}

static void element_range(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                          int threads) {
  const element_job *e = (const element_job *)job;
  size_t n = (size_t)(hi - lo);
  size_t unit = e->sched.dynamic > 0 ? (size_t)e->sched.dynamic
                                     : ghmix_claims_unit(n, threads, 1);
  if (n < e->sched.min_parallel)
    threads = 1;
  ghmix_parallel_for((size_t)lo, (size_t)hi, unit, threads, element_unit, e);
}

ghmix_status ghmix_run_elements(size_t n, ghmix_schedule sched,
                                ghmix_element_fn fn, const void *job,
                                int threads, ghmix_error *err) {
  element_job e;
  e.sched = sched;
  e.fn = fn;
  e.job = job;
  return ghmix_run_chunks(n, sched.chunk, element_range, &e, threads, err);
}
