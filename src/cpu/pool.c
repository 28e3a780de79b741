#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* pthread_sigmask() under -std=c99 */
#endif

#include "pool.h"

#ifdef _OPENMP /* the build's thread library comes with OpenMP's flags */
#define GHMIX_POOL_THREADS 1
#endif

#ifdef GHMIX_POOL_THREADS
#include <fenv.h>
#ifdef _WIN32
#include <process.h>
#include <windows.h>
#else
#include <pthread.h>
#include <signal.h>
#endif
#endif

void ghmix_claims_init(ghmix_claims *c, size_t lo, size_t hi, size_t unit) {
  c->next = lo;
  c->end = hi;
  c->unit = unit > 0 ? unit : 1;
}

size_t ghmix_claims_unit(size_t n, int threads, size_t min_unit) {
  size_t parts = 8 * (size_t)(threads > 1 ? threads : 1);
  size_t unit = (n + parts - 1) / parts;
  return unit > min_unit ? unit : (min_unit > 0 ? min_unit : 1);
}

/* The claim counter only ever grows, by `unit` per claim: it may pass the
 * end by one unit per thread, far from overflowing a size_t. */
#if defined(GHMIX_POOL_THREADS) && (defined(__GNUC__) || defined(__clang__))
static size_t claim_next(ghmix_claims *c) {
  return __atomic_fetch_add(&c->next, c->unit, __ATOMIC_RELAXED);
}
static size_t claim_peek(ghmix_claims *c) {
  return __atomic_load_n(&c->next, __ATOMIC_RELAXED);
}
#elif defined(GHMIX_POOL_THREADS)
#error "ghmix's thread pool needs the __atomic builtins (GCC or Clang)"
#else
static size_t claim_next(ghmix_claims *c) {
  size_t at = c->next;
  c->next += c->unit;
  return at;
}
static size_t claim_peek(ghmix_claims *c) { return c->next; }
#endif

int ghmix_claim(ghmix_claims *c, size_t *lo, size_t *hi) {
  size_t at;
  if (claim_peek(c) >= c->end) /* (no increment once all are claimed) */
    return 0;
  at = claim_next(c);
  if (at >= c->end)
    return 0;
  *lo = at;
  *hi = c->end - at > c->unit ? at + c->unit : c->end;
  return 1;
}

typedef struct {
  ghmix_claims claims;
  ghmix_range_team_fn fn;
  const void *job;
} range_team;

static void range_team_do(void *job, int thread) {
  range_team *r = (range_team *)job;
  size_t lo, hi;
  while (ghmix_claim(&r->claims, &lo, &hi))
    r->fn(r->job, lo, hi, thread);
}

void ghmix_parallel_for(size_t lo, size_t hi, size_t unit, int threads,
                        ghmix_range_team_fn fn, const void *job) {
  range_team r;
  if (hi <= lo)
    return;
  if (threads <= 1) {
    fn(job, lo, hi, 0);
    return;
  }
  ghmix_claims_init(&r.claims, lo, hi, unit);
  r.fn = fn;
  r.job = job;
  ghmix_team_run(threads, range_team_do, &r);
}

#ifndef GHMIX_POOL_THREADS

void ghmix_team_run(int threads, ghmix_team_fn fn, void *job) {
  (void)threads;
  fn(job, 0);
}

int ghmix_pool_workers(void) { return 0; }

void ghmix_pool_forget(void) {}

void ghmix_pool_stop(void) {}

#else

/* More than any machine ghmix runs on has cores; requests above it get
 * this many. */
#define POOL_MAX_WORKERS 255
/* The workers' stacks, as a process's main thread usually has. */
#define POOL_STACK_BYTES ((size_t)8 << 20)

