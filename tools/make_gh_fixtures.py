#!/usr/bin/env python3
"""Reference values for the GH distribution functions (dgh, pgh, qgh).

Writes tests/testthat/fixtures/gh_dist_ref.csv with two kinds of rows:

  kind "uni": univariate X = mu + Y gamma + sqrt(Y) sigma N, Y ~ GIG(p, a, b),
    for ~20 parameter sets (GH, NIG, hyperbolic, variance gamma with and
    without its singularity, skew-t with light and very heavy power tails,
    Student t, sqrt(ab) = 1000, tiny b, |p| = 50, a near 0) at points from
    the centre to the far tails (|x - mu| up to 1e6 sigma): the log density
    and the logs of both tails P(X <= x) and P(X > x).
  kind "mv": multivariate densities, d = 2 and 3, a few rows each, including
    far rows and the limits.

Conventions (as in ghmix, DESIGN.md section 2):
  GIG(p, a, b) density (a/b)^(p/2) / (2 K_p(sqrt(ab))) y^(p-1) exp(-(a y + b/y)/2);
  b = 0, p > 0 gamma(shape p, rate a/2); a = 0, p < 0 inverse gamma.
  For d = 1 `sigma` is the scale (Sigma = sigma^2); for d > 1 Sigma is given
  as the d x d matrix, column-major.

Method (mpmath, independent of ghmix's C code):
  - log f(x) by the closed form (Barndorff-Nielsen 1977; McNeil, Frey and
    Embrechts 2005, section 3.2)
      log f = c(p, a, b) - (d/2) log(2 pi) - (1/2) log det Sigma + B
              + (q/2) log((b + Q) / A) + log 2 + log K_q(sqrt(A (b + Q))),
    q = p - d/2, A = a + gamma' Sigma^-1 gamma, Q and B the quadratic forms,
    c the log of the GIG normalising constant, with mpmath.besselk, at 40
    significant digits plus log10 of the largest term (B and the Bessel
    argument cancel in power tails: up to 480 digits there).
  - Checked against the definition: the density as the normal mixture
    integral over y (mpmath.quad in log y, no Bessel function), for several
    rows of every set; asserted to agree to 1e-25 in log.
  - The tails by mpmath.quad of the closed-form density over panels between
    sorted points (with breakpoints at 0 and the mode), each panel short
    enough that log f changes by at most ~8 across it, and outward from the
    extreme points until the rest is below 1e-50 of the tail; each tail is a
    sum of positive panel integrals (no 1 - F).  Asserted: the panels of a
    set sum to 1 within 1e-28 (the quadrature against the closed form's
    normalisation).
  - p, a, b, mu, gamma, sigma, x are written also as C99 hexadecimal floats
    (lists separated by ';' for the multivariate rows) so that R reads the
    exact doubles.

Usage: python3 tools/make_gh_fixtures.py [--jobs=N] [output.csv]
(N worker processes, default 2; about 15 minutes of CPU in all)
"""

import math
import multiprocessing
import sys
import time

import mpmath as mp

DPS = 30

# (label, p, a, b, mu, gamma, sigma, scale of the points in units of sigma)
SETS = [
    ("nig", -0.5, 1.0, 1.0, 0.0, 0.5, 1.0, 1.0),
    ("nig_neg", -0.5, 2.0, 0.5, 1.0, -1.0, 2.0, 1.0),
    ("nig_sym", -0.5, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0),
    ("gh", 1.5, 2.0, 1.0, -0.5, 0.3, 0.7, 1.0),
    ("hyp", 1.0, 1.0, 1.0, 0.0, 0.2, 1.0, 1.0),
    ("vg", 2.0, 2.0, 0.0, 0.0, 0.5, 1.0, 1.0),
    ("vg_sing", 0.3, 1.0, 0.0, 0.25, 0.4, 1.5, 1.0),
    ("vg_kink", 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0),
    ("skewt", -2.0, 0.0, 4.0, 0.0, 1.0, 1.0, 1.0),
    ("skewt_nu1", -0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0),
    ("skewt_s0.1", -0.1, 0.0, 0.2, 0.0, -0.5, 1.0, 1.0),
    ("t3", -1.5, 0.0, 3.0, 2.0, 0.0, 0.5, 1.0),
    ("t_nu0.5", -0.25, 0.0, 0.5, 0.0, 0.0, 1.0, 1.0),
    ("w1000", 0.5, 1000.0, 1000.0, 0.0, 0.5, 1.0, 1.0),
    ("b_tiny", -0.5, 1.0, 1e-10, 0.0, 0.2, 1.0, 1e-3),
    ("p50", 50.0, 1.0, 1.0, 0.0, 0.1, 1.0, 10.0),
    ("pm50", -50.0, 1.0, 1.0, 0.0, -0.1, 1.0, 0.1),
    ("a_tiny", -0.5, 1e-8, 1.0, 0.0, 1.0, 1.0, 1.0),
    ("ab_skew", 2.0, 1e-4, 1e4, 0.0, -0.05, 1.0, 10.0),
]

