# The mixture family, its parameters, gauges and the E- and M-steps.
#
# Parameters are a list(mu, gamma, sigma, p, a, b): X = mu + Y gamma +
# sqrt(Y) sigma^(1/2) Z with Y ~ GIG(p, a, b) and sigma the d x d matrix.
# The model is invariant under (gamma, sigma, a, b) -> (gamma / s, sigma / s,
# a / s, b s) (Y -> s Y); a gauge fixes s.

mix_family <- function(family) {
  c(list(code = ghmix_code("family", family)),
    family_get(family)[c("label", "free")])
}

# mix_family(family)$code (cached: every M-step passes it).
mix_family_code <- function(family) {
  hit <- the$family_code[[family]]
  if (is.null(hit)) {
    hit <- mix_family(family)$code
    the$family_code[[family]] <- hit
  }
  hit
}

# E-step flags (src/core/estep.h): moments, and E log Y where the
# subordinator's M-step needs it.
mix_what <- function(family) {
  hit <- the$what[[family]]
  if (is.null(hit)) {
    logy <- family_get(family)$logy
    hit <- ghmix_flags("estep", if (logy) c("moments", "logy") else "moments")
    the$what[[family]] <- hit
  }
  hit
}

# The flags for densities and all posterior moments of each row.
mix_what_rows <- function() ghmix_flags("estep", c("moments", "logy"))

# Scale s such that (Y -> s Y) puts par in the gauge; s = 1 leaves it.
gauge_scale <- function(par, gauge) {
  if (gauge == "det") {
    return(exp(cov_of(par)$logdet(par) / length(par$mu)))
  }
  1 / gig_mean_value(par$p, par$a, par$b)
}

apply_scale <- function(par, s) {
  par$gamma <- par$gamma / s
  par <- cov_of(par)$scale(par, s)
  par$a <- par$a / s
  par$b <- par$b * s
  par
}

set_gauge <- function(par, gauge) apply_scale(par, gauge_scale(par, gauge))

gig_mean_value <- function(p, a, b) {
  eta <- .Call(ffi_gig_expectation, as.double(p), as.double(a), as.double(b),
               1L, NULL)
  eta[1L, gig_eta_names == "E_y"]
}

logdet <- function(sigma) {
  ch <- chol_upper(sigma)
  # the diagonal of ch (diag() costs more than the rest of this for small d)
  2 * sum(log(ch[seq.int(1L, length(ch), by = nrow(ch) + 1L)]))
}

# chol(sigma), by ffi_chol_upper for a double matrix.
chol_upper <- function(sigma) {
  if (is.double(sigma) && is.matrix(sigma)) {
    .Call(ffi_chol_upper, sigma)
  } else {
    chol(sigma)
  }
}

# Positions in a d x d matrix (cached per d): lower, its lower triangle
# (column by column, as theta packs it); upper, the same entries of the
# transpose; diag, the diagonal; on_diag, the diagonal's among lower.
chol_index <- function(d) {
  hit <- if (d <= length(the$chol_index)) the$chol_index[[d]]
  if (is.null(hit)) {
    lower <- lower.tri(diag(d), diag = TRUE)
    ij <- which(lower, arr.ind = TRUE)
    hit <- list(lower = which(lower), upper = ij[, 2L] + (ij[, 1L] - 1L) * d,
                diag = seq.int(1L, d * d, by = d + 1L),
                on_diag = diag(d)[lower] == 1)
    the$chol_index[[d]] <- hit
  }
  hit
}

# Standardisation of the parameters by the data's column centre and scale:
# the iteration is watched (convergence, acceleration) in these units, which
# makes it equivariant under affine maps of the data.
to_std <- function(par, std) {
  par$mu <- (par$mu - std$center) / std$scale
  par$gamma <- par$gamma / std$scale
  cov_of(par)$to_std(par, std)
}

from_std <- function(par, std) {
  par$mu <- std$center + std$scale * par$mu
  par$gamma <- std$scale * par$gamma
  cov_of(par)$from_std(par, std)
}