#ifdef _WIN32
typedef SRWLOCK pool_mutex;
typedef CONDITION_VARIABLE pool_cond;
#define POOL_MUTEX_INIT SRWLOCK_INIT
#define POOL_COND_INIT CONDITION_VARIABLE_INIT
static void pool_lock(pool_mutex *m) { AcquireSRWLockExclusive(m); }
static void pool_unlock(pool_mutex *m) { ReleaseSRWLockExclusive(m); }
static void pool_wait(pool_cond *c, pool_mutex *m) {
  SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static void pool_signal(pool_cond *c) { WakeConditionVariable(c); }
static void pool_cond_init(pool_cond *c) { InitializeConditionVariable(c); }
#else
typedef pthread_mutex_t pool_mutex;
typedef pthread_cond_t pool_cond;
#define POOL_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define POOL_COND_INIT PTHREAD_COND_INITIALIZER
static void pool_lock(pool_mutex *m) { pthread_mutex_lock(m); }
static void pool_unlock(pool_mutex *m) { pthread_mutex_unlock(m); }
static void pool_wait(pool_cond *c, pool_mutex *m) { pthread_cond_wait(c, m); }
static void pool_signal(pool_cond *c) { pthread_cond_signal(c); }
static void pool_cond_init(pool_cond *c) { pthread_cond_init(c, NULL); }
#endif

/* Everything below is read and written under `lock`.  A job is one
 * `generation`; workers join it while it is `joinable`, and the caller closes
 * it when it has run out of units, then waits for the `active` ones. */
static pool_mutex lock = POOL_MUTEX_INIT;
static pool_cond done = POOL_COND_INIT; /* active fell to 0 */
static int workers = 0, busy = 0, joinable = 0, active = 0, job_threads = 0;
static int stopping = 0; /* ghmix_pool_stop(): the workers return */
static size_t generation = 0;
static ghmix_team_fn job_fn = NULL;
static void *job_arg = NULL;
/* The caller's floating-point environment, which the workers take on for
 * the job: a thread Windows starts has the x87 unit at 53-bit precision
 * where MinGW's start-up code set the main thread's to 64 bits, and
 * MinGW-w64's libm computes exp() and log() on the x87 unit, so their last
 * bits would depend on the thread. */
static fenv_t job_env;

#ifdef _WIN32
typedef HANDLE pool_thread;
#else
typedef pthread_t pool_thread;
#endif

/* A worker's number (1, 2, ...), the generation it was started in, what
 * wakes it for a job (only the job's workers are woken), and its thread,
 * joined by ghmix_pool_stop(). */
typedef struct {
  int id;
  size_t seen;
  pool_cond wake;
  pool_thread thread;
} worker_start;
static worker_start starts[POOL_MAX_WORKERS + 1];

static void worker_loop(worker_start *start) {
  int id = start->id;
  size_t seen = start->seen;
  pool_lock(&lock);
  for (;;) {
    ghmix_team_fn fn;
    void *arg;
    while (generation == seen)
      pool_wait(&start->wake, &lock);
    seen = generation;
    if (stopping) {
      pool_unlock(&lock);
      return;
    }
    if (!joinable || id >= job_threads)
      continue;
    active++;
    fn = job_fn;
    arg = job_arg;
    fesetenv(&job_env);
    pool_unlock(&lock);
    fn(arg, id);
    pool_lock(&lock);
    if (--active == 0)
      pool_signal(&done);
  }
}

#ifdef _WIN32
static unsigned __stdcall worker_main(void *start) {
  worker_loop((worker_start *)start);
  return 0;
}

static int worker_create(worker_start *start) {
  uintptr_t h = _beginthreadex(NULL, (unsigned)POOL_STACK_BYTES, worker_main,
                               start, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
  if (h == 0)
    return 0;
  start->thread = (HANDLE)h;
  return 1;
}

static void worker_join(worker_start *start) {
  WaitForSingleObject(start->thread, INFINITE);
  CloseHandle(start->thread);
}
#else
static void *worker_main(void *start) {
  worker_loop((worker_start *)start);
  return NULL;
}

/* With every signal blocked: R's handlers (SIGINT sets R's interrupt
 * flag) run on R's own thread. */
static int worker_create(worker_start *start) {
  pthread_attr_t attr;
  sigset_t all, old;
  int ok;
  if (pthread_attr_init(&attr) != 0)
    return 0;
  pthread_attr_setstacksize(&attr, POOL_STACK_BYTES);
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  ok = pthread_create(&start->thread, &attr, worker_main, start) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  return ok;
}

static void worker_join(worker_start *start) {
  pthread_join(start->thread, NULL);
}
#endif

/* Under the lock: at least want workers, as many as can be started. */
static void workers_grow(int want) {
  if (want > POOL_MAX_WORKERS)
    want = POOL_MAX_WORKERS;
  while (workers < want) {
    worker_start *s = &starts[workers + 1];
    s->id = workers + 1;
    s->seen = generation;
    pool_cond_init(&s->wake);
    if (!worker_create(s))
      return;
    workers++;
  }
}

/* Opens a job for up to `threads` threads; 0 when it runs on the caller
 * alone (a job already running, i.e. a call from inside one, or no
 * worker). */
static int job_open(int threads, ghmix_team_fn fn, void *job) {
  int t;
  pool_lock(&lock);
  if (busy) {
    pool_unlock(&lock);
    return 0;
  }
  workers_grow(threads - 1);
  if (workers == 0) {
    pool_unlock(&lock);
    return 0;
  }
  busy = joinable = 1;
  active = 0;
  job_threads = threads - 1 < workers ? threads : workers + 1;
  job_fn = fn;
  job_arg = job;
  fegetenv(&job_env);
  generation++;
  for (t = 1; t < job_threads; t++)
    pool_signal(&starts[t].wake);
  pool_unlock(&lock);
  return 1;
}

static void job_close(void) {
  pool_lock(&lock);
  joinable = 0;
  while (active > 0)
    pool_wait(&done, &lock);
  busy = 0;
  job_fn = NULL;
  job_arg = NULL;
  pool_unlock(&lock);
}

void ghmix_team_run(int threads, ghmix_team_fn fn, void *job) {
  int shared = threads > 1 && job_open(threads, fn, job);
  fn(job, 0);
  if (shared)
    job_close();
}

/* In a child forked from this process: its workers are not there (fork()
 * copies the calling thread only).  The child runs every job on one
 * thread (threads.c), so the pool is left unused, but says so. */
void ghmix_pool_forget(void) {
#ifndef _WIN32 /* (Windows has no fork()) */
  pthread_mutex_init(&lock, NULL);
  pthread_cond_init(&done, NULL);
#endif
  workers = busy = joinable = active = 0;
}

/* Wakes every worker to return and waits until its thread has ended, so
 * that no thread is left inside this library's code when it is unloaded
 * (R_unload_ghmix). */
void ghmix_pool_stop(void) {
  int t, n;
  pool_lock(&lock);
  if (busy || workers == 0) {
    pool_unlock(&lock);
    return;
  }
  n = workers;
  stopping = 1;
  generation++;
  for (t = 1; t <= n; t++)
    pool_signal(&starts[t].wake);
  pool_unlock(&lock);
  for (t = 1; t <= n; t++)
    worker_join(&starts[t]);
  pool_lock(&lock);
  workers = 0;
  stopping = 0;
  pool_unlock(&lock);
}

int ghmix_pool_workers(void) {
  int n;
  pool_lock(&lock);
  n = workers;
  pool_unlock(&lock);
  return n;
}

#endif
