# Fits with rows far from the rest (issue 17, item 10).
#
# One row at D robust spreads from a bulk of n rows: the EM's M-step takes
# mu and Sigma as differences of sums about the old centre, dominated by
# that row's terms (~ D / n and D gamma / n), and fails from D ~ 1e13
# (the skew-t's from ~1e6).  The maximum itself is an ordinary interior
# one (for the NIG, sqrt(ab) ~ n delta^2 alpha / D: R/fit_run.R,
# mix_warn_convergence(); the GH's lies on its skew-t boundary a = 0),
# and the univariate log density, computed in log space with a
# cancellation-free exponent, resolves it.  So there the fit goes on by a
# direct quasi-Newton maximisation (nlminb(), PORT) of the log-likelihood
# (dgh()'s, confirmed by the E-step's), in robust units (medians and
# IQR / 1.349) and the det gauge, with log a, log b (ab ~ 1e-604 at
# D = 1e300 is no double, its logs are), evaluated in the balanced gauge
# a = b = sqrt(ab) (Y -> sqrt(a / b) Y), where every parameter is a
# double while sqrt(ab) ~ n / D is: D up to the largest doubles.  In
# d = 2 to extreme_max_d, NIG, GH and skew-t fits the same way, the far
# rows within extreme_mv_max_dist, with gamma in coordinates along and
# across the farthest row (extreme_gamma_map()).  The VG is left to the
# EM: its likelihood is unbounded for p < d / 2 (the density
# ~ |x - mu|^(2p - d) at mu), where a far row pulls it.

# The largest d of a direct maximisation: it is over mu, gamma, the
# Cholesky factor of Sigma and the mixing parameters, d (d + 5) / 2 + 1
# coordinates for the NIG (21 for d = 5, 22 for the GH), by finite
# differences in nlminb().
extreme_max_d <- 5L

# The farthest row (in robust spreads) of such a multivariate fit: the
# maximum puts x - mu nearly along gamma, where a rounding of x moves the
# part of z = L^-1 (x - mu) orthogonal to g by eps |z|, and log f by about
# |g| (eps |z|)^2 / (2 |z|) (src/core/mixture.h): below the fit's
# tolerance up to |z| ~ 2^64, beyond it the maximum is not resolved in
# doubles: there the farthest row's log density is taken in closed form
# (R/fit_extreme_far.R), where it is the only row that far (with more
# such rows, or with symmetric = TRUE, the EM's result stands with its
# warning).
extreme_mv_max_dist <- 2^64

# Rows beyond this many robust spreads bring the direct maximisation in
# after an EM that did not converge (the EM already fails for skew-t fits
# at ~1e6 robust spreads, below far_rows_limit); after one that did, rows
# beyond far_rows_limit.
extreme_rows_limit <- 2^10

# mix_em(par0, ctx), followed where it is needed by fit_extreme(); a start
# whose log-likelihood is not finite (the E-step's, with a row at ~1e300)
# goes straight to fit_extreme(), and the error stands if that finds no
# maximum.
extreme_em <- function(par0, ctx, src) {
  em <- tryCatch(mix_em(par0, ctx), ghmix_error_start = function(e) e)
  if (!inherits(em, "condition")) {
    return(fit_extreme(em, ctx, src, par0))
  }
  stub <- list(
    point = list(par = par0, ok = FALSE, loglik = -Inf), iterations = 0L,
    status = list(converged = FALSE, message = conditionMessage(em)),
    trace = mix_trace_frame(mix_trace_new(0), 1, ctx$nobs)
  )
  out <- fit_extreme(stub, ctx, src, par0)
  if (!out$point$ok) stop(em)
  out
}

# em as mix_em() returns it (from par0), or, for a fit on in-memory rows
# (src$stored) some of which are far (extreme_far()), the direct maximum
# when it is higher.
fit_extreme <- function(em, ctx, src, par0) {
  far <- extreme_far(em, ctx, src)
  if (is.null(far)) {
    return(em)
  }
  ctx <- extreme_context(ctx, src, far)
  k <- extreme_gauge_index(ctx, ctx$engine$d)
  log_dist <- log(max(far$distance))
  best <- extreme_best(extreme_starts(em, ctx, src, par0, far$rows, k,
                                      log_dist), ctx, k, log_dist)
  # (the EM's log-likelihood is rounded where a row is taken exactly)
  if (is.null(best) ||
        (is.null(ctx$far_exact) && best$pt$loglik < em$point$loglik)) {
    return(em)
  }
  extreme_result(em, best, ctx)
}

