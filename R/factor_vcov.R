# Standard errors of factor-analytic fits (`factors = r`, R/fit_factor.R)
# from the observed information, as R/fit_vcov.R does for a full Sigma.
#
# theta: mu, gamma (unless symmetric), the loadings F column by column, the
# uniquenesses D and the free mixing parameters, in the data's units.
#
# Score (Fisher's identity), with G = dl/dSigma = (Sigma^-1 M Sigma^-1 -
# n Sigma^-1) / 2 as in fit_score() (M = sum_i E[1/Y|x_i] u_i u_i' - s_u
# gamma' - gamma s_u' + s_y gamma gamma', u = x - mu) and Sigma = F F' +
# diag(D): dl/dF = 2 G F and dl/dD = diag(G).  Both come from the factor
# E-step's S beta' and diag(S) (beta' = Sigma^-1 F) with Sigma^-1 = D^-1 -
# (D^-1 F) beta by the Woodbury identity: O(d r^2), no d x d matrix.
#
# The information J = -d score / d theta (central differences, 2 k E-steps)
# is singular along the scaling orbit of fit_orbit() and along the r(r-1)/2
# rotations F -> F exp(A), A antisymmetric (tangent F A).  The reported
# parameters N(theta) (factor_rotate(): F' D^-1 F diagonal, decreasing, and
# the gauge) are the one point of theta's orbit that satisfies the
# r(r-1)/2 + 1 constraints, so their covariance by the delta method is
# dN (J + V V')^-1 dN' (V: the null directions, dN V = 0).  That is the
# covariance of the constrained maximum-likelihood estimate of Silvey's
# bordered (Lagrangian) information (Silvey 1959, Ann. Math. Statist. 30,
# 389-407, section 6): the leading block of [J H'; H 0]^-1, H the
# constraints' gradients, equals P J^- P' with P the projection along V
# onto H's null space, and P = dN.  Its rank is the fit's df.
#
# With parameters held (`fixed`), theta is replaced by a chart of the
# free ones (factor_vcov_chart()): without mu and p where held (V as
# before), or, with a, b or a nonzero gamma held, also without the mixing
# parameter E[Y] = 1 determines (R/fit_vcov_gauge.R), where V is the
# rotations alone (the scaling moves E[Y] or the held values).  dN is then
# the Jacobian of the reported parameters over the chart, 0 in the rows
# of those held, so the rank is the chart's size less V's: df.

# The largest number of parameters k for which vcov() forms the k x k
# information of a factor fit (2 k E-steps).
factor_vcov_max_k <- 5000L

# TRUE, with a warning, where the factors are not identified
# (factor_identified()): the information is singular beyond the rotations.
factor_vcov_unidentified <- function(object) {
  d <- object$d
  if (is.null(d)) d <- length(object$parameters$mu)
  r <- object$factors
  if (factor_identified(d, r)) {
    return(FALSE)
  }
  warn_vcov(sprintf(
    paste(
      "%d factors in d = %d are not identified ((d - r)^2 < d + r): the",
      "loadings are not unique, so they have no standard errors (fit",
      "factors = NULL for those of Sigma)"
    ),
    r, d
  ))
  TRUE
}

factor_vcov <- function(object, cluster, call, log_scale = NULL) {
  if (!is.null(object$scaling)) {
    return(factor_vcov_scaled(object, cluster, call))
  }
  par <- object$parameters
  family <- object$family
  symmetric <- object$symmetric
  nm <- factor_vcov_names(names(par$mu), ncol(par$loadings), family,
                          symmetric)
  factor_check_vcov_size(length(nm), call)
  na_cov <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  if (vcov_warn_fit(object) || factor_vcov_unidentified(object)) {
    return(na_cov)
  }
  steps <- factor_vcov_steps(par, family, symmetric)
  estep <- factor_vcov_estep(object, cluster)
  on.exit(estep(NULL))
  ch <- factor_vcov_chart(object, nm)
  at <- function(th) ch$point(th, par, family, symmetric)
  jac <- central_jacobian(function(th) {
    q <- at(th)
    score <- if (is.null(q)) NULL else
      factor_score_at(estep, q, family, symmetric)
    if (is.null(score)) NULL else ch$project(q, score)
  }, ch$theta, steps[ch$chart], progress = TRUE)
  info <- if (is.null(jac)) NULL else -(jac + t(jac)) / 2
  null <- factor_vcov_null(par, family, symmetric)[ch$chart, , drop = FALSE]
  cov_chart <- fit_gauge_inverse(info, null[, ch$null, drop = FALSE],
                                 steps[ch$chart])
  norm <- central_jacobian(function(th) {
    q <- at(th)
    if (!is.null(q)) {
      factor_vcov_pack(factor_rotate(ch$report(q, object$gauge), log_scale),
                       family, symmetric)
    }
  }, ch$theta, steps[ch$chart])
  if (is.null(cov_chart) || is.null(norm)) {
    warn_vcov(paste(
      "the observed information is not positive definite (the fit is not",
      "at a maximum of the likelihood); no standard errors"
    ))
    return(na_cov)
  }
  out <- norm %*% cov_chart %*% t(norm)
  out <- (out + t(out)) / 2
  dimnames(out) <- list(nm, nm)
  out
}

