#include "bessel_table.h"

#include <math.h>
#include <stdlib.h>

/* Panel width in t = log x, Chebyshev points per panel, and coefficients
 * kept: the exact values carry rounding noise of about 1e-15, which fills
 * the coefficients of degree above ~10 (the function's own have fallen
 * below 1e-16 there); the discarded ones would only add that noise at the
 * panel ends. */
#define BESSEL_TABLE_WIDTH 0.125
#define BESSEL_TABLE_N 16
#define BESSEL_TABLE_NCOEF 10
/* More panels than this (x spanning e^128): no table. */
#define BESSEL_TABLE_MAX_PANELS 512
/* Accepted error of the interpolant at the test points, relative to
 * max(1, |value|) (log K, not log K + x, for the first function); the
 * exact kernel's regimes themselves differ by up to 5e-15 at their seams,
 * and an interpolant across a seam sees both. */
#define BESSEL_TABLE_TOL 1e-14

#define TABLE_PI 3.14159265358979323846

/* The interpolated functions at x: log K + x (without its linear part),
 * then the ratios and dnu as asked for; returns how many. */
static int table_values(double nu, int what, double x, double *f) {
  ghmix_bessel_result r;
  int k = 0;
  ghmix_bessel_eval(x, nu, what, &r);
  f[k++] = r.logk + x;
  if (what & GHMIX_BESSEL_RATIOS) {
    f[k++] = r.ratio_up;
    f[k++] = r.ratio_down;
  }
  if (what & GHMIX_BESSEL_GRAD)
    f[k++] = r.dnu;
  return k;
}

/* sum_k c[k] T_k(u) (Clenshaw). */
static double table_clenshaw(const double *c, double u) {
  double b1 = 0, b2 = 0, u2 = 2 * u;
  int k;
  for (k = BESSEL_TABLE_NCOEF - 1; k >= 1; k--) {
    double b0 = c[k] + u2 * b1 - b2;
    b2 = b1;
    b1 = b0;
  }
  return c[0] + u * b1 - b2;
}

/* The cosines the panels share, computed once per table (cos() per panel
 * cost as much as the exact evaluations): at the nodes u_j = cos(pi (j +
 * 1/2) / N), of the transform cos(pi m (j + 1/2) / N), and at the test
 * points cos(pi j / N), j even. */
#define TABLE_NODES 0
#define TABLE_TRANSFORM BESSEL_TABLE_N
#define TABLE_TESTS (TABLE_TRANSFORM + BESSEL_TABLE_NCOEF * BESSEL_TABLE_N)
#define TABLE_NTESTS (BESSEL_TABLE_N / 2 + 1)
#define TABLE_NCOS (TABLE_TESTS + TABLE_NTESTS)

static void table_cosines(double *cs) {
  int j, m;
  for (j = 0; j < BESSEL_TABLE_N; j++)
    cs[TABLE_NODES + j] = cos(TABLE_PI * (j + 0.5) / BESSEL_TABLE_N);
  for (m = 0; m < BESSEL_TABLE_NCOEF; m++)
    for (j = 0; j < BESSEL_TABLE_N; j++)
      cs[TABLE_TRANSFORM + m * BESSEL_TABLE_N + j] =
          cos(TABLE_PI * m * (j + 0.5) / BESSEL_TABLE_N);
  for (j = 0; j <= BESSEL_TABLE_N; j += 2)
    cs[TABLE_TESTS + j / 2] = cos(TABLE_PI * j / BESSEL_TABLE_N);
}

/* Chebyshev coefficients of panel p from the values at its N points of the
 * first kind, u_j = cos(pi (j + 1/2) / N). */
