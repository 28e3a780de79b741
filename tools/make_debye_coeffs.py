#!/usr/bin/env python3
"""Generate src/core/bessel_debye_coef.h: the Debye polynomials u_k(p) of the
uniform asymptotic expansion of K_nu(x) (DLMF 10.41.10) and the table that
picks the number of terms.

Usage: python3 tools/make_debye_coeffs.py > src/core/bessel_debye_coef.h

u_0 = 1, u_{k+1}(p) = p^2 (1 - p^2) u_k'(p) / 2
                      + (1/8) int_0^p (1 - 5 t^2) u_k(t) dt     (DLMF 10.41.10)
in exact rational arithmetic.  u_k(p) = p^k P_k(p^2) with deg P_k = k, so with
t = p^2 and w = p / nu = 1 / hypot(nu, x) the series is
S = sum_k (-1)^k u_k(p) / nu^k = sum_k w^k (-1)^k P_k(t).

Term count: t is cut into NBIN equal bins and A^2 = nu^2 + x^2 into cells
of 2^SUB per octave, read off the bits of the double A^2.  M[b][k] bounds
|P_k(t)| over bin b (sampled, times SAFETY); a cell gets the first K for
which the next two terms M[b][k] A^-k (k = K+1, K+2) are below TOL at the
smallest A of the cell.
"""
from fractions import Fraction
import struct
import sys

import mpmath as mp

NU_MIN = 15  # smallest order the expansion is used at
TOL = 1e-16  # bound on the first neglected terms, relative to S ~ 1
NBIN = 16  # bins in t = p^2
SUB = 2  # log2 of the A^2 cells per octave
KGEN = 32  # polynomials generated, to test that the terms keep decreasing
SAMPLES = 256  # per bin, to bound |P_k| over the bin
SAFETY = 1.25  # on the sampled maxima


def debye_polynomials(kmax):
    """u_k as {power of p: Fraction}, k = 0..kmax."""
    us = [{0: Fraction(1)}]
    for _ in range(kmax):
        u = us[-1]
        nxt = {}

        def add(e, c):
            nxt[e] = nxt.get(e, 0) + c

        for e, c in u.items():
            if e > 0:
                d = c * e  # u' term: p^(e-1) * (p^2 - p^4) / 2
                add(e + 1, d / 2)
                add(e + 3, -d / 2)
            add(e + 1, c / (8 * (e + 1)))  # (1/8) int t^e
            add(e + 3, -5 * c / (8 * (e + 3)))  # -(5/8) int t^(e+2)
        us.append({e: c for e, c in nxt.items() if c != 0})
    return us


