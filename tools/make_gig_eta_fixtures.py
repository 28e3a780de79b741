#!/usr/bin/env python3
"""Reference values for the GIG expectation parameters and moments.

Writes tests/testthat/fixtures/gig_eta_ref.csv, the references of
tests/testthat/test-gig-solve.R and tests/c/test_gig_solve.c:

  E log Y = log(b/a)/2 + d/dp log K_p(w)
  E 1/Y   = sqrt(a/b) K_{p-1}(w) / K_p(w)
  E Y     = sqrt(b/a) K_{p+1}(w) / K_p(w)
  E Y^r   = (b/a)^(r/2) K_{p+r}(w) / K_p(w)
  Var Y   = (b/a) (K_{p+2}/K_p - (K_{p+1}/K_p)^2),     w = sqrt(ab),

for GIG(p, a, b) (density proportional to y^(p-1) exp(-(a y + b/y)/2)), and
in the limits b = 0 (gamma, shape p, rate a/2) and a = 0 (inverse gamma,
shape -p, scale b/2) from their closed forms with mpmath's digamma and
loggamma.

Method: mpmath at 40+ significant digits, independent of ghmix.  The Bessel
quantities come from tools/bessel_mp.py's quad_all (trapezoid rule on the
integral representation, each moment accurate to ~1e-28 relative; see that
file), and where mpmath.besselk is reliable (|p| <= 3 sqrt(w) + 30, w <= 1e3)
every row is cross-checked against mpmath.besselk and mpmath.diff (assert:
agreement to 1e-24 relative in E 1/Y, E Y and E Y^r, 1e-24 absolute in
E log Y).

Points (deterministic): a grid p x w, with p in {-50, ..., 50} (20 values),
w = sqrt(ab) in {1e-6, ..., 1e4} (10 values) and a/b cycling through
{1e-8, 1e-4, 1, 1e4, 1e8}; 100 random points (seed 20240601) with p uniform
in [-50, 50], log10 w in [-6, 4], log10(a/b) in [-8, 8]; 24 gamma and
inverse-gamma limits.  Each row has one order r for E Y^r, cycling through
{-2.5, -1, -0.3, 0.5, 1, 2, 3.7}.

Columns: p, a, b (exact doubles, %.17g), E_log_y, E_inv_y, E_y, r, E_y_r,
var_y (rounded to nearest double, %.17g; Inf where the moment does not
exist), region (grid, random, gamma, invgamma).

Usage (from the repository root; about 3 minutes on 2 cores):

    python3 tools/make_gig_eta_fixtures.py [--jobs N] [--out PATH]
"""

import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mpmath import mp, mpf  # noqa: E402

import bessel_mp  # noqa: E402

DPS = 45
COLUMNS = ["p", "a", "b", "E_log_y", "E_inv_y", "E_y", "r", "E_y_r",
           "var_y", "region"]
ORDERS = [-2.5, -1.0, -0.3, 0.5, 1.0, 2.0, 3.7]


def points():
    pts = []
    ps = [-50.0, -20.0, -10.0, -5.0, -2.5, -1.5, -1.0, -0.5, -0.1, 0.0, 0.1,
          0.5, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 20.0, 50.0]
    ws = [1e-6, 1e-4, 1e-2, 0.3, 1.0, 3.0, 10.0, 100.0, 1e3, 1e4]
    ratios = [1e-8, 1e-4, 1.0, 1e4, 1e8]
    k = 0
    for p in ps:
        for w in ws:
            q = ratios[k % len(ratios)]
            a = float(w * math.sqrt(q))
            b = float(w / math.sqrt(q))
            pts.append((p, a, b, ORDERS[k % len(ORDERS)], "grid"))
            k += 1
    rng = random.Random(20240601)
    for _ in range(100):
        p = float("%.6g" % rng.uniform(-50, 50))
        w = 10.0 ** rng.uniform(-6, 4)
        q = 10.0 ** rng.uniform(-8, 8)
        a = float("%.10g" % (w * math.sqrt(q)))
        b = float("%.10g" % (w / math.sqrt(q)))
        pts.append((p, a, b, ORDERS[k % len(ORDERS)], "random"))
        k += 1
    for p, a in [(0.5, 1.0), (1.0, 2.0), (1.5, 0.01), (2.5, 1.0),
                 (3.0, 100.0), (5.0, 0.5), (20.0, 3.0), (50.0, 1e-3),
                 (0.1, 1e4), (7.25, 1.0), (1.0000001, 1.0), (200.0, 2.0)]:
        pts.append((p, a, 0.0, ORDERS[k % len(ORDERS)], "gamma"))
        k += 1
        pts.append((-p, 0.0, a, ORDERS[k % len(ORDERS)], "invgamma"))
        k += 1
    return pts