# The highest of the candidates from starts (NULL if none).
extreme_best <- function(starts, ctx, k, log_dist) {
  best <- NULL
  for (v0 in starts) {
    cand <- extreme_candidate(v0, ctx, k, log_dist)
    if (!is.null(cand) && (is.null(best) || cand$pt$loglik > best$pt$loglik)) {
      best <- cand
    }
  }
  best
}

# NULL, or the far rows (far_rows()) that call for the direct maximisation
# of a fit of d <= extreme_max_d: beyond
# extreme_rows_limit after an EM that did not converge, beyond
# far_rows_limit after one that did (its steps there are rounded: it may
# have stopped short); with d >= 2, none beyond extreme_mv_max_dist but
# the farthest, and that one only with gamma.  (The multivariate
# density's exponent is cancellation-free at far rows on the heavy side:
# src/core/mixture.h.)
# The VG keeps the EM (above).
extreme_far <- function(em, ctx, src) {
  if (!extreme_applies(ctx, src)) {
    return(NULL)
  }
  limit <- if (em$status$converged) far_rows_limit else extreme_rows_limit
  far <- far_rows(src$stored, limit, src$columns)
  if (length(far$rows) == 0L ||
        (ctx$engine$d > 1L && max(far$distance) > extreme_mv_max_dist &&
           (ctx$symmetric || sum(far$distance > extreme_mv_max_dist) > 1L))) {
    return(NULL)
  }
  far
}

extreme_applies <- function(ctx, src) {
  extreme_plain_model(ctx) && !ctx$ties$unbounded &&
    is.matrix(src$stored) && family_get(ctx$family)$rescue &&
    ctx$engine$d <= extreme_max_d
}

# No fixed parameters, prior or factor form (those fits stay with the EM).
extreme_plain_model <- function(ctx) {
  is.null(ctx$fixed) && is.null(ctx$shrink) && is.null(ctx$factors)
}

# The starts (vectors v, theta less its gauge entry): the EM's last point,
# par0 (the EM can fall from it here: a GH fit from the fitted NIG), and
# the fit of the other rows with its skewness and mixing parameters
# searched (extreme_tail_search()).
extreme_starts <- function(em, ctx, src, par0, far, k, log_dist) {
  starts <- if (em$point$ok) {
    list(extreme_theta(em$point$par, ctx)[-k], extreme_theta(par0, ctx)[-k])
  }
  bulk <- extreme_bulk_start(src, far, ctx)
  if (!is.null(bulk)) bulk <- extreme_theta(bulk, ctx)
  if (!is.null(bulk)) {
    starts <- c(starts, list(extreme_tail_search(bulk[-k], ctx, k, log_dist)))
  }
  # (NULL: a start whose sigma is no positive definite matrix in these
  # units, e.g. the EM's last one with a row at 1e18 in d = 2)
  Filter(Negate(is.null), starts)
}

# em with the direct maximum best (extreme_candidate()): its point, a last
# trace line (step "direct"), converged when the last restart gained no
# more than extreme_tol().
extreme_result <- function(em, best, ctx) {
  pt <- best$pt
  n <- length(em$trace$loglik)
  em$trace[n + 1L, ] <- list(n, pt$loglik, pt$loglik / ctx$nobs, "direct",
                             NA_real_)
  em$point <- pt
  em$iterations <- em$iterations + 1L
  if (ctx$control$tol > 0 && best$gain <= extreme_tol(ctx)) {
    em$status <- list(converged = TRUE, message = "converged")
  }
  em
}

# The maximum from v0, confirmed (NULL if not), and the gain of the last
# restart from it (the convergence rule: the log-likelihood is flat in
# log a to O(1 / D), so there is no rule on the parameters).
extreme_candidate <- function(v0, ctx, k, log_dist) {
  opt <- extreme_maximise(v0, ctx)
  for (i in 1:4) {
    # nlminb() stops early along log a, where the log-likelihood is
    # nearly flat: line searches there, then nlminb() again
    v <- extreme_tail_search(opt$par, ctx, k, log_dist, 1L)
    again <- extreme_maximise(v, ctx)
    gain <- opt$objective - again$objective
    if (gain > 0) opt <- again
    if (!(gain > extreme_tol(ctx))) break
  }
  pt <- extreme_point(opt$par, ctx)
  confirmed <- if (is.null(ctx$far_exact)) {
    extreme_confirmed(pt, ctx)
  } else {
    extreme_far_confirmed(pt, ctx)
  }
  if (!pt$ok || !confirmed) {
    return(NULL)
  }
  list(pt = pt, gain = max(gain, 0))
}

