#!/usr/bin/env python3
"""Reference values for the GIG distribution functions (dgig, pgig).

Writes tests/testthat/fixtures/gig_dist_ref.csv: for ~20 parameter sets
(p, a, b), including extreme ones and the gamma / inverse-gamma limits, and
points x at quantile levels from 1e-12 to 1 - 1e-12 (plus the mode and a
point 1e-100 deep in each tail where x is representable), the log density
and the logs of both tail probabilities P(Y <= x) and P(Y > x).

Conventions (as in ghmix):
  f(y) = (a/b)^(p/2) / (2 K_p(sqrt(ab))) y^(p-1) exp(-(a y + b/y)/2)
  b = 0, p > 0: gamma(shape p, rate a/2); a = 0, p < 0: inverse gamma
  (shape -p, scale b/2).

Method (mpmath, 40 significant digits, independent of ghmix's C code):
  - log f(x) in closed form with mpmath's besselk / loggamma.
  - The tails by mpmath's tanh-sinh quadrature of the density of
    u = log(y / m) (m: the mode of the density of log Y) over panels whose
    ends form a grid that starts at the mode and grows geometrically
    outward; each tail is integrated directly (no 1 - F).
  - Where a tail is close to 1 its log is written as log1p(-other tail),
    the other tail being accurate relative to itself.
  - Checks, all asserted: lower + upper = 1 to 1e-30 (the quadrature against
    the Bessel normaliser); the same tails recomputed at 50 digits on a
    shifted grid agree to 1e-28 in log; in the gamma and inverse-gamma
    limits the tails agree with the regularised incomplete gamma function to
    1e-28.
  - The points x are the doubles nearest to rough quantiles (from a
    20-digit pass); the references are exact for those doubles.  p, a, b, x
    are written also as C99 hexadecimal floats so that R reads the exact
    doubles.

Usage: python3 tools/make_gig_fixtures.py [output.csv]   (a few minutes)
"""

import sys
import time

import mpmath as mp

LEVELS = [1e-12, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99,
          0.999, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12]
DEEP = 1e-100  # an extra point this far into each tail

# (label, p, a, b)
SETS = [
    ("basic", 0.5, 1.0, 1.0),
    ("nig", -0.5, 2.0, 3.0),
    ("p0", 0.0, 1.0, 1.0),
    ("p_small", 1e-3, 1.0, 1.0),
    ("p50", 50.0, 1.0, 1.0),
    ("pm50", -50.0, 1.0, 1.0),
    ("w1e-6", 2.0, 1e-6, 1e-6),
    ("w1e-6_p_small", 1e-3, 1e-6, 1e-6),
    ("w1e-6_pm50_ab1e6", -50.0, 1e-3, 1e-9),
    ("w1e-6_p50_ab1e8", 50.0, 1e-2, 1e-10),
    ("w1000", 1.0, 1000.0, 1000.0),
    ("w1e4", 0.5, 1e4, 1e4),
    ("w1e4_p50", 50.0, 1e4, 1e4),
    ("w1e4_ab1e8", -2.5, 1e8, 1.0),
    ("ab1e-8", 3.0, 1e-4, 1e4),
    ("ab1e8", -0.5, 1e4, 1e-4),
    ("nig_w1e-4", -0.5, 1e-8, 1.0),
    ("p10_w1", 10.0, 100.0, 0.01),
    ("gamma", 2.0, 3.0, 0.0),
    ("gamma_small", 1e-3, 1.0, 0.0),
    ("gamma50", 50.0, 2.0, 0.0),
    ("invgamma", -2.0, 0.0, 3.0),
    ("invgamma_small", -1e-3, 0.0, 1.0),
    ("invgamma50", -50.0, 0.0, 2.0),
]


def hexf(x):
    return float(x).hex()


class Gig:
    """The density of u = log(y / m) at the working precision."""

    def __init__(self, p, a, b):
        self.p, self.a, self.b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
        p, a, b = self.p, self.a, self.b
        W = mp.sqrt(p * p + a * b)
        self.W = W
        if p >= 0:
            self.m = (W + p) / a
        else:
            self.m = b / (W - p)
        if a > 0 and b > 0:
            w = mp.sqrt(a * b)
            self.logc = (p / 2) * mp.log(a / b) - mp.log(2) - mp.log(
                mp.besselk(p, w))
        elif b == 0:
            self.logc = p * mp.log(a / 2) - mp.loggamma(p)
        else:
            self.logc = -p * mp.log(b / 2) - mp.loggamma(-p)
        self.lm = mp.log(self.m)
        self.f0 = self.logfu(mp.mpf(0))

    def logfu(self, u):
        """log density of U = log(Y/m) at u (-inf where the density is
        below exp(-1e10) of its peak, so that mpmath never forms
        exp(-exp(huge)))."""
        if u > 1e6 or u < -1e6:
            if (u > 0 and self.a > 0) or (u < 0 and self.b > 0):
                return mp.ninf
            return self.logc + self.p * (self.lm + u)
        y = self.m * mp.exp(u)
        t = (self.a * y + self.b / y) / 2
        if t > 1e10:
            return mp.ninf
        return self.logc + self.p * (self.lm + u) - t

    def logpdf(self, x):
        x = mp.mpf(x)
        return (self.logc + (self.p - 1) * mp.log(x) -
                (self.a * x + self.b / x) / 2)

    def fu(self, u):
        return mp.exp(self.logfu(u))


