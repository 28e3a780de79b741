/* A random one-component E-step model for the C tests (test_mixture.c,
 * test_cuda.cu): L lower triangular and well conditioned, gamma and the
 * centre uniform, g = L^-1 gamma, the given (p, a, b) and flags, the model
 * completed.  unif(lo, hi) is the test's own uniform generator. */
#ifndef GHMIX_TEST_MIX_SETUP_H
#define GHMIX_TEST_MIX_SETUP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../src/core/mixture.h"

typedef struct {
  int d;
  double *center, *chol, *g;
  ghmix_mix_component comp;
  ghmix_mix_model model;
} mix_setup;

static int mix_setup_init(mix_setup *s, int d, double p, double a, double b,
                          int what, double (*unif)(double, double)) {
  double *gamma = (double *)malloc((size_t)d * sizeof(double));
  ghmix_error err;
  int i, j;
  s->d = d;
  s->center = (double *)malloc((size_t)d * sizeof(double));
  s->chol = (double *)malloc((size_t)d * d * sizeof(double));
  s->g = (double *)malloc((size_t)d * sizeof(double));
  if (gamma == NULL || s->center == NULL || s->chol == NULL || s->g == NULL) {
    fprintf(stderr, "mix_setup_init: out of memory\n");
    exit(2);
  }
  for (j = 0; j < d; j++) {
    s->center[j] = unif(-1, 1);
    gamma[j] = unif(-0.5, 0.5);
    for (i = 0; i < d; i++)
      s->chol[i + (size_t)j * d] =
          i < j ? 0.0 : (i == j ? unif(0.5, 1.5) : unif(-0.3, 0.3) / sqrt(d));
  }
  ghmix_mix_chol_consts(d, s->chol, gamma, s->g, &s->comp.gsg, &s->comp.logdet);
  free(gamma);
  s->comp.center = s->center;
  s->comp.chol = s->chol;
  s->comp.g = s->g;
  s->comp.p = p;
  s->comp.a = a;
  s->comp.b = b;
  s->comp.log_prop = 0;
  s->model.shape.d = d;
  s->model.shape.components = 1;
  s->model.shape.cov = GHMIX_COV_FULL;
  s->model.shape.factors = 0;
  s->model.shape.what = what;
  s->model.comp = &s->comp;
  s->model.weights = NULL;
  return ghmix_mix_model_complete(&s->model, &err) == GHMIX_OK;
}

static void mix_setup_free(mix_setup *s) {
  free(s->center);
  free(s->chol);
  free(s->g);
}

/* Row i of x (leading dimension ldx): u = x_i - centre, z = L^-1 u by
 * forward substitution, *q = |z|^2 and *bz = z' g. */
static inline void mix_setup_forms(const mix_setup *s, const double *x,
                                   size_t ldx, size_t i, double *u, double *z,
                                   double *q, double *bz) {
  const int d = s->d;
  int j, l;
  *q = *bz = 0;
  for (j = 0; j < d; j++) {
    double v;
    u[j] = x[i + (size_t)j * ldx] - s->center[j];
    v = u[j];
    for (l = 0; l < j; l++)
      v -= s->chol[j + (size_t)l * d] * z[l];
    z[j] = v / s->chol[j + (size_t)j * d];
    *q += z[j] * z[j];
    *bz += z[j] * s->g[j];
  }
}

#endif