def gig_row(pt):
    p, a, b, r, region = pt
    with mp.workdps(DPS):
        P, A, B, R = mpf(p), mpf(a), mpf(b), mpf(r)
        inf = mp.inf
        if b == 0:  # gamma, shape p, rate a/2
            beta = A / 2
            elog = mp.digamma(P) - mp.log(beta)
            einv = beta / (P - 1) if P > 1 else inf
            ey = P / beta
            eyr = (mp.exp(mp.loggamma(P + R) - mp.loggamma(P) - R * mp.log(beta))
                   if P + R > 0 else inf)
            var = P / beta ** 2
        elif a == 0:  # inverse gamma, shape q, scale b/2
            Q, s = -P, B / 2
            elog = mp.log(s) - mp.digamma(Q)
            einv = Q / s
            ey = s / (Q - 1) if Q > 1 else inf
            eyr = (mp.exp(mp.loggamma(Q - R) - mp.loggamma(Q) + R * mp.log(s))
                   if Q - R > 0 else inf)
            var = s ** 2 / ((Q - 1) ** 2 * (Q - 2)) if Q > 2 else inf
        else:
            w = math.sqrt(a) * math.sqrt(b)  # only to pick the points
            W = mp.sqrt(A * B)
            ls = (mp.log(B) - mp.log(A)) / 2
            lk, dnu, lru, lrd = bessel_w(W, P)
            lk1, _, lru1, _ = bessel_w(W, P + 1)
            lkr, _, _, _ = bessel_w(W, P + R)
            elog = ls + dnu
            einv = mp.exp(lrd - ls)
            ey = mp.exp(lru + ls)
            eyr = mp.exp(R * ls + lkr - lk)
            var = mp.exp(2 * ls + lru) * (mp.exp(lru1) - mp.exp(lru))
            if w <= 1e3 and abs(p) <= 3 * math.sqrt(w) + 30:
                check_besselk(W, P, R, ls, elog, einv, ey, eyr)
        vals = [elog, einv, ey, eyr, var]
        return (p, a, b, r, region, vals)


def bessel_w(W, nu):
    """bessel() at an mpf argument W (quad_all takes it exactly)."""
    r = bessel_mp.quad_all(W, nu)
    return r["logk"], r["dnu"], r["log_ratio_up"], r["log_ratio_down"]


def check_besselk(W, P, R, ls, elog, einv, ey, eyr):
    """Cross-check against mpmath.besselk and mpmath.diff."""
    with mp.workdps(DPS + 10):
        k = mp.besselk(P, W)
        ku, kd, kr = mp.besselk(P + 1, W), mp.besselk(P - 1, W), \
            mp.besselk(P + R, W)
        d = mp.diff(lambda v: mp.log(mp.besselk(v, W) / k), P)
        pairs = [(ls + d, elog, True), (kd / k * mp.exp(-ls), einv, False),
                 (ku / k * mp.exp(ls), ey, False),
                 (kr / k * mp.exp(R * ls), eyr, False)]
        for got, ref, absolute in pairs:
            err = abs(got - ref) / (max(1, abs(ref)) if absolute else abs(ref))
            if err > mpf("1e-24"):
                raise AssertionError("cross-check failed at p=%s w=%s: %s vs %s"
                                     % (P, W, got, ref))


def fmt(v):
    if v == mp.inf:
        return "Inf"
    return "%.17g" % float(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(
        "tests", "testthat", "fixtures", "gig_eta_ref.csv"))
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    pts = points()
    if args.limit:
        pts = pts[:args.limit]
    if args.jobs > 1:
        from multiprocessing import Pool
        with Pool(args.jobs) as pool:
            rows = pool.map(gig_row, pts, chunksize=4)
    else:
        rows = [gig_row(pt) for pt in pts]
    with open(args.out, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for p, a, b, r, region, vals in rows:
            f.write(",".join(["%.17g" % p, "%.17g" % a, "%.17g" % b] +
                             [fmt(v) for v in vals[:3]] + ["%.17g" % r] +
                             [fmt(v) for v in vals[3:]] + [region]) + "\n")
    print("wrote %d rows to %s" % (len(rows), args.out))


if __name__ == "__main__":
    main()
