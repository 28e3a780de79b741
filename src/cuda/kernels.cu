/* The element-wise CUDA kernels of ghmix and their host wrappers (see
 * ghmix_cuda.h).
 *
 * Single source: the per-element work is the core's own functions
 * (core_device.cuh compiles src/core into this translation unit for host and
 * device); the element-wise kernels here only loop over the element bodies
 * of src/core/elementwise.h that the CPU drivers run, and the E-step
 * kernels reduce.  One thread per element with every loop of the
 * element (regime choice, quadrature, Newton steps) inside it, so each batch
 * is one launch, never one per step.
 *
 * The kernels are in three translation units, compiled in parallel: the
 * element-wise ones here, the mixture's rows and E-steps (mix_estep.cu)
 * and the factor E-step (factor_estep.cu); each compiles the core for the
 * device (core_device.cuh) and has its own host wrappers, with the host
 * helpers of host.cuh (checked CUDA calls, device memory freed on every
 * path, the calling thread's current device restored). */
#include "core_device.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "device.cuh"
#include "ghmix_cuda.h"
#include "host.cuh"

using namespace ghmix_cu;

namespace {

/* ======================================================================
 * Element-wise kernels
 * ====================================================================== */

/* The element-wise kernels: one thread per element (grid-stride beyond),
 * each running the element body of src/core/elementwise.h, the same as the
 * CPU drivers' loops. */

__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    logk_kernel(ghmix_logk_args a) {
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    ghmix_logk_element(&a, i);
}

__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gig_eta_kernel(ghmix_gig_eta_args a) {
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    ghmix_gig_eta_element(&a, i);
}

/* Every row's feasibility check and, for the feasible ones, the solve, in
 * one launch; first[0] / first[1] receive the smallest infeasible / not
 * finite and positive row (they start at ULLONG_MAX). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gig_solve_kernel(ghmix_gig_solve_args s,
                     unsigned long long *__restrict__ first) {
  for (size_t i = first_index(); i < s.n; i += grid_stride()) {
    int f = ghmix_gig_solve_element(&s, i);
    if (f != GHMIX_GIG_INFEASIBLE_NONE)
      atomicMin(&first[f > 0 ? 0 : 1], (unsigned long long)i);
  }
}

/* shared is the parameter set prepared on the host when have_shared, else
 * each thread prepares its own (one Bessel evaluation more). */
__global__ void __launch_bounds__(GHMIX_CUDA_BLOCK)
    gh1_density_kernel(ghmix_gh1_args a, ghmix_gh1 shared, int have_shared,
                       int give_log, double *__restrict__ out) {
  ghmix_gh1_cache cache;
  cache.have = 0;
  for (size_t i = first_index(); i < a.n; i += grid_stride())
    out[i] = ghmix_gh1_density_element(&a, i, have_shared ? &shared : NULL,
                                       &cache, give_log);
}

/* An input of length len for n elements on the device: only its first n
 * elements are used. */
size_t used_length(size_t len, size_t n) { return len < n ? len : n; }

/* The row index of an atomicMin slot, -1 when no row wrote it. */
ptrdiff_t first_row(unsigned long long slot) {
  return slot == ULLONG_MAX ? -1 : (ptrdiff_t)slot;
}

} // namespace

/* ======================================================================
 * C interface
 * ====================================================================== */

