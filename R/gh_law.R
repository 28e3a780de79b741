#' A GH distribution as an object
#'
#' `gh_law()` makes a distribution object of class `"ghmix_law"` for a
#' member of the generalized hyperbolic family, \eqn{X = \mu + Y\gamma +
#' \sqrt{Y}\Sigma^{1/2}Z}{X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z} with
#' \eqn{Y \sim \mathrm{GIG}(p, a, b)}{Y ~ GIG(p, a, b)} (see [dgh()]), from
#' parameters, from a parameter list in any parametrisation that
#' [coef()][coef.ghmix_fit] offers, or from a fit. The object works with
#' `print()`, `mean()`, `vcov()` (the covariance matrix), `dim()` (the
#' dimension \eqn{d}), `simulate()`, `[` (margins), [transform()] (linear
#' maps), [gh_moment()], [gh_skewness()], [gh_kurtosis()], the risk
#' measures [value_at_risk()], [expected_shortfall()] and
#' [es_attribution()], and [dgh()], [pgh()], [qgh()], [rgh()] in place of
#' their parameters: `dgh(x, law)`.
#'
#' A law is a distribution; a fit ([fit_nig()] and the others) is an
#' estimate of one, whose `vcov()` is the covariance of its parameter
#' estimates. `gh_law(fit)` is the fitted law: its `mean()` and `vcov()`
#' are the mean and covariance matrix of \eqn{X} (`mean(fit)` gives the
#' same mean: [mean.ghmix_fit()]). `plot(law)` draws it: see
#' [plot.ghmix_law()].
#'
#' The parametrisations of a list `mu` (names as [coef()][coef.ghmix_fit]
#' gives them):
#' * `"ghmix"`: `list(mu, gamma, sigma, p, a, b)`;
#' * `"ghyp"`: `list(lambda, chi, psi, mu, sigma, gamma)` with
#'   \eqn{p = \lambda}, \eqn{b = \chi}, \eqn{a = \psi};
#' * `"alpha.bar"`: `list(lambda, alpha.bar, mu, sigma, gamma)`, in the
#'   gauge \eqn{E[Y] = 1}: \eqn{\sqrt{ab} = \bar\alpha}, \eqn{b/a =
#'   (K_\lambda(\bar\alpha)/K_{\lambda+1}(\bar\alpha))^2}; \eqn{\bar\alpha
#'   = 0} is the variance gamma (\eqn{\lambda > 0}: \eqn{a = 2\lambda},
#'   \eqn{b = 0}) or the Student t limit (\eqn{\lambda < -1}: \eqn{a = 0},
#'   \eqn{b = -2(\lambda + 1)});
#' * `"alpha"` (\eqn{d = 1}): `list(lambda, alpha, beta, delta, mu)`, the
#'   law of \eqn{\mu + \beta W + \sqrt{W} N}, \eqn{W \sim
#'   \mathrm{GIG}(\lambda, \delta^2, \alpha^2 - \beta^2)}{W ~
#'   GIG(lambda, delta^2, alpha^2 - beta^2)} in ghyp's order (chi, psi):
#'   \eqn{\gamma = \beta}, \eqn{\Sigma = 1}, \eqn{b = \delta^2}, \eqn{a =
#'   \alpha^2 - \beta^2}.
#'
#' In every form `sigma` follows [dgh()]: a number is the scale of a
#' univariate law (\eqn{\Sigma = \sigma^2}{Sigma = sigma^2}), a matrix is
#' \eqn{\Sigma}{Sigma} itself. The object stores \eqn{\Sigma}{Sigma} as a
#' \eqn{d \times d}{d x d} matrix, in the gauge given (the model is
#' invariant under \eqn{(\gamma, \Sigma, a, b) \to (\gamma/s, \Sigma/s,
#' a/s, bs)}; nothing here depends on the gauge).
#'
#' The moments: \eqn{E[X] = \mu + E[Y]\gamma}{E X = mu + E[Y] gamma} and
#' \eqn{\mathrm{Cov}(X) = E[Y]\Sigma + \mathrm{Var}(Y)\gamma\gamma'}{Cov X
#' = E[Y] Sigma + Var(Y) gamma gamma'} (McNeil, Frey and Embrechts 2005,
#' section 3.2), from [gig_mean()] and [gig_var()]; `Inf` or `NaN` where
#' the GIG moment is infinite (a skew-t with few degrees of freedom).
#'
#' @param mu Location: a number or a vector of length \eqn{d}; or a fit
#'   from [fit_nig()], [fit_gh()], [fit_vg()] or [fit_skewt()] (a factor
#'   fit too: \eqn{\Sigma = FF' + \mathrm{diag}(D)}{Sigma = F F' +
#'   diag(D)}; a mixture is an error that says to give one of its
#'   `components`, each a list that `gh_law()` takes), a
#'   `"ghmix_law"`, or a named list of parameters (see Details), with the
#'   other parameters left out.
#' @param gamma Skewness: a number or a vector of length \eqn{d}.
#' @param sigma A scale (\eqn{d = 1}) or the \eqn{d \times d}{d x d}
#'   symmetric positive definite dispersion matrix \eqn{\Sigma}{Sigma} (the
#'   identity when missing).
#' @param p,a,b The GIG mixing parameters (single numbers; see [dgig()]).
#' @param parametrization How to read a list `mu`: `"ghmix"` (default),
#'   `"ghyp"`, `"alpha.bar"` or `"alpha"`.
#' @return An object of class `"ghmix_law"`: a list with `mu`, `gamma`
#'   (vectors of length \eqn{d}, named by the variables where names are
#'   known), `sigma` (the matrix \eqn{\Sigma}{Sigma}), `p`, `a`, `b`.
#' @references
#' McNeil, A. J., Frey, R. and Embrechts, P. (2005). *Quantitative Risk
#' Management: Concepts, Techniques and Tools*. Princeton University Press.
#' Section 3.2.
#' @family GH distribution
#' @export
#' @examples
#' law <- gh_law(mu = 0.1, gamma = 0.5, sigma = 2, p = -0.5, a = 1, b = 1)
#' law
#' mean(law)
#' vcov(law)
#' gh_skewness(law)
#' gh_moment(law, 1:4, central = TRUE)
#' dgh(c(-1, 0, 1), law)
#' qgh(0.01, law)
#'
#' # from a fit, or from another parametrisation
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r)
#' law4 <- gh_law(fit)
#' law4[c("DAX", "FTSE")]
#' gh_law(list(lambda = -0.5, alpha = 2, beta = 0.5, delta = 1, mu = 0),
#'        parametrization = "alpha")
gh_law <- function(mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1, b = 1,
                   parametrization = c("ghmix", "ghyp", "alpha.bar",
                                       "alpha")) {
  call <- sys.call()
  if (inherits(mu, "ghmix_law")) {
    return(mu)
  }
  if (inherits(mu, "ghmix_mixture")) {
    abort_argument(
      sprintf(
        paste(
          "`mu` is a mixture of %d components, not one GH law; give one of",
          "them: gh_law(fit$components[[k]]), k = 1, ..., %d."
        ),
        mu$G, mu$G
      ),
      call
    )
  }
  if (inherits(mu, "ghmix_fit")) {
    par <- law_factor_sigma(mu$parameters)
    return(law_new(par$mu, par$gamma, par$sigma, par$p, par$a, par$b, FALSE,
                   call))
  }
  if (is.list(mu)) {
    mu <- law_factor_sigma(mu)
    parametrization <- check_choice(
      parametrization, c("ghmix", "ghyp", "alpha.bar", "alpha"),
      "parametrization", call
    )
    par <- law_from_list(mu, parametrization, call)
    return(law_new(par$mu, par$gamma, par$sigma, par$p, par$a, par$b, FALSE,
                   call))
  }
  law_new(mu, gamma, sigma, p, a, b, missing(sigma), call)
}

