/* GPU benchmark of the CUDA backend, without R: tables, never failures.
 *
 *   bench_cuda [--quick]
 *
 * 1. log K_nu(x): kernel throughput on data already on the device at 10^6,
 *    10^7, 10^8 points (evaluations/s), with the CPU core on one thread on a
 *    sample of the same points as the baseline (ns/evaluation); the whole
 *    call from host memory (ghmix_cuda_bessel_logk_batch: allocation, copies,
 *    launch) at 10^7; the time of one call for a single element against a
 *    bare kernel launch (launch latency).
 * 2. gig_from_expectation: kernel throughput (rows/s) at 10^6 rows, the
 *    whole call, and the CPU on one thread.
 * 3. The E-step per EM iteration (ghmix_cuda_mix_estep: parameters in, two
 *    launches, statistics out) at n = 10^5, 10^6, 10^7 rows with d = 10, for
 *    GH (E log Y too) and NIG, with the launches per iteration, and a
 *    serial CPU loop over the same per-row code as the baseline.
 * 3b. The factor-analytic E-step (ghmix_cuda_factor_estep, Sigma = F F' +
 *    diag(D)) per EM iteration at (d, r) = (100, 5) with 10^6 rows and
 *    (1000, 20) with 10^5 (a tenth of that with --quick), against the CPU
 *    driver (ghmix_factor_estep_cpu) on one thread on 20000 rows.
 * 4. Densities per row, one launch: the row kernel of predict/fitted and
 *    the multivariate dgh (d = 10, kernel alone and whole call) at 10^6 and
 *    10^7 rows; the univariate dgh kernel (whole call) with one parameter
 *    set and with one per point, against the CPU on one thread.
 *
 * Times are medians of several runs after a warm-up; kernel times come from
 * CUDA events.  This file includes the kernels' translation units
 * (src/cuda/kernels.cu, mix_estep.cu, factor_estep.cu and their host
 * helpers, host.cu), to launch the kernels on device-resident data. */
#include "../../src/cuda/kernels.cu"

#include "../../src/cuda/factor_estep.cu"
#include "../../src/cuda/host.cu"
#include "../../src/cuda/mix_estep.cu"

#include <algorithm>
#include <time.h>
#include <vector>

extern "C" {
#include "../../src/cpu/bessel_cpu.h"
#include "../../src/cpu/factor_cpu.h"
#include "../../src/cpu/gh_dist_cpu.h"
#include "../../src/cpu/gig_solve_cpu.h"
}

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      printf("CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
             cudaGetErrorString(e_));                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

/* counter-based uniform in (0, 1), the same on host and device */
__host__ __device__ static inline double hash_u01(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* lo + (hi - lo) u, or 10^(lo + (hi - lo) u) with lg != 0 */
__host__ __device__ static inline double
gen_value(uint64_t seed, uint64_t i, double lo, double hi, int lg) {
  double v = lo + (hi - lo) * hash_u01(seed, i);
  return lg ? pow(10.0, v) : v;
}

__global__ void gen_kernel(size_t n, uint64_t seed, double lo, double hi,
                           int lg, double *out) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = gen_value(seed, i, lo, hi, lg);
}

__global__ void empty_kernel(void) {}

/* The arguments of logk_kernel for n points x, nu on the device. */
static ghmix_logk_args logk_args(size_t n, const double *x, const double *nu,
                                 double *out, double *gx, double *gnu) {
  ghmix_logk_args a;
  a.n = n;
  a.x = x;
  a.nx = n;
  a.nu = nu;
  a.nnu = n;
  a.logk = out;
  a.grad_x = gx;
  a.grad_nu = gnu;
  return a;
}

static void gen_device(size_t n, uint64_t seed, double lo, double hi, int lg,
                       double *out) {
  gen_kernel<<<1024, 256>>>(n, seed, lo, hi, lg, out);
  CK(cudaGetLastError());
}