UNITS = [-1e6, -1e4, -1e3, -100.0, -30.0, -10.0, -5.0, -3.0, -2.0, -1.0,
         -0.5, -0.1, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0,
         1e3, 1e4, 1e6]

# (label, p, a, b, mu, gamma, Sigma rows, x rows)
MV_SETS = [
    ("mv2_nig", -0.5, 1.0, 1.0, [0.5, -1.0], [0.3, -0.2],
     [[1.0, 0.3], [0.3, 2.0]],
     [[0.0, 0.0], [0.5, -1.0], [1.0, 2.0], [-3.0, 4.0], [30.0, -20.0],
      [1e3, 1e3], [-1e3, 5e2]]),
    ("mv3_gh", 1.5, 2.0, 0.5, [0.0, 1.0, -1.0], [0.1, 0.0, -0.3],
     [[2.0, 0.5, 0.1], [0.5, 1.0, -0.2], [0.1, -0.2, 0.5]],
     [[0.0, 1.0, -1.0], [1.0, 0.0, 0.0], [-2.0, 3.0, 1.0], [10.0, 10.0, 10.0],
      [1e3, -1e3, 2e3]]),
    ("mv2_vg", 2.0, 1.0, 0.0, [0.0, 0.0], [0.5, 0.5],
     [[1.0, -0.4], [-0.4, 1.0]],
     [[0.0, 0.0], [1e-8, 0.0], [1.0, 1.0], [-5.0, 3.0], [100.0, 100.0]]),
    ("mv3_skewt", -3.0, 0.0, 6.0, [1.0, 2.0, 3.0], [1.0, -0.5, 0.25],
     [[1.0, 0.2, 0.0], [0.2, 1.0, 0.3], [0.0, 0.3, 1.0]],
     [[1.0, 2.0, 3.0], [2.0, 1.0, 4.0], [20.0, -5.0, 8.0],
      [1e3, -5e2, 2.5e2], [1e6, -5e5, 2.5e5]]),
    ("mv2_t", -2.0, 0.0, 4.0, [0.0, 0.0], [0.0, 0.0],
     [[1.0, 0.5], [0.5, 1.0]],
     [[0.0, 0.0], [1.0, -1.0], [1e3, 1e3]]),
    ("mv2_w1000", 0.5, 1000.0, 1000.0, [0.0, 0.0], [1.0, -1.0],
     [[1.0, 0.0], [0.0, 4.0]],
     [[0.0, 0.0], [1.0, -1.0], [5.0, -5.0], [50.0, 50.0]]),
]


def hexf(x):
    return float(x).hex()


def to_double(x):
    """mpf -> nearest double (mpmath's float() truncates; Python's float()
    of a decimal string rounds to nearest)."""
    if mp.isinf(x):
        return float(x)
    return float(mp.nstr(x, 30))


def fmt(x):
    if x is None:
        return "NA"
    if isinstance(x, float) and math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    return "%.17g" % x


# ---------------------------------------------------------------------------
# Closed form

def log_gig_norm(p, a, b):
    """log of the GIG normalising constant c(p, a, b)."""
    p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
    if b == 0:
        return p * mp.log(a / 2) - mp.loggamma(p)
    if a == 0:
        return -p * mp.log(b / 2) - mp.loggamma(-p)
    w = mp.sqrt(a * b)
    return p / 2 * mp.log(a / b) - mp.log(2) - mp.log(mp.besselk(p, w))


