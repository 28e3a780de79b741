#' Divergences between GH laws, and entropy
#'
#' `kl_divergence()` gives the Kullback-Leibler divergence
#' \eqn{\mathrm{KL}(P \| Q) = E_P[\log f_P(X) - \log f_Q(X)]}{KL(P || Q) =
#' E_P[log f_P(X) - log f_Q(X)]} and `hellinger()` the Hellinger distance
#' \eqn{H(P, Q) = (\frac12 \int (\sqrt{f_P} - \sqrt{f_Q})^2)^{1/2}}{H(P, Q)
#' = sqrt((1/2) int (sqrt(f_P) - sqrt(f_Q))^2)}, in \eqn{[0, 1]}, between
#' two `"ghmix_law"` objects of the same dimension; `entropy()` the
#' differential entropy \eqn{-E[\log f(X)]}{-E[log f(X)]} of a univariate
#' law, and `gig_kl_divergence()` the KL divergence between two GIG laws
#' in closed form.
#'
#' **Methods.** For \eqn{d = 1} (`method = "quadrature"`, the default
#' there) the integrals over the real line are split at quantiles of both
#' laws (from \eqn{10^{-12}}{1e-12} to \eqn{1 - 10^{-12}}{1 - 1e-12}) and
#' at their locations, and each panel goes to [integrate()] with relative
#' tolerance \eqn{10^{-11}}{1e-11}; panels that span decades of one sign
#' are taken in \eqn{\log|x|}{log|x|}, and the two tails beyond the last
#' quantiles in \eqn{\log(1 + |x - x_0| / s)}{log(1 + |x - x0| / s)} out
#' to the largest doubles, so that the power tails of Student and skew-t
#' laws (down to a fraction of a degree of freedom) are integrated to the
#' end: the results agree with 30-digit mpmath quadrature to about
#' \eqn{10^{-8}}{1e-8} or better. The Hellinger
#' integrand \eqn{(\sqrt{f_P} - \sqrt{f_Q})^2}{(sqrt(f_P) - sqrt(f_Q))^2}
#' is positive, so small distances keep their digits.
#'
#' **Infinite divergences.** The entropy of a GH law is finite, and so is
#' the KL divergence unless, on one side, \eqn{-\log f_Q}{-log f_Q} grows
#' like \eqn{|x|} (an exponential tail: \eqn{a > 0}, or the light side of a
#' skew-t) while \eqn{P} has a power tail without a first moment there (a
#' Student t of at most 1 degree of freedom, a skew-t of at most 2 on its
#' heavy side), or like \eqn{x^2} (a normal \eqn{Q}) while \eqn{P}'s tail
#' has no second moment: `kl_divergence()` is then `Inf`. A law at the
#' normal limit, \eqn{\sqrt{ab} \ge 10^{100}}{sqrt(ab) >= 1e100} (a normal
#' written as `gh_law(a = 1e300, b = 1e300)`), is taken as the normal
#' \eqn{N(\mu + m\gamma, m\sigma^2)}{N(mu + m gamma, m sigma^2)},
#' \eqn{m = \sqrt{b/a}}{m = sqrt(b / a)}, which it equals out to at least
#' \eqn{10^{50}}{1e50} scales.
#'
#' For \eqn{d > 1} (`method = "monte_carlo"`, which also works for
#' \eqn{d = 1}) the integrals are Monte Carlo estimates from `n` draws,
#' with their standard errors: the KL divergence is the mean of
#' \eqn{\log f_P - \log f_Q}{log f_P - log f_Q} over draws from \eqn{P};
#' the Hellinger distance is importance-sampled from the equal mixture
#' \eqn{m = (f_P + f_Q)/2}, half the draws from each law, with the bounded
#' weight \eqn{(\sqrt{f_P} - \sqrt{f_Q})^2 / (f_P + f_Q)}{(sqrt(f_P) -
#' sqrt(f_Q))^2 / (f_P + f_Q)} estimating \eqn{H^2}{H^2} (its standard
#' error is carried to \eqn{H} by the delta method). The draws use R's
#' random number generator: call [set.seed()] first for reproducible
#' values.
#'
#' The GIG family is an exponential family in \eqn{(\log y, y,
#' 1/y)}{(log y, y, 1/y)} (Jorgensen 1982), so with \eqn{c(p, a, b) =
#' \frac p2 \log\frac ab - \log(2K_p(\sqrt{ab}))}{c(p, a, b) = (p/2)
#' log(a/b) - log(2 K_p(sqrt(ab)))} the log normalising constant ([dgig()];
#' the gamma and inverse gamma limits where \eqn{b = 0} or \eqn{a = 0})
#' \deqn{\mathrm{KL} = c_1 - c_2 + (p_1 - p_2) E_1[\log Y] - \frac{a_1 -
#'   a_2}2 E_1[Y] - \frac{b_1 - b_2}2 E_1[1/Y],}{KL = c1 - c2 + (p1 - p2)
#'   E1[log Y] - (a1 - a2)/2 E1[Y] - (b1 - b2)/2 E1[1/Y],}
#' with the expectations of the first law ([gig_expectation()]); it is
#' `Inf` where a needed moment of the first law is infinite.
#'
#' @param law,other Two `"ghmix_law"` objects ([gh_law()]) of the same
#'   dimension: \eqn{P} and \eqn{Q}.
#' @param method `"quadrature"` (only for \eqn{d = 1}) or
#'   `"monte_carlo"`; the default is quadrature for \eqn{d = 1}, Monte
#'   Carlo otherwise.
#' @param n The number of Monte Carlo draws.
#' @param p1,a1,b1,p2,a2,b2 The parameters of the two GIG laws (numeric
#'   vectors, recycled; see [dgig()]).
#' @return `kl_divergence()`, `hellinger()`: one number, with attributes
#'   `method` and, for Monte Carlo, `std_error`. `entropy()`: one number.
#'   `gig_kl_divergence()`: a vector.
#' @references
#' Jorgensen, B. (1982). *Statistical Properties of the Generalized Inverse
#' Gaussian Distribution*. Lecture Notes in Statistics 9. Springer.
#' @family GH distribution
#' @export
#' @examples
#' p <- gh_law(mu = 0, gamma = 0.5, sigma = 1, p = -0.5, a = 1, b = 1)
#' q <- gh_law(mu = 0.2, gamma = 0, sigma = 1.2, p = 1, a = 2, b = 0.5)
#' kl_divergence(p, q)
#' kl_divergence(p, p)
#' hellinger(p, q)
#' entropy(p)
#' gig_kl_divergence(-0.5, 1, 1, 1, 2, 0.5)
#'
#' # d > 1: Monte Carlo with its standard error
#' set.seed(1)
#' p2 <- gh_law(mu = c(0, 0), gamma = c(0.5, 0), p = -0.5, a = 1, b = 1)
#' q2 <- gh_law(mu = c(0, 0), gamma = c(0, 0), p = -0.5, a = 1, b = 1)
#' kl_divergence(p2, q2, n = 1e4)
kl_divergence <- function(law, other, method = c("quadrature", "monte_carlo"),
                          n = 1e5) {
  div_run(law, other, method, n, sys.call(), div_kl_quad, div_kl_mc)
}