/* Median time of `reps` runs of f (after one warm-up), by CUDA events. */
template <typename F> static double time_kernel(F f, int reps) {
  cudaEvent_t a, b;
  std::vector<double> t;
  float ms;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e-3);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}

static unsigned blocks_for(size_t n) {
  unsigned b = 0;
  ghmix_error err;
  if (grid_for(n, 0, &b, &err) != GHMIX_OK) {
    printf("grid_for: %s\n", err.message);
    exit(1);
  }
  return b;
}

/* ------------------------------------------------------------- log K */

static void bench_logk(int quick) {
  const size_t sizes[3] = {1000000, 10000000, 100000000};
  const int nsizes = quick ? 2 : 3;
  const double xlo = -2, xhi = 2, nulo = -20, nuhi = 20;
  size_t nmax = sizes[nsizes - 1], i;
  double *x, *nu, *out, *gx, *gn;
  double cpu_ns, cpu_ns_grad;
  ghmix_error err;

  printf("\n== log K_nu(x), x = 10^U(-2, 2), nu = U(-20, 20) ==\n");
  /* CPU baseline: one thread, the C core (src/cpu driver) */
  {
    size_t m = 200000;
    std::vector<double> hx(m), hn(m), ho(m), hg(m), hh(m);
    double t0;
    for (i = 0; i < m; i++) {
      hx[i] = gen_value(1, i, xlo, xhi, 1);
      hn[i] = gen_value(2, i, nulo, nuhi, 0);
    }
    t0 = now_s();
    ghmix_bessel_logk_batch(m, hx.data(), m, hn.data(), m, ho.data(), NULL,
                            NULL, 1, &err);
    cpu_ns = (now_s() - t0) / (double)m * 1e9;
    t0 = now_s();
    ghmix_bessel_logk_batch(m, hx.data(), m, hn.data(), m, ho.data(), hg.data(),
                            hh.data(), 1, &err);
    cpu_ns_grad = (now_s() - t0) / (double)m * 1e9;
    printf("CPU, one thread (C core, %lu points): %.1f ns/eval (%.3g "
           "evals/s); with gradient %.1f ns/eval\n",
           (unsigned long)m, cpu_ns, 1e9 / cpu_ns, cpu_ns_grad);
  }

  CK(cudaMalloc(&x, nmax * sizeof(double)));
  CK(cudaMalloc(&nu, nmax * sizeof(double)));
  CK(cudaMalloc(&out, nmax * sizeof(double)));
  gen_device(nmax, 1, xlo, xhi, 1, x);
  gen_device(nmax, 2, nulo, nuhi, 0, nu);
  printf("%12s %14s %14s %12s\n", "points", "kernel s", "evals/s",
         "x CPU thread");
  for (int k = 0; k < nsizes; k++) {
    size_t n = sizes[k];
    unsigned nb = blocks_for(n);
    double t = time_kernel(
        [&]() {
          logk_kernel<<<nb, GHMIX_CUDA_BLOCK>>>(
              logk_args(n, x, nu, out, NULL, NULL));
        },
        3);
    CK(cudaGetLastError());
    printf("%12.0e %14.6f %14.4g %12.0f\n", (double)n, t, (double)n / t,
           (double)n / t * cpu_ns * 1e-9);
  }
  {
    size_t n = sizes[1];
    unsigned nb = blocks_for(n);
    double t;
    CK(cudaMalloc(&gx, n * sizeof(double)));
    CK(cudaMalloc(&gn, n * sizeof(double)));
    t = time_kernel(
        [&]() {
          logk_kernel<<<nb, GHMIX_CUDA_BLOCK>>>(
              logk_args(n, x, nu, out, gx, gn));
        },
        3);
    CK(cudaGetLastError());
    printf("%12.0e %14.6f %14.4g %12.0f  (with gradient)\n", (double)n, t,
           (double)n / t, (double)n / t * cpu_ns_grad * 1e-9);
    CK(cudaFree(gx));
    CK(cudaFree(gn));
  }
  /* hard points: the whole range */
  {
    size_t n = sizes[1];
    unsigned nb = blocks_for(n);
    double t;
    gen_device(n, 3, -300, 300, 1, x);
    gen_device(n, 4, -1000, 1000, 0, nu);
    t = time_kernel(
        [&]() {
          logk_kernel<<<nb, GHMIX_CUDA_BLOCK>>>(
              logk_args(n, x, nu, out, NULL, NULL));
        },
        3);
    printf("%12.0e %14.6f %14.4g %12s  (x = 10^U(-300, 300), nu = "
           "U(-1000, 1000))\n",
           (double)n, t, (double)n / t, "");
  }
  CK(cudaFree(x));
  CK(cudaFree(nu));
  CK(cudaFree(out));

  /* the whole call from host memory */
  {
    size_t n = sizes[1];
    std::vector<double> hx(n), hn(n), ho(n);
    std::vector<double> t;
    for (i = 0; i < n; i++) {
      hx[i] = gen_value(1, i, xlo, xhi, 1);
      hn[i] = gen_value(2, i, nulo, nuhi, 0);
    }
    for (int r = 0; r < 4; r++) {
      double t0 = now_s();
      if (ghmix_cuda_bessel_logk_batch(n, hx.data(), n, hn.data(), n, ho.data(),
                                       NULL, NULL, 0, &err) != GHMIX_OK)
        printf("error: %s\n", err.message);
      if (r > 0)
        t.push_back(now_s() - t0);
    }
    printf("whole call from host memory (allocate, copy in, launch, copy "
           "out), %.0e points: %.4f s, %.4g evals/s\n",
           (double)n, median(t), (double)n / median(t));
  }

  /* one element */
  {
    std::vector<double> t_call, t_kernel, t_empty;
    double hx = 1.5, hn = 0.7, ho;
    double *dx, *dn, *dout;
    CK(cudaMalloc(&dx, sizeof(double)));
    CK(cudaMalloc(&dn, sizeof(double)));
    CK(cudaMalloc(&dout, sizeof(double)));
    CK(cudaMemcpy(dx, &hx, sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dn, &hn, sizeof(double), cudaMemcpyHostToDevice));
    for (int r = 0; r < 301; r++) {
      double t0 = now_s();
      ghmix_cuda_bessel_logk_batch(1, &hx, 1, &hn, 1, &ho, NULL, NULL, 0, &err);
      t_call.push_back(now_s() - t0);
      t0 = now_s();
      logk_kernel<<<1, GHMIX_CUDA_BLOCK>>>(
          logk_args(1, dx, dn, dout, NULL, NULL));
      CK(cudaDeviceSynchronize());
      t_kernel.push_back(now_s() - t0);
      t0 = now_s();
      empty_kernel<<<1, 1>>>();
      CK(cudaDeviceSynchronize());
      t_empty.push_back(now_s() - t0);
    }
    printf("one element: whole call %.1f us; its kernel alone, launch + "
           "sync %.1f us; an empty kernel, launch + sync %.1f us\n",
           median(t_call) * 1e6, median(t_kernel) * 1e6, median(t_empty) * 1e6);
    CK(cudaFree(dx));
    CK(cudaFree(dn));
    CK(cudaFree(dout));
  }
}

