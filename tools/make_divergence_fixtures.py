#!/usr/bin/env python3
"""Reference values for kl_divergence(), hellinger() and entropy() (d = 1).

Writes tests/testthat/fixtures/divergence_ref.csv: for a few pairs (P, Q) of
univariate GH laws (ghmix's conventions, DESIGN.md section 2; sigma the
scale), KL(P || Q) = int f_P log(f_P / f_Q), the Hellinger distance
H = sqrt(1/2 int (sqrt f_P - sqrt f_Q)^2) and the entropy -int f_P log f_P.

Method (mpmath at 25 digits, independent of ghmix's C code and of the
panels ghmix uses): the closed-form density of tools/make_risk_fixtures.py
(Barndorff-Nielsen 1977) and mpmath.quad over the real line in panels at
the laws' mean + k sd, k = 0, +-1, +-4, +-16, +-64, and their locations.
The parameters are written as C99 hexadecimal floats.

Usage: python3 tools/make_divergence_fixtures.py [output.csv]  (a few minutes)
"""

import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_risk_fixtures import density, moments  # noqa: E402

mp.mp.dps = 25

# (label, (p, a, b, mu, gamma, sigma) of P, the same of Q)
PAIRS = [
    ("nig_gh", (-0.5, 1.0, 1.0, 0.0, 0.5, 1.0), (1.0, 2.0, 0.5, 0.2, 0.0, 1.2)),
    ("gh_vg", (1.7, 2.0, 0.4, -1.0, -0.3, 0.7), (1.5, 3.0, 0.0, -0.8, 0.2, 0.8)),
    ("skewt_nig", (-3.0, 0.0, 6.0, 0.5, -0.4, 1.0),
     (-0.5, 1.0, 1.0, 0.3, -0.2, 1.1)),
]


def breaks(laws):
    pts = set()
    for pm in laws:
        mean, sd = moments(*pm)
        for k in (0, 1, 4, 16, 64):
            pts.add(mean + k * sd)
            pts.add(mean - k * sd)
        pts.add(pm[3])
    return [mp.ninf] + sorted(pts) + [mp.inf]


def one_pair(label, p_set, q_set):
    pm = [mp.mpf(v) for v in p_set]
    qm = [mp.mpf(v) for v in q_set]

    def fp(t):
        return density(t, *pm)

    def fq(t):
        return density(t, *qm)

    def kl_f(t):
        f = fp(t)
        return 0 if f == 0 else f * (mp.log(f) - mp.log(fq(t)))

    def hel_f(t):
        return (mp.sqrt(fp(t)) - mp.sqrt(fq(t))) ** 2 / 2

    def ent_f(t):
        f = fp(t)
        return 0 if f == 0 else -f * mp.log(f)

    pts_p = breaks([pm])
    kl = mp.quad(kl_f, pts_p)
    hel = mp.sqrt(mp.quad(hel_f, breaks([pm, qm])))
    ent = mp.quad(ent_f, pts_p)
    print(label, mp.nstr(kl, 20), mp.nstr(hel, 20), mp.nstr(ent, 20),
          file=sys.stderr)
    return (label,) + tuple(p_set) + tuple(q_set) + (kl, hel, ent)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        "tests/testthat/fixtures/divergence_ref.csv"
    names = ["p", "a", "b", "mu", "gamma", "sigma"]
    head = ["label"] + [v + "1_hex" for v in names] + \
        [v + "2_hex" for v in names] + ["kl", "hellinger", "entropy"]
    rows = [one_pair(*s) for s in PAIRS]
    with open(out, "w") as fh:
        fh.write(",".join(head) + "\n")
        for r in rows:
            hexes = ",".join(float(v).hex() for v in r[1:13])
            vals = ",".join(mp.nstr(v, 20) for v in r[13:16])
            fh.write("%s,%s,%s\n" % (r[0], hexes, vals))


if __name__ == "__main__":
    main()
