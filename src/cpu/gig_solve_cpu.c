#include "gig_solve_cpu.h"

#include <math.h>
#include <stddef.h>

#include "../core/batch.h"
#include "../core/gig_solve.h"
#include "threads.h"

/* Fewer rows than this are solved on the calling thread: waking a team
 * costs more than a few solves (and much more on a loaded machine). */
#define GHMIX_GIG_PARALLEL_MIN 32

static void expectation_range(ptrdiff_t lo, ptrdiff_t hi, size_t n,
                              const double *p, size_t np, const double *a,
                              size_t na, const double *b, size_t nb,
                              double *out_log, double *out_inv, double *out_y,
                              int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(                        \
    dynamic, 64) if (threads > 1 && hi - lo >= 8 * GHMIX_GIG_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++) {
    double pi = p[ghmix_recycle(i, np, n)], ai = a[ghmix_recycle(i, na, n)],
           bi = b[ghmix_recycle(i, nb, n)], eta[3];
    if (isnan(pi) || isnan(ai) || isnan(bi)) {
      eta[0] = eta[1] = eta[2] = pi + ai + bi; /* keeps R's NA payload */
    } else {
      ghmix_gig_expectation(pi, ai, bi, eta);
    }
    out_log[i] = eta[0];
    out_inv[i] = eta[1];
    out_y[i] = eta[2];
  }
  (void)threads;
}

ghmix_status ghmix_gig_expectation_batch(size_t n, const double *p, size_t np,
                                         const double *a, size_t na,
                                         const double *b, size_t nb,
                                         double *out_log, double *out_inv,
                                         double *out_y, int threads,
                                         ghmix_error *err) {
  size_t start;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (np == 0 || na == 0 || nb == 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "p, a and b must not be empty when n > 0");
  threads = ghmix_clamp_threads(threads);
  for (start = 0; start < n; start += GHMIX_GIG_SOLVE_CHUNK * 4) {
    size_t end = n - start > GHMIX_GIG_SOLVE_CHUNK * 4
                     ? start + GHMIX_GIG_SOLVE_CHUNK * 4
                     : n;
    expectation_range((ptrdiff_t)start, (ptrdiff_t)end, n, p, np, a, na, b, nb,
                      out_log, out_inv, out_y, threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}

static void moment_range(ptrdiff_t lo, ptrdiff_t hi, size_t n, const double *p,
                         size_t np, const double *a, size_t na, const double *b,
                         size_t nb, const double *r, size_t nr, int what,
                         double *out, int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(                        \
    dynamic, 64) if (threads > 1 && hi - lo >= 8 * GHMIX_GIG_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++) {
    double pi = p[ghmix_recycle(i, np, n)], ai = a[ghmix_recycle(i, na, n)],
           bi = b[ghmix_recycle(i, nb, n)],
           ri = what == GHMIX_GIG_MOMENT_VARIANCE ? 0.0
                                                  : r[ghmix_recycle(i, nr, n)];
    if (isnan(pi) || isnan(ai) || isnan(bi) || isnan(ri))
      out[i] = pi + ai + bi + ri;
    else if (what == GHMIX_GIG_MOMENT_VARIANCE)
      out[i] = ghmix_gig_variance(pi, ai, bi);
    else
      out[i] = ghmix_gig_moment(pi, ai, bi, ri);
  }
  (void)threads;
}

ghmix_status ghmix_gig_moment_batch(size_t n, const double *p, size_t np,
                                    const double *a, size_t na, const double *b,
                                    size_t nb, const double *r, size_t nr,
                                    int what, double *out, int threads,
                                    ghmix_error *err) {
  size_t start;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  if (np == 0 || na == 0 || nb == 0 || (!what && (r == NULL || nr == 0)))
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, -1,
                           "p, a, b and order must not be empty when n > 0");
  threads = ghmix_clamp_threads(threads);
  for (start = 0; start < n; start += GHMIX_GIG_SOLVE_CHUNK * 4) {
    size_t end = n - start > GHMIX_GIG_SOLVE_CHUNK * 4
                     ? start + GHMIX_GIG_SOLVE_CHUNK * 4
                     : n;
    moment_range((ptrdiff_t)start, (ptrdiff_t)end, n, p, np, a, na, b, nb, r,
                 nr, what, out, threads);
    if (end < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, end, n);
  }
  return GHMIX_OK;
}

typedef struct {
  size_t n;
  const double *eta, *start;
  const ghmix_gig_solve_control *ctrl;
  double *p, *a, *b, *grad_norm, *condition, *jacobian;
  int *iterations, *converged, *note;
} solve_job;

static void solve_range(ptrdiff_t lo, ptrdiff_t hi, const solve_job *job,
                        int threads) {
  ptrdiff_t i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)                                  \
    schedule(dynamic, 8) if (threads > 1 && hi - lo >= GHMIX_GIG_PARALLEL_MIN)
#endif
  for (i = lo; i < hi; i++) {
    size_t n = job->n;
    double eta[3];
    ghmix_gig_solve_control ctrl = *job->ctrl;
    ghmix_gig_solution sol;
    int k;
    eta[0] = job->eta[i];
    eta[1] = job->eta[n + i];
    eta[2] = job->eta[2 * n + i];
    if (job->start != NULL) {
      ctrl.start_p = job->start[i];
      ctrl.start_a = job->start[n + i];
      ctrl.start_b = job->start[2 * n + i];
      ctrl.has_start = isfinite(ctrl.start_p) && isfinite(ctrl.start_a) &&
                       isfinite(ctrl.start_b);
    }
    ctrl.want_jacobian = job->jacobian != NULL;
    ghmix_gig_from_expectation(eta, &ctrl, &sol);
    job->p[i] = sol.p;
    job->a[i] = sol.a;
    job->b[i] = sol.b;
    job->iterations[i] = sol.iterations;
    job->grad_norm[i] = sol.grad_norm;
    job->converged[i] = sol.converged;
    job->condition[i] = sol.condition;
    job->note[i] = sol.note;
    if (job->jacobian != NULL)
      for (k = 0; k < 9; k++) /* row-major -> column-major */
        job->jacobian[9 * i + 3 * (k % 3) + k / 3] = sol.jacobian[k];
  }
  (void)threads;
}

