#!/usr/bin/env python3
"""Reference ES of skew-t laws next to their infinite limits (issue 31).

Writes tests/testthat/fixtures/heavy_risk_ref.csv: for univariate skew-t
laws X = mu + Y gamma + sqrt(Y) sigma N, Y ~ inverse gamma (shape k = -p,
scale b / 2; ghmix's GIG(p, 0, b)), whose tail mean is finite but whose
power tail is slow (1 < nu < 1.1 symmetric, 2 < nu < 2.2 on the heavy
side), the lower-tail quantile q (P(X <= q) = alpha) and ES = E[X | X <= q].

Method (mpmath at 40 digits, independent of ghmix's C code): given Y = y,
X is normal, so P(X <= x) = E[Phi(z)] and E[(q - X)^+] = E[sigma sqrt(Y)
psi(z)], psi(z) = phi(z) + z Phi(z), z = (x - mu - y gamma) / (sigma
sqrt(y)); both expectations by mpmath.quad over t = log y in panels out to
t = 40000 (beyond it the integrand, ~ exp(-(k - 1) t) or exp(-(k - 1/2) t),
is below 1e-40 of the total for these laws); q by Newton's method on
P(X <= x) - alpha to 1e-30.  The symmetric laws are checked against the
closed-form Student-t ES (McNeil, Frey and Embrechts 2005, example 2.19).
Parameters are written as C99 hexadecimal floats.

Usage: python3 tools/make_heavy_risk_fixtures.py [output.csv]  (about 1 min)
"""

import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_risk_fixtures import write_rows  # noqa: E402

mp.mp.dps = 40

# (label, p, b, mu, gamma, sigma)
SETS = [
    ("t_1.01", -0.505, 1.01, 0.0, 0.0, 1.0),
    ("t_1.05", -0.525, 1.05, 0.5, 0.0, 2.0),
    ("skewt_heavy_2.02", -1.01, 2.02, 0.0, -0.5, 1.0),
    ("skewt_heavy_2.1", -1.05, 3.0, 0.1, -0.3, 0.5),
]
LEVELS = [0.05, 0.001]
PANELS = [-200, -50, -20, -5, 0, 5, 20, 50, 100, 200, 500, 1000, 2000,
          5000, 10000, 20000, 40000]


def log_dens_y(t, k, beta):
    """log of the density of T = log Y (inverse gamma Y) at t."""
    return k * mp.log(beta) - mp.loggamma(k) - k * t - beta * mp.exp(-t)


def expect(fun, k, beta):
    """E[fun(y)] over Y by quadrature in t = log y."""
    return mp.quad(lambda t: fun(mp.exp(t)) * mp.exp(log_dens_y(t, k, beta)),
                   PANELS)


def cdf(x, k, beta, mu, gamma, sigma):
    def f(y):
        z = (x - mu - y * gamma) / (sigma * mp.sqrt(y))
        return mp.ncdf(z)
    return expect(f, k, beta)


def shortfall(x, k, beta, mu, gamma, sigma):
    def f(y):
        s = sigma * mp.sqrt(y)
        z = (x - mu - y * gamma) / s
        return s * (mp.npdf(z) + z * mp.ncdf(z))
    return expect(f, k, beta)


def quantile(alpha, k, beta, mu, gamma, sigma):
    """Newton's method from the Student-t quantile, with the density from
    the same mixture (d/dx Phi(z) = phi(z) / (sigma sqrt(y)))."""
    nu = 2 * k
    x = mu + sigma * mp.sqrt(2 * beta / nu) * mp.mpf(
        -abs(float(mp.tan(mp.pi * (alpha - 0.5)))))

    def dens(x):
        def f(y):
            s = sigma * mp.sqrt(y)
            return mp.npdf((x - mu - y * gamma) / s) / s
        return expect(f, k, beta)

    for _ in range(200):
        step = (cdf(x, k, beta, mu, gamma, sigma) - alpha) / dens(x)
        x -= step
        if abs(step) < mp.mpf(10) ** -30 * (1 + abs(x)):
            return x
    raise RuntimeError("no convergence")


def t_es(nu, alpha):
    """Closed-form ES of the standard Student t (lower tail)."""
    q = mp.mpf(-1) * abs(student_quantile(nu, alpha))
    dens = mp.gamma((nu + 1) / 2) / (mp.sqrt(nu * mp.pi) * mp.gamma(nu / 2)) \
        * (1 + q * q / nu) ** (-(nu + 1) / 2)
    return -(nu + q * q) / (nu - 1) * dens / alpha


def student_quantile(nu, alpha):
    """The alpha-quantile of Student's t by Newton's method on its CDF
    (the regularised incomplete beta function)."""
    def cdf_t(x):
        w = nu / (nu + x * x)
        tail = mp.betainc(nu / 2, mp.mpf(1) / 2, 0, w, regularized=True) / 2
        return tail if x < 0 else 1 - tail

    def pdf_t(x):
        return mp.gamma((nu + 1) / 2) / (mp.sqrt(nu * mp.pi) *
                                         mp.gamma(nu / 2)) * \
            (1 + x * x / nu) ** (-(nu + 1) / 2)
    x = mp.tan(mp.pi * (alpha - mp.mpf(1) / 2))
    for _ in range(200):
        step = (cdf_t(x) - alpha) / pdf_t(x)
        x -= step
        if abs(step) < mp.mpf(10) ** -30 * (1 + abs(x)):
            return x
    raise RuntimeError("no convergence")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/heavy_risk_ref.csv"
    rows = []
    for label, p, b, mu, gamma, sigma in SETS:
        k = -mp.mpf(p)
        beta = mp.mpf(b) / 2
        pm = [mp.mpf(v) for v in (mu, gamma, sigma)]
        for alpha in LEVELS:
            a = mp.mpf(alpha)
            q = quantile(a, k, beta, *pm)
            es = q - shortfall(q, k, beta, *pm) / a
            if gamma == 0 and b == -2 * p:
                # Student's t(nu) scaled by sigma, shifted by mu
                ref = pm[0] + pm[2] * t_es(2 * k, a)
                assert abs(es / ref - 1) < mp.mpf(10) ** -25, (label, es, ref)
            rows.append((label, p, 0.0, b, mu, gamma, sigma, alpha, q, es))
            print(label, alpha, mp.nstr(q, 20), mp.nstr(es, 20),
                  file=sys.stderr)
    write_rows(out, rows)


if __name__ == "__main__":
    main()
