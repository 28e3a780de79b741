/* Tests of the CUDA backend (src/cuda, behind src/cuda/ghmix_cuda.h) without
 * R: every kernel against the CPU path on the same inputs.
 *
 *   test_cuda [--n=N] [--tol-scale=S]
 *             [--only=errors|logk|eta|solve|mix|factor|dens|rows]
 *
 * - log K_nu(x) with and without its gradient against ghmix_bessel_logk_batch
 *   (src/cpu, one thread) on N points (default 10^6) in the hard regions
 *   (|nu| up to 1000, x from 1e-300 to 1e300, x ~ nu, nu near 16, x near 2
 *   and 30 (the regime seams), half-integer orders, x / |nu| in 0.51..0.81
 *   where the peak's exponent is a double-double) and the special values
 *   (NaN, R's NA, 0, +-Inf, x < 0), recycled inputs: within 1e-14 of
 *   max(1, |cpu|) (1e-13 for the derivatives), the same NaN / NA / Inf;
 * - gig_expectation, gig_from_expectation (with Jacobian and warm starts,
 *   gamma and inverse-gamma boundaries, infeasible and non-finite rows)
 *   against the CPU drivers: parameters within 1e-12 times the condition
 *   number (1e-10 where it is below 1e3), the Jacobian as relative
 *   sensitivities (d log theta / d log eta) within 1e-10 times it;
 * - the E-step statistics and per-row results for d = 1, 4, 10, 64 against a
 *   plain serial loop over ghmix_mix_row: within 1e-12 relative to the sum
 *   of the absolute values of the terms; counts exact;
 * - the factor-analytic E-step (Sigma = F F' + diag(D)) for d up to 300, r
 *   up to 70, with far, heavy and bad rows and row weights, against the
 *   CPU driver (ghmix_factor_estep_cpu): statistics within 1e-12 of the
 *   sum of |terms| of a serial loop, counts exact, rows within 1e-13;
 * - the univariate GH density (dgh) against ghmix_gh1_dpq_batch on N/5
 *   points: per-element and shared parameter sets of every family, tails
 *   out to |z| = 1e300, the centre, +-Inf, NaN and NA, recycling; log f
 *   within 1e-13 of max(1, |cpu|, the terms that cancel in it: |log c(p,
 *   a, b)| and |B|), f within 1e-13 relative times the same; NA stays NA;
 * - the row kernel (predict/fitted, multivariate dgh) for d = 1 to 1000
 *   against the serial loop (log f and the three moments, within 1e-13)
 *   and against ghmix_gh_density_rows (f); the caller's x untouched;
 * - every output buffer is filled with a NaN pattern first, and no element
 *   may keep it; repeated E-steps are bit-identical; every call's status is
 *   checked, including the error paths (bad device, empty input, an
 *   allocation too large for the device, which must name its bytes), and
 *   device memory is the same before and after them.
 *
 * Without a usable device it prints why, "0 passed, 0 failed" and exits 0.
 * Each check is one test case; the last line is "N passed, M failed"; exit
 * status 1 when a check fails.
 *
 * Built by `make -C tests/c cuda` (nvcc).  With -DGHMIX_TEST_MOCK the same
 * file builds as plain C++ against a CPU stand-in of the CUDA functions
 * (used to check this harness and its tolerances without a GPU). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GHMIX_TEST_MOCK
#include <cuda_runtime.h>
#endif

extern "C" {
#include "../../src/core/factor.h"
#include "../../src/core/gig_solve.h"
#include "../../src/core/mixture.h"
#include "../../src/core/mixture_g.h"
#include "../../src/cpu/bessel_cpu.h"
#include "../../src/cpu/factor_cpu.h"
#include "../../src/cpu/gh_dist_cpu.h"
#include "../../src/cpu/gig_solve_cpu.h"
#include "../../src/cpu/mixture_cpu.h"
#include "../../src/cuda/ghmix_cuda.h"
#include "mix_setup.h"
}
/* the launch plans (host and device inline functions) */
#include "../../src/cuda/factor_tile.h"
#include "../../src/cuda/mixg_tile.h"

/* ---------------------------------------------------------- thresholds
 *
 * The GPU runs the same code as the CPU, but nvcc contracts a * b + c into
 * fused multiply-adds and CUDA's log, exp, ... differ from glibc's in the
 * last bit, so results agree to rounding, amplified by the conditioning of
 * each quantity.  Measured with `make cuda-mock-fused` (this file against
 * the CPU stand-in whose device side is compiled as nvcc compiles device
 * code: every a * b + c one fma, tests/c/fma_contract.py), the largest
 * differences on these inputs were 4.2e-15 for log K itself (1.0e-13
 * before the peak's exponent was written without a product that a
 * compiler could fuse), 3.6e-14 for its derivatives, 1.4e-14 for the GIG
 * expectation parameters; for gig_from_expectation the parameters move by
 * up to about condition * 2e-14 (the Newton iteration stops at its noise
 * floor, which rounding moves), e.g. 7e-12 at condition 329, the condition
 * number being up to 1e17 near the gamma boundaries (where a or b is
 * barely determined). */
#define TOL_LOGK 1e-14   /* log K: issue bar */
#define TOL_LOGK_D 1e-13 /* d/dx, d/dnu log K (the core's own bar: 1e-12) */
#define TOL_ETA 1e-13    /* E log Y, E 1/Y, E Y */
#define TOL_SOLVE 1e-12  /* p, a, b, relative; times the condition number */
#define TOL_SOLVE_COND_MAX 1e12 /* rows beyond: only both must converge */
#define TOL_SOLVE_JAC 1e-10     /* Jacobian; times the condition number */
#define JAC_PROPAGATE                                                          \
  10.0 /* ... beyond this times the parameters' difference */
#define TOL_SOLVE_WELL 1e-10 /* p, a, b where the condition is < 1e3 */
#define TOL_STATS 1e-12      /* E-step sums, relative to the sum of |terms| */
#define TOL_ROWS 1e-13       /* E-step per-row results */
#define TOL_DENS 1e-13       /* dgh and the row kernel: log f, f */

/* ------------------------------------------------------------- harness */

static int passed = 0, failed = 0;
static double tol_scale = 1.0;

static void check(int ok, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  printf("%s ", ok ? "PASS" : "FAIL");
  vprintf(fmt, args);
  printf("\n");
  va_end(args);
  if (ok)
    passed++;
  else
    failed++;
  fflush(stdout);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) {
    printf("FAIL cannot allocate %.0f bytes on the host\n", (double)bytes);
    printf("%d passed, %d failed\n", passed, failed + 1);
    exit(1);
  }
  return p;
}

/* splitmix64 */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double u01(void) {
  return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}
static double unif(double lo, double hi) { return lo + (hi - lo) * u01(); }
static double logunif(double lo10, double hi10) {
  return pow(10.0, unif(lo10, hi10));
}
static double sign_rand(void) { return u01() < 0.5 ? -1.0 : 1.0; }

static double from_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}
static uint64_t to_bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* R's NA_real_, and a NaN pattern that no computation produces */
static const uint64_t NA_BITS = 0x7FF00000000007A2ULL;
static const uint64_t POISON_BITS = 0x7FF4DEADBEEF0BADULL;
static const int POISON_INT = -1234567891;

static int is_na(double v) {
  return isnan(v) && (to_bits(v) & 0xFFFFFFFFULL) == 1954;
}

static void poison(double *v, size_t n) {
  double p = from_bits(POISON_BITS);
  size_t i;
  for (i = 0; i < n; i++)
    v[i] = p;
}
static void poison_int(int *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    v[i] = POISON_INT;
}
static size_t count_poison(const double *v, size_t n) {
  size_t i, k = 0;
  for (i = 0; i < n; i++)
    k += to_bits(v[i]) == POISON_BITS;
  return k;
}
static size_t count_poison_int(const int *v, size_t n) {
  size_t i, k = 0;
  for (i = 0; i < n; i++)
    k += v[i] == POISON_INT;
  return k;
}

/* Worst disagreement of got with ref over a set of values.  Finite ref:
 * |got - ref| / scale(ref); a non-finite ref must be matched exactly in
 * kind (NaN with the same NA-ness, or the same infinity). */
typedef struct {
  double max_err;
  size_t worst;
  size_t n_class; /* values whose kind (finite, Inf, NaN, NA) differs */
  size_t n;
} cmp_t;

static void cmp_init(cmp_t *c) {
  c->max_err = 0;
  c->worst = 0;
  c->n_class = 0;
  c->n = 0;
}

enum { SCALE_ABS1, SCALE_REL };

static void cmp_add(cmp_t *c, double got, double ref, int mode, size_t i) {
  double e;
  c->n++;
  if (isnan(ref)) {
    if (!isnan(got) || is_na(got) != is_na(ref))
      c->n_class++;
    return;
  }
  if (isinf(ref)) {
    if (got != ref)
      c->n_class++;
    return;
  }
  if (!isfinite(got)) {
    c->n_class++;
    return;
  }
  if (mode == SCALE_ABS1)
    e = fabs(got - ref) / fmax(1.0, fabs(ref));
  else
    e = ref == 0 ? fabs(got) : fabs(got - ref) / fabs(ref);
  if (e > c->max_err) {
    c->max_err = e;
    c->worst = i;
  }
}

/* The parity table printed at the end: per kernel (the section running:
 * parity_kernel), the largest error of its comparisons with the CPU, in
 * units of its tolerance, and the error itself. */
typedef struct {
  const char *kernel;
  double ratio, err, tol;
  int n;
} parity_row;
static parity_row parity[16];
static int nparity = 0;
static const char *parity_kernel = "other";
/* the rows' and densities' checks shared by two kernels: set per test */
static const char *parity_rows_kernel = "E-step, G = 1: rows";
static const char *parity_dens_kernel = "dgh, univariate";

static void parity_note(double err, double tol) {
  int k;
  for (k = 0; k < nparity && strcmp(parity[k].kernel, parity_kernel); k++)
    ;
  if (k == nparity) {
    if (nparity == (int)(sizeof parity / sizeof *parity))
      return;
    parity[nparity].kernel = parity_kernel;
    parity[nparity].ratio = -1;
    parity[nparity++].n = 0;
  }
  parity[k].n++;
  if (!(err / tol <= parity[k].ratio)) {
    parity[k].ratio = isnan(err) ? INFINITY : err / tol;
    parity[k].err = err;
    parity[k].tol = tol;
  }
}

static void parity_print(void) {
  int k;
  printf("\nparity with the CPU: the largest error of each kernel's "
         "comparisons\n%-34s %12s %12s %10s %6s\n",
         "kernel", "largest err", "its tol", "err / tol", "checks");
  for (k = 0; k < nparity; k++)
    printf("%-34s %12.3g %12.3g %10.3g %6d\n", parity[k].kernel, parity[k].err,
           parity[k].tol, parity[k].ratio, parity[k].n);
}

static int cmp_ok(const cmp_t *c, double tol) {
  parity_note(c->n_class ? INFINITY : c->max_err, tol);
  return c->n_class == 0 && c->max_err <= tol * tol_scale;
}

/* ------------------------------------------------------- device access */

static int device_memory_free(double *bytes) {
#ifdef GHMIX_TEST_MOCK
  *bytes = 0;
  return 1;
#else
  size_t f = 0, t = 0;
  if (cudaSetDevice(0) != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemGetInfo(&f, &t) != cudaSuccess)
    return 0;
  *bytes = (double)f;
  return 1;
#endif
}

static void print_device(void) {
  ghmix_cuda_device dev;
  ghmix_error err;
  int rt = 0, drv = 0;
  if (ghmix_cuda_device_info(0, &dev, &err) == GHMIX_OK)
    printf("device 0: %s, compute capability %d.%d, %d SMs, %.1f GiB\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.multiprocessors,
           dev.total_mem_bytes / 1073741824.0);
  if (ghmix_cuda_versions(&rt, &drv, &err) == GHMIX_OK)
    printf("CUDA runtime %d, driver %d, toolkit %d, code %s\n", rt, drv,
           ghmix_cuda_toolkit_version(), ghmix_cuda_archs());
}

/* ============================================================ log K */

enum {
  R_GENERIC,
  R_EXTREME,
  R_X_NEAR_NU,
  R_NU_NEAR_16,
  R_X_NEAR_2,
  R_X_NEAR_30,
  R_HALFINT,
  R_SMALL,
  R_PEAK_ROOT,
  R_SPECIAL,
  R_COUNT
};
static const char *region_name[R_COUNT] = {
    "generic (x 1e-3..1e3, |nu| <= 50)",
    "extreme (x 1e-300..1e300, |nu| <= 1000)",
    "x ~ |nu| (|nu| <= 1000)",
    "|nu| near 16",
    "x near 2",
    "x near 30",
    "half-integer nu",
    "small x and nu (x 1e-300..1e-2, |nu| <= 1)",
    "x / |nu| 0.51..0.81, |nu| 6..1000 (the peak's double-double window)",
    "special values"};

static const double special_x[] = {
    0.0, -0.0, -1.0, 1.0, 2.5, INFINITY, -INFINITY, 5e-324, DBL_MAX, DBL_MIN};
static const double special_nu[] = {0.0,      -0.0,      1.0,    -3.5, 16.0,
                                    INFINITY, -INFINITY, 1000.0, 0.5,  -0.5};

static void gen_point(int region, double *x, double *nu) {
  switch (region) {
  case R_GENERIC:
    *x = logunif(-3, 3);
    *nu = unif(-50, 50);
    break;
  case R_EXTREME:
    *x = logunif(-300, 300);
    *nu = unif(-1000, 1000);
    break;
  case R_X_NEAR_NU:
    *nu = sign_rand() * logunif(-1, 3);
    *x = fabs(*nu) * (1.0 + unif(-0.2, 0.2));
    break;
  case R_NU_NEAR_16:
    *nu = sign_rand() * (16.0 + unif(-1e-3, 1e-3) * (u01() < 0.3 ? 1e-10 : 1));
    *x = logunif(-3, 3);
    if (u01() < 0.3)
      *x = 16.0 * (1.0 + unif(-0.1, 0.1));
    break;
  case R_X_NEAR_2:
    *x = 2.0 + unif(-1e-3, 1e-3) * (u01() < 0.3 ? 1e-10 : 1);
    *nu = unif(-16.5, 16.5);
    break;
  case R_X_NEAR_30:
    *x = 30.0 + unif(-1e-3, 1e-3) * (u01() < 0.3 ? 1e-10 : 1);
    *nu = unif(-16.5, 16.5);
    break;
  case R_HALFINT:
    *nu = (double)((int)unif(-45, 45)) + 0.5;
    *x = logunif(-3, 3);
    break;
  case R_SMALL:
    *x = logunif(-300, -2);
    *nu = unif(-1, 1);
    if (u01() < 0.2)
      *nu = 0;
    break;
  case R_PEAK_ROOT: /* where FMA contraction once moved log K by 1e-13 */
    *nu = sign_rand() * unif(6, 1000);
    *x = fabs(*nu) * unif(0.51, 0.81);
    break;
  default: { /* special values, and NaN / NA in either */
    int k = (int)(u01() * 12);
    *x = special_x[(int)(u01() * 10)];
    *nu = special_nu[(int)(u01() * 10)];
    if (k == 10)
      *x = u01() < 0.5 ? from_bits(NA_BITS) : NAN;
    if (k == 11)
      *nu = u01() < 0.5 ? from_bits(NA_BITS) : NAN;
  }
  }
}

