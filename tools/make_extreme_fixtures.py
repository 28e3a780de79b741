#!/usr/bin/env python3
"""Reference values at the extremes (issue 17), for test-extremes.R.

Writes tests/testthat/fixtures/extreme_ref.csv, one reference value per row:

  item  the number of the issue-17 item the row belongs to (2 to 8);
  label the parameter set;
  what  the quantity:
          logpdf      log f(x) of the GH law (d = 1 or d > 1);
          logtail     log P(X <= x) (lower = 1) or log P(X > x) (lower = 0);
          quantile    the x with P(X <= x) = prob (lower = 1) or P(X > x) =
                      prob (lower = 0), prob in column x (as a log when
                      log_p = 1);
          post_einv, post_ey, post_elogy
                      the posterior moments E[1/Y | x], E[Y | x],
                      E[log Y | x];
          gig_var     Var Y, Y ~ GIG(p, a, b);
          gig_elogy   E log Y, Y ~ GIG(p, a, b);
          dlogk_dnu   d/dnu log K_nu(x), nu in column p;
          qgig        the GIG quantile at prob = x (lower, log_p as above);
  d, p, a, b, mu, gamma, sigma, x, lower, log_p: the inputs (mu, gamma, x
        lists separated by ';' when d > 1; sigma the scale for d = 1 and
        Sigma column-major for d > 1), each also as a C99 hexadecimal float
        (columns *_hex) so that R reads the exact doubles;
  value the reference, the double nearest to the mpmath result (%.17g;
        Inf where it overflows, -0 for a log tail that rounds to 0).

Conventions as in ghmix (DESIGN.md section 2): Y ~ GIG(p, a, b) with density
(a/b)^(p/2) / (2 K_p(sqrt(ab))) y^(p-1) exp(-(a y + b/y)/2) (b = 0: gamma,
a = 0: inverse gamma), X = mu + Y gamma + sqrt(Y) sigma N.

Method (mpmath, independent of ghmix's C code; the closed-form GH density
log_gh() and the GIG normaliser log_gig_norm() are those of
make_gh_fixtures.py, which checks them against the mixture integral):

  - Working precision: 40 significant digits plus log10 of the largest
    magnitude that cancels (|x| up to 1e300, sqrt(ab) up to 1e100, gamma up
    to 1e300: up to ~340 digits); every difference of large terms is taken
    at that precision and only then rounded.
  - Far tails (items 2, 3, 5): the tail beyond x as the integral of the
    closed-form density outward from x, by mpmath.quad (tanh-sinh) at 30
    digits of a log integrand that is evaluated, relative to log f(x), at the
    high precision: exponential tails in u = kappa |t - x| (kappa = |d/dx log
    f| at x, panels at 1/2, 1, 2, 4, ... up to 2^7), power tails in
    v = log(t / x) (panels likewise in units of 1/s, s the local power).
    Checked (asserted): the tail agrees with its asymptotic form
    f(x) / kappa (exponential) or f(x) |x| / s (power) to the order the
    remainder allows (1/(kappa x)^2, 1/x).  The complementary tail is
    log1p(-tail), computed exactly.
  - Far quantiles (item 3): Newton's method on log tail(x) - log prob with
    the derivative -+ f(x) / tail(x), each step a new quadrature, to
    |dx| < 1e-25 |x|, from the root of log f(x) - log kappa(x) = log prob.
  - Near-normal and Student-like laws (item 4): the distribution function
    as the normal mixture E[Phi((x - mu - gamma Y) / (sigma sqrt(Y)))] over
    the GIG, by mpmath.quad in t = (log Y - u0) / s (u0 the peak of the
    density of log Y, s its width), with the log density of log Y relative
    to its peak written with expm1 (no cancellation at any sqrt(ab)), and
    divided by the same quadrature of the GIG density alone (so no Bessel
    function enters).  The density the same way, asserted equal to the
    closed form to 1e-25; for the Student-like law (a = 0, p = -nu/2, b =
    nu, gamma = 0) the closed form is also checked against the Student t
    density lgamma((nu+1)/2) - lgamma(nu/2) - log(nu pi)/2 - (nu+1)/2
    log1p(x^2/nu) (and for d = 3 against the multivariate t).  The two
    tails asserted to sum to 1 within 1e-28; the quantiles by Newton on the
    mixture distribution function with the mixture density, to 1e-28.
  - Large gamma (item 5): the closed form at 40 + log10(gamma) digits; the
    lower tail at x = 1 (far below the mode ~ gamma) as a far tail above,
    checked against f / kappa to the O(10 / gamma) that form neglects.
  - gig_var (item 6): (b/a) (K_{p+2} K_p - K_{p+1}^2) / K_p^2 with
    mpmath.besselk at 60 digits, and again at 90 (asserted to agree to
    1e-30); in the gamma and inverse-gamma corners also checked against
    p / (a/2)^2 and (b/2)^2 / ((-p-1)^2 (-p-2)) where the neglected terms
    (relative (ab)^min(|p|, 1)) are below 1e-40.
  - d/dnu log K_nu(x) (item 7): the ratio of integrals
      int_0^inf t sinh(nu t) e^{-x cosh t} dt / int_0^inf cosh(nu t)
      e^{-x cosh t} dt
    by mpmath.quad on panels from 0 to where x cosh t exceeds x + 400, the
    numerator as nu times the integral of t^2 sinh(nu t) / (nu t) ..., so
    that it is relative to nu (quad's error control is absolute).  Checked
    (asserted): against mpmath.diff of log besselk at nu = 1e-4 and 1e-8
    (1e-20 relative) and, for |nu| <= 1e-12, against the series
    nu int t^2 e^{-x cosh t} dt / K_0(x) (the next term is O(nu^3)).
    E log Y = log(b/a) / 2 + d/dp log K_p(sqrt(ab)).
  - Posterior moments far out (item 8): Y | x ~ GIG(q, A, b + Q), q = p -
    d/2, A = a + gamma' Sigma^-1 gamma: E[Y|x] = sqrt((b + Q)/A) K_{q+1}/K_q,
    E[1/Y|x] = sqrt(A/(b + Q)) K_{q-1}/K_q (mpmath.besselk), E[log Y|x] =
    log((b + Q)/A)/2 + d/dq log K_q(w), the derivative by mpmath.diff of the
    log of Hankel's series (DLMF 10.40.2; O(1) and smooth in q, so the
    derivative ~ q/w is relative; w >= 1e9 here), whose value is checked
    against besselk to 1e-30.
  - qgig (item 8): Newton on the log tail in log y, the tail by the far-tail
    quadrature of the GIG density (in v = log(y / y0), outward), normalised
    by log_gig_norm.  In the gamma and inverse-gamma limits checked
    (asserted, 1e-25) against mpmath.gammainc.

Usage: python3 tools/make_extreme_fixtures.py [output.csv]
(one process, about 3 minutes of CPU: 7 minutes of wall time on a busy
2-core machine; deterministic: a rerun reproduces the file byte for byte)
"""

