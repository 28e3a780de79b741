"""High-precision reference values for log K_nu(x) and its derivatives (mpmath).

Used by make_bessel_fixtures.py (the fixture generator) and
verify_bessel_fixtures.py (independent cross-checks).  Nothing here depends on
ghmix.  The generator uses, by region of x:

  besselk_route (x < 1): mpmath.besselk (convergent power series there),
      mpmath.diff for the nu-derivatives, Bessel's equation for d2/dx2;
  quad_all (1 <= x < 1e20): the trapezoid rule on the integral below;
  hankel_all (x >= 1e20): Hankel's series with exact derivatives.

quad_all: the integral representation over the whole line,

    2 K_nu(x) = int_{-inf}^{inf} exp(phi(t)) dt,  phi(t) = -x cosh t + nu t,

which holds for every real nu.  Write t = t0 + u with t0 = asinh(nu / x) the
peak of phi, and p(u) proportional to exp(psi(u)), psi(u) = phi(t0 + u) - phi(t0)
<= 0.  Then, exactly,

    log K      = phi(t0) + log int exp(psi) du - log 2
    d/dnu      = E[t]             = t0 + E[u]
    d2/dnu2    = Var(t)           = Var(u)
    d/dx       = -E[cosh t]       = -(cosh t0 + E[D]),   D = cosh t - cosh t0
    d2/dx2     = Var(cosh t)      = Var(D)
    d2/dnu dx  = -Cov(t, cosh t)  = -Cov(u, D)
    K_{nu+1}/K_nu = E[e^t]  = e^{t0} (1 + E[expm1(u)])
    K_{nu-1}/K_nu = E[e^-t] = e^{-t0} (1 + E[expm1(-u)])

(differentiate under the integral; the derivatives of the normalising integral
give the moments).  Every moment is taken about the peak, with psi, D, expm1
evaluated in cancellation-free forms.  The trapezoid rule on u = k h
converges exponentially (the integrand is entire and decays
double-exponentially); h is halved until two successive rules agree to 1e-28
relative for every moment (the error of the finer rule is then of order the
square of that), on a window that extends until psi plus a bound on the log
of every weight is 190 below its maximum.  Working precision: 60 digits plus
log10(sqrt(x)/|nu|) where positive.

Other sources, used as checks (verify_bessel_fixtures.py):
  * mpmath.besselk for log K, the ratios and d/dx (besselk_all); mpmath.diff
    on it for d/dnu, d2/dnu2 (besselk_diff_nu);
  * closed forms: half-integer orders (halfint_all: finite sums with positive
    terms), the small-x leading term (smallx_leading);
  * mpmath.quad (tanh-sinh) of the half-line integral (mpquad_all).
"""

from mpmath import mp, mpf


def exact_zeros(res, nu):
    """Values that are exactly 0 by symmetry, set to 0 rather than left at
    the ~1e-60 noise of a method: d/dnu and d2/dnu dx at nu = 0, and
    log(K_{nu-1}/K_nu) at nu = 1/2, log(K_{nu+1}/K_nu) at nu = -1/2
    (K_{-1/2} = K_{1/2})."""
    if nu == 0:
        res["dnu"] = mpf(0)
        res["dnudx"] = mpf(0)
    if nu == 0.5:
        res["log_ratio_down"] = mpf(0)
    if nu == -0.5:
        res["log_ratio_up"] = mpf(0)
    return res


def _sinh_minus_id(u):
    """sinh(u) - u without cancellation."""
    if abs(u) >= 1:
        return mp.sinh(u) - u
    u2 = u * u
    term = u * u2 / 6
    s = term
    k = 3
    eps = mp.eps * abs(term)
    while abs(term) > eps:
        term = term * u2 / ((k + 1) * (k + 2))
        s += term
        k += 2
    return s


class _Node:
    __slots__ = ("psi", "u", "d", "em", "emm")


