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
#' tolerance \eqn{10^{-11}}{1e-11}: the results agree with 30-digit mpmath
#' quadrature to about \eqn{10^{-8}}{1e-8} or better. The Hellinger
#' integrand \eqn{(\sqrt{f_P} - \sqrt{f_Q})^2}{(sqrt(f_P) - sqrt(f_Q))^2}
#' is positive, so small distances keep their digits.
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
  -div_integrate(function(x) {
    lf <- dgh(x, law, log = TRUE)
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
  div_integrate(function(x) {
    lf <- dgh(x, law, log = TRUE)
    lg <- dgh(x, other, log = TRUE)
    div_zero_mass(exp(lf) * (lf - lg), lf)
  }, div_breaks(list(law)))
}

div_hel_quad <- function(law, other) {
  h2 <- div_integrate(function(x) {
    sf <- exp(dgh(x, law, log = TRUE) / 2)
    sg <- exp(dgh(x, other, log = TRUE) / 2)
    (sf - sg)^2 / 2
  }, div_breaks(list(law, other)))
  sqrt(min(1, max(0, h2)))
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

# 0 where the density f = exp(lf) is 0 (0 log 0 = 0).
div_zero_mass <- function(v, lf) {
  v[lf == -Inf] <- 0
  v
}

div_probs <- c(1e-12, 1e-8, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99,
               1 - 1e-4, 1 - 1e-8, 1 - 1e-12)

# Panel ends: quantiles and locations of the laws.
div_breaks <- function(laws) {
  q <- unlist(lapply(laws, function(l) c(qgh(div_probs, l), l$mu)))
  sort(unique(q[is.finite(q)]))
}

div_integrate <- function(f, breaks) {
  cuts <- c(-Inf, breaks, Inf)
  sum(vapply(seq_len(length(cuts) - 1L), function(i) {
    stats::integrate(f, cuts[i], cuts[i + 1L], rel.tol = 1e-11,
                     abs.tol = 1e-15, subdivisions = 2000L)$value
  }, numeric(1)))
}
