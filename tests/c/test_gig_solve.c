/* Tests of src/core/gig_solve.c without R: the GIG expectation map against
 * the mpmath references (fixtures/gig_eta_ref.csv, written by
 * tools/make_gig_eta_fixtures.py), moments and variance, round trips
 * (p, a, b) -> eta -> (p, a, b), the Jacobian and the Fisher information
 * against finite differences, feasibility, the gamma limits, warm starts.
 *
 *   test_gig_solve [-v] [fixture.csv]
 *
 * Each check is one test case; the last line is "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gig_solve.h"

static int passed = 0, failed = 0, verbose = 0;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL %s\n", what);
  }
}

/* |got - ref| / |ref| (or / max(1, |ref|) when absolute); Inf == Inf is 0 */
static double rel_err(double got, double ref, int absolute) {
  if (isinf(ref))
    return got == ref ? 0.0 : INFINITY;
  if (!isfinite(got))
    return INFINITY;
  return fabs(got - ref) / (absolute ? fmax(1.0, fabs(ref)) : fabs(ref));
}

/* ---------------------------------------------------------------- fixture */

typedef struct {
  double p, a, b, eta[3], r, eyr, var;
  char region[16];
} ref_row;

static int read_fixture(const char *path, ref_row **rows) {
  FILE *f = fopen(path, "r");
  char line[1024];
  int n = 0, cap = 512;
  if (f == NULL)
    return -1;
  *rows = malloc(cap * sizeof **rows);
  if (*rows == NULL || fgets(line, sizeof line, f) == NULL) {
    fclose(f);
    return -1;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    ref_row *r;
    char *tok, *save = NULL;
    double v[9];
    int k = 0;
    if (n == cap) {
      ref_row *tmp = realloc(*rows, 2 * cap * sizeof **rows);
      if (tmp == NULL)
        break;
      *rows = tmp;
      cap *= 2;
    }
    r = &(*rows)[n];
    for (tok = strtok_r(line, ",\n", &save); tok != NULL && k < 10;
         tok = strtok_r(NULL, ",\n", &save), k++) {
      if (k < 9)
        v[k] = strcmp(tok, "Inf") == 0 ? INFINITY : strtod(tok, NULL);
      else
        snprintf(r->region, sizeof r->region, "%s", tok);
    }
    if (k != 10)
      continue;
    r->p = v[0], r->a = v[1], r->b = v[2];
    r->eta[0] = v[3], r->eta[1] = v[4], r->eta[2] = v[5];
    r->r = v[6], r->eyr = v[7], r->var = v[8];
    n++;
  }
  fclose(f);
  return n;
}

static void test_fixture(const char *path) {
  ref_row *rows = NULL;
  int n = read_fixture(path, &rows), i;
  double worst_eta = 0, worst_mom = 0, worst_var = 0;
  char msg[256];
  check(n >= 300, "fixture has >= 300 rows");
  for (i = 0; i < n; i++) {
    ref_row *r = &rows[i];
    double eta[3], e, m, v;
    int k;
    ghmix_gig_expectation(r->p, r->a, r->b, eta);
    for (k = 0; k < 3; k++) {
      e = rel_err(eta[k], r->eta[k], k == 0);
      if (e > worst_eta)
        worst_eta = e;
      if (verbose && e > 1e-13)
        printf("  eta[%d] p=%.17g a=%.17g b=%.17g: %.3g\n", k, r->p, r->a, r->b,
               e);
    }
    m = rel_err(ghmix_gig_moment(r->p, r->a, r->b, r->r), r->eyr, 0);
    if (m > worst_mom)
      worst_mom = m;
    if (verbose && m > 1e-13)
      printf("  E Y^%g p=%.17g a=%.17g b=%.17g: %.3g\n", r->r, r->p, r->a, r->b,
             m);
    v = rel_err(ghmix_gig_variance(r->p, r->a, r->b), r->var, 0);
    if (v > worst_var)
      worst_var = v;
    if (verbose && v > 1e-12)
      printf("  Var p=%.17g a=%.17g b=%.17g: %.3g\n", r->p, r->a, r->b, v);
  }
  snprintf(msg, sizeof msg, "expectation vs mpmath <= 1e-13 (worst %.2e)",
           worst_eta);
  check(n > 0 && worst_eta <= 1e-13, msg);
  snprintf(msg, sizeof msg, "E Y^r vs mpmath <= 1e-13 (worst %.2e)", worst_mom);
  check(n > 0 && worst_mom <= 1e-13, msg);
  snprintf(msg, sizeof msg, "Var Y vs mpmath <= 1e-12 (worst %.2e)", worst_var);
  check(n > 0 && worst_var <= 1e-12, msg);
  printf("fixture: %d rows; worst relative error: eta %.2e, E Y^r %.2e, "
         "Var %.2e\n",
         n, worst_eta, worst_mom, worst_var);
  free(rows);
}