static void test_logk(size_t npts) {
  size_t n = npts, i, per = n / R_COUNT;
  double *x = (double *)xmalloc(n * sizeof(double));
  double *nu = (double *)xmalloc(n * sizeof(double));
  int *reg = (int *)xmalloc(n * sizeof(int));
  double *c_v = (double *)xmalloc(n * sizeof(double));
  double *c_gx = (double *)xmalloc(n * sizeof(double));
  double *c_gn = (double *)xmalloc(n * sizeof(double));
  double *g_v = (double *)xmalloc(n * sizeof(double));
  double *g_gx = (double *)xmalloc(n * sizeof(double));
  double *g_gn = (double *)xmalloc(n * sizeof(double));
  double *c_v0 = (double *)xmalloc(n * sizeof(double));
  ghmix_error err;
  ghmix_status st;
  cmp_t c[R_COUNT][4];
  int r, k;
  double t0, t_cpu, t_gpu;

  for (i = 0; i < n; i++) {
    reg[i] = (int)(i / (per > 0 ? per : 1));
    if (reg[i] >= R_COUNT)
      reg[i] = R_COUNT - 1;
    gen_point(reg[i], &x[i], &nu[i]);
  }

  /* CPU references: value only, then with the gradient */
  st = ghmix_bessel_logk_batch(n, x, n, nu, n, c_v0, NULL, NULL, 1, &err);
  check(st == GHMIX_OK, "logk: CPU reference (%s)", err.message);
  t0 = now_s();
  st = ghmix_bessel_logk_batch(n, x, n, nu, n, c_v, c_gx, c_gn, 1, &err);
  t_cpu = now_s() - t0;
  check(st == GHMIX_OK, "logk: CPU reference with gradient (%s)", err.message);

  /* value only */
  poison(g_v, n);
  st = ghmix_cuda_bessel_logk_batch(n, x, n, nu, n, g_v, NULL, NULL, 0, &err);
  check(st == GHMIX_OK, "logk: CUDA status %d (%s)", (int)st, err.message);
  check(count_poison(g_v, n) == 0, "logk: every value written (%lu not)",
        (unsigned long)count_poison(g_v, n));
  for (r = 0; r < R_COUNT; r++)
    cmp_init(&c[r][0]);
  for (i = 0; i < n; i++)
    cmp_add(&c[reg[i]][0], g_v[i], c_v0[i], SCALE_ABS1, i);
  for (r = 0; r < R_COUNT; r++) {
    size_t w = c[r][0].worst;
    parity_kernel = "log K";
    check(cmp_ok(&c[r][0], TOL_LOGK),
          "logk value, %s: max err %.3g (x = %.17g, nu = %.17g), %lu of %lu "
          "differ in kind",
          region_name[r], c[r][0].max_err, x[w], nu[w],
          (unsigned long)c[r][0].n_class, (unsigned long)c[r][0].n);
  }

  /* with the gradient */
  poison(g_v, n);
  poison(g_gx, n);
  poison(g_gn, n);
  t0 = now_s();
  st = ghmix_cuda_bessel_logk_batch(n, x, n, nu, n, g_v, g_gx, g_gn, 0, &err);
  t_gpu = now_s() - t0;
  check(st == GHMIX_OK, "logk+grad: CUDA status %d (%s)", (int)st, err.message);
  check(count_poison(g_v, n) + count_poison(g_gx, n) + count_poison(g_gn, n) ==
            0,
        "logk+grad: every output written");
  for (r = 0; r < R_COUNT; r++)
    for (k = 1; k < 4; k++)
      cmp_init(&c[r][k]);
  for (i = 0; i < n; i++) {
    cmp_add(&c[reg[i]][1], g_v[i], c_v[i], SCALE_ABS1, i);
    cmp_add(&c[reg[i]][2], g_gx[i], c_gx[i], SCALE_ABS1, i);
    cmp_add(&c[reg[i]][3], g_gn[i], c_gn[i], SCALE_ABS1, i);
  }
  for (r = 0; r < R_COUNT; r++) {
    static const char *what[4] = {"", "value", "d/dx", "d/dnu"};
    for (k = 1; k < 4; k++) {
      size_t w = c[r][k].worst;
      parity_kernel = k == 1 ? "log K" : "log K: d/dx, d/dnu";
      check(cmp_ok(&c[r][k], k == 1 ? TOL_LOGK : TOL_LOGK_D),
            "logk+grad %s, %s: max err %.3g (x = %.17g, nu = %.17g), %lu "
            "differ in kind",
            what[k], region_name[r], c[r][k].max_err, x[w], nu[w],
            (unsigned long)c[r][k].n_class);
    }
  }
  printf("     (%lu points: CPU one thread %.3f s, CUDA call %.3f s)\n",
         (unsigned long)n, t_cpu, t_gpu);

  /* only one of the gradients asked for */
  poison(g_gx, n);
  st = ghmix_cuda_bessel_logk_batch(n, x, n, nu, n, g_v, g_gx, NULL, 0, &err);
  cmp_init(&c[0][0]);
  for (i = 0; i < n; i++)
    cmp_add(&c[0][0], g_gx[i], c_gx[i], SCALE_ABS1, i);
  check(st == GHMIX_OK && count_poison(g_gx, n) == 0 &&
            cmp_ok(&c[0][0], TOL_LOGK_D),
        "logk: grad_x alone (status %d, max err %.3g)", (int)st,
        c[0][0].max_err);

  /* recycling: x of length 1, nu of length 7 (the modulo path) */
  {
    size_t m = 100003;
    double x1 = 3.25, nu7[7] = {-2.5, 0, 0.3, 17, 999, -16, 2};
    double *xs = (double *)xmalloc(m * sizeof(double));
    double *ns = (double *)xmalloc(m * sizeof(double));
    double *cv = (double *)xmalloc(m * sizeof(double));
    double *gv = (double *)xmalloc(m * sizeof(double));
    double *cg = (double *)xmalloc(m * sizeof(double));
    double *gg = (double *)xmalloc(m * sizeof(double));
    for (i = 0; i < m; i++)
      xs[i] = logunif(-5, 5);
    for (i = 0; i < m; i++)
      ns[i] = unif(-30, 30);
    /* x recycled */
    st = ghmix_bessel_logk_batch(m, &x1, 1, ns, m, cv, cg, NULL, 1, &err);
    poison(gv, m);
    poison(gg, m);
    st = ghmix_cuda_bessel_logk_batch(m, &x1, 1, ns, m, gv, gg, NULL, 0, &err);
    cmp_init(&c[0][0]);
    for (i = 0; i < m; i++) {
      cmp_add(&c[0][0], gv[i], cv[i], SCALE_ABS1, i);
      cmp_add(&c[0][0], gg[i], cg[i], SCALE_ABS1, i);
    }
    check(st == GHMIX_OK && count_poison(gv, m) + count_poison(gg, m) == 0 &&
              cmp_ok(&c[0][0], TOL_LOGK_D),
          "logk: x of length 1 recycled (max err %.3g)", c[0][0].max_err);
    /* nu of length 7 recycled */
    st = ghmix_bessel_logk_batch(m, xs, m, nu7, 7, cv, NULL, NULL, 1, &err);
    poison(gv, m);
    st =
        ghmix_cuda_bessel_logk_batch(m, xs, m, nu7, 7, gv, NULL, NULL, 0, &err);
    cmp_init(&c[0][0]);
    for (i = 0; i < m; i++)
      cmp_add(&c[0][0], gv[i], cv[i], SCALE_ABS1, i);
    check(st == GHMIX_OK && count_poison(gv, m) == 0 &&
              cmp_ok(&c[0][0], TOL_LOGK),
          "logk: nu of length 7 recycled (max err %.3g)", c[0][0].max_err);
    free(xs);
    free(ns);
    free(cv);
    free(gv);
    free(cg);
    free(gg);
  }
  free(x);
  free(nu);
  free(reg);
  free(c_v);
  free(c_gx);
  free(c_gn);
  free(g_v);
  free(g_gx);
  free(g_gn);
  free(c_v0);
}

/* =============================================== GIG expectation map */

/* Random (p, a, b): interior over many scales, the gamma (b = 0, p > 0) and
 * inverse-gamma (a = 0, p < 0) limits, and in `with_bad` also invalid
 * parameters and NA/NaN. */
static void gen_gig(double *p, double *a, double *b, int with_bad) {
  double u = u01();
  *p = unif(-30, 30);
  *a = logunif(-6, 6);
  *b = logunif(-6, 6);
  if (u < 0.1)
    *p = unif(-3, 3);
  else if (u < 0.15) { /* gamma */
    *p = logunif(-1, 1.5);
    *b = 0;
  } else if (u < 0.2) { /* inverse gamma */
    *p = -logunif(-1, 1.5);
    *a = 0;
  } else if (u < 0.25) { /* concentrated, nearly log-normal */
    *a = logunif(2, 5);
    *b = *a * logunif(-1, 1);
  } else if (u < 0.3) { /* sqrt(ab) tiny */
    *a = logunif(-12, -6);
    *b = logunif(-12, -6);
  }
  if (with_bad && u01() < 0.03) {
    int k = (int)(u01() * 5);
    if (k == 0)
      *b = 0, *p = -fabs(*p); /* invalid */
    else if (k == 1)
      *a = -1;
    else if (k == 2)
      *p = from_bits(NA_BITS);
    else if (k == 3)
      *b = NAN;
    else
      *a = INFINITY;
  }
}

static void test_gig_expectation(size_t n) {
  double *p = (double *)xmalloc(n * sizeof(double));
  double *a = (double *)xmalloc(n * sizeof(double));
  double *b = (double *)xmalloc(n * sizeof(double));
  double *ce = (double *)xmalloc(3 * n * sizeof(double));
  double *ge = (double *)xmalloc(3 * n * sizeof(double));
  ghmix_error err;
  ghmix_status st;
  cmp_t c[3];
  size_t i;
  int k;
  for (i = 0; i < n; i++)
    gen_gig(&p[i], &a[i], &b[i], 1);
  st = ghmix_gig_expectation_batch(n, p, n, a, n, b, n, ce, ce + n, ce + 2 * n,
                                   1, &err);
  check(st == GHMIX_OK, "gig_expectation: CPU reference");
  poison(ge, 3 * n);
  st = ghmix_cuda_gig_expectation_batch(n, p, n, a, n, b, n, ge, ge + n,
                                        ge + 2 * n, 0, &err);
  check(st == GHMIX_OK, "gig_expectation: CUDA status %d (%s)", (int)st,
        err.message);
  check(count_poison(ge, 3 * n) == 0, "gig_expectation: every value written");
  for (k = 0; k < 3; k++)
    cmp_init(&c[k]);
  for (i = 0; i < n; i++) {
    cmp_add(&c[0], ge[i], ce[i], SCALE_ABS1, i);
    cmp_add(&c[1], ge[n + i], ce[n + i], SCALE_REL, i);
    cmp_add(&c[2], ge[2 * n + i], ce[2 * n + i], SCALE_REL, i);
  }
  for (k = 0; k < 3; k++) {
    static const char *col[3] = {"E log Y", "E 1/Y", "E Y"};
    size_t w = c[k].worst;
    parity_kernel = "GIG expectation map";
    check(cmp_ok(&c[k], TOL_ETA),
          "gig_expectation %s (%lu rows): max err %.3g at p = %.17g, a = "
          "%.17g, b = %.17g; %lu differ in kind",
          col[k], (unsigned long)n, c[k].max_err, p[w], a[w], b[w],
          (unsigned long)c[k].n_class);
  }
  /* recycling: p of length 3, b of length 1 */
  {
    double p3[3] = {-0.5, 2, 7.5}, b1 = 1.5;
    st = ghmix_gig_expectation_batch(n, p3, 3, a, n, &b1, 1, ce, ce + n,
                                     ce + 2 * n, 1, &err);
    poison(ge, 3 * n);
    st = ghmix_cuda_gig_expectation_batch(n, p3, 3, a, n, &b1, 1, ge, ge + n,
                                          ge + 2 * n, 0, &err);
    cmp_init(&c[0]);
    for (i = 0; i < 3 * n; i++)
      cmp_add(&c[0], ge[i], ce[i], i < n ? SCALE_ABS1 : SCALE_REL, i);
    check(st == GHMIX_OK && count_poison(ge, 3 * n) == 0 &&
              cmp_ok(&c[0], TOL_ETA),
          "gig_expectation: recycled p and b (max err %.3g)", c[0].max_err);
  }
  free(p);
  free(a);
  free(b);
  free(ce);
  free(ge);
}

/* ============================================ gig_from_expectation */

typedef struct {
  double *p, *a, *b, *grad_norm, *condition, *jac;
  int *iterations, *converged, *note, *infeasible;
} solve_out;

static void solve_alloc(solve_out *o, size_t n) {
  o->p = (double *)xmalloc(n * sizeof(double));
  o->a = (double *)xmalloc(n * sizeof(double));
  o->b = (double *)xmalloc(n * sizeof(double));
  o->grad_norm = (double *)xmalloc(n * sizeof(double));
  o->condition = (double *)xmalloc(n * sizeof(double));
  o->jac = (double *)xmalloc(9 * n * sizeof(double));
  o->iterations = (int *)xmalloc(n * sizeof(int));
  o->converged = (int *)xmalloc(n * sizeof(int));
  o->note = (int *)xmalloc(n * sizeof(int));
  o->infeasible = (int *)xmalloc(n * sizeof(int));
}

static void solve_poison(solve_out *o, size_t n) {
  poison(o->p, n);
  poison(o->a, n);
  poison(o->b, n);
  poison(o->grad_norm, n);
  poison(o->condition, n);
  poison(o->jac, 9 * n);
  poison_int(o->iterations, n);
  poison_int(o->converged, n);
  poison_int(o->note, n);
  poison_int(o->infeasible, n);
}

static size_t solve_count_poison(const solve_out *o, size_t n, int jac) {
  return count_poison(o->p, n) + count_poison(o->a, n) + count_poison(o->b, n) +
         count_poison(o->grad_norm, n) + count_poison(o->condition, n) +
         (jac ? count_poison(o->jac, 9 * n) : 0) +
         count_poison_int(o->iterations, n) +
         count_poison_int(o->converged, n) + count_poison_int(o->note, n) +
         count_poison_int(o->infeasible, n);
}

static void solve_free(solve_out *o) {
  free(o->p);
  free(o->a);
  free(o->b);
  free(o->grad_norm);
  free(o->condition);
  free(o->jac);
  free(o->iterations);
  free(o->converged);
  free(o->note);
  free(o->infeasible);
}

/* The solver's arguments for n rows of eta (and start) into o, with the
 * default control. */
static ghmix_gig_solve_args solve_args(size_t n, const double *eta,
                                       const double *start, const solve_out *o,
                                       int want_jac) {
  ghmix_gig_solve_args s;
  s.n = n;
  s.eta = eta;
  s.start = start;
  ghmix_gig_solve_control_init(&s.ctrl);
  s.p = o->p;
  s.a = o->a;
  s.b = o->b;
  s.grad_norm = o->grad_norm;
  s.condition = o->condition;
  s.jacobian = want_jac ? o->jac : NULL;
  s.iterations = o->iterations;
  s.converged = o->converged;
  s.note = o->note;
  s.infeasible = o->infeasible;
  return s;
}

static ghmix_status run_solve(int cuda, size_t n, const double *eta,
                              const double *start, int want_jac, solve_out *o,
                              ghmix_error *err) {
  ghmix_gig_solve_args s = solve_args(n, eta, start, o, want_jac);
  if (cuda)
    return ghmix_cuda_gig_from_expectation_batch(&s, 0, err);
  return ghmix_gig_from_expectation_batch(&s, 1, err);
}

/* A well-conditioned problem (condition number below about 1e3): |p| <= 2,
 * sqrt(ab) in [0.5, 3], any scale. */
static void gen_gig_well(double *p, double *a, double *b) {
  double w = logunif(-0.3, 0.48), sc = logunif(-2, 2);
  *p = unif(-2, 2);
  *a = w / sc;
  *b = w * sc;
}

/* Relative difference of positive parameters; 0 when both are 0. */
static double rel_pos(double g, double c) {
  if (g == c)
    return 0;
  if (c == 0 || g == 0 || !isfinite(g) || !isfinite(c))
    return INFINITY;
  return fabs(g - c) / fabs(c);
}

/* CUDA against CPU on the same rows; `strict`: every row within TOL_SOLVE
 * without the condition number. */
/* The Jacobian entry k of row i as a relative sensitivity, d log theta /
 * d log eta (p and E log Y: their size, at least 1): its columns' units
 * are those of E log Y, E 1/Y and E Y, which can differ by 1e20, so that
 * rounding noise of a sensitivity near 0 in a tiny column is huge in
 * absolute terms. */
static double jac_rel(const solve_out *o, const double *eta, size_t n, size_t i,
                      int k) {
  const double theta[3] = {fmax(1.0, fabs(o->p[i])), o->a[i], o->b[i]};
  const double col[3] = {fmax(1.0, fabs(eta[i])), eta[n + i], eta[2 * n + i]};
  return o->jac[9 * i + k] * col[k % 3] / theta[k / 3];
}

