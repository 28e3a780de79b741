#!/usr/bin/env python3
"""Reference log densities of multivariate rows far out on the heavy side
(issue 17), for test-heavy-rows.R.

Writes tests/testthat/fixtures/heavy_row_ref.csv, one row per point:

  label   the parameter set (family and d);
  D       the distance of the row in units of gamma (x - mu ~ D gamma);
  kind    along: x = mu + D gamma; offset: x = mu + D gamma + sqrt(D) v;
          tilted: x = mu + D (gamma + v / 100), v a fixed vector not
          parallel to gamma;
  d and, as C99 hexadecimal floats so that R reads the exact doubles,
  p_hex, a_hex, b_hex, mu_hex, gamma_hex, sigma_hex (Sigma column-major),
  x_hex (lists separated by ';');
  loadings_hex, uniq_hex: for the factor sets, F (d x r, column-major) and
          D of Sigma = F F' + diag(D) (formed exactly in mpmath; the test
          passes factor_cov(F, D) to dgh()), else NA;
  value   log f(x), the double nearest to the mpmath result (%.17g);
  sens    max |log f(x') - log f(x)| over the 2^d points x' whose
          coordinates are x_j +- 4 ulp(x_j): what a move of x by a few
          rounding errors changes (rows along gamma far out are
          ill-conditioned: the part of x - mu orthogonal to gamma enters
          log f as about -|g| |z_perp|^2 / (2 |z|), and a rounding of x
          moves z_perp by eps |z|).

Method: the quadratic forms Q = (x - mu)' Sigma^-1 (x - mu), B = (x - mu)'
Sigma^-1 gamma, gamma' Sigma^-1 gamma and log det Sigma of the double x are
solved exactly in mpmath (mv_forms of make_gh_fixtures.py, LU at the
working precision), and log f is the closed form log_gh() of
make_gh_fixtures.py (DLMF 10.32.10), at 60 digits plus twice log10 of the
largest coordinate: every term of B + log K_q(omega), which cancel to the
result, is carried with all its digits.  Nothing here uses ghmix's code or
its cancellation-free forms.

    python3 tools/make_heavy_row_fixtures.py    # a few seconds
"""
import itertools
import math
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_gh_fixtures import fmt, hexf, log_gh, mv_forms, to_double  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                   "testthat", "fixtures", "heavy_row_ref.csv")

S2 = [[1.0, 0.3], [0.3, 2.0]]
S3 = [[1.0, 0.3, -0.2], [0.3, 2.0, 0.5], [-0.2, 0.5, 1.5]]
MU2, G2, V2 = [0.1, -0.2], [1.0, 0.5], [1.0, -2.0]
MU3, G3, V3 = [0.1, -0.2, 0.3], [1.0, 0.5, -0.25], [1.0, -2.0, 0.5]

# label, p, a, b, mu, gamma, sigma, v: small a against G, as fits to data
# with one far row give (the exponent B - omega then cancels most)
SETS = [
    ("nig2", -0.5, 1e-6, 2.0, MU2, G2, S2, V2),
    ("gh2", 1.3, 1e-4, 0.5, MU2, G2, S2, V2),
    ("vg2", 1.5, 1e-5, 0.0, MU2, G2, S2, V2),
    ("skewt2", -2.0, 0.0, 4.0, MU2, G2, S2, V2),
    ("nig2_scaled", -0.5, 20.0, 20.0, MU2, G2, S2, V2),
    ("gh2_order", 70.0, 1e-3, 1.0, MU2, G2, S2, V2),
    ("nig3", -0.5, 1e-6, 2.0, MU3, G3, S3, V3),
    ("gh3", 1.3, 1e-4, 0.5, MU3, G3, S3, V3),
    ("vg3", 2.5, 1e-5, 0.0, MU3, G3, S3, V3),
    ("skewt3", -2.0, 0.0, 4.0, MU3, G3, S3, V3),
]
# label, p, a, b, mu, gamma, F, D, v: Sigma = F F' + diag(D)
FACTOR_SETS = [
    ("nig3_factor", -0.5, 1e-6, 2.0, MU3, G3, [[1.0], [0.5], [-0.25]],
     [0.5, 1.0, 0.75], V3),
]
DS = [1e3, 1e8, 1e13, 1e50, 1e150]
EXTRA_DS = {"nig2": [1e160], "skewt2": [1e160]}  # Q overflows


def points(mu, gamma, v, D):
    d = len(mu)
    along = [mu[j] + D * gamma[j] for j in range(d)]
    offset = [mu[j] + D * gamma[j] + D ** 0.5 * v[j] for j in range(d)]
    tilted = [mu[j] + D * (gamma[j] + v[j] / 100) for j in range(d)]
    return [("along", along), ("offset", offset), ("tilted", tilted)]


def hexes(xs):
    return ";".join(hexf(x) for x in xs)


def factor_sigma(f, uniq):
    d, r = len(f), len(f[0])
    return [[sum(mp.mpf(f[i][k]) * mp.mpf(f[j][k]) for k in range(r)) +
             (mp.mpf(uniq[i]) if i == j else 0) for j in range(d)]
            for i in range(d)]


def logpdf(p, a, b, mu, gamma, sigma, x):
    Q, B, gSg, logdet = mv_forms(mu, gamma, sigma, x)
    return log_gh(len(mu), p, a, b, Q, B, gSg, logdet)


def moved(x):
    for signs in itertools.product([-4, 4], repeat=len(x)):
        yield [t + s * math.ulp(t) for t, s in zip(x, signs)]


def set_rows(label, p, a, b, mu, gamma, sigma, v, factor):
    rows = []
    for D in DS + EXTRA_DS.get(label, []):
        for kind, x in points(mu, gamma, v, D):
            dps = 60 + 2 * int(mp.log10(max(abs(t) for t in x)))
            with mp.workdps(dps):
                S = factor_sigma(*factor) if factor else sigma
                lf = logpdf(p, a, b, mu, gamma, S, x)
                sens = max(abs(logpdf(p, a, b, mu, gamma, S, xp) - lf)
                           for xp in moved(x))
            fcols = ([hexes([t for col in zip(*factor[0]) for t in col]),
                      hexes(factor[1])] if factor else ["NA", "NA"])
            scol = hexes([t for col in zip(*sigma) for t in col]) \
                if sigma else "NA"
            rows.append([label, "%.0e" % D, kind, str(len(mu)), hexf(p),
                         hexf(a), hexf(b), hexes(mu), hexes(gamma), scol,
                         hexes(x)] + fcols +
                        [fmt(to_double(lf)), "%.3g" % to_double(sens)])
    return rows


def main():
    rows = []
    for label, p, a, b, mu, gamma, sigma, v in SETS:
        rows += set_rows(label, p, a, b, mu, gamma, sigma, v, None)
    for label, p, a, b, mu, gamma, f, uniq, v in FACTOR_SETS:
        rows += set_rows(label, p, a, b, mu, gamma, None, v, (f, uniq))
    with open(OUT, "w") as f:
        f.write("label,D,kind,d,p_hex,a_hex,b_hex,mu_hex,gamma_hex,sigma_hex,x_hex,"
                "loadings_hex,uniq_hex,value,sens\n")
        for r in rows:
            f.write(",".join(r) + "\n")
    print("%d rows to %s" % (len(rows), OUT))


if __name__ == "__main__":
    main()
