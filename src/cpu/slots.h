/* The blocked reduction of the CPU E-step drivers (mixture_cpu.c,
 * factor_cpu.c): rows [0, n) are cut into a fixed number of slots of
 * per_slot rows, each slot into blocks; every slot has its own partial
 * sums, which the driver adds in slot order at the end.  One thread does a
 * whole slot of a round, block after block, so the sums do not depend on
 * the thread count (nor on which thread does it).  Rounds of `round` rows of
 * every slot keep the interrupt polls short and on the calling thread.  Plain
 * C, no R headers. */
#ifndef GHMIX_SLOTS_H
#define GHMIX_SLOTS_H

#include <stddef.h>

#include "../core/status.h"
#include "pool.h"
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

typedef struct {
  const ghmix_slots *s;
  size_t r0, r1;
  ghmix_slot_block_fn fn;
  const void *job;
  ghmix_claims claims; /* the slots */
} ghmix_slots_team;

/* The slots that thread `thread` claims, each whole, block by block. */
static inline void ghmix_slots_do(void *team, int thread) {
  ghmix_slots_team *m = (ghmix_slots_team *)team;
  const ghmix_slots *s = m->s;
  size_t slot, last;
  while (ghmix_claim(&m->claims, &slot, &last)) {
    size_t lo = slot * s->per_slot, hi = lo + s->per_slot, b, k;
    if (hi > s->n)
      hi = s->n;
    b = lo + m->r1 < hi ? lo + m->r1 : hi;
    for (k = lo + m->r0; k < b; k += s->block)
      m->fn(m->job, (int)slot, k, k + s->block < b ? k + s->block : b, thread);
  }
}

/* One round: the rows [slot_lo + r0, min(slot_lo + r1, slot_hi)) of every
 * slot, block by block, the slots claimed one at a time (pool.h). */
static inline void ghmix_slots_round(const ghmix_slots *s, size_t r0, size_t r1,
                                     ghmix_slot_block_fn fn, const void *job,
                                     int threads) {
  ghmix_slots_team m;
  m.s = s;
  m.r0 = r0;
  m.r1 = r1;
  m.fn = fn;
  m.job = job;
  ghmix_claims_init(&m.claims, 0, (size_t)s->nslots, 1);
  ghmix_team_run(threads, ghmix_slots_do, &m);
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