# Parameters of a factor model (loadings F, uniquenesses D: a factor fit,
# or a component of a factor mixture) with their Sigma = F F' + diag(D).
law_factor_sigma <- function(par) {
  f <- par$loadings
  if (!is.null(par$sigma) || is.null(f) || is.null(par$uniquenesses)) {
    return(par)
  }
  f <- as.matrix(f)
  sigma <- tcrossprod(f) + diag(par$uniquenesses, nrow(f))
  dimnames(sigma) <- list(rownames(f), rownames(f))
  par$sigma <- sigma
  par
}

# The parameters list(mu, gamma, sigma, p, a, b) of a coef()-style list.
law_from_list <- function(x, parametrization, call) {
  need <- switch(parametrization,
    ghmix = c("mu", "gamma", "sigma", "p", "a", "b"),
    ghyp = c("lambda", "chi", "psi", "mu", "sigma", "gamma"),
    alpha.bar = c("lambda", "alpha.bar", "mu", "sigma", "gamma"),
    alpha = c("lambda", "alpha", "beta", "delta", "mu")
  )
  miss <- setdiff(need, names(x))
  if (length(miss) > 0L) {
    abort_argument(
      sprintf(
        'The list `mu` lacks %s for parametrization = "%s".',
        paste0("`", miss, "`", collapse = ", "), parametrization
      ),
      call
    )
  }
  for (v in need) check_numeric(x[[v]], v, call = call)
  switch(parametrization,
    ghmix = x[need],
    ghyp = list(mu = x$mu, gamma = x$gamma, sigma = x$sigma, p = x$lambda,
                a = x$psi, b = x$chi),
    alpha.bar = c(
      list(mu = x$mu, gamma = x$gamma, sigma = x$sigma, p = x$lambda),
      law_alpha_bar_ab(x$lambda, x$alpha.bar, call)
    ),
    alpha = list(mu = x$mu, gamma = x$beta, sigma = 1, p = x$lambda,
                 a = x$alpha^2 - x$beta^2, b = x$delta^2)
  )
}