ghmix_status ghmix_gig_from_expectation_batch(
    size_t n, const double *eta, const double *start,
    const ghmix_gig_solve_control *ctrl, double *p, double *a, double *b,
    int *iterations, double *grad_norm, int *converged, double *condition,
    int *note, int *infeasible, double *jacobian, int threads,
    ghmix_error *err) {
  size_t i, lo;
  ptrdiff_t first_bad = -1, first_domain = -1;
  solve_job job;
  ghmix_error_clear(err);
  if (n == 0)
    return GHMIX_OK;
  for (i = 0; i < n; i++) {
    double e[3];
    int f;
    e[0] = eta[i];
    e[1] = eta[n + i];
    e[2] = eta[2 * n + i];
    f = ghmix_gig_feasibility(e);
    infeasible[i] = f;
    if (f > 0 && first_bad < 0)
      first_bad = (ptrdiff_t)i;
    if (f < 0 && first_domain < 0)
      first_domain = (ptrdiff_t)i;
  }
  if (first_bad >= 0)
    return ghmix_error_set(err, GHMIX_ERR_INFEASIBLE, first_bad,
                           "eta is infeasible in row %ld", (long)first_bad + 1);
  if (first_domain >= 0)
    return ghmix_error_set(err, GHMIX_ERR_DOMAIN, first_domain,
                           "eta is not finite and positive in row %ld",
                           (long)first_domain + 1);
  job.n = n;
  job.eta = eta;
  job.start = start;
  job.ctrl = ctrl;
  job.p = p;
  job.a = a;
  job.b = b;
  job.grad_norm = grad_norm;
  job.condition = condition;
  job.jacobian = jacobian;
  job.iterations = iterations;
  job.converged = converged;
  job.note = note;
  threads = ghmix_clamp_threads(threads);
  for (lo = 0; lo < n; lo += GHMIX_GIG_SOLVE_CHUNK) {
    size_t hi = n - lo > GHMIX_GIG_SOLVE_CHUNK ? lo + GHMIX_GIG_SOLVE_CHUNK : n;
    solve_range((ptrdiff_t)lo, (ptrdiff_t)hi, &job, threads);
    if (hi < n && ghmix_check_interrupt())
      return ghmix_interrupted(err, hi, n);
  }
  return GHMIX_OK;
}
