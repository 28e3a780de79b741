/* A slow, independent long-double implementation of the bessel.h API, used
 * only to validate the test harness (`make oracle`): a kernel that is right
 * must pass every check of test_bessel, so any failure of the oracle points
 * at the harness or the fixture, not at src/core.  It is NOT the package's
 * kernel and is not built into the package.
 *
 * Method: 2 K_nu(x) = int exp(-x cosh t + |nu| t) dt over the whole line,
 * t = t0 + u around the peak t0 = asinh(|nu|/x), trapezoid rule with step
 * min(sigma/3, 0.1) (sigma = (x^2+nu^2)^(-1/4), the peak width) on a window
 * where the integrand times any weight used is above e^-60 of its maximum;
 * all moments taken about the peak in two passes (see
 * tools/bessel_mp.py for the formulas).  For |nu| < 1e-3 the odd moments
 * (d/dnu, d2/dnu dx), which vanish at nu = 0, are summed instead over pairs
 * t, -t on a grid aligned at t = 0, with w(t) - w(-t) = -w(t) expm1(-2 nu t),
 * so they keep their relative accuracy for tiny nu.  80-bit long double.
 */
#include <math.h>
#include <stdlib.h>

#include "bessel.h"

typedef long double ld;

static ld sinh_minus_id(ld u) { /* sinh u - u */
  if (fabsl(u) >= 1) return sinhl(u) - u;
  ld u2 = u * u, term = u * u2 / 6, s = term;
  for (int k = 3; fabsl(term) > 1e-22L * fabsl(s); k += 2) {
    term *= u2 / ((k + 1) * (k + 2));
    s += term;
  }
  return s;
}

typedef struct {
  ld x, nu, t0, c, st0, ct0;
} kpar;

/* psi(u) = phi(t0+u) - phi(t0) and D(u) = cosh(t0+u) - cosh(t0) */
static void node(const kpar *p, ld u, ld *psi, ld *d) {
  ld sh2 = sinhl(u / 2);
  ld chm1 = 2 * sh2 * sh2; /* cosh u - 1 */
  if (fabsl(u) < 1) {
    *psi = -p->nu * sinh_minus_id(u) - p->c * chm1;
    *d = p->st0 * sinhl(u) + p->ct0 * chm1;
  } else {
    *d = 2 * sinhl(p->t0 + u / 2) * sh2;
    *psi = -p->x * *d + p->nu * u;
  }
}

/* t-frame pair sums for small nu: E[t] and Cov(t, cosh t) */
static void odd_moments(const kpar *p, ld h, ld tmax, ld *et, ld *cov) {
  ld z = 0, st = 0, sc = 0, stc = 0;
  long kmax = (long)(tmax / h) + 1;
  for (long k = 0; k <= kmax; k++) {
    ld t = k * h, tp, tm;
    /* log w(t) = -x (cosh t - cosh t0) + nu (t - t0), product form */
    ld a = -p->x * 2 * sinhl((t + p->t0) / 2) * sinhl((t - p->t0) / 2);
    tp = a + p->nu * (t - p->t0);
    ld wp = expl(tp);
    ld chm1 = 2 * sinhl(t / 2) * sinhl(t / 2);
    if (k == 0) {
      z += wp;
      sc += wp * chm1;
      continue;
    }
    tm = tp - 2 * p->nu * t;
    ld wm = expl(tm);
    ld wd = -wp * expm1l(-2 * p->nu * t); /* w(t) - w(-t) */
    z += wp + wm;
    sc += (wp + wm) * chm1;
    st += t * wd;
    stc += t * chm1 * wd;
  }
  *et = st / z;
  *cov = stc / z - (st / z) * (sc / z);
}