# a and b with sqrt(ab) = alpha_bar and E[Y] = 1.
law_alpha_bar_ab <- function(lambda, alpha_bar, call) {
  ok <- length(lambda) == 1L && length(alpha_bar) == 1L &&
    isTRUE(alpha_bar >= 0 && is.finite(alpha_bar) && is.finite(lambda))
  if (!ok) {
    abort_argument(
      "`alpha.bar` and `lambda` must be finite single numbers, alpha.bar >= 0.",
      call
    )
  }
  if (alpha_bar > 0) {
    # E[Y] = sqrt(b/a) K_{lambda+1}(w) / K_lambda(w) = 1 (w = alpha.bar)
    r <- exp(log_besselK(alpha_bar, lambda) -
               log_besselK(alpha_bar, lambda + 1))
    return(list(a = alpha_bar / r, b = alpha_bar * r))
  }
  if (lambda > 0) {
    return(list(a = 2 * lambda, b = 0))
  }
  if (lambda < -1) {
    return(list(a = 0, b = -2 * (lambda + 1)))
  }
  abort_argument(
    paste(
      "`alpha.bar` = 0 needs lambda > 0 (variance gamma) or lambda < -1",
      "(Student t with a mean)."
    ),
    call
  )
}

# A checked "ghmix_law" (sigma as in dgh(): a scale for d = 1 unless a
# matrix).
law_new <- function(mu, gamma, sigma, p, a, b, sigma_missing, call) {
  for (arg in c("mu", "gamma", "sigma")) {
    check_numeric(get(arg), arg, call = call)
  }
  d <- if (is.matrix(sigma)) {
    nrow(sigma)
  } else {
    max(length(mu), length(gamma))
  }
  if (d < 1L) {
    abort_argument("`mu` must not be empty.", call)
  }
  if (!is.matrix(sigma)) {
    sigma <- law_sigma_from_scale(sigma, d, sigma_missing, call)
  }
  law_check_gig(p, a, b, call)
  par <- check_ghmv_params(mu, gamma, sigma, FALSE, p, a, b, d, call)
  storage.mode(sigma) <- "double"
  sigma <- (sigma + t(sigma)) / 2
  nm <- names(mu)
  if (is.null(nm)) nm <- names(gamma)
  if (is.null(nm)) nm <- colnames(sigma)
  law_make(par$mu, par$gamma, sigma, p, a, b, nm)
}