def log_gh(d, p, a, b, Q, B, gSg, logdet):
    """Closed-form log density from the quadratic forms (mpf inputs)."""
    extra = int(max(0, mp.log10(1 + abs(B)), mp.log10(1 + abs(Q)) / 2)) + 10
    with mp.extradps(extra):
        q = mp.mpf(p) - mp.mpf(d) / 2
        A = mp.mpf(a) + gSg
        bq = mp.mpf(b) + Q
        base = (log_gig_norm(p, a, b) - mp.mpf(d) / 2 * mp.log(2 * mp.pi)
                - logdet / 2 + B)
        if bq == 0:
            return mp.inf if q <= 0 else base - log_gig_norm(q, A, 0)
        if A == 0:
            return base - log_gig_norm(q, 0, bq)
        w = mp.sqrt(A * bq)
        r = base + q / 2 * mp.log(bq / A) + mp.log(2) + mp.log(mp.besselk(q, w))
        return +r


def log_gh_mixture(d, p, a, b, Q, B, gSg, logdet):
    """The same density as the normal mixture integral over y (in log y),
    with no Bessel function except the GIG normaliser: the check of the
    closed form."""
    p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
    c = log_gig_norm(p, a, b)

    def h(u):
        y = mp.exp(u)
        # log N_d(x; mu + y gamma, y Sigma) + log g(y) + log y (dy = y du)
        quad = (Q - 2 * y * B + y * y * gSg) / y
        return (-mp.mpf(d) / 2 * mp.log(2 * mp.pi * y) - logdet / 2 - quad / 2
                + c + (p - 1) * u - (a * y + b / y) / 2 + u)

    # the peak of h (concave in u) and panels out to where h has dropped
    # by 120 (finite ends: mpmath's infinite-interval maps would evaluate
    # exp(-exp(huge)), beyond what gmpy2 can represent)
    pts, h0 = peak_and_panels(h, lo=-800, hi=800)
    val = mp.quad(lambda u: mp.exp(h(u) - h0), pts, maxdegree=10)
    return h0 + mp.log(val)


# ---------------------------------------------------------------------------
# Univariate tails

