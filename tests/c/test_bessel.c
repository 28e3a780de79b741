/* Accuracy and property tests for src/core/bessel.c, without R.
 *
 *   test_bessel [-v] [--report] [fixture.csv]
 *
 * Reads the mpmath references (tests/testthat/fixtures/bessel_ref.csv, made by
 * tools/make_bessel_fixtures.py) and compares, per row, every quantity the
 * core computes.  Error measure everywhere: |got - ref| / max(1, |ref|).
 *
 * Test cases: each (check, region) group is ONE test case; it passes when
 * every row in the group is within the threshold.  Groups:
 *   - fixture comparisons: logk, dx, dnu, dnu2, dnudx, dx2, log_ratio_up,
 *     log_ratio_down, per fixture region;
 *   - identities per fixture region (recurrence, dx_ratios, symmetry);
 *   - fuzz over the whole domain (finite, recurrence, dx_ratios, symmetry,
 *     fd_dx, fd_dnu), fuzz_ext (log K finite for any finite x > 0, |nu| <= 1e6),
 *     paths and path_seams (the call modes that take other paths, CF2 and
 *     the trapezoid rule without second moments, against GRAD|HESS|RATIOS,
 *     for 2 < x < 100, |nu| < 16: path_logk, path_ratios, path_dnu, path_dx),
 *     contract (NaN in -> NaN out, fields not asked for left untouched).
 * A quantity is checked in every call mode that produces it
 * (ghmix_bessel_logk, ghmix_bessel_eval with 0, GRAD and GRAD|HESS|RATIOS);
 * the error of a row is the worst over the modes.
 *
 * Output: a table of the worst error per group, tables of the worst log K,
 * d/dx and d/dnu errors by x band and |nu| band, with -v every failing row,
 * and last the line "N passed, M failed".  Exit status 1 when a case fails,
 * except with --report (always 0).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bessel.h"

/* ----------------------------------------------------------- thresholds */

#define TOL_LOGK 1e-14  /* issue bar */
#define TOL_D1 1e-12    /* dx, dnu: issue bar */
#define TOL_DNU2 1e-10  /* issue bar */
#define TOL_D2 1e-10    /* dnudx, dx2: no bar in the issue; same as dnu2 */
#define TOL_RATIO 1e-13 /* log ratios: same as the identities */
#define TOL_IDENT 1e-13 /* recurrence, dx from the ratios: issue bar */
#define TOL_SYM 1e-15   /* K_{-nu} = K_nu */

enum { Q_LOGK, Q_DX, Q_DNU, Q_DNU2, Q_DNUDX, Q_DX2, Q_LRU, Q_LRD, NQ };
static const char *qname[NQ] = {"logk", "dx", "dnu", "dnu2", "dnudx",
                                "dx2", "log_ratio_up", "log_ratio_down"};
static const double qtol[NQ] = {TOL_LOGK, TOL_D1, TOL_D1, TOL_DNU2,
                                TOL_D2, TOL_D2, TOL_RATIO, TOL_RATIO};

/* ----------------------------------------------------------- groups */

typedef struct {
  char check[32];
  char region[32];
  double tol;
  long n;      /* rows checked */
  long nfail;  /* rows over tol */
  double worst;
  double wx, wnu; /* where */
  double wgot, wref;
} group;

#define MAXG 512
static group groups[MAXG];
static int ngroups = 0;
static int verbose = 0;

static group *get_group(const char *check, const char *region, double tol) {
  for (int i = 0; i < ngroups; i++)
    if (!strcmp(groups[i].check, check) && !strcmp(groups[i].region, region))
      return &groups[i];
  if (ngroups == MAXG) {
    fprintf(stderr, "too many groups\n");
    exit(2);
  }
  group *g = &groups[ngroups++];
  memset(g, 0, sizeof *g);
  snprintf(g->check, sizeof g->check, "%s", check);
  snprintf(g->region, sizeof g->region, "%s", region);
  g->tol = tol;
  g->worst = -1;
  return g;
}

