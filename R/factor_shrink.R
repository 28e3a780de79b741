# Penalised factor-analytic fits (`shrink =` with `factors = r`): the prior
# of R/shrink.R on Sigma = F F' + diag(D), with no d x d matrix for the
# built-in targets ("diagonal", "identity": T kept as its diagonal t).
#
# Objective: loglik + P*(Sigma), P* from log det Sigma (the E-step's
# logdet) and tr(Sigma^-1 T) by Woodbury: Sigma^-1 = D^-1 - D^-1 F beta
# with beta = F' Sigma^-1 = M^-1 F' D^-1 (the E-step's proj), so
#   tr(Sigma^-1 T) = sum(diag(T) / D) - sum((F / D) * (T beta')),
# O(d r) for a diagonal T (T beta' = t * beta'), O(d^2 r) for a matrix.
#
# M-step: the factor-analysis EM step of R/fit_factor.R on the penalised
# scatter S* = S + lambda (T / c* - S), lambda = k / (W + k), c* =
# tr(Sigma^-1 T) / d at the current Sigma: it needs only
#   S* beta' = S beta' + lambda (T beta' / c* - S beta'),
#   diag S* = diag S + lambda (diag T / c* - diag S).
# Monotone: in the gauge c* (Sigma -> c* Sigma, where P = P*), the
# MAP-EM auxiliary function's Sigma part is -(W + k) / 2 [log det Sigma +
# tr(Sigma^-1 S*)] with S* the scatter of that gauge; one FA EM step on S*
# increases it (it is one EM step of the FA likelihood of S*; Rubin and
# Thayer 1982), mu, gamma and the mixing law maximise their own parts, so
# the step is a GEM step for loglik + P from the point in gauge c*, and
# loglik + P*(Sigma_new) >= loglik + P(Sigma_new in gauge c*) as in
# R/shrink.R.  The FA step is equivariant under (F, D, S) -> (s^1/2 F,
# s D, s S), so the step taken in the current gauge, on S + lambda (T / c*
# - S), is that step written back.  c* is held through the step (it is a
# function of the current point only), so re-estimating it each iteration
# keeps every iteration a GEM step for the objective.

# The target part of the prior of a factor fit (shrink_setup()): target
# (the diagonal t as a vector for "diagonal" and "identity", else the
# matrix; the data's units, which are the fitted ones: factor fits are not
# standardised), target_diag (t), target_fit (the matrix, or NULL).
factor_shrink_target <- function(spec, src, call) {
  d <- src$engine$d
  v <- src$std$scale^2
  out <- list(
    type = if (is.character(spec$target)) spec$target else "matrix",
    target = NULL, target_diag = NULL, target_fit = NULL,
    weight = spec$weight, rule = "given", intensity = NA_real_, d = d,
    factor = TRUE
  )
  if (is.matrix(spec$target)) {
    out$target <- shrink_target(spec$target, NULL, rep(1, d), call)$user
    out$target_fit <- out$target
    out$target_diag <- diag(out$target)
    return(out)
  }
  t_diag <- if (spec$target == "diagonal") v else rep(mean(v), d)
  if (!all(is.finite(t_diag) & t_diag > 0)) {
    shrink_abort_target(call)
  }
  out$target <- out$target_diag <- unname(t_diag)
  out
}

# T beta' (d x r) for the prior's target; beta_t = beta' (d x r).
factor_target_times <- function(prior, beta_t) {
  if (is.null(prior$target_fit)) {
    prior$target_diag * beta_t
  } else {
    prior$target_fit %*% beta_t
  }
}

# tr(Sigma^-1 T) at par (the header), from T beta' (tb; beta = F'
# Sigma^-1, the E-step's proj).
factor_shrink_trace <- function(par, tb, prior) {
  dd <- par$uniquenesses
  sum(prior$target_diag / dd) - sum((par$loadings / dd) * tb)
}

# factor_point()'s point with its objective loglik + P* and
# tr(Sigma^-1 T) (for the next M-step's c*).
factor_shrink_point <- function(pt, prior) {
  if (!pt$ok) {
    return(pt)
  }
  tb <- factor_target_times(prior, t(pt$st$proj))
  pt$shrink_tr <- factor_shrink_trace(pt$par, tb, prior)
  pen <- shrink_penalty(pt$st$logdet, pt$shrink_tr, prior$d, prior$weight)
  pt$objective <- pt$loglik + pen
  pt$ok <- is.finite(pt$objective)
  pt
}

# The penalised scatter S* (factor_scatter()'s proj = S beta' and diag)
# of the M-step from the E-step st with tr(Sigma^-1 T) = shrink_tr (the
# header); d = 1: unchanged.
factor_shrink_scatter <- function(sc, st, prior, shrink_tr) {
  if (prior$d == 1L) {
    return(sc)
  }
  tb <- factor_target_times(prior, t(st$proj))
  c_star <- shrink_tr / prior$d
  k <- prior$weight
  w <- st$tau
  list(proj = shrink_sigma(sc$proj, tb, k, w, c_star),
       diag = shrink_sigma(sc$diag, prior$target_diag, k, w, c_star))
}

# The Ledoit-Wolf intensity of shrink_intensity() for the rows x (weights
# w, NULL: all 1) toward the prior's target, without the d x d sample
# covariance S: ||S||^2 from column blocks (factor_frob2()), tr(S) and
# <S, T> from the rows, so that ||S - c T||^2 = ||S||^2 - <S, T>^2 /
# ||T||^2 (c = <S, T> / ||T||^2).  O(n d^2) time, O(n d) memory.  d = 1:
# S has the target's shape, rho = 0 (not left to rounding).
factor_shrink_intensity <- function(x, w, prior) {
  d <- ncol(x)
  if (d == 1L) {
    return(0)
  }
  if (is.null(w)) w <- rep(1, nrow(x))
  tot <- sum(w)
  x <- x - rep(colSums(x * w) / tot, each = nrow(x))
  if (prior$type == "diagonal") {
    x <- x / rep(sqrt(colSums(x^2 * w) / tot), each = nrow(x))
    off <- factor_frob2(x, w) / tot^2 - sum((colSums(x^2 * w) / tot)^2)
    b2 <- (sum(w * (rowSums(x^2)^2 - rowSums(x^4))) - tot * off) / tot^2
    d2 <- off
  } else {
    s2 <- factor_frob2(x, w) / tot^2
    b2 <- (sum(w * rowSums(x^2)^2) - tot * s2) / tot^2
    d2 <- if (prior$type == "identity") {
      s2 - (sum(x^2 * w) / tot)^2 / d
    } else {
      tt <- prior$target_fit
      s2 - (sum(w * rowSums((x %*% tt) * x)) / tot)^2 / sum(tt^2)
    }
  }
  if (d2 <= 0) {
    return(0)
  }
  min(max(b2, 0), d2) / d2
}

# ||x' diag(w) x||^2 (Frobenius) by blocks of columns of that matrix, at
# most `cells` entries at a time (one block: crossprod(), half the work).
factor_frob2 <- function(x, w, cells = factor_block_cells) {
  y <- x * sqrt(w)
  d <- ncol(y)
  b <- max(1L, floor(cells / d))
  if (b >= d) {
    return(sum(crossprod(y)^2))
  }
  total <- 0
  for (j in seq(1L, d, by = b)) {
    cols <- j:min(d, j + b - 1L)
    total <- total + sum(crossprod(y, y[, cols, drop = FALSE])^2)
  }
  total
}

factor_block_cells <- 2^22
