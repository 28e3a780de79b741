# The normal limit of the NIG and GH families (sqrt(ab) -> Inf with E[Y]
# fixed): there the likelihood is flat to first order in the mixing
# parameters and an EM step moves them by O(1/sqrt(ab)), so a fit that
# starts there (or drifts there) stays, whether or not the limit is a
# maximum.  mix_warn_normal_limit() says so when it is not one.
#
# With Y of mean m and variance v -> 0, E_Y h(Y) = h(m) + (v/2) h''(m) +
# O(v^2) for the normal density h(y) of x given Y = y, so the slope of the
# log-likelihood in v at v = 0 is sum_i h_i''(m) / (2 h_i(m)), where, with
# Q = |L^-1 (x - mu)|^2, G = |L^-1 gamma|^2 (Sigma = L L'),
#   (log h)'(y) = -d/(2y) + Q/(2y^2) - G/2,  (log h)''(y) = d/(2y^2) - Q/y^3,
#   h''/h = (log h)'' + ((log h)')^2.
# A positive slope: the likelihood rises as v grows from 0 (as sqrt(ab)
# falls), so the limit is not a maximum.
normal_limit_w <- 1e8

mix_normal_limit_slope <- function(x, par, w = NULL) {
  l <- t(chol(par$sigma))
  z <- forwardsolve(l, t(x) - par$mu)
  g <- forwardsolve(l, par$gamma)
  q <- colSums(z^2)
  gsg <- sum(g^2)
  d <- ncol(x)
  m <- gig_mean_value(par$p, par$a, par$b)
  s1 <- -d / (2 * m) + q / (2 * m^2) - gsg / 2
  s2 <- d / (2 * m^2) - q / m^3
  if (is.null(w)) sum((s2 + s1^2) / 2) else sum(w * (s2 + s1^2) / 2)
}

# Warns (ghmix_warning_normal_limit) when a NIG or GH fit on in-memory rows
# x (as fitted, with weights w or NULL) ends at sqrt(ab) >= normal_limit_w
# with a positive slope.
mix_warn_normal_limit <- function(x, par, family, call, w = NULL) {
  if (!family_get(family)$normal_limit || !is.matrix(x) ||
        !isTRUE(sqrt(par$a) * sqrt(par$b) >= normal_limit_w)) {
    return(invisible())
  }
  # (in the gauge E[Y] = 1, where Var(Y) = 1/sqrt(ab) for the NIG)
  slope <- tryCatch(mix_normal_limit_slope(x, set_gauge(par, "mean"), w),
                    error = function(e) NA)
  if (!isTRUE(slope > 0)) {
    return(invisible())
  }
  ghmix_warn(
    sprintf(
      paste(
        "The fit ended at the normal limit of the family (sqrt(ab) = %.3g),",
        "where EM moves the mixing parameters by O(1/sqrt(ab)) per",
        "iteration; the likelihood rises away from it (slope %.3g in",
        "Var(Y) there, with E[Y] = 1), so this is not a maximum. Start",
        "from the default (start = NULL) or from smaller `a` and `b`."
      ),
      sqrt(par$a) * sqrt(par$b), slope
    ),
    class = "ghmix_warning_normal_limit", call = call,
    sqrt_ab = sqrt(par$a) * sqrt(par$b), slope = slope
  )
}
