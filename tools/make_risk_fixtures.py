#!/usr/bin/env python3
"""Reference values for value_at_risk() and expected_shortfall() (d = 1).

Writes tests/testthat/fixtures/risk_ref.csv: for a few univariate GH laws
X = mu + Y gamma + sqrt(Y) sigma N, Y ~ GIG(p, a, b) (ghmix's conventions,
DESIGN.md section 2; sigma the scale) and lower-tail levels alpha, the
quantile q with P(X <= q) = alpha and ES = E[X | X <= q].

Method (mpmath at 30 digits, independent of ghmix's C code and of the
normal-mixture integral ghmix uses): the closed-form density
(Barndorff-Nielsen 1977; McNeil, Frey and Embrechts 2005, section 3.2) with
mpmath.besselk; P(X <= x) and the partial moment integral of x f(x) by
mpmath.quad over (-inf, x] in panels; q by Newton's method on
P(X <= x) - alpha to 1e-25 from the normal quantile of the law's mean and
standard deviation.  The parameters are written as
C99 hexadecimal floats so that R reads the exact doubles.

Usage: python3 tools/make_risk_fixtures.py [output.csv]   (about 5 minutes)
"""

import sys

import mpmath as mp

mp.mp.dps = 30

# (label, p, a, b, mu, gamma, sigma)
SETS = [
    ("nig", -0.5, 1.0, 1.0, 0.1, 0.5, 2.0),
    ("gh_neg", 1.7, 2.0, 0.4, -1.0, -0.3, 0.7),
    ("skewt_heavy_left", -3.0, 0.0, 6.0, 0.5, -0.4, 1.0),
    ("vg", 1.5, 3.0, 0.0, 0.0, 0.2, 1.0),
]
LEVELS = [1e-4, 0.05]


def log_gig_const(p, a, b):
    """log of the GIG normalising constant, with its limits."""
    if b == 0:  # gamma(shape p, rate a/2)
        return p * mp.log(a / 2) - mp.loggamma(p)
    if a == 0:  # inverse gamma(shape -p, scale b/2)
        return -p * mp.log(b / 2) - mp.loggamma(-p)
    w = mp.sqrt(a * b)
    return (p / 2) * mp.log(a / b) - mp.log(2 * mp.besselk(p, w))


def density(x, p, a, b, mu, gamma, sigma):
    """The univariate GH density (d = 1, Sigma = sigma^2)."""
    s2 = sigma * sigma
    q = p - mp.mpf(1) / 2
    z = x - mu
    big_a = a + gamma * gamma / s2
    big_q = z * z / s2
    big_b = z * gamma / s2
    lc = log_gig_const(p, a, b)
    if b == 0:
        # gamma mixing: the limit of the closed form
        arg = mp.sqrt(big_a * big_q)
        lf = (lc - mp.log(2 * mp.pi) / 2 - mp.log(sigma) + big_b
              + (q / 2) * mp.log(big_q / big_a) + mp.log(2)
              + mp.log(mp.besselk(q, arg)))
        return mp.exp(lf)
    arg = mp.sqrt(big_a * (b + big_q))
    lf = (lc - mp.log(2 * mp.pi) / 2 - mp.log(sigma) + big_b
          + (q / 2) * mp.log((b + big_q) / big_a) + mp.log(2)
          + mp.log(mp.besselk(q, arg)))
    return mp.exp(lf)


def panels(x, mu, scale):
    """Break points of (-inf, x]: x - k scale, and mu (the VG's kink)."""
    pts = [x - k * scale for k in (64, 16, 4, 1)] + [x]
    if mu < x:
        pts.append(mu)
    pts = sorted(set(pts))
    return [mp.ninf] + pts


def integral(fun, x, mu, scale):
    pts = panels(x, mu, scale)
    return mp.quad(fun, pts)


def moments(p, a, b, mu, gamma, sigma):
    """Mean and standard deviation of X from the GIG moments."""
    def ey(r):
        if b == 0:
            return mp.gamma(p + r) / mp.gamma(p) * (2 / a) ** r
        if a == 0:
            return mp.gamma(-p - r) / mp.gamma(-p) * (b / 2) ** r
        w = mp.sqrt(a * b)
        return (b / a) ** (r / 2) * mp.besselk(p + r, w) / mp.besselk(p, w)
    m1, m2 = ey(1), ey(2)
    return mu + gamma * m1, mp.sqrt(m1 * sigma ** 2 + gamma ** 2 * (m2 - m1 ** 2))


def one_set(label, p, a, b, mu, gamma, sigma):
    pm = [mp.mpf(v) for v in (p, a, b, mu, gamma, sigma)]

    def f(t):
        return density(t, *pm)

    mean, sd = moments(*pm)
    rows = []
    for alpha in LEVELS:
        # Newton's method on F(x) - alpha from the normal quantile, with
        # F(x) = F(x0) + the integral from x0 to x (one half-line quad)
        x0 = mean + sd * mp.sqrt(2) * mp.erfinv(2 * mp.mpf(alpha) - 1)
        f0 = integral(f, x0, pm[3], pm[5])
        m0 = integral(lambda t: t * f(t), x0, pm[3], pm[5])
        x = x0
        for _ in range(100):
            gap = f0 + mp.quad(f, [x0, x]) - alpha
            step = gap / f(x)
            x -= step
            if abs(step) < mp.mpf(10) ** (-25) * (1 + abs(x)):
                break
        else:
            raise RuntimeError("no convergence for %s at %g" % (label, alpha))
        q = x
        es = (m0 + mp.quad(lambda t: t * f(t), [x0, q])) / alpha
        rows.append((label, p, a, b, mu, gamma, sigma, alpha, q, es))
        print(label, alpha, mp.nstr(q, 20), mp.nstr(es, 20), file=sys.stderr)
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/risk_ref.csv"
    rows = []
    for s in SETS:
        rows.extend(one_set(*s))
    write_rows(out, rows)


def write_rows(out, rows):
    """The fixture file: label, the seven parameters and the level as
    hexadecimal floats, then VaR and ES to 25 digits."""
    with open(out, "w") as fh:
        fh.write("label,p_hex,a_hex,b_hex,mu_hex,gamma_hex,sigma_hex,"
                 "level_hex,var,es\n")
        for r in rows:
            hexes = ",".join(float(v).hex() for v in r[1:8])
            fh.write("%s,%s,%s,%s\n" % (r[0], hexes, mp.nstr(r[8], 25),
                                        mp.nstr(r[9], 25)))


if __name__ == "__main__":
    main()