def _eval_node(u, x, nu, t0, c, ct0):
    """psi(u), D(u), expm1(u), expm1(-u) for t = t0 + u (nu >= 0)."""
    n = _Node()
    n.u = u
    if abs(u) < 1:
        # psi = -nu (sinh u - u) - c (cosh u - 1),  c = x cosh t0
        # D = sinh t0 sinh u + cosh t0 (cosh u - 1)
        chm1 = 2 * mp.sinh(u / 2) ** 2
        n.psi = -nu * _sinh_minus_id(u) - c * chm1
        n.d = (nu / x) * mp.sinh(u) + ct0 * chm1
    else:
        ch = mp.cosh(t0 + u)
        n.d = ch - ct0
        n.psi = -x * n.d + nu * u
    n.em = mp.expm1(u)
    n.emm = mp.expm1(-u)
    return n


def _logweight_bound(u):
    au = abs(u)
    return 2 * au + 2 * mp.log(1 + au)


def quad_all(x, nu, dps=None, tol=mpf("1e-28"), return_info=False):
    """All quantities at (x, nu) by the trapezoid rule.  x, nu: Python floats
    (taken exactly).  Returns a dict of mpf values.  The default precision,
    60 digits plus log10(sqrt(x)/|nu|) where positive, keeps d/dnu = t0 + E[u]
    accurate relative to itself when E[u] is a tiny difference of symmetric
    sums (large x, tiny nu)."""
    import math
    if dps is None:
        extra = 0.5 * math.log10(max(1.0, x))
        if nu != 0:
            extra += max(0.0, -math.log10(abs(nu)))
        dps = 60 + int(math.ceil(extra))
    with mp.workdps(dps):
        X = mpf(x)
        NU_in = mpf(nu)
        NU = abs(NU_in)
        sgn = -1 if NU_in < 0 else 1
        t0 = mp.asinh(NU / X)
        c = mp.sqrt(X * X + NU * NU)  # x cosh t0
        ct0 = c / X  # cosh t0
        phi0 = -c + NU * t0
        sigma = 1 / mp.sqrt(c)
        T = mpf(190)

        h = min(sigma / 2, mpf("0.25"))

        # window: walk outward from the peak with step h (coarsest level)
        nodes = {0: _eval_node(mpf(0), X, NU, t0, c, ct0)}
        kmin = kmax = 0
        for direction in (1, -1):
            gmax = _logweight_bound(mpf(0))
            gprev = gmax
            k = 0
            while True:
                k += direction
                n = _eval_node(k * h, X, NU, t0, c, ct0)
                nodes[k] = n
                g = n.psi + _logweight_bound(n.u)
                if g > gmax:
                    gmax = g
                if g < gmax - T and g < gprev:
                    break
                gprev = g
                if abs(k) > 10 ** 7:
                    raise RuntimeError("window walk did not terminate")
            if direction == 1:
                kmax = k
            else:
                kmin = k
        uL, uR = kmin * h, kmax * h

        def sums(nodelist):
            s = [mpf(0)] * 8
            a = [mpf(0)] * 8
            for n in nodelist:
                w = mp.exp(n.psi)
                u, d = n.u, n.d
                vals = (w, w * u, w * u * u, w * d, w * d * d, w * u * d,
                        w * n.em, w * n.emm)
                for i in range(8):
                    s[i] += vals[i]
                    a[i] += abs(vals[i])
            return s, a

        s, a = sums(nodes.values())
        level_nodes = len(nodes)
        history = []
        prev = None
        while True:
            mom = [s[i] / s[0] for i in range(1, 8)]
            scl = [a[i] / s[0] for i in range(1, 8)]
            cur = (s[0] * h, mom, scl)
            if prev is not None:
                ok = abs(cur[0] - prev[0]) <= tol * cur[0]
                for i in range(7):
                    if abs(cur[1][i] - prev[1][i]) > tol * max(cur[2][i], mp.eps):
                        ok = False
                history.append((float(h), level_nodes))
                if ok:
                    break
            prev = cur
            # halve: new nodes at odd multiples of h/2 inside [uL, uR]
            h2 = h / 2
            kk = int(mp.floor(uL / h2))
            new = []
            k = kk if kk % 2 else kk - 1
            while k * h2 <= uR + h2:
                new.append(_eval_node(k * h2, X, NU, t0, c, ct0))
                k += 2
            ns, na = sums(new)
            s = [s[i] + ns[i] for i in range(8)]
            a = [a[i] + na[i] for i in range(8)]
            level_nodes += len(new)
            h = h2
            if h < mpf("1e-6") * min(sigma, 1):
                raise RuntimeError("trapezoid rule did not converge at x=%r nu=%r" % (x, nu))

        integral, mom, _ = cur
        Eu, Euu, ED, EDD, EuD, Eem, Eemm = mom
        var_u = Euu - Eu * Eu
        var_d = EDD - ED * ED
        cov_ud = EuD - Eu * ED
        res = {}
        res["logk"] = phi0 + mp.log(integral) - mp.log(2)
        res["dx"] = -(ct0 + ED)
        res["dnu"] = sgn * (t0 + Eu) if NU != 0 else mpf(0)
        res["dnu2"] = var_u
        res["dnudx"] = -sgn * cov_ud if NU != 0 else mpf(0)
        res["dx2"] = var_d
        lru = t0 + mp.log1p(Eem)   # log K_{|nu|+1}/K_|nu|
        lrd = -t0 + mp.log1p(Eemm)  # log K_{|nu|-1}/K_|nu|
        if sgn < 0:
            lru, lrd = lrd, lru
        res["log_ratio_up"] = lru
        res["log_ratio_down"] = lrd
        # recurrence residual, a self-check of the quadrature:
        # K_{nu+1}/K_nu - K_{nu-1}/K_nu - 2 nu / x, relative to the largest term
        ru, rd = mp.exp(lru), mp.exp(lrd)
        big = max(ru, rd, abs(2 * NU_in / X))
        res["recurrence_resid"] = abs(ru - rd - 2 * NU_in / X) / big
        exact_zeros(res, nu)
        if return_info:
            res["_nodes"] = level_nodes
            res["_h"] = h
            res["_history"] = history
        return res