/* -------------------------------------------------------------- round trip */

static double eta_err(const double *got, const double *ref) {
  return fmax(rel_err(got[0], ref[0], 1),
              fmax(rel_err(got[1], ref[1], 0), rel_err(got[2], ref[2], 0)));
}

static void test_round_trip(void) {
  static const double ps[] = {-50,  -20,  -10, -5,  -2.5, -1.5, -1,
                              -0.5, -0.1, 0,   0.1, 0.5,  1,    1.5,
                              2,    2.5,  5,   10,  20,   50};
  static const double ratios[] = {1e-8, 1e-4, 1, 1e4, 1e8};
  int i, k, q, n = 0, bad_eta = 0, bad_par = 0, bad_conv = 0, limits = 0;
  int maxit = 0;
  double worst_eta = 0, max_cond = 0;
  char msg[256];
  for (i = 0; i < (int)(sizeof ps / sizeof *ps); i++)
    for (k = 0; k <= 20; k++)
      for (q = 0; q < 5; q++) {
        double w = pow(10.0, -6.0 + 0.5 * k), s = 1.0 / sqrt(ratios[q]);
        double p = ps[i], a = w / s, b = w * s, eta[3], back[3], pe, tol;
        ghmix_gig_solution sol;
        ghmix_gig_expectation(p, a, b, eta);
        ghmix_gig_from_expectation(eta, NULL, &sol);
        n++;
        if (!sol.converged) {
          bad_conv++;
          if (verbose)
            printf("  no convergence p=%g a=%g b=%g\n", p, a, b);
          continue;
        }
        if (sol.iterations > maxit)
          maxit = sol.iterations;
        if (sol.note != GHMIX_GIG_NOTE_INTERIOR)
          limits++;
        ghmix_gig_expectation(sol.p, sol.a, sol.b, back);
        if (eta_err(back, eta) > worst_eta)
          worst_eta = eta_err(back, eta);
        if (eta_err(back, eta) > 1e-12)
          bad_eta++;
        if (isfinite(sol.condition) && sol.condition > max_cond)
          max_cond = sol.condition;
        pe = fmax(fabs(sol.p - p) / fmax(1.0, fabs(p)),
                  fmax(fabs(sol.a / a - 1), fabs(sol.b / b - 1)));
        tol = fmax(1e-8, 1e-14 * sol.condition);
        if (!(pe <= tol)) {
          bad_par++;
          if (verbose)
            printf("  params p=%g a=%g b=%g: err %.3g cond %.3g\n", p, a, b, pe,
                   sol.condition);
        }
      }
  snprintf(msg, sizeof msg, "round trip: %d of %d rows converge", n - bad_conv,
           n);
  check(bad_conv == 0, msg);
  snprintf(msg, sizeof msg,
           "round trip: eta reproduced to 1e-12 (worst %.2e, %d bad)",
           worst_eta, bad_eta);
  check(bad_eta == 0, msg);
  snprintf(msg, sizeof msg,
           "round trip: (p, a, b) to max(1e-8, 1e-14 * condition) (%d bad)",
           bad_par);
  check(bad_par == 0, msg);
  snprintf(msg, sizeof msg, "round trip: at most 10 Newton steps (max %d)",
           maxit);
  check(maxit <= 10, msg);
  printf("round trip: %d rows (%d at a limit), max iterations %d, worst eta "
         "%.2e, max finite condition %.2e\n",
         n, limits, maxit, worst_eta, max_cond);
}

/* ---------------------------------------------------------- derivatives */

/* J * d(eta)/d(p, a, b) = I, with the forward derivatives by central
 * differences; the product in relative units. */