static void compare_solve(const char *label, size_t n, const double *eta,
                          const solve_out *co, const solve_out *go,
                          int want_jac, int strict) {
  size_t i, n_conv = 0, n_note = 0, n_iter = 0, n_ill = 0, n_gn = 0;
  size_t w_par = 0, w_cond = 0, w_jac = 0, w_raw = 0;
  double e_par = 0, e_raw = 0, e_cond = 0, e_jac = 0, e_row;
  int k;
  for (i = 0; i < n; i++) {
    double cond = co->condition[i], scale, e;
    n_conv += go->converged[i] != co->converged[i];
    n_note +=
        go->note[i] != co->note[i] || go->infeasible[i] != co->infeasible[i];
    n_iter += go->iterations[i] != co->iterations[i];
    if (!(fabs(go->grad_norm[i] - co->grad_norm[i]) <= 1e-12 * tol_scale))
      n_gn++;
    /* on a boundary the condition number is Inf: the limit family's
     * parameters are well determined; NaN (an interior solution whose
     * Fisher information is not finite) counts as ill-posed */
    scale = isinf(cond) ? 1e3 : isnan(cond) ? INFINITY : fmax(1.0, cond);
    if (!(scale <= TOL_SOLVE_COND_MAX)) {
      n_ill++; /* near a boundary, a or b barely determined */
      continue;
    }
    e = fabs(go->p[i] - co->p[i]) / fmax(1.0, fabs(co->p[i]));
    e = fmax(e, rel_pos(go->a[i], co->a[i]));
    e = fmax(e, rel_pos(go->b[i], co->b[i]));
    e_row = e;
    if (!(e <= e_raw)) {
      e_raw = e;
      w_raw = i;
    }
    if (!(e / scale <= e_par)) {
      e_par = e / scale;
      w_par = i;
    }
    if (isfinite(cond)) {
      e = fabs(go->condition[i] - cond) / cond / scale;
      if (!(e <= e_cond)) {
        e_cond = e;
        w_cond = i;
      }
    } else if (go->condition[i] != cond) {
      e_cond = INFINITY;
      w_cond = i;
    }
    if (want_jac) {
      double jmax = 0;
      for (k = 0; k < 9; k++)
        if (isfinite(jac_rel(co, eta, n, i, k)))
          jmax = fmax(jmax, fabs(jac_rel(co, eta, n, i, k)));
      for (k = 0; k < 9; k++) {
        double g = jac_rel(go, eta, n, i, k), c = jac_rel(co, eta, n, i, k);
        /* the inverse of the Fisher information at two solutions that
         * differ by e_row moves by up to about condition * e_row */
        if (isfinite(c) && isfinite(g))
          e = (jmax > 0 ? fabs(g - c) / jmax : fabs(g - c)) / scale -
              JAC_PROPAGATE * e_row;
        else
          e = (isnan(c) && isnan(g)) || g == c ? 0 : INFINITY;
        if (!(e <= e_jac)) {
          e_jac = e;
          w_jac = i;
        }
      }
    }
  }
  check(n_conv == 0 && n_note == 0,
        "gig_from_expectation %s: converged, note, infeasible identical (%lu, "
        "%lu rows differ)",
        label, (unsigned long)n_conv, (unsigned long)n_note);
  parity_kernel = "GIG solve: p, a, b (x condition)";
  parity_note(e_par, TOL_SOLVE);
  check(e_par <= TOL_SOLVE * tol_scale,
        "gig_from_expectation %s: p, a, b within %.0e x max(1, condition) "
        "(worst %.3g, row %lu: p %.17g a %.17g b %.17g cond %.3g); %lu "
        "ill-posed rows (condition > %.0e) only checked to converge",
        label, TOL_SOLVE, e_par, (unsigned long)w_par, co->p[w_par],
        co->a[w_par], co->b[w_par], co->condition[w_par], (unsigned long)n_ill,
        TOL_SOLVE_COND_MAX);
  if (strict)
    check(e_raw <= TOL_SOLVE_WELL * tol_scale && n_ill == 0,
          "gig_from_expectation %s: p, a, b within %.0e (worst %.3g, row %lu: "
          "p %.17g a %.17g b %.17g, cond %.3g, CUDA p %.17g a %.17g b %.17g)",
          label, TOL_SOLVE_WELL, e_raw, (unsigned long)w_raw, co->p[w_raw],
          co->a[w_raw], co->b[w_raw], co->condition[w_raw], go->p[w_raw],
          go->a[w_raw], go->b[w_raw]);
  else
    printf("     (largest relative difference of p, a, b, not scaled: "
           "%.3g)\n",
           e_raw);
  check(n_gn == 0,
        "gig_from_expectation %s: grad_norm within 1e-12 (%lu rows "
        "not)",
        label, (unsigned long)n_gn);
  check(e_cond <= TOL_SOLVE * tol_scale,
        "gig_from_expectation %s: condition within %.0e x condition "
        "(worst %.3g, row %lu)",
        label, TOL_SOLVE, e_cond, (unsigned long)w_cond);
  if (want_jac) {
    parity_kernel = "GIG solve: Jacobian (x condition)";
    parity_note(e_jac, TOL_SOLVE_JAC);
    check(e_jac <= TOL_SOLVE_JAC * tol_scale,
          "gig_from_expectation %s: Jacobian (d log theta / d log eta) "
          "within %.0e x condition of its row's largest entry, beyond %g x "
          "the relative difference of the row's p, a, b (worst %.3g, row "
          "%lu: p %.17g a %.17g b %.17g cond %.3g)",
          label, TOL_SOLVE_JAC, JAC_PROPAGATE, e_jac, (unsigned long)w_jac,
          co->p[w_jac], co->a[w_jac], co->b[w_jac], co->condition[w_jac]);
  }
  /* where an iteration stops at its noise floor depends on rounding */
  printf("     (Newton steps differ in %lu of %lu rows)\n",
         (unsigned long)n_iter, (unsigned long)n);
}

static void test_gig_solve(size_t n) {
  double *eta = (double *)xmalloc(3 * n * sizeof(double));
  double *start = (double *)xmalloc(3 * n * sizeof(double));
  solve_out co, go;
  ghmix_error err, cerr;
  ghmix_status st, cst;
  size_t i, n_inf;
  int k, pass;
  double t0, t_cpu, t_gpu;

  solve_alloc(&co, n);
  solve_alloc(&go, n);
  for (pass = 0; pass < 3; pass++) {
    /* 0: well-conditioned, with Jacobian; 1: the whole range, with
     * Jacobian; 2: the whole range, warm starts (some unusable) */
    static const char *label[3] = {"(well-conditioned, jacobian)",
                                   "(wide range, jacobian)",
                                   "(wide range, warm starts)"};
    const int want_jac = pass < 2;
    for (i = 0; i < n; i++) {
      double e[3], tp, ta, tb;
      do {
        if (pass == 0)
          gen_gig_well(&tp, &ta, &tb);
        else
          gen_gig(&tp, &ta, &tb, 0);
      } while (!ghmix_gig_expectation(tp, ta, tb, e) || !isfinite(e[0]) ||
               !isfinite(e[1]) || !isfinite(e[2]));
      if (pass > 0 && u01() < 0.02) { /* beyond the gamma boundary */
        double e1 = e[1];
        e[1] *= 1.5;
        if (ghmix_gig_feasibility(e) != 0)
          e[1] = e1;
      }
      eta[i] = e[0];
      eta[n + i] = e[1];
      eta[2 * n + i] = e[2];
      start[i] = u01() < 0.3 ? NAN : tp * (1 + unif(-0.01, 0.01));
      start[n + i] = ta * (1 + unif(-0.01, 0.01));
      start[2 * n + i] = tb * (1 + unif(-0.01, 0.01));
    }
    t0 = now_s();
    cst = run_solve(0, n, eta, pass == 2 ? start : NULL, want_jac, &co, &cerr);
    t_cpu = now_s() - t0;
    solve_poison(&go, n);
    t0 = now_s();
    st = run_solve(1, n, eta, pass == 2 ? start : NULL, want_jac, &go, &err);
    t_gpu = now_s() - t0;
    check(cst == GHMIX_OK && st == GHMIX_OK,
          "gig_from_expectation %s: status CPU %d, CUDA %d (%s)", label[pass],
          (int)cst, (int)st, err.message);
    check(solve_count_poison(&go, n, want_jac) == 0,
          "gig_from_expectation %s: every output written (%lu not)",
          label[pass], (unsigned long)solve_count_poison(&go, n, want_jac));
    compare_solve(label[pass], n, eta, &co, &go, want_jac, pass == 0);
    printf("     (%lu rows: CPU one thread %.3f s, CUDA call %.3f s)\n",
           (unsigned long)n, t_cpu, t_gpu);
  }

  /* infeasible and non-finite rows: the CPU driver's error, index and
   * infeasible[] */
  {
    size_t m = n < 1000 ? n : 1000;
    double *e2 = (double *)xmalloc(3 * m * sizeof(double));
    for (k = 0; k < 3; k++)
      memcpy(e2 + k * m, eta + k * n, m * sizeof(double));
    e2[m + 5] = NAN;                   /* row 5: not finite */
    e2[17] = log(e2[2 * m + 17]) + 1;  /* row 17: E log Y > log E Y */
    e2[40] = NAN;                      /* row 40: not finite */
    e2[m + 70] = 0.5 / e2[2 * m + 70]; /* row 70: E Y E 1/Y < 1 */
    cst = run_solve(0, m, e2, NULL, 0, &co, &cerr);
    solve_poison(&go, m);
    st = run_solve(1, m, e2, NULL, 0, &go, &err);
    n_inf = 0;
    for (i = 0; i < m; i++)
      n_inf += go.infeasible[i] != co.infeasible[i];
    check(st == GHMIX_ERR_INFEASIBLE && cst == st && err.index == 17 &&
              err.index == cerr.index &&
              strcmp(err.message, cerr.message) == 0 && n_inf == 0 &&
              count_poison_int(go.infeasible, m) == 0,
          "gig_from_expectation infeasible rows: status %d (CPU %d), index "
          "%ld (CPU %ld), \"%s\", %lu infeasible[] differ",
          (int)st, (int)cst, (long)err.index, (long)cerr.index, err.message,
          (unsigned long)n_inf);
    e2[17] = eta[17];
    e2[m + 70] = eta[n + 70];
    cst = run_solve(0, m, e2, NULL, 0, &co, &cerr);
    st = run_solve(1, m, e2, NULL, 0, &go, &err);
    n_inf = 0;
    for (i = 0; i < m; i++)
      n_inf += go.infeasible[i] != co.infeasible[i];
    check(st == GHMIX_ERR_DOMAIN && cst == st && err.index == 5 &&
              strcmp(err.message, cerr.message) == 0 && n_inf == 0,
          "gig_from_expectation non-finite rows: status %d (CPU %d), index "
          "%ld, \"%s\"",
          (int)st, (int)cst, (long)err.index, err.message);
    free(e2);
  }
  solve_free(&co);
  solve_free(&go);
  free(eta);
  free(start);
}

/* ========================================================== E-step */

/* Statistics of the one-component full model of dimension d, and where
 * block id starts among them. */
static size_t mix_nstats(int d) {
  ghmix_estep_shape sh = {d, 1, GHMIX_COV_FULL, 0, GHMIX_ESTEP_MOMENTS};
  return ghmix_estep_nstats(&sh);
}

static size_t mix_at(int d, ghmix_stat_id id) {
  ghmix_estep_shape sh = {d, 1, GHMIX_COV_FULL, 0, GHMIX_ESTEP_MOMENTS};
  return ghmix_estep_stat(&sh, 0, id).offset;
}

/* 1 for the statistics that count rows (compared exactly). */
static int mix_is_count(int d, size_t k) {
  return k == mix_at(d, GHMIX_STAT_ROWS) || k == mix_at(d, GHMIX_STAT_WEIGHT) ||
         k == mix_at(d, GHMIX_STAT_BAD) || k == mix_at(d, GHMIX_STAT_TAU);
}

/* The statistics by a plain serial loop (long double sums), and the sums of
 * the absolute values of the terms (the scale of each statistic's rounding
 * error), and the rows; the blocks written out one by one. */
static void mix_reference(const double *x, size_t n, size_t ldx,
                          const mix_setup *s, double *stats, double *scale,
                          double *rows) {
  const int d = s->d;
  const int logy = (s->comp.c.what & GHMIX_ESTEP_LOGY) != 0;
  const size_t ns = mix_nstats(d), at_u = mix_at(d, GHMIX_STAT_U);
  const size_t at_wu = mix_at(d, GHMIX_STAT_INV_Y_U);
  const size_t at_wuu = mix_at(d, GHMIX_STAT_INV_Y_UU);
  long double *acc = (long double *)xmalloc(ns * sizeof(long double));
  double *u = (double *)xmalloc((size_t)d * sizeof(double));
  double *z = (double *)xmalloc((size_t)d * sizeof(double));
  size_t i, k;
  int j, l;
  for (k = 0; k < ns; k++) {
    acc[k] = 0;
    scale[k] = 0;
  }
  for (i = 0; i < n; i++) {
    double q, bz;
    ghmix_mix_row_result r;
    int ok;
    mix_setup_forms(s, x, ldx, i, u, z, &q, &bz);
    r.loglik = r.e_inv_y = r.e_y = r.e_log_y = NAN;
    ghmix_mix_row(&s->comp.c, q, bz, &r);
    ok = isfinite(r.loglik) && isfinite(r.e_inv_y) && isfinite(r.e_y) &&
         r.e_inv_y > 0;
    rows[i] = r.loglik;
    rows[n + i] = r.e_inv_y;
    rows[2 * n + i] = r.e_y;
    rows[3 * n + i] = logy ? r.e_log_y : (double)NAN;
    if (!ok) {
      acc[mix_at(d, GHMIX_STAT_BAD)] += 1;
      continue;
    }
    {
      const ghmix_stat_id ids[9] = {
          GHMIX_STAT_ROWS,   GHMIX_STAT_WEIGHT,    GHMIX_STAT_TAU,
          GHMIX_STAT_LOGLIK, GHMIX_STAT_INV_Y,     GHMIX_STAT_Y,
          GHMIX_STAT_LOG_Y,  GHMIX_STAT_INV_Y_DEV, GHMIX_STAT_Y_DEV};
      const double t[9] = {1,
                           1,
                           1,
                           r.loglik,
                           r.e_inv_y,
                           r.e_y,
                           logy ? r.e_log_y : 0.0,
                           r.inv_y_dev,
                           r.y_dev};
      for (k = 0; k < 9; k++) {
        acc[mix_at(d, ids[k])] += t[k];
        scale[mix_at(d, ids[k])] += fabs(t[k]);
      }
    }
    for (j = 0; j < d; j++) {
      acc[at_u + j] += u[j];
      scale[at_u + j] += fabs(u[j]);
      acc[at_wu + j] += (long double)r.e_inv_y * u[j];
      scale[at_wu + j] += fabs(r.e_inv_y * u[j]);
      for (l = 0; l < d; l++) {
        size_t o = at_wuu + (size_t)j + (size_t)l * d;
        acc[o] += (long double)r.e_inv_y * u[j] * u[l];
        scale[o] += fabs(r.e_inv_y * u[j] * u[l]);
      }
    }
  }
  for (k = 0; k < ns; k++)
    stats[k] = (double)acc[k];
  free(acc);
  free(u);
  free(z);
}

