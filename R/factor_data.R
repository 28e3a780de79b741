# Factor fits (`factors = r`, R/fit_factor.R) wherever the rows are: the
# E-step over chunks or on a cluster (the factor E-step's statistics add
# over rows, so each chunk returns its O(d r) numbers and the engine sums
# them in chunk order, as for a full Sigma), the principal-component
# start from the chunks' one-pass summary, and the parameters of data
# fitted standardised (R/fit_scaling.R) in the user's units.  (Held
# parameters: R/constraints.R.)

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
