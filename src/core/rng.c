#include "rng.h"

#include <math.h>

double ghmix_unif_open(ghmix_unif_fn unif) {
  double u;
  do {
    u = unif();
  } while (!(u > 0.0 && u < 1.0));
  return u;
}

double ghmix_exp_rand(ghmix_unif_fn unif) {
  return -log(ghmix_unif_open(unif));
}
