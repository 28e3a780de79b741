# The parameters of a fit as one vector (issue 26, design 3.11).
#
# Natural space (vcov(), summary(), tidy()): per component mu, gamma
# (unless symmetric), its Sigma as the covariance structure packs it
# (cov_table's pack_nat: the lower triangle of Sigma column by column
# Sigma[1,1], Sigma[1,2], ..., Sigma[1,d], Sigma[2,2], ...; or vec(F) and
# D) and the mixing parameters the family leaves free (mix_family()$free);
# then, for G components, eta_k = log(pi_k / pi_1), k = 2..G (none for one
# distribution, so one formula serves both).
#
# EM space (SQUAREM, the parameter rule, the direct polish and the far-row
# rescue), for the standardised parameters in the det gauge: mu, gamma
# (unless symmetric), Sigma as the structure packs it for extrapolation
# (cov_table's pack_em: the packed lower triangle of the Cholesky factor
# with its diagonal on the log scale, whose sum is 0 in that gauge, a
# linear constraint kept by extrapolation; or vec(F) and log D), the free
# mixing parameters on the family's scale (log a, log b, p, or log |p|
# where its sign is fixed), then eta as above.

# chol_v: NULL, or the EM block of a full Sigma as the caller holds it
# (the point's own Cholesky factor; NULL: from chol_upper()).
pack_em <- function(par, family, symmetric, chol_v = NULL) {
  sub <- family_get(family)$pack(par)
  # unnamed: names of mu would reach p, a, b through unpack_em()
  unname(c(par$mu, if (!symmetric) par$gamma,
           cov_of(par)$pack_em(par, chol_v), sub))
}

# The parameters at theta (pack_em()) of d columns (r: NULL for a full
# Sigma, or the number of factors).
unpack_em <- function(theta, family, symmetric, d, r = NULL) {
  mu <- theta[seq_len(d)]
  k <- d
  gamma <- if (symmetric) rep(0, d) else theta[k + seq_len(d)]
  if (!symmetric) k <- k + d
  cov <- cov_get(r)
  m <- cov$size_em(d, r)
  par <- c(list(mu = mu, gamma = gamma),
           cov$unpack_em(theta[k + seq_len(m)], d, r))
  c(par, family_get(family)$unpack(theta[-seq_len(k + m)]))
}

pack_all_em <- function(pars, props, family, symmetric) {
  c(
    unlist(lapply(pars, pack_em, family = family, symmetric = symmetric)),
    log(props[-1L] / props[[1L]])
  )
}

pack_nat <- function(par, family, symmetric) {
  unname(c(
    par$mu, if (!symmetric) par$gamma, cov_of(par)$pack_nat(par),
    unlist(par[mix_family(family)$free])
  ))
}

# The parameter list at theta (pack_nat()); gamma of a symmetric fit and
# the mixing parameters the family fixes are taken from par.
unpack_nat <- function(theta, par, family, symmetric) {
  d <- length(par$mu)
  cov <- cov_of(par)
  par$mu[] <- theta[seq_len(d)]
  k <- d
  if (!symmetric) {
    par$gamma[] <- theta[k + seq_len(d)]
    k <- k + d
  }
  m <- cov$size_nat(par)
  par <- cov$unpack_nat(theta[k + seq_len(m)], par)
  free <- mix_family(family)$free
  par[free] <- as.list(theta[k + m + seq_along(free)])
  par
}

# The names of pack_nat()'s entries for the columns vars (r: NULL for a
# full Sigma, or the number of factors).
names_nat <- function(vars, family, symmetric, r = NULL) {
  c(
    sprintf("mu[%s]", vars),
    if (!symmetric) sprintf("gamma[%s]", vars),
    cov_get(r)$names_nat(vars, r),
    mix_family(family)$free
  )
}

# The names of pack_nat(par)'s entries.
names_fit <- function(par, family, symmetric) {
  names_nat(names(par$mu), family, symmetric, ncol(par$loadings))
}

# Step sizes of the finite differences and natural scales of the
# coordinates: Y's own scale m (fit_y_scale()), X's spread
# sqrt(m Sigma_jj) for mu, gamma's sqrt(Sigma_jj / m), the structure's
# scales for Sigma (cov_table's step_scale), relative steps for a and b,
# absolute ones for p (relative where its sign is fixed).
steps_nat <- function(par, family, symmetric, h = 1e-4) {
  m <- fit_y_scale(par)
  cov <- cov_of(par)
  sd_x <- sqrt(cov$sigma_diag(par))
  scale <- c(
    list(mu = sqrt(m) * sd_x, gamma = sd_x / sqrt(m)),
    cov$step_scale(par, sd_x),
    list(p = family_get(family)$step_p(par), a = par$a, b = par$b)
  )
  h * pack_nat(scale, family, symmetric)
}