def p_coefficients(us):
    """(-1)^k P_k(t) as ascending coefficient lists."""
    out = []
    for k, u in enumerate(us):
        c = [Fraction(0)] * (k + 1)
        for e, v in u.items():
            assert e >= k and (e - k) % 2 == 0
            c[(e - k) // 2] = v * (-1) ** k
        out.append(c)
    return out


def bin_maxima(pc):
    mp.mp.dps = 40
    cm = [[mp.mpf(c.numerator) / c.denominator for c in cs] for cs in pc]
    m = []
    for b in range(NBIN):
        pts = [(mp.mpf(b) + mp.mpf(i) / SAMPLES) / NBIN
               for i in range(SAMPLES + 1)]
        row = []
        for cs in cm:
            best = 0
            for t in pts:
                r = mp.mpf(0)
                for c in reversed(cs):
                    r = r * t + c
                best = max(best, abs(r))
            row.append(float(best) * SAFETY)
        m.append(row)
    return m


def cell(a2):
    return struct.unpack("<Q", struct.pack("<d", a2))[0] >> (52 - SUB)


def cell_low(c):
    return struct.unpack("<d", struct.pack("<Q", c << (52 - SUB)))[0]


def terms_needed(mrow, a, kcap):
    for kk in range(1, kcap):
        if all(mrow[j] * a ** -j <= TOL for j in (kk + 1, kk + 2)):
            return kk
    return None


def num(c):
    return repr(c.numerator / c.denominator)


def horner(cs, var):
    cs = [num(c) for c in cs]
    expr = cs[-1]
    for c in reversed(cs[:-1]):
        expr = "%s + %s * (%s)" % (c, var, expr)
    return expr


def poly(cs):
    """C expression for sum_j cs[j] t^j: second-order Horner (even and odd
    parts in t2 = t^2), which halves the dependency chain."""
    if len(cs) <= 3:
        return horner(cs, "t")
    return "(%s) + t * (%s)" % (horner(cs[0::2], "t2"), horner(cs[1::2], "t2"))


def poly_deriv(cs):
    return [c * j for j, c in enumerate(cs)][1:] or [Fraction(0)]


def emit_sum(w, pc, kmax, order):
    """R = sum_{k=1}^{n} w^(k-1) (-1)^k P_k(t), so that S = 1 + w R; with
    order >= 1 also R_t, R_w, with order 2 also R_tt, R_tw, R_ww (in d[]).
    The terms are independent (powers of w precomputed), entered by a switch
    on n."""
    if order == 0:
        w("GHMIX_INLINE double ghmix_debye_r0(int n, double t, double w) {\n")
    else:
        w("GHMIX_INLINE void ghmix_debye_r%d(int n, double t, double w, "
          "double *d) {\n" % order)
    w("  double t2 = t * t, wp[%d];\n" % kmax)
    w("  wp[0] = 1.0;\n  wp[1] = w;\n")
    for k in range(2, kmax):
        w("  wp[%d] = wp[%d] * wp[%d];\n" % (k, k // 2, k - k // 2))
    if order == 0:
        w("  double r0 = 0.0, r1 = 0.0;\n")
    else:
        w("  double r = 0.0, rt = 0.0, rw = 0.0;\n")
    if order == 2:
        w("  double rtt = 0.0, rtw = 0.0, rww = 0.0;\n")
    w("  switch (n) {\n  default:\n")
    for k in range(kmax, 0, -1):
        w("  case %d: {\n" % k)
        w("    double p = %s;\n" % poly(pc[k]))
        if order == 0:
            w("    r%d += wp[%d] * p;\n" % (k % 2, k - 1))
        else:
            d1 = poly_deriv(pc[k])
            w("    double p1 = %s;\n" % poly(d1))
            if order == 2:
                w("    double p2 = %s;\n" % poly(poly_deriv(d1)))
            w("    r += wp[%d] * p;\n    rt += wp[%d] * p1;\n" % (k - 1, k - 1))
            if k >= 2:
                w("    rw += %d.0 * wp[%d] * p;\n" % (k - 1, k - 2))
            if order == 2:
                w("    rtt += wp[%d] * p2;\n" % (k - 1))
                if k >= 2:
                    w("    rtw += %d.0 * wp[%d] * p1;\n" % (k - 1, k - 2))
                if k >= 3:
                    w("    rww += %d.0 * wp[%d] * p;\n"
                      % ((k - 1) * (k - 2), k - 3))
        w("  }\n")
        if k > 1:
            w("    /* fall through */\n")
    w("  }\n")
    if order == 0:
        w("  return r0 + r1;\n}\n\n")
        return
    w("  d[0] = r;\n  d[1] = rt;\n  d[2] = rw;\n")
    if order == 2:
        w("  d[3] = rtt;\n  d[4] = rtw;\n  d[5] = rww;\n")
    w("}\n\n")


def emit(pc, kmax, table, base):
    w = sys.stdout.write
    w("/* Generated by: python3 tools/make_debye_coeffs.py > "
      "src/core/bessel_debye_coef.h\n")
    w(" * Do not edit.  Debye polynomials of the uniform expansion of K_nu(x),\n"
      " * DLMF 10.41.10: u_k(p) = p^k P_k(p^2), from exact rationals.\n"
      " * nterms[b * NCELL + c]: terms that keep the first neglected ones\n"
      " * below %.0e for t = p^2 in [b, b + 1) / NBIN and A^2 = nu^2 + x^2 in\n"
      " * cell c = (bits of A^2 >> SHIFT) - BASE (2^%d cells per octave,\n"
      " * clamped to [0, NCELL - 1]); nu >= %d needs at most KMAX.  */\n"
      % (TOL, SUB, NU_MIN))
    w("#ifndef GHMIX_BESSEL_DEBYE_COEF_H\n#define GHMIX_BESSEL_DEBYE_COEF_H\n\n")
    w('#include "ghmix_hd.h"\n\n/* clang-format off */\n')
    w("#define GHMIX_DEBYE_KMAX %d\n#define GHMIX_DEBYE_NBIN %d\n"
      "#define GHMIX_DEBYE_NCELL %d\n#define GHMIX_DEBYE_SHIFT %d\n"
      "#define GHMIX_DEBYE_BASE %d\n\n"
      % (kmax, NBIN, len(table), 52 - SUB, base))
    w("GHMIX_INLINE const unsigned char *ghmix_debye_nterms(void) {\n")
    w("  static const unsigned char nterms[] = {\n")
    for b in range(NBIN):
        vals = [str(row[b]) for row in table]
        w("      /* t bin %d */\n" % b)
        for i in range(0, len(vals), 20):
            w("      " + ", ".join(vals[i:i + 20]) + ",\n")
    w("  };\n  return nterms;\n}\n\n")
    for order in range(3):
        emit_sum(w, pc, kmax, order)
    w("/* clang-format on */\n\n#endif\n")


def main():
    us = debye_polynomials(KGEN)
    pc = p_coefficients(us)
    m = bin_maxima(pc)
    base = cell(float(NU_MIN) ** 2)
    table = []
    c = base
    while True:
        row = []
        for b in range(NBIN):
            # smallest A in the cell that nu >= NU_MIN can reach in bin b
            a = max(cell_low(c), NU_MIN ** 2 * NBIN / (b + 1)) ** 0.5
            kk = terms_needed(m[b], a, KGEN - 2)
            assert kk is not None, "no truncation meets TOL: bin %d" % b
            for j in range(kk + 1, kk + 5):  # terms keep decreasing
                assert m[b][j] * a ** -j <= 10 * TOL, (b, j)
            row.append(kk)
        table.append(row)
        c += 1
        if max(row) <= 2:
            break
    emit(pc, max(max(r) for r in table), table, base)
    sys.stderr.write("KMAX %d, %d cells, K at A = %d per bin: %s\n"
                     % (max(max(r) for r in table), len(table), NU_MIN,
                        table[0]))


if __name__ == "__main__":
    main()