/* ------------------------------------------------ gig_from_expectation */

/* The solver's arguments for n rows of eta, outputs in dbl (5 n: p, a, b,
 * grad_norm, condition) and ints (4 n: iterations, converged, note,
 * infeasible), no start, no Jacobian. */
static ghmix_gig_solve_args solve_args(size_t n, const double *eta,
                                       const ghmix_gig_solve_control *ctrl,
                                       double *dbl, int *ints) {
  ghmix_gig_solve_args s;
  s.n = n;
  s.eta = eta;
  s.start = NULL;
  s.ctrl = *ctrl;
  s.p = dbl;
  s.a = dbl + n;
  s.b = dbl + 2 * n;
  s.grad_norm = dbl + 3 * n;
  s.condition = dbl + 4 * n;
  s.jacobian = NULL;
  s.iterations = ints;
  s.converged = ints + n;
  s.note = ints + 2 * n;
  s.infeasible = ints + 3 * n;
  return s;
}

static void bench_gig_solve(int quick) {
  size_t n = quick ? 200000 : 1000000, i;
  double *p, *a, *b, *eta, *out;
  int *iout;
  unsigned long long *first;
  ghmix_gig_solve_control ctrl;
  ghmix_error err;
  double t, cpu_us;
  unsigned nb = blocks_for(n);

  printf("\n== gig_from_expectation, p = U(-3, 3), a, b = 10^U(-1, 1) ==\n");
  ghmix_gig_solve_control_init(&ctrl);
  CK(cudaMalloc(&p, n * sizeof(double)));
  CK(cudaMalloc(&a, n * sizeof(double)));
  CK(cudaMalloc(&b, n * sizeof(double)));
  CK(cudaMalloc(&eta, 3 * n * sizeof(double)));
  CK(cudaMalloc(&out, 5 * n * sizeof(double)));
  CK(cudaMalloc(&iout, 4 * n * sizeof(int)));
  CK(cudaMalloc(&first, 2 * sizeof(unsigned long long)));
  CK(cudaMemset(first, 0xff, 2 * sizeof(unsigned long long)));
  gen_device(n, 5, -3, 3, 0, p);
  gen_device(n, 6, -1, 1, 1, a);
  gen_device(n, 7, -1, 1, 1, b);
  {
    ghmix_gig_eta_args e;
    e.n = n;
    e.par.p = p;
    e.par.a = a;
    e.par.b = b;
    e.par.np = e.par.na = e.par.nb = n;
    e.out_log = eta;
    e.out_inv = eta + n;
    e.out_y = eta + 2 * n;
    gig_eta_kernel<<<nb, GHMIX_CUDA_BLOCK>>>(e);
  }
  CK(cudaDeviceSynchronize());
  t = time_kernel(
      [&]() {
        gig_solve_kernel<<<nb, GHMIX_CUDA_BLOCK>>>(
            solve_args(n, eta, &ctrl, out, iout), first);
      },
      3);
  CK(cudaGetLastError());
  {
    /* CPU: one thread on the first rows */
    size_t m = 20000;
    std::vector<double> he(3 * n), hd(5 * m), hm(3 * m);
    std::vector<int> hi(4 * m);
    double t0;
    CK(cudaMemcpy(he.data(), eta, 3 * n * sizeof(double),
                  cudaMemcpyDeviceToHost));
    for (int k = 0; k < 3; k++)
      for (i = 0; i < m; i++)
        hm[k * m + i] = he[k * n + i];
    t0 = now_s();
    {
      ghmix_gig_solve_args hs =
          solve_args(m, hm.data(), &ctrl, hd.data(), hi.data());
      ghmix_gig_from_expectation_batch(&hs, 1, &err);
    }
    cpu_us = (now_s() - t0) / (double)m * 1e6;
    printf("CPU, one thread (%lu rows): %.2f us/row\n", (unsigned long)m,
           cpu_us);
    printf("kernel, %.0e rows: %.5f s, %.4g rows/s (= %.0f CPU threads)\n",
           (double)n, t, (double)n / t, (double)n / t * cpu_us * 1e-6);
    /* whole call */
    {
      std::vector<double> dd(5 * n);
      std::vector<int> ii(4 * n);
      std::vector<double> tt;
      ghmix_gig_solve_args ws =
          solve_args(n, he.data(), &ctrl, dd.data(), ii.data());
      for (int r = 0; r < 3; r++) {
        t0 = now_s();
        if (ghmix_cuda_gig_from_expectation_batch(&ws, 0, &err) != GHMIX_OK)
          printf("error: %s\n", err.message);
        if (r > 0)
          tt.push_back(now_s() - t0);
      }
      printf("whole call from host memory, %.0e rows: %.4f s, %.4g rows/s\n",
             (double)n, median(tt), (double)n / median(tt));
    }
  }
  CK(cudaFree(p));
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(eta));
  CK(cudaFree(out));
  CK(cudaFree(iout));
  CK(cudaFree(first));
}

