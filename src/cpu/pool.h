/* ghmix's own threads for the parallel loops of the CPU drivers, in place
 * of OpenMP's parallel regions.  The workers sleep on a condition variable
 * between jobs (never spin: see ?ghmix_threads), and the calling thread
 * never waits for a worker that has not started: every job is cut into
 * units that the threads claim one at a time, the caller claims too, and a
 * worker that wakes after the caller has claimed the last unit does
 * nothing.  On a machine whose cores are busy with other work a job
 * therefore takes at most about what it takes on the calling thread alone.
 * Which thread does a unit never changes a result: the drivers keep their
 * partial sums per unit (src/cpu/slots.h), not per thread.  Plain C, no R
 * headers; POSIX threads, or Windows' own, in a build with OpenMP (whose
 * flags bring the thread library); one thread otherwise. */
#ifndef GHMIX_POOL_H
#define GHMIX_POOL_H

#include <stddef.h>

/* The units [next, end) of a job, `unit` elements each (the last shorter),
 * claimed by the threads. */
typedef struct {
  size_t next, end, unit;
} ghmix_claims;

/* Elements [lo, hi) in units of `unit` (>= 1). */
void ghmix_claims_init(ghmix_claims *c, size_t lo, size_t hi, size_t unit);

/* Claims the next unit, [*lo, *hi); 0 when none is left. */
int ghmix_claim(ghmix_claims *c, size_t *lo, size_t *hi);

/* A unit of about 1/8 of one thread's share of n elements, at least
 * min_unit: small enough that a thread delayed by other work leaves its
 * share to the others, large enough that claiming costs nothing. */
size_t ghmix_claims_unit(size_t n, int threads, size_t min_unit);

/* Does a job's work on thread `thread` (0, the caller, to threads - 1):
 * claims units until none is left.  The caller's call alone must be able
 * to do the whole job. */
typedef void (*ghmix_team_fn)(void *job, int thread);

/* fn(job, 0) on the calling thread, and fn(job, t) for t = 1, ...,
 * threads - 1 on the workers that wake while units are left; returns when
 * every call has returned.  threads <= 1, a build without threads, a call
 * from inside a job, or workers that cannot be started: fn(job, 0) alone. */
void ghmix_team_run(int threads, ghmix_team_fn fn, void *job);

/* Does elements [lo, hi) of job on `thread`. */
typedef void (*ghmix_range_team_fn)(const void *job, size_t lo, size_t hi,
                                    int thread);

/* fn over [lo, hi) in units of `unit` elements on `threads` threads (by
 * ghmix_team_run). */
void ghmix_parallel_for(size_t lo, size_t hi, size_t unit, int threads,
                        ghmix_range_team_fn fn, const void *job);

/* Called in a child forked from this process (threads.c's handler): the
 * workers are not copied by fork(), so the pool starts empty there. */
void ghmix_pool_forget(void);

/* Workers started so far (they live until ghmix_pool_stop()). */
int ghmix_pool_workers(void);

/* Ends the workers and waits for their threads (when the library is
 * unloaded); a later job starts new ones. */
void ghmix_pool_stop(void);

#endif