def grid(g, depth, shift=1.0):
    """Panel ends from the mode outward until the density is `depth` below
    its peak: steps adapt so that the log density falls by at most 6 over
    one panel (so every panel is an easy integral), and grow by half while
    it falls by less than 2.  Returns (left, right): left in decreasing
    order starting at 0, right increasing."""
    sig = 1 / mp.sqrt(g.W) * shift
    out = []
    for sgn in (-1, 1):
        pts = [mp.mpf(0)]
        step = sig
        u = mp.mpf(0)
        fu = g.f0
        while fu >= g.f0 - depth and abs(u) <= 1e6:
            while True:
                fn = g.logfu(u + sgn * step)
                if fu - fn <= 6:
                    break
                step = step / 2
            u = u + sgn * step
            pts.append(u)
            if fu - fn < 2:
                step = step * mp.mpf(1.5)
            fu = fn
        out.append(pts)
    return out[0], out[1]


def qint(g, lo, hi):
    """Integral of the density of U over [lo, hi] (lo < hi, either may be
    infinite, both on one side of the mode 0 or one of them 0).  mpmath's
    quad stops on an absolute error estimate, so the integrand is scaled to
    1 at its largest value on the interval (the end nearer the mode)
    before integrating."""
    if lo > hi:
        lo, hi = hi, lo
    ref = max(g.logfu(v) for v in (lo, hi) if mp.isfinite(v))
    if ref == mp.ninf:
        return mp.mpf(0)
    val = mp.quad(lambda u: mp.exp(g.logfu(u) - ref), [lo, hi])
    return val * mp.exp(ref)


def panels(g, pts):
    """Integrals of the density over consecutive panels of pts."""
    return [qint(g, pts[i], pts[i + 1]) for i in range(len(pts) - 1)]


class Tails:
    """Lower and upper tail probabilities at any u, by panels."""

    def __init__(self, g, depth, shift=1.0):
        self.g = g
        self.left, self.right = grid(g, depth, shift)
        self.pl = panels(g, self.left)     # panels going left from 0
        self.pr = panels(g, self.right)
        # mass beyond the last grid point on each side
        self.left_inf = qint(g, -mp.inf, self.left[-1])
        self.right_inf = qint(g, self.right[-1], mp.inf)
        self.l0 = mp.fsum(self.pl) + self.left_inf
        self.r0 = mp.fsum(self.pr) + self.right_inf

    def tails(self, u):
        """(lower, upper), each integrated directly."""
        g = self.g
        if u <= 0:
            pts, pan, inf_mass = self.left, self.pl, self.left_inf
            # lower tail: everything left of u
            k = 0
            while k + 1 < len(pts) and pts[k + 1] >= u:
                k += 1
            # u in [pts[k+1], pts[k]] (or beyond the last point)
            if k + 1 < len(pts):
                lower = (qint(g, pts[k + 1], u) +
                         mp.fsum(pan[k + 1:]) + inf_mass)
            else:
                lower = qint(g, -mp.inf, u)
            mid = qint(g, u, pts[k]) + mp.fsum(pan[:k])
            upper = mid + self.r0
            return lower, upper
        pts, pan, inf_mass = self.right, self.pr, self.right_inf
        k = 0
        while k + 1 < len(pts) and pts[k + 1] <= u:
            k += 1
        if k + 1 < len(pts):
            upper = (qint(g, u, pts[k + 1]) +
                     mp.fsum(pan[k + 1:]) + inf_mass)
        else:
            upper = qint(g, u, mp.inf)
        mid = qint(g, pts[k], u) + mp.fsum(pan[:k])
        lower = mid + self.l0
        return lower, upper