extern "C" ghmix_status
ghmix_cuda_bessel_logk_batch(size_t n, const double *x, size_t nx,
                             const double *nu, size_t nnu, double *logk,
                             double *grad_x, double *grad_nu, int device,
                             ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_logk_args a;
  size_t o_x, o_nu, o_logk, o_gx = 0, o_gnu = 0;
  unsigned blocks;
  ghmix_status st;
  a.n = n;
  a.nx = used_length(nx, n);
  a.nnu = used_length(nnu, n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_logk_args_check(&a, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_x = mem.reserve(a.nx * sizeof(double));
  o_nu = mem.reserve(a.nnu * sizeof(double));
  o_logk = mem.reserve(n * sizeof(double));
  if (grad_x != NULL)
    o_gx = mem.reserve(n * sizeof(double));
  if (grad_nu != NULL)
    o_gnu = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("log_besselK", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_x), x, a.nx * sizeof(double), "x", err)) !=
          GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_nu), nu, a.nnu * sizeof(double), "nu",
                    err)) != GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  a.x = mem.at<double>(o_x);
  a.nu = mem.at<double>(o_nu);
  a.logk = mem.at<double>(o_logk);
  a.grad_x = grad_x != NULL ? mem.at<double>(o_gx) : NULL;
  a.grad_nu = grad_nu != NULL ? mem.at<double>(o_gnu) : NULL;
  logk_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(a);
  if ((st = finish_launch("log K", err)) != GHMIX_OK ||
      (st = copy_out(logk, a.logk, n * sizeof(double), "log K", err)) !=
          GHMIX_OK ||
      (st = copy_out(grad_x, a.grad_x, n * sizeof(double), "d/dx log K",
                     err)) != GHMIX_OK ||
      (st = copy_out(grad_nu, a.grad_nu, n * sizeof(double), "d/dnu log K",
                     err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gig_expectation_batch(size_t n, const double *p, size_t np,
                                 const double *a, size_t na, const double *b,
                                 size_t nb, double *out_log, double *out_inv,
                                 double *out_y, int device, ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_gig_eta_args e;
  size_t o_p, o_a, o_b, o_out;
  unsigned blocks;
  ghmix_status st;
  e.n = n;
  e.par.np = used_length(np, n);
  e.par.na = used_length(na, n);
  e.par.nb = used_length(nb, n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_gig_params_check(&e.par, n, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_p = mem.reserve(e.par.np * sizeof(double));
  o_a = mem.reserve(e.par.na * sizeof(double));
  o_b = mem.reserve(e.par.nb * sizeof(double));
  o_out = mem.reserve(3 * n * sizeof(double));
  if ((st = mem.allocate("gig_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_p), p, e.par.np * sizeof(double), "p",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_a), a, e.par.na * sizeof(double), "a",
                    err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_b), b, e.par.nb * sizeof(double), "b",
                    err)) != GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  e.par.p = mem.at<double>(o_p);
  e.par.a = mem.at<double>(o_a);
  e.par.b = mem.at<double>(o_b);
  e.out_log = mem.at<double>(o_out);
  e.out_inv = e.out_log + n;
  e.out_y = e.out_log + 2 * n;
  gig_eta_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(e);
  if ((st = finish_launch("GIG expectation", err)) != GHMIX_OK ||
      (st = copy_out(out_log, e.out_log, n * sizeof(double), "E log Y", err)) !=
          GHMIX_OK ||
      (st = copy_out(out_inv, e.out_inv, n * sizeof(double), "E 1/Y", err)) !=
          GHMIX_OK ||
      (st = copy_out(out_y, e.out_y, n * sizeof(double), "E Y", err)) !=
          GHMIX_OK)
    return st;
  return GHMIX_OK;
}

extern "C" ghmix_status
ghmix_cuda_gig_from_expectation_batch(const ghmix_gig_solve_args *h, int device,
                                      ghmix_error *err) {
  device_guard guard;
  device_arena mem;
  ghmix_gig_solve_args s = *h; /* the same, with device pointers */
  const size_t n = h->n;
  size_t o_eta, o_start = 0, o_dbl, o_int, o_jac = 0, o_first;
  unsigned long long first[2];
  unsigned blocks;
  ghmix_status st;
  cudaError_t e;
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  o_eta = mem.reserve(3 * n * sizeof(double));
  if (h->start != NULL)
    o_start = mem.reserve(3 * n * sizeof(double));
  o_dbl = mem.reserve(5 * n * sizeof(double)); /* p a b grad_norm cond. */
  o_int = mem.reserve(4 * n * sizeof(int));    /* iter. conv. note infeas. */
  if (h->jacobian != NULL)
    o_jac = mem.reserve(9 * n * sizeof(double));
  o_first = mem.reserve(sizeof first);
  if ((st = mem.allocate("gig_from_expectation", device, err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_eta), h->eta, 3 * n * sizeof(double),
                    "eta", err)) != GHMIX_OK ||
      (st = copy_in(mem.at<double>(o_start), h->start,
                    h->start ? 3 * n * sizeof(double) : 0, "start", err)) !=
          GHMIX_OK ||
      (st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  e = cudaMemset(mem.at<void>(o_first), 0xff, sizeof first);
  if (e != cudaSuccess)
    return cuda_fail(err, "cudaMemset", e);
  s.eta = mem.at<double>(o_eta);
  s.start = h->start != NULL ? mem.at<double>(o_start) : NULL;
  s.p = mem.at<double>(o_dbl);
  s.a = s.p + n;
  s.b = s.p + 2 * n;
  s.grad_norm = s.p + 3 * n;
  s.condition = s.p + 4 * n;
  s.jacobian = h->jacobian != NULL ? mem.at<double>(o_jac) : NULL;
  s.iterations = mem.at<int>(o_int);
  s.converged = s.iterations + n;
  s.note = s.iterations + 2 * n;
  s.infeasible = s.iterations + 3 * n;
  gig_solve_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      s, mem.at<unsigned long long>(o_first));
  if ((st = finish_launch("GIG solve", err)) != GHMIX_OK ||
      (st = copy_out(first, mem.at<void>(o_first), sizeof first,
                     "the first bad rows", err)) != GHMIX_OK ||
      (st = copy_out(h->infeasible, s.infeasible, n * sizeof(int), "infeasible",
                     err)) != GHMIX_OK ||
      (st = ghmix_gig_solve_bad_rows(first_row(first[0]), first_row(first[1]),
                                     err)) != GHMIX_OK)
    return st;
  /* p a b grad_norm condition, then iterations converged note: contiguous
   * on the device, separate in host memory */
  {
    static const char *const dbl_names[5] = {"p", "a", "b", "grad_norm",
                                             "condition"};
    static const char *const int_names[3] = {"iterations", "converged", "note"};
    double *dbl_out[5] = {h->p, h->a, h->b, h->grad_norm, h->condition};
    int *int_out[3] = {h->iterations, h->converged, h->note};
    int k;
    for (k = 0; k < 5; k++)
      if ((st = copy_out(dbl_out[k], s.p + k * n, n * sizeof(double),
                         dbl_names[k], err)) != GHMIX_OK)
        return st;
    for (k = 0; k < 3; k++)
      if ((st = copy_out(int_out[k], s.iterations + k * n, n * sizeof(int),
                         int_names[k], err)) != GHMIX_OK)
        return st;
  }
  return copy_out(h->jacobian, s.jacobian,
                  h->jacobian ? 9 * n * sizeof(double) : 0, "jacobian", err);
}

extern "C" ghmix_status
ghmix_cuda_gh1_density_batch(size_t n, const double *const in[GHMIX_GH1_NARGS],
                             const size_t len[GHMIX_GH1_NARGS], int give_log,
                             double *out, int device, ghmix_error *err) {
  static const char *const names[GHMIX_GH1_NARGS] = {
      "x", "mu", "gamma", "sigma", "p", "a", "b"};
  device_guard guard;
  device_arena mem;
  ghmix_gh1_args args;
  ghmix_gh1 shared;
  size_t off[GHMIX_GH1_NARGS], o_out;
  unsigned blocks;
  int k, have_shared;
  ghmix_status st;
  args.n = n;
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    args.len[k] = used_length(len[k], n);
  ghmix_error_clear(err);
  if ((st = guard.enter(device, err)) != GHMIX_OK || n == 0 ||
      (st = ghmix_gh1_args_check(&args, err)) != GHMIX_OK)
    return st;
  if (n > max_elements)
    return too_many(n, err);
  for (k = 0; k < GHMIX_GH1_NARGS; k++)
    off[k] = mem.reserve(args.len[k] * sizeof(double));
  o_out = mem.reserve(n * sizeof(double));
  if ((st = mem.allocate("dgh", device, err)) != GHMIX_OK)
    return st;
  for (k = 0; k < GHMIX_GH1_NARGS; k++) {
    if ((st = copy_in(mem.at<double>(off[k]), in[k],
                      args.len[k] * sizeof(double), names[k], err)) != GHMIX_OK)
      return st;
    args.in[k] = mem.at<double>(off[k]);
  }
  if ((st = grid_for(n, device, &blocks, err)) != GHMIX_OK)
    return st;
  memset(&shared, 0, sizeof shared);
  have_shared = ghmix_gh1_args_shared(&args);
  if (have_shared) /* as the CPU driver: once, on the host */
    ghmix_gh1_init_density(in[4][0], in[5][0], in[6][0], in[2][0] / in[3][0],
                           &shared);
  gh1_density_kernel<<<blocks, GHMIX_CUDA_BLOCK>>>(
      args, shared, have_shared, give_log != 0, mem.at<double>(o_out));
  if ((st = finish_launch("GH density", err)) != GHMIX_OK ||
      (st = copy_out(out, mem.at<double>(o_out), n * sizeof(double),
                     "the densities", err)) != GHMIX_OK)
    return st;
  return GHMIX_OK;
}
