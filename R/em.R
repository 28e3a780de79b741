# The pieces of the EM driver shared by a single distribution (fit_em.R)
# and a mixture (mix_fit.R): the SQUAREM step and the convergence test.

# Relative change of the parameter vector.
theta_change <- function(a, b) max(abs(a - b) / (1 + abs(b)))

# The mean objective changed by at most tol and the parameter vector by at
# most param_tol (relative; a tolerance of 0: never), n the rows (with the
# penalty's pseudo rows).
em_converged <- function(old, new, n, ctl) {
  ctl$tol > 0 && ctl$param_tol > 0 &&
    length(old$theta) == length(new$theta) &&
    isTRUE(abs(new$objective - old$objective) / n <= ctl$tol &&
             theta_change(new$theta, old$theta) <= ctl$param_tol)
}

# The SQUAREM step (Varadhan and Roland 2008, scheme S3, with the step
# length bounded by step_max) from the state s0 through the EM steps s1, s2
# (each with theta, ok, objective).  extrapolate(theta, r, v, alpha, raw)
# gives the state at theta (NULL where theta is invalid), kept when its
# objective is at least s2's; else s2 is taken (take = "em").  alpha = -1
# is s2 itself.
em_squarem <- function(s0, s1, s2, step_max, extrapolate) {
  r <- s1$theta - s0$theta
  v <- s2$theta - s1$theta - r
  raw <- -sqrt(sum(r^2) / sum(v^2))
  if (!is.finite(raw)) raw <- -1
  alpha <- max(min(raw, -1), -step_max)
  if (alpha == -1) {
    if (raw < -step_max) step_max <- 4 * step_max
    return(list(take = "em", alpha = alpha, step_max = step_max))
  }
  px <- extrapolate(s0$theta - 2 * alpha * r + alpha^2 * v, r, v, alpha, raw)
  if (!is.null(px) && px$ok && px$objective >= s2$objective) {
    if (alpha == -step_max) step_max <- 4 * step_max
    return(list(take = "squarem", state = px, alpha = alpha,
                step_max = step_max))
  }
  list(take = "em", alpha = alpha, step_max = max(1, step_max / 4))
}