/* err: NaN/Inf count as failures (worst = Inf). */
static void record(const char *check, const char *region, double tol,
                   double err, double x, double nu, double got, double ref) {
  group *g = get_group(check, region, tol);
  if (isnan(err)) err = INFINITY;
  g->n++;
  if (err > g->worst) {
    g->worst = err;
    g->wx = x;
    g->wnu = nu;
    g->wgot = got;
    g->wref = ref;
  }
  if (!(err <= tol)) {
    g->nfail++;
    if (verbose)
      printf("FAIL %-14s %-12s x=%.17g nu=%.17g got=%.17g ref=%.17g "
             "err=%.3g (tol %.1g)\n",
             check, region, x, nu, got, ref, err, tol);
  }
}

static double relerr(double got, double ref) {
  if (!isfinite(got)) return INFINITY;
  return fabs(got - ref) / fmax(1.0, fabs(ref));
}

/* ----------------------------------------------------------- bands */

#define NXB 8
#define NNB 7
static const double xb_lo[NXB] = {0, 1e-100, 1e-10, 1e-3, 1, 1e3, 1e10, 1e100};
static const char *xb_name[NXB] = {"<1e-100", "1e-100..", "1e-10..", "1e-3..",
                                   "1..", "1e3..", "1e10..", "1e100.."};
static const double nb_lo[NNB] = {0, 1e-6, 0.5, 5, 16, 50, 200};
static const char *nb_name[NNB] = {"|nu|<1e-6", "1e-6..0.5", "0.5..5",
                                   "5..16", "16..50", "50..200", "200..1000"};
static double band_worst[3][NXB][NNB];
static long band_n[NXB][NNB];

static int xband(double x) {
  int b = 0;
  for (int i = 0; i < NXB; i++)
    if (x >= xb_lo[i]) b = i;
  return b;
}
static int nband(double nu) {
  int b = 0;
  for (int i = 0; i < NNB; i++)
    if (fabs(nu) >= nb_lo[i]) b = i;
  return b;
}

/* ----------------------------------------------------------- fixture */

typedef struct {
  double x, nu, q[NQ];
  char region[32];
} row;

static int split_csv(char *line, char **f, int maxf) {
  int n = 0;
  char *p = line;
  while (n < maxf) {
    f[n++] = p;
    char *c = strchr(p, ',');
    if (!c) break;
    *c = '\0';
    p = c + 1;
  }
  /* strip newline from last field */
  char *e = f[n - 1] + strlen(f[n - 1]);
  while (e > f[n - 1] && (e[-1] == '\n' || e[-1] == '\r')) *--e = '\0';
  return n;
}

static double parse_num(const char *s) {
  if (!strcmp(s, "NA") || !*s) return NAN;
  char *end;
  double v = strtod(s, &end);
  if (*end) {
    fprintf(stderr, "bad number '%s'\n", s);
    exit(2);
  }
  return v;
}

static row *read_fixture(const char *path, long *nrows) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  char line[4096];
  char *fld[64];
  int col[NQ + 3];
  const char *want[NQ + 3] = {"x", "nu", "logk", "dx", "dnu", "dnu2",
                              "dnudx", "dx2", "log_ratio_up",
                              "log_ratio_down", "region"};
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return NULL;
  }
  int nf = split_csv(line, fld, 64);
  for (int j = 0; j < NQ + 3; j++) {
    col[j] = -1;
    for (int i = 0; i < nf; i++)
      if (!strcmp(fld[i], want[j])) col[j] = i;
    if (col[j] < 0) {
      fprintf(stderr, "%s: no column '%s'\n", path, want[j]);
      exit(2);
    }
  }
  long cap = 8192, n = 0;
  row *rows = malloc(cap * sizeof *rows);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '\n') continue;
    nf = split_csv(line, fld, 64);
    if (n == cap) {
      cap *= 2;
      rows = realloc(rows, cap * sizeof *rows);
    }
    row *r = &rows[n++];
    r->x = parse_num(fld[col[0]]);
    r->nu = parse_num(fld[col[1]]);
    for (int q = 0; q < NQ; q++) r->q[q] = parse_num(fld[col[q + 2]]);
    snprintf(r->region, sizeof r->region, "%s", fld[col[NQ + 2]]);
  }
  fclose(f);
  *nrows = n;
  return rows;
}