GHMIX_HD void ghmix_bessel_eval(double xd, double nud, int what,
                                ghmix_bessel_result *res) {
  if (isnan(xd) || isnan(nud)) {
    res->logk = NAN;
    if (what & GHMIX_BESSEL_GRAD) res->dx = res->dnu = NAN;
    if (what & GHMIX_BESSEL_HESS) res->dnu2 = res->dnudx = res->dx2 = NAN;
    if (what & GHMIX_BESSEL_RATIOS) res->ratio_up = res->ratio_down = NAN;
    return;
  }
  kpar p;
  int sgn = nud < 0 ? -1 : 1;
  p.x = xd;
  p.nu = fabsl((ld)nud);
  p.t0 = asinhl(p.nu / p.x);
  p.c = sqrtl(p.x * p.x + p.nu * p.nu);
  if (!isfinite((double)p.c)) p.c = p.x * sqrtl(1 + (p.nu / p.x) * (p.nu / p.x));
  p.st0 = p.nu / p.x;
  p.ct0 = p.c / p.x;
  ld sigma = 1 / sqrtl(p.c);
  ld h = sigma / 3;
  if (h > 0.1L) h = 0.1L;
  const ld T = 60;
  /* window */
  long kmin = 0, kmax = 0;
  for (int dir = 1; dir >= -1; dir -= 2) {
    ld gmax = 0, gprev = 0;
    for (long k = dir;; k += dir) {
      ld psi, d, u = k * h;
      node(&p, u, &psi, &d);
      ld g = psi + 2 * fabsl(u) + 2 * logl(1 + fabsl(u));
      if (g > gmax) gmax = g;
      if ((g < gmax - T && g < gprev) || labs(k) > 50000000) {
        if (dir > 0)
          kmax = k;
        else
          kmin = k;
        break;
      }
      gprev = g;
    }
  }
  long n = kmax - kmin + 1;
  ld *w = malloc(n * sizeof *w), *dd = malloc(n * sizeof *dd);
  ld s0 = 0, su = 0, sd = 0;
  for (long i = 0; i < n; i++) {
    ld psi, u = (kmin + i) * h;
    node(&p, u, &psi, &dd[i]);
    w[i] = expl(psi);
    s0 += w[i];
    su += w[i] * u;
    sd += w[i] * dd[i];
  }
  ld eu = su / s0, ed = sd / s0;
  ld vu = 0, vd = 0, cud = 0, sep = 0, sem = 0;
  for (long i = 0; i < n; i++) {
    ld u = (kmin + i) * h, a = u - eu, b = dd[i] - ed;
    vu += w[i] * a * a;
    vd += w[i] * b * b;
    cud += w[i] * a * b;
    sep += w[i] * expm1l(u);
    sem += w[i] * expm1l(-u);
  }
  free(w);
  free(dd);
  ld phi0 = -p.c + p.nu * p.t0;
  ld et = p.t0 + eu, cov = cud / s0;
  if (p.nu < 1e-3L && p.nu > 0) {
    ld tmax = fmaxl(fabsl(kmin * h), fabsl(kmax * h)) + p.t0;
    odd_moments(&p, h, tmax, &et, &cov);
  }
  res->logk = (double)(phi0 + logl(s0 * h / 2));
  if (what & GHMIX_BESSEL_GRAD) {
    res->dx = (double)(-(p.ct0 + ed));
    res->dnu = p.nu == 0 ? 0.0 : (double)(sgn * et);
  }
  if (what & GHMIX_BESSEL_HESS) {
    res->dnu2 = (double)(vu / s0);
    res->dnudx = p.nu == 0 ? 0.0 : (double)(-sgn * cov);
    res->dx2 = (double)(vd / s0);
  }
  if (what & GHMIX_BESSEL_RATIOS) {
    ld up = expl(p.t0) * (1 + sep / s0), down = expl(-p.t0) * (1 + sem / s0);
    res->ratio_up = (double)(sgn > 0 ? up : down);
    res->ratio_down = (double)(sgn > 0 ? down : up);
  }
}

GHMIX_HD double ghmix_bessel_logk(double x, double nu) {
  ghmix_bessel_result r;
  ghmix_bessel_eval(x, nu, 0, &r);
  return r.logk;
}

GHMIX_HD void ghmix_bessel_logk_n(int n, const double *x, const double *nu,
                                  double *logk) {
  for (int i = 0; i < n; i++)
    logk[i] = ghmix_bessel_logk(x[i], nu[i]);
}