# The gain in log-likelihood below which the maximisation has converged
# (the EM's rule on it).
extreme_tol <- function(ctx) ctx$control$tol * ctx$nobs

# Whether the E-step's log-likelihood at pt (in the units the rows are
# fitted in) agrees with dgh()'s: two computations, so that the maximiser
# has not run into parameters where one of them loses its accuracy.
extreme_confirmed <- function(pt, ctx) {
  chol_l <- .Call(ffi_chol_lower, pt$par$sigma)
  st <- mix_estep(ctx$engine, pt$par, ctx$what, chol_l = chol_l)
  !is.null(st) && st$n_bad == 0 &&
    isTRUE(abs(st$loglik - pt$loglik) <= 1e-9 * (1 + abs(pt$loglik)))
}

extreme_objective <- function(ctx) {
  function(v) {
    pt <- extreme_point(v, ctx)
    # (finite: optimize() warns of an infinite value)
    if (pt$ok) -pt$loglik else .Machine$double.xmax
  }
}

# nlminb() from v0; v0 itself where it ends at non-finite parameters.
# (It minimises the objective per row of the smallest weight, so that its
# steps do not depend on the scale of the weights.)
extreme_maximise <- function(v0, ctx) {
  obj <- extreme_objective(ctx)
  unit <- if (is.null(ctx$w)) 1 else weights_unit(ctx$w)
  per_unit <- if (unit == 1) obj else function(v) {
    min(obj(v) / unit, .Machine$double.xmax)
  }
  opt <- stats::nlminb(v0, per_unit, control = list(
    eval.max = 4000L, iter.max = 2000L, rel.tol = 1e-14
  ))
  if (all(is.finite(opt$par)) && is.finite(opt$objective)) {
    opt$objective <- opt$objective * unit
    return(opt)
  }
  list(par = v0, objective = obj(v0))
}

# A copy of ctx with std the rows' medians and robust spreads (those of the
# rows as fitted): the units the maximisation works in (the EM's, the
# moments, are ~ D / sqrt(n) there), the rows z in those units and their
# weights w (NULL: all 1), gamma_map (extreme_gamma_map()) for the
# farthest of the rows `far` (far_rows()) and its norm far_norm in those
# units, and far_exact (extreme_far_exact()).
extreme_context <- function(ctx, src, far) {
  x <- src$stored
  if (!is.null(src$scaling)) x <- scaling_apply(x, src$scaling)
  center <- column_medians(x, src$weights)
  scale <- vapply(seq_len(ncol(x)), function(j) {
    robust_spread(x[, j], center[[j]], src$weights)
  }, 0)
  out <- as.environment(as.list(ctx, all.names = TRUE))
  out$std <- list(center = center, scale = scale)
  out$z <- scaling_apply(x, out$std)
  out$x <- x
  out$w <- weights_in_sums(src$weights)
  if (!ctx$symmetric && ncol(x) > 1L) {
    z_far <- out$z[far$rows[[which.max(far$distance)]], ]
    out$gamma_map <- extreme_gamma_map(z_far)
    out$far_norm <- extreme_norm(z_far)
  }
  out$far_exact <- extreme_far_exact(ctx, far)
  out
}

# The matrix M of the coordinates w of gamma = M w (in theta) maximised
# over in d >= 2, for a far row at z (robust units): w[1] along z, the
# others across it in units of 1 / sqrt(|z|).  The far row's exponent
# B - omega costs about |g_perp|^2 |z| / (2 |g|) for the part g_perp of the
# whitened gamma across the row (src/core/mixture.h): a ridge of width
# ~ |z|^(-1/2) in gamma's own coordinates, which no line search finds at
# |z| = 1e13, of width O(1) in w.
extreme_gamma_map <- function(z) {
  u <- z / extreme_norm(z)
  basis <- qr.Q(qr(cbind(u, diag(length(z)))))
  basis[, 1L] <- u
  basis %*% diag(c(1, rep(1 / sqrt(extreme_norm(z)), length(z) - 1L)))
}

# |z| without overflow (a row at 1e300)
extreme_norm <- function(z) {
  m <- max(abs(z))
  m * sqrt(sum((z / m)^2))
}

