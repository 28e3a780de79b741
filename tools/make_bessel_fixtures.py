#!/usr/bin/env python3
"""Generate tests/testthat/fixtures/bessel_ref.csv: reference values of
log K_nu(x) and its derivatives, computed with mpmath at 50-60+ digits,
independently of ghmix.

Usage (from the repository root):

    python3 tools/make_bessel_fixtures.py            # writes the fixture
    python3 tools/make_bessel_fixtures.py --jobs 1   # single process
    python3 tools/make_bessel_fixtures.py --limit 50 --out /tmp/x.csv  # quick try

Needs mpmath (pip install mpmath; gmpy2, if installed, speeds it up).
Cross-checks of the values written here against other methods:
tools/verify_bessel_fixtures.py.

Columns: x, nu (the exact doubles the references are for), logk = log K_nu(x),
dx = d/dx log K, dnu = d/dnu log K, dnu2 = d2/dnu2 log K, dnudx = d2/dnu dx
log K, dx2 = d2/dx2 log K, log_ratio_up = log(K_{nu+1}/K_nu), log_ratio_down =
log(K_{nu-1}/K_nu), region (the family the point was generated for), method
(B = mpmath.besselk + mpmath.diff, Q = high-precision trapezoid rule on the
integral representation, H = Hankel series; see bessel_mp.py).  Values are
the mpmath results rounded to nearest double, written with 17 significant
digits.  A value that is not representable as a double (only d2/dx2 log K,
~nu/x^2, for x below ~1e-150) is written as NA.  Values that vanish by
symmetry are exactly 0 (bessel_mp.exact_zeros).
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mpmath import mp, mpf  # noqa: E402
from mpmath.libmp import to_float  # noqa: E402

import bessel_mp  # noqa: E402

COLUMNS = ["x", "nu", "logk", "dx", "dnu", "dnu2", "dnudx", "dx2",
           "log_ratio_up", "log_ratio_down", "region", "method"]
QUANTS = COLUMNS[2:10]

X_MIN, X_MAX = 1e-300, 1e300


def logspace(a, b, n):
    """n doubles log-uniformly from 10^a to 10^b inclusive."""
    if n == 1:
        return [10.0 ** a]
    return [float("%.15g" % 10.0 ** (a + (b - a) * i / (n - 1))) for i in range(n)]


def points():
    """All (x, nu, region) triples, in a fixed order, duplicates removed."""
    P = []

    def add(region, xs, nus):
        for nu in nus:
            for x in xs:
                P.append((float(x), float(nu), region))

    # 1. global grid: x log-uniform over [1e-300, 1e300] (7.5 decades apart)
    #    crossed with a set of orders
    grid_nu = [0.0, 1e-10, 1e-3, 0.4999999, 0.5, -0.5, 1.0, 1.5, 2.0, 2.5,
               3.3, -7.25, 10.0, 17.5, 50.0, 100.25, 333.3, 1000.0, -1000.0]
    add("grid", logspace(-300, 300, 81), grid_nu)

    # 2. where normix's fixed 64-node window fails: nu in 5..25, x in 1e-6..1
    add("normix", logspace(-6, 0, 20), [5 + 0.5 * i for i in range(41)])
    add("normix", logspace(-6, 0, 7), [-5.0, -12.75, -25.0])

    # 3. half-integers (closed forms) and near-half-integers
    xs = logspace(-300, 300, 13) + [1e-3, 0.1, 0.7, 3.0, 30.0, 700.0]
    add("halfint", xs, [0.5, 1.5, 2.5, 3.5, 5.5, 10.5, 20.5, 50.5, 100.5,
                        999.5, -2.5, -20.5])
    add("near_half", xs, [0.4999999, 0.5000001, 1.4999999999, 2.5000001,
                          -0.50000000001])

    # 4. integers and near-integers (limit forms in series methods)
    add("integer", xs, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0, 100.0,
                        1000.0, -1.0, -3.0])
    add("near_int", xs, [1e-8, 1 + 1e-8, 1 - 1e-8, 2 + 1e-12, 10 - 1e-6])

    # 5. orders near 0
    add("nu_small", logspace(-300, 300, 21) + [1e-3, 0.1, 1.0, 10.0],
        [1e-15, 1e-10, -1e-10, 1e-6, 1e-3, 0.01, 0.1, -0.1])

    # 6. tiny x with large order (base R overflows to Inf)
    add("tinyx_bignu", [1e-300, 1e-250, 1e-200, 1e-150, 1e-100, 1e-50, 1e-20,
                        1e-10, 1e-5, 1e-2, 0.1, 0.5, 1.0],
        [10.0, 30.0, 50.0, 100.0, 200.0, 500.0, 999.0, -750.5])

    # 7. large x, where unscaled K underflows (x > ~705)
    add("underflow", [700.0, 705.0, 709.78, 745.2, 800.0, 1000.0, 1e4, 1e5,
                      1e8, 1e12],
        [0.0, 0.5, 3.0, 10.0, 50.0, 100.0, 1000.0, -20.0])

    # 8. log K ~ 0 (x ~ 0.66 |nu|), where log K is a small difference of
    #    terms of size ~2|nu|
    for nu in [2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0,
               -1000.0, -300.0]:
        for cfac in [0.6, 0.65, 0.66, 0.6627, 0.665, 0.67, 0.7]:
            P.append((float("%.15g" % (cfac * abs(nu))), nu, "logk0"))

    # 9. transition zones: x ~ nu^2 (large-x series) and x ~ nu (turning point)
    for nu in [2.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1000.0]:
        for cfac in [0.1, 0.5, 1.0, 2.0, 10.0, 100.0]:
            P.append((float("%.15g" % (cfac * nu * nu)), nu, "x_nu2"))
    for nu in [1.0, 3.0, 7.5, 14.0, 15.0, 16.0, 17.0, 25.0, 50.0, 100.0,
               1000.0, -40.0]:
        for cfac in [0.5, 0.9, 0.99, 1.0, 1.01, 1.1, 2.0]:
            P.append((float("%.15g" % (cfac * abs(nu))), nu, "x_nu"))

    # 10. orders around 14..16 (where uniform-expansion methods usually
    #     switch on) across all x
    add("seam_nu16", logspace(-300, 300, 9) + logspace(-3, 3, 9),
        [13.9, 14.0, 14.1, 15.9, 15.999999, 16.0, 16.000001, 16.1])

    # 11. random points, benchmark distribution: x log-uniform in [1e-3, 1e3],
    #     nu uniform in [-50, 50]
    rng = random.Random(20240601)
    for _ in range(1000):
        x = 10.0 ** rng.uniform(-3, 3)
        nu = rng.uniform(-50, 50)
        P.append((x, nu, "rand_mid"))

    # 12. random points over the whole domain: x log-uniform in [1e-300, 1e300];
    #     |nu| half log-uniform in [1e-3, 1e3], half uniform in [0, 1000];
    #     random sign
    rng = random.Random(20240602)
    for i in range(1000):
        x = 10.0 ** rng.uniform(-300, 300)
        if i % 2:
            nu = 10.0 ** rng.uniform(-3, 3)
        else:
            nu = rng.uniform(0, 1000)
        if rng.random() < 0.5:
            nu = -nu
        P.append((x, nu, "rand_full"))

    seen = set()
    out = []
    for x, nu, region in P:
        assert X_MIN <= x <= X_MAX and abs(nu) <= 1000, (x, nu)
        if (x, nu) in seen:
            continue
        seen.add((x, nu))
        out.append((x, nu, region))
    return out


def method_for(x, nu):
    if x < 1:
        return "B"
    if x >= 1e20:
        return "H"
    return "Q"


def compute(args):
    x, nu, region = args
    m = method_for(x, nu)
    t = time.time()
    if m == "B":
        r = bessel_mp.besselk_route(x, nu)
    elif m == "H":
        r = bessel_mp.hankel_all(x, nu)
    else:
        r = bessel_mp.quad_all(x, nu)
    vals = []
    for q in QUANTS:
        v = r[q]
        if not mp.isfinite(v) or mp.im(v) != 0:
            raise RuntimeError("non-finite %s at x=%r nu=%r" % (q, x, nu))
        f = to_float(mpf(v)._mpf_, rnd="n")  # round to nearest double
        if math.isinf(f):
            f = None  # not representable
        vals.append(f)
    return (x, nu, region, m, vals, time.time() - t)


def fmt(v):
    if v is None:
        return "NA"
    if v == 0:
        return "0"
    return "%.17g" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(
        here, "..", "tests", "testthat", "fixtures", "bessel_ref.csv"))
    ap.add_argument("--jobs", type=int, default=2, choices=[1, 2],
                    help="processes computing (2 = this one plus one helper)")
    ap.add_argument("--limit", type=int, default=0,
                    help="only the first N points (for trying things out)")
    a = ap.parse_args()

    pts = points()
    if a.limit:
        pts = pts[:a.limit]
    t0 = time.time()
    print("%d points; mpmath %s backend %s" % (len(pts), __import__("mpmath").__version__,
                                                __import__("mpmath").libmp.BACKEND),
          flush=True)
    if a.jobs == 2:
        import multiprocessing as mpr
        # the helper takes the odd-numbered points, this process the even ones
        with mpr.get_context("fork").Pool(1) as pool:
            odd = pool.map_async(compute, pts[1::2], chunksize=16)
            even = []
            for i, p in enumerate(pts[0::2]):
                even.append(compute(p))
                if i % 250 == 0:
                    print("  %5d/%d  %.0fs" % (2 * i, len(pts), time.time() - t0), flush=True)
            odd = odd.get()
        res = [None] * len(pts)
        res[0::2] = even
        res[1::2] = odd
    else:
        res = []
        for i, p in enumerate(pts):
            res.append(compute(p))
            if i % 500 == 0:
                print("  %5d/%d  %.0fs" % (i, len(pts), time.time() - t0), flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for x, nu, region, m, vals, _ in res:
            f.write(",".join([fmt(x), fmt(nu)] + [fmt(v) for v in vals] + [region, m]) + "\n")

    # summary
    by_region, by_method = {}, {}
    for x, nu, region, m, vals, dt in res:
        r = by_region.setdefault(region, [0, 0.0])
        r[0] += 1
        r[1] += dt
        k = by_method.setdefault(m, [0, 0.0, 0.0])
        k[0] += 1
        k[1] += dt
        k[2] = max(k[2], dt)
    print("region            points  cpu_s")
    for region, (n, dt) in by_region.items():
        print("%-16s %7d %7.1f" % (region, n, dt))
    print("method points  cpu_s  max_s")
    for m, (n, dt, mx) in sorted(by_method.items()):
        print("%-6s %6d %6.1f %6.2f" % (m, n, dt, mx))
    print("wrote %s (%d rows) in %.0f s wall" % (a.out, len(res), time.time() - t0))


if __name__ == "__main__":
    main()
