#!/usr/bin/env python3
"""Fit normix's NIG and GH models to a CSV file; called by bench/fit.R.

    python bench/fit_normix.py DATA.csv OUT.csv [--fits NIG,GH,NIGuv]
                               [--col DAX] [--reps 1]

DATA.csv: a header line, then one row per observation (numbers only).
Each fit is normix's default use, ``m = Cls.default_init(X); m.fit(X)``.
The first run includes JAX's compilation; with --reps > 0, that many more
runs follow and their median is reported as well. OUT.csv gets one row per
fit: fit, n, d, loglik (total), iterations, converged, first_s, median_s.
normix needs Python >= 3.12 and jax (pip install normix "jax[cpu]").
"""

import argparse
import csv
import os
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import normix  # noqa: E402


def read_data(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header = [h.strip().strip('"') for h in rows[0]]
    data = [[float(v) for v in r] for r in rows[1:] if r]
    return header, data


def one_fit(cls, x):
    t0 = time.perf_counter()
    model = cls.default_init(x)
    res = model.fit(x)
    jax.block_until_ready(res.model)
    return res, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--fits", default="NIG,GH,NIGuv")
    ap.add_argument("--col", default="0")
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()

    header, data = read_data(a.data)
    col = int(a.col) if a.col.isdigit() else header.index(a.col)
    x_all = jnp.asarray(data, dtype=jnp.float64)
    models = {
        "NIG": (normix.NormalInverseGaussian, x_all, "NormalInverseGaussian"),
        "GH": (normix.GeneralizedHyperbolic, x_all, "GeneralizedHyperbolic"),
        "NIGuv": (normix.UnivariateNormalInverseGaussian,
                  x_all[:, col:col + 1],
                  "UnivariateNormalInverseGaussian " + header[col]),
        "GHuv": (normix.UnivariateGeneralizedHyperbolic,
                 x_all[:, col:col + 1],
                 "UnivariateGeneralizedHyperbolic " + header[col]),
    }
    out = []
    for key in a.fits.split(","):
        cls, x, label = models[key]
        res, first = one_fit(cls, x)
        times = [one_fit(cls, x)[1] for _ in range(a.reps)]
        n, d = x.shape
        loglik = float(res.model.marginal_log_likelihood(x)) * n
        out.append({
            "fit": label, "n": n, "d": d, "loglik": "%.6f" % loglik,
            "iterations": int(res.n_iter),
            "converged": bool(res.converged),
            "first_s": "%.3f" % first,
            "median_s": "%.3f" % statistics.median(times) if times else "",
        })
        print("normix %s: %s" % (label, out[-1]), file=sys.stderr, flush=True)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    print("normix %s, jax %s, python %s"
          % (normix.__version__, jax.__version__, sys.version.split()[0]))


if __name__ == "__main__":
    main()