import math
import os
import sys
import time

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gh_fixtures import (fmt, hexf, log_gh, log_gig_norm,  # noqa: E402
                              mv_forms)

LOW = 30  # digits of every quadrature and of the results

# item 2: univariate sets (label, p, a, b, mu, gamma, sigma)
TAIL_SETS = [
    ("nig", -0.5, 1.0, 1.0, 0.0, 0.5, 1.0),
    ("gh", 1.5, 2.0, 1.0, -0.5, 0.3, 0.7),
    ("vg", 2.0, 2.0, 0.0, 0.0, 0.5, 1.0),
    ("skewt", -2.0, 0.0, 4.0, 0.0, 1.0, 1.0),
    ("t3", -1.5, 0.0, 3.0, 2.0, 0.0, 0.5),
]
FAR_X = [1e101, 1e200, 1e300]

# item 3
Q_SETS = [TAIL_SETS[0], TAIL_SETS[2]]
Q_LOGP = [-1e5, -3e21, -1e22, -1e25, -1e30, -1e100, -1e300]

# item 4
NEAR_W = [1e8, 1e12, 1e15, 1e16, 1e20, 1e100]
NEAR_NU = [1e6, 1e9, 1e12]
NEAR_X = [1.0, -2.0]
NEAR_PROB = [0.84, 0.05]
MV3 = dict(mu=[0.0, 1.0, -1.0], gamma=[0.1, 0.0, -0.3],
           sigma=[[2.0, 0.5, 0.1], [0.5, 1.0, -0.2], [0.1, -0.2, 0.5]],
           x=[[0.0, 1.0, -1.0], [1.0, 0.0, 0.0], [-2.0, 3.0, 1.0]])

# item 5
BIG_GAMMA = [1e6, 1e8, 1e10, 1e20, 1e50, 1e100, 1e155, 1e200, 1e300]

# item 6: (p, a, b) as listed in the issue, then the grid
VAR_POINTS = [(1.0, 1.0, 1e-308), (3.0, 2.0, 1e-310), (-3.0, 1e-308, 2.0)]
VAR_P = [-3.0, -1.5, -0.5, 0.5, 1.0, 3.0]
VAR_TINY = [1e-300, 1e-308, 1e-310, 5e-324]

# item 7
DNU_NU = [1e-300, 1e-100, 1e-20, 1e-16, 1e-12, 1e-8, 1e-4]
DNU_X = [1e-10, 1e-5, 1e-3, 0.1, 1.0, 2.0, 3.0, 5.0, 10.0, 29.0, 31.0,
         100.0, 1e4]
ELOGY = [(1e-100, 1.0, 1.0), (1e-20, 1.0, 1.0), (-1e-100, 2.0, 0.5),
         (1e-300, 1e-3, 1e3), (1e-12, 4.0, 4.0)]

# item 8: the fitted-like laws and their far points
FIT1 = ("fit1", -0.5, 1.5, 1.5, [0.1], [0.3], [[4.0]])
FIT1_X = [1e10, 1e150, 1e154, 1e160, 1e200, 1e300, -1e154, -1e300]
FIT2 = ("fit2", -0.5, 1.5, 1.5, [0.1, -0.2], [0.3, -0.1],
        [[2.0, 0.5], [0.5, 1.0]])
FIT2_X = [[1e10, -1e10], [1e154, 1e154], [3e155, -1e155], [1e200, -3e199],
          [1e300, 1e300], [-1e300, 5e299]]
QGIG_SETS = [("qgig_w1e-6", 0.01, 1e-6, 1e-6), ("qgig_nig", -0.5, 1.0, 1.0),
             ("qgig_p2", 2.0, 1e-3, 1.0), ("qgig_pm3", -3.0, 1.0, 1e-3),
             ("qgig_w100", 0.5, 100.0, 100.0), ("qgig_gamma", 1.5, 1.0, 0.0),
             ("qgig_invgamma", -2.0, 0.0, 1.0)]
