/* Uniform asymptotic (Debye) expansion of K_nu(x) for large nu, DLMF 10.41.4
 * and 10.41.10:
 *   K_nu(x) ~ sqrt(pi / (2 A)) exp(f) S,  A = hypot(nu, x),
 *   f = nu asinh(nu / x) - A,  S = sum_k (-1)^k u_k(p) / nu^k,  p = nu / A.
 * With t = p^2 and w = 1 / A, S = sum_k w^k (-1)^k P_k(t) (see
 * bessel_debye_coef.h); log S and its partials in (t, w) give the derivatives
 * of log K by the chain rule. */
#include "bessel_debye_coef.h"
#include "bessel_impl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define HALF_PI 1.5707963267948966

typedef struct {
  double a, w, s, c, t; /* A, 1 / A, nu / A, x / A, (nu / A)^2 */
  int nterms;
} debye_geom;

/* S - 1 and the partials of S in t and w. */
typedef struct {
  double sm1, st, sw, stt, stw, sww;
} debye_jet;

GHMIX_INLINE void debye_geometry(double x, double nu, debye_geom *g) {
  int cell;
  if (x < 1e150 && nu < 1e150) {
    double a2 = nu * nu + x * x, w2 = 1.0 / a2;
    uint64_t bits;
    memcpy(&bits, &a2, sizeof bits);
    cell = (int)(bits >> GHMIX_DEBYE_SHIFT) - GHMIX_DEBYE_BASE;
    cell = cell < 0 ? 0 : cell;
    cell = cell > GHMIX_DEBYE_NCELL - 1 ? GHMIX_DEBYE_NCELL - 1 : cell;
    g->a = sqrt(a2);
    g->w = g->a * w2;
    g->t = nu * nu * w2;
  } else {
    cell = GHMIX_DEBYE_NCELL - 1;
    g->a = hypot(nu, x);
    g->w = 1.0 / g->a;
    g->t = (nu * g->w) * (nu * g->w);
  }
  g->s = nu * g->w;
  g->c = x * g->w;
  int bin = (int)(g->t * GHMIX_DEBYE_NBIN);
  bin = bin > GHMIX_DEBYE_NBIN - 1 ? GHMIX_DEBYE_NBIN - 1 : bin;
  g->nterms = ghmix_debye_nterms()[bin * GHMIX_DEBYE_NCELL + cell];
}

GHMIX_INLINE void debye_series0(const debye_geom *g, debye_jet *j) {
  j->sm1 = g->w * ghmix_debye_r0(g->nterms, g->t, g->w);
}

/* S - 1 and its first derivatives from R and its derivatives d in t and w
 * (S = 1 + w R(t, w)). */
GHMIX_INLINE void debye_first(double w, const double *d, debye_jet *j) {
  j->sm1 = w * d[0];
  j->st = w * d[1];
  j->sw = d[0] + w * d[2];
}

GHMIX_INLINE void debye_series1(const debye_geom *g, debye_jet *j) {
  double d[3];
  ghmix_debye_r1(g->nterms, g->t, g->w, d);
  debye_first(g->w, d, j);
}

GHMIX_INLINE void debye_series2(const debye_geom *g, debye_jet *j) {
  double d[6], w = g->w;
  ghmix_debye_r2(g->nterms, g->t, w, d);
  debye_first(w, d, j);
  j->stt = w * d[3];
  j->stw = d[1] + w * d[4];
  j->sww = 2.0 * d[2] + w * d[5];
}

/* K_{nu+1}(x) / K_nu(x) = nu / x - d/dx log K_nu(x), as a sum of positive
 * terms; lt, lw are the partials of log S in t and w. */
GHMIX_INLINE double debye_ratio_up(double x, double nu, const debye_geom *g,
                                   double lt, double lw) {
  double s = g->s, w = g->w;
  return (nu + g->a) / x + g->c * w * (0.5 + 2.0 * lt * s * s + lw * w);
}

