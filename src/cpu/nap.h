/* A short sleep between two polls (the cluster transport's wait for a
 * socket, src/r_signal.c), in plain C for every platform. */
#ifndef GHMIX_NAP_H
#define GHMIX_NAP_H

/* Sleeps about `microseconds` (nothing for 0 or less).  On POSIX systems
 * by nanosleep(), which a signal ends early; on Windows by a waitable
 * timer, of high resolution where the system has one (Windows 10 version
 * 1803 on): Sleep() alone rounds up to the scheduler's tick, ~15.6 ms. */
void ghmix_nap(int microseconds);

#endif
