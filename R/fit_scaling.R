# Internal standardisation of a fit's data, only where the data in their own
# units would break the computation (issue 17, items 9 and 10).
#
# The rule (mix_scaling()): a column j with mean m_j and standard deviation
# s_j is out of range when s_j is not finite or outside [2^-128, 2^128]
# (Sigma ~ s^2 and the E-step's sums of n s^2 terms, and the information
# ~ 1/s^4 of vcov(), stay far inside the doubles in between), or when
# |m_j| > 2^26 s_j (mu then carries fewer than 26 bits below the spread, and
# an EM step rounds mu visibly: the log-likelihood can fall).  If any column
# is out of range, every column is fitted as z = (x - c) / s with c the
# column median (a representable centre: x - c is exact by Sterbenz's lemma
# near c) and s a power of two near a robust spread (the interquartile
# range / 1.349, else the standard deviation computed without overflow), so
# that the division is exact.  Otherwise the data are fitted as they are,
# and nothing below runs.
#
# A scaled fit keeps `scaling = list(center, scale, log_k, parameters)`:
# `parameters` are the fitted parameters in z units and in the fit's gauge
# there; the user's parameters are
#   mu = c + s mu_z, gamma = s gamma_z / k, Sigma = D Sigma_z D / k,
#   a = a_z / k, b = b_z k  (D = diag(s); Y = k Y_z),
# with log k = 2 sum(log s) / d in the "det" gauge (so that det Sigma = 1)
# and 0 in the "mean" gauge (E[Y] does not depend on the units); the
# log-likelihood is that of z less n sum(log s).  The methods compute on z
# and transform back, so they work where a parameter in the user's units
# over- or underflows.

scaling_lo <- 2^-128
scaling_hi <- 2^128
scaling_shift <- 2^26

# NULL when the data can be fitted as they are; else list(center, scale)
# (std: the columns' means and standard deviations, as fit_source() has
# them; w: the rows' weights, or NULL).
mix_scaling <- function(x, std, w = NULL) {
  if (!scaling_needed(std)) {
    return(NULL)
  }
  center <- column_medians(x, w)
  spread <- vapply(seq_len(ncol(x)), function(j) {
    robust_spread(x[, j], center[[j]], w)
  }, 0)
  list(center = center, scale = stats::setNames(2^round(log2(spread)),
                                                colnames(x)))
}

scaling_needed <- function(std) {
  s <- std$scale
  !all(is.finite(s) & s >= scaling_lo & s <= scaling_hi &
         abs(std$center) <= scaling_shift * s)
}

column_medians <- function(x, w = NULL) {
  if (is.null(w)) {
    return(apply(x, 2L, stats::median))
  }
  apply(x, 2L, weighted_median, w = w)
}

robust_spread <- function(v, center, w = NULL) {
  q <- if (is.null(w)) {
    stats::quantile(v, c(0.25, 0.75), names = FALSE)
  } else {
    weighted_quantile(v, w, c(0.25, 0.75))
  }
  iqr <- (q[2L] / 2 - q[1L] / 2) * 2 / 1.349
  if (is.finite(iqr) && iqr > 0) {
    return(iqr)
  }
  # (divided by a power of two first: no square over- or underflows)
  m <- 2^ceiling(log2(max(abs(v))))
  m * (if (is.null(w)) stats::sd else function(u) weighted_sd(u, w))(
    v / m - center / m
  )
}

# The rows of x (a matrix) in the units of the scaling.
scaling_apply <- function(x, sc) {
  n <- nrow(x)
  (x - rep(sc$center, each = n)) / rep(sc$scale, each = n)
}

# The parameter elements present in par (any of mu, gamma, sigma), from the
# units of scaling `from` into those of `to` (NULL: the data's own units).
scaling_move <- function(par, from, to) {
  if (identical(from[c("center", "scale")], to[c("center", "scale")])) {
    return(par)
  }
  d <- length(if (is.null(from)) to$scale else from$scale)
  unit <- list(center = rep(0, d), scale = rep(1, d))
  if (is.null(from)) from <- unit
  if (is.null(to)) to <- unit
  r <- from$scale / to$scale
  if (!is.null(par$mu)) {
    par$mu <- ((from$center - to$center) + from$scale * par$mu) / to$scale
  }
  if (!is.null(par$gamma)) par$gamma <- par$gamma * r
  if (!is.null(par$sigma)) par$sigma <- par$sigma * tcrossprod(r)
  par
}

# The log of k for the gauge (see the header).
scaling_log_k <- function(sc, gauge) {
  if (gauge == "det") 2 * sum(log(sc$scale)) / length(sc$scale) else 0
}

# The user's parameters from those in z units (in the gauge there; for a
# factor fit F = D F_z / sqrt(k) and uniquenesses s^2 D_z / k); the
# factors are taken in logs, so that only parameters that cannot be
# represented over- or underflow.
scaling_to_user <- function(par_z, sc, log_k) {
  ls <- log(sc$scale)
  par <- par_z
  par$mu <- sc$center + sc$scale * par_z$mu
  par$gamma <- par_z$gamma * exp(ls - log_k)
  par <- cov_of(par_z)$to_user(par, par_z, ls, log_k)
  par$a <- par_z$a * exp(-log_k)
  par$b <- par_z$b * exp(log_k)
  par
}