# ---------------------------------------------------------------- secondary

def besselk_all(x, nu, dps=60):
    """log K, log ratios and d/dx from mpmath.besselk (secondary source).
    log(K_{nu+-1}/K_nu) = O(nu/x) is a log of 1 + O(nu/x): log10(x) extra
    digits keep it accurate for large x."""
    import math
    dps = dps + int(math.ceil(max(0.0, math.log10(x))))
    with mp.workdps(dps):
        X, NU = mpf(x), mpf(nu)
        k = mp.besselk(NU, X)
        ku = mp.besselk(NU + 1, X)
        kd = mp.besselk(NU - 1, X)
        return {
            "logk": mp.log(k),
            "log_ratio_up": mp.log(ku / k),
            "log_ratio_down": mp.log(kd / k),
            "dx": -(ku + kd) / (2 * k),
        }


def besselk_diff_nu(x, nu, dps=40):
    """d/dnu and d2/dnu2 of log K by mpmath.diff on log(K_v / K_nu) (besselk).
    The ratio keeps the differenced function O(1) even where log K is huge;
    mpmath.diff's error is absolute, so for large x (d/dnu ~ nu/x) the
    precision grows by log10(x / |nu|)."""
    import math
    extra = math.log10(max(1.0, x))
    if nu != 0:
        extra += max(0.0, -math.log10(abs(nu)))
    dps = dps + int(math.ceil(extra))
    with mp.workdps(dps):
        X, NU = mpf(x), mpf(nu)
        cache = {}

        def f(v):
            p = mp.prec
            if p not in cache:
                cache[p] = mp.besselk(NU, X)
            return mp.log(mp.besselk(v, X) / cache[p])

        return mp.diff(f, NU, 1), mp.diff(f, NU, 2)