static int table_panel(ghmix_bessel_table *tab, int p) {
  double f[BESSEL_TABLE_N][4], mid, half = 0.5 / tab->inv_w;
  double *c = tab->coef + (size_t)p * tab->nfun * BESSEL_TABLE_NCOEF;
  const double *cs = tab->cosines;
  int j, m, q;
  mid = tab->t_lo + (p + 0.5) / tab->inv_w;
  for (j = 0; j < BESSEL_TABLE_N; j++) {
    double u = cs[TABLE_NODES + j];
    table_values(tab->nu, tab->what, exp(mid + half * u), f[j]);
    for (q = 0; q < tab->nfun; q++)
      if (!isfinite(f[j][q]))
        return 0;
  }
  for (q = 0; q < tab->nfun; q++)
    for (m = 0; m < BESSEL_TABLE_NCOEF; m++) {
      const double *cm = cs + TABLE_TRANSFORM + m * BESSEL_TABLE_N;
      double s = 0;
      for (j = 0; j < BESSEL_TABLE_N; j++)
        s += f[j][q] * cm[j];
      c[q * BESSEL_TABLE_NCOEF + m] = (m == 0 ? 1.0 : 2.0) * s / BESSEL_TABLE_N;
    }
  return 1;
}

/* The interpolant against the exact kernel at the panel's ends and between
 * its nodes (u = cos(pi j / N), j even). */
static int table_verify(const ghmix_bessel_table *tab, int p) {
  const double *c = tab->coef + (size_t)p * tab->nfun * BESSEL_TABLE_NCOEF;
  double mid = tab->t_lo + (p + 0.5) / tab->inv_w, half = 0.5 / tab->inv_w;
  int j, q;
  for (j = 0; j < TABLE_NTESTS; j++) {
    double u = tab->cosines[TABLE_TESTS + j], f[4];
    double x = exp(mid + half * u);
    table_values(tab->nu, tab->what, x, f);
    for (q = 0; q < tab->nfun; q++) {
      double got = table_clenshaw(c + q * BESSEL_TABLE_NCOEF, u);
      double ref = q == 0 ? f[q] - x : f[q];
      double scale = fabs(ref) > 1 ? fabs(ref) : 1;
      if (!(fabs(got - f[q]) <= BESSEL_TABLE_TOL * scale))
        return 0;
    }
  }
  return 1;
}

int ghmix_bessel_table_init(double nu, int what, double x_lo, double x_hi,
                            ghmix_bessel_table *tab) {
  double t_lo = log(x_lo), t_hi = log(x_hi), span;
  size_t ncoef;
  if (!(x_lo > 0) || !(x_hi >= x_lo) || !isfinite(x_hi) || !isfinite(nu))
    return 0;
  span = (t_hi - t_lo) / BESSEL_TABLE_WIDTH;
  if (!(span < BESSEL_TABLE_MAX_PANELS))
    return 0;
  tab->nu = nu;
  tab->what = what & (GHMIX_BESSEL_RATIOS | GHMIX_BESSEL_GRAD);
  tab->t_lo = t_lo;
  tab->inv_w = 1.0 / BESSEL_TABLE_WIDTH;
  tab->npanel = (int)span + 1;
  tab->nfun = 1 + ((tab->what & GHMIX_BESSEL_RATIOS) ? 2 : 0) +
              ((tab->what & GHMIX_BESSEL_GRAD) ? 1 : 0);
  ncoef = (size_t)tab->npanel * tab->nfun * BESSEL_TABLE_NCOEF;
  tab->coef = malloc(sizeof(double) * (ncoef + TABLE_NCOS));
  if (tab->coef == NULL)
    return 0;
  tab->cosines = tab->coef + ncoef;
  table_cosines(tab->cosines);
  return 1;
}

int ghmix_bessel_table_panel(ghmix_bessel_table *tab, int p) {
  return table_panel(tab, p) && table_verify(tab, p);
}

int ghmix_bessel_table_build(double nu, int what, double x_lo, double x_hi,
                             ghmix_bessel_table *tab) {
  int p;
  if (!ghmix_bessel_table_init(nu, what, x_lo, x_hi, tab))
    return 0;
  for (p = 0; p < tab->npanel; p++)
    if (!ghmix_bessel_table_panel(tab, p)) {
      ghmix_bessel_table_free(tab);
      return 0;
    }
  return 1;
}