/* ----------------------------------------------------------- checks */

#define ALL (GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS | GHMIX_BESSEL_RATIOS)

/* Identities on one point (no reference needed). */
static void identities(const char *region, double x, double nu,
                       const ghmix_bessel_result *a) {
  ghmix_bessel_result b;
  double ru = a->ratio_up, rd = a->ratio_down, t = 2 * nu / x;
  /* K_{nu+1} = K_{nu-1} + (2 nu / x) K_nu, divided by K_nu:
   *   ratio_up - ratio_down = 2 nu / x.
   * Both ratios are positive and each carries a relative error, so the
   * residual is measured against the largest of the three terms (for small
   * |nu| and small x the two ratios are huge and nearly equal; a relative
   * error in 2 nu / x would demand impossible accuracy there). */
  double big = fmax(fmax(ru, rd), fabs(t));
  double e = (isfinite(ru) && isfinite(rd)) ? fabs(ru - rd - t) / big : INFINITY;
  record("recurrence", region, TOL_IDENT, e, x, nu, ru - rd, t);
  /* d/dx log K = -(K_{nu-1} + K_{nu+1}) / (2 K_nu): relative */
  double s = -(ru + rd) / 2;
  e = isfinite(a->dx) ? fabs(a->dx - s) / fmax(fabs(s), DBL_MIN) : INFINITY;
  record("dx_ratios", region, TOL_IDENT, e, x, nu, a->dx, s);
  /* symmetry K_{-nu} = K_nu: log K, dx equal; dnu, dnudx change sign;
   * dnu2, dx2 equal; the ratios swap.  Worst of all, |a-b|/max(1,|a|). */
  ghmix_bessel_eval(x, -nu, ALL, &b);
  double w = relerr(b.logk, a->logk);
  w = fmax(w, relerr(b.dx, a->dx));
  w = fmax(w, relerr(-b.dnu, a->dnu));
  w = fmax(w, relerr(b.dnu2, a->dnu2));
  w = fmax(w, relerr(-b.dnudx, a->dnudx));
  if (isfinite(a->dx2)) w = fmax(w, relerr(b.dx2, a->dx2));
  /* the ratios relative to themselves */
  w = fmax(w, isfinite(b.ratio_up) ? fabs(b.ratio_up - a->ratio_down) / a->ratio_down : INFINITY);
  w = fmax(w, isfinite(b.ratio_down) ? fabs(b.ratio_down - a->ratio_up) / a->ratio_up : INFINITY);
  record("symmetry", region, TOL_SYM, w, x, nu, b.logk, a->logk);
}