def halfint_all(x, n, dps=60):
    """Closed form for nu = n + 1/2 (n >= 0 integer):
    K_{n+1/2}(x) = sqrt(pi/(2x)) e^{-x} sum_{k=0}^n (n+k)!/(k!(n-k)!) (2x)^{-k}.
    All terms positive, so exact to working precision for any x.
    Returns log K and d/dx log K."""
    with mp.workdps(dps):
        X = mpf(x)
        z = 1 / (2 * X)
        # a_k = (n+k)!/(k!(n-k)!) ; a_{k+1}/a_k = (n+k+1)(n-k)/(k+1)
        a = mpf(1)
        s = mpf(0)
        ds = mpf(0)  # d/dx of the sum: d/dx z^k = -k z^k / x
        zk = mpf(1)
        for k in range(0, n + 1):
            s += a * zk
            ds += -k * a * zk / X
            a = a * (n + k + 1) * (n - k) / (k + 1)
            zk *= z
        logk = mp.log(mp.pi / (2 * X)) / 2 - X + mp.log(s)
        dx = -1 / (2 * X) - 1 + ds / s
        return {"logk": logk, "dx": dx}


def hankel_all(x, nu, dps=None):
    """Hankel asymptotic series, for x >> nu^2 (used for x >= 1e20):
    K_nu(x) = sqrt(pi/(2x)) e^{-x} S,  S = sum_k a_k(nu) x^{-k},
    a_k = prod_{j=1}^k (4 nu^2 - (2j-1)^2) / (k! 8^k).
    All quantities from exact nu- and x-derivatives of each term.  Terms are
    summed until below the working precision; for real x > 0 the remainder is
    bounded by a small multiple of the first omitted term (DLMF 10.40.10-11),
    which is returned relative to S as 'omitted'.  Working precision grows with
    log10(x) so that S(nu+1) - S(nu) = O(nu/x) keeps full relative accuracy."""
    import math
    if dps is None:
        dps = 60 + int(math.ceil(max(0.0, math.log10(x))))
    with mp.workdps(dps):
        X, NU_in = mpf(x), mpf(nu)
        NU = abs(NU_in)
        sgn = -1 if NU_in < 0 else 1

        def series(v):
            mu = 4 * v * v
            y = 1 / X
            a, da, d2a = mpf(1), mpf(0), mpf(0)  # a_k and nu-derivatives
            S = [mpf(1), mpf(0), mpf(0), mpf(0), mpf(0), mpf(0)]
            # S, S_nu, S_nunu, S_x, S_xx, S_nux
            yk = mpf(1)
            k = 0
            prev = None
            while True:
                k += 1
                f = (mu - (2 * k - 1) ** 2) / (8 * k)
                df = v / k          # d f / d nu = 8 nu / (8 k)
                d2f = 1 / mpf(k)
                a, da, d2a = a * f, da * f + a * df, d2a * f + 2 * da * df + a * d2f
                yk *= y
                t = [a * yk, da * yk, d2a * yk, -k * a * yk * y,
                     k * (k + 1) * a * yk * y * y, -k * da * yk * y]
                mag = abs(t[0])
                if prev is not None and prev > 0 and mag > prev:
                    raise RuntimeError("Hankel series diverges before converging")
                for i in range(6):
                    S[i] += t[i]
                # at half-integer orders a_k = 0 from some k on, but the
                # nu-derivatives of a_k do not vanish: stop only when every
                # one of the six series has converged
                small = all(abs(t[i]) <= mp.eps * abs(S[i]) or t[i] == 0
                            for i in range(6))
                if small:
                    return S, abs(t[0])
                prev = mag
                if k > 500:
                    raise RuntimeError("Hankel series too slow")

        (S, Sn, Snn, Sx, Sxx, Snx), om = series(NU)
        Su = series(NU + 1)[0][0]
        Sd = series(NU - 1)[0][0]
        res = {}
        res["logk"] = mp.log(mp.pi / (2 * X)) / 2 - X + mp.log(S)
        res["dx"] = -1 / (2 * X) - 1 + Sx / S
        res["dx2"] = 1 / (2 * X * X) + Sxx / S - (Sx / S) ** 2
        res["dnu"] = sgn * Sn / S
        res["dnu2"] = Snn / S - (Sn / S) ** 2
        res["dnudx"] = sgn * (Snx / S - Sn * Sx / (S * S))
        lru, lrd = mp.log(Su / S), mp.log(Sd / S)
        if sgn < 0:
            lru, lrd = lrd, lru
        res["log_ratio_up"] = lru
        res["log_ratio_down"] = lrd
        res["omitted"] = om / S
        return exact_zeros(res, nu)