# The coordinates of theta that vcov() moves (chart), as in vcov.ghmix_fit()
# for a full Sigma: all, less mu and p where `fixed` holds them (point():
# the parameters there, the others at par's values); the information is
# then singular along the scaling orbit and the rotations (null: the
# columns of factor_vcov_null() that stay null directions), and report()
# takes a point to the gauge.  With a, b or a nonzero gamma held in the
# gauge E[Y] = 1 (R/fit_vcov_gauge.R), the chart also leaves out the
# mixing parameter that E[Y] = 1 determines (solved at each point), the
# score is projected on the tangent of that constrained set (project()),
# and the scaling, which moves E[Y] or the held values, is no null
# direction: only the rotations are.
factor_vcov_chart <- function(object, nm) {
  par <- object$parameters
  theta <- factor_vcov_pack(par, object$family, object$symmetric)
  fixed <- object$fixed
  rotations <- seq_len(ncol(par$loadings) * (ncol(par$loadings) - 1L) / 2L)
  if (!fixed_in_gauge(fixed)) {
    chart <- which(fit_free(object, nm))
    return(list(
      chart = chart, theta = theta[chart], null = c(1L, 1L + rotations),
      point = factor_vcov_point(theta, chart),
      project = function(q, score) score[chart],
      report = set_gauge
    ))
  }
  chart <- which(colSums(vcov_gauge_tangent(fixed, par, nm) != 0) > 0)
  det <- vcov_gauge_determined(fixed, nm)
  point <- factor_vcov_point(theta, chart)
  list(
    chart = chart, theta = theta[chart], null = 1L + rotations,
    point = function(th, par, family, symmetric) {
      vcov_gauge_solve(point(th, par, family, symmetric), det)
    },
    project = function(q, score) {
      drop(crossprod(vcov_gauge_tangent(fixed, q, nm), score))[chart]
    },
    report = function(q, gauge) q
  )
}

# The parameters at theta with its coordinates chart set to th.
factor_vcov_point <- function(theta, chart) {
  function(th, par, family, symmetric) {
    theta[chart] <- th
    factor_vcov_unpack(theta, par, family, symmetric)
  }
}

factor_check_vcov_size <- function(k, call) {
  if (k > factor_vcov_max_k) {
    factor_abort_mode(
      sprintf(
        paste(
          "vcov() of this factor fit would need the %d x %d observed",
          "information of its %d parameters; it is formed only for at most",
          "%d parameters (fewer columns or factors)."
        ),
        k, k, k, factor_vcov_max_k
      ),
      call
    )
  }
}

factor_vcov_names <- function(vars, r, family, symmetric) {
  c(
    sprintf("mu[%s]", vars),
    if (!symmetric) sprintf("gamma[%s]", vars),
    sprintf("F[%s,F%d]", rep(vars, r), rep(seq_len(r), each = length(vars))),
    sprintf("D[%s]", vars),
    mix_family(family)$free
  )
}

factor_vcov_pack <- function(par, family, symmetric) {
  unname(c(
    par$mu, if (!symmetric) par$gamma, par$loadings, par$uniquenesses,
    unlist(par[mix_family(family)$free])
  ))
}

# The parameter list at theta (factor_vcov_pack()); gamma of a symmetric
# fit and the mixing parameters the family fixes are taken from par.
factor_vcov_unpack <- function(theta, par, family, symmetric) {
  d <- length(par$mu)
  r <- ncol(par$loadings)
  take <- function(size) {
    out <- theta[seq_len(size)]
    theta <<- theta[size + seq_len(length(theta) - size)]
    out
  }
  par$mu[] <- take(d)
  if (!symmetric) par$gamma[] <- take(d)
  par$loadings[] <- take(d * r)
  par$uniquenesses[] <- take(d)
  free <- mix_family(family)$free
  par[free] <- as.list(theta)
  par
}