# Sigma from a scale (d = 1) or the default identity.
law_sigma_from_scale <- function(sigma, d, sigma_missing, call) {
  if (d > 1L && !sigma_missing) {
    abort_argument(
      sprintf("`sigma` must be the %d x %d dispersion matrix Sigma.", d, d),
      call
    )
  }
  if (length(sigma) != 1L || !isTRUE(sigma > 0 && is.finite(sigma))) {
    abort_argument("`sigma` must be a positive finite scale.", call)
  }
  diag(as.double(sigma)^2, d)
}

law_make <- function(mu, gamma, sigma, p, a, b, nm = names(mu)) {
  mu <- stats::setNames(as.double(mu), nm)
  gamma <- stats::setNames(as.double(gamma), nm)
  dimnames(sigma) <- if (is.null(nm)) NULL else list(nm, nm)
  structure(
    list(mu = mu, gamma = gamma, sigma = sigma, p = as.double(p),
         a = as.double(a), b = as.double(b)),
    class = "ghmix_law"
  )
}

# One valid GIG parameter set, else an argument error naming the culprit.
law_check_gig <- function(p, a, b, call) {
  for (arg in c("p", "a", "b")) {
    v <- get(arg)
    check_numeric(v, arg, call = call)
    if (length(v) != 1L || !isTRUE(is.finite(v))) {
      abort_argument(sprintf("`%s` must be a finite single number.", arg),
                     call)
    }
  }
  bad <- c(a < 0, b < 0, a == 0 && b == 0, a == 0 && p >= 0,
           b == 0 && p <= 0)
  if (any(bad)) {
    msg <- c(
      "`a` must be >= 0.", "`b` must be >= 0.",
      "`a` and `b` must not both be 0.",
      "`p` must be negative when a = 0 (the skew-t).",
      "`p` must be positive when b = 0 (the variance gamma)."
    )
    abort_argument(msg[which(bad)[1L]], call)
  }
  invisible()
}

# The law's argument of a function, checked.
check_law <- function(law, call, arg = "law") {
  if (!inherits(law, "ghmix_law")) {
    abort_argument(
      sprintf("`%s` must be a \"ghmix_law\" (gh_law()), not %s.", arg,
              type_name(law)),
      call
    )
  }
  law
}

law_dim <- function(law) length(law$mu)

# The parameters of a law as dgh() and friends take them: sigma a scale
# for d = 1, the matrix Sigma otherwise.
law_dist_args <- function(law) {
  sigma <- if (law_dim(law) == 1L) sqrt(law$sigma[[1L]]) else law$sigma
  list(mu = law$mu, gamma = law$gamma, sigma = sigma, p = law$p, a = law$a,
       b = law$b)
}

# Univariate parameters, unnamed: the GH functions take names from `x`.
law_dist_args1 <- function(law) {
  lapply(law_dist_args(law), unname)
}

#' @export
print.ghmix_law <- function(x, digits = max(3L, getOption("digits") - 3L),
                            ...) {
  check_digits(digits, sys.call())
  d <- law_dim(x)
  cat(sprintf("<ghmix law> %s distribution, d = %d\n", law_label(x), d))
  if (d == 1L) {
    cat(sprintf(
      "mu = %s, gamma = %s, sigma = %s (scale; Sigma = %s)\n",
      format(x$mu[[1L]], digits = digits),
      format(x$gamma[[1L]], digits = digits),
      format(sqrt(x$sigma[[1L]]), digits = digits),
      format(x$sigma[[1L]], digits = digits)
    ))
  } else {
    show <- seq_len(min(d, 8L))
    loc <- rbind(mu = x$mu, gamma = x$gamma)
    print(signif(loc[, show, drop = FALSE], digits))
    if (d > length(show)) {
      cat(sprintf("  ... and %d more coordinates\n", d - length(show)))
    } else {
      cat("Sigma:\n")
      print(signif(x$sigma, digits))
    }
  }
  cat(sprintf(
    "mixing GIG: p = %s, a = %s, b = %s\n", format(x$p, digits = digits),
    format(x$a, digits = digits), format(x$b, digits = digits)
  ))
  invisible(x)
}