QGIG_PROB = [1e-300, 1e-100, 1e-20]


def to_double(x):
    """mpf -> nearest double (mpmath's float() truncates); +-Inf beyond."""
    if mp.isinf(x):
        return float(x)
    if x == 0:
        return 0.0
    if abs(x) > mp.mpf("1.7976931348623158e308"):
        return math.copysign(math.inf, float(mp.sign(x)))
    if abs(x) < mp.mpf("2.4703282292062328e-324"):
        return math.copysign(0.0, float(mp.sign(x)))
    return float(mp.nstr(x, 30))


def digits(*vals):
    """Working digits: LOW plus log10 of the largest magnitude."""
    big = max([1.0] + [abs(float(v)) for v in vals if v is not None])
    return LOW + 10 + int(math.log10(big))


# ---------------------------------------------------------------------------
# Tail integrals

def tail_quad(phi, scale):
    """log of int_0^inf exp(phi(v)) dv, phi(0) = 0 and phi decreasing at a
    rate ~ 1/scale: mpmath.quad at LOW digits on panels at
    scale * (0, 1/2, 1, 2, ..., 2^7) (the rest is below exp(-128))."""
    with mp.workdps(LOW):
        pts = [mp.mpf(0)] + [scale * mp.mpf(2) ** k for k in range(-1, 8)]

        def integrand(v):
            e = phi(v)
            with mp.workdps(LOW):
                return mp.exp(+e)

        val = mp.quad(integrand, pts, maxdegree=10)
        return mp.log(val)


def far_tail(L, x, outward, dps):
    """log of the integral of exp(L) from x outward (outward = +1: to +Inf,
    -1: to -Inf), L decreasing outward.  Returns (log tail, kind, check):
    check = log tail minus its asymptotic form."""
    with mp.workdps(dps):
        x = mp.mpf(x)
        L0 = L(x)
        slope = mp.diff(L, x)  # d/dx L at x
        kappa = -outward * slope
        if kappa <= 0:
            raise RuntimeError("density not decreasing outward at %s" % x)
        power = kappa * abs(x)  # the local power s + 1 of a power tail
    if power < 1e4:
        s = power - 1
        if s <= 0:
            raise RuntimeError("not an integrable power tail at %s" % x)

        def phi(v):
            with mp.workdps(dps):
                t = x * mp.exp(v)
                return L(t) - L0 + v

        with mp.workdps(dps):
            lt = L0 + tail_quad(phi, 1 / mp.mpf(s)) + mp.log(abs(x))
            check = lt - (L0 + mp.log(abs(x)) - mp.log(s))
        return lt, "power", check

    def phi(u):
        with mp.workdps(dps):
            return L(x + outward * u / kappa) - L0

    with mp.workdps(dps):
        lt = L0 + tail_quad(phi, mp.mpf(1)) - mp.log(kappa)
        check = lt - (L0 - mp.log(kappa))
    return lt, "exp", check


def log1m_exp(lt):
    """log(1 - exp(lt)), lt < 0, exact (lt may be -1e300)."""
    with mp.workdps(LOW + 10):
        if lt < -1:
            e = mp.exp(lt)
            return mp.log1p(-e)
        return mp.log(-mp.expm1(lt))


# ---------------------------------------------------------------------------
# Univariate law

class Law:
    def __init__(self, label, p, a, b, mu, gamma, sigma):
        self.label, self.p, self.a, self.b = label, p, a, b
        self.mu, self.gamma, self.sigma = mu, gamma, sigma

    def L(self, x):
        """log f(x) at the current precision."""
        mu, sg = mp.mpf(self.mu), mp.mpf(self.sigma)
        z = (x - mu) / sg
        g = mp.mpf(self.gamma) / sg
        return log_gh(1, self.p, self.a, self.b, z * z, z * g, g * g,
                      mp.mpf(0)) - mp.log(sg)

    def row(self, item, what, x, value, lower=None, log_p=None):
        return dict(item=item, label=self.label, what=what, d=1, p=self.p,
                    a=self.a, b=self.b, mu=[self.mu], gamma=[self.gamma],
                    sigma=[self.sigma], x=[x], lower=lower, log_p=log_p,
                    value=value)


def far_rows(item, law, x, check_tol="1e-25"):
    """logpdf and both log tails at a far point x (the outer tail by
    quadrature, the inner one from it)."""
    dps = digits(10 * x / law.sigma)
    with mp.workdps(dps):
        lf = law.L(mp.mpf(x))
    outward = 1 if x > 0 else -1
    lt, kind, check = far_tail(law.L, x, outward, dps)
    if abs(check) > mp.mpf(check_tol) * max(1, abs(lt)):
        raise RuntimeError("%s x=%g: %s tail off its asymptotic form by %s"
                           % (law.label, x, kind, mp.nstr(check, 3)))
    inner = log1m_exp(lt)
    lo, up = (inner, lt) if x > 0 else (lt, inner)
    return [law.row(item, "logpdf", x, to_double(lf)),
            law.row(item, "logtail", x, to_double(lo), lower=1),
            law.row(item, "logtail", x, to_double(up), lower=0)], kind


