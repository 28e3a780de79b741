# Observation (frequency) weights of a fit: their checks, and the weighted
# moments and quantiles the start, the standardisation and the ties use, so
# that integer weights give what the rows replicated would give.

# The weights of the rows of a fit: NULL, or a double vector of the rows
# kept (data: mix_data()'s answer, whose dropped rows lose their weights).
# Numbers, finite, >= 0, one per row of x, not all 0; else a classed error
# naming `weights`.
mix_weights <- function(weights, data, call) {
  if (is.null(weights)) {
    return(NULL)
  }
  n <- nrow(data$x) + length(data$dropped)
  w <- check_weights(weights, n, call)
  if (length(data$dropped) > 0L) w <- w[-data$dropped]
  check_weights_positive(w, call)
  w
}

# weights as a plain double vector of n finite values >= 0.
check_weights <- function(weights, n, call) {
  if (!is.numeric(weights) || is.factor(weights) || is.object(weights) ||
        !is.null(dim(weights))) {
    abort_argument(
      sprintf("`weights` must be a numeric vector, not %s.",
              if (is.null(dim(weights))) type_name(weights) else "a matrix"),
      call
    )
  }
  if (length(weights) != n) {
    abort_argument(
      sprintf(
        "`weights` must have one value per row of `x` (%.0f); it has %.0f.",
        n, length(weights)
      ),
      call
    )
  }
  bad <- which(!is.finite(weights) | weights < 0)
  if (length(bad) > 0L) {
    abort_argument(
      sprintf(
        "`weights` must be finite and non-negative; not so at %s.",
        paste(sprintf("%s %s", if (length(bad) == 1L) "row" else "rows",
                      row_list(bad)))
      ),
      call
    )
  }
  as.vector(weights, "double")
}

check_weights_positive <- function(w, call) {
  if (!any(w > 0)) {
    abort_argument("`weights` are all 0 (for the rows fitted).", call)
  }
  if (any(w > 0 & w < .Machine$double.xmin)) {
    # (products of such weights with the E-step's terms lose their digits)
    abort_argument(
      paste(
        "The positive `weights` must be at least 2.2e-308 (normal doubles,",
        "not subnormal); rescale them: only their proportions change the",
        "estimates."
      ),
      call
    )
  }
  if (!is.finite(sum(w))) {
    abort_argument(
      "`weights` must have a finite sum (their sum overflows a double).",
      call
    )
  }
}

# The weights the sums take: NULL (the unweighted sums, bit for bit) when
# they are all 1.
weights_in_sums <- function(w) if (is.null(w) || all(w == 1)) NULL else w

# The rows of positive weight must make a fit on their own (a weight of 0
# is the row left out).
mix_check_weighted_shape <- function(x, w, call, collinear = TRUE) {
  if (!is.null(w) && any(w == 0)) {
    mix_check_shape(x[w > 0, , drop = FALSE], call, collinear)
  }
  invisible(x)
}

# The weight of one observation: the smallest positive weight.  The
# divisors, quantiles and tie counts take it as their unit, so that they
# do not depend on the scale of the weights (the estimates depend on the
# weights' proportions only); with integer weights that include a 1 they
# are those of the rows replicated, with equal weights those of the rows
# unweighted.
weights_unit <- function(w) min(w[w > 0])

# The divisor of the weighted covariance: sum(w) - unit (sum(w) - 1 for
# frequency weights, n - 1 for equal weights), positive where two rows
# have positive weights.
weights_divisor <- function(w) sum(w) - weights_unit(w)

# Weighted column means, standard deviations and covariance (divisor
# weights_divisor()).
weighted_moments <- function(x, w) {
  tot <- sum(w)
  center <- colSums(x * w) / tot
  u <- x - rep(center, each = nrow(x))
  cov <- crossprod(u * w, u) / weights_divisor(w)
  dimnames(cov) <- list(colnames(x), colnames(x))
  list(center = center, scale = sqrt(diag(cov)), cov = cov)
}

# quantile(v, probs) (type 7) of v with row i repeated w_i / unit times
# (weights_unit()), for any weights >= 0: the order statistic of rank k is
# the smallest v whose cumulative weight reaches k units.
weighted_quantile <- function(v, w, probs) {
  ord <- order(v)
  v <- v[ord]
  cw <- cumsum(w[ord]) / weights_unit(w)
  h <- (cw[length(cw)] - 1) * probs + 1
  at <- function(k) {
    v[pmin(findInterval(k, cw, left.open = TRUE) + 1L, length(v))]
  }
  lo <- floor(h)
  at(lo) + (h - lo) * (at(lo + 1) - at(lo))
}

weighted_median <- function(v, w) weighted_quantile(v, w, 0.5)

weighted_sd <- function(v, w) {
  m <- sum(w * v) / sum(w)
  sqrt(sum(w * (v - m)^2) / weights_divisor(w))
}