# Warn when a parameter cannot be represented in the user's units (uses:
# the methods that compute in standardised units).
scaling_check <- function(par, par_z, call, uses = NULL) {
  if (!scaling_lost(par, par_z)) {
    return(invisible())
  }
  if (is.null(uses)) {
    uses <- "predict(), fitted(), vcov(), simulate() and coef()"
  }
  ghmix_warn(
    paste(
      "Some fitted parameters overflow or underflow in the units of `x`",
      "(the data's scale is beyond the range of doubles for them); the",
      sprintf("fit's `scaling` holds them in standardised units, which %s use.",
              uses)
    ),
    class = "ghmix_warning_scale", call = call
  )
}

# Whether a parameter of par (the user's units) cannot be represented
# where its value par_z in z units can.
scaling_lost <- function(par, par_z) {
  keep <- c("mu", "gamma", "sigma", "loadings", "uniquenesses", "a", "b")
  z <- unlist(par_z[keep])
  u <- unlist(par[keep])
  lost <- (is.finite(z) & !is.finite(u)) |
    (z != 0 & abs(u) < .Machine$double.xmin) # zero or subnormal
  any(lost)
}

# The fit in z units: its parameters, data and trace there, without
# scaling (what the methods compute on).
fit_std_view <- function(object) {
  sc <- object$scaling
  object$parameters <- sc$parameters
  object$data <- scaling_apply(object$data, sc)
  object$scaling <- NULL
  object
}

# The per-row results of fit_rows_compute() on z back in the user's units:
# log f less sum(log s); E[Y|x], E[1/Y|x], E[log Y|x] for Y = k Y_z.
scaling_rows <- function(res, sc, col) {
  res[, col[["loglik"]]] <- res[, col[["loglik"]]] - sum(log(sc$scale))
  res[, col[["y"]]] <- res[, col[["y"]]] * exp(sc$log_k)
  res[, col[["inv_y"]]] <- res[, col[["inv_y"]]] * exp(-sc$log_k)
  res[, col[["log_y"]]] <- res[, col[["log_y"]]] + sc$log_k
  res
}

# sqrt(Sigma_jj) of each column in the data's units, computed in z units
# for a standardised fit (representable where Sigma_jj is not).
fit_column_sd <- function(object) {
  sc <- object$scaling
  if (!is.null(object$factors)) {
    return(sqrt(cov_of(object$parameters)$sigma_diag(object$parameters)))
  }
  if (is.null(sc)) {
    return(sqrt(diag(object$parameters$sigma)))
  }
  sqrt(diag(sc$parameters$sigma)) * exp(log(sc$scale) - sc$log_k / 2)
}

# Rows far from the rest (issue 17, item 10): beyond far_rows_limit robust
# spreads from the column medians, a row's square exceeds the others' by
# more than 2^52, the precision of the EM's sums of squares (the
# statistics of src/core/estep.h), which it then dominates.  Only a fit
# that did not converge asks (mix_warn_convergence()), and the direct
# maximisation of R/fit_extreme.R (with its own limits).
far_rows_limit <- 2^26

# list(rows, distance): the rows of x (a matrix) beyond `limit`
# robust spreads from the median in some column, and that distance (the
# largest over the columns).  cache: NULL, or an environment (a fit's
# src$columns) that keeps the columns' statistics for the next call on
# the same x.
far_rows <- function(x, limit = far_rows_limit, cache = NULL) {
  stats <- cache$spreads
  if (is.null(stats)) {
    stats <- lapply(seq_len(ncol(x)), function(j) column_spread(x[, j]))
    if (!is.null(cache)) cache$spreads <- stats
  }
  if (all(vapply(stats, function(s) isTRUE(s$top <= limit), NA))) {
    return(list(rows = integer(), distance = numeric()))
  }
  dist <- rep(0, nrow(x))
  for (j in seq_len(ncol(x))) {
    center <- stats[[j]]$center
    spread <- stats[[j]]$spread
    if (is.finite(spread) && spread > 0) {
      # (each term divided first: no difference overflows)
      dist <- pmax(dist, abs(x[, j] / spread - center / spread))
    }
  }
  rows <- which(dist > limit)
  list(rows = rows, distance = dist[rows])
}

# list(center, spread, top) of a column v: stats::median(v),
# robust_spread(v, center) and the largest distance of a value from the
# centre in spreads (0 where the spread is not positive), as far_rows()
# takes them, from one partial sort: the order statistics that median()
# and quantile(type = 7) interpolate, and the extremes (the distance,
# rounded as far_rows() rounds it, is monotone in the value).
column_spread <- function(v) {
  n <- length(v)
  half <- (n + 1L) %/% 2L
  index <- 1 + (n - 1) * c(0.25, 0.75)
  lo <- floor(index)
  hi <- ceiling(index)
  mid <- if (n %% 2L == 1L) half else half + 0:1
  s <- sort.int(v, partial = unique(c(1L, lo, hi, mid, n)))
  center <- if (n %% 2L == 1L) s[[half]] else mean(s[mid])
  q <- s[lo]
  i <- which(index > lo & s[hi] != q)
  h <- (index - lo)[i]
  q[i] <- (1 - h) * q[i] + h * s[hi[i]]
  iqr <- (q[2L] / 2 - q[1L] / 2) * 2 / 1.349
  spread <- if (is.finite(iqr) && iqr > 0) iqr else robust_spread(v, center)
  top <- if (is.finite(spread) && spread > 0) {
    max(abs(c(s[[1L]], s[[n]]) / spread - center / spread))
  } else {
    0
  }
  list(center = center, spread = spread, top = top)
}