def solve_far_quantile(law, lp, lower):
    """x with log P(X <= x) = lp (lower) or log P(X > x) = lp, far out."""
    outward = -1 if lower else 1
    dps = digits(lp)
    with mp.workdps(dps):
        lp = mp.mpf(lp)
        # start: L(x) - log kappa = lp on the exponential tail, by Newton on
        # L alone from a point 1 out
        x = mp.mpf(law.mu) + outward * mp.mpf(abs(float(lp)))
        for _ in range(200):
            d1 = mp.diff(law.L, x)
            kappa = abs(d1)
            r = law.L(x) - mp.log(kappa) - lp
            dx = -r / d1
            x += dx
            if abs(dx) < mp.mpf(10) ** (-LOW) * abs(x):
                break
        for _ in range(30):
            lt, _, _ = far_tail(law.L, x, outward, dps)
            lf = law.L(x)
            # d/dx log tail = +f/tail (lower) or -f/tail (upper)
            deriv = -outward * mp.exp(lf - lt)
            dx = -(lt - lp) / deriv
            x += dx
            if abs(dx) < mp.mpf("1e-25") * abs(x):
                return x
    raise RuntimeError("%s lp=%s: quantile did not converge"
                       % (law.label, mp.nstr(lp, 5)))


# ---------------------------------------------------------------------------
# Normal mixtures by quadrature over the GIG (near-normal, Student-like)

class Mixing:
    """The density of u = log Y about its peak u0 with width s: log g(u0 +
    s t) - log g(u0) without cancellation."""

    def __init__(self, p, a, b, dps):
        self.dps = dps
        with mp.workdps(dps):
            p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
            self.p, self.a, self.b = p, a, b
            # peak: p = (a e^u - b e^-u) / 2
            if b == 0:
                u0 = mp.log(2 * p / a)
            elif a == 0:
                u0 = -mp.log(-2 * p / b)
            else:
                w = mp.sqrt(a * b)
                u0 = mp.log(mp.sqrt(b / a)) + mp.asinh(p / w)
            self.u0 = u0
            self.ca = a * mp.exp(u0) / 2
            self.cb = b * mp.exp(-u0) / 2
            self.s = 1 / mp.sqrt(self.ca + self.cb)
            self.lin = p - self.ca + self.cb  # 0 up to rounding
        self.den = None
        self.memo = {}

    def h(self, t):
        # no cancellation here (self.lin is 0 to the high precision)
        with mp.workdps(LOW + 5):
            st = self.s * t
            return (-self.ca * em1x(st) - self.cb * em1x(-st)
                    + self.lin * st)


def em1x(z):
    """expm1(z) - z without cancellation."""
    if abs(z) > mp.mpf("0.1"):
        return mp.expm1(z) - z
    term, tot, k = z * z / 2, mp.mpf(0), 2
    while True:
        tot += term
        k += 1
        term = term * z / k
        if abs(term) < mp.eps * abs(tot):
            return tot


# h(t) = -t^2/2 (1 + O(s t)) with s <= 2e-3 here: exp(h) < 1e-40 beyond 14
T_PANELS = [-14, -7, -3.5, -1.5, 0, 1.5, 3.5, 7, 14]


def mixture_integral(mix, fun):
    """int exp(h(t)) fun(y) dt / int exp(h(t)) dt, y = exp(u0 + s t)."""
    def weight(t):
        # the quadrature nodes are the same in every call: memoised
        key = (t, mp.mp.prec)
        if key not in mix.memo:
            mix.memo[key] = (mp.exp(mix.h(t)), mp.exp(mix.u0 + mix.s * t))
        return mix.memo[key]

    with mp.workdps(LOW + 5):
        if mix.den is None:
            mix.den = mp.quad(lambda t: weight(t)[0], T_PANELS)
        den = mix.den

        def num_f(t):
            wt, y = weight(t)
            return wt * fun(y)

        num = mp.quad(num_f, T_PANELS)
        return num / den


class NearLaw(Law):
    def __init__(self, label, p, a, b, mu, gamma, sigma):
        Law.__init__(self, label, p, a, b, mu, gamma, sigma)
        self.dps = digits(a, b, 1e10)
        self.mix = Mixing(p, a, b, self.dps)

    def z(self, x, y):
        mu, g, sg = mp.mpf(self.mu), mp.mpf(self.gamma), mp.mpf(self.sigma)
        return (x - mu - g * y) / (sg * mp.sqrt(y))

    def pdf_mix(self, x):
        sg = mp.mpf(self.sigma)
        return mixture_integral(self.mix, lambda y: mp.npdf(self.z(x, y)) /
                                (sg * mp.sqrt(y)))

    def cdf_mix(self, x, lower):
        sgn = 1 if lower else -1
        return mixture_integral(self.mix,
                                lambda y: mp.ncdf(sgn * self.z(x, y)))

    def quantile(self, prob, lower):
        with mp.workdps(LOW + 5):
            prob = mp.mpf(prob)
            # start from the normal with the mixture's mean and variance
            ey = mixture_integral(self.mix, lambda y: y)
            vy = mixture_integral(self.mix, lambda y: (y - ey) ** 2)
            m = self.mu + self.gamma * ey
            v = self.sigma ** 2 * ey + self.gamma ** 2 * vy
            zq = -mp.sqrt(2) * mp.erfinv(1 - 2 * prob)
            x = m + (zq if lower else -zq) * mp.sqrt(v)
            for _ in range(40):
                r = self.cdf_mix(x, lower) - prob
                f = self.pdf_mix(x)
                dx = r / f if lower else -r / f
                x -= dx
                if abs(dx) < mp.mpf("1e-28") * max(1, abs(x)):
                    return x
        raise RuntimeError("%s: quantile did not converge" % self.label)


