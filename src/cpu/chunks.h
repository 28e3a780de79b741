/* The loops of the CPU batch drivers: a range function runs over [0, n) in
 * chunks, each chunk typically one parallel region, and the interrupt hook
 * is polled between chunks from the calling thread only; or, for drivers
 * whose elements need no per-thread state, an element function over
 * each chunk on the threads of pool.h.  Plain C, no R headers. */
#ifndef GHMIX_CHUNKS_H
#define GHMIX_CHUNKS_H

#include <stddef.h>

#include "../core/status.h"

/* Processes elements [lo, hi) of job on `threads` threads. */
typedef void (*ghmix_range_fn)(const void *job, ptrdiff_t lo, ptrdiff_t hi,
                               int threads);

/* fn over [0, n) in chunks of `chunk` elements, threads clamped to
 * [1, ghmix_max_threads()].  Returns GHMIX_OK, or GHMIX_ERR_INTERRUPTED when
 * the hook asked to stop (the elements before err->index are done). */
ghmix_status ghmix_run_chunks(size_t n, size_t chunk, ghmix_range_fn fn,
                              const void *job, int threads, ghmix_error *err);

/* Processes element i of job. */
typedef void (*ghmix_element_fn)(const void *job, size_t i);

/* How ghmix_run_elements shares a chunk among the threads. */
typedef struct {
  size_t chunk;        /* elements between interrupt polls */
  size_t min_parallel; /* fewer elements in a chunk run on the calling
                          thread: waking a team costs more */
  int dynamic;         /* the threads claim this many elements at a time
                          when > 0, else ghmix_claims_unit()'s */
} ghmix_schedule;

/* fn(job, i) for i in [0, n), by ghmix_run_chunks. */
ghmix_status ghmix_run_elements(size_t n, ghmix_schedule sched,
                                ghmix_element_fn fn, const void *job,
                                int threads, ghmix_error *err);

#endif