def peak_and_panels(psi, lo=-1500, hi=1500, drop=120):
    """Breakpoints for the quadrature of exp(psi(t)) over the line: the peak
    of psi (golden section; psi is unimodal here) and points at 1/2, 1, 2,
    4, ... widths from it, out to where psi has dropped by `drop`."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    with mp.workdps(25):
        for _ in range(500):
            m1 = lo + (hi - lo) * mp.mpf("0.381966")
            m2 = lo + (hi - lo) * mp.mpf("0.618034")
            if psi(m1) < psi(m2):
                lo = m1
            else:
                hi = m2
            if hi - lo < mp.mpf(10) ** -10:
                break
        t0 = (lo + hi) / 2
        p0 = psi(t0)
        e = mp.mpf("1e-3")
        curv = -(psi(t0 + e) - 2 * p0 + psi(t0 - e)) / e ** 2
        wdt = 1 / mp.sqrt(curv) if curv > 0 else mp.mpf(1)
        wdt = min(max(wdt, mp.mpf(10) ** -8), mp.mpf(50))
    pts = [t0]
    for sgn in (-1, 1):
        k = mp.mpf("0.5")
        while True:
            t = t0 + sgn * k * wdt
            pts.append(t)
            with mp.workdps(25):
                if psi(t) < p0 - drop or k * wdt > 3000:
                    break
            k *= 2
    pts.sort()
    return pts, psi(t0)


class Uni:
    def __init__(self, p, a, b, mu, gamma, sigma):
        self.p, self.a, self.b = p, a, b
        self.mu, self.gamma, self.sigma = (mp.mpf(mu), mp.mpf(gamma),
                                           mp.mpf(sigma))
        self.g = self.gamma / self.sigma
        self.c = log_gig_norm(p, a, b)

    def lz(self, z):
        """log density of Z = (X - mu) / sigma at z (closed form)."""
        return log_gh(1, self.p, self.a, self.b, z * z, z * self.g,
                      self.g ** 2, mp.mpf(0))

    def lx(self, x):
        z = (mp.mpf(x) - self.mu) / self.sigma
        return self.lz(z) - mp.log(self.sigma)

    def typical_y(self):
        """The mode of the density of log Y."""
        p, a, b = self.p, self.a, self.b
        w = math.hypot(p, math.sqrt(a * b))
        return (w + p) / a if p >= 0 else b / (w - p)

    def log_tail(self, z, lower):
        """log P(Z <= z) (lower) or log P(Z > z) as the mixture integral
        E[Phi(+-(z - g Y) / sqrt(Y))] over u = log Y: no Bessel function,
        and each tail directly (no 1 - F)."""
        p, a, b, g, c = (mp.mpf(self.p), mp.mpf(self.a), mp.mpf(self.b),
                         self.g, self.c)
        sgn = 1 if lower else -1

        def psi(u):
            y = mp.exp(u)
            arg = sgn * (z - g * y) / mp.sqrt(y)
            return (mp.log(mp.ncdf(arg)) + c + p * u - (a * y + b / y) / 2)

        pts, p0 = peak_and_panels(psi)
        if z * g > 0:
            # Phi steps from ~1 to ~0 where y = z / g, over du ~ 1/sqrt(g z)
            us = mp.log(z / g)
            wu = min(mp.mpf(1), 1 / mp.sqrt(z * g))
            pts = sorted(set(pts) | {us + k * wu for k in
                                     (-64, -16, -4, -1, 0, 1, 4, 16, 64)})
        val = mp.quad(lambda u: mp.exp(psi(u) - p0), pts, maxdegree=10)
        return p0 + mp.log(val)


def uni_rows(label, p, a, b, mu, gamma, sigma, unit):
    u = Uni(p, a, b, mu, gamma, sigma)
    m = u.typical_y()
    # points about the centre of the mixture, rounded to 3 digits
    centre = float("%.3g" % (mu + gamma * m))
    xs = sorted(set(float(centre + sigma * unit * k) for k in UNITS))
    rows = []
    for x in xs:
        z = (mp.mpf(x) - u.mu) / u.sigma
        kk = round((x - centre) / (sigma * unit), 6)
        kk = min(UNITS, key=lambda v: abs(v - kk))
        # the smaller tail directly; the other as log1p(-it) where it is
        # near 1, else directly too (both checked against each other)
        llo = u.log_tail(z, True)
        lup = u.log_tail(z, False) if llo > -40 else mp.log1p(-mp.exp(llo))
        if lup <= -40:
            llo = mp.log1p(-mp.exp(lup))
        elif llo > -40:
            tot = mp.log(mp.exp(llo) + mp.exp(lup))
            if abs(tot) > mp.mpf("1e-25"):
                raise RuntimeError("%s x=%r: tails sum to 1 %+.3g"
                                   % (label, x, float(tot)))
            if llo > -1:
                llo = mp.log1p(-mp.exp(lup))
            if lup > -1:
                lup = mp.log1p(-mp.exp(llo))
        rows.append(dict(kind="uni", label=label, d=1, p=p, a=a, b=b,
                         mu=[mu], gamma=[gamma], sigma=[sigma], x=[x],
                         logpdf=to_double(u.lx(x)), log_lower=to_double(llo),
                         log_upper=to_double(lup), zz=z, u=u, unit_k=kk))
    return rows


# ---------------------------------------------------------------------------
# Multivariate

def mv_forms(mu, gamma, sigma, x):
    S = mp.matrix(sigma)
    d = len(mu)
    r = mp.matrix([mp.mpf(x[i]) - mp.mpf(mu[i]) for i in range(d)])
    g = mp.matrix([mp.mpf(v) for v in gamma])
    si_r = mp.lu_solve(S, r)
    si_g = mp.lu_solve(S, g)
    Q = sum(r[i] * si_r[i] for i in range(d))
    B = sum(g[i] * si_r[i] for i in range(d))
    gSg = sum(g[i] * si_g[i] for i in range(d))
    logdet = mp.log(mp.det(S))
    return Q, B, gSg, logdet


def mv_rows(label, p, a, b, mu, gamma, sigma, xs):
    rows = []
    d = len(mu)
    for x in xs:
        with mp.extradps(30):
            Q, B, gSg, logdet = mv_forms(mu, gamma, sigma, x)
            lf = log_gh(d, p, a, b, Q, B, gSg, logdet)
        rows.append(dict(kind="mv", label=label, d=d, p=p, a=a, b=b, mu=mu,
                         gamma=gamma, sigma=[v for col in zip(*sigma)
                                             for v in col],
                         x=x, logpdf=to_double(lf), log_lower=None,
                         log_upper=None, forms=(Q, B, gSg, logdet)))
    return rows


def check_mixture(row, max_err):
    """The closed form against the mixture integral, for one row."""
    d, p, a, b = row["d"], row["p"], row["a"], row["b"]
    if row["kind"] == "uni":
        u = row["u"]
        z = row["zz"]
        Q, B, gSg, logdet = z * z, z * u.g, u.g ** 2, mp.mpf(0)
        shift = -mp.log(u.sigma)
    else:
        Q, B, gSg, logdet = row["forms"]
        shift = 0
    closed = log_gh(d, p, a, b, Q, B, gSg, logdet)
    if mp.isinf(closed):
        return max_err
    mix = log_gh_mixture(d, p, a, b, Q, B, gSg, logdet)
    err = abs(closed - mix) / max(1, abs(closed))
    if err > mp.mpf("1e-25"):
        raise RuntimeError("%s x=%s: closed form %s, mixture %s" % (
            row["label"], row["x"], mp.nstr(closed + shift, 30),
            mp.nstr(mix + shift, 30)))
    return max(max_err, float(err))


def pick_for_check(row):
    """Rows whose density is also computed as the mixture integral: every
    row with |x - centre| <= 1e3 units in four sets, the rows 1 and 1e3 units
    out in the others, all multivariate rows."""
    if row["kind"] == "mv":
        return True
    k = abs(row["unit_k"])
    return (row["label"] in ("nig", "vg_sing", "skewt", "b_tiny")
            and k <= 1e3) or k in (1.0, 1e3)


def run_task(task):
    """One parameter set: its rows, with the mixture checks of its rows."""
    kind, s = task
    mp.mp.dps = DPS
    t1 = time.time()
    rows = uni_rows(*s) if kind == "uni" else mv_rows(*s)
    err, nchk = 0.0, 0
    for row in rows:
        if pick_for_check(row):
            err = check_mixture(row, err)
            nchk += 1
    for row in rows:  # what the CSV needs (picklable)
        for k in ("u", "zz", "forms"):
            row.pop(k, None)
    print("%-12s %3d rows, %2d mixture checks (max rel diff %.1e)  %6.1f s"
          % (s[0], len(rows), nchk, err, time.time() - t1), file=sys.stderr,
          flush=True)
    return rows, nchk, err


def main():
    args = [v for v in sys.argv[1:] if not v.startswith("--jobs")]
    jobs = [int(v.split("=")[1]) for v in sys.argv[1:]
            if v.startswith("--jobs=")]
    jobs = jobs[0] if jobs else 2
    out = args[0] if args else "tests/testthat/fixtures/gh_dist_ref.csv"
    mp.mp.dps = DPS
    t0 = time.time()
    tasks = [("uni", s) for s in SETS] + [("mv", s) for s in MV_SETS]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(run_task, tasks, chunksize=1)
    else:
        results = [run_task(t) for t in tasks]
    rows = [r for res in results for r in res[0]]
    nchk = sum(res[1] for res in results)
    err = max(res[2] for res in results)
    print("closed form vs mixture integral: %d rows, max rel diff %.2g"
          % (nchk, err), file=sys.stderr)
    cols = ["kind", "label", "d", "p", "a", "b", "mu", "gamma", "sigma", "x",
            "p_hex", "a_hex", "b_hex", "mu_hex", "gamma_hex", "sigma_hex",
            "x_hex", "logpdf", "log_lower", "log_upper"]
    with open(out, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            vals = [r["kind"], r["label"], str(r["d"]), fmt(r["p"]),
                    fmt(r["a"]), fmt(r["b"]),
                    ";".join(fmt(v) for v in r["mu"]),
                    ";".join(fmt(v) for v in r["gamma"]),
                    ";".join(fmt(v) for v in r["sigma"]),
                    ";".join(fmt(v) for v in r["x"]),
                    hexf(r["p"]), hexf(r["a"]), hexf(r["b"]),
                    ";".join(hexf(v) for v in r["mu"]),
                    ";".join(hexf(v) for v in r["gamma"]),
                    ";".join(hexf(v) for v in r["sigma"]),
                    ";".join(hexf(v) for v in r["x"]),
                    fmt(r["logpdf"]), fmt(r["log_lower"]),
                    fmt(r["log_upper"])]
            f.write(",".join(vals) + "\n")
    print("wrote %d rows to %s in %.0f s" % (len(rows), out,
                                              time.time() - t0),
          file=sys.stderr)


if __name__ == "__main__":
    main()