# The E-step: sums of the posterior moments over the rows (the statistics
# of src/core/estep.h), taken about the current mu.  NULL when the
# parameters are not usable (sigma not positive definite, invalid GIG).
mix_estep <- function(engine, par, what, rows = FALSE,
                      chol_l = .Call(ffi_chol_lower, par$sigma)) {
  if (is.null(chol_l) || !gig_valid(par$p, par$a, par$b) ||
        !all(is.finite(par$mu)) || !all(is.finite(par$gamma))) {
    return(NULL)
  }
  k <- .Call(ffi_mix_consts, chol_l, par$gamma, c(par$p, par$a, par$b))
  raw <- engine$estep(par$mu, chol_l, k$g, k$consts, what, rows)
  estep_decode_one(raw, estep_layout_full(length(par$mu)))
}

# The E-step's row-independent inputs, computed in C (src/core/mixture.h):
# list(g = L^-1 gamma, consts = c(p, a, b, gsg, logdet)) (mix_estep() calls
# ffi_mix_consts itself: it runs once per E-step).
mix_consts <- function(chol_l, gamma, p, a, b) {
  .Call(ffi_mix_consts, chol_l, as.double(gamma), as.double(c(p, a, b)))
}

gig_valid <- function(p, a, b) {
  all(is.finite(c(p, a, b))) && a >= 0 && b >= 0 &&
    (a > 0 || p < 0) && (b > 0 || p > 0)
}

# The M-step from the statistics of an E-step at par (about par$mu).
# |E 1/Y E Y - 1| below which the M-step holds gamma (mix_mstep_location()).
mstep_den_min <- 1e-9

# The M-step of the mixing parameters: list(p, a, b).
mix_mstep_sub <- function(st, par, family) {
  n <- st$tau
  # (the deviation means: the NIG M-step's input near normality)
  sub <- .Call(
    ffi_mix_subordinator, mix_family_code(family),
    c(st$s_log / n, st$s_inv / n, st$s_y / n, st$s_inv_dev / n,
      st$s_y_dev / n),
    c(par$p, par$a, par$b)
  )
  list(p = sub$p, a = sub$a, b = sub$b)
}

# A full Sigma's M-step (unpenalised) at the location step loc: the
# effective scatter S = sxx / n + sum_k c_k a_k b_k' of
# factor_scatter_terms() written out (this expression gives every full
# fit's bits), symmetrised.  With mu held (location_mu_held(), mu_u = 0)
# it is sxx / n - eta gamma gamma' to the bit (x - 0 and x + 0 are x, up
# to the sign of a zero).
full_sigma <- function(st, loc, par) {
  xw <- loc$xw
  mu_u <- loc$mu_u
  gamma <- loc$gamma
  sigma <- if (loc$held) {
    st$sxx / st$tau - tcrossprod(xw, mu_u) - tcrossprod(mu_u, xw) -
      tcrossprod(loc$xbar, gamma) - tcrossprod(gamma, loc$xbar) +
      loc$delta * tcrossprod(mu_u) + tcrossprod(mu_u, gamma) +
      tcrossprod(gamma, mu_u) + loc$eta * tcrossprod(gamma)
  } else {
    st$sxx / st$tau - tcrossprod(xw, mu_u) - tcrossprod(mu_u, xw) +
      loc$delta * tcrossprod(mu_u) - loc$eta * tcrossprod(gamma)
  }
  sigma <- (sigma + t(sigma)) / 2
  dimnames(sigma) <- dimnames(par$sigma)
  sigma
}

# The M-step of mu and gamma, and the means Sigma's effective scatter S
# at them is made of (full_sigma(), factor_scatter()); held: the
# near-normal branch (gamma held).
mix_mstep_location <- function(st, par, symmetric) {
  n <- st$tau
  delta <- st$s_inv / n
  eta <- st$s_y / n
  xbar <- st$sx / n
  xw <- st$sxw / n
  if (symmetric) {
    gamma <- rep(0, length(xbar))
    mu_u <- xw / delta
  } else if (abs(delta * eta - 1) > mstep_den_min) {
    gamma <- (delta * xbar - xw) / (delta * eta - 1)
    mu_u <- xbar - eta * gamma
  } else {
    # near normality (E 1/Y E Y - 1 below the rounding of the sums that
    # give gamma): the conditional M-step with gamma held, then mu, Sigma
    # given gamma (ECM, Meng and Rubin 1993: still monotone)
    gamma <- par$gamma
    mu_u <- (xw - gamma) / delta
  }
  list(mu = par$mu + mu_u, gamma = gamma, mu_u = mu_u, delta = delta,
       eta = eta, xbar = xbar, xw = xw,
       held = !symmetric && abs(delta * eta - 1) <= mstep_den_min)
}