static void check_row(const row *r) {
  double x = r->x, nu = r->nu;
  double got[NQ], err[NQ];
  ghmix_bessel_result m0, mg, ma, mr;
  for (int q = 0; q < NQ; q++) err[q] = 0;

  double lk = ghmix_bessel_logk(x, nu);
  ghmix_bessel_eval(x, nu, 0, &m0);
  ghmix_bessel_eval(x, nu, GHMIX_BESSEL_GRAD, &mg);
  ghmix_bessel_eval(x, nu, ALL, &ma);
  /* ratios without derivatives: the half-integer closed form where it
   * applies (the NIG E-step's path) */
  ghmix_bessel_eval(x, nu, GHMIX_BESSEL_RATIOS, &mr);

  /* log K from all five modes */
  got[Q_LOGK] = lk;
  err[Q_LOGK] = relerr(lk, r->q[Q_LOGK]);
  double e;
  const double modes[4] = {m0.logk, mg.logk, ma.logk, mr.logk};
  for (int i = 0; i < 4; i++)
    if ((e = relerr(modes[i], r->q[Q_LOGK])) > err[Q_LOGK] || isnan(e)) {
      err[Q_LOGK] = e;
      got[Q_LOGK] = modes[i];
    }
  /* first derivatives from GRAD and ALL */
  got[Q_DX] = mg.dx;
  err[Q_DX] = relerr(mg.dx, r->q[Q_DX]);
  if ((e = relerr(ma.dx, r->q[Q_DX])) > err[Q_DX] || isnan(e)) {
    err[Q_DX] = e;
    got[Q_DX] = ma.dx;
  }
  got[Q_DNU] = mg.dnu;
  err[Q_DNU] = relerr(mg.dnu, r->q[Q_DNU]);
  if ((e = relerr(ma.dnu, r->q[Q_DNU])) > err[Q_DNU] || isnan(e)) {
    err[Q_DNU] = e;
    got[Q_DNU] = ma.dnu;
  }
  got[Q_DNU2] = ma.dnu2;
  got[Q_DNUDX] = ma.dnudx;
  got[Q_DX2] = ma.dx2;
  got[Q_LRU] = log(ma.ratio_up);
  got[Q_LRD] = log(ma.ratio_down);
  for (int q = Q_DNU2; q < NQ; q++) err[q] = relerr(got[q], r->q[q]);
  if ((e = relerr(log(mr.ratio_up), r->q[Q_LRU])) > err[Q_LRU] || isnan(e)) {
    err[Q_LRU] = e;
    got[Q_LRU] = log(mr.ratio_up);
  }
  if ((e = relerr(log(mr.ratio_down), r->q[Q_LRD])) > err[Q_LRD] || isnan(e)) {
    err[Q_LRD] = e;
    got[Q_LRD] = log(mr.ratio_down);
  }

  for (int q = 0; q < NQ; q++) {
    if (isnan(r->q[q])) continue; /* not representable: not checked */
    record(qname[q], r->region, qtol[q], err[q], x, nu, got[q], r->q[q]);
  }
  int xb = xband(x), nb = nband(nu);
  band_n[xb][nb]++;
  for (int k = 0; k < 3; k++) {
    double ek = isnan(err[k]) ? INFINITY : err[k];
    if (ek > band_worst[k][xb][nb]) band_worst[k][xb][nb] = ek;
  }
  identities(r->region, x, nu, &ma);
}