/* table_clenshaw of the nf (<= 4) series at c, c + NCOEF, ..., side by
 * side (the same operations in the same order for each: the same values,
 * but independent chains the processor overlaps). */
static inline void table_clenshaw_n(const double *c, int nf, double u,
                                    double *out) {
  double b1[4] = {0, 0, 0, 0}, b2[4] = {0, 0, 0, 0}, u2 = 2 * u;
  int k, q;
  for (k = BESSEL_TABLE_NCOEF - 1; k >= 1; k--)
    for (q = 0; q < nf; q++) {
      double b0 = c[q * BESSEL_TABLE_NCOEF + k] + u2 * b1[q] - b2[q];
      b2[q] = b1[q];
      b1[q] = b0;
    }
  for (q = 0; q < nf; q++)
    out[q] = c[q * BESSEL_TABLE_NCOEF] + u * b1[q] - b2[q];
}

/* One Clenshaw step of the chain (b1, b2) with coefficient ck at 2u = u2. */
#define TABLE_STEP(ck, u2, b1, b2)                                             \
  do {                                                                         \
    double b0_ = (ck) + (u2) * (b1) - (b2);                                    \
    (b2) = (b1);                                                               \
    (b1) = b0_;                                                                \
  } while (0)

/* table_clenshaw_n for nf = 4 (and 3 below) at two points (series c, u
 * and c_, u_), the same operations in the same order, with the chains of
 * both in scalars in one loop (in arrays they live in memory between the
 * steps; one point's chains are a dependent sequence the other's fill). */
static inline void table_clenshaw_4x2(const double *c, double u,
                                      const double *c_, double u_, double *out,
                                      double *out_) {
  const double u2 = 2 * u, u2_ = 2 * u_;
  double a1 = 0, a2 = 0, b1 = 0, b2 = 0, d1 = 0, d2 = 0, e1 = 0, e2 = 0;
  double A1 = 0, A2 = 0, B1 = 0, B2 = 0, D1 = 0, D2 = 0, E1 = 0, E2 = 0;
  const int n = BESSEL_TABLE_NCOEF;
  int k;
  for (k = n - 1; k >= 1; k--) {
    TABLE_STEP(c[k], u2, a1, a2);
    TABLE_STEP(c[n + k], u2, b1, b2);
    TABLE_STEP(c[2 * n + k], u2, d1, d2);
    TABLE_STEP(c[3 * n + k], u2, e1, e2);
    TABLE_STEP(c_[k], u2_, A1, A2);
    TABLE_STEP(c_[n + k], u2_, B1, B2);
    TABLE_STEP(c_[2 * n + k], u2_, D1, D2);
    TABLE_STEP(c_[3 * n + k], u2_, E1, E2);
  }
  out[0] = c[0] + u * a1 - a2;
  out[1] = c[n] + u * b1 - b2;
  out[2] = c[2 * n] + u * d1 - d2;
  out[3] = c[3 * n] + u * e1 - e2;
  out_[0] = c_[0] + u_ * A1 - A2;
  out_[1] = c_[n] + u_ * B1 - B2;
  out_[2] = c_[2 * n] + u_ * D1 - D2;
  out_[3] = c_[3 * n] + u_ * E1 - E2;
}

static inline void table_clenshaw_3x2(const double *c, double u,
                                      const double *c_, double u_, double *out,
                                      double *out_) {
  const double u2 = 2 * u, u2_ = 2 * u_;
  double a1 = 0, a2 = 0, b1 = 0, b2 = 0, d1 = 0, d2 = 0;
  double A1 = 0, A2 = 0, B1 = 0, B2 = 0, D1 = 0, D2 = 0;
  const int n = BESSEL_TABLE_NCOEF;
  int k;
  for (k = n - 1; k >= 1; k--) {
    TABLE_STEP(c[k], u2, a1, a2);
    TABLE_STEP(c[n + k], u2, b1, b2);
    TABLE_STEP(c[2 * n + k], u2, d1, d2);
    TABLE_STEP(c_[k], u2_, A1, A2);
    TABLE_STEP(c_[n + k], u2_, B1, B2);
    TABLE_STEP(c_[2 * n + k], u2_, D1, D2);
  }
  out[0] = c[0] + u * a1 - a2;
  out[1] = c[n] + u * b1 - b2;
  out[2] = c[2 * n] + u * d1 - d2;
  out_[0] = c_[0] + u_ * A1 - A2;
  out_[1] = c_[n] + u_ * B1 - B2;
  out_[2] = c_[2 * n] + u_ * D1 - D2;
}