def besselk_route(x, nu, dps=50):
    """All quantities from mpmath.besselk (primary for x < 1, where besselk
    sums the convergent power series): log K and the ratios directly,
    d/dx from -(K_{nu-1} + K_{nu+1}) / (2 K_nu), d/dnu and d2/dnu2 by
    mpmath.diff of log(K_v / K_nu), d2/(dnu dx) by mpmath.diff of d/dx log K_v,
    d2/dx2 from the Bessel equation:
        d2/dx2 log K = 1 + nu^2/x^2 - (d/dx log K)/x - (d/dx log K)^2."""
    with mp.workdps(dps):
        X, NU_in = mpf(x), mpf(nu)
        NU = abs(NU_in)
        sgn = -1 if NU_in < 0 else 1
        b = besselk_all(x, float(NU), dps=dps + 20)
        cache = {}

        def kk(v):
            p = mp.prec
            key = (p, v)
            if key not in cache:
                cache[key] = mp.besselk(v, X)
            return cache[key]

        def f(v):
            return mp.log(mp.besselk(v, X) / kk(NU))

        def g(v):
            return -(mp.besselk(v + 1, X) + mp.besselk(v - 1, X)) / (2 * mp.besselk(v, X))

        dnu = mp.diff(f, NU, 1) if NU != 0 else mpf(0)
        dnu2 = mp.diff(f, NU, 2)
        dnudx = mp.diff(g, NU, 1) if NU != 0 else mpf(0)
        with mp.workdps(dps + 20):
            dx = b["dx"]
            dx2 = 1 + (NU / X) ** 2 - dx / X - dx * dx
        lru, lrd = b["log_ratio_up"], b["log_ratio_down"]
        if sgn < 0:
            lru, lrd = lrd, lru
        return exact_zeros({"logk": b["logk"], "dx": +dx, "dx2": +dx2,
                            "dnu": sgn * dnu, "dnu2": dnu2, "dnudx": sgn * dnudx,
                            "log_ratio_up": lru, "log_ratio_down": lrd}, nu)


def smallx_leading(x, nu, dps=60):
    """Leading small-x behaviour, nu > 0:  log K ~ lgamma(nu) + (nu-1) log 2
    - nu log x  (relative correction O(x^2/nu) + O(x^{2 nu}))."""
    with mp.workdps(dps):
        X, NU = mpf(x), mpf(abs(nu))
        return mp.loggamma(NU) + (NU - 1) * mp.log(2) - NU * mp.log(X)