/* ----------------------------------------------------------- fuzz */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static double unif(void) { /* xorshift64*, [0, 1) with 53 bits */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static int all_finite(const ghmix_bessel_result *r, double x) {
  /* d2/dx2 log K ~ nu/x^2 overflows for x < ~1e-150: not required there */
  return isfinite(r->logk) && isfinite(r->dx) && isfinite(r->dnu) &&
         isfinite(r->dnu2) && isfinite(r->dnudx) &&
         (x < 1e-150 || isfinite(r->dx2)) && isfinite(r->ratio_up) &&
         isfinite(r->ratio_down) && r->ratio_up > 0 && r->ratio_down > 0;
}

/* Central 4-point differences of log K against the analytic derivatives, on
 * the benchmark distribution (x in [1e-3, 1e3], |nu| <= 50): catches seams
 * and wrong derivative formulas between reference points.  Tolerance: the
 * rounding of the differenced values (each log K allowed the 1e-14 bar:
 * error <= 1.5 * 1e-14 * max(1, |log K|) / h, times 2 for margin) plus the
 * O(h^4) truncation (<= 1e-9 relative here). */
static void fd_checks(double x, double nu, const ghmix_bessel_result *a) {
  double s = 3e-14 * fmax(1.0, fabs(a->logk));
  double h = 1e-3 * x;
  double fd = (8 * (ghmix_bessel_logk(x + h, nu) - ghmix_bessel_logk(x - h, nu)) -
               (ghmix_bessel_logk(x + 2 * h, nu) - ghmix_bessel_logk(x - 2 * h, nu))) /
              (12 * h);
  double e = fabs(fd - a->dx) / fmax(1.0, fabs(a->dx));
  double tol = (s / h) / fmax(1.0, fabs(a->dx)) + 1e-9;
  /* record err/tol against 1 so one group holds varying tolerances */
  record("fd_dx/tol", "fuzz", 1.0, isfinite(fd) ? e / tol : INFINITY, x, nu, fd, a->dx);
  h = 1e-4;
  fd = (8 * (ghmix_bessel_logk(x, nu + h) - ghmix_bessel_logk(x, nu - h)) -
        (ghmix_bessel_logk(x, nu + 2 * h) - ghmix_bessel_logk(x, nu - 2 * h))) /
       (12 * h);
  e = fabs(fd - a->dnu) / fmax(1.0, fabs(a->dnu));
  tol = (s / h) / fmax(1.0, fabs(a->dnu)) + 1e-9;
  record("fd_dnu/tol", "fuzz", 1.0, isfinite(fd) ? e / tol : INFINITY, x, nu, fd, a->dnu);
}

static void fuzz(long n) {
  ghmix_bessel_result a;
  for (long i = 0; i < n; i++) {
    /* whole domain: x log-uniform in [1e-300, 1e300]; |nu| uniform in
     * [0, 1000] or log-uniform in [1e-12, 1e3]; random sign */
    double x = pow(10.0, -300 + 600 * unif());
    double nu = (i & 1) ? 1000 * unif() : pow(10.0, -12 + 15 * unif());
    if (unif() < 0.5) nu = -nu;
    if (x > 1e300) x = 1e300;
    ghmix_bessel_eval(x, nu, ALL, &a);
    record("finite", "fuzz", 0, all_finite(&a, x) ? 0 : INFINITY, x, nu, a.logk, 0);
    identities("fuzz", x, nu, &a);
    /* benchmark distribution */
    x = pow(10.0, -3 + 6 * unif());
    nu = -50 + 100 * unif();
    ghmix_bessel_eval(x, nu, ALL, &a);
    record("finite", "fuzz_bench", 0, all_finite(&a, x) ? 0 : INFINITY, x, nu, a.logk, 0);
    identities("fuzz_bench", x, nu, &a);
    if (i % 4 == 0) fd_checks(x, nu, &a);
  }
  /* log K for any finite x > 0 (subnormals to DBL_MAX) and |nu| <= 1e6:
   * the true value is representable, so it must be finite */
  for (long i = 0; i < n / 4; i++) {
    double x = pow(2.0, -1074 + 2098 * unif());
    if (!(x > 0)) x = 4.9406564584124654e-324;
    if (!isfinite(x)) x = DBL_MAX;
    double nu = (i & 1) ? pow(10.0, -12 + 18 * unif()) : 1e6 * unif();
    if (unif() < 0.5) nu = -nu;
    double lk = ghmix_bessel_logk(x, nu);
    record("finite_logk", "fuzz_ext", 0, isfinite(lk) ? 0 : INFINITY, x, nu, lk, 0);
  }
  const double ex[] = {4.9406564584124654e-324, DBL_MIN, 1e-300, 1, 1e300, DBL_MAX};
  const double en[] = {0, 1e-300, 0.5, 1000, -1000, 1e6};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      double lk = ghmix_bessel_logk(ex[i], en[j]);
      record("finite_logk", "fuzz_ext", 0, isfinite(lk) ? 0 : INFINITY, ex[i], en[j], lk, 0);
    }
}

/* ----------------------------------------------------------- paths */