# The family's name for a parameter set.
law_label <- function(law) {
  if (law$b == 0) {
    return("VG")
  }
  if (law$a == 0) {
    return(if (all(law$gamma == 0)) "Student t" else "skew-t")
  }
  if (law$p == -0.5) "NIG" else "GH"
}

#' @export
dim.ghmix_law <- function(x) law_dim(x)

#' @export
mean.ghmix_law <- function(x, ...) {
  m <- gig_mean(x$p, x$a, x$b)
  out <- x$mu + m * x$gamma
  out[x$gamma == 0] <- x$mu[x$gamma == 0]
  out
}

#' @export
vcov.ghmix_law <- function(object, ...) {
  m <- gig_mean(object$p, object$a, object$b)
  v <- gig_var(object$p, object$a, object$b)
  g <- object$gamma
  out <- m * object$sigma
  if (any(g != 0)) out <- out + v * tcrossprod(g)
  out
}

#' @export
simulate.ghmix_law <- function(object, nsim = 1, seed = NULL, ...) {
  if (!is_count(nsim)) {
    abort_argument("`nsim` must be a positive whole number.", sys.call())
  }
  law_with_seed(seed, function() rgh(nsim, object))
}

# f() with R's generator seeded by `seed` (NULL: as it stands) and restored
# afterwards, its value with the attribute "seed" that simulate() documents.
law_with_seed <- function(seed, f) {
  if (!exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
    stats::runif(1L)
  }
  state <- saved <- get(".Random.seed", envir = globalenv())
  if (!is.null(seed)) {
    on.exit(assign(".Random.seed", saved, envir = globalenv()))
    set.seed(seed)
    state <- structure(seed, kind = as.list(RNGkind()))
  }
  structure(f(), seed = state)
}

#' @export
`[.ghmix_law` <- function(x, i) {
  call <- sys.call()
  d <- law_dim(x)
  idx <- seq_len(d)
  names(idx) <- names(x$mu)
  j <- tryCatch(idx[i], error = function(e) NA_integer_)
  if (length(j) == 0L || anyNA(j)) {
    abort_argument(
      sprintf("`i` must select margins among the %d coordinates.", d), call
    )
  }
  law_make(x$mu[j], x$gamma[j], x$sigma[j, j, drop = FALSE], x$p, x$a, x$b,
           names(x$mu)[j])
}