/* ----------------------------------------------------------- E-step */

/* The one-component model of the given parameters, completed. */
static void bench_model(int d, const double *center, const double *chol,
                        const double *g, double p, double a, double b,
                        double gsg, double logdet, int what,
                        ghmix_mix_component *comp, ghmix_mix_model *m) {
  ghmix_error err;
  comp->center = center;
  comp->chol = chol;
  comp->g = g;
  comp->p = p;
  comp->a = a;
  comp->b = b;
  comp->gsg = gsg;
  comp->logdet = logdet;
  comp->log_prop = 0;
  m->shape.d = d;
  m->shape.components = 1;
  m->shape.cov = GHMIX_COV_FULL;
  m->shape.factors = 0;
  m->shape.what = what;
  m->comp = comp;
  m->weights = NULL;
  if (ghmix_mix_model_complete(m, &err) != GHMIX_OK)
    printf("error: %s\n", err.message);
}

static void bench_estep(int quick) {
  const int d = 10;
  const size_t sizes[3] = {100000, 1000000, 10000000};
  const int nsizes = quick ? 2 : 3;
  size_t nmax = sizes[nsizes - 1], i;
  std::vector<double> x, center(d), chol((size_t)d * d, 0.0), g(d);
  std::vector<double> stats(ghmix_mix_plan(1, d).nstats);
  double gsg = 0, logdet = 0;
  ghmix_error err;
  int j;

  printf("\n== E-step per EM iteration, d = %d ==\n", d);
  x.resize(nmax * d);
  for (j = 0; j < d; j++) {
    center[j] = 0.1 * j;
    chol[j + (size_t)j * d] = 1.0 + 0.05 * j;
    if (j > 0)
      chol[j + (size_t)(j - 1) * d] = 0.2;
    g[j] = 0.05 * (j % 3);
    gsg += g[j] * g[j];
    logdet += 2 * log(chol[j + (size_t)j * d]);
  }
  for (i = 0; i < nmax; i++) {
    double w = gen_value(11, i, -0.5, 0.5, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * nmax] =
          center[j] + sqrt(w) * (2 * hash_u01(12 + j, i) - 1) * 1.7;
  }
  {
    /* families: GH (E log Y as well) and NIG (half-integer order) */
    struct fam {
      const char *name;
      double p, a, b;
      int what;
    } fams[2] = {{"GH", -1.2, 0.9, 1.3, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY},
                 {"NIG", -0.5, 1.1, 1.1, GHMIX_ESTEP_MOMENTS}};
    printf("%6s %12s %14s %12s %10s %16s\n", "family", "n", "ms/iteration",
           "rows/s", "launches", "serial CPU ms");
    for (int f = 0; f < 2; f++) {
      ghmix_mix_component comp;
      ghmix_mix_model par;
      double cpu_ns;
      bench_model(d, center.data(), chol.data(), g.data(), fams[f].p, fams[f].a,
                  fams[f].b, gsg, logdet, fams[f].what, &comp, &par);
      {
        /* serial CPU loop over the same per-row code, 20000 rows */
        size_t m = 20000;
        double t0 = now_s(), sink = 0;
        std::vector<double> z(d);
        for (i = 0; i < m; i++) {
          double q = 0, bz = 0;
          ghmix_mix_row_result r;
          for (j = 0; j < d; j++) {
            double s = x[i + (size_t)j * nmax] - center[j];
            for (int k = 0; k < j; k++)
              s -= chol[j + (size_t)k * d] * z[k];
            z[j] = s / chol[j + (size_t)j * d];
            q += z[j] * z[j];
            bz += z[j] * g[j];
          }
          ghmix_mix_row(&comp.c, q, bz, &r);
          sink += r.loglik;
        }
        cpu_ns = (now_s() - t0) / (double)m * 1e9;
        if (sink == 1.2345)
          printf("!");
      }
      for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        void *h = NULL;
        std::vector<double> t;
        int launches = 0;
        /* the first n rows: x with leading dimension nmax */
        if (ghmix_cuda_mix_data_create(x.data(), n, nmax, d, 0, &h, &err) !=
            GHMIX_OK) {
          printf("error: %s\n", err.message);
          continue;
        }
        for (int r = 0; r < 11; r++) {
          double t0 = now_s();
          if (ghmix_cuda_mix_estep(h, &par, stats.data(), NULL, &launches,
                                   &err) != GHMIX_OK)
            printf("error: %s\n", err.message);
          if (r > 0)
            t.push_back(now_s() - t0);
        }
        printf("%6s %12.0e %14.3f %12.4g %10d %16.1f\n", fams[f].name,
               (double)n, median(t) * 1e3, (double)n / median(t), launches,
               cpu_ns * 1e-6 * (double)n);
        ghmix_cuda_mix_data_free(h);
      }
      printf("       (serial CPU: %.0f ns/row, one thread, the same per-row "
             "code)\n",
             cpu_ns);
    }
  }
  {
    /* data transfer once per fit */
    void *h = NULL;
    double t0 = now_s();
    if (ghmix_cuda_mix_data_create(x.data(), nmax, nmax, d, 0, &h, &err) ==
        GHMIX_OK)
      printf("copying the data to the device once per fit (%.0e x %d): "
             "%.1f ms\n",
             (double)nmax, d, (now_s() - t0) * 1e3);
    ghmix_cuda_mix_data_free(h);
  }
}