/* For 2 < x < 100 and |nu| < 16 the cheaper call modes take other paths
 * than GRAD|HESS|RATIOS (src/core/bessel.c): Temme's CF2 without
 * nu-derivatives (x < 100) and with first ones (5 <= x < 30), the trapezoid
 * rule without its second moments (GRAD, x < 5), while GRAD|HESS|RATIOS
 * takes the trapezoid rule with all moments (x < 30) or Hankel's series.
 * Compare the modes 0, RATIOS and RATIOS|GRAD with GRAD|HESS|RATIOS on
 * random points of that regime (region "paths") and at its seams (region
 * "path_seams": x next to 5, 30, 100 on both sides, just above 2 (x <= 2 is
 * the series' in every mode); nu near 0, near the integers and
 * half-integers, near 16).  Error |a - b| / max(1, |b|); the ratios
 * relative to themselves.  Both sides carry their own error (up to ~2e-15
 * on log K), hence tolerances a little above the fixture checks' worst. */
#define TOL_PATH_LOGK 5e-15
#define TOL_PATH_RATIO 5e-15
#define TOL_PATH_D1 5e-15

static double ratio_err(double got, double ref) {
  return (isfinite(got) && got > 0) ? fabs(got - ref) / ref : INFINITY;
}

static void path_point(const char *region, double x, double nu) {
  ghmix_bessel_result ref, m[3];
  const int what[3] = {0, GHMIX_BESSEL_RATIOS,
                       GHMIX_BESSEL_RATIOS | GHMIX_BESSEL_GRAD};
  ghmix_bessel_eval(x, nu, ALL, &ref);
  for (int k = 0; k < 3; k++) ghmix_bessel_eval(x, nu, what[k], &m[k]);
  double e = -1, got = NAN, r = ref.logk;
  for (int k = 0; k < 3; k++) {
    double ek = relerr(m[k].logk, ref.logk);
    if (!(ek <= e)) { e = ek; got = m[k].logk; }
  }
  record("path_logk", region, TOL_PATH_LOGK, e, x, nu, got, r);
  e = -1;
  for (int k = 1; k < 3; k++) {
    double eu = ratio_err(m[k].ratio_up, ref.ratio_up);
    double ed = ratio_err(m[k].ratio_down, ref.ratio_down);
    if (!(eu <= e)) { e = eu; got = m[k].ratio_up; r = ref.ratio_up; }
    if (!(ed <= e)) { e = ed; got = m[k].ratio_down; r = ref.ratio_down; }
  }
  record("path_ratios", region, TOL_PATH_RATIO, e, x, nu, got, r);
  record("path_dnu", region, TOL_PATH_D1, relerr(m[2].dnu, ref.dnu), x, nu,
         m[2].dnu, ref.dnu);
  record("path_dx", region, TOL_PATH_D1, relerr(m[2].dx, ref.dx), x, nu,
         m[2].dx, ref.dx);
}

/* nu near what the paths treat specially: 0, the integers and
 * half-integers (the order shift of the recurrence, mu = +-1/2), 16 */
static double path_nu(void) {
  double u = unif(), d = pow(10.0, -15 + 14 * unif()) * (unif() < 0.5 ? -1 : 1);
  int k = (int)(16 * unif());
  double nu;
  if (u < 0.4) nu = 16 * unif();
  else if (u < 0.55) nu = fabs(k + 0.5 + d);
  else if (u < 0.7) nu = fabs(k + d);
  else if (u < 0.8) nu = 16 - fabs(d);
  else if (u < 0.9) nu = pow(10.0, -300 + 300 * unif());
  else nu = (u < 0.95) ? k + 0.5 : k;
  return unif() < 0.5 ? -nu : nu;
}