# theta with its gamma entries mapped by gamma_map (inverse: from theta's
# gamma to w, less its part across the far row, which puts a start off
# the ridge by ~ sqrt(|z|), and pointing towards it).
extreme_map_gamma <- function(theta, ctx, d, inverse = FALSE) {
  if (is.null(ctx$gamma_map)) {
    return(theta)
  }
  i <- d + seq_len(d)
  theta[i] <- if (inverse) {
    # (towards the far row: the side where its density is resolved)
    c(abs(crossprod(ctx$gamma_map[, 1L], theta[i])), numeric(d - 1L))
  } else {
    ctx$gamma_map %*% theta[i]
  }
  theta
}

# theta (pack_em()) of par in the standardised det gauge of ctx, with
# log a and log b taken without underflow (NULL where sigma is not
# positive definite in those units).
extreme_theta <- function(par, ctx) {
  d <- length(par$mu)
  z <- to_std(par, ctx$std)
  chol_z <- tryCatch(t(chol(z$sigma)), error = function(e) NULL)
  if (is.null(chol_z)) {
    return(NULL)
  }
  log_diag <- log(diag(chol_z))
  log_s <- 2 * sum(log_diag) / d
  z <- apply_scale(z, exp(log_s))
  tri <- mix_tri_index(ctx, d)
  chol_v <- (chol_z / exp(log_s / 2))[tri$lower]
  chol_v[tri$lower_diag] <- log_diag - log_s / 2
  theta <- extreme_map_gamma(pack_em(z, ctx$family, ctx$symmetric, chol_v),
                             ctx, d, inverse = TRUE)
  la <- log(par$a) - log_s
  lb <- log(par$b) + log_s
  ab <- family_get(ctx$family)$far_ab(la, lb, log_s)
  theta[length(theta) - rev(seq_along(ab)) + 1L] <- ab
  theta
}

# The parameters of the fit of the rows less the far ones, in the units
# the rows are fitted in (NULL if it fails).
extreme_bulk_start <- function(src, far, ctx) {
  w <- if (is.null(src$weights)) NULL else src$weights[-far]
  fit <- tryCatch(suppressWarnings(mix_fit(
    src$stored[-far, , drop = FALSE], ctx$family, ctx$symmetric, NULL,
    ctx$control, "det", FALSE, "cpu", ghmix_threads(), 0L, ctx$call,
    weights = w
  )), error = function(e) NULL)
  if (is.null(fit)) {
    return(NULL)
  }
  # (an error where the bulk's parameters are no doubles in these units)
  tryCatch(mix_start(src$stored, fit, ctx$family, ctx$symmetric, ctx$call,
                     src$std, src$scaling), error = function(e) NULL)
}

# v with gamma (by O(1) in robust units) and the mixing coordinates
# (log a, log b, p or log |p|, over a wide range) moved to their best
# values, along each in turn and along the mixing coordinates' sum, in
# `sweeps` rounds: the far rows pull them a long way (log a by ~ -2 log D
# for the NIG).
extreme_tail_search <- function(v, ctx, k, log_dist, sweeps = 2L) {
  obj <- extreme_objective(ctx)
  d <- ctx$engine$d
  unit <- function(j) replace(numeric(length(v)), j, 1)
  mixing <- seq(k, length(v))
  skew <- if (ctx$symmetric) integer() else d + seq_len(d)
  dirs <- c(lapply(skew, unit), lapply(mixing, unit),
            list(replace(numeric(length(v)), mixing, 1)))
  span <- 3 * log_dist + 20
  for (sweep in seq_len(sweeps)) {
    for (u in dirs) {
      # gamma (in robust units) by O(1); the mixing parameters far
      lim <- if (any(u[skew] != 0)) c(-4, 4) else c(-span, span / 4)
      v <- extreme_line_search(function(t) obj(v + t * u), lim) * u + v
    }
  }
  v
}

# The best t in lim for f, from a grid (f need not be unimodal) refined by
# optimize(); 0 unless that is better than f(0).
extreme_line_search <- function(f, lim) {
  grid <- seq(lim[[1L]], lim[[2L]], length.out = 40L)
  vals <- vapply(grid, f, 0)
  i <- which.min(vals)
  if (vals[[i]] >= f(0)) {
    return(0)
  }
  t <- stats::optimize(f, grid[c(max(i - 1L, 1L), min(i + 1L, 40L))])$minimum
  if (f(t) < vals[[i]]) t else grid[[i]]
}