# Steps and scales as fit_steps(): sqrt(Sigma_jj) for the loadings,
# relative steps for the uniquenesses.
factor_vcov_steps <- function(par, family, symmetric, h = 1e-4) {
  m <- fit_y_scale(par)
  sd_x <- sqrt(rowSums(par$loadings^2) + par$uniquenesses)
  scale <- list(
    mu = sqrt(m) * sd_x, gamma = sd_x / sqrt(m),
    loadings = outer(sd_x, rep(1, ncol(par$loadings))),
    uniquenesses = par$uniquenesses,
    p = family_get(family)$step_p(par), a = par$a, b = par$b
  )
  h * factor_vcov_pack(scale, family, symmetric)
}

# The null directions of the information, one column each: the scaling
# orbit (gamma / s, F / sqrt(s), D / s, a / s, b s) and the rotations'
# tangents F (e_j e_l' - e_l e_j'), j < l.
factor_vcov_null <- function(par, family, symmetric) {
  f <- par$loadings
  r <- ncol(f)
  orbit <- par
  orbit$mu[] <- 0
  orbit$gamma <- -par$gamma
  orbit$loadings <- -f / 2
  orbit$uniquenesses <- -par$uniquenesses
  orbit$p <- 0
  orbit$a <- -par$a
  orbit$b <- par$b
  out <- cbind(factor_vcov_pack(orbit, family, symmetric))
  zero <- par
  zero[c("mu", "gamma", "uniquenesses")] <- list(0 * par$mu, 0 * par$gamma,
                                                 0 * par$uniquenesses)
  zero[c("p", "a", "b")] <- list(0, 0, 0)
  pairs <- which(upper.tri(diag(r)), arr.ind = TRUE)
  for (i in seq_len(nrow(pairs))) {
    tangent <- matrix(0, nrow(f), r)
    tangent[, pairs[i, 2L]] <- f[, pairs[i, 1L]]
    tangent[, pairs[i, 1L]] <- -f[, pairs[i, 2L]]
    zero$loadings <- tangent
    out <- cbind(out, factor_vcov_pack(zero, family, symmetric))
  }
  out
}

# The score at par (factor_vcov_pack()'s order), or NULL where the E-step
# (estep(par): factor_vcov_estep()) fails.
factor_score_at <- function(estep, par, family, symmetric) {
  st <- estep(par)
  wb <- factor_woodbury(par)
  if (is.null(st) || st$n_bad > 0 || is.null(wb)) {
    return(NULL)
  }
  score <- factor_score(st, par, wb)
  mixing <- fit_score_mixing(st, par$p, par$a, par$b)
  factor_vcov_pack(c(score, mixing), family, symmetric)
}

# The score of mu, gamma, F and D from the factor E-step's statistics st
# at par (sums about par$mu) and its Woodbury parts wb (see the top).
factor_score <- function(st, par, wb) {
  n <- st$tau
  gam <- par$gamma
  dd <- par$uniquenesses
  sinv <- function(v) as.matrix(v) / dd - wb$fd %*% (wb$proj %*% v)
  beta_t <- t(wb$proj) # Sigma^-1 F
  g_beta <- drop(gam %*% beta_t)
  u_beta <- drop(st$sx %*% beta_t)
  # M beta' from S beta' and the rank-one terms of M
  m_beta <- st$sxx_proj - tcrossprod(st$sx, g_beta) -
    tcrossprod(gam, u_beta) + st$s_y * tcrossprod(gam, g_beta)
  si_u <- drop(sinv(st$sx))
  si_g <- drop(sinv(gam))
  bsb <- wb$proj %*% st$sxx_proj # beta S beta'
  diag_sms <- st$sxx_diag / dd^2 -
    2 * rowSums(st$sxx_proj * wb$fd) / dd +
    rowSums((wb$fd %*% bsb) * wb$fd) - 2 * si_u * si_g + st$s_y * si_g^2
  diag_si <- 1 / dd - rowSums(wb$fd * beta_t)
  list(
    mu = drop(sinv(st$sxw - n * gam)),
    gamma = si_u - st$s_y * si_g,
    loadings = sinv(m_beta) - n * beta_t,
    uniquenesses = (diag_sms - n * diag_si) / 2
  )
}
