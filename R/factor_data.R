# Factor fits (`factors = r`, R/fit_factor.R) wherever the rows are and
# whatever is held: the E-step over chunks or on a cluster (the factor
# E-step's statistics add over rows, so each chunk returns its O(d r)
# numbers and the engine sums them in chunk order, as for a full Sigma),
# the principal-component start from the chunks' one-pass summary, the
# parameters of `fixed` held by conditional M-steps, and the parameters of
# data fitted standardised (R/fit_scaling.R) in the user's units.

# The E-step of factor_point(): by the engine of the rows in memory (on
# the CPU or a GPU: factor_engine()), or, in a context without one, on
# ctx$rows, or over the chunks of ctx$engine.
factor_point_estep <- function(par, ctx) {
  run <- ctx$engine$estep_factor
  if (!is.null(run)) {
    return(run(par, ctx$what, FALSE))
  }
  if (!is.null(ctx$rows)) {
    return(factor_estep(ctx$rows, par, ctx$what, ctx$weights,
                        threads = ctx$threads))
  }
  factor_estep_chunks(ctx$engine, par, ctx$what)
}

# factor_estep() of all the rows of a chunked engine: the sums from the
# chunks, and the constants of the parameters (beta = F' Sigma^-1, log det
# Sigma, gamma' Sigma^-1 gamma) from the C glue on no rows, so that they
# are the numbers the in-memory E-step uses.
factor_estep_chunks <- function(engine, par, what) {
  d <- engine$d
  head <- factor_estep(matrix(0, 0L, d), par, what)
  if (is.null(head)) {
    return(NULL)
  }
  raw <- engine$estep_mixture(factor_estep_args(par, what))
  st <- factor_unpack(raw, d, ncol(par$loadings))
  st[c("proj", "logdet", "gsg")] <- head[c("proj", "logdet", "gsg")]
  st
}

# The arguments of a factor E-step as the engines' estep_mixture() and the
# chunk tasks (chunk_estep()) take them; the "weights" flag is set where
# the rows have weights.
factor_estep_args <- function(par, what) {
  loadings <- par$loadings
  storage.mode(loadings) <- "double"
  list(center = as.double(par$mu), loadings = loadings,
       uniquenesses = as.double(par$uniquenesses),
       gamma = as.double(par$gamma), pab = as.double(c(par$p, par$a, par$b)),
       what = bitwAnd(as.integer(what), bitwNot(ghmix_flags("estep",
                                                             "weights"))))
}

# The principal components of factor_pca() from the chunks' merged
# summary (chunk_merge(): its cross-products cp about the mean, which the
# summary already holds): the same subspace iteration, C V = cp V /
# (n - 1), O(d^2 r) per step.
factor_pca_summary <- function(tot, std, r, iter = 4L) {
  d <- length(std$scale)
  k <- min(d, r + 5L)
  den <- chunk_divisor(tot)
  top <- order(std$scale, decreasing = TRUE)[seq_len(k)]
  factor_subspace(function(v) tot$cp %*% v / den,
                  tot$cp[, top, drop = FALSE], std$scale, iter)
}

# Held parameters ------------------------------------------------------------

# The conditional M-step of a factor fit with the parameters of ctx$fixed
# held (ECM, Meng and Rubin 1993): mu held gives the location step of
# mix_mstep_mu_held() (the scatter about mu + Y gamma), p, a and b the
# mixing steps of the full fits (fixed_mstep_sub(), gauge_search()); F and
# D then by the factor-analysis step on that scatter (penalised with a
# prior, shrink_tr: tr(Sigma^-1 T) at par), as in factor_mstep().
factor_mstep_fixed <- function(st, par, ctx, shrink_tr = NULL) {
  fixed <- ctx$fixed
  if (!is.null(fixed$gamma)) {
    return(factor_mstep_gamma_held(st, par, ctx, shrink_tr))
  }
  loc <- if (is.null(fixed$mu)) {
    mix_mstep_location(st, par, ctx$symmetric)
  } else {
    factor_location_mu_held(st, par, ctx$symmetric)
  }
  sc <- factor_scatter(st, factor_scatter_terms(loc))
  sc <- penalty_scatter(sc, st, ctx$shrink, shrink_tr)
  fd <- factor_fa_step(sc, st$proj, par$loadings)
  sub <- if (fixed_in_gauge(fixed)) {
    gauge_mixing(gauge_search(st, par, fixed))
  } else {
    fixed_mstep_sub(st, par, ctx)
  }
  c(list(mu = loc$mu, gamma = loc$gamma), fd, sub)
}

# mix_mstep_location()'s result with mu held: gamma = mean u / mean E Y
# (0 when symmetric) and no move of mu.
factor_location_mu_held <- function(st, par, symmetric) {
  n <- st$tau
  xbar <- st$sx / n
  eta <- st$s_y / n
  gamma <- if (symmetric) rep(0, length(xbar)) else xbar / eta
  list(mu = par$mu, gamma = gamma, mu_u = rep(0, length(xbar)),
       delta = st$s_inv / n, eta = eta, xbar = xbar, xw = st$sxw / n,
       held = FALSE)
}