#' Moments, skewness and kurtosis of a GH distribution
#'
#' `gh_moment()` gives the raw moments \eqn{E[X^k]}{E[X^k]} or the central
#' moments \eqn{E[(X - EX)^k]}{E[(X - E X)^k]} of a univariate law;
#' `gh_skewness()` and `gh_kurtosis()` the skewness and (excess) kurtosis
#' of a univariate law or of each margin of a multivariate one.
#'
#' All are exact, from the GIG moments \eqn{E[Y^r]}{E[Y^r]} ([gig_moments()],
#' Bessel ratios in log space) and the normal moments: with \eqn{W = X - \mu
#' = Y\gamma + \sqrt{Y}\sigma N}{W = X - mu = Y gamma + sqrt(Y) sigma N},
#' \deqn{E[W^k] = \sum_{j \mathrm{\ even}} \binom{k}{j} \gamma^{k-j}
#'   \sigma^j (j - 1)!!\, E[Y^{k - j/2}],}{E[W^k] = sum over even j of
#'   choose(k, j) gamma^(k-j) sigma^j (j-1)!! E[Y^(k - j/2)],}
#' and the raw and central moments by the binomial theorem. The third and
#' fourth central moments in skewness and kurtosis are
#' \eqn{\gamma^3\mu_3 + 3\gamma\sigma^2 v}{gamma^3 mu3 + 3 gamma sigma^2 v}
#' and \eqn{\gamma^4\mu_4 + 6\gamma^2\sigma^2(\mu_3 + m v) + 3\sigma^4
#' E[Y^2]}{gamma^4 mu4 + 6 gamma^2 sigma^2 (mu3 + m v) + 3 sigma^4 E[Y^2]}
#' with \eqn{m, v, \mu_3, \mu_4}{m, v, mu3, mu4} the mean, variance and
#' central moments of \eqn{Y}. A moment that does not exist (a power tail)
#' is `Inf` or `NaN`.
#'
#' @param law A `"ghmix_law"` from [gh_law()] (univariate for
#'   `gh_moment()`).
#' @param order Positive whole numbers \eqn{k}.
#' @param central If `TRUE`, central moments.
#' @param excess If `TRUE` (the default), the excess kurtosis (0 for the
#'   normal).
#' @return `gh_moment()`: a vector, one value per order. `gh_skewness()`,
#'   `gh_kurtosis()`: a vector with one value per margin.
#' @family GH distribution
#' @export
#' @examples
#' law <- gh_law(gamma = 0.5, sigma = 1.5)
#' gh_moment(law, 1:4)
#' gh_moment(law, 2, central = TRUE) # the variance
#' vcov(law)
#' gh_skewness(law)
#' gh_kurtosis(law)
gh_moment <- function(law, order, central = FALSE) {
  call <- sys.call()
  check_law(law, call)
  check_flag(central, "central", call = call)
  if (law_dim(law) != 1L) {
    abort_argument(
      sprintf(
        "`law` must be univariate; take a margin (law[j]) of this d = %d law.",
        law_dim(law)
      ),
      call
    )
  }
  ok <- is.numeric(order) && length(order) > 0L && !anyNA(order) &&
    all(order >= 1 & order == round(order) & order <= 100)
  if (!ok) {
    abort_argument("`order` must be whole numbers from 1 to 100.", call)
  }
  k_max <- max(order)
  w <- law_w_moments(law, k_max)
  shift <- if (central) -law$gamma * gig_mean(law$p, law$a, law$b) else
    law$mu[[1L]]
  vapply(order, function(k) {
    i <- 0:k
    terms <- choose(k, i) * shift^(k - i) * c(1, w)[i + 1L]
    if (shift == 0) terms <- c(1, w)[k + 1L]
    sum(terms)
  }, numeric(1))
}

# E[W^k], k = 1..k_max, W = Y gamma + sqrt(Y) s N.
law_w_moments <- function(law, k_max) {
  g <- law$gamma[[1L]]
  s <- sqrt(law$sigma[[1L]])
  vapply(seq_len(k_max), function(k) {
    j <- seq(0, k, by = 2)
    ey <- gig_moments(law$p, law$a, law$b, k - j / 2)
    dfact <- vapply(j, function(m) prod(seq(1, max(m - 1, 1), by = 2)),
                    numeric(1))
    gpow <- ifelse(k - j == 0, 1, g^(k - j))
    terms <- choose(k, j) * gpow * s^j * dfact * ey
    terms[gpow == 0] <- 0
    sum(terms)
  }, numeric(1))
}

# Mean, variance and third and fourth central moments of Y.
law_y_central <- function(law) {
  m <- gig_mean(law$p, law$a, law$b)
  v <- gig_var(law$p, law$a, law$b)
  e <- gig_moments(law$p, law$a, law$b, 1:4)
  mu3 <- e[3L] - 3 * m * e[2L] + 2 * m^3
  mu4 <- e[4L] - 4 * m * e[3L] + 6 * m^2 * e[2L] - 3 * m^4
  list(m = m, v = v, mu3 = mu3, mu4 = mu4, e2 = e[2L])
}

# The central moments 2..4 of each margin.
law_margin_central <- function(law) {
  y <- law_y_central(law)
  g <- law$gamma
  s2 <- diag(law$sigma)
  skew <- g != 0 # (the gamma terms vanish, moments of Y infinite or not)
  c2 <- y$m * s2 + ifelse(skew, g^2 * y$v, 0)
  c3 <- ifelse(skew, g^3 * y$mu3 + 3 * g * s2 * y$v, 0)
  c4 <- ifelse(skew, g^4 * y$mu4 + 6 * g^2 * s2 * (y$mu3 + y$m * y$v), 0) +
    3 * s2^2 * y$e2
  list(c2 = c2, c3 = c3, c4 = c4)
}