def mpquad_all(x, nu, dps=40):
    """mpmath.quad (tanh-sinh) of the half-line representation
    K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt and its nu-derivatives
    int t sinh(nu t) ..., int t^2 cosh(nu t) ...  The integrands are scaled
    by exp(-phi(t0)) (t0 = asinh(|nu|/x) the peak), the upper limit is where
    they fall below e^-(dps ln 10 + 30), and break points are put where the
    log of the main integrand is 1, 5, 20, 60, 150 below its peak on either
    side (found by bisection), so that tanh-sinh sees no interior cliff (for
    tiny x the integrand is flat out to t ~ log(2/x) and then drops
    double-exponentially).  The exponent is evaluated in product form,
    -x (cosh t - cosh t0) = -2 x sinh((t+t0)/2) sinh((t-t0)/2), which needs
    no extra digits for large x."""
    with mp.workdps(dps):
        X, NU = mpf(x), abs(mpf(nu))
        t0 = mp.asinh(NU / X)

        def lw(t, s=None):
            # log of exp(-x cosh t + s t) / exp(phi(t0)), s = NU by default
            a = -2 * X * mp.sinh((t + t0) / 2) * mp.sinh((t - t0) / 2) + NU * (t - t0)
            if s is None:
                return a
            return a + (s - NU) * t

        cut = -(dps * mp.log(10) + 30)
        sig = min(1 / mp.sqrt(mp.sqrt(X * X + NU * NU)), mpf(1))

        def bracket(level, direction):
            # from the peak, step out by sig, 2 sig, 4 sig, ... until the log
            # integrand is below -level (or t = 0 on the left); bisect the
            # last step.  None if the left side never gets that low.
            lo, step = t0, sig
            while True:
                hi = t0 + direction * step
                if direction < 0 and hi <= 0:
                    if lw(mpf(0)) >= -level:
                        return None
                    hi = mpf(0)
                if lw(hi) < -level:
                    break
                lo, step = hi, 2 * step
            for _ in range(400):
                mid = (lo + hi) / 2
                if lw(mid) < -level:
                    hi = mid
                else:
                    lo = mid
                if abs(hi - lo) <= mp.eps * (abs(lo) + abs(hi)):
                    break
            return (lo + hi) / 2

        T = bracket(-cut, 1)
        pts = {mpf(0), t0, T}
        for level in (1, 5, 20, 60, 150):
            if -level > cut:
                pts.add(bracket(level, 1))
                if t0 > 0:
                    p = bracket(level, -1)
                    if p is not None:
                        pts.add(p)
        pts = sorted(p for p in pts if 0 <= p <= T)
        # integrate in s = (t - t0) / sig: mpmath.quad's error control is
        # absolute, so the intervals must not be tiny (x = 1e300: sig = 1e-150)
        spts = [(p - t0) / sig for p in pts]

        def tt(s):
            return t0 + sig * s

        def f0(s):
            t = tt(s)
            return (mp.exp(lw(t)) + mp.exp(lw(t, -NU))) / 2

        # and the weights t, t^2 are taken relative to scale ~ t near the
        # peak, so that every integrand is O(1) there
        scale = t0 + sig
        # sinh(nu t) ~ nu t << 1 for large x: f1 is taken relative to that
        d1 = NU * scale / (1 + NU * scale) if NU != 0 else mpf(1)

        def f1(s):
            # t (e^{nu t} - e^{-nu t}) / 2 e^{-x cosh t}, without cancelling
            t = tt(s)
            return -(t / scale) * mp.exp(lw(t)) * mp.expm1(-2 * NU * t) / (2 * d1)

        def f2(s):
            t = tt(s)
            return (t / scale) ** 2 * (mp.exp(lw(t)) + mp.exp(lw(t, -NU))) / 2

        I0 = mp.quad(f0, spts)
        I1 = mp.quad(f1, spts)
        I2 = mp.quad(f2, spts)
        I1 = I1 * d1
        phi0 = -mp.sqrt(X * X + NU * NU) + NU * t0
        sgn = -1 if nu < 0 else 1
        return {"logk": phi0 + mp.log(sig * I0), "dnu": sgn * scale * I1 / I0,
                "dnu2": scale ** 2 * (I2 / I0 - (I1 / I0) ** 2)}