static void test_jacobian(void) {
  static const double pts[][3] = {{-0.5, 1, 3},  {2, 2, 2},     {0, 0.1, 5},
                                  {3.5, 20, 1},  {-4, 1e-3, 2}, {1, 1, 1e-2},
                                  {0.3, 40, 60}, {-1.2, 7, 0.5}};
  int i, r, c, k;
  double worst = 0, worst_fisher = 0;
  char msg[256];
  for (i = 0; i < (int)(sizeof pts / sizeof *pts); i++) {
    double par[3] = {pts[i][0], pts[i][1], pts[i][2]}, eta[3], fwd[9];
    double info[9], fd_info[9], theta_step;
    ghmix_gig_solution sol;
    ghmix_gig_solve_control ctrl;
    ghmix_gig_expectation(par[0], par[1], par[2], eta);
    ghmix_gig_solve_control_init(&ctrl);
    ctrl.want_jacobian = 1;
    ghmix_gig_from_expectation(eta, &ctrl, &sol);
    /* d eta / d(p, a, b), columns p, a, b: fourth-order central
     * differences */
    for (c = 0; c < 3; c++) {
      double x[3], e[4][3], h;
      int j;
      h = 1e-3 * (c == 0 ? fmax(1.0, fabs(par[0])) : par[c]);
      for (j = 0; j < 4; j++) {
        static const double off[4] = {-2, -1, 1, 2};
        memcpy(x, par, sizeof x);
        x[c] += off[j] * h;
        ghmix_gig_expectation(x[0], x[1], x[2], e[j]);
      }
      for (r = 0; r < 3; r++)
        fwd[3 * r + c] =
            (e[0][r] - 8 * e[1][r] + 8 * e[2][r] - e[3][r]) / (12 * h);
    }
    /* inv(J) is the analytic d eta / d(p, a, b): compare it with the
     * differences, row by row (normwise, in units of each parameter's
     * scale); and J * differences = I where the problem is well
     * conditioned (elsewhere that product amplifies the differences' own
     * errors by the condition number) */
    {
      double inv[9], det, sp[3];
      const double *m = sol.jacobian;
      sp[0] = fmax(1.0, fabs(par[0]));
      sp[1] = par[1];
      sp[2] = par[2];
      det = m[0] * (m[4] * m[8] - m[5] * m[7]) -
            m[1] * (m[3] * m[8] - m[5] * m[6]) +
            m[2] * (m[3] * m[7] - m[4] * m[6]);
      inv[0] = (m[4] * m[8] - m[5] * m[7]) / det;
      inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
      inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
      inv[3] = (m[5] * m[6] - m[3] * m[8]) / det;
      inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
      inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
      inv[6] = (m[3] * m[7] - m[4] * m[6]) / det;
      inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
      inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
      for (r = 0; r < 3; r++) {
        double num = 0, den = 0;
        for (c = 0; c < 3; c++) {
          num = fmax(num, fabs(inv[3 * r + c] - fwd[3 * r + c]) * sp[c]);
          den = fmax(den, fabs(fwd[3 * r + c]) * sp[c]);
        }
        if (num / den > worst)
          worst = num / den;
        if (verbose && num / den > 1e-9)
          printf("  J pt %d row %d: %.3g (cond %.3g)\n", i, r, num / den,
                 sol.condition);
      }
      if (sol.condition < 1e4)
        for (r = 0; r < 3; r++)
          for (c = 0; c < 3; c++) {
            double s = 0;
            for (k = 0; k < 3; k++)
              s += m[3 * r + k] * fwd[3 * k + c];
            s = s * sp[c] / sp[r] - (r == c);
            if (fabs(s) > worst)
              worst = fabs(s);
          }
    }
    /* Fisher information = d eta / d theta, theta = (p - 1, -b/2, -a/2):
     * columns from d eta/dp, -2 d eta/db, -2 d eta/da */
    ghmix_gig_fisher(par[0], par[1], par[2], info);
    for (r = 0; r < 3; r++) {
      fd_info[3 * r] = fwd[3 * r];
      fd_info[3 * r + 1] = -2 * fwd[3 * r + 2];
      fd_info[3 * r + 2] = -2 * fwd[3 * r + 1];
    }
    theta_step = 0;
    for (k = 0; k < 9; k++)
      theta_step = fmax(theta_step, fabs(fd_info[k]));
    for (k = 0; k < 9; k++) {
      double e = fabs(info[k] - fd_info[k]) /
                 fmax(fabs(fd_info[k]), 1e-6 * theta_step);
      if (e > worst_fisher)
        worst_fisher = e;
    }
    for (r = 0; r < 3; r++)
      for (c = 0; c < r; c++) {
        double e = fabs(info[3 * r + c] - info[3 * c + r]) /
                   fmax(fabs(info[3 * r + c]), 1e-12 * theta_step);
        if (e > worst_fisher)
          worst_fisher = e;
      }
  }
  snprintf(msg, sizeof msg,
           "Jacobian vs forward finite differences to 1e-6 (worst %.2e)",
           worst);
  check(worst <= 1e-6, msg);
  snprintf(msg, sizeof msg,
           "Fisher information symmetric and = finite differences to 1e-6 "
           "(worst %.2e)",
           worst_fisher);
  check(worst_fisher <= 1e-6, msg);
}