# The position in theta (pack_em()) of the last log diagonal entry of
# the Cholesky factor: minus the sum of the others in the det gauge, so
# left out of the vector maximised over.
extreme_gauge_index <- function(ctx, d) {
  d * (if (ctx$symmetric) 1L else 2L) + d * (d + 1L) / 2L
}

extreme_unpack <- function(v, ctx, d) {
  k <- extreme_gauge_index(ctx, d)
  dg <- mix_tri_index(ctx, d)$lower_diag
  theta <- append(v, 0, after = k - 1L)
  off <- k - d * (d + 1L) / 2L
  theta[k] <- -sum(theta[off + dg[-d]])
  theta
}

# The point of the standardised vector v (theta less its gauge entry):
# par (in the units the rows are fitted in, the balanced gauge for the
# NIG and GH), theta, ok and loglik, the elements of mix_point()'s that
# mix_result() reads.
extreme_point <- function(v, ctx) {
  d <- ctx$engine$d
  w <- extreme_unpack(v, ctx, d)
  theta <- extreme_map_gamma(w, ctx, d)
  sg <- 1
  z <- unpack_em(theta, ctx$family, ctx$symmetric, d)
  sub <- theta[extreme_gauge_index(ctx, d) + seq_len(3L)]
  chol_z <- matrix(0, d, d)
  chol_z[lower.tri(chol_z, TRUE)] <- theta[extreme_gauge_index(ctx, d) -
                                             d * (d + 1L) / 2L +
                                             seq_len(d * (d + 1L) / 2L)]
  diag(chol_z) <- exp(diag(chol_z))
  ab_at <- family_get(ctx$family)$ab_at
  if (!is.null(ab_at)) {
    lab <- sub[ab_at]
    sg <- exp((lab[[1L]] - lab[[2L]]) / 2)
    z <- apply_scale(z, sg)
    z$a <- z$b <- exp(sum(lab) / 2)
    chol_z <- chol_z / sqrt(sg)
  }
  z$sigma <- tcrossprod(chol_z)
  loglik <- extreme_loglik(z, chol_z, ctx,
                           extreme_far_tilt(ctx, w[d + seq_len(d)], sg))
  list(par = from_std(z, ctx$std), theta = theta, ok = is.finite(loglik),
       loglik = as.vector(loglik), far = attr(loglik, "far"))
}

# The log-likelihood of the rows as fitted at the parameters z in the
# units of ctx$std (lower Cholesky factor chol_z of z$sigma), by dgh(), the
# density computed in log space without the E-step's sums; the row
# far_exact, if any, by extreme_far_ldens() with gamma as `tilt`
# (extreme_far_tilt()).
extreme_loglik <- function(z, chol_z, ctx, tilt = NULL) {
  if (!extreme_valid(z, chol_z)) {
    return(NA_real_)
  }
  sigma <- if (ncol(ctx$z) == 1L) chol_z[1L] else tcrossprod(chol_z)
  x <- if (ncol(ctx$z) == 1L) ctx$z[, 1L] else ctx$z
  i <- ctx$far_exact
  far <- NULL
  f <- if (is.null(i)) {
    extreme_dgh(x, z, sigma)
  } else {
    far <- extreme_far_ldens(z, chol_z, tilt)
    # (NA from extreme_dgh(): all NA)
    append(extreme_dgh(x[-i, , drop = FALSE], z, sigma) + numeric(
      nrow(x) - 1L
    ), far, after = i - 1L)
  }
  ll <- if (is.null(ctx$w)) sum(f) else sum(ctx$w * f)
  structure(ll - ctx$nobs * sum(log(ctx$std$scale)), far = far)
}

extreme_valid <- function(z, chol_z) {
  all(is.finite(chol_z)) && all(diag(chol_z) > 0) &&
    all(is.finite(c(z$mu, z$gamma))) && gig_valid(z$p, z$a, z$b)
}

# dgh(log = TRUE) of the rows x at z (sigma its Sigma), NA where it fails
# (an error where tcrossprod(chol_z) rounds to no positive definite
# matrix).
extreme_dgh <- function(x, z, sigma) {
  tryCatch(suppressWarnings(dgh(x, z$mu, z$gamma, sigma, z$p, z$a, z$b,
                                log = TRUE)),
           ghmix_error = function(e) NA_real_)
}
