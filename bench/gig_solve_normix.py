#!/usr/bin/env python3
"""Time normix's GIG from_expectation on the rows ghmix was timed on.

bench/gig_solve.R runs this script itself when it finds a Python with
normix.  By hand:

    export GHMIX_BENCH_DIR=/tmp/gig     # shared by both (mkdir it first)
    Rscript bench/gig_solve.R           # writes gig_solve_eta*.csv and
                                        # gig_solve_ghmix.csv there
    python bench/gig_solve_normix.py [N [OUT.csv]]
                                        # N rows per family (default 50);
                                        # OUT.csv: the table as CSV

normix needs Python >= 3.12 and jax (pip install normix).  For two families
of rows written by bench/gig_solve.R -- "typical" (|p| <= 5, sqrt(ab) in
[0.1, 100], a/b in [0.01, 100]) and "issue grid" (|p| <= 50, sqrt(ab) in
[1e-6, 1e4], a/b in [1e-8, 1e8]) -- this times, on the CPU,
GeneralizedInverseGaussian.from_expectation(eta) with default settings,
both as eager calls and as one jax.jit-compiled function called per row
(after compilation), checks the answers against the (p, a, b) the rows came
from (relative error above 1e-6 counts as wrong where ghmix's condition
number is below 1e7; exceptions count as failures) and prints the median
time per solve and its ratio to ghmix's C time per solve on the same family
(from gig_solve_ghmix.csv).
"""

import csv
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import normix  # noqa: E402
from normix.distributions.generalized_inverse_gaussian import (  # noqa: E402
    GeneralizedInverseGaussian as GIG,
)

DIR = os.environ.get("GHMIX_BENCH_DIR", "/tmp")
KEYS = ("E_log_y", "E_inv_y", "E_y")


def read_rows(name, n):
    with open(os.path.join(DIR, name)) as f:
        return list(csv.DictReader(f))[:n]


def rel_err(pab, r):
    p, a, b = pab
    p0, a0, b0 = float(r["p"]), float(r["a"]), float(r["b"])
    return max(abs(p - p0) / max(1.0, abs(p0)), abs(a / a0 - 1),
               abs(b / b0 - 1))


def solve_eager(eta):
    g = GIG.from_expectation(eta)
    return float(g.p), float(g.a), float(g.b)


_jit = jax.jit(lambda e: (lambda g: jnp.stack([g.p, g.a, g.b]))(
    GIG.from_expectation(e)))


def solve_jit(eta):
    out = _jit(eta).block_until_ready()
    return float(out[0]), float(out[1]), float(out[2])


def run(rows, conds, solve):
    times, fails, wrong, checked, errs = [], 0, 0, 0, []
    solve(jnp.array([float(rows[0][k]) for k in KEYS]))  # compile / warm up
    for r, cond in zip(rows, conds):
        eta = jnp.array([float(r[k]) for k in KEYS])
        t = time.perf_counter()
        try:
            pab = solve(eta)
        except Exception:  # SolverDidNotConverge, ValueError, ...
            pab = (float("nan"),) * 3
            fails += 1
        times.append(time.perf_counter() - t)
        if cond < 1e7:
            checked += 1
            err = rel_err(pab, r)
            errs.append(err if err == err else float("inf"))
            if not err <= 1e-6:
                wrong += 1
    return (statistics.median(times) * 1e6, fails, wrong, checked,
            max(errs) if errs else float("nan"))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    out_csv = sys.argv[2] if len(sys.argv) > 2 else ""
    table = []
    ghmix = {}
    conds_grid = []
    with open(os.path.join(DIR, "gig_solve_ghmix.csv")) as f:
        for r in csv.DictReader(f):
            if r["what"].startswith("condition_"):
                conds_grid.append(float(r["value"]))
            else:
                ghmix[r["what"]] = float(r["value"])
    typical = read_rows("gig_solve_eta_typical.csv", n)
    grid = read_rows("gig_solve_eta.csv", n)
    print("normix %s, jax %s, CPU" % (normix.__version__, jax.__version__))
    for label, rows, conds, key in [
            ("typical", typical, [float(r["condition"]) for r in typical],
             "us_per_solve_typical"),
            ("issue grid", grid, conds_grid[:len(grid)],
             "us_per_solve_issue_grid")]:
        for mode, solve in (("eager", solve_eager), ("jit", solve_jit)):
            med, fails, wrong, checked, worst = run(rows, conds, solve)
            print("%-10s %-5s: median %9.0f us per solve; exceptions %d; "
                  "error > 1e-6 in %d of %d checked (worst %.1e); "
                  "normix / ghmix = %.0fx"
                  % (label, mode, med, fails, wrong, checked, worst,
                     med / ghmix[key]))
            table.append({"family": label, "mode": mode,
                          "us_per_solve": "%.1f" % med, "exceptions": fails,
                          "wrong": wrong, "checked": checked,
                          "worst_rel_err": "%.3g" % worst,
                          "vs_ghmix": "%.1f" % (med / ghmix[key])})
    if out_csv:
        with open(out_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0]))
            w.writeheader()
            w.writerows(table)


if __name__ == "__main__":
    main()
