/* R's BLAS may be multithreaded (OpenBLAS's pthread build: each call runs
 * on its own pool of threads).  Called from several of ghmix's threads at
 * once it oversubscribes the cores, and its own threads change the bits of
 * its sums, so the E-steps that call BLAS set it to one thread for their
 * duration, whatever their own thread count, and restore it afterwards. */
#ifndef GHMIX_BLAS_THREADS_H
#define GHMIX_BLAS_THREADS_H

/* Sets the BLAS to one thread if it is OpenBLAS; returns the previous count
 * to hand to ghmix_blas_threads_restore (0 when nothing was changed). */
int ghmix_blas_threads_single(void);

void ghmix_blas_threads_restore(int previous);

#endif