#' @rdname kl_divergence
#' @export
hellinger <- function(law, other, method = c("quadrature", "monte_carlo"),
                      n = 1e5) {
  div_run(law, other, method, n, sys.call(), div_hel_quad, div_hel_mc)
}

#' @rdname kl_divergence
#' @export
entropy <- function(law) {
  call <- sys.call()
  check_law(law, call)
  if (law_dim(law) != 1L) {
    abort_argument(
      sprintf("`law` must be univariate for entropy(), not of dimension %d.",
              law_dim(law)),
      call
    )
  }
  lf_p <- div_log_density(law)
  -div_integrate(function(x) {
    lf <- lf_p(x)
    div_zero_mass(exp(lf) * lf, lf)
  }, div_breaks(list(law)))
}

#' @rdname kl_divergence
#' @export
gig_kl_divergence <- function(p1, a1, b1, p2, a2, b2) {
  call <- sys.call()
  for (v in c("p1", "a1", "b1", "p2", "a2", "b2")) {
    check_numeric(get(v), v, call = call)
  }
  n <- max(lengths(list(p1, a1, b1, p2, a2, b2)))
  if (min(lengths(list(p1, a1, b1, p2, a2, b2))) == 0L) {
    return(numeric())
  }
  v <- lapply(list(p1, a1, b1, p2, a2, b2), function(u) {
    rep_len(as.double(u), n)
  })
  eta <- gig_expectation(v[[1L]], v[[2L]], v[[3L]])
  dp <- v[[1L]] - v[[4L]]
  da <- v[[2L]] - v[[5L]]
  db <- v[[3L]] - v[[6L]]
  gig_log_const(v[[1L]], v[[2L]], v[[3L]]) -
    gig_log_const(v[[4L]], v[[5L]], v[[6L]]) +
    div_term(dp, eta[, "E_log_y"]) - div_term(da / 2, eta[, "E_y"]) -
    div_term(db / 2, eta[, "E_inv_y"])
}

# c * e with 0 where c is 0 (an infinite moment that is not needed).
div_term <- function(c, e) ifelse(c == 0, 0, c * e)