def student_logpdf(nu, x):
    nu, x = mp.mpf(nu), mp.mpf(x)
    return (mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2)
            - mp.log(nu * mp.pi) / 2 - (nu + 1) / 2 * mp.log1p(x * x / nu))


def near_rows(law, nu=None):
    rows = []
    for x in NEAR_X:
        with mp.workdps(law.dps):
            closed = law.L(mp.mpf(x))
            mix = mp.log(law.pdf_mix(mp.mpf(x)))
            if abs(closed - mix) > mp.mpf("1e-25"):
                raise RuntimeError("%s x=%g: closed %s mixture %s" % (
                    law.label, x, mp.nstr(closed, 30), mp.nstr(mix, 30)))
            if nu is not None:
                st = student_logpdf(nu, (x - law.mu) / law.sigma) - \
                    mp.log(law.sigma)
                if abs(closed - st) > mp.mpf("1e-25"):
                    raise RuntimeError("%s: closed form vs Student t %s" % (
                        law.label, mp.nstr(closed - st, 3)))
        rows.append(law.row(4, "logpdf", x, to_double(closed)))
        lo = mp.log(law.cdf_mix(mp.mpf(x), True))
        up = mp.log(law.cdf_mix(mp.mpf(x), False))
        if abs(mp.exp(lo) + mp.exp(up) - 1) > mp.mpf("1e-28"):
            raise RuntimeError("%s x=%g: tails do not sum to 1" % (law.label,
                                                                    x))
        rows.append(law.row(4, "logtail", x, to_double(lo), lower=1))
        rows.append(law.row(4, "logtail", x, to_double(up), lower=0))
    for prob in NEAR_PROB:
        for lower in (1, 0):
            q = law.quantile(prob, lower)
            rows.append(law.row(4, "quantile", prob, to_double(q),
                                lower=lower, log_p=0))
    return rows


def mv_row(item, label, p, a, b, mu, gamma, sigma, x, what, value):
    return dict(item=item, label=label, what=what, d=len(mu), p=p, a=a, b=b,
                mu=mu, gamma=gamma,
                sigma=[v for col in zip(*sigma) for v in col], x=x,
                lower=None, log_p=None, value=value)


def mv_logpdf(p, a, b, mu, gamma, sigma, x, dps):
    with mp.workdps(dps):
        Q, B, gSg, logdet = mv_forms(mu, gamma, sigma, x)
        return log_gh(len(mu), p, a, b, Q, B, gSg, logdet), (Q, B, gSg,
                                                             logdet)


def mv_near_rows():
    rows = []
    s = MV3
    for w in [1e8, 1e16, 1e100]:
        for x in s["x"]:
            lf, _ = mv_logpdf(-0.5, w, w, s["mu"], s["gamma"], s["sigma"], x,
                              digits(w))
            rows.append(mv_row(4, "mv3_w%g" % w, -0.5, w, w, s["mu"],
                               s["gamma"], s["sigma"], x, "logpdf",
                               to_double(lf)))
    zero = [0.0, 0.0, 0.0]
    for nu in NEAR_NU:
        for x in s["x"]:
            dps = digits(nu)
            lf, forms = mv_logpdf(-nu / 2, 0.0, nu, s["mu"], zero, s["sigma"],
                                  x, dps)
            with mp.workdps(dps):
                # the multivariate t density
                Q, _, _, logdet = forms
                nn, d = mp.mpf(nu), 3
                mt = (mp.loggamma((nn + d) / 2) - mp.loggamma(nn / 2)
                      - d * mp.log(nn * mp.pi) / 2 - logdet / 2
                      - (nn + d) / 2 * mp.log1p(Q / nn))
                if abs(mt - lf) > mp.mpf("1e-25"):
                    raise RuntimeError("mv t nu=%g: %s" % (nu, mt - lf))
            rows.append(mv_row(4, "mv3_t%g" % nu, -nu / 2, 0.0, nu, s["mu"],
                               zero, s["sigma"], x, "logpdf", to_double(lf)))
    return rows


# ---------------------------------------------------------------------------
# gig_var, d/dnu log K, E log Y

def gig_var(p, a, b, dps):
    with mp.workdps(dps):
        p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
        if b == 0:
            return p / (a / 2) ** 2
        if a == 0:
            k = -p
            return (b / 2) ** 2 / ((k - 1) ** 2 * (k - 2)) if k > 2 else mp.inf
        w = mp.sqrt(a * b)
        k0, k1, k2 = (mp.besselk(p, w), mp.besselk(p + 1, w),
                      mp.besselk(p + 2, w))
        return (b / a) * (k2 * k0 - k1 * k1) / (k0 * k0)


def var_limit(p, a, b):
    """The gamma / inverse-gamma variance where the neglected terms are
    below 1e-40 relative, else None."""
    w = math.sqrt(a) * math.sqrt(b)
    if w == 0 or math.log10(w) * 2 * min(abs(p), 1) > -40:
        return None
    if a > b and p > 0:
        return mp.mpf(p) / (mp.mpf(a) / 2) ** 2
    if b > a and p < -2:
        k = -mp.mpf(p)
        return (mp.mpf(b) / 2) ** 2 / ((k - 1) ** 2 * (k - 2))
    return None


