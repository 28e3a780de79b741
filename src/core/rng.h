/* The random-number hook of the core.  The core owns no generator and no
 * global state: a sampler takes a function that returns one uniform
 * variate per call, e.g. a wrapper around R's unif_rand() (src/r_gig.c) or
 * a small generator in a C test.  Because such generators are usually not
 * thread-safe (R's is not), samplers call it from the calling thread only. */
#ifndef GHMIX_RNG_H
#define GHMIX_RNG_H

#ifdef __cplusplus
extern "C" {
#endif

/* One uniform variate on (0, 1) per call; it may return 0 or 1 on rare
 * occasions, which the core's samplers skip. */
typedef double (*ghmix_unif_fn)(void);

/* A uniform variate strictly inside (0, 1): calls unif until it gets one. */
double ghmix_unif_open(ghmix_unif_fn unif);

/* A standard exponential variate, -log(U) with U from ghmix_unif_open. */
double ghmix_exp_rand(ghmix_unif_fn unif);

#ifdef __cplusplus
}
#endif

#endif