static void paths(long n) {
  static const double seam[4] = {2, 5, 30, 100};
  for (long i = 0; i < n; i++) {
    double u = unif(), x;
    if (u < 0.5) x = 2 + 28 * unif();
    else if (u < 0.75) x = 2 * pow(50.0, unif());
    else {
      /* next to a seam; above 2 only (below, the series serves every mode) */
      int k = (int)(4 * unif());
      double d = pow(10.0, -15 + 14 * unif());
      x = seam[k] * (1 + ((k == 0 || unif() < 0.5) ? d : -d));
    }
    path_point("paths", x, path_nu());
  }
  static const double nus[] = {0, 1e-300, 1e-12, 0.25, 0.5, 1, 1.5, 7.5, 15, 15.5};
  static const double dnu[] = {0, 1e-12, -1e-12, 1e-9, -1e-9};
  for (int s = 0; s < 4; s++) {
    double lo = s ? nextafter(seam[s], 0) : seam[0] * (1 + 1e-9);
    const double xs[3] = {lo, s ? seam[s] : 2 * (1 + 1e-15), nextafter(seam[s], INFINITY)};
    for (int i = 0; i < 3; i++) {
      for (unsigned j = 0; j < sizeof nus / sizeof nus[0]; j++)
        for (unsigned k = 0; k < sizeof dnu / sizeof dnu[0]; k++) {
          double nu = nus[j] + dnu[k];
          path_point("path_seams", xs[i], nu);
          path_point("path_seams", xs[i], -nu);
        }
      path_point("path_seams", xs[i], nextafter(16, 0));
      path_point("path_seams", xs[i], 16 - 1e-9);
    }
  }
}

static void contract(void) {
  /* NaN in gives NaN out */
  double v1 = ghmix_bessel_logk(NAN, 1.0), v2 = ghmix_bessel_logk(1.0, NAN);
  record("nan_in_nan_out", "contract", 0, (isnan(v1) && isnan(v2)) ? 0 : INFINITY,
         NAN, NAN, isnan(v1) ? v2 : v1, NAN);
  /* fields not asked for are left untouched */
  const int what[3] = {0, GHMIX_BESSEL_GRAD, GHMIX_BESSEL_GRAD | GHMIX_BESSEL_HESS};
  const double pts[3][2] = {{1.5, 0.3}, {1e-5, 20}, {1e4, -7}};
  int bad = 0;
  for (int w = 0; w < 3; w++)
    for (int p = 0; p < 3; p++) {
      ghmix_bessel_result r;
      const double S = -12345.5;
      r.logk = r.dx = r.dnu = r.dnu2 = r.dnudx = r.dx2 = r.ratio_up = r.ratio_down = S;
      ghmix_bessel_eval(pts[p][0], pts[p][1], what[w], &r);
      if (r.logk == S) bad++;
      if (!(what[w] & GHMIX_BESSEL_GRAD) && (r.dx != S || r.dnu != S)) bad++;
      if (!(what[w] & GHMIX_BESSEL_HESS) && (r.dnu2 != S || r.dnudx != S || r.dx2 != S)) bad++;
      if (!(what[w] & GHMIX_BESSEL_RATIOS) && (r.ratio_up != S || r.ratio_down != S)) bad++;
    }
  record("untouched_fields", "contract", 0, bad ? INFINITY : 0, NAN, NAN, bad, 0);
}

/* ghmix_bessel_logk_n gives ghmix_bessel_logk's values to the bit
 * (it evaluates the continued fraction's points two at a time): blocks of
 * every size up to two of its blocks, most points in that region, the rest
 * in the others, on their boundaries and special. */
static double batch_point(double *nu) {
  double u = unif();
  *nu = (unif() < 0.5 ? -1 : 1) * 16 * unif();
  if (u < 0.1)
    *nu = floor(*nu) + 0.5;
  else if (u < 0.15)
    *nu = 16 + 30 * unif();
  else if (u < 0.2)
    return 2 * unif();
  else if (u < 0.23)
    return unif() < 0.5 ? 2 : nextafter(100, 0);
  else if (u < 0.25)
    return u < 0.24 ? 0 : NAN;
  else if (u < 0.3)
    return 100 + 1e3 * unif();
  return 2 + 98 * unif() * unif();
}

static void batch(void) {
  enum { MAXN = 2 * GHMIX_BESSEL_LOGK_BLOCK };
  double x[MAXN], nu[MAXN], got[MAXN];
  for (int rep = 0; rep < 40; rep++)
    for (int n = 0; n <= MAXN; n++) {
      for (int i = 0; i < n; i++)
        x[i] = batch_point(&nu[i]);
      ghmix_bessel_logk_n(n, x, nu, got);
      for (int i = 0; i < n; i++) {
        double ref = ghmix_bessel_logk(x[i], nu[i]);
        int same = memcmp(&got[i], &ref, sizeof ref) == 0;
        record("batch_same_bits", "contract", 0, same ? 0 : INFINITY, x[i],
               nu[i], got[i], ref);
      }
    }
}