def var_rows():
    rows = []
    pts = list(VAR_POINTS)
    for p in VAR_P:
        for t in VAR_TINY:
            pts.append((p, t, 2.0))
            pts.append((p, 1.0, t))
    for p, a, b in pts:
        v1 = gig_var(p, a, b, 60)
        v2 = gig_var(p, a, b, 90)
        if abs(v1 - v2) > mp.mpf("1e-30") * abs(v2):
            raise RuntimeError("gig_var(%g, %g, %g): %s vs %s" % (p, a, b, v1,
                                                                 v2))
        lim = var_limit(p, a, b)
        if lim is not None and abs(lim - v2) > mp.mpf("1e-35") * abs(v2):
            raise RuntimeError("gig_var(%g, %g, %g) vs its limit" % (p, a, b))
        rows.append(dict(item=6, label="gig_var", what="gig_var", d=1, p=p,
                         a=a, b=b, mu=[], gamma=[], sigma=[], x=[],
                         lower=None, log_p=None, value=to_double(v2)))
    return rows


def kernel_panels(x):
    """Panels in t for exp(-x cosh t) on [0, inf): half its width apart
    (width min(1, 1/sqrt(x))) out to where x (cosh t - 1) exceeds 400."""
    x = mp.mpf(x)
    t_end = mp.acosh(1 + 400 / x)
    step = min(mp.mpf(1), 1 / mp.sqrt(x)) / 2
    n = int(mp.ceil(t_end / step))
    return [t_end * k / n for k in range(n + 1)]


def dlogk_dnu(nu, x, dps=LOW + 20):
    """d/dnu log K_nu(x) as the ratio of the two integrals."""
    with mp.workdps(dps):
        nu, x = mp.mpf(nu), mp.mpf(x)
        pts = kernel_panels(x)

        def kern(t):
            # relative to the value at t = 0
            return mp.exp(-x * (mp.cosh(t) - 1))

        def sinhc(z):
            return mp.sinh(z) / z if z != 0 else mp.mpf(1)

        # quad's error control is absolute: integrate t sinh(nu t) / nu,
        # which is O(1), and multiply by nu after
        num = mp.quad(lambda t: t * t * sinhc(nu * t) * kern(t), pts)
        den = mp.quad(lambda t: mp.cosh(nu * t) * kern(t), pts)
        return nu * num / den, pts


def dnu_rows():
    rows = []
    for nu in DNU_NU:
        for x in DNU_X:
            val, pts = dlogk_dnu(nu, x)
            with mp.workdps(LOW + 20):
                if nu >= 1e-8:
                    ref = mp.diff(lambda v: mp.log(mp.besselk(v, x)),
                                  mp.mpf(nu))
                    if abs(ref - val) > mp.mpf("1e-20") * abs(val):
                        raise RuntimeError("dnu(%g, %g) vs diff" % (nu, x))
                if nu <= 1e-12:
                    xx = mp.mpf(x)
                    m2 = mp.quad(lambda t: t * t * mp.exp(-xx * (mp.cosh(t)
                                                                  - 1)), pts)
                    k0 = mp.besselk(0, xx) * mp.exp(xx)
                    ser = nu * m2 / k0
                    if abs(ser - val) > mp.mpf(10) ** -15 * abs(val):
                        raise RuntimeError("dnu(%g, %g) vs series" % (nu, x))
            for sgn in (1, -1):
                rows.append(dict(item=7, label="dnu", what="dlogk_dnu", d=1,
                                 p=sgn * nu, a=None, b=None, mu=[], gamma=[],
                                 sigma=[], x=[x], lower=None, log_p=None,
                                 value=to_double(sgn * val)))
    for p, a, b in ELOGY:
        with mp.workdps(LOW + 20):
            w = mp.sqrt(mp.mpf(a)) * mp.sqrt(mp.mpf(b))
            d, _ = dlogk_dnu(abs(p), w)
            d = d if p > 0 else -d
            val = mp.log(mp.mpf(b) / mp.mpf(a)) / 2 + d
        rows.append(dict(item=7, label="gig_elogy", what="gig_elogy", d=1,
                         p=p, a=a, b=b, mu=[], gamma=[], sigma=[], x=[],
                         lower=None, log_p=None, value=to_double(val)))
    return rows


# ---------------------------------------------------------------------------
# Posterior moments far out (item 8)

def hankel_logk_w(q, w):
    """log K_q(w) + w - log sqrt(pi / (2 w)) by Hankel's series (DLMF
    10.40.2), summed to below 10^-(dps + 5); w large."""
    q, w = mp.mpf(q), mp.mpf(w)
    mu4 = 4 * q * q
    t, s, k = mp.mpf(1), mp.mpf(1), 0
    tol = mp.mpf(10) ** (-(mp.mp.dps + 5))
    while True:
        k += 1
        t *= (mu4 - (2 * k - 1) ** 2) / (8 * k * w)
        s += t
        if abs(t) < tol * abs(s):
            return mp.log(s)
        if k > 10000:
            raise RuntimeError("Hankel series: no convergence")