/* ------------------------------------------------- feasibility and limits */

static void test_feasibility(void) {
  double eta[3];
  ghmix_gig_solution sol;
  ghmix_status st;
  eta[0] = 0, eta[1] = 0.5, eta[2] = 1.5; /* product 0.75 */
  st = ghmix_gig_from_expectation(eta, NULL, &sol);
  check(st == GHMIX_ERR_INFEASIBLE &&
            sol.infeasible == GHMIX_GIG_INFEASIBLE_PRODUCT && isnan(sol.p),
        "E Y E 1/Y <= 1 is infeasible (product)");
  eta[0] = log(2.0), eta[1] = 1, eta[2] = 2;
  st = ghmix_gig_from_expectation(eta, NULL, &sol);
  check(st == GHMIX_ERR_INFEASIBLE &&
            sol.infeasible == GHMIX_GIG_INFEASIBLE_UPPER,
        "E log Y >= log E Y is infeasible (upper)");
  eta[0] = -0.1, eta[1] = 1, eta[2] = 2;
  st = ghmix_gig_from_expectation(eta, NULL, &sol);
  check(st == GHMIX_ERR_INFEASIBLE &&
            sol.infeasible == GHMIX_GIG_INFEASIBLE_LOWER,
        "E log Y <= -log E 1/Y is infeasible (lower)");
  eta[0] = NAN, eta[1] = 1, eta[2] = 2;
  check(ghmix_gig_from_expectation(eta, NULL, &sol) == GHMIX_ERR_DOMAIN,
        "NaN is a domain error");
  eta[0] = 0, eta[1] = -1, eta[2] = 2;
  check(ghmix_gig_from_expectation(eta, NULL, &sol) == GHMIX_ERR_DOMAIN &&
            ghmix_gig_feasibility(eta) == -1,
        "E 1/Y <= 0 is a domain error");
  eta[0] = 0, eta[1] = 1, eta[2] = INFINITY;
  check(ghmix_gig_from_expectation(eta, NULL, &sol) == GHMIX_ERR_DOMAIN,
        "Inf is a domain error");
}

static void test_limits(void) {
  static const double shapes[] = {1.5, 2.5, 3, 7.25, 50, 1000};
  int i, ok_g = 1, ok_ig = 1, ok_mle = 1;
  for (i = 0; i < (int)(sizeof shapes / sizeof *shapes); i++) {
    double p = shapes[i], eta[3], e2[3];
    ghmix_gig_solution sol;
    /* gamma(shape p, rate a/2) with a = 3 */
    ghmix_gig_expectation(p, 3.0, 0.0, eta);
    ghmix_gig_from_expectation(eta, NULL, &sol);
    if (!(sol.note == GHMIX_GIG_NOTE_GAMMA && sol.b == 0 &&
          fabs(sol.p / p - 1) < 1e-12 * fmax(1.0, p) &&
          fabs(sol.a / 3.0 - 1) < 1e-12 * fmax(1.0, p) && sol.converged &&
          isinf(sol.condition))) {
      ok_g = 0;
      printf("  gamma p=%g: note %d p %.17g a %.17g b %g\n", p, sol.note, sol.p,
             sol.a, sol.b);
    }
    /* inverse gamma with b = 0.5 */
    ghmix_gig_expectation(-p, 0.0, 0.5, eta);
    ghmix_gig_from_expectation(eta, NULL, &sol);
    if (!(sol.note == GHMIX_GIG_NOTE_INVGAMMA && sol.a == 0 &&
          fabs(sol.p / -p - 1) < 1e-12 * fmax(1.0, p) &&
          fabs(sol.b / 0.5 - 1) < 1e-12 * fmax(1.0, p))) {
      ok_ig = 0;
      printf("  inverse gamma p=%g: note %d p %.17g b %.17g a %g\n", -p,
             sol.note, sol.p, sol.b, sol.a);
    }
    /* beyond the gamma boundary: E 1/Y 10% larger */
    ghmix_gig_expectation(p, 3.0, 0.0, eta);
    eta[1] *= 1.1;
    ghmix_gig_from_expectation(eta, NULL, &sol);
    ghmix_gig_expectation(sol.p, sol.a, sol.b, e2);
    if (!(sol.note == GHMIX_GIG_NOTE_GAMMA_MLE && sol.b == 0 &&
          fabs(sol.p / p - 1) < 1e-12 * fmax(1.0, p) &&
          rel_err(e2[0], eta[0], 1) < 1e-13 &&
          rel_err(e2[2], eta[2], 0) < 1e-13 && isfinite(sol.condition)))
      ok_mle = 0;
  }
  check(ok_g, "gamma moments give b = 0 exactly, p and a to 1e-12");
  check(ok_ig, "inverse-gamma moments give a = 0 exactly, p and b to 1e-12");
  check(ok_mle, "beyond the gamma boundary: the gamma MLE, E log Y and E Y "
                "matched");
}

