/* The blocked reduction of the CPU E-step drivers (mixture_cpu.c,
 * factor_cpu.c): rows [0, n) are cut into a fixed number of slots of
 * per_slot rows, each slot into blocks; every slot has its own partial
 * sums, which the driver adds in slot order at the end.  One thread does a
 * whole slot of a round, block after block, so the sums do not depend on
 * the thread count.  Rounds of `round` rows of every slot keep the
 * interrupt polls short and on the calling thread.  Plain C, no R
 * headers. */
#ifndef GHMIX_SLOTS_H
#define GHMIX_SLOTS_H

#include <stddef.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/status.h"
#include "threads.h"

typedef struct {
  size_t n, block, per_slot;
  int nslots;
} ghmix_slots;

/* The rows [lo, hi) of `slot` (hi - lo <= the block length), on thread
 * `thread` (its buffers), into the slot's sums. */
typedef void (*ghmix_slot_block_fn)(const void *job, int slot, size_t lo,
                                    size_t hi, int thread);

/* n > 0 rows in blocks of `block`: max_slots slots, fewer when n fills
 * fewer than max_slots blocks. */
static inline ghmix_slots ghmix_slots_make(size_t n, size_t block,
                                           int max_slots) {
  ghmix_slots s;
  s.n = n;
  s.block = block;
  s.nslots = n < (size_t)max_slots * block ? (int)((n + block - 1) / block)
                                           : max_slots;
  s.per_slot = (n + (size_t)s.nslots - 1) / (size_t)s.nslots;
  return s;
}

/* `threads` clamped to [1, ghmix_max_threads()] and to the slots. */
static inline int ghmix_slots_threads(const ghmix_slots *s, int threads) {
  threads = ghmix_clamp_threads(threads);
  return threads > s->nslots ? s->nslots : threads;
}

/* One round: the rows [slot_lo + r0, min(slot_lo + r1, slot_hi)) of every
 * slot, block by block. */
static inline void ghmix_slots_round(const ghmix_slots *s, size_t r0, size_t r1,
                                     ghmix_slot_block_fn fn, const void *job,
                                     int threads) {
  int slot;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
#endif
  for (slot = 0; slot < s->nslots; slot++) {
#ifdef _OPENMP
    int t = omp_get_thread_num();
#else
    int t = 0;
#endif
    size_t lo = (size_t)slot * s->per_slot, hi = lo + s->per_slot, b, k;
    if (hi > s->n)
      hi = s->n;
    b = lo + r1 < hi ? lo + r1 : hi;
    for (k = lo + r0; k < b; k += s->block)
      fn(job, slot, k, k + s->block < b ? k + s->block : b, t);
  }
  (void)threads;
}

/* All rounds of `round` rows per slot; 0, or 1 when the user interrupted
 * (*done: rows per slot completed). */
static inline int ghmix_slots_run(const ghmix_slots *s, size_t round,
                                  ghmix_slot_block_fn fn, const void *job,
                                  int threads, size_t *done) {
  size_t r0;
  *done = 0;
  for (r0 = 0; r0 < s->per_slot; r0 += round) {
    ghmix_slots_round(s, r0, r0 + round, fn, job, threads);
    *done = r0 + round;
    if (r0 + round < s->per_slot && ghmix_check_interrupt())
      return 1;
  }
  return 0;
}

#endif
