#include "gig_solve_cpu.h"

#include <stddef.h>

#include "chunks.h"

/* A solve costs microseconds, a forward map a few Bessel evaluations: for
 * the maps larger chunks between polls, larger dynamic chunks and a team
 * only from 256 elements, for the solves from 32 rows (fewer run on the
 * calling thread: waking a team costs more, and much more on a loaded
 * machine). */
static const ghmix_schedule map_schedule = {GHMIX_GIG_SOLVE_CHUNK * 4, 256, 64};
static const ghmix_schedule solve_schedule = {GHMIX_GIG_SOLVE_CHUNK, 32, 8};

static void eta_one(const void *job, size_t i) {
  ghmix_gig_eta_element((const ghmix_gig_eta_args *)job, i);
}

static void moment_one(const void *job, size_t i) {
  ghmix_gig_moment_element((const ghmix_gig_moment_args *)job, i);
}

static void solve_one(const void *job, size_t i) {
  ghmix_gig_solve_element((const ghmix_gig_solve_args *)job, i);
}

ghmix_status ghmix_gig_expectation_batch(size_t n, const double *p, size_t np,
                                         const double *a, size_t na,
                                         const double *b, size_t nb,
                                         double *out_log, double *out_inv,
                                         double *out_y, int threads,
                                         ghmix_error *err) {
  ghmix_gig_eta_args e = {n, {p, a, b, np, na, nb}, out_log, out_inv, out_y};
  ghmix_status st;
  ghmix_error_clear(err);
  if ((st = ghmix_gig_params_check(&e.par, n, err)) != GHMIX_OK)
    return st;
  return ghmix_run_elements(n, map_schedule, eta_one, &e, threads, err);
}

ghmix_status ghmix_gig_moment_batch(size_t n, const double *p, size_t np,
                                    const double *a, size_t na, const double *b,
                                    size_t nb, const double *r, size_t nr,
                                    int what, double *out, int threads,
                                    ghmix_error *err) {
  ghmix_gig_moment_args m = {n, {p, a, b, np, na, nb}, r, nr, what, out};
  ghmix_error_clear(err);
  if (n > 0 && (np == 0 || na == 0 || nb == 0 ||
                (what == GHMIX_GIG_MOMENT_RAW && (r == NULL || nr == 0))))
    return ghmix_empty_input(err, "p, a, b and order");
  return ghmix_run_elements(n, map_schedule, moment_one, &m, threads, err);
}

ghmix_status ghmix_gig_from_expectation_batch(const ghmix_gig_solve_args *s,
                                              int threads, ghmix_error *err) {
  ptrdiff_t first_bad = -1, first_domain = -1;
  ghmix_status st;
  size_t i;
  ghmix_error_clear(err);
  for (i = 0; i < s->n; i++) {
    int f = ghmix_gig_solve_check(s, i);
    if (f > 0 && first_bad < 0)
      first_bad = (ptrdiff_t)i;
    if (f < 0 && first_domain < 0)
      first_domain = (ptrdiff_t)i;
  }
  if ((st = ghmix_gig_solve_bad_rows(first_bad, first_domain, err)) != GHMIX_OK)
    return st;
  return ghmix_run_elements(s->n, solve_schedule, solve_one, s, threads, err);
}