GHMIX_HD void ghmix_bessel_debye(double x, double nu, int what,
                                 ghmix_bessel_result *res) {
  debye_geom g;
  debye_jet j;
  debye_geometry(x, nu, &g);
  double f = ghmix_bessel_peak_exponent(x, nu);
  int hess = (what & GHMIX_BESSEL_HESS) != 0;
  if (!(what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS | GHMIX_BESSEL_RATIOS))) {
    debye_series0(&g, &j);
    double sv = 1.0 + j.sm1;
    res->logk = f + 0.5 * log(HALF_PI * g.w * sv * sv);
    return;
  }
  if (hess)
    debye_series2(&g, &j);
  else
    debye_series1(&g, &j);

  double sv = 1.0 + j.sm1, w = g.w, s = g.s, c = g.c;
  res->logk = f + 0.5 * log(HALF_PI * w * sv * sv);
  double isv = 1.0 / sv, lt = j.st * isv, lw = j.sw * isv;
  double w2 = w * w;
  /* partials of t = (nu / A)^2 and w = 1 / A in nu and x */
  double t_nu = 2.0 * s * c * c * w, t_x = -2.0 * s * s * c * w;
  double w_nu = -s * w2, w_x = -c * w2;
  if (what & GHMIX_BESSEL_GRAD) {
    res->dnu =
        ghmix_bessel_peak_t0(x, nu) - 0.5 * s * w + lt * t_nu + lw * w_nu;
    res->dx = -g.a / x - 0.5 * c * w + lt * t_x + lw * w_x;
  }
  if (hess) {
    double ltt = j.stt * isv - lt * lt, ltw = j.stw * isv - lt * lw;
    double lww = j.sww * isv - lw * lw;
    double s2 = s * s, c2 = c * c, w3 = w2 * w;
    double t_nunu = 2.0 * c2 * w2 * (1.0 - 4.0 * s2);
    double t_nux = 4.0 * s * c * w2 * (1.0 - 2.0 * c2);
    double t_xx = -2.0 * s2 * w2 * (1.0 - 4.0 * c2);
    double w_nunu = w3 * (3.0 * s2 - 1.0), w_nux = 3.0 * s * c * w3;
    double w_xx = w3 * (3.0 * c2 - 1.0);
    double sx = s / x;
    res->dnu2 = w + 0.5 * (s2 - c2) * w2 + ltt * t_nu * t_nu +
                2.0 * ltw * t_nu * w_nu + lww * w_nu * w_nu + lt * t_nunu +
                lw * w_nunu;
    res->dnudx = -sx + s * c * w2 + ltt * t_nu * t_x +
                 ltw * (t_nu * w_x + t_x * w_nu) + lww * w_nu * w_x +
                 lt * t_nux + lw * w_nux;
    res->dx2 = sx * sx * g.a + 0.5 * (c2 - s2) * w2 + ltt * t_x * t_x +
               2.0 * ltw * t_x * w_x + lww * w_x * w_x + lt * t_xx + lw * w_xx;
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    res->ratio_up = debye_ratio_up(x, nu, &g, lt, lw);
    debye_geom gm;
    debye_jet jm;
    debye_geometry(x, nu - 1.0, &gm);
    debye_series1(&gm, &jm);
    double isvm = 1.0 / (1.0 + jm.sm1);
    res->ratio_down =
        1.0 / debye_ratio_up(x, nu - 1.0, &gm, jm.st * isvm, jm.sw * isvm);
  }
}

/* The exponent f plus x: nu asinh(nu / x) - (A - x) with A - x =
 * nu^2 / (A + x), free of the cancellation of f + x for x >> nu; for
 * x <= 2 nu, f and x are both O(nu) and their sum is. */
GHMIX_INLINE double debye_exponent_scaled(double x, double nu,
                                          const debye_geom *g) {
  if (x > 2.0 * nu)
    return nu * ghmix_bessel_peak_t0(x, nu) - nu * (nu / (g->a + x));
  return ghmix_bessel_peak_exponent(x, nu) + x;
}

/* debye_ratio_up less 1: (nu + A) / x - 1 = (nu + nu^2 / (A + x)) / x. */
GHMIX_INLINE double debye_ratio_up_m1(double x, double nu, const debye_geom *g,
                                      double lt, double lw) {
  double s = g->s, w = g->w;
  return (nu + nu * (nu / (g->a + x))) / x +
         g->c * w * (0.5 + 2.0 * lt * s * s + lw * w);
}

GHMIX_HD void ghmix_bessel_debye_scaled(double x, double nu, int what,
                                        ghmix_bessel_scaled_result *res) {
  debye_geom g;
  debye_jet j;
  debye_geometry(x, nu, &g);
  double fs = debye_exponent_scaled(x, nu, &g);
  if (!(what & (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_RATIOS))) {
    debye_series0(&g, &j);
    double sv = 1.0 + j.sm1;
    res->lks = fs + 0.5 * log(HALF_PI * g.w * sv * sv);
    return;
  }
  debye_series1(&g, &j);
  double sv = 1.0 + j.sm1, isv = 1.0 / sv;
  double lt = j.st * isv, lw = j.sw * isv;
  res->lks = fs + 0.5 * log(HALF_PI * g.w * sv * sv);
  if (what & GHMIX_BESSEL_GRAD) {
    double s = g.s, w = g.w;
    res->dnu = ghmix_bessel_peak_t0(x, nu) - 0.5 * s * w +
               lt * (2.0 * s * g.c * g.c * w) + lw * (-s * w * w);
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    debye_geom gm;
    debye_jet jm;
    double um;
    res->up_m1 = debye_ratio_up_m1(x, nu, &g, lt, lw);
    debye_geometry(x, nu - 1.0, &gm);
    debye_series1(&gm, &jm);
    isv = 1.0 / (1.0 + jm.sm1);
    um = debye_ratio_up_m1(x, nu - 1.0, &gm, jm.st * isv, jm.sw * isv);
    res->down_m1 = -um / (1.0 + um);
  }
}

GHMIX_HD double ghmix_bessel_debye_rest(double x, double nu, double *hyp) {
  debye_geom g;
  debye_jet j;
  debye_geometry(x, nu, &g);
  debye_series0(&g, &j);
  *hyp = g.a;
  double sv = 1.0 + j.sm1;
  return 0.5 * log(HALF_PI * g.w * sv * sv);
}