/* ----------------------------------------------------------- report */

static void print_bands(void) {
  for (int k = 0; k < 3; k++) {
    printf("\nworst %s error by x band (rows) and |nu| band (columns); "
           "'.' = no rows; threshold %.0e\n",
           qname[k], qtol[k]);
    printf("%-10s", "x \\ |nu|");
    for (int j = 0; j < NNB; j++) printf(" %10s", nb_name[j]);
    printf("\n");
    for (int i = 0; i < NXB; i++) {
      printf("%-10s", xb_name[i]);
      for (int j = 0; j < NNB; j++) {
        if (!band_n[i][j])
          printf(" %10s", ".");
        else
          printf(" %10.1e", band_worst[k][i][j]);
      }
      printf("\n");
    }
  }
}

int main(int argc, char **argv) {
  const char *path = "../testthat/fixtures/bessel_ref.csv";
  int report = 0;
  long nfuzz = 100000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-v"))
      verbose = 1;
    else if (!strcmp(argv[i], "--report"))
      report = 1;
    else if (!strncmp(argv[i], "--fuzz=", 7))
      nfuzz = atol(argv[i] + 7);
    else
      path = argv[i];
  }
  long nrows = 0;
  row *rows = read_fixture(path, &nrows);
  if (!rows || nrows == 0) {
    fprintf(stderr, "no fixture rows read from %s\n", path);
    printf("0 passed, 1 failed\n");
    return 1;
  }
  for (long i = 0; i < nrows; i++) check_row(&rows[i]);
  fuzz(nfuzz);
  paths(nfuzz);
  contract();
  batch();

  printf("\ntest_bessel: %ld fixture rows from %s, %ld fuzz points\n", nrows, path, nfuzz);
  printf("error = |got - ref| / max(1, |ref|) unless the check name says otherwise\n\n");
  printf("%-16s %-12s %7s %6s %10s %8s  %-4s  %s\n", "check", "region", "rows",
         "fail", "worst", "tol", "", "worst at x, nu (got / ref)");
  int passed = 0, failed = 0;
  static const char *order[] = {"logk", "dx", "dnu", "dnu2", "dnudx", "dx2",
                                "log_ratio_up", "log_ratio_down", "recurrence",
                                "dx_ratios", "symmetry", "finite", "fd_dx/tol",
                                "fd_dnu/tol", "finite_logk", "path_logk",
                                "path_ratios", "path_dnu", "path_dx",
                                "nan_in_nan_out", "untouched_fields",
                                "batch_same_bits"};
  int norder = (int)(sizeof order / sizeof order[0]);
  int *idx = malloc(ngroups * sizeof *idx), m = 0;
  for (int k = 0; k <= norder; k++)
    for (int i = 0; i < ngroups; i++) {
      int rank = norder;
      for (int j = 0; j < norder; j++)
        if (!strcmp(groups[i].check, order[j])) rank = j;
      if (rank == k) idx[m++] = i;
    }
  for (int ii = 0; ii < m; ii++) {
    group *g = &groups[idx[ii]];
    int ok = g->nfail == 0;
    ok ? passed++ : failed++;
    printf("%-16s %-12s %7ld %6ld %10.2e %8.0e  %-4s  %.17g, %.17g (%.17g / %.17g)\n",
           g->check, g->region, g->n, g->nfail, g->worst, g->tol, ok ? "ok" : "FAIL",
           g->wx, g->wnu, g->wgot, g->wref);
  }
  print_bands();
  free(idx);
  free(rows);
  printf("\n%d passed, %d failed\n", passed, failed);
  return (failed && !report) ? 1 : 0;
}