def post_moments(q, A, bq, dps):
    with mp.workdps(dps):
        w = mp.sqrt(A * bq)
        kq = mp.besselk(q, w)
        ey = mp.sqrt(bq / A) * mp.besselk(q + 1, w) / kq
        einv = mp.sqrt(A / bq) * mp.besselk(q - 1, w) / kq
        hk = hankel_logk_w(q, w)
        direct = mp.log(kq) + w - mp.log(mp.sqrt(mp.pi / (2 * w)))
        if abs(hk - direct) > mp.mpf("1e-30"):
            raise RuntimeError("Hankel vs besselk at w = %s" % mp.nstr(w, 5))
        with mp.workdps(LOW + 20):
            dq = mp.diff(lambda v: hankel_logk_w(v, w), mp.mpf(q))
        elogy = mp.log(bq / A) / 2 + dq
        return einv, ey, elogy


def fit_rows():
    rows = []
    label, p, a, b, mu, gamma, sigma = FIT1
    sc = math.sqrt(sigma[0][0])
    law = Law(label, p, a, b, mu[0], gamma[0], sc)
    for x in FIT1_X:
        dps = digits(10 * x / sc)
        with mp.workdps(dps):
            z = (mp.mpf(x) - mp.mpf(mu[0])) / sc
            g = mp.mpf(gamma[0]) / sc
            lf = law.L(mp.mpf(x))
            mom = post_moments(mp.mpf(p) - mp.mpf(0.5), a + g * g, b + z * z,
                               dps)
        rows.append(law.row(8, "logpdf", x, to_double(lf)))
        for what, v in zip(("post_einv", "post_ey", "post_elogy"), mom):
            rows.append(law.row(8, what, x, to_double(v)))
    label, p, a, b, mu, gamma, sigma = FIT2
    for x in FIT2_X:
        dps = digits(10 * max(abs(v) for v in x))
        lf, (Q, B, gSg, logdet) = mv_logpdf(p, a, b, mu, gamma, sigma, x, dps)
        mom = post_moments(mp.mpf(p) - 1, a + gSg, b + Q, dps)
        rows.append(mv_row(8, label, p, a, b, mu, gamma, sigma, x, "logpdf",
                           to_double(lf)))
        for what, v in zip(("post_einv", "post_ey", "post_elogy"), mom):
            rows.append(mv_row(8, label, p, a, b, mu, gamma, sigma, x, what,
                               to_double(v)))
    return rows


# ---------------------------------------------------------------------------
# qgig far in the tails (item 8)

def gig_log_density(p, a, b):
    c = log_gig_norm(p, a, b)
    p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
    return lambda y: c + (p - 1) * mp.log(y) - (a * y + b / y) / 2


def gig_tail_rate(lg, y, lower):
    """The rate at which the log of the tail integrand, in v = log(t / y)
    outward, falls at v = 0 (<= 0: y is not in that tail)."""
    sgn = -1 if lower else 1

    def phi(v):
        return lg(y * mp.exp(sgn * v)) + sgn * v

    return -mp.diff(phi, mp.mpf(0))


def gig_log_tail(lg, y, lower):
    """log P(Y <= y) (lower) or log P(Y > y), far in that tail: the integral
    in v = log(t / y) outward."""
    sgn = -1 if lower else 1
    with mp.workdps(LOW + 20):
        y = mp.mpf(y)
        l0 = lg(y)

        def phi(v):
            with mp.workdps(LOW + 20):
                return lg(y * mp.exp(sgn * v)) + sgn * v - l0

        rate = gig_tail_rate(lg, y, lower)
        if rate <= 0:
            raise RuntimeError("GIG tail not decreasing outward")
        return tail_quad(phi, 1 / rate) + l0 + mp.log(y)


def qgig_solve(p, a, b, prob, lower):
    with mp.workdps(LOW + 20):
        lg = gig_log_density(p, a, b)
        lp = mp.log(mp.mpf(prob))

        # bisection in u = log y on the far-tail estimate log(y f(y) / rate)
        # (a point outside the tail counts as too large a tail), then
        # Newton on the quadrature
        def rough(u):
            y = mp.exp(u)
            rate = gig_tail_rate(lg, y, lower)
            if rate <= 0:
                return mp.inf
            return lg(y) + u - mp.log(rate) - lp

        lo, hi = mp.mpf(-740), mp.mpf(740)
        while hi - lo > mp.mpf("1e-6"):
            mid = (lo + hi) / 2
            if (rough(mid) > 0) == lower:
                hi = mid
            else:
                lo = mid
        u = (lo + hi) / 2
        for _ in range(30):
            y = mp.exp(u)
            lt = gig_log_tail(lg, y, lower)
            # d log tail / d log y = +- y f(y) / tail
            deriv = (1 if lower else -1) * mp.exp(lg(y) + u - lt)
            du = -(lt - lp) / deriv
            u += du
            if abs(du) < mp.mpf("1e-28"):
                return mp.exp(u)
    raise RuntimeError("qgig(%g, %g, %g, %g) did not converge" % (prob, p, a,
                                                                  b))


def check_gamma_quantile(p, a, b, prob, lower, y):
    """In the gamma and inverse-gamma limits: the tail at y by the
    regularised incomplete gamma function, asserted to equal prob."""
    if a != 0 and b != 0:
        return
    with mp.workdps(LOW + 20):
        if b == 0:  # Y ~ gamma(p, rate a/2)
            lo, up = (mp.gammainc(p, 0, y * a / 2, regularized=True),
                      mp.gammainc(p, y * a / 2, mp.inf, regularized=True))
        else:  # 1/Y ~ gamma(-p, rate b/2)
            up, lo = (mp.gammainc(-p, 0, b / (2 * y), regularized=True),
                      mp.gammainc(-p, b / (2 * y), mp.inf, regularized=True))
        tail = lo if lower else up
        if abs(tail / mp.mpf(prob) - 1) > mp.mpf("1e-25"):
            raise RuntimeError("qgig(%g, %g, %g, %g) vs gammainc" % (
                prob, p, a, b))