static void test_warm_start(void) {
  double eta[3];
  ghmix_gig_solution cold, warm, far;
  ghmix_gig_solve_control ctrl;
  ghmix_gig_expectation(-1.3, 0.7, 2.2, eta);
  ghmix_gig_from_expectation(eta, NULL, &cold);
  ghmix_gig_solve_control_init(&ctrl);
  ctrl.has_start = 1;
  ctrl.start_p = -1.3 * (1 + 1e-6);
  ctrl.start_a = 0.7;
  ctrl.start_b = 2.2;
  ghmix_gig_from_expectation(eta, &ctrl, &warm);
  check(warm.converged && warm.iterations <= 3 &&
            fabs(warm.p - cold.p) < 1e-12 && fabs(warm.a / cold.a - 1) < 1e-12,
        "a warm start near the solution converges in <= 3 steps");
  ctrl.start_p = 40;
  ctrl.start_a = 1e-5;
  ctrl.start_b = 1e5;
  ghmix_gig_from_expectation(eta, &ctrl, &far);
  check(far.converged && fabs(far.p - cold.p) < 1e-10,
        "a warm start far away still converges");
  ctrl.max_iter = 0;
  ctrl.has_start = 0;
  ghmix_gig_from_expectation(eta, &ctrl, &far);
  check(!far.converged || far.iterations == 0,
        "max_iter = 0 takes no Newton step");
}

static void test_forward_edges(void) {
  double eta[3];
  check(!ghmix_gig_expectation(1, -1, 1, eta) && isnan(eta[0]),
        "negative a is invalid");
  check(!ghmix_gig_expectation(0, 1, 0, eta) && isnan(eta[2]),
        "b = 0 needs p > 0");
  check(!ghmix_gig_expectation(0, 0, 1, eta), "a = 0 needs p < 0");
  ghmix_gig_expectation(0.5, 2, 0, eta);
  check(isinf(eta[1]) && eta[2] == 0.5, "gamma with p <= 1: E 1/Y = Inf");
  check(ghmix_gig_moment(2, 1, 0, -2.5) == INFINITY,
        "gamma: E Y^r = Inf when p + r <= 0");
  check(ghmix_gig_moment(1.5, 2, 3, 0) == 1, "E Y^0 = 1");
  check(isnan(ghmix_gig_moment(1, 1, 1, NAN)), "E Y^NaN is NaN");
  check(fabs(ghmix_gig_moment(-0.5, 2, 2, 1) - 1) < 1e-15 &&
            fabs(ghmix_gig_moment(-0.5, 2, 2, 2) - 1.5) < 1e-15,
        "p = -1/2 (inverse Gaussian): E Y = sqrt(b/a), E Y^2 = 1.5");
}

int main(int argc, char **argv) {
  const char *path = "../testthat/fixtures/gig_eta_ref.csv";
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0)
      verbose = 1;
    else
      path = argv[i];
  }
  test_fixture(path);
  test_round_trip();
  test_jacobian();
  test_feasibility();
  test_limits();
  test_warm_start();
  test_forward_edges();
  printf("test_gig_solve: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