# log of the GIG normalising constant, with the gamma (b = 0) and inverse
# gamma (a = 0) limits.
gig_log_const <- function(p, a, b) {
  w <- sqrt(a * b)
  out <- rep(NaN, length(p))
  both <- a > 0 & b > 0
  out[both] <- (p[both] / 2) * log(a[both] / b[both]) - log(2) -
    log_besselK(w[both], p[both])
  g <- b == 0 & a > 0 & p > 0
  out[g] <- p[g] * log(a[g] / 2) - lgamma(p[g])
  ig <- a == 0 & b > 0 & p < 0
  out[ig] <- -p[ig] * log(b[ig] / 2) - lgamma(-p[ig])
  out
}

# Checks, then quadrature (d = 1) or Monte Carlo.
div_run <- function(law, other, method, n, call, quad, mc) {
  check_law(law, call)
  check_law(other, call, "other")
  d <- law_dim(law)
  if (law_dim(other) != d) {
    abort_argument(
      sprintf("`other` must have the dimension of `law` (%d), not %d.", d,
              law_dim(other)),
      call
    )
  }
  if (identical(method, c("quadrature", "monte_carlo")) && d > 1L) {
    method <- "monte_carlo"
  }
  method <- check_choice(method, c("quadrature", "monte_carlo"), "method",
                         call)
  if (method == "quadrature") {
    if (d != 1L) {
      abort_argument(
        sprintf(
          '`method` = "quadrature" needs d = 1; the laws have d = %d.', d
        ),
        call
      )
    }
    return(structure(quad(law, other), method = method))
  }
  ok <- is.numeric(n) && length(n) == 1L && isTRUE(n >= 2 && is.finite(n))
  if (!ok) {
    abort_argument("`n` must be one finite number, at least 2.", call)
  }
  res <- mc(law, other, floor(n))
  structure(res[[1L]], method = method, std_error = res[[2L]])
}

div_kl_quad <- function(law, other) {
  if (div_kl_infinite(law, other)) {
    return(Inf)
  }
  lf_p <- div_log_density(law)
  lf_q <- div_log_density(other)
  div_integrate(function(x) {
    lf <- lf_p(x)
    lg <- lf_q(x)
    div_zero_mass(exp(lf) * (lf - lg), lf)
  }, div_breaks(list(law)))
}

div_hel_quad <- function(law, other) {
  lf_p <- div_log_density(law)
  lf_q <- div_log_density(other)
  h2 <- div_integrate(function(x) {
    sf <- exp(lf_p(x) / 2)
    sg <- exp(lf_q(x) / 2)
    (sf - sg)^2 / 2
  }, div_breaks(list(law, other)))
  sqrt(min(1, max(0, h2)))
}

# The log density of a univariate law, as a function of x: dgh(), or for a
# law at its normal limit (div_normal_limit()) that normal's.
div_log_density <- function(law) {
  nl <- div_normal_limit(law)
  if (is.null(nl)) {
    # (dgh() is NaN where (x - mu)^2 overflows for some laws: no mass)
    return(function(x) {
      l <- suppressWarnings(dgh(x, law, log = TRUE))
      l[is.nan(l) & abs(x) > 1e150] <- -Inf
      l
    })
  }
  function(x) stats::dnorm(x, nl$mean, nl$sd, log = TRUE)
}

# NULL, or the normal law N(mu + m gamma, m sigma^2) (m = sqrt(b / a), the
# limit of E[Y]; Var(Y) -> 0) of a law with sqrt(ab) >= 1e100, which it
# equals to O(1 / sqrt(ab)) out to (ab)^(1/4) scales (1e50 and more): a
# normal written as a GH law (e.g. a = b = 1e300), taken as that normal,
# whose tails dgh() cannot follow beyond ~1e4 scales there.
div_normal_limit <- function(law) {
  w <- sqrt(law$a) * sqrt(law$b)
  if (!(w >= div_normal_w)) {
    return(NULL)
  }
  m <- sqrt(law$b) / sqrt(law$a)
  s2 <- drop(law$sigma)
  list(mean = law$mu[[1L]] + m * law$gamma[[1L]], sd = sqrt(m * s2))
}

div_normal_w <- 1e100

# The decay of a univariate law's tails, one per side (lower, upper):
# "exp" (exponential: a > 0, or the light side of a skew-t), "normal"
# (div_normal_limit()), or the power k of a power tail |x|^-(k + 1) (a =
# 0, nu = -2p degrees of freedom: k = nu, or nu / 2 on the heavy side,
# where gamma points).
div_tails <- function(law) {
  if (!is.null(div_normal_limit(law))) {
    return(list("normal", "normal"))
  }
  if (law$a > 0) {
    return(list("exp", "exp"))
  }
  nu <- -2 * law$p
  g <- law$gamma[[1L]]
  list(if (g < 0) nu / 2 else if (g > 0) "exp" else nu,
       if (g > 0) nu / 2 else if (g < 0) "exp" else nu)
}

