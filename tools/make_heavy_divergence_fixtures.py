#!/usr/bin/env python3
"""Reference divergences of heavy-tailed GH laws (issue 31, item 3).

Writes tests/testthat/fixtures/heavy_divergence_ref.csv: KL(P || Q), the
Hellinger distance H(P, Q) and the entropy of P for pairs where P is a
Student or skew-t law with few degrees of freedom (power tails that
integrate() over an infinite range calls divergent) and Q a NIG law, or a
normal (written in ghmix as a GH law with a = b = 1e300; the reference
takes the normal N(mu + gamma, sigma^2) it stands for).

Method (mpmath at 30 digits, independent of ghmix's code): the closed-form
densities of tools/make_risk_fixtures.py (Barndorff-Nielsen 1977), the
Student t's (the symmetric a = 0 laws), the normal's, and mpmath.quad over [-1, 1] in x and over each half-line beyond
in t = log|x| out to |x| = e^400 (e^200 for the skewed law, whose density
takes log10|x| more digits; the power tails beyond are below 1e-40 of the
totals for these laws), in panels.  The entropy of Student's t is
checked against its closed form ((nu + 1) / 2 (psi((nu + 1) / 2) -
psi(nu / 2)) + log(sqrt(nu) B(nu / 2, 1 / 2))).  Parameters are written as
C99 hexadecimal floats.

Usage: python3 tools/make_heavy_divergence_fixtures.py [output.csv]
(about a minute)
"""

import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_risk_fixtures import density  # noqa: E402

mp.mp.dps = 30

NORMAL = (-0.5, 1e300, 1e300, 0.0, 0.0, 1.0)
# (label, (p, a, b, mu, gamma, sigma) of P, the same of Q)
PAIRS = [
    ("t2_nig", (-1.0, 0.0, 2.0, 0.0, 0.0, 1.0),
     (-0.5, 1.0, 1.0, 0.0, 0.0, 1.0)),
    ("t1.5_nig", (-0.75, 0.0, 1.5, 0.0, 0.0, 1.0),
     (-0.5, 1.0, 1.0, 0.0, 0.0, 1.0)),
    ("skewt3_nig", (-1.5, 0.0, 3.0, 0.2, -0.3, 1.0),
     (-0.5, 1.0, 1.0, 0.0, 0.1, 1.5)),
    ("t0.5_t2", (-0.25, 0.0, 0.5, 0.0, 0.0, 1.0),
     (-1.0, 0.0, 2.0, 0.0, 0.0, 1.0)),
    ("t3_normal", (-1.5, 0.0, 3.0, 0.0, 0.0, 1.0), NORMAL),
]
T_PANELS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 400]


def student(p, b, mu, sigma):
    """The symmetric law a = 0, gamma = 0: the integral of N(x; mu, sigma^2
    y) over the inverse gamma (k = -p, b / 2), a scaled Student t."""
    k = -p
    c = mp.gamma(k + mp.mpf(1) / 2) / (mp.gamma(k) * sigma * mp.sqrt(mp.pi * b))
    return lambda x: c * (1 + ((x - mu) / sigma) ** 2 / b) ** (-(k + 0.5))


def dens(pm):
    if pm[1] == 1e300:
        mu, sigma = pm[3] + pm[4], pm[5]
        return lambda x: mp.npdf(x, mu, sigma)
    pm = [mp.mpf(v) for v in pm]
    if pm[1] == 0 and pm[4] == 0:
        return student(pm[0], pm[2], pm[3], pm[5])

    def skewed(x):
        # (the exponent gamma x / sigma^2 and the Bessel factor's cancel
        # to a power of |x|: as many more digits as |x| has)
        with mp.workdps(mp.mp.dps + 10 + int(mp.log10(1 + abs(x)))):
            return +density(mp.mpf(x), *pm)
    return skewed


def integral(fun, tmax=400):
    """The integral of fun over the real line: x in [-1, 1], log|x| out."""
    panels = [t for t in T_PANELS if t < tmax] + [tmax]
    centre = mp.quad(fun, [-1, -0.5, 0, 0.5, 1])
    right = mp.quad(lambda t: fun(mp.exp(t)) * mp.exp(t), panels)
    left = mp.quad(lambda t: fun(-mp.exp(t)) * mp.exp(t), panels)
    return centre + right + left


def xlogy(f, g):
    return 0 if f == 0 else f * (mp.log(f) - mp.log(g))


def t_entropy(nu):
    nu = mp.mpf(nu)
    return (nu + 1) / 2 * (mp.digamma((nu + 1) / 2) - mp.digamma(nu / 2)) + \
        mp.log(mp.sqrt(nu) * mp.beta(nu / 2, mp.mpf(1) / 2))


def one_pair(label, p_set, q_set):
    fp = dens(p_set)
    fq = dens(q_set)
    tmax = 200 if p_set[4] != 0 or q_set[4] != 0 else 400
    kl = integral(lambda x: xlogy(fp(x), fq(x)), tmax)
    h2 = integral(lambda x: (mp.sqrt(fp(x)) - mp.sqrt(fq(x))) ** 2 / 2, tmax)
    ent = -integral(lambda x: xlogy(fp(x), 1), tmax)
    p, a, b, mu, gamma, sigma = p_set
    if a == 0 and gamma == 0 and b == -2 * p and sigma == 1:
        ref = t_entropy(b)
        assert abs(ent - ref) < mp.mpf(10) ** -25, (label, ent, ref)
    print(label, mp.nstr(kl, 20), mp.nstr(mp.sqrt(h2), 20),
          mp.nstr(ent, 20), file=sys.stderr)
    return kl, mp.sqrt(h2), ent


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/heavy_divergence_ref.csv"
    names = ["p", "a", "b", "mu", "gamma", "sigma"]
    with open(out, "w") as fh:
        fh.write("label," + ",".join(n + "1_hex" for n in names) + "," +
                 ",".join(n + "2_hex" for n in names) +
                 ",kl,hellinger,entropy\n")
        for label, p_set, q_set in PAIRS:
            kl, hel, ent = one_pair(label, p_set, q_set)
            hexes = ",".join(float(v).hex() for v in p_set + q_set)
            fh.write("%s,%s,%s,%s,%s\n" % (label, hexes, mp.nstr(kl, 22),
                                           mp.nstr(hel, 22),
                                           mp.nstr(ent, 22)))


if __name__ == "__main__":
    main()