/* The series of the panel holding t = log x, and u in [-1, 1] on it. */
static inline const double *table_locate(const ghmix_bessel_table *tab,
                                         double t, double *u) {
  double v = (t - tab->t_lo) * tab->inv_w;
  int p = (int)v;
  if (p < 0)
    p = 0;
  if (p >= tab->npanel)
    p = tab->npanel - 1;
  *u = 2 * (v - p) - 1;
  return tab->coef + (size_t)p * tab->nfun * BESSEL_TABLE_NCOEF;
}

/* res from the interpolated functions f at x. */
static inline void table_store(const ghmix_bessel_table *tab, double x,
                               const double *f, ghmix_bessel_result *res) {
  int q = 0;
  res->logk = f[0] - x;
  if (tab->what & GHMIX_BESSEL_RATIOS) {
    res->ratio_up = f[++q];
    res->ratio_down = f[++q];
  }
  if (tab->what & GHMIX_BESSEL_GRAD) {
    res->dnu = f[++q];
    /* DLMF 10.29.2: K'_nu = -K_{nu-1} - (nu / x) K_nu */
    res->dx = (tab->what & GHMIX_BESSEL_RATIOS)
                  ? -(tab->nu / x + res->ratio_down)
                  : (double)NAN;
  }
}

static inline void table_series(const ghmix_bessel_table *tab, const double *c,
                                double u, double *f) {
  double unused[4];
  if (tab->nfun == 4) /* the E-step of a free p */
    table_clenshaw_4x2(c, u, c, u, f, unused);
  else if (tab->nfun == 3) /* ratios without the nu-derivative */
    table_clenshaw_3x2(c, u, c, u, f, unused);
  else
    table_clenshaw_n(c, tab->nfun, u, f);
}

void ghmix_bessel_table_eval(const ghmix_bessel_table *tab, double x, double t,
                             ghmix_bessel_result *res) {
  double u, f[4];
  const double *c = table_locate(tab, t, &u);
  table_series(tab, c, u, f);
  table_store(tab, x, f, res);
}

void ghmix_bessel_table_eval_n(const ghmix_bessel_table *tab, int n,
                               const double *x, const double *t,
                               ghmix_bessel_result *res) {
  int i = 0;
  /* two points at a time: one point's Clenshaw chains are a dependent
   * sequence of about 100 cycles, which the other point's fill */
  for (; i + 2 <= n; i += 2) {
    double u0, u1, f0[4], f1[4];
    const double *c0 = table_locate(tab, t[i], &u0),
                 *c1 = table_locate(tab, t[i + 1], &u1);
    if (tab->nfun == 4) {
      table_clenshaw_4x2(c0, u0, c1, u1, f0, f1);
    } else if (tab->nfun == 3) {
      table_clenshaw_3x2(c0, u0, c1, u1, f0, f1);
    } else {
      table_series(tab, c0, u0, f0);
      table_series(tab, c1, u1, f1);
    }
    table_store(tab, x[i], f0, &res[i]);
    table_store(tab, x[i + 1], f1, &res[i + 1]);
  }
  for (; i < n; i++)
    ghmix_bessel_table_eval(tab, x[i], t[i], &res[i]);
}

void ghmix_bessel_table_free(ghmix_bessel_table *tab) {
  free(tab->coef);
  tab->coef = tab->cosines = NULL;
}