def rough_quantiles(p, a, b):
    """Doubles near the quantiles at LEVELS and DEEP (20 digits, by linear
    interpolation of the log tails between grid points)."""
    mp.mp.dps = 20
    g = Gig(p, a, b)
    t = Tails(g, depth=260)
    # both tails at every grid point, from cumulative panel sums
    logf = []
    n = len(t.left)
    for k in range(n - 1, 0, -1):       # left points, increasing u
        lower = mp.fsum(t.pl[k:]) + t.left_inf
        upper = mp.fsum(t.pl[:k]) + t.r0
        logf.append((t.left[k], mp.log(lower), mp.log(upper)))
    for k in range(len(t.right)):
        lower = mp.fsum(t.pr[:k]) + t.l0
        upper = mp.fsum(t.pr[k:]) + t.right_inf
        logf.append((t.right[k], mp.log(lower), mp.log(upper)))
    out = []
    targets = [("lower", mp.log(DEEP))]
    for lev in LEVELS:
        if lev <= 0.5:
            targets.append(("lower", mp.log(lev)))
        else:
            targets.append(("upper", mp.log(1 - lev)))
    targets.append(("upper", mp.log(DEEP)))
    for side, lt in targets:
        col = 1 if side == "lower" else 2
        u = None
        for i in range(len(logf) - 1):
            v0, v1 = logf[i][col], logf[i + 1][col]
            if (v0 - lt) * (v1 - lt) <= 0 and v0 != v1:
                u0, u1 = logf[i][0], logf[i + 1][0]
                u = u0 + (lt - v0) * (u1 - u0) / (v1 - v0)
                break
        if u is None:
            continue
        lx = float(g.lm + u)
        if lx < -690 or lx > 690:
            continue
        out.append(float(mp.exp(g.lm + u)))
    out.append(float(g.m))  # the mode of log Y
    if "small" in label_of(p, a, b):
        # shapes near 0: most quantile levels are beyond the doubles, so
        # cover the range of doubles by decades instead
        out += [x for x in (1e-300, 1e-100, 1e-30, 1e-10, 1e10, 1e30, 1e100,
                            1e300)
                if g.logpdf(x) > -1e5]
    return sorted(set(out))


def label_of(p, a, b):
    return [s[0] for s in SETS if s[1:] == (p, a, b)][0]


def reference(p, a, b, xs, dps, shift):
    mp.mp.dps = dps
    g = Gig(p, a, b)
    t = Tails(g, depth=300, shift=shift)
    rows = []
    for x in xs:
        u = mp.log(mp.mpf(x)) - g.lm
        lo, up = t.tails(u)
        total = lo + up
        assert abs(total - 1) < mp.mpf(10) ** (-30), (p, a, b, x, total)
        # Near 1, a tail's value at 40 digits fixes its log only to ~1e-40
        # absolute; its complement (tiny, hence accurate relative to
        # itself) gives the log to full relative precision there.
        llo = mp.log1p(-up) if up < 1e-3 else mp.log(lo)
        lup = mp.log1p(-lo) if lo < 1e-3 else mp.log(up)
        rows.append((g.logpdf(x), llo, lup))
    return rows


def check_limit(p, a, b, xs, rows):
    """Gamma / inverse-gamma limits against the incomplete gamma function."""
    mp.mp.dps = 40
    p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
    for x, (_, llo, lup) in zip(xs, rows):
        x = mp.mpf(x)
        if b == 0:   # gamma(p, rate a/2)
            lo = mp.gammainc(p, 0, a * x / 2, regularized=True)
            up = mp.gammainc(p, a * x / 2, mp.inf, regularized=True)
        else:        # 1/Y ~ gamma(-p, rate b/2)
            up = mp.gammainc(-p, 0, b / (2 * x), regularized=True)
            lo = mp.gammainc(-p, b / (2 * x), mp.inf, regularized=True)
        assert abs(mp.log(lo) - llo) < mp.mpf(10) ** (-28), (p, a, b, x)
        assert abs(mp.log(up) - lup) < mp.mpf(10) ** (-28), (p, a, b, x)


def fmt(v):
    return mp.nstr(v, 22, min_fixed=1, max_fixed=0) if mp.isfinite(v) \
        else str(v)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/gig_dist_ref.csv"
    lines = ["set,p,a,b,x,p_hex,a_hex,b_hex,x_hex,logpdf,log_lower,"
             "log_upper"]
    for label, p, a, b in SETS:
        t0 = time.time()
        xs = rough_quantiles(p, a, b)
        rows = reference(p, a, b, xs, dps=40, shift=1.0)
        check = reference(p, a, b, xs, dps=50, shift=1.37)
        mp.mp.dps = 50
        for r1, r2 in zip(rows, check):
            for v1, v2 in zip(r1, r2):
                assert abs(v1 - v2) <= mp.mpf(10) ** (-28) * max(1, abs(v2)), \
                    (label, v1, v2)
        if a == 0 or b == 0:
            check_limit(p, a, b, xs, rows)
        mp.mp.dps = 40
        for x, (lpdf, llo, lup) in zip(xs, rows):
            lines.append(",".join([
                label, repr(p), repr(a), repr(b), repr(x), hexf(p), hexf(a),
                hexf(b), hexf(x), fmt(lpdf), fmt(llo), fmt(lup)]))
        print("%-18s %2d points  %.1f s" % (label, len(xs), time.time() - t0),
              file=sys.stderr)
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("wrote %s (%d rows)" % (out, len(lines) - 1), file=sys.stderr)


if __name__ == "__main__":
    main()