/* ------------------------------------------- the factor-analytic E-step */

static void bench_factor(int quick) {
  const int dims[2][2] = {{100, 5}, {1000, 20}};
  const size_t rows[2] = {1000000, 100000};
  ghmix_error err;
  printf("\n== factor E-step per EM iteration (GH, E log Y too) ==\n");
  printf("%6s %4s %10s %14s %12s %16s\n", "d", "r", "n", "ms/iteration",
         "rows/s", "CPU 1 thread ms");
  for (int c = 0; c < 2; c++) {
    const int d = dims[c][0], r = dims[c][1];
    const size_t n = quick ? rows[c] / 10 : rows[c], m = 20000;
    std::vector<double> x(n * (size_t)d), center(d), f((size_t)d * r), uniq(d),
        gamma(d), buf(ghmix_factor_buffer_size(d, r));
    ghmix_factor_model fm;
    void *h = NULL;
    std::vector<double> t;
    size_t i;
    int j, launches = 0;
    for (j = 0; j < d; j++) {
      center[j] = 0.01 * j;
      uniq[j] = 0.5 + hash_u01(21, j);
      gamma[j] = 0.05 * (j % 3);
    }
    for (i = 0; i < (size_t)d * r; i++)
      f[i] = (2 * hash_u01(22, i) - 1) / sqrt((double)r);
    for (i = 0; i < n; i++) {
      double w = gen_value(23, i, -0.5, 0.5, 1);
      for (j = 0; j < d; j++)
        x[i + (size_t)j * n] =
            center[j] + sqrt(w) * (2 * hash_u01(24 + j, i) - 1);
    }
    if (!ghmix_factor_model_init(
            d, r, center.data(), f.data(), uniq.data(), gamma.data(), -1.2, 0.9,
            1.3, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY, buf.data(), &fm)) {
      printf("error: factor model\n");
      continue;
    }
    ghmix_estep_shape sh = ghmix_factor_shape(&fm, 0);
    std::vector<double> stats(ghmix_estep_nstats(&sh));
    double t0 = now_s();
    ghmix_factor_estep_cpu(x.data(), m, n, &fm, NULL, stats.data(), NULL, 1,
                           &err);
    double cpu_ms = (now_s() - t0) / (double)m * (double)n * 1e3;
    if (ghmix_cuda_factor_data_create(x.data(), n, n, d, NULL, 0, &h, &err) !=
        GHMIX_OK) {
      printf("error: %s\n", err.message);
      continue;
    }
    for (int k = 0; k < 11; k++) {
      t0 = now_s();
      if (ghmix_cuda_factor_estep(h, &fm, stats.data(), NULL, &launches,
                                  &err) != GHMIX_OK)
        printf("error: %s\n", err.message);
      if (k > 0)
        t.push_back(now_s() - t0);
    }
    printf("%6d %4d %10.0e %14.3f %12.4g %16.1f\n", d, r, (double)n,
           median(t) * 1e3, (double)n / median(t), cpu_ms);
    ghmix_cuda_factor_data_free(h);
  }
}