# KL(P || Q) = E_P[log f_P] - E_P[log f_Q] is infinite where, on one side,
# -log f_Q grows as |x| (an exponential tail of Q) and P's tail has no
# first moment (a power tail of power k <= 1), or as x^2 (a normal Q) and
# P's tail has no second moment (k <= 2); E_P[log f_P] is finite for
# every GH law.
div_kl_infinite <- function(law, other) {
  tp <- div_tails(law)
  tq <- div_tails(other)
  any(vapply(1:2, function(side) {
    k <- tp[[side]]
    is.numeric(k) && ((tq[[side]] == "exp" && k <= 1) ||
                        (tq[[side]] == "normal" && k <= 2))
  }, NA))
}

div_kl_mc <- function(law, other, n) {
  x <- rgh(n, law)
  v <- dgh(x, law, log = TRUE) - dgh(x, other, log = TRUE)
  list(mean(v), stats::sd(v) / sqrt(n))
}

div_hel_mc <- function(law, other, n) {
  m <- ceiling(n / 2)
  hp <- div_hel_weight(rgh(m, law), law, other)
  hq <- div_hel_weight(rgh(n - m, other), law, other)
  h2 <- (mean(hp) + mean(hq)) / 2
  se2 <- sqrt(stats::var(hp) / length(hp) + stats::var(hq) / length(hq)) / 2
  h <- sqrt(min(1, max(0, h2)))
  list(h, if (h > 0) se2 / (2 * h) else 0)
}

# (sqrt f - sqrt g)^2 / (f + g) = (1 - r)^2 / (1 + r^2), r = sqrt(g / f)
# taken <= 1 (the weight is symmetric in f and g).
div_hel_weight <- function(x, law, other) {
  r <- exp(-abs(dgh(x, law, log = TRUE) - dgh(x, other, log = TRUE)) / 2)
  r[is.nan(r)] <- 1
  (1 - r)^2 / (1 + r^2)
}

# 0 where the density f = exp(lf) is 0 (0 log 0 = 0, and a mass below
# the doubles).
div_zero_mass <- function(v, lf) {
  v[lf == -Inf | exp(lf) == 0] <- 0
  v
}

div_probs <- c(1e-12, 1e-8, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99,
               1 - 1e-4, 1 - 1e-8, 1 - 1e-12)

# Panel ends: quantiles and locations of the laws.
div_breaks <- function(laws) {
  q <- unlist(lapply(laws, function(l) {
    nl <- div_normal_limit(l)
    if (is.null(nl)) {
      c(qgh(div_probs, l), l$mu)
    } else {
      stats::qnorm(div_probs, nl$mean, nl$sd)
    }
  }))
  sort(unique(q[is.finite(q)]))
}

# The integral of f over the real line: integrate() on the panels between
# the breaks, and on each side beyond them in u = log(1 + |x - end| / s)
# (s: the spread of the breaks), where a power tail |x|^-(k + 1) becomes
# exp(-k u), in panels out to where x overflows: the heavy tails (a t of
# 0.5 degrees of freedom, say) that integrate() on an infinite range calls
# divergent or stops on with round-off.
div_integrate <- function(f, breaks) {
  inner <- sum(vapply(seq_len(length(breaks) - 1L), function(i) {
    div_panel(f, breaks[i], breaks[i + 1L])
  }, numeric(1)))
  s <- max(diff(range(breaks)), abs(breaks) * 1e-8, 1e-300)
  tail <- function(end, dir) {
    g <- function(u) {
      x <- end + dir * s * expm1(u)
      v <- f(x) * s * exp(u)
      v[!is.finite(x)] <- 0
      v
    }
    sum(vapply(seq_len(length(div_tail_u) - 1L), function(i) {
      div_panel(g, div_tail_u[i], div_tail_u[i + 1L])
    }, numeric(1)))
  }
  inner + tail(breaks[1L], -1) + tail(breaks[length(breaks)], 1)
}

# The panels in u of div_integrate()'s tails (x = s e^709 is the largest
# double's scale).
div_tail_u <- c(0, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 709)

# One panel by integrate(); a panel on one side of 0 that spans more than
# a factor of 4 in x (the far quantiles of a heavy tail: 1e7 to 1e15) in
# log |x|, where a power tail is smooth.
div_panel <- function(f, lo, hi) {
  quad <- function(g, lo, hi) {
    stats::integrate(g, lo, hi, rel.tol = 1e-11, abs.tol = 1e-15,
                     subdivisions = 2000L)$value
  }
  if (lo > 0 && hi > 4 * lo) {
    return(quad(function(t) f(exp(t)) * exp(t), log(lo), log(hi)))
  }
  if (hi < 0 && lo < 4 * hi) {
    return(quad(function(t) f(-exp(t)) * exp(t), log(-hi), log(-lo)))
  }
  quad(f, lo, hi)
}
