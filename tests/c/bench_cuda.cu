/* GPU benchmark of the CUDA backend, without R: where the GPU starts to
 * beat the CPU, as tables (never failures).
 *
 *   bench_cuda [--quick] [--threads=N]
 *
 * Every timing is a whole call from host memory, as R makes it (the
 * E-steps: one EM iteration on data already on the device, which the fit
 * copies there once; that copy is timed apart), the median of at least 3
 * runs after a warm-up, wall clock.  Each operation runs at a ladder of
 * sizes on the GPU and on ghmix's CPU drivers on 1 and N threads (N: all
 * the cores OpenMP reports, or --threads); its crossover is the smallest
 * size of the ladder from which the GPU is faster than the CPU at every
 * larger size.
 *
 * 1. log K_nu(x) with its gradient, n = 10^2 .. 10^6 (10^7);
 * 2. gig_from_expectation, n = 10^2 .. 10^5 (10^6);
 * 3. the mixture E-step, G = 1 and 3 components, d = 10 and 100 (GH, E log
 *    Y too), n = 10^3 .. 10^6 (d = 100: 10^5 with --quick);
 * 4. the factor-analytic E-step, d = 100, r = 10, n = 10^3 .. 10^6;
 * 5. the latency of a call for one element, and a summary: each
 *    operation's crossovers and its speed-up at the largest size.
 *
 * Plain C++ over the backend's C interface (src/cuda/ghmix_cuda.h): built
 * with nvcc and linked with the kernels' objects (make bench_cuda), or
 * with the C++ compiler against the CPU stand-in (make bench-cuda-mock),
 * which checks this harness without a GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include <dlfcn.h>
#ifdef _OPENMP
#include <omp.h>
#endif

extern "C" {
#include "../../src/core/factor.h"
#include "../../src/core/gig_moments.h"
#include "../../src/cpu/bessel_cpu.h"
#include "../../src/cpu/factor_cpu.h"
#include "../../src/cpu/gig_solve_cpu.h"
#include "../../src/cpu/mixture_cpu.h"
#include "../../src/cuda/ghmix_cuda.h"
#include "mix_setup.h"
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

/* counter-based uniform in (0, 1) */
static double hash_u01(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t unif_state = 7;
static double unif(double lo, double hi) {
  return lo + (hi - lo) * hash_u01(3, unif_state++);
}

/* The BLAS the CPU drivers call (d > 48): OpenBLAS, or another. */
static const char *blas_name(void) {
  return dlsym(RTLD_DEFAULT, "openblas_get_num_threads") != NULL
             ? "OpenBLAS"
             : "not OpenBLAS (the reference BLAS?)";
}

static int failures = 0;

/* A call's status: an error is printed (the benchmark goes on). */
static void ok_or_say(ghmix_status st, const ghmix_error *err,
                      const char *what) {
  if (st != GHMIX_OK && failures++ < 20)
    printf("  (%s: status %d: %s)\n", what, (int)st, err->message);
}

/* The median seconds of f(): one warm-up, then runs until at least 3 and
 * 0.2 s (at most 25). */
template <typename F> static double time_call(F f) {
  std::vector<double> t;
  double start;
  f();
  start = now_s();
  while (t.size() < 3 || (now_s() - start < 0.2 && t.size() < 25)) {
    double t0 = now_s();
    f();
    t.push_back(now_s() - t0);
  }
  return median(t);
}

/* ------------------------------------------------------ the crossovers */

/* One operation's ladder: sizes and seconds (CPU on 1 and N threads, GPU). */
struct ladder {
  std::string name, unit;
  std::vector<double> n, cpu1, cpun, gpu;
};

static std::vector<ladder> ladders;
static int nthreads = 1;

/* The smallest size from which gpu < cpu at every larger size, or -1. */
static double crossover(const std::vector<double> &n,
                        const std::vector<double> &cpu,
                        const std::vector<double> &gpu) {
  double from = -1;
  for (size_t k = n.size(); k-- > 0;) {
    if (!(gpu[k] < cpu[k]))
      break;
    from = n[k];
  }
  return from;
}

static std::string crossover_text(const ladder &l,
                                  const std::vector<double> &cpu) {
  char buf[96];
  double c = crossover(l.n, cpu, l.gpu);
  if (l.n.empty())
    return "not run";
  if (c < 0)
    snprintf(buf, sizeof buf, "never (up to %.0e %s)", l.n.back(),
             l.unit.c_str());
  else if (c == l.n.front())
    snprintf(buf, sizeof buf, "already at %.0e %s", c, l.unit.c_str());
  else
    snprintf(buf, sizeof buf, "from %.0e %s", c, l.unit.c_str());
  return buf;
}

static void ladder_print(const ladder &l) {
  printf("%12s %12s %12s %12s %10s %10s\n", l.unit.c_str(), "CPU 1 thr ms",
         "CPU N thr ms", "GPU ms", "vs 1 thr", "vs N thr");
  for (size_t k = 0; k < l.n.size(); k++)
    printf("%12.0e %12.3f %12.3f %12.3f %9.2fx %9.2fx\n", l.n[k],
           l.cpu1[k] * 1e3, l.cpun[k] * 1e3, l.gpu[k] * 1e3,
           l.cpu1[k] / l.gpu[k], l.cpun[k] / l.gpu[k]);
  printf("crossover: GPU faster than %d CPU threads %s; than 1 thread %s\n",
         nthreads, crossover_text(l, l.cpun).c_str(),
         crossover_text(l, l.cpu1).c_str());
}

/* Runs cpu(n, threads) and gpu(n) at each size. */
template <typename C, typename G>
static void run_ladder(const char *name, const char *unit,
                       const std::vector<size_t> &sizes, C cpu, G gpu) {
  ladder l;
  l.name = name;
  l.unit = unit;
  printf("\n== %s ==\n", name);
  fflush(stdout);
  for (size_t k = 0; k < sizes.size(); k++) {
    size_t n = sizes[k];
    l.n.push_back((double)n);
    l.cpu1.push_back(time_call([&] { cpu(n, 1); }));
    l.cpun.push_back(time_call([&] { cpu(n, nthreads); }));
    l.gpu.push_back(time_call([&] { gpu(n); }));
  }
  ladder_print(l);
  ladders.push_back(l);
}

static std::vector<size_t> powers(int lo, int hi) {
  std::vector<size_t> v;
  for (int e = lo; e <= hi; e++)
    v.push_back((size_t)pow(10.0, e));
  return v;
}

/* ------------------------------------------------------ the operations */

static void bench_logk(int quick) {
  const size_t nmax = quick ? 1000000 : 10000000;
  std::vector<double> x(nmax), nu(nmax), out(nmax), gx(nmax), gn(nmax);
  ghmix_error err;
  for (size_t i = 0; i < nmax; i++) {
    x[i] = pow(10.0, -3 + 6 * hash_u01(1, i));
    nu[i] = -50 + 100 * hash_u01(2, i);
  }
  run_ladder(
      "log K_nu(x) with the gradient (x 1e-3..1e3, |nu| <= 50)", "points",
      powers(2, quick ? 6 : 7),
      [&](size_t n, int th) {
        ok_or_say(ghmix_bessel_logk_batch(n, x.data(), n, nu.data(), n,
                                          out.data(), gx.data(), gn.data(), th,
                                          &err),
                  &err, "CPU log K");
      },
      [&](size_t n) {
        ok_or_say(ghmix_cuda_bessel_logk_batch(n, x.data(), n, nu.data(), n,
                                               out.data(), gx.data(), gn.data(),
                                               0, &err),
                  &err, "CUDA log K");
      });
}

static void bench_gig_solve(int quick) {
  const size_t nmax = quick ? 100000 : 1000000;
  std::vector<double> eta(3 * nmax), dbl(6 * nmax);
  std::vector<int> ints(4 * nmax);
  ghmix_error err;
  for (size_t i = 0; i < nmax; i++) {
    double e[3];
    double p = -3 + 6 * hash_u01(4, i), a = pow(10.0, -1 + 2 * hash_u01(5, i));
    double b = pow(10.0, -1 + 2 * hash_u01(6, i));
    ghmix_gig_expectation(p, a, b, e);
    eta[i] = e[0];
    eta[nmax + i] = e[1];
    eta[2 * nmax + i] = e[2];
  }
  /* rows with a leading dimension: the first n of each column */
  auto args = [&](size_t n, std::vector<double> &e) {
    ghmix_gig_solve_args s;
    for (int c = 0; c < 3; c++)
      memcpy(e.data() + c * n, eta.data() + c * nmax, n * sizeof(double));
    s.n = n;
    s.eta = e.data();
    s.start = NULL;
    ghmix_gig_solve_control_init(&s.ctrl);
    s.p = dbl.data();
    s.a = dbl.data() + nmax;
    s.b = dbl.data() + 2 * nmax;
    s.grad_norm = dbl.data() + 3 * nmax;
    s.condition = dbl.data() + 4 * nmax;
    s.jacobian = NULL;
    s.iterations = ints.data();
    s.converged = ints.data() + nmax;
    s.note = ints.data() + 2 * nmax;
    s.infeasible = ints.data() + 3 * nmax;
    return s;
  };
  std::vector<double> e(3 * nmax);
  run_ladder(
      "gig_from_expectation (p -3..3, a and b 0.1..10)", "rows",
      powers(2, quick ? 5 : 6),
      [&](size_t n, int th) {
        ghmix_gig_solve_args s = args(n, e);
        ok_or_say(ghmix_gig_from_expectation_batch(&s, th, &err), &err,
                  "CPU GIG solve");
      },
      [&](size_t n) {
        ghmix_gig_solve_args s = args(n, e);
        ok_or_say(ghmix_cuda_gig_from_expectation_batch(&s, 0, &err), &err,
                  "CUDA GIG solve");
      });
}

/* Rows around the G centres of s (n x d, column-major). */
static std::vector<double> mix_rows(const mix_setup *s, int G, size_t n,
                                    int d) {
  std::vector<double> x(n * (size_t)d);
  for (size_t i = 0; i < n; i++) {
    double w = exp(-0.5 + hash_u01(11, i));
    for (int j = 0; j < d; j++)
      x[i + (size_t)j * n] = s[i % (size_t)G].center[j] +
                             sqrt(w) * (2 * hash_u01(12 + j, i) - 1) * 1.7;
  }
  return x;
}

/* The mixture E-step, G components of d, per EM iteration. */
static void bench_estep(int G, int d, int quick) {
  const int both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const std::vector<size_t> sizes = powers(3, d > 50 && quick ? 5 : 6);
  const size_t nmax = sizes.back();
  mix_setup s[3];
  ghmix_mix_component comp[3];
  ghmix_mix_model m;
  ghmix_error err;
  std::vector<double> x;
  char name[128];
  for (int c = 0; c < G; c++) {
    mix_setup_init(&s[c], d, -1.2 + 0.5 * c, 0.9, 1.3, both, unif);
    s[c].center[0] += 2.0 * c;
    comp[c] = s[c].comp;
    comp[c].log_prop = log(1.0 / G);
  }
  m.shape = s[0].model.shape;
  m.shape.components = G;
  m.comp = comp;
  m.weights = NULL;
  ok_or_say(ghmix_mix_model_complete(&m, &err), &err, "model");
  x = mix_rows(s, G, nmax, d);
  std::vector<double> stats(ghmix_estep_nstats(&m.shape));
  void *h = NULL;
  size_t held = 0;
  double t_copy = 0;
  snprintf(name, sizeof name,
           "E-step per EM iteration, G = %d, d = %d (GH, E log Y too)", G, d);
  run_ladder(
      name, "rows", sizes,
      [&](size_t n, int th) {
        ok_or_say(G == 1 ? ghmix_mix_estep_cpu(x.data(), n, nmax, d, &m,
                                               stats.data(), NULL, th, &err)
                         : ghmix_mix_estep_mixture_cpu(x.data(), n, nmax, d, &m,
                                                       stats.data(), NULL, th,
                                                       &err),
                  &err, "CPU E-step");
      },
      [&](size_t n) {
        if (held != n) { /* the data once per fit, not timed here */
          double t0 = now_s();
          ghmix_cuda_mix_data_free(h);
          h = NULL;
          ok_or_say(
              ghmix_cuda_mix_data_create(x.data(), n, nmax, d, 0, &h, &err),
              &err, "CUDA E-step data");
          held = n;
          t_copy = now_s() - t0;
        }
        ok_or_say(
            G == 1 ? ghmix_cuda_mix_estep(h, &m, stats.data(), NULL, NULL, &err)
                   : ghmix_cuda_mix_estep_mixture(h, &m, stats.data(), NULL,
                                                  NULL, &err),
            &err, "CUDA E-step");
      });
  printf("(the data to the device once per fit: %.1f ms for %.0e x %d)\n",
         t_copy * 1e3, (double)held, d);
  ghmix_cuda_mix_data_free(h);
  for (int c = 0; c < G; c++)
    mix_setup_free(&s[c]);
}

static void bench_factor(int quick) {
  const int d = 100, r = 10, both = GHMIX_ESTEP_MOMENTS | GHMIX_ESTEP_LOGY;
  const std::vector<size_t> sizes = powers(3, quick ? 5 : 6);
  const size_t nmax = sizes.back();
  std::vector<double> x(nmax * d), center(d), f((size_t)d * r), uniq(d),
      gamma(d), buf(ghmix_factor_buffer_size(d, r));
  ghmix_factor_model fm;
  ghmix_error err;
  for (int j = 0; j < d; j++) {
    center[j] = unif(-1, 1);
    uniq[j] = unif(0.5, 2);
    gamma[j] = unif(-0.3, 0.3);
  }
  for (size_t j = 0; j < (size_t)d * r; j++)
    f[j] = unif(-1, 1) / sqrt((double)r);
  if (!ghmix_factor_model_init(d, r, center.data(), f.data(), uniq.data(),
                               gamma.data(), -1.2, 0.9, 1.3, both, buf.data(),
                               &fm)) {
    printf("factor model: not usable\n");
    return;
  }
  for (size_t i = 0; i < nmax; i++)
    for (int j = 0; j < d; j++)
      x[i + (size_t)j * nmax] = center[j] + 2 * hash_u01(20 + j, i) - 1;
  ghmix_estep_shape sh = ghmix_factor_shape(&fm, 0);
  std::vector<double> stats(ghmix_estep_nstats(&sh));
  void *h = NULL;
  size_t held = 0;
  run_ladder(
      "factor E-step per EM iteration, d = 100, r = 10 (GH, E log Y too)",
      "rows", sizes,
      [&](size_t n, int th) {
        ok_or_say(ghmix_factor_estep_cpu(x.data(), n, nmax, &fm, NULL,
                                         stats.data(), NULL, th, &err),
                  &err, "CPU factor E-step");
      },
      [&](size_t n) {
        if (held != n) {
          ghmix_cuda_factor_data_free(h);
          h = NULL;
          ok_or_say(ghmix_cuda_factor_data_create(x.data(), n, nmax, d, NULL, 0,
                                                  &h, &err),
                    &err, "CUDA factor data");
          held = n;
        }
        ok_or_say(
            ghmix_cuda_factor_estep(h, &fm, stats.data(), NULL, NULL, &err),
            &err, "CUDA factor E-step");
      });
  ghmix_cuda_factor_data_free(h);
}

/* One element: the whole call's latency on the GPU and the CPU. */
static void bench_latency(void) {
  double x = 2.5, nu = 1.5, out;
  ghmix_error err;
  double g = time_call([&] {
    ok_or_say(ghmix_cuda_bessel_logk_batch(1, &x, 1, &nu, 1, &out, NULL, NULL,
                                           0, &err),
              &err, "CUDA log K");
  });
  double c = time_call([&] {
    ok_or_say(
        ghmix_bessel_logk_batch(1, &x, 1, &nu, 1, &out, NULL, NULL, 1, &err),
        &err, "CPU log K");
  });
  printf("\n== one element ==\nlog K of one point: GPU call %.1f us, CPU "
         "call %.3f us\n",
         g * 1e6, c * 1e6);
}

static void summary(void) {
  printf("\n== summary: the GPU is faster than the CPU on %d threads ==\n",
         nthreads);
  for (const ladder &l : ladders) {
    size_t k = l.n.size() - 1;
    printf("%-66s %s (at %.0e: %.1fx; vs 1 thread %s)\n", l.name.c_str(),
           crossover_text(l, l.cpun).c_str(), l.n[k], l.cpun[k] / l.gpu[k],
           crossover_text(l, l.cpu1).c_str());
  }
}

int main(int argc, char **argv) {
  int quick = 0, count = 0, i;
  ghmix_error err;
  ghmix_cuda_device dev;
  double t0 = now_s();
#ifdef _OPENMP
  nthreads = omp_get_num_procs();
#endif
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strncmp(argv[i], "--threads=", 10) == 0)
      nthreads = atoi(argv[i] + 10);
    else {
      fprintf(stderr, "usage: bench_cuda [--quick] [--threads=N]\n");
      return 2;
    }
  }
  if (nthreads < 1)
    nthreads = 1;
  if (ghmix_cuda_device_count(&count, &err) != GHMIX_OK) {
    printf("no usable CUDA device: %s\n", err.message);
    return 0;
  }
  if (ghmix_cuda_device_info(0, &dev, &err) == GHMIX_OK)
    printf("device 0: %s, compute capability %d.%d, %d SMs, %.1f GiB\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.multiprocessors,
           dev.total_mem_bytes / 1073741824.0);
  printf("CPU: %d threads (OpenMP), BLAS: %s; GPU code: %s%s\n", nthreads,
         blas_name(), ghmix_cuda_archs(), quick ? "; --quick" : "");
  bench_logk(quick);
  bench_gig_solve(quick);
  bench_estep(1, 10, quick);
  bench_estep(3, 10, quick);
  bench_estep(1, 100, quick);
  bench_estep(3, 100, quick);
  bench_factor(quick);
  bench_latency();
  summary();
  printf("(%.0f s in all%s)\n", now_s() - t0,
         failures ? "; some calls failed, see above" : "");
  return 0;
}