#' @rdname gh_moment
#' @export
gh_skewness <- function(law) {
  check_law(law, sys.call())
  k <- law_margin_central(law)
  stats::setNames(k$c3 / k$c2^1.5, names(law$mu))
}

#' @rdname gh_moment
#' @export
gh_kurtosis <- function(law, excess = TRUE) {
  call <- sys.call()
  check_law(law, call)
  check_flag(excess, "excess", call = call)
  k <- law_margin_central(law)
  stats::setNames(k$c4 / k$c2^2 - if (excess) 3 else 0, names(law$mu))
}

#' Linear maps of a GH distribution
#'
#' The law of \eqn{AX + b} for \eqn{X} from a `"ghmix_law"`: a GH law of
#' the same family with the same mixing GIG, \eqn{\mu \to A\mu + b}{mu ->
#' A mu + b}, \eqn{\gamma \to A\gamma}{gamma -> A gamma}, \eqn{\Sigma \to
#' A\Sigma A'}{Sigma -> A Sigma A'} (the family is closed under linear maps
#' of full row rank: McNeil, Frey and Embrechts 2005, proposition 3.13). A
#' weight vector `A` of length \eqn{d} gives the univariate law of the
#' portfolio \eqn{w'X}; margins are `law[j]`.
#'
#' @param _data A `"ghmix_law"` from [gh_law()].
#' @param A A \eqn{k \times d}{k x d} numeric matrix of full row rank
#'   \eqn{k \le d}{k <= d}, or a vector of length \eqn{d} (one row).
#' @param b A vector of length \eqn{k} (or 1, repeated).
#' @param ... Not used.
#' @return A `"ghmix_law"` of dimension \eqn{k} (names from the row names
#'   of `A`).
#' @family GH distribution
#' @export
#' @examples
#' s <- matrix(c(1, 0.3, 0.3, 2), 2)
#' law <- gh_law(mu = c(0, 1), gamma = c(0.2, -0.1), sigma = s)
#' transform(law, rbind(c(1, 1), c(1, -1)), b = c(0, 5))
#' transform(law, c(0.5, 0.5)) # the equally weighted portfolio
transform.ghmix_law <- function(`_data`, A, b = 0, ...) { # nolint
  call <- sys.call()
  law <- `_data`
  d <- law_dim(law)
  m <- law_check_map(A, d, call)
  k <- nrow(m)
  check_numeric(b, "b", call = call)
  if (!(length(b) %in% c(1L, k)) || anyNA(b) || any(is.infinite(b))) {
    abort_argument(sprintf("`b` must be finite, of length 1 or %d.", k),
                   call)
  }
  sigma <- m %*% law$sigma %*% t(m)
  law_make(drop(m %*% law$mu) + b, drop(m %*% law$gamma),
           (sigma + t(sigma)) / 2, law$p, law$a, law$b, rownames(m))
}

# A as a k x d double matrix of full row rank.
law_check_map <- function(A, d, call) { # nolint
  check_numeric(A, "A", call = call)
  m <- if (is.matrix(A)) A else matrix(A, 1L, dimnames = list(NULL, names(A)))
  if (ncol(m) != d) {
    abort_argument(
      sprintf("`A` must have %d columns (the dimension), not %d.", d,
              ncol(m)),
      call
    )
  }
  storage.mode(m) <- "double"
  if (nrow(m) == 0L || anyNA(m) || any(is.infinite(m))) {
    abort_argument("`A` must be a finite matrix with at least one row.", call)
  }
  if (nrow(m) > d || qr(t(m))$rank < nrow(m)) {
    abort_argument(
      sprintf(
        paste(
          "`A` (%d x %d) must have full row rank: its rows must be",
          "linearly independent."
        ),
        nrow(m), d
      ),
      call
    )
  }
  m
}