/* One E-step case: data with n rows (some bad), ldx >= n. */
static void test_mix_case(const char *label, int d, size_t n, size_t ldx,
                          double p, double a, double b, int what) {
  mix_setup s;
  const size_t ns = mix_nstats(d);
  double *x = (double *)xmalloc(ldx * (size_t)d * sizeof(double));
  double *ref = (double *)xmalloc(ns * sizeof(double));
  double *scale = (double *)xmalloc(ns * sizeof(double));
  double *rref = (double *)xmalloc(4 * n * sizeof(double));
  double *st1 = (double *)xmalloc(ns * sizeof(double));
  double *st2 = (double *)xmalloc(ns * sizeof(double));
  double *rows1 = (double *)xmalloc(4 * n * sizeof(double));
  double *rows2 = (double *)xmalloc(4 * n * sizeof(double));
  void *h = NULL;
  ghmix_error err;
  ghmix_status st;
  size_t i, k, n_bad = 0;
  int j, launches = -1, launches2 = -1;
  double max_err = 0;
  size_t worst = 0;
  cmp_t cr[4];

  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "E-step %s: invalid test parameters", label);
    return;
  }
  /* heavy-tailed, skewed data around the centre, with bad rows: NaN, and
   * for the variance-gamma (b = 0) rows exactly at the centre */
  for (i = 0; i < ldx; i++) {
    double w = logunif(-1, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * ldx] =
          s.center[j] + sqrt(w) * unif(-2, 2) + 0.3 * w * (j % 3 - 1);
  }
  for (i = 7; i < n; i += 997) {
    x[i] = NAN;
    if (i + 3 < n && b == 0)
      for (j = 0; j < d; j++)
        x[i + 3 + (size_t)j * ldx] = s.center[j];
  }

  mix_reference(x, n, ldx, &s, ref, scale, rref);
  n_bad = (size_t)ref[mix_at(d, GHMIX_STAT_BAD)];
  st = ghmix_cuda_mix_data_create(x, n, ldx, d, 0, &h, &err);
  check(st == GHMIX_OK && h != NULL, "E-step %s: data on the device (%s)",
        label, err.message);
  if (st != GHMIX_OK) {
    mix_setup_free(&s);
    return;
  }
  poison(st1, ns);
  poison(rows1, 4 * n);
  st = ghmix_cuda_mix_estep(h, &s.model, st1, rows1, &launches, &err);
  check(st == GHMIX_OK && launches == 2,
        "E-step %s: status %d (%s), %d launches", label, (int)st, err.message,
        launches);
  check(count_poison(st1, ns) == 0 && count_poison(rows1, 4 * n) == 0,
        "E-step %s: every statistic and row written", label);
  for (k = 0; k < ns; k++) {
    double e;
    if (mix_is_count(d, k)) {
      e = st1[k] == ref[k] ? 0 : INFINITY;
    } else {
      e = fabs(st1[k] - ref[k]) / fmax(scale[k], DBL_MIN);
      if (scale[k] == 0)
        e = st1[k] == 0 ? 0 : INFINITY;
    }
    if (!(e <= max_err)) {
      max_err = isnan(e) ? INFINITY : e;
      worst = k;
    }
  }
  parity_kernel = "E-step, G = 1: statistics";
  parity_note(max_err, TOL_STATS);
  check(max_err <= TOL_STATS * tol_scale,
        "E-step %s (d = %d, n = %lu, %lu bad rows): statistics within %.3g "
        "of the sum of |terms| (worst slot %lu: %.17g vs %.17g)",
        label, d, (unsigned long)n, (unsigned long)n_bad, max_err,
        (unsigned long)worst, st1[worst], ref[worst]);
  for (k = 0; k < 4; k++)
    cmp_init(&cr[k]);
  for (i = 0; i < n; i++)
    for (k = 0; k < 4; k++)
      cmp_add(&cr[k], rows1[k * n + i], rref[k * n + i], SCALE_ABS1, i);
  parity_kernel = parity_rows_kernel;
  check(cmp_ok(&cr[0], TOL_ROWS) && cmp_ok(&cr[1], TOL_ROWS) &&
            cmp_ok(&cr[2], TOL_ROWS) && cmp_ok(&cr[3], TOL_ROWS),
        "E-step %s: rows (log f, E 1/Y, E Y, E log Y) max err %.3g %.3g %.3g "
        "%.3g; %lu %lu %lu %lu differ in kind",
        label, cr[0].max_err, cr[1].max_err, cr[2].max_err, cr[3].max_err,
        (unsigned long)cr[0].n_class, (unsigned long)cr[1].n_class,
        (unsigned long)cr[2].n_class, (unsigned long)cr[3].n_class);

  /* determinism: again, without and with rows */
  poison(st2, ns);
  st = ghmix_cuda_mix_estep(h, &s.model, st2, NULL, &launches2, &err);
  check(st == GHMIX_OK && memcmp(st1, st2, ns * sizeof(double)) == 0,
        "E-step %s: a second run (no rows) is bit-identical", label);
  poison(st2, ns);
  poison(rows2, 4 * n);
  st = ghmix_cuda_mix_estep(h, &s.model, st2, rows2, NULL, &err);
  check(st == GHMIX_OK && memcmp(st1, st2, ns * sizeof(double)) == 0 &&
            memcmp(rows1, rows2, 4 * n * sizeof(double)) == 0,
        "E-step %s: a third run (rows) is bit-identical", label);

  /* other parameters on the same handle, then the first ones again */
  {
    mix_setup s2;
    double *st3 = (double *)xmalloc(ns * sizeof(double));
    if (mix_setup_init(&s2, d, -1.3, 0.7, 2.1, what, unif)) {
      st = ghmix_cuda_mix_estep(h, &s2.model, st3, NULL, NULL, &err);
      poison(st2, ns);
      st = st != GHMIX_OK
               ? st
               : ghmix_cuda_mix_estep(h, &s.model, st2, NULL, NULL, &err);
      check(st == GHMIX_OK && memcmp(st1, st2, ns * sizeof(double)) == 0,
            "E-step %s: the handle is reusable with other parameters", label);
      mix_setup_free(&s2);
    }
    free(st3);
  }
  ghmix_cuda_mix_data_free(h);
  mix_setup_free(&s);
  free(x);
  free(ref);
  free(scale);
  free(rref);
  free(st1);
  free(st2);
  free(rows1);
  free(rows2);
}

/* Row weights (ghmix_cuda_mix_data_weights), integers 0 to 3 with a NaN
 * row of weight 0: the statistics of the rows replicated w_i times (the
 * reference loop over those, within TOL_STATS of its sums of |terms|; the
 * weight sums exact, the NaN row not even bad); weights all 1 give the
 * bits of no weights; a weighted model on data without weights is
 * GHMIX_ERR_DOMAIN. */