/* ------------------------------------------ densities per row (one launch) */

/* The row kernel (predict/fitted, multivariate dgh) at d = 10 and the
 * univariate density kernel (dgh), rows or points per second. */
static void bench_rows(int quick) {
  const int d = 10;
  const size_t sizes[2] = {1000000, 10000000};
  const int nsizes = quick ? 1 : 2;
  size_t nmax = sizes[nsizes - 1], i;
  std::vector<double> x, center(d), chol((size_t)d * d, 0.0), g(d);
  double gsg = 0, logdet = 0;
  ghmix_mix_component comp;
  ghmix_mix_model par;
  ghmix_error err;
  int j;

  printf("\n== densities and moments per row (predict, fitted, dgh), one "
         "launch ==\n");
  x.resize(nmax * d);
  for (j = 0; j < d; j++) {
    center[j] = 0.1 * j;
    chol[j + (size_t)j * d] = 1.0 + 0.05 * j;
    if (j > 0)
      chol[j + (size_t)(j - 1) * d] = 0.2;
    g[j] = 0.05 * (j % 3);
    gsg += g[j] * g[j];
    logdet += 2 * log(chol[j + (size_t)j * d]);
  }
  for (i = 0; i < nmax; i++) {
    double w = gen_value(11, i, -0.5, 0.5, 1);
    for (j = 0; j < d; j++)
      x[i + (size_t)j * nmax] =
          center[j] + sqrt(w) * (2 * hash_u01(12 + j, i) - 1) * 1.7;
  }
  bench_model(d, center.data(), chol.data(), g.data(), -1.2, 0.9, 1.3, gsg,
              logdet, GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY, &comp, &par);
  printf("%28s %12s %12s %14s\n", "", "n", "ms", "rows/s");
  for (int k = 0; k < nsizes; k++) {
    size_t n = sizes[k];
    double *dx = NULL, *dx0 = NULL, *dpar = NULL, *dout = NULL, t_copy, t_all;
    std::vector<double> out(4 * n), t;
    size_t npar = 2 * (size_t)d + (size_t)d * d;
    unsigned blocks = blocks_for(n);
    CK(cudaMalloc(&dx, n * d * sizeof(double)));
    CK(cudaMalloc(&dx0, n * d * sizeof(double)));
    CK(cudaMalloc(&dpar, npar * sizeof(double)));
    CK(cudaMalloc(&dout, 4 * n * sizeof(double)));
    CK(cudaMemcpy2D(dx0, n * sizeof(double), x.data(), nmax * sizeof(double),
                    n * sizeof(double), d, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dpar, center.data(), d * sizeof(double),
                  cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dpar + d, chol.data(), (size_t)d * d * sizeof(double),
                  cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dpar + d + (size_t)d * d, g.data(), d * sizeof(double),
                  cudaMemcpyHostToDevice));
    /* the kernel solves in place: each run starts from a fresh copy */
    t_copy = time_kernel(
        [&] {
          CK(cudaMemcpy(dx, dx0, n * d * sizeof(double),
                        cudaMemcpyDeviceToDevice));
        },
        5);
    t_all = time_kernel(
        [&] {
          CK(cudaMemcpy(dx, dx0, n * d * sizeof(double),
                        cudaMemcpyDeviceToDevice));
          mix_rows_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(n, d, dx, dpar, comp.c,
                                                        1, 4, dout);
        },
        5);
    printf("%28s %12.0e %12.3f %14.4g\n", "row kernel, d = 10, 4 outputs",
           (double)n, (t_all - t_copy) * 1e3, (double)n / (t_all - t_copy));
    for (int r = 0; r < 4; r++) {
      double t0 = now_s();
      if (ghmix_cuda_mix_rows(x.data(), n, nmax, d, &par, 1, 4, out.data(), 0,
                              &err) != GHMIX_OK)
        printf("error: %s\n", err.message);
      if (r > 0)
        t.push_back(now_s() - t0);
    }
    printf("%28s %12.0e %12.3f %14.4g\n", "whole call from host memory",
           (double)n, median(t) * 1e3, (double)n / median(t));
    CK(cudaFree(dx));
    CK(cudaFree(dx0));
    CK(cudaFree(dpar));
    CK(cudaFree(dout));
  }
  {
    /* the univariate density: one parameter set (prepared on the host) and
     * a parameter set per element; CPU on one thread as the baseline */
    size_t n = sizes[nsizes - 1], m = 200000;
    std::vector<double> xs(n), out(n), gam(n);
    double mu = 0.1, sig = 1.3, p = -0.5, a = 1.2, b = 0.8, g1 = 0.4;
    const double *in[GHMIX_GH1_NARGS] = {xs.data(), &mu, &g1, &sig, &p, &a, &b};
    size_t len[GHMIX_GH1_NARGS] = {n, 1, 1, 1, 1, 1, 1};
    for (i = 0; i < n; i++) {
      xs[i] = gen_value(21, i, -8, 8, 0);
      gam[i] = gen_value(22, i, -1, 1, 0);
    }
    for (int pe = 0; pe < 2; pe++) {
      std::vector<double> t;
      double t0, cpu;
      if (pe) {
        in[2] = gam.data();
        len[2] = n;
      }
      for (int r = 0; r < 4; r++) {
        t0 = now_s();
        if (ghmix_cuda_gh1_density_batch(n, in, len, 1, out.data(), 0, &err) !=
            GHMIX_OK)
          printf("error: %s\n", err.message);
        if (r > 0)
          t.push_back(now_s() - t0);
      }
      len[0] = m;
      if (pe)
        len[2] = m;
      t0 = now_s();
      ghmix_gh1_dpq_batch(GHMIX_GH_FUN_DENSITY, m, in, len, 1, 0, out.data(), 1,
                          &err);
      cpu = (now_s() - t0) / (double)m;
      len[0] = n;
      printf("%28s %12.0e %12.3f %14.4g  (CPU one thread: %.0f ns/point)\n",
             pe ? "dgh, parameters per point" : "dgh, one parameter set",
             (double)n, median(t) * 1e3, (double)n / median(t), cpu * 1e9);
    }
  }
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, count = 0;
  ghmix_error err;
  ghmix_cuda_device dev;
  double t0 = now_s();
  if (ghmix_cuda_device_count(&count, &err) != GHMIX_OK) {
    printf("SKIP: no usable CUDA device (%s)\n", err.message);
    return 0;
  }
  if (ghmix_cuda_device_info(0, &dev, &err) == GHMIX_OK)
    printf("ghmix CUDA benchmark on %s (compute capability %d.%d, %d SMs, "
           "%.0f GiB)\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.multiprocessors,
           dev.total_mem_bytes / 1073741824.0);
  CK(cudaSetDevice(0));
  CK(cudaFree(NULL)); /* create the context outside the timings */
  bench_logk(quick);
  bench_gig_solve(quick);
  bench_estep(quick);
  bench_factor(quick);
  bench_rows(quick);
  printf("\n(benchmark: %.1f s)\n", now_s() - t0);
  return 0;
}
