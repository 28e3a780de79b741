/* Thread-count helpers for the CPU drivers.  The thread count is always an
 * explicit argument (num_threads(n) on every parallel region); nothing here
 * changes OpenMP's global thread setting.  Without OpenMP everything runs on
 * one thread. */
#ifndef GHMIX_THREADS_H
#define GHMIX_THREADS_H

/* Registers (once) the fork handler that makes every later computation in
 * a forked child run on one thread: ghmix_max_threads() is then 1.  Called
 * when the package is loaded.  Nothing on Windows, which has no fork(). */
void ghmix_threads_init(void);

/* 1 when built with OpenMP, else 0. */
int ghmix_openmp_built(void);

/* The _OPENMP macro (yyyymm of the specification), or 0 without OpenMP. */
int ghmix_openmp_version(void);

/* Most threads ghmix will use: min(omp_get_num_procs(),
 * omp_get_thread_limit()); 1 without OpenMP and in a forked child. */
int ghmix_max_threads(void);

/* Default thread count when the user sets none: ghmix_max_threads() further
 * capped by omp_get_max_threads() (which honours OMP_NUM_THREADS). */
int ghmix_default_threads(void);

/* `threads` clamped to [1, ghmix_max_threads()]. */
int ghmix_clamp_threads(int threads);

#endif