# Y's own scale: sqrt(b / a), or the mean of the gamma or inverse-gamma
# limit.
fit_y_scale <- function(par) {
  if (par$a > 0 && par$b > 0) {
    sqrt(par$b / par$a)
  } else if (par$b == 0) {
    2 * par$p / par$a
  } else {
    par$b / (-2 * par$p)
  }
}

# The null directions of the information at par, one column each: first
# the tangent of the scaling orbit s -> (gamma / s, Sigma / s, a / s, b s)
# at s = 1 (the structure's part: cov_table's orbit), then the structure's
# other ones (cov_table's rotations).
null_nat <- function(par, family, symmetric) {
  cov <- cov_of(par)
  orbit <- par
  orbit$mu[] <- 0
  orbit$gamma <- -par$gamma
  orbit[names(cov$orbit(par))] <- cov$orbit(par)
  orbit$p <- 0
  orbit$a <- -par$a
  orbit$b <- par$b
  zero <- par
  zero[c("mu", "gamma")] <- list(0 * par$mu, 0 * par$gamma)
  zero[c("p", "a", "b")] <- list(0, 0, 0)
  others <- lapply(cov$rotations(par), function(part) {
    zero[names(part)] <- part
    pack_nat(zero, family, symmetric)
  })
  do.call(cbind, c(list(pack_nat(orbit, family, symmetric)), others))
}

# The score of the observed log-likelihood at par (pack_nat()'s order)
# from the E-step statistics st at par (sums about par$mu), by Fisher's
# identity; NULL where par is not usable.
score_nat <- function(st, par, family, symmetric) {
  score <- cov_of(par)$score(st, par)
  if (is.null(score)) {
    return(NULL)
  }
  mixing <- fit_score_mixing(st, par$p, par$a, par$b)
  pack_nat(c(score, mixing), family, symmetric)
}

# The logs of the factors that take the entries of pack_nat() (before the
# gauge) from standardised units (the fit's `scaling` sc: x = s z, Y = k
# Y_z) to the user's: mu s, gamma s / k, the structure's (Sigma_jk s_j s_k
# / k; F s / sqrt(k), D s^2 / k), a / k, b k.
scaling_log_factors <- function(sc, family, symmetric) {
  ls <- log(sc$scale)
  lk <- sc$log_k
  par <- sc$parameters
  f <- c(
    list(mu = ls, gamma = ls - lk),
    cov_of(par)$units_log(ls, lk, par),
    list(p = 0, a = -lk, b = lk)
  )
  pack_nat(f, family, symmetric)
}

# Mixtures: the components' vectors, then eta.
pack_all <- function(pars, props, family, symmetric) {
  c(
    unlist(lapply(pars, pack_nat, family = family, symmetric = symmetric)),
    log(props[-1L] / props[[1L]])
  )
}

# The components' parameter lists and the proportions at theta.
unpack_all <- function(theta, pars, family, symmetric) {
  g <- length(pars)
  size <- (length(theta) - (g - 1L)) / g
  comps <- lapply(seq_len(g), function(k) {
    unpack_nat(theta[pack_block(k, size)], pars[[k]], family, symmetric)
  })
  w <- exp(c(0, theta[g * size + seq_len(g - 1L)]))
  list(pars = comps, props = w / sum(w))
}

# The entries of component k's block of a mixture's vector (size each).
pack_block <- function(k, size) (k - 1L) * size + seq_len(size)

steps_all <- function(pars, family, symmetric) {
  c(
    unlist(lapply(pars, steps_nat, family = family, symmetric = symmetric)),
    rep(1e-4, length(pars) - 1L)
  )
}

# The null directions of the components, each in its block (zero outside).
null_all <- function(pars, family, symmetric) {
  blocks <- lapply(pars, null_nat, family = family, symmetric = symmetric)
  size <- nrow(blocks[[1L]])
  per <- ncol(blocks[[1L]])
  g <- length(pars)
  out <- matrix(0, g * size + g - 1L, g * per)
  for (k in seq_len(g)) {
    out[pack_block(k, size), pack_block(k, per)] <- blocks[[k]]
  }
  out
}

# "component_k:<name>" with the names of one component (names_nat()),
# then "proportion[k]".
names_all <- function(object) {
  one <- names_nat(colnames(object$data), object$family, object$symmetric,
                   object$factors)
  c(
    unlist(lapply(seq_len(object$G), function(k) {
      paste0("component_", k, ":", one)
    })),
    sprintf("proportion[%d]", seq_len(object$G))
  )
}