# The M-step with a nonzero gamma* = g0 held in the gauge E[Y] = 1
# (R/fit_fixed_gauge.R), as two conditional steps (ECM, Meng and Rubin
# 1993).  First gauge_search() over log k (k = E[Y], gamma = g0 / k), the
# free mixing parameters, mu and a scale s of Sigma -> s Sigma (F -> s^1/2
# F, D -> s D) with F and D otherwise held: for the scatter M(gamma) of
# fit_fixed_gauge.R's header, Q_N = -(d log s + log det Sigma) / 2 -
# tr(Sigma^-1 M) / (2 s), at its best s = tr(Sigma^-1 M) / d
# -d / 2 log tr(Sigma^-1 M) up to a constant (factor_gauge_normal(); the
# full fit's profile over Sigma, -log det M / 2, has no closed form here).
# Then the factor-analysis step from (s^1/2 F, s D) on M at the new mu
# and gamma, whose beta is beta / s^1/2 (penalised with a prior, whose
# tr(Sigma^-1 T) is then shrink_tr / s).  Each step raises Q, so the
# iteration is a GEM; its fixed points are stationary points of the
# likelihood with gamma* held.
factor_mstep_gamma_held <- function(st, par, ctx, shrink_tr) {
  fixed <- ctx$fixed
  best <- gauge_search(st, par, fixed, factor_gauge_normal(st, par))
  s <- best$normal$scale
  m <- gauge_means(st)
  mu_u <- best$normal$mu_u
  loc <- list(mu = par$mu + mu_u, gamma = fixed$gamma / best$k, mu_u = mu_u,
              delta = m$delta, eta = m$eta, xbar = m$xbar, xw = m$xw,
              held = TRUE)
  at <- st
  at$proj <- st$proj / sqrt(s)
  at$sxx_proj <- st$sxx_proj / sqrt(s)
  sc <- factor_scatter(at, factor_scatter_terms(loc))
  sc <- penalty_scatter(sc, at, ctx$shrink, shrink_tr / s)
  fd <- factor_fa_step(sc, at$proj, par$loadings * sqrt(s))
  names(loc$gamma) <- names(par$gamma)
  c(loc[c("mu", "gamma")], fd, gauge_mixing(best))
}

# Q_N of factor_mstep_gamma_held() at the best scale of Sigma (par's, with
# beta = st$proj) for gauge_q(): tr(Sigma^-1 M(gamma)) from the E-step's
# S beta' and diag(S) and Sigma^-1 v = v / D - (F / D) beta v (Woodbury),
# O(d r) per trial; mu_u the move of mu (0 with mu held), scale the best s.
factor_gauge_normal <- function(st, par) {
  dd <- par$uniquenesses
  fd <- par$loadings / dd
  d <- length(dd)
  beta <- if (ncol(fd) == 0L) matrix(0, 0L, d) else st$proj
  inv <- function(v) v / dd - drop(fd %*% (beta %*% v))
  tr_sxx <- (sum(st$sxx_diag / dd) - sum(fd * st$sxx_proj)) / st$tau
  function(gamma, m, mu_held) {
    mu_u <- if (mu_held) 0 * gamma else (m$xw - gamma) / m$delta
    rest <- m$xbar - mu_u
    inv_g <- inv(gamma)
    tr <- tr_sxx - 2 * sum(m$xw * inv(mu_u)) +
      m$delta * sum(mu_u * inv(mu_u)) - 2 * sum(rest * inv_g) +
      m$eta * sum(gamma * inv_g)
    list(mu_u = mu_u, scale = tr / d,
         q = if (tr > 0) -d / 2 * log(tr / d) else -Inf)
  }
}

# Standardised data ----------------------------------------------------------

# The factor parameters present in par (loadings, uniquenesses) from the
# units of scaling `from` into those of `to` (scaling_move() moves mu,
# gamma): F -> diag(r) F, D -> r^2 D with r the ratio of the scales.
factor_scaling_move <- function(par, from, to) {
  out <- scaling_move(par[intersect(names(par), c("mu", "gamma"))], from, to)
  par[names(out)] <- out
  if (identical(from[c("center", "scale")], to[c("center", "scale")])) {
    return(par)
  }
  d <- length(if (is.null(from)) to$scale else from$scale)
  r <- (if (is.null(from)) rep(1, d) else from$scale) /
    (if (is.null(to)) rep(1, d) else to$scale)
  if (!is.null(par$loadings)) {
    par$loadings <- as.double(par$loadings) * r
  }
  if (!is.null(par$uniquenesses)) {
    par$uniquenesses <- par$uniquenesses * r^2
  }
  par
}

# A standardised factor fit's parameters: those in z units
# (fit$scaling$parameters) in the documented rotation, the column signs
# chosen by the loadings in the user's units (compared in logs, where they
# may overflow), and the user's from them (scaling_to_user()).
factor_result_scaled <- function(fit) {
  sc <- fit$scaling
  z <- factor_rotate(sc$parameters, log(sc$scale))
  fit$scaling$parameters <- z
  held <- fit$parameters[c("mu", "gamma", "p", "a", "b")]
  fit$parameters <- scaling_to_user(z, sc, sc$log_k)
  fit$parameters[names(held)] <- held
  fit
}