def qgig_rows():
    rows = []
    for label, p, a, b in QGIG_SETS:
        for prob in QGIG_PROB:
            for lower in (1, 0):
                y = qgig_solve(p, a, b, prob, lower == 1)
                check_gamma_quantile(p, a, b, prob, lower == 1, y)
                rows.append(dict(item=8, label=label, what="qgig", d=1, p=p,
                                 a=a, b=b, mu=[], gamma=[], sigma=[],
                                 x=[prob], lower=lower, log_p=0,
                                 value=to_double(y)))
    return rows


# ---------------------------------------------------------------------------

def tail_item_rows():
    rows = []
    for s in TAIL_SETS:
        law = Law(*s)
        for x in FAR_X:
            for sgn in (-1, 1):
                r, kind = far_rows(2, law, sgn * x)
                rows += r
    return rows


def quantile_rows():
    rows = []
    for s in Q_SETS:
        law = Law(*s)
        for lp in Q_LOGP:
            for lower in (1, 0):
                x = solve_far_quantile(law, lp, lower == 1)
                rows.append(law.row(3, "quantile", lp, to_double(x),
                                    lower=lower, log_p=1))
    return rows


def near_item_rows():
    rows = []
    for w in NEAR_W:
        rows += near_rows(NearLaw("nig_w%g" % w, -0.5, w, w, 0.0, 0.0, 1.0))
        rows += near_rows(NearLaw("gh_w%g" % w, 1.5, w, w, 0.2, 0.5, 1.3))
    for nu in NEAR_NU:
        rows += near_rows(NearLaw("t_nu%g" % nu, -nu / 2, 0.0, nu, 0.0, 0.0,
                                  1.0), nu=nu)
    return rows + mv_near_rows()


def gamma_item_rows():
    rows = []
    for g in BIG_GAMMA:
        law = Law("nig_g%g" % g, -0.5, 1.0, 1.0, 0.0, g, 1.0)
        dps = digits(g)
        with mp.workdps(dps):
            lf = law.L(mp.mpf(1))
        rows.append(law.row(5, "logpdf", 1.0, to_double(lf)))
        # the density rises from -Inf up to the mode near g: x = 1 is far in
        # the lower tail
        lt, kind, check = far_tail(law.L, 1.0, -1, dps)
        # the asymptotic form f / kappa is off by O(1 / (kappa^2 |L''|^-1))
        if abs(check) > mp.mpf(10) / g:
            raise RuntimeError("gamma %g: tail %s" % (g, mp.nstr(check, 3)))
        rows.append(law.row(5, "logtail", 1.0, to_double(lt), lower=1))
        rows.append(law.row(5, "logtail", 1.0, to_double(log1m_exp(lt)),
                            lower=0))
    return rows


def write_csv(rows, out):
    cols = ["item", "label", "what", "d", "p", "a", "b", "mu", "gamma",
            "sigma", "x", "lower", "log_p", "p_hex", "a_hex", "b_hex",
            "mu_hex", "gamma_hex", "sigma_hex", "x_hex", "value"]

    def num(v):
        return "NA" if v is None else fmt(float(v))

    def hx(v):
        return "NA" if v is None else hexf(v)

    def lst(vs, f):
        return ";".join(f(v) for v in vs) if vs else "NA"

    with open(out, "w") as fh:
        fh.write(",".join(cols) + "\n")
        for r in rows:
            vals = [str(r["item"]), r["label"], r["what"], str(r["d"]),
                    num(r["p"]), num(r["a"]), num(r["b"]),
                    lst(r["mu"], num), lst(r["gamma"], num),
                    lst(r["sigma"], num), lst(r["x"], num),
                    "NA" if r["lower"] is None else str(r["lower"]),
                    "NA" if r["log_p"] is None else str(r["log_p"]),
                    hx(r["p"]), hx(r["a"]), hx(r["b"]), lst(r["mu"], hexf),
                    lst(r["gamma"], hexf), lst(r["sigma"], hexf),
                    lst(r["x"], hexf), num(r["value"])]
            fh.write(",".join(vals) + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/extreme_ref.csv"
    mp.mp.dps = LOW
    t0 = time.time()
    rows = []
    for name, fun in [("item 2 far tails", tail_item_rows),
                      ("item 3 far quantiles", quantile_rows),
                      ("item 4 near-normal", near_item_rows),
                      ("item 5 large gamma", gamma_item_rows),
                      ("item 6 gig_var", var_rows),
                      ("item 7 d/dnu log K", dnu_rows),
                      ("item 8 far moments", fit_rows),
                      ("item 8 qgig", qgig_rows)]:
        t1 = time.time()
        r = fun()
        rows += r
        print("%-22s %4d rows %7.1f s" % (name, len(r), time.time() - t1),
              file=sys.stderr, flush=True)
    write_csv(rows, out)
    print("wrote %d rows to %s in %.0f s" % (len(rows), out,
                                              time.time() - t0),
          file=sys.stderr)


if __name__ == "__main__":
    main()