static void test_mix_weighted(const char *label, int d, size_t n, double p,
                              double a, double b, int what) {
  mix_setup s;
  ghmix_mix_model mw;
  const size_t ns = mix_nstats(d);
  double *x = (double *)xmalloc(n * (size_t)d * sizeof(double));
  double *wt = (double *)xmalloc(n * sizeof(double));
  double *ones = (double *)xmalloc(n * sizeof(double));
  double *ref = (double *)xmalloc(ns * sizeof(double));
  double *scale = (double *)xmalloc(ns * sizeof(double));
  double *st1 = (double *)xmalloc(ns * sizeof(double));
  double *st2 = (double *)xmalloc(ns * sizeof(double));
  double *xr, *rref;
  void *h = NULL;
  ghmix_error err;
  ghmix_status st;
  size_t i, k, c, r = 0, nr = 0, worst = 0;
  double max_err = 0;
  int j;
  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "weighted E-step %s: invalid test parameters", label);
    return;
  }
  for (i = 0; i < n; i++) {
    double v = logunif(-1, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s.center[j] + sqrt(v) * unif(-2, 2) + 0.3 * v;
    wt[i] = (double)(rng_next() % 4);
    ones[i] = 1;
    nr += (size_t)wt[i];
  }
  x[3] = NAN;
  nr -= (size_t)wt[3];
  wt[3] = 0;
  xr = (double *)xmalloc((nr + 1) * (size_t)d * sizeof(double));
  rref = (double *)xmalloc(4 * (nr + 1) * sizeof(double));
  for (i = 0; i < n; i++)
    for (c = 0; c < (size_t)wt[i]; c++, r++)
      for (j = 0; j < d; j++)
        xr[r + (size_t)j * nr] = x[i + (size_t)j * n];
  mix_reference(xr, nr, nr, &s, ref, scale, rref);
  mw = s.model;
  mw.weights = wt;
  mw.shape.what |= GHMIX_ESTEP_WEIGHTS;
  st = ghmix_mix_model_complete(&mw, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_data_create(x, n, n, d, 0, &h, &err);
  check(st == GHMIX_OK && ghmix_cuda_mix_estep(h, &mw, st1, NULL, NULL, &err) ==
                              GHMIX_ERR_DOMAIN,
        "weighted E-step %s: no weights on the device, GHMIX_ERR_DOMAIN",
        label);
  st = ghmix_cuda_mix_data_weights(h, wt, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_estep(h, &mw, st1, NULL, NULL, &err);
  for (k = 0; k < ns; k++) {
    double e;
    if (k == mix_at(d, GHMIX_STAT_ROWS))
      continue;
    if (mix_is_count(d, k))
      e = st1[k] == ref[k] ? 0 : INFINITY;
    else
      e = scale[k] == 0 ? (st1[k] == 0 ? 0 : INFINITY)
                        : fabs(st1[k] - ref[k]) / scale[k];
    if (!(e <= max_err)) {
      max_err = isnan(e) ? INFINITY : e;
      worst = k;
    }
  }
  parity_kernel = "E-step, G = 1: statistics";
  parity_note(max_err, TOL_STATS);
  check(st == GHMIX_OK && max_err <= TOL_STATS * tol_scale &&
            st1[mix_at(d, GHMIX_STAT_ROWS)] < ref[mix_at(d, GHMIX_STAT_ROWS)],
        "weighted E-step %s (d = %d, n = %lu as %lu rows): within %.3g of the "
        "sum of |terms| (worst slot %lu: %.17g vs %.17g)",
        label, d, (unsigned long)n, (unsigned long)nr, max_err,
        (unsigned long)worst, st1[worst], ref[worst]);
  mw.weights = ones;
  st = ghmix_cuda_mix_data_weights(h, ones, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_estep(h, &mw, st1, NULL, NULL, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_estep(h, &s.model, st2, NULL, NULL, &err);
  check(st == GHMIX_OK && memcmp(st1, st2, ns * sizeof(double)) == 0,
        "weighted E-step %s: weights all 1 give the bits of no weights", label);
  ghmix_cuda_mix_data_free(h);
  mix_setup_free(&s);
  free(x);
  free(wt);
  free(ones);
  free(xr);
  free(rref);
  free(ref);
  free(scale);
  free(st1);
  free(st2);
}

/* The launch plans depend on n, d, G and r only: at most 1024 blocks, as
 * many as 128 MiB of per-block memory allow, but the floor of
 * GHMIX_MIX_MIN_BLOCKS as far as that memory stays within 1 GiB (the
 * budget alone left 12 blocks at G = 64, d = 200, now 101; 5 at G = 8,
 * d = 870, now 44). */
static void test_plans(void) {
  ghmix_mix_layout a = ghmix_mix_plan(10000000, 10);
  ghmix_mix_layout b = ghmix_mix_plan(10000000, 500);
  ghmix_mix_layout c = ghmix_mix_plan(1000, 500);
  ghmix_mix_layout g = ghmix_mixg_plan(10000000, 200, 64);
  ghmix_mix_layout h = ghmix_mixg_plan(10000000, 870, 8);
  ghmix_factor_layout f = ghmix_factor_plan(10000000, 1000, 20);
  check(a.blocks == GHMIX_MIX_MAX_BLOCKS && b.blocks == GHMIX_MIX_MIN_BLOCKS &&
            c.blocks == 32 && g.blocks == 101 &&
            (size_t)g.blocks * g.nloc * sizeof(double) <=
                GHMIX_MIX_FLOOR_BUDGET &&
            h.blocks == 44 && f.blocks >= 264,
        "launch plans: blocks %d (d = 10), %d (d = 500), %d (d = 500, 32 "
        "tiles), %d (G = 64, d = 200), %d (G = 8, d = 870: 1 GiB), %d (factor "
        "d = 1000, r = 20)",
        a.blocks, b.blocks, c.blocks, g.blocks, h.blocks, f.blocks);
  check(ghmix_factor_bu_stride(4) == 5 && ghmix_factor_bu_stride(5) == 7 &&
            ghmix_factor_bu_stride(0) == 1,
        "factor tile: an odd stride between the rows' beta u");
}

static void test_mix(int quick) {
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  parity_rows_kernel = "E-step, G = 1: rows";
  test_plans();
  test_mix_case("GH d=1", 1, quick ? 20011 : 100003, 100010, -0.7, 1.3, 0.8,
                both);
  test_mix_case("NIG d=4 (ldx > n)", 4, 50001, 50013, -0.5, 1.1, 1.7,
                GHMIX_ESTEP_MOMENTS);
  test_mix_case("GH d=10", 10, quick ? 10007 : 30011, 30011, 2.5, 0.9, 1.4,
                both);
  test_mix_case("VG d=4 (b = 0, rows at the centre)", 4, 20000, 20000, 1.2, 2.0,
                0.0, both);
  test_mix_case("skew-t d=10 (a = 0)", 10, 9001, 9001, -3.0, 0.0, 4.0, both);
  test_mix_case("GH d=64", 64, quick ? 1003 : 5003, 5003, -0.2, 1.5, 0.5, both);
  test_mix_case("GH d=100 (tile of 32)", 100, 700, 700, 1.5, 1.0, 1.0, both);
  test_mix_case("GH d=500 (the floor of 264 blocks)", 500, quick ? 1001 : 8453,
                8453, 1.5, 1.0, 1.0, both);
  test_mix_case("GH d=3, n=1", 3, 1, 1, -0.7, 1.3, 0.8, both);
  test_mix_case("GH d=17, n=130 (tile of 64, partial)", 17, 130, 131, -0.7, 1.3,
                0.8, both);
  test_mix_weighted("GH d=3", 3, 3001, -0.7, 1.3, 0.8, both);
  test_mix_weighted("NIG d=1", 1, 5000, -0.5, 1.1, 1.7, GHMIX_ESTEP_MOMENTS);
  test_mix_weighted("GH d=20 (tile of 64)", 20, 700, 1.5, 1.0, 1.0, both);
}

/* ------------------------------------------- the E-step of G components */

/* The G-component E-step on the device against the CPU driver
 * (ghmix_mix_estep_mixture_cpu): the statistics within TOL_STATS of the
 * total weight times the largest |statistic| of their component, the rows
 * within TOL_ROWS (relative, 1 as the floor); rows i % 5 == 2 get weight 0
 * when weighted, NaN rows are bad. */
static void test_mixg_case(const char *label, int d, int G, size_t n,
                           int weighted) {
  static const double pab[4][3] = {
      {-0.5, 1.1, 1.7}, {1.3, 0.8, 1.2}, {-2.5, 0.0, 3.0}, {-0.7, 1.3, 0.8}};
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  mix_setup s[16];
  ghmix_mix_component comp[16];
  ghmix_mix_model m;
  ghmix_error err;
  ghmix_status st;
  size_t ns, nr = n * ghmix_mixg_row_ncol(G), i, k, worst = 0;
  double *x, *w = NULL, *cpu, *gpu, *rc, *rg, max_err = 0, max_row = 0;
  void *h = NULL;
  int j, c, launches = -1;
  for (c = 0; c < G; c++) {
    const double *q = pab[c % 4];
    mix_setup_init(&s[c], d, q[0], q[1], q[2], both, unif);
    s[c].center[0] += 1.5 * c;
    comp[c] = s[c].comp;
    comp[c].log_prop = log(1.0 / G);
  }
  x = (double *)xmalloc(n * (size_t)d * sizeof(double));
  if (weighted) {
    w = (double *)xmalloc(n * sizeof(double));
    for (i = 0; i < n; i++)
      w[i] = i % 5 == 2 ? 0.0 : unif(0, 3);
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s[i % (size_t)G].center[j] + unif(-2, 2);
  for (i = 7; i < n; i += 997)
    x[i] = NAN;
  m.shape = s[0].model.shape;
  m.shape.components = G;
  m.shape.what = both | (weighted ? GHMIX_ESTEP_WEIGHTS : 0);
  m.comp = comp;
  m.weights = w;
  ghmix_mix_model_complete(&m, &err);
  ns = ghmix_estep_nstats(&m.shape);
  cpu = (double *)xmalloc(ns * sizeof(double));
  gpu = (double *)xmalloc(ns * sizeof(double));
  rc = (double *)xmalloc(nr * sizeof(double));
  rg = (double *)xmalloc(nr * sizeof(double));
  poison(gpu, ns);
  poison(rg, nr);
  st = ghmix_mix_estep_mixture_cpu(x, n, n, d, &m, cpu, rc, 1, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_data_create(x, n, n, d, 0, &h, &err);
  if (st == GHMIX_OK && weighted) {
    /* without the handle's weights a weighted E-step is refused */
    ghmix_status st0 =
        ghmix_cuda_mix_estep_mixture(h, &m, gpu, NULL, NULL, &err);
    check(st0 == GHMIX_ERR_DOMAIN,
          "mixture E-step %s: weighted without the handle's weights is "
          "GHMIX_ERR_DOMAIN (%d: %s)",
          label, (int)st0, err.message);
    st = ghmix_cuda_mix_data_weights(h, w, &err);
    m.weights = NULL; /* the device's copy is used, not the host's */
  }
  if (st == GHMIX_OK)
    st = ghmix_cuda_mix_estep_mixture(h, &m, gpu, rg, &launches, &err);
  check(st == GHMIX_OK && launches == 2 && count_poison(gpu, ns) == 0 &&
            count_poison(rg, nr) == 0,
        "mixture E-step %s: status %d (%s), %d launches, every output written",
        label, (int)st, err.message, launches);
  for (c = 0; c < G; c++) {
    size_t lo = ghmix_estep_stat(&m.shape, c, GHMIX_STAT_TAU).offset,
           hi = lo + ghmix_estep_component_nstats(&m.shape);
    double big = 0;
    for (k = lo; k < hi; k++)
      big = fmax(big, fabs(cpu[k]));
    for (k = c == 0 ? 0 : lo; k < hi; k++) {
      double e = fabs(gpu[k] - cpu[k]) / fmax(big, fabs(cpu[k]));
      if (!(e <= max_err)) {
        max_err = isnan(e) ? INFINITY : e;
        worst = k;
      }
    }
  }
  parity_kernel = "E-step, G > 1: statistics";
  parity_note(max_err, TOL_STATS);
  check(max_err <= TOL_STATS * tol_scale,
        "mixture E-step %s: statistics within %.3g of the CPU's (worst %lu: "
        "%.17g vs %.17g)",
        label, max_err, (unsigned long)worst, gpu[worst], cpu[worst]);
  for (i = 0; i < nr; i++) {
    double e = fabs(rg[i] - rc[i]) / fmax(1.0, fabs(rc[i]));
    if (!(e <= max_row) && !(isnan(rg[i]) && isnan(rc[i])))
      max_row = isnan(e) ? INFINITY : e;
  }
  parity_kernel = "E-step, G > 1: rows";
  parity_note(max_row, TOL_ROWS);
  check(max_row <= TOL_ROWS * tol_scale,
        "mixture E-step %s: rows within %.3g of the CPU's", label, max_row);
  ghmix_cuda_mix_data_free(h);
  for (c = 0; c < G; c++)
    mix_setup_free(&s[c]);
  free(x);
  free(w);
  free(cpu);
  free(gpu);
  free(rc);
  free(rg);
}

/* The handle keeps the mixture E-step's buffers between calls: E-steps of
 * G = 2, then 5 (they grow), then 2 again on one handle give the bits of
 * fresh handles, and new weights (then none) are used at once. */
static void test_mixg_reuse(void) {
  const int d = 3, both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const size_t n = 4001;
  const int Gs[3] = {2, 5, 2};
  mix_setup s[5];
  ghmix_mix_component comp[5];
  ghmix_mix_model m;
  ghmix_error err;
  double *x = (double *)xmalloc(n * d * sizeof(double));
  double *w = (double *)xmalloc(n * sizeof(double));
  double *st[3] = {NULL, NULL, NULL}, *fresh = NULL;
  void *h = NULL, *h2 = NULL;
  size_t i, ns[3];
  int c, k, ok = 1, same = 1;
  for (c = 0; c < 5; c++) {
    mix_setup_init(&s[c], d, -0.5 + 0.4 * c, 1.1, 1.7, both, unif);
    s[c].center[0] += 1.5 * c;
    comp[c] = s[c].comp;
  }
  for (i = 0; i < n * d; i++)
    x[i] = unif(-2, 6);
  for (i = 0; i < n; i++)
    w[i] = unif(0, 2);
  ok = ghmix_cuda_mix_data_create(x, n, n, d, 0, &h, &err) == GHMIX_OK;
  for (k = 0; k < 3 && ok; k++) {
    for (c = 0; c < Gs[k]; c++)
      comp[c].log_prop = log(1.0 / Gs[k]);
    m.shape = s[0].model.shape;
    m.shape.components = Gs[k];
    m.shape.what = both;
    m.comp = comp;
    m.weights = NULL;
    ghmix_mix_model_complete(&m, &err);
    ns[k] = ghmix_estep_nstats(&m.shape);
    st[k] = (double *)xmalloc(ns[k] * sizeof(double));
    ok = ghmix_cuda_mix_estep_mixture(h, &m, st[k], NULL, NULL, &err) ==
         GHMIX_OK;
    if (ok && k == 1) { /* a fresh handle for G = 5 */
      fresh = (double *)xmalloc(ns[k] * sizeof(double));
      ok = ghmix_cuda_mix_data_create(x, n, n, d, 0, &h2, &err) == GHMIX_OK &&
           ghmix_cuda_mix_estep_mixture(h2, &m, fresh, NULL, NULL, &err) ==
               GHMIX_OK;
      same = ok && memcmp(fresh, st[k], ns[k] * sizeof(double)) == 0;
    }
  }
  check(ok && same && memcmp(st[0], st[2], ns[0] * sizeof(double)) == 0,
        "mixture E-step: one handle for G = 2, 5, 2 gives the bits of fresh "
        "handles (%s)",
        err.message);
  /* weights set after E-steps without, then dropped */
  if (ok) {
    double *sw = (double *)xmalloc(ns[2] * sizeof(double));
    double *sc = (double *)xmalloc(ns[2] * sizeof(double));
    m.shape.what = both | GHMIX_ESTEP_WEIGHTS;
    m.weights = w;
    ghmix_mix_estep_mixture_cpu(x, n, n, d, &m, sc, NULL, 1, &err);
    ok = ghmix_cuda_mix_data_weights(h, w, &err) == GHMIX_OK &&
         ghmix_cuda_mix_estep_mixture(h, &m, sw, NULL, NULL, &err) == GHMIX_OK;
    check(ok && fabs(sw[1] - sc[1]) <= 1e-12 * sc[1],
          "mixture E-step: new weights on a used handle (total weight %.17g, "
          "CPU %.17g)",
          sw[1], sc[1]);
    m.shape.what = both;
    ok = ghmix_cuda_mix_data_weights(h, NULL, &err) == GHMIX_OK &&
         ghmix_cuda_mix_estep_mixture(h, &m, sw, NULL, NULL, &err) == GHMIX_OK;
    check(ok && memcmp(sw, st[2], ns[2] * sizeof(double)) == 0,
          "mixture E-step: weights dropped, the unweighted bits again");
    free(sw);
    free(sc);
  }
  ghmix_cuda_mix_data_free(h);
  ghmix_cuda_mix_data_free(h2);
  for (k = 0; k < 3; k++)
    free(st[k]);
  for (c = 0; c < 5; c++)
    mix_setup_free(&s[c]);
  free(fresh);
  free(x);
  free(w);
}

static void test_mixg(int quick) {
  test_mixg_case("G=2 d=1", 1, 2, quick ? 5003 : 50003, 0);
  test_mixg_case("G=3 d=4, weighted", 4, 3, quick ? 9001 : 40001, 1);
  test_mixg_case("G=4 d=10", 10, 4, quick ? 3001 : 20011, 0);
  test_mixg_case("G=2 d=17, n=130 (tile of 64, partial)", 17, 2, 130, 1);
  test_mixg_case("G=13 d=3, weighted (the threads' results strided)", 3, 13,
                 quick ? 3001 : 12007, 1);
  test_mixg_case("G=3 d=120 (tile of 32)", 120, 3, quick ? 301 : 1301, 0);
  test_mixg_reuse();
}

/* ------------------------------------------ the factor-analytic E-step */

static double message_bytes(const char *msg);

/* A factor model of d and r (F, D, gamma, m drawn here) and its arrays. */
typedef struct {
  ghmix_factor_model fm;
  double *center, *f, *uniq, *gamma, *buf;
} fac_setup;

static int fac_setup_init(fac_setup *s, int d, int r, double p, double a,
                          double b, int what) {
  size_t j;
  s->center = (double *)xmalloc((size_t)d * sizeof(double));
  s->f = (double *)xmalloc((size_t)d * r * sizeof(double));
  s->uniq = (double *)xmalloc((size_t)d * sizeof(double));
  s->gamma = (double *)xmalloc((size_t)d * sizeof(double));
  s->buf = (double *)xmalloc(ghmix_factor_buffer_size(d, r) * sizeof(double));
  for (j = 0; j < (size_t)d; j++) {
    s->center[j] = unif(-1, 1);
    s->uniq[j] = unif(0.5, 2);
    s->gamma[j] = unif(-0.3, 0.3);
  }
  for (j = 0; j < (size_t)d * r; j++)
    s->f[j] = unif(-1, 1) / sqrt((double)r);
  return ghmix_factor_model_init(d, r, s->center, s->f, s->uniq, s->gamma, p, a,
                                 b, what, s->buf, &s->fm);
}

static void fac_setup_free(fac_setup *s) {
  free(s->center);
  free(s->f);
  free(s->uniq);
  free(s->gamma);
  free(s->buf);
}

/* The sums of |terms| of each statistic (the scale of its rounding), by a
 * serial loop over ghmix_factor_row_step. */
static void fac_scale(const double *x, size_t n, const double *wt,
                      const ghmix_factor_model *fm, const ghmix_estep_shape *sh,
                      double *scale) {
  const int d = fm->d, r = fm->r;
  const size_t ns = ghmix_estep_nstats(sh);
  const size_t at_u = ghmix_estep_stat(sh, 0, GHMIX_STAT_U).offset;
  const size_t at_w = ghmix_estep_stat(sh, 0, GHMIX_STAT_INV_Y_U).offset;
  const size_t at_g = ghmix_estep_stat(sh, 0, GHMIX_STAT_INV_Y_UU_DIAG).offset;
  const size_t at_p = ghmix_estep_stat(sh, 0, GHMIX_STAT_INV_Y_UU_PROJ).offset;
  double *u = (double *)xmalloc((size_t)d * sizeof(double));
  double *bu = (double *)xmalloc(((size_t)r + 1) * sizeof(double));
  size_t i, k;
  int j, l, id;
  for (k = 0; k < ns; k++)
    scale[k] = 0;
  for (i = 0; i < n; i++) {
    ghmix_mix_row_result res;
    ghmix_mix_terms t;
    double v, w;
    int ok;
    for (j = 0; j < d; j++)
      u[j] = x[i + (size_t)j * n] - fm->center[j];
    ok = ghmix_factor_row_step(fm, u, 1, bu, &res, &t);
    if (wt != NULL)
      ok = ghmix_mix_terms_weight(&t, wt[i]);
    for (id = 0; id < GHMIX_STAT_NSCALAR; id++)
      scale[ghmix_estep_stat(sh, 0, (ghmix_stat_id)id).offset] +=
          fabs(t.v[wt != NULL ? ghmix_mix_term_of_weighted((ghmix_stat_id)id)
                              : ghmix_mix_term_of((ghmix_stat_id)id)]);
    if (!ok)
      continue;
    v = t.v[GHMIX_TERM_WEIGHT];
    w = t.v[GHMIX_TERM_INV_Y];
    for (j = 0; j < d; j++) {
      scale[at_u + j] += fabs(v * u[j]);
      scale[at_w + j] += fabs(w * u[j]);
      scale[at_g + j] += w * u[j] * u[j];
      for (l = 0; l < r; l++)
        scale[at_p + (size_t)l * d + j] += fabs(w * u[j] * bu[l]);
    }
  }
  free(u);
  free(bu);
}

/* 1 for the statistics that count rows (compared exactly). */
static int fac_is_count(const ghmix_estep_shape *sh, size_t k) {
  return k == ghmix_estep_stat(sh, 0, GHMIX_STAT_ROWS).offset ||
         k == ghmix_estep_stat(sh, 0, GHMIX_STAT_BAD).offset ||
         (!(sh->what & GHMIX_ESTEP_WEIGHTS) &&
          (k == ghmix_estep_stat(sh, 0, GHMIX_STAT_WEIGHT).offset ||
           k == ghmix_estep_stat(sh, 0, GHMIX_STAT_TAU).offset));
}

/* The largest error of got against ref over the statistics, relative to
 * scale (counts exact); *worst: where. */
static double fac_max_err(const double *got, const double *ref,
                          const double *scale, const ghmix_estep_shape *sh,
                          size_t *worst) {
  const size_t ns = ghmix_estep_nstats(sh);
  double max_err = 0;
  size_t k;
  *worst = 0;
  for (k = 0; k < ns; k++) {
    double e;
    if (fac_is_count(sh, k) || scale[k] == 0)
      e = got[k] == ref[k] ? 0 : INFINITY;
    else
      e = fabs(got[k] - ref[k]) / scale[k];
    if (!(e <= max_err)) {
      max_err = isnan(e) ? INFINITY : e;
      *worst = k;
    }
  }
  return max_err;
}

/* Heavy-tailed, skewed rows about the model's centre; NaN rows, rows along
 * gamma (heavy for skewed models) and, with far, rows far out (Q
 * overflows: 1e160; they dominate the vector sums). */
static void fac_data(const fac_setup *s, int d, size_t n, int far, double *x) {
  size_t i;
  int j;
  for (i = 0; i < n; i++) {
    double w = logunif(-1, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] =
          s->center[j] + sqrt(w) * unif(-2, 2) + w * s->gamma[j];
  }
  for (i = 7; i < n; i += 997)
    x[i] = NAN;
  for (i = 11; far && i < n; i += 1499)
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = 1e160 * unif(-1, 1);
  for (i = 13; i < n; i += 1201)
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s->center[j] + 1e4 * s->gamma[j];
}

/* One factor E-step case on the device against the CPU driver. */
static void test_factor_case(const char *label, int d, int r, size_t n,
                             double p, double a, double b, int weighted,
                             int far) {
  const int what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  fac_setup s;
  ghmix_estep_shape sh;
  ghmix_error err;
  ghmix_status st;
  double *x = (double *)xmalloc(n * (size_t)d * sizeof(double));
  double *wt = NULL, *cpu, *gpu, *gpu2, *scale, *rc, *rg, max_row = 0, e;
  size_t ns, i, worst;
  void *h = NULL;
  int launches = -1;
  if (!fac_setup_init(&s, d, r, p, a, b, what)) {
    check(0, "factor E-step %s: invalid test parameters", label);
    free(x);
    return;
  }
  fac_data(&s, d, n, far, x);
  if (weighted) {
    wt = (double *)xmalloc(n * sizeof(double));
    for (i = 0; i < n; i++)
      wt[i] = i % 5 == 2 ? 0.0 : unif(0, 3);
  }
  sh = ghmix_factor_shape(&s.fm, weighted);
  ns = ghmix_estep_nstats(&sh);
  cpu = (double *)xmalloc(ns * sizeof(double));
  gpu = (double *)xmalloc(ns * sizeof(double));
  gpu2 = (double *)xmalloc(ns * sizeof(double));
  scale = (double *)xmalloc(ns * sizeof(double));
  rc = (double *)xmalloc(4 * n * sizeof(double));
  rg = (double *)xmalloc(4 * n * sizeof(double));
  poison(gpu, ns);
  poison(rg, 4 * n);
  fac_scale(x, n, wt, &s.fm, &sh, scale);
  st = ghmix_factor_estep_cpu(x, n, n, &s.fm, wt, cpu, rc, 1, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_data_create(x, n, n, d, wt, 0, &h, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, gpu, rg, &launches, &err);
  check(st == GHMIX_OK && launches == 2 && count_poison(gpu, ns) == 0 &&
            count_poison(rg, 4 * n) == 0,
        "factor E-step %s: status %d (%s), %d launches, every output written",
        label, (int)st, err.message, launches);
  e = fac_max_err(gpu, cpu, scale, &sh, &worst);
  parity_kernel = "factor E-step: statistics";
  parity_note(e, TOL_STATS);
  check(e <= TOL_STATS * tol_scale,
        "factor E-step %s (d = %d, r = %d, n = %lu): statistics within %.3g "
        "of the sum of |terms| (worst slot %lu: %.17g vs %.17g)",
        label, d, r, (unsigned long)n, e, (unsigned long)worst, gpu[worst],
        cpu[worst]);
  for (i = 0; i < 4 * n; i++) {
    double er = fabs(rg[i] - rc[i]) / fmax(1.0, fabs(rc[i]));
    if (!(er <= max_row) && !(isnan(rg[i]) && isnan(rc[i])))
      max_row = isnan(er) ? INFINITY : er;
  }
  parity_kernel = "factor E-step: rows";
  parity_note(max_row, TOL_ROWS);
  check(max_row <= TOL_ROWS * tol_scale,
        "factor E-step %s: rows within %.3g of the CPU's", label, max_row);
  poison(gpu2, ns);
  st = ghmix_cuda_factor_estep(h, &s.fm, gpu2, NULL, NULL, &err);
  check(st == GHMIX_OK && memcmp(gpu, gpu2, ns * sizeof(double)) == 0,
        "factor E-step %s: a second run (no rows) is bit-identical", label);
  ghmix_cuda_factor_data_free(h);
  fac_setup_free(&s);
  free(x);
  free(wt);
  free(cpu);
  free(gpu);
  free(gpu2);
  free(scale);
  free(rc);
  free(rg);
}

/* Errors of the factor E-step: data too large, a model of another d, no
 * rows. */
static void test_factor_errors(void) {
  fac_setup s;
  ghmix_estep_shape sh;
  ghmix_error err;
  ghmix_status st;
  double xs[8] = {1, 2, 3, 4, 5, 6, 7, 8}, stats[64], big[2];
  void *h = (void *)&st;
  size_t k;
  int zeros = 1;
  st = ghmix_cuda_factor_data_create(big, (size_t)1 << 36, (size_t)1 << 36, 8,
                                     NULL, 0, &h, &err);
  check(st == GHMIX_ERR_CUDA && h == NULL && message_bytes(err.message) > 1e12,
        "errors: factor E-step data too large is GHMIX_ERR_CUDA (\"%s\")",
        err.message);
  if (!fac_setup_init(&s, 3, 1, -0.5, 1, 1, GHMIX_ESTEP_MOMENTS)) {
    check(0, "errors: factor E-step parameters");
    return;
  }
  sh = ghmix_factor_shape(&s.fm, 0);
  st = ghmix_cuda_factor_data_create(xs, 2, 2, 4, NULL, 0, &h, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, stats, NULL, NULL, &err);
  check(st == GHMIX_ERR_DOMAIN,
        "errors: factor E-step with a model of another d is GHMIX_ERR_DOMAIN");
  ghmix_cuda_factor_data_free(h);
  st = ghmix_cuda_factor_data_create(xs, 0, 0, 3, NULL, 0, &h, &err);
  poison(stats, ghmix_estep_nstats(&sh));
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, stats, NULL, NULL, &err);
  for (k = 0; k < ghmix_estep_nstats(&sh); k++)
    zeros = zeros && stats[k] == 0;
  check(st == GHMIX_OK && zeros, "errors: factor E-step on 0 rows gives zeros");
  ghmix_cuda_factor_data_free(h);
  ghmix_cuda_factor_data_free(NULL);
  fac_setup_free(&s);
}

/* New weights on a handle (ghmix_cuda_factor_data_weights), as a factor
 * mixture sets each component's: the E-step then is that of data made
 * with those weights, bit for bit, and within TOL_STATS of the CPU
 * driver's with them; the first weights set back give the first result
 * again; a handle without weights is GHMIX_ERR_DOMAIN. */
static void test_factor_reweight(void) {
  const int d = 9, r = 2, what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const size_t n = 2003;
  fac_setup s;
  ghmix_estep_shape sh;
  ghmix_error err;
  ghmix_status st;
  double *x = (double *)xmalloc(n * (size_t)d * sizeof(double));
  double *w1 = (double *)xmalloc(n * sizeof(double));
  double *w2 = (double *)xmalloc(n * sizeof(double));
  double *first, *again, *fresh, *moved, *cpu, *scale, e;
  void *h = NULL, *h2 = NULL, *h0 = NULL;
  size_t ns, i, worst;
  if (!fac_setup_init(&s, d, r, -0.6, 1.2, 0.9, what)) {
    check(0, "factor reweight: invalid test parameters");
    free(x);
    free(w1);
    free(w2);
    return;
  }
  fac_data(&s, d, n, 0, x);
  for (i = 0; i < n; i++) {
    w1[i] = unif(0, 2);
    w2[i] = i % 7 == 3 ? 0.0 : unif(0, 1);
  }
  sh = ghmix_factor_shape(&s.fm, 1);
  ns = ghmix_estep_nstats(&sh);
  first = (double *)xmalloc(ns * sizeof(double));
  again = (double *)xmalloc(ns * sizeof(double));
  fresh = (double *)xmalloc(ns * sizeof(double));
  moved = (double *)xmalloc(ns * sizeof(double));
  cpu = (double *)xmalloc(ns * sizeof(double));
  scale = (double *)xmalloc(ns * sizeof(double));
  poison(moved, ns);
  st = ghmix_cuda_factor_data_create(x, n, n, d, w1, 0, &h, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, first, NULL, NULL, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_data_weights(h, w2, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, moved, NULL, NULL, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_data_create(x, n, n, d, w2, 0, &h2, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h2, &s.fm, fresh, NULL, NULL, &err);
  if (st == GHMIX_OK)
    st = ghmix_factor_estep_cpu(x, n, n, &s.fm, w2, cpu, NULL, 1, &err);
  check(st == GHMIX_OK && count_poison(moved, ns) == 0,
        "factor reweight: status %d (%s)", (int)st, err.message);
  check(memcmp(moved, fresh, ns * sizeof(double)) == 0,
        "factor reweight: new weights give the E-step of data made with them");
  check(memcmp(moved, first, ns * sizeof(double)) != 0,
        "factor reweight: the new weights change the sums");
  fac_scale(x, n, w2, &s.fm, &sh, scale);
  e = fac_max_err(moved, cpu, scale, &sh, &worst);
  check(e <= TOL_STATS * tol_scale,
        "factor reweight: statistics within %.3g of the CPU's with the new "
        "weights (worst slot %lu)",
        e, (unsigned long)worst);
  st = ghmix_cuda_factor_data_weights(h, w1, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep(h, &s.fm, again, NULL, NULL, &err);
  check(st == GHMIX_OK && memcmp(again, first, ns * sizeof(double)) == 0,
        "factor reweight: the first weights again give the first sums");
  st = ghmix_cuda_factor_data_create(x, n, n, d, NULL, 0, &h0, &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_data_weights(h0, w2, &err);
  check(st == GHMIX_ERR_DOMAIN,
        "factor reweight: a handle without weights is GHMIX_ERR_DOMAIN");
  st = ghmix_cuda_factor_data_weights(NULL, w2, &err);
  check(st == GHMIX_ERR_DOMAIN,
        "factor reweight: a NULL handle is GHMIX_ERR_DOMAIN");
  ghmix_cuda_factor_data_free(h);
  ghmix_cuda_factor_data_free(h2);
  ghmix_cuda_factor_data_free(h0);
  fac_setup_free(&s);
  free(x);
  free(w1);
  free(w2);
  free(first);
  free(again);
  free(fresh);
  free(moved);
  free(cpu);
  free(scale);
}

/* The factor mixture's one-pass E-step (ghmix_cuda_factor_estep_mixture)
 * against the path of R's CPU factor mixtures: each component's rows
 * (ghmix_factor_estep_cpu), the memberships from them (ghmix_mixg_row_tau),
 * then each component's weighted E-step with v_k = w tau_k: the whole
 * model's sums, and each component's statistics within TOL_STATS of its
 * sum of |terms|, the rows (log f, tau, E 1/Y, E Y, E log Y of each
 * component) within TOL_ROWS; G components of d, r factors; weighted: row
 * weights on the handle (a tenth 0); far: rows far out and NaN rows. */
static void test_factorg_case(const char *label, int d, int r, int G, size_t n,
                              int weighted, int far) {
  static const double pab[4][3] = {
      {-0.7, 1.3, 0.8}, {-0.5, 1.1, 1.7}, {1.2, 2.0, 0.0}, {-3.0, 0.0, 4.0}};
  const int what = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const size_t ncol = ghmix_mixg_row_ncol(G);
  fac_setup s[8];
  ghmix_factor_model fms[8];
  ghmix_mix_row_result res[8];
  ghmix_estep_shape sh;
  ghmix_error err;
  ghmix_status st = GHMIX_OK;
  double *x = (double *)xmalloc(n * (size_t)d * sizeof(double));
  double *w = (double *)xmalloc(n * sizeof(double));
  double *v = (double *)xmalloc(n * (size_t)G * sizeof(double));
  double *rc = (double *)xmalloc(n * 4 * (size_t)G * sizeof(double));
  double *ref_rows = (double *)xmalloc(n * ncol * sizeof(double));
  double *rg = (double *)xmalloc(n * ncol * sizeof(double));
  double glob[4] = {0, 0, 0, 0}, lp[8], max_err = 0, max_row = 0, e;
  double *cpu, *gpu, *scale;
  size_t ns1, i, k, worst = 0;
  void *h = NULL;
  int c, j, launches = -1;
  for (c = 0; c < G; c++) {
    const double *q = pab[c % 4];
    fac_setup_init(&s[c], d, r, q[0], q[1], q[2], what);
    fms[c] = s[c].fm;
    lp[c] = log((1.0 + c) / (G * (G + 1) / 2.0));
  }
  sh = ghmix_factor_shape(&fms[0], 1);
  ns1 = ghmix_estep_nstats(&sh);
  cpu = (double *)xmalloc((4 + ns1 * G) * sizeof(double));
  gpu = (double *)xmalloc((4 + ns1 * G) * sizeof(double));
  scale = (double *)xmalloc(ns1 * sizeof(double));
  for (i = 0; i < n; i++) {
    for (j = 0; j < d; j++)
      x[i + (size_t)j * n] = s[i % (size_t)G].center[j] + unif(-2, 2);
    w[i] = !weighted ? 1.0 : i % 10 == 3 ? 0.0 : unif(0.2, 3);
  }
  if (far)
    for (i = 11; i < n; i += 503) {
      for (j = 0; j < d; j++)
        x[i + (size_t)j * n] *= 1e160;
      x[i + 5] = NAN;
    }
  /* R's CPU path */
  for (c = 0; c < G && st == GHMIX_OK; c++)
    st = ghmix_factor_estep_cpu(x, n, n, &fms[c], NULL, cpu, rc + 4 * n * c, 1,
                                &err);
  for (i = 0; i < n && st == GHMIX_OK; i++) {
    double tau[8], logf;
    int ok;
    for (c = 0; c < G; c++) {
      const double *rk = rc + 4 * n * c;
      res[c].loglik = rk[i];
      res[c].e_inv_y = rk[n + i];
      res[c].e_y = rk[2 * n + i];
      res[c].e_log_y = rk[3 * n + i];
      res[c].inv_y_dev = res[c].y_dev = 0;
    }
    ok = ghmix_mixg_row_tau(G, lp, res, tau, &logf) && w[i] > 0;
    ghmix_mixg_row_store(G, what, res, tau, logf, i, n, ref_rows);
    for (c = 0; c < G; c++)
      v[c * n + i] = ok ? w[i] * tau[c] : 0.0;
    glob[0] += ok;
    glob[1] += ok ? w[i] : 0.0;
    glob[2] += ok ? w[i] * logf : 0.0;
    glob[3] += !ok && w[i] > 0;
  }
  for (k = 0; k < 4; k++)
    cpu[k] = glob[k];
  for (c = 0; c < G && st == GHMIX_OK; c++)
    st = ghmix_factor_estep_cpu(x, n, n, &fms[c], v + c * n, cpu + 4 + ns1 * c,
                                NULL, 1, &err);
  poison(gpu, 4 + ns1 * G);
  poison(rg, n * ncol);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_data_create(x, n, n, d, weighted ? w : NULL, 0, &h,
                                       &err);
  if (st == GHMIX_OK)
    st = ghmix_cuda_factor_estep_mixture(h, G, fms, lp, what, gpu, rg,
                                         &launches, &err);
  check(st == GHMIX_OK && launches == 2 &&
            count_poison(gpu, 4 + ns1 * G) == 0 &&
            count_poison(rg, n * ncol) == 0,
        "factor mixture %s: status %d (%s), %d launches, every output "
        "written",
        label, (int)st, err.message, launches);
  check(gpu[0] == cpu[0] && gpu[3] == cpu[3] &&
            fabs(gpu[1] - cpu[1]) <= 1e-12 * cpu[1] &&
            fabs(gpu[2] - cpu[2]) <= TOL_STATS * (fabs(cpu[2]) + cpu[1]),
        "factor mixture %s: rows %.0f, bad %.0f, weight %.17g, log-likelihood "
        "%.17g (CPU %.0f, %.0f, %.17g, %.17g)",
        label, gpu[0], gpu[3], gpu[1], gpu[2], cpu[0], cpu[3], cpu[1], cpu[2]);
  for (c = 0; c < G; c++) {
    size_t wk;
    fac_scale(x, n, v + c * n, &fms[c], &sh, scale);
    e = fac_max_err(gpu + 4 + ns1 * c, cpu + 4 + ns1 * c, scale, &sh, &wk);
    if (!(e <= max_err)) {
      max_err = e;
      worst = 4 + ns1 * c + wk;
    }
  }
  parity_kernel = "factor mixture E-step: statistics";
  parity_note(max_err, TOL_STATS);
  check(max_err <= TOL_STATS * tol_scale,
        "factor mixture %s (d = %d, r = %d, G = %d, n = %lu): each "
        "component's statistics within %.3g of its sum of |terms| (worst "
        "slot %lu: %.17g vs %.17g)",
        label, d, r, G, (unsigned long)n, max_err, (unsigned long)worst,
        gpu[worst], cpu[worst]);
  for (i = 0; i < n * ncol; i++) {
    double er = fabs(rg[i] - ref_rows[i]) / fmax(1.0, fabs(ref_rows[i]));
    if (!(er <= max_row) && !(isnan(rg[i]) && isnan(ref_rows[i])))
      max_row = isnan(er) ? INFINITY : er;
  }
  parity_kernel = "factor mixture E-step: rows";
  parity_note(max_row, TOL_ROWS);
  check(max_row <= TOL_ROWS * tol_scale,
        "factor mixture %s: rows within %.3g of the CPU's", label, max_row);
  /* the handle's buffers reused: a second run gives the same bits */
  if (st == GHMIX_OK) {
    double *again = (double *)xmalloc((4 + ns1 * G) * sizeof(double));
    st = ghmix_cuda_factor_estep_mixture(h, G, fms, lp, what, again, NULL, NULL,
                                         &err);
    check(st == GHMIX_OK &&
              memcmp(again, gpu, (4 + ns1 * G) * sizeof(double)) == 0,
          "factor mixture %s: a second run (no rows) is bit-identical", label);
    free(again);
  }
  ghmix_cuda_factor_data_free(h);
  for (c = 0; c < G; c++)
    fac_setup_free(&s[c]);
  free(x);
  free(w);
  free(v);
  free(rc);
  free(ref_rows);
  free(rg);
  free(cpu);
  free(gpu);
  free(scale);
}

static void test_factor(int quick) {
  test_factor_errors();
  test_factor_reweight();
  test_factor_case("GH d=8 r=2", 8, 2, quick ? 5003 : 50003, -0.7, 1.3, 0.8, 0,
                   0);
  test_factor_case("NIG d=20 r=3, weighted", 20, 3, quick ? 3001 : 20011, -0.5,
                   1.1, 1.7, 1, 0);
  test_factor_case("NIG d=20 r=3, far rows", 20, 3, 3001, -0.5, 1.1, 1.7, 1, 1);
  test_factor_case("GH d=2 r=0 (diagonal)", 2, 0, 4001, 1.3, 0.8, 1.2, 0, 0);
  test_factor_case("skew-t d=30 r=5 (a = 0)", 30, 5, 3001, -3.0, 0.0, 4.0, 1,
                   0);
  test_factor_case("skew-t d=30 r=5, far rows", 30, 5, 3001, -3.0, 0.0, 4.0, 0,
                   1);
  test_factor_case("VG d=12 r=1 (b = 0)", 12, 1, 2001, 1.2, 2.0, 0.0, 0, 0);
  test_factor_case("GH d=300 r=20 (tile of 64)", 300, 20, quick ? 500 : 3001,
                   -0.2, 1.5, 0.5, 0, 0);
  test_factor_case("GH d=80 r=70 (tile of 32, partial)", 80, 70, 130, -0.7, 1.3,
                   0.8, 1, 0);
  test_factorg_case("G=3 d=10 r=2", 10, 2, 3, quick ? 3001 : 20011, 0, 0);
  test_factorg_case("G=2 d=20 r=3, weighted, far rows", 20, 3, 2, 3001, 1, 1);
  test_factorg_case("G=5 d=100 r=10, weighted", 100, 10, 5, quick ? 500 : 3001,
                    1, 0);
  test_factorg_case("G=1 d=6 r=1", 6, 1, 1, 2001, 0, 0);
}

/* ====================================== densities and rows (one launch) */

/* Checks a density f against the CPU's: relative error over
 * max(1, |log f|, scale) (the error of log f carried into f; scale: the
 * size of the terms of log f that cancel, when known); where the CPU's
 * value is below 1e-290 (subnormal, where exp rounds coarsely) or not
 * finite, as cmp_add with SCALE_ABS1. */
static void cmp_add_density(cmp_t *c, double got, double ref, size_t i,
                            double scale) {
  double e;
  if (!(ref > 1e-290) || !isfinite(ref)) {
    if (isfinite(ref) && isfinite(got) && fabs(got - ref) <= 1e-290) {
      c->n++;
      return;
    }
    cmp_add(c, got, ref, SCALE_ABS1, i);
    return;
  }
  c->n++;
  if (!isfinite(got)) {
    c->n_class++;
    return;
  }
  e = fabs(got - ref) / ref / fmax(fmax(1.0, fabs(log(ref))), scale);
  if (e > c->max_err) {
    c->max_err = e;
    c->worst = i;
  }
}

/* log f against the CPU's: as cmp_add with SCALE_ABS1, but relative to
 * max(1, |ref|, scale). */
static void cmp_add_scaled(cmp_t *c, double got, double ref, size_t i,
                           double scale) {
  double e;
  if (!isfinite(ref) || !isfinite(got) || scale <= 1) {
    cmp_add(c, got, ref, SCALE_ABS1, i);
    return;
  }
  c->n++;
  e = fabs(got - ref) / fmax(fmax(1.0, fabs(ref)), scale);
  if (e > c->max_err) {
    c->max_err = e;
    c->worst = i;
  }
}

/* The size of the terms of the univariate log density that cancel:
 * log K of the prior GIG's normalising constant (about sqrt(ab)) and
 * B = (gamma / sigma) z, against which the posterior's log K cancels. */
static double gh1_term_scale(const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], size_t i) {
  double v[GHMIX_GH1_NARGS], z, c;
  int k;
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    v[k] = in[k][i % len[k]];
  z = (v[0] - v[1]) / v[3];
  c = ghmix_gig_log_norm(v[4], v[5], v[6]);
  c = isfinite(c) ? fabs(c) : 0.0;
  z = isfinite(z) ? fabs(v[2] / v[3] * z) : 0.0;
  return fmax(c, z);
}

/* One univariate case: the CUDA density (log and not) against
 * ghmix_gh1_dpq_batch on one CPU thread. */
static void gh1_case(const char *label, size_t n,
                     const double *const in[GHMIX_GH1_NARGS],
                     const size_t len[GHMIX_GH1_NARGS]) {
  double *c_l = (double *)xmalloc(n * sizeof(double));
  double *c_f = (double *)xmalloc(n * sizeof(double));
  double *g_l = (double *)xmalloc(n * sizeof(double));
  double *g_f = (double *)xmalloc(n * sizeof(double));
  double *g_2 = (double *)xmalloc(n * sizeof(double));
  ghmix_error err;
  ghmix_status st, st2;
  cmp_t cl, cf;
  size_t i, w;
  st =
      ghmix_gh1_dpq_batch(GHMIX_GH_FUN_DENSITY, n, in, len, 1, 0, c_l, 1, &err);
  st2 =
      ghmix_gh1_dpq_batch(GHMIX_GH_FUN_DENSITY, n, in, len, 0, 0, c_f, 1, &err);
  check(st == GHMIX_OK && st2 == GHMIX_OK, "dgh %s: CPU reference (%s)", label,
        err.message);
  poison(g_l, n);
  poison(g_f, n);
  st = ghmix_cuda_gh1_density_batch(n, in, len, 1, g_l, 0, &err);
  st2 = st != GHMIX_OK
            ? st
            : ghmix_cuda_gh1_density_batch(n, in, len, 0, g_f, 0, &err);
  check(st == GHMIX_OK && st2 == GHMIX_OK &&
            count_poison(g_l, n) + count_poison(g_f, n) == 0,
        "dgh %s: CUDA status %d (%s), every value written (%lu not)", label,
        (int)(st != GHMIX_OK ? st : st2), err.message,
        (unsigned long)(count_poison(g_l, n) + count_poison(g_f, n)));
  cmp_init(&cl);
  cmp_init(&cf);
  for (i = 0; i < n; i++) {
    double sc = gh1_term_scale(in, len, i);
    cmp_add_scaled(&cl, g_l[i], c_l[i], i, sc);
    cmp_add_density(&cf, g_f[i], c_f[i], i, sc);
  }
  w = cl.worst;
  parity_kernel = "dgh, univariate";
  check(cmp_ok(&cl, TOL_DENS),
        "dgh %s (n = %lu): log f max err %.3g (of max(1, |log f|, the "
        "cancelling terms); x = %.17g, mu = %.17g, "
        "gamma = %.17g, sigma = %.17g, p = %.17g, a = %.17g, b = %.17g), "
        "%lu differ in kind",
        label, (unsigned long)n, cl.max_err, in[0][w % len[0]],
        in[1][w % len[1]], in[2][w % len[2]], in[3][w % len[3]],
        in[4][w % len[4]], in[5][w % len[5]], in[6][w % len[6]],
        (unsigned long)cl.n_class);
  parity_kernel = parity_dens_kernel;
  check(cmp_ok(&cf, TOL_DENS),
        "dgh %s: f max err %.3g (relative, over max(1, |log f|, the "
        "cancelling terms)), %lu differ in kind",
        label, cf.max_err, (unsigned long)cf.n_class);
  /* NA stays NA, NaN NaN (the CPU keeps R's payload) */
  {
    size_t bad = 0;
    for (i = 0; i < n; i++)
      if (isnan(c_l[i]) && is_na(c_l[i]) != is_na(g_l[i]))
        bad++;
    check(bad == 0, "dgh %s: NA and NaN as on the CPU (%lu differ)", label,
          (unsigned long)bad);
  }
  /* a second run is bit-identical */
  poison(g_2, n);
  st = ghmix_cuda_gh1_density_batch(n, in, len, 1, g_2, 0, &err);
  check(st == GHMIX_OK && memcmp(g_l, g_2, n * sizeof(double)) == 0,
        "dgh %s: a second run is bit-identical", label);
  free(c_l);
  free(c_f);
  free(g_l);
  free(g_f);
  free(g_2);
}

/* A point of the univariate GH by regime: z = (x - mu) / sigma near the
 * body, far out (|z| up to 1e8: the cancellation-free Hankel form), beyond
 * the doubles' squares (|z| > 1e150), at the centre (the variance gamma's
 * singularity), and special values. */
static double gh1_point(double mu, double sigma) {
  double u = u01(), z;
  if (u < 0.5)
    z = unif(-6, 6);
  else if (u < 0.8)
    z = sign_rand() * logunif(0, 8);
  else if (u < 0.85)
    z = sign_rand() * logunif(150, 300);
  else if (u < 0.9)
    return mu;
  else if (u < 0.93)
    return sign_rand() * INFINITY;
  else if (u < 0.96)
    return from_bits(NA_BITS);
  else if (u < 0.98)
    return NAN;
  else
    z = sign_rand() * logunif(-300, -1);
  return mu + sigma * z;
}

/* GIG parameters by family k (mod 5): NIG, GH, variance gamma (b = 0),
 * skew-t (a = 0), GH with sqrt(ab) large. */
static void gh1_family(int k, double *p, double *a, double *b) {
  switch (k % 5) {
  case 0:
    *p = -0.5;
    *a = logunif(-2, 2);
    *b = logunif(-2, 2);
    break;
  case 1:
    *p = unif(-5, 5);
    *a = logunif(-2, 2);
    *b = logunif(-2, 2);
    break;
  case 2:
    *p = logunif(-1, 0.7);
    *a = logunif(-2, 2);
    *b = 0;
    break;
  case 3:
    *p = -logunif(-0.3, 1);
    *a = 0;
    *b = logunif(-2, 2);
    break;
  default:
    *p = unif(-3, 3);
    *a = logunif(1, 3);
    *b = logunif(1, 3);
  }
}

static void test_gh1(size_t n) {
  parity_dens_kernel = "dgh, univariate";
  double *v[GHMIX_GH1_NARGS];
  const double *in[GHMIX_GH1_NARGS];
  size_t len[GHMIX_GH1_NARGS], i;
  int k;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    v[k] = (double *)xmalloc(n * sizeof(double));
    in[k] = v[k];
    len[k] = n;
  }
  /* every parameter per element (each thread prepares its own set) */
  for (i = 0; i < n; i++) {
    double u = u01();
    v[1][i] = unif(-1, 1);
    v[2][i] = u < 0.3 ? 0.0 : unif(-1, 1) * (u < 0.9 ? 1.0 : 5.0);
    v[3][i] = logunif(-2, 2);
    gh1_family((int)(i % 5), &v[4][i], &v[5][i], &v[6][i]);
    v[0][i] = gh1_point(v[1][i], v[3][i]);
    if (i % 997 == 5)
      v[5][i] = -1; /* not a GIG: NaN */
    if (i % 997 == 6)
      v[3][i] = -1; /* sigma < 0: NaN */
    if (i % 997 == 7)
      v[4][i] = from_bits(NA_BITS); /* NA in a parameter */
    if (i % 997 == 8)
      v[2][i] = NAN;
  }
  gh1_case("per-element parameters", n, in, len);
  /* one parameter set per family (prepared once, on the host), x
   * recycled against a mu of length 3 */
  for (k = 0; k < 5; k++) {
    static const char *names[5] = {"NIG", "GH", "VG (b = 0)", "skew-t (a = 0)",
                                   "GH, sqrt(ab) large"};
    double mu3[3] = {-0.3, 0.0, 0.7}, gam = k == 3 ? 2.5 : -0.8, sig = 1.7;
    double p, a, b;
    char label[96];
    size_t m = n / 5;
    gh1_family(k, &p, &a, &b);
    for (i = 0; i < m; i++)
      v[0][i] = gh1_point(mu3[i % 3], sig);
    in[0] = v[0];
    len[0] = m;
    in[1] = mu3;
    len[1] = 3;
    in[2] = &gam;
    in[3] = &sig;
    in[4] = &p;
    in[5] = &a;
    in[6] = &b;
    for (i = 2; i < GHMIX_GH1_NARGS; i++)
      len[i] = 1;
    snprintf(label, sizeof label, "%s, one parameter set", names[k]);
    gh1_case(label, m, in, len);
  }
  /* gamma of length 7, the rest scalar: per element again, recycled */
  {
    double g7[7] = {-3, -1, -0.1, 0, 0.2, 1, 4}, sig = 0.3, p = -1.5, a = 0.5,
           b = 2, mu = 0.1;
    in[0] = v[0];
    len[0] = n / 5;
    in[1] = &mu;
    in[2] = g7;
    in[3] = &sig;
    in[4] = &p;
    in[5] = &a;
    in[6] = &b;
    len[1] = len[3] = len[4] = len[5] = len[6] = 1;
    len[2] = 7;
    gh1_case("gamma of length 7 recycled", n / 5, in, len);
  }
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    free(v[k]);
}

/* One case of the row kernel against the serial loop of mix_reference
 * (ncol = 4, log f) and against ghmix_gh_density_rows (ncol = 1, f and
 * log f), on data as test_mix_case's. */
static void test_rows_case(const char *label, int d, size_t n, size_t ldx,
                           double p, double a, double b, int what) {
  mix_setup s;
  const size_t ns = mix_nstats(d);
  double *x = (double *)xmalloc(ldx * (size_t)d * sizeof(double));
  double *x0 = (double *)xmalloc(ldx * (size_t)d * sizeof(double));
  double *ref = (double *)xmalloc(ns * sizeof(double));
  double *scale = (double *)xmalloc(ns * sizeof(double));
  double *rref = (double *)xmalloc(4 * n * sizeof(double));
  double *q = (double *)xmalloc(n * sizeof(double));
  double *bq = (double *)xmalloc(n * sizeof(double));
  double *z = (double *)xmalloc((size_t)d * sizeof(double));
  double *c_f = (double *)xmalloc(n * sizeof(double));
  double *rows = (double *)xmalloc(4 * n * sizeof(double));
  double *rows2 = (double *)xmalloc(4 * n * sizeof(double));
  double *g_l = (double *)xmalloc(n * sizeof(double));
  double *g_f = (double *)xmalloc(n * sizeof(double));
  double gsg = 0, logdet = 0;
  ghmix_error err;
  ghmix_status st, st2, st3;
  cmp_t cr[4], cf;
  size_t i, k;
  int j, l;

  if (!mix_setup_init(&s, d, p, a, b, what, unif)) {
    check(0, "rows %s: invalid test parameters", label);
    return;
  }
  for (i = 0; i < ldx; i++) {
    double w = logunif(-1, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * ldx] =
          s.center[j] + sqrt(w) * unif(-2, 2) + 0.3 * w * (j % 3 - 1);
  }
  for (i = 7; i < n; i += 997) {
    x[i] = NAN;
    if (i + 3 < n && b == 0)
      for (j = 0; j < d; j++)
        x[i + 3 + (size_t)j * ldx] = s.center[j];
    if (i + 5 < n)
      x[i + 5 + (size_t)(d - 1) * ldx] = INFINITY;
  }
  memcpy(x0, x, ldx * (size_t)d * sizeof(double));
  mix_reference(x, n, ldx, &s, ref, scale, rref);
  /* Q and B as the reference forms them, for the CPU density driver */
  gsg = s.comp.gsg;
  logdet = s.comp.logdet;
  for (i = 0; i < n; i++) {
    double qq = 0, bb = 0;
    for (j = 0; j < d; j++) {
      double v = x[i + (size_t)j * ldx] - s.center[j];
      for (l = 0; l < j; l++)
        v -= s.chol[j + (size_t)l * d] * z[l];
      z[j] = v / s.chol[j + (size_t)j * d];
      qq += z[j] * z[j];
      bb += z[j] * s.g[j];
    }
    q[i] = qq;
    bq[i] = bb;
  }
  st =
      ghmix_gh_density_rows(n, q, bq, d, p, a, b, gsg, logdet, 0, c_f, 1, &err);
  check(st == GHMIX_OK, "rows %s: CPU density reference (%s)", label,
        err.message);

  poison(rows, 4 * n);
  poison(g_l, n);
  poison(g_f, n);
  st = ghmix_cuda_mix_rows(x, n, ldx, d, &s.model, 1, 4, rows, 0, &err);
  st2 = ghmix_cuda_mix_rows(x, n, ldx, d, &s.model, 1, 1, g_l, 0, &err);
  st3 = ghmix_cuda_mix_rows(x, n, ldx, d, &s.model, 0, 1, g_f, 0, &err);
  check(st == GHMIX_OK && st2 == GHMIX_OK && st3 == GHMIX_OK &&
            count_poison(rows, 4 * n) + count_poison(g_l, n) +
                    count_poison(g_f, n) ==
                0,
        "rows %s: status %d %d %d (%s), every output written", label, (int)st,
        (int)st2, (int)st3, err.message);
  check(memcmp(x, x0, ldx * (size_t)d * sizeof(double)) == 0,
        "rows %s: the caller's x is left as it was", label);
  for (k = 0; k < 4; k++)
    cmp_init(&cr[k]);
  cmp_init(&cf);
  for (i = 0; i < n; i++) {
    for (k = 0; k < 4; k++)
      cmp_add(&cr[k], rows[k * n + i], rref[k * n + i], SCALE_ABS1, i);
    cmp_add_density(&cf, g_f[i], c_f[i], i, 1.0);
  }
  parity_kernel = parity_rows_kernel;
  check(cmp_ok(&cr[0], TOL_ROWS) && cmp_ok(&cr[1], TOL_ROWS) &&
            cmp_ok(&cr[2], TOL_ROWS) && cmp_ok(&cr[3], TOL_ROWS),
        "rows %s (d = %d, n = %lu): log f, E 1/Y, E Y, E log Y max err %.3g "
        "%.3g %.3g %.3g; %lu %lu %lu %lu differ in kind",
        label, d, (unsigned long)n, cr[0].max_err, cr[1].max_err, cr[2].max_err,
        cr[3].max_err, (unsigned long)cr[0].n_class,
        (unsigned long)cr[1].n_class, (unsigned long)cr[2].n_class,
        (unsigned long)cr[3].n_class);
  check(memcmp(g_l, rows, n * sizeof(double)) == 0,
        "rows %s: ncol = 1 gives the first column of ncol = 4", label);
  parity_kernel = parity_dens_kernel;
  check(cmp_ok(&cf, TOL_DENS),
        "rows %s: f against ghmix_gh_density_rows, max err %.3g (relative, "
        "over max(1, |log f|)), %lu differ in kind",
        label, cf.max_err, (unsigned long)cf.n_class);
  poison(rows2, 4 * n);
  st = ghmix_cuda_mix_rows(x, n, ldx, d, &s.model, 1, 4, rows2, 0, &err);
  check(st == GHMIX_OK && memcmp(rows, rows2, 4 * n * sizeof(double)) == 0,
        "rows %s: a second run is bit-identical", label);
  mix_setup_free(&s);
  free(x);
  free(x0);
  free(ref);
  free(scale);
  free(rref);
  free(q);
  free(bq);
  free(z);
  free(c_f);
  free(rows);
  free(rows2);
  free(g_l);
  free(g_f);
}

static void test_rows(int quick) {
  parity_rows_kernel = "row kernel (predict, dgh): rows";
  parity_dens_kernel = "row kernel (predict, dgh): f";
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  test_rows_case("GH d=1", 1, quick ? 20011 : 200003, 200010, -0.7, 1.3, 0.8,
                 both);
  test_rows_case("NIG d=4 (ldx > n), no E log Y", 4, 50001, 50013, -0.5, 1.1,
                 1.7, GHMIX_ESTEP_MOMENTS);
  test_rows_case("GH d=10", 10, quick ? 10007 : 30011, 30011, 2.5, 0.9, 1.4,
                 both);
  test_rows_case("VG d=4 (b = 0, rows at the centre)", 4, 20000, 20000, 1.2,
                 2.0, 0.0, both);
  test_rows_case("skew-t d=10 (a = 0)", 10, 9001, 9001, -3.0, 0.0, 4.0, both);
  test_rows_case("GH d=64", 64, quick ? 1003 : 5003, 5003, -0.2, 1.5, 0.5,
                 both);
  test_rows_case("GH d=1000 (no shared memory limit)", 1000, 300, 301, 1.5, 1.0,
                 1.0, both);
  test_rows_case("GH d=3, n=1", 3, 1, 1, -0.7, 1.3, 0.8, both);
}

/* ================================================== errors and memory */

/* The bytes named in "cudaMalloc of N bytes ...", or 0. */
static double message_bytes(const char *msg) {
  const char *p = strstr(msg, "cudaMalloc of ");
  double v = 0;
  if (p != NULL && strstr(p, " bytes") != NULL)
    v = strtod(p + strlen("cudaMalloc of "), NULL);
  return v;
}

static void test_errors(void) {
  ghmix_error err;
  ghmix_status st;
  double x = 1, nu = 1, out = from_bits(POISON_BITS), big[2];
  int count = 0, launches = 5;
  void *h = (void *)&count;
  mix_setup s;

  ghmix_cuda_device_count(&count, &err);

  st = ghmix_cuda_bessel_logk_batch(1, &x, 1, &nu, 1, &out, NULL, NULL, count,
                                    &err);
  check(st == GHMIX_ERR_DOMAIN && strstr(err.message, "does not exist"),
        "errors: device = count is GHMIX_ERR_DOMAIN (\"%s\")", err.message);
  st = ghmix_cuda_gig_expectation_batch(1, &x, 1, &x, 1, &x, 1, &out, &out,
                                        &out, -1, &err);
  check(st == GHMIX_ERR_DOMAIN, "errors: device = -1 is GHMIX_ERR_DOMAIN");
  st =
      ghmix_cuda_bessel_logk_batch(3, &x, 0, &nu, 1, &out, NULL, NULL, 0, &err);
  check(st == GHMIX_ERR_DOMAIN,
        "errors: empty x with n > 0 is GHMIX_ERR_DOMAIN");
  out = from_bits(POISON_BITS);
  st =
      ghmix_cuda_bessel_logk_batch(0, &x, 1, &nu, 1, &out, NULL, NULL, 0, &err);
  check(st == GHMIX_OK && to_bits(out) == POISON_BITS,
        "errors: n = 0 is GHMIX_OK and writes nothing");
  /* far more than any device has: 2^40 doubles of output */
  st = ghmix_cuda_bessel_logk_batch((size_t)1 << 40, &x, 1, &nu, 1, big, NULL,
                                    NULL, 0, &err);
  check(st == GHMIX_ERR_CUDA && message_bytes(err.message) >= 8796093022208.0,
        "errors: an allocation too large is GHMIX_ERR_CUDA naming its bytes "
        "(\"%s\")",
        err.message);
  {
    ghmix_gig_solve_args sa;
    sa.n = (size_t)1 << 36;
    sa.eta = big;
    sa.start = NULL;
    ghmix_gig_solve_control_init(&sa.ctrl);
    sa.p = sa.a = sa.b = sa.grad_norm = sa.condition = big;
    sa.jacobian = NULL;
    sa.iterations = sa.converged = sa.note = sa.infeasible = NULL;
    st = ghmix_cuda_gig_from_expectation_batch(&sa, 0, &err);
  }
  check(st == GHMIX_ERR_CUDA && message_bytes(err.message) > 1e12,
        "errors: gig_from_expectation too large is GHMIX_ERR_CUDA (\"%s\")",
        err.message);
  st = ghmix_cuda_mix_data_create(big, (size_t)1 << 36, (size_t)1 << 36, 8, 0,
                                  &h, &err);
  check(st == GHMIX_ERR_CUDA && h == NULL && message_bytes(err.message) > 1e12,
        "errors: E-step data too large is GHMIX_ERR_CUDA, no handle (\"%s\")",
        err.message);
  st = ghmix_cuda_mix_data_create(big, 2, 1, 1, 0, &h, &err);
  check(st == GHMIX_ERR_DOMAIN && h == NULL,
        "errors: ldx < n is GHMIX_ERR_DOMAIN");
  /* E-step: parameters of another d, an empty data set */
  if (mix_setup_init(&s, 3, -0.5, 1, 1, GHMIX_ESTEP_MOMENTS, unif)) {
    double xs[6] = {1, 2, 3, 4, 5, 6}, stats[64];
    const size_t ns = mix_nstats(3);
    size_t k;
    int zeros = 1;
    st = ghmix_cuda_mix_data_create(xs, 3, 3, 2, 0, &h, &err);
    if (st == GHMIX_OK)
      st = ghmix_cuda_mix_estep(h, &s.model, stats, NULL, &launches, &err);
    check(st == GHMIX_ERR_DOMAIN && launches == 0,
          "errors: E-step with parameters of another d is GHMIX_ERR_DOMAIN");
    ghmix_cuda_mix_data_free(h);
    st = ghmix_cuda_mix_data_create(xs, 0, 0, 3, 0, &h, &err);
    poison(stats, ns);
    if (st == GHMIX_OK)
      st = ghmix_cuda_mix_estep(h, &s.model, stats, NULL, &launches, &err);
    for (k = 0; k < ns; k++)
      zeros = zeros && stats[k] == 0;
    check(st == GHMIX_OK && count_poison(stats, ns) == 0 && zeros,
          "errors: E-step on 0 rows gives zeros");
    ghmix_cuda_mix_data_free(h);
    /* shapes of the contract that the kernels do not implement yet, and a
     * model that was not completed */
    {
      ghmix_mix_component two[2];
      ghmix_mix_model m2 = s.model;
      two[0] = two[1] = s.comp;
      m2.comp = two;
      m2.shape.components = 2;
      st = ghmix_cuda_mix_data_create(xs, 2, 2, 3, 0, &h, &err);
      if (st == GHMIX_OK && ghmix_mix_model_complete(&m2, &err) == GHMIX_OK)
        st = ghmix_cuda_mix_estep(h, &m2, stats, NULL, &launches, &err);
      check(st == GHMIX_ERR_DOMAIN && strstr(err.message, "not implemented"),
            "errors: E-step of 2 components is GHMIX_ERR_DOMAIN, not "
            "implemented yet (\"%s\")",
            err.message);
      m2 = s.model;
      m2.complete = 0;
      st = ghmix_cuda_mix_estep(h, &m2, stats, NULL, &launches, &err);
      check(st == GHMIX_ERR_DOMAIN,
            "errors: E-step of a model not completed is GHMIX_ERR_DOMAIN");
      ghmix_cuda_mix_data_free(h);
    }
    mix_setup_free(&s);
  }
  ghmix_cuda_mix_data_free(NULL);
  /* the row kernel: bad shapes, n = 0, too large, bad device */
  if (mix_setup_init(&s, 3, -0.5, 1, 1, GHMIX_ESTEP_MOMENTS, unif)) {
    double xs[6] = {1, 2, 3, 4, 5, 6}, rows[8];
    st = ghmix_cuda_mix_rows(xs, 2, 2, 3, &s.model, 1, 2, rows, 0, &err);
    check(st == GHMIX_ERR_DOMAIN, "errors: rows with ncol = 2 is "
                                  "GHMIX_ERR_DOMAIN");
    st = ghmix_cuda_mix_rows(xs, 2, 1, 3, &s.model, 1, 1, rows, 0, &err);
    check(st == GHMIX_ERR_DOMAIN, "errors: rows with ldx < n is "
                                  "GHMIX_ERR_DOMAIN");
    st = ghmix_cuda_mix_rows(xs, 2, 2, 0, &s.model, 1, 1, rows, 0, &err);
    check(st == GHMIX_ERR_DOMAIN, "errors: rows with d = 0 is "
                                  "GHMIX_ERR_DOMAIN");
    st = ghmix_cuda_mix_rows(xs, 2, 2, 2, &s.model, 1, 1, rows, 0, &err);
    check(st == GHMIX_ERR_DOMAIN, "errors: rows with a model of another d is "
                                  "GHMIX_ERR_DOMAIN");
    st = ghmix_cuda_mix_rows(xs, 2, 2, 3, &s.model, 1, 1, rows, count, &err);
    check(st == GHMIX_ERR_DOMAIN && strstr(err.message, "does not exist"),
          "errors: rows on device = count is GHMIX_ERR_DOMAIN");
    poison(rows, 8);
    st = ghmix_cuda_mix_rows(xs, 0, 0, 3, &s.model, 1, 4, rows, 0, &err);
    check(st == GHMIX_OK && count_poison(rows, 8) == 8,
          "errors: rows with n = 0 is GHMIX_OK and writes nothing");
    st = ghmix_cuda_mix_rows(big, (size_t)1 << 36, (size_t)1 << 36, 3, &s.model,
                             1, 4, big, 0, &err);
    check(st == GHMIX_ERR_CUDA && message_bytes(err.message) > 1e12,
          "errors: rows too large is GHMIX_ERR_CUDA naming its bytes "
          "(\"%s\")",
          err.message);
    mix_setup_free(&s);
  }
  /* the univariate density */
  {
    const double one = 1, *in[GHMIX_GH1_NARGS];
    size_t len[GHMIX_GH1_NARGS];
    int k;
    for (k = 0; k < GHMIX_GH1_NARGS; k++) {
      in[k] = &one;
      len[k] = 1;
    }
    out = from_bits(POISON_BITS);
    st = ghmix_cuda_gh1_density_batch(1, in, len, 0, &out, count, &err);
    check(st == GHMIX_ERR_DOMAIN && to_bits(out) == POISON_BITS,
          "errors: dgh on device = count is GHMIX_ERR_DOMAIN");
    len[3] = 0;
    st = ghmix_cuda_gh1_density_batch(2, in, len, 0, &out, 0, &err);
    check(st == GHMIX_ERR_DOMAIN,
          "errors: dgh with an empty input and n > 0 is GHMIX_ERR_DOMAIN");
    st = ghmix_cuda_gh1_density_batch(0, in, len, 0, &out, 0, &err);
    check(st == GHMIX_OK && to_bits(out) == POISON_BITS,
          "errors: dgh with n = 0 is GHMIX_OK and writes nothing");
    len[3] = 1;
    st =
        ghmix_cuda_gh1_density_batch((size_t)1 << 40, in, len, 0, big, 0, &err);
    check(st == GHMIX_ERR_CUDA && message_bytes(err.message) >= 8796093022208.0,
          "errors: dgh too large is GHMIX_ERR_CUDA naming its bytes (\"%s\")",
          err.message);
  }
}

/* Every call, failed or not, frees what it allocated: the free device
 * memory is the same after 10 rounds of them (to the driver's 2 MiB
 * granularity; one round allocates about 60 MB). */
static void test_no_leaks(void) {
  const size_t n = 1000000, m = 100000, d = 4;
  double *x = (double *)xmalloc(n * sizeof(double));
  double *o1 = (double *)xmalloc(n * sizeof(double));
  double *o2 = (double *)xmalloc(n * sizeof(double));
  double *xm = (double *)xmalloc(m * d * sizeof(double));
  double *rows = (double *)xmalloc(4 * m * sizeof(double));
  double stats[64], nu = 1.5, mem0 = 0, mem1 = 0;
  double eta[3] = {0, 1.5, 1.6};
  solve_out so;
  ghmix_gig_solve_args sa;
  ghmix_error err;
  mix_setup s;
  size_t i;
  int round, failures = 0;
  solve_alloc(&so, 1);
  sa = solve_args(1, eta, NULL, &so, 1);
  for (i = 0; i < n; i++)
    x[i] = logunif(-2, 2);
  for (i = 0; i < m * d; i++)
    xm[i] = unif(-2, 2);
  if (!mix_setup_init(&s, (int)d, -0.5, 1, 1, GHMIX_ESTEP_MOMENTS, unif)) {
    check(0, "leaks: E-step parameters");
    return;
  }
  for (round = -1; round < 10; round++) { /* round -1 warms up */
    void *h = NULL;
    if (round == 0 && !device_memory_free(&mem0))
      failures++;
    failures += ghmix_cuda_bessel_logk_batch(n, x, n, &nu, 1, o1, o2, NULL, 0,
                                             &err) != GHMIX_OK;
    failures +=
        ghmix_cuda_gig_expectation_batch(m, x, m, x + m, m, x, 1, o1, o2,
                                         o1 + m, 0, &err) != GHMIX_OK;
    failures += ghmix_cuda_gig_from_expectation_batch(&sa, 0, &err) != GHMIX_OK;
    failures +=
        ghmix_cuda_mix_data_create(xm, m, m, (int)d, 0, &h, &err) != GHMIX_OK;
    failures +=
        ghmix_cuda_mix_estep(h, &s.model, stats, rows, NULL, &err) != GHMIX_OK;
    ghmix_cuda_mix_data_free(h);
    failures += ghmix_cuda_mix_rows(xm, m, m, (int)d, &s.model, 1, 4, rows, 0,
                                    &err) != GHMIX_OK;
    {
      const double *in[GHMIX_GH1_NARGS] = {x,     x + 1, x + 2, x + 3,
                                           x + 4, x + 5, x + 6};
      size_t len[GHMIX_GH1_NARGS] = {n, 1, 1, 1, 1, 1, 1};
      failures +=
          ghmix_cuda_gh1_density_batch(n, in, len, 1, o1, 0, &err) != GHMIX_OK;
      len[4] = 2; /* per element */
      failures +=
          ghmix_cuda_gh1_density_batch(n, in, len, 1, o1, 0, &err) != GHMIX_OK;
      len[4] = 1;
      failures += ghmix_cuda_gh1_density_batch((size_t)1 << 40, in, len, 1, o1,
                                               0, &err) != GHMIX_ERR_CUDA;
    }
    failures +=
        ghmix_cuda_mix_rows(xm, (size_t)1 << 36, (size_t)1 << 36, (int)d,
                            &s.model, 1, 4, rows, 0, &err) != GHMIX_ERR_CUDA;
    /* failures that must not leak */
    failures +=
        ghmix_cuda_bessel_logk_batch((size_t)1 << 40, x, 1, &nu, 1, o1, NULL,
                                     NULL, 0, &err) != GHMIX_ERR_CUDA;
    failures += ghmix_cuda_mix_data_create(xm, (size_t)1 << 36, (size_t)1 << 36,
                                           8, 0, &h, &err) != GHMIX_ERR_CUDA;
    eta[1] = 0.1; /* infeasible */
    failures += ghmix_cuda_gig_from_expectation_batch(&sa, 0, &err) !=
                GHMIX_ERR_INFEASIBLE;
    eta[1] = 1.5;
  }
  if (!device_memory_free(&mem1))
    failures++;
  check(failures == 0 && fabs(mem1 - mem0) <= 2097152.0,
        "leaks: 10 rounds of calls and failed calls leave the free device "
        "memory as it was (%.0f bytes before, %.0f after; %d unexpected "
        "statuses)",
        mem0, mem1, failures);
  mix_setup_free(&s);
  solve_free(&so);
  free(x);
  free(o1);
  free(o2);
  free(xm);
  free(rows);
}

/* ================================================================ main */

/* Ends the running section (printing its time) and starts `name` (NULL:
 * none); returns 1. */
static int section_start(const char *name) {
  static double t = 0;
  static const char *running = NULL;
  if (running != NULL)
    printf("     [section %s: %.1f s]\n", running, now_s() - t);
  running = name;
  t = now_s();
  return 1;
}

int main(int argc, char **argv) {
  size_t n = 1000000;
  int count = 0, i, quick = 0;
  const char *only = "";
  ghmix_error err;
  ghmix_status st;
  double t0 = now_s();
  for (i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--n=", 4) == 0)
      n = (size_t)atof(argv[i] + 4);
    else if (strncmp(argv[i], "--tol-scale=", 12) == 0)
      tol_scale = atof(argv[i] + 12);
    else if (strncmp(argv[i], "--only=", 7) == 0)
      only = argv[i] + 7;
    else {
      fprintf(stderr, "usage: test_cuda [--n=N] [--tol-scale=S] "
                      "[--only=errors|logk|eta|solve|mix|factor|dens|rows]\n");
      return 2;
    }
  }
  quick = n < 1000000;
  printf("ghmix CUDA tests: built %s for %s\n",
         ghmix_cuda_built() ? "with CUDA" : "WITHOUT CUDA", ghmix_cuda_archs());
  st = ghmix_cuda_device_count(&count, &err);
  if (st != GHMIX_OK) {
    printf("SKIP: no usable CUDA device (%s); the CUDA tests compiled and "
           "linked but did not run\n",
           err.message);
    printf("0 passed, 0 failed\n");
    return 0;
  }
  print_device();
  /* each section's time (the device time a run takes) */
#define RUN(name) ((!*only || strcmp(only, name) == 0) && section_start(name))
  if (RUN("errors")) {
    test_errors();
    test_no_leaks();
  }
  if (RUN("logk"))
    test_logk(n);
  if (RUN("eta"))
    test_gig_expectation(n / 5);
  if (RUN("solve"))
    test_gig_solve(n / 10 > 1000 ? n / 10 : 1000);
  if (RUN("mix")) {
    test_mix(quick);
    test_mixg(quick);
  }
  if (RUN("factor"))
    test_factor(quick);
  if (RUN("dens"))
    test_gh1(n / 5);
  if (RUN("rows"))
    test_rows(quick);
  section_start(NULL);
  parity_print();
  printf("(%.1f s)\n", now_s() - t0);
  printf("%d passed, %d failed\n", passed, failed);
  return failed > 0;
}
