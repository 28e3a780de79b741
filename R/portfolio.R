#' Optimal portfolios and the efficient frontier of a GH law
#'
#' `portfolio_optimize()` finds the weights \eqn{w} of a portfolio
#' \eqn{w'X} of the assets of a multivariate `"ghmix_law"` that minimise a
#' risk measure (`type = "minimum"`), that minimise it for a given mean
#' return (`"target"`), or that maximise the excess return per unit of
#' risk, \eqn{(w'E[X] - r_f B) / \mathrm{risk}(w)}{(w'E X - r_f B) /
#' risk(w)} (`"tangency"`), under the budget constraint \eqn{\sum_j w_j =
#' B}{sum_j w_j = B} and, with `long_only = TRUE`, \eqn{w \ge 0}{w >= 0}.
#' `efficient_frontier()` solves the target problem over a range of mean
#' returns; its result has a base-graphics `plot()` method.
#'
#' **Risk measures** (as positive losses, \eqn{X} being returns):
#' `"sd"`, the standard deviation \eqn{\sqrt{w'\mathrm{Cov}(X)w}}{sqrt(w'
#' Cov(X) w)} (`vcov()` of the law, see [gh_law()]); `"es"`, minus the
#' expected shortfall \eqn{-\mathrm{ES}_\alpha(w'X)}{-ES(w'X)} at `level`
#' \eqn{\alpha}{alpha}; `"var"`, minus the value at risk
#' ([expected_shortfall()], [value_at_risk()], `type = "return"`).
#'
#' **Solvers.** Only base R is used (no QP solver is available to the
#' package's users on every platform, and the ES and VaR are not
#' quadratic). The equality constraints (the budget; the target mean) are
#' removed by writing \eqn{w = w_0 + Nz}{w = w0 + N z} with \eqn{N} an
#' orthonormal basis of their null space (from [qr()]).
#' * With `risk = "sd"` and no long-only constraint the optima have closed
#'   forms (Merton 1972): \eqn{w = V^{-1}A'(AV^{-1}A')^{-1}c}{w = V^-1 A'
#'   (A V^-1 A')^-1 c} for the constraints \eqn{Aw = c}{A w = c}, and
#'   \eqn{w \propto V^{-1}(E[X] - r_f)}{w proportional to V^-1 (E X - r_f)}
#'   for the tangency portfolio.
#' * Otherwise [nlminb()] minimises over \eqn{z} without bounds, or, with
#'   `long_only = TRUE`, the adaptive logarithmic barrier of Lange (1994)
#'   for \eqn{w_0 + Nz \ge 0}{w0 + N z >= 0} (the method of
#'   [constrOptim()], BFGS inside, with every outer step kept strictly
#'   inside) from an interior point. The gradient of the ES is that of [es_attribution()], of the
#'   standard deviation \eqn{Vw / \mathrm{sd}}{V w / sd}; that of the VaR
#'   comes from central differences. The ES and the standard deviation
#'   are convex in \eqn{w}, so their minima are global; the VaR is not,
#'   and its minimum is a local one from the minimum-sd start.
#' Long-only weights that belong on the boundary come out as small
#' positive numbers (about \eqn{10^{-6}}{1e-6} of the budget or less).
#'
#' @param law A multivariate `"ghmix_law"` ([gh_law()]) with a finite
#'   covariance.
#' @param risk `"sd"` (default), `"es"` or `"var"`: see Details.
#' @param type `"minimum"` (default), `"tangency"` or `"target"`.
#' @param level The tail probability of the ES or VaR.
#' @param target_return The mean return \eqn{w'E[X]}{w'E X} of
#'   `type = "target"`.
#' @param risk_free The risk-free rate \eqn{r_f} of `type = "tangency"`.
#' @param long_only `TRUE` for weights \eqn{\ge 0}{>= 0}.
#' @param budget The sum \eqn{B} of the weights (positive if `long_only`).
#' @return `portfolio_optimize()`: an object of class `"ghmix_portfolio"`,
#'   a list with `weights` (named by the assets), `mean` (the mean
#'   return), `risk` (the minimised measure), `sd`, `var` and `es` (minus
#'   the VaR and ES at `level`, as losses), `risk_measure`, `type`,
#'   `level` and `message` (the optimiser's). `efficient_frontier()`: a
#'   data frame of class `"ghmix_frontier"` with columns `target`, `mean`,
#'   `risk` and one column of weights per asset.
#' @references
#' Lange, K. (1994). An adaptive barrier method for convex programming.
#' *Methods and Applications of Analysis* 1(4), 392-402.
#'
#' Merton, R. C. (1972). An analytic derivation of the efficient portfolio
#' frontier. *Journal of Financial and Quantitative Analysis* 7(4),
#' 1851-1872.
#'
#' Rockafellar, R. T. and Uryasev, S. (2000). Optimization of conditional
#' value-at-risk. *Journal of Risk* 2(3), 21-41.
#' @family GH distribution
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' law <- gh_law(fit_nig(r))
#' portfolio_optimize(law)
#' portfolio_optimize(law, risk = "es", level = 0.01, long_only = TRUE)
#' portfolio_optimize(law, risk = "es", type = "tangency", long_only = TRUE)
#' fr <- efficient_frontier(law, n = 8, risk = "es", long_only = TRUE)
#' fr
#' plot(fr)
portfolio_optimize <- function(law, risk = c("sd", "es", "var"),
                               type = c("minimum", "tangency", "target"),
                               level = 0.01, target_return = NULL,
                               risk_free = 0, long_only = FALSE,
                               budget = 1) {
  call <- sys.call()
  ctx <- port_setup(law, risk, level, long_only, budget, call)
  type <- check_choice(type, c("minimum", "tangency", "target"), "type",
                       call)
  risk_free <- port_scalar(risk_free, "risk_free", call)
  res <- switch(type,
    minimum = port_target(ctx, NULL, call),
    target = port_target(ctx, port_check_target(target_return, ctx, call),
                         call),
    tangency = port_tangency(ctx, risk_free, call)
  )
  port_result(ctx, res, type)
}

#' @rdname portfolio_optimize
#' @param n The number of portfolios on the frontier.
#' @param returns The target mean returns of the frontier; by default `n`
#'   values from the mean of the minimum-risk portfolio to the largest
#'   asset mean times the budget (for long-only portfolios, 0.1% short of
#'   it, which only a corner portfolio attains).
#' @export
efficient_frontier <- function(law, n = 20, risk = c("sd", "es", "var"),
                               level = 0.01, long_only = FALSE, budget = 1,
                               returns = NULL) {
  call <- sys.call()
  ctx <- port_setup(law, risk, level, long_only, budget, call)
  port_check_frontier(ctx, returns, call)
  if (is.null(returns)) {
    ok <- is.numeric(n) && length(n) == 1L && isTRUE(n >= 2 && n <= 1e4)
    if (!ok) abort_argument("`n` must be one number from 2 to 10000.", call)
    low <- sum(port_target(ctx, NULL, call)$w * ctx$m)
    high <- ctx$budget * max(ctx$m)
    if (ctx$long_only) high <- high - 1e-3 * (high - low)
    if (!(high > low)) high <- low + ctx$budget * diff(range(ctx$m))
    returns <- seq(low, high, length.out = floor(n))
  }
  check_numeric(returns, "returns", call = call)
  rows <- lapply(returns, function(t) {
    port_target(ctx, port_check_target(t, ctx, call, "returns"), call)$w
  })
  w <- do.call(rbind, rows)
  colnames(w) <- ctx$names
  out <- data.frame(target = returns, mean = drop(w %*% ctx$m),
                    risk = apply(w, 1L, function(x) port_risk(ctx, x)$value))
  out <- cbind(out, as.data.frame(w))
  corners <- diag(ctx$budget, ctx$d)
  corner_risk <- apply(corners, 1L, function(x) port_risk(ctx, x)$value)
  structure(out, class = c("ghmix_frontier", "data.frame"),
            risk_measure = ctx$measure, level = ctx$level,
            long_only = ctx$long_only, asset_risk = corner_risk,
            asset_mean = ctx$budget * ctx$m)
}

#' @rdname portfolio_optimize
#' @param x A `"ghmix_frontier"` or `"ghmix_portfolio"`.
#' @param assets `TRUE` to add the single assets (at the budget) as
#'   points.
#' @param ... Passed to [plot.default()]; ignored by `print()`.
#' @export
plot.ghmix_frontier <- function(x, assets = TRUE, ...) {
  args <- list(...)
  r <- if (assets) attr(x, "asset_risk") else numeric()
  m <- if (assets) attr(x, "asset_mean") else numeric()
  if (is.null(args$xlim)) {
    args$xlim <- range(x$risk, r)
    if (assets) args$xlim[2L] <- args$xlim[2L] + 0.1 * diff(args$xlim)
  }
  if (is.null(args$ylim)) args$ylim <- range(x$mean, m)
  if (is.null(args$xlab)) {
    args$xlab <- sprintf("risk (%s)", attr(x, "risk_measure"))
  }
  if (is.null(args$ylab)) args$ylab <- "mean return"
  do.call(graphics::plot, c(list(x$risk, x$mean, type = "l"), args))
  graphics::points(x$risk[[1L]], x$mean[[1L]], pch = 19)
  if (assets) {
    graphics::points(r, m, pch = 4)
    graphics::text(r, m, names(x)[-(1:3)], pos = 4, cex = 0.8)
  }
  invisible(x)
}

#' @rdname portfolio_optimize
#' @param digits Significant digits to print.
#' @export
print.ghmix_portfolio <- function(x, digits = max(3L, getOption("digits") - 3L),
                                  ...) {
  check_digits(digits, sys.call())
  cat(sprintf("<ghmix portfolio> %s %s portfolio\n", x$type,
              x$risk_measure))
  print(signif(x$weights, digits))
  cat(sprintf(
    "mean %s, sd %s, VaR %s, ES %s (level %s, as losses)\n",
    format(x$mean, digits = digits), format(x$sd, digits = digits),
    format(x$var, digits = digits), format(x$es, digits = digits),
    format(x$level, digits = digits)
  ))
  invisible(x)
}

# Checked arguments and what the solvers share.
port_setup <- function(law, risk, level, long_only, budget, call) {
  check_law(law, call)
  d <- law_dim(law)
  if (d < 2L) {
    abort_argument("`law` must have at least 2 assets (dimension >= 2).",
                   call)
  }
  measure <- check_choice(risk, c("sd", "es", "var"), "risk", call)
  level <- port_scalar(level, "level", call)
  if (level <= 0 || level >= 1) {
    abort_argument("`level` must be a probability in (0, 1).", call)
  }
  check_flag(long_only, "long_only", call = call)
  budget <- port_scalar(budget, "budget", call)
  if (budget == 0 || (long_only && budget < 0)) {
    abort_argument(
      "`budget` must be nonzero, and positive when long_only = TRUE.", call
    )
  }
  v <- stats::vcov(law)
  m <- mean(law)
  if (any(!is.finite(v)) || any(!is.finite(m))) {
    abort_argument("`law` must have a finite mean and covariance.", call)
  }
  names <- names(law$mu)
  if (is.null(names)) names <- paste0("X", seq_len(d))
  list(law = law, d = d, measure = measure, level = level,
       long_only = long_only, budget = budget, v = v, m = unname(m),
       names = names)
}

# A frontier needs assets of different means, and finite target returns
# (the positions of those that are not).
port_check_frontier <- function(ctx, returns, call) {
  if (diff(range(ctx$m)) == 0) {
    abort_argument(
      sprintf(
        paste(
          "The assets of `law` all have mean %g: there is no frontier of",
          "target means; the minimum-risk portfolio is",
          "portfolio_optimize(law)."
        ),
        ctx$m[[1L]]
      ),
      call
    )
  }
  if (is.null(returns)) {
    return(invisible())
  }
  check_numeric(returns, "returns", call = call)
  bad <- which(!is.finite(returns))
  if (length(returns) == 0L || length(bad) > 0L) {
    abort_argument(
      sprintf(
        "`returns` must be finite numbers (target means)%s.",
        if (length(bad) == 0L) ", at least one" else
          sprintf("; not so at position%s %s", plural(bad), row_list(bad))
      ),
      call
    )
  }
}

port_scalar <- function(x, arg, call) {
  ok <- is.numeric(x) && length(x) == 1L && isTRUE(is.finite(x))
  if (!ok) abort_argument(sprintf("`%s` must be one finite number.", arg),
                          call)
  as.double(x)
}

port_check_target <- function(target, ctx, call, arg = "target_return") {
  if (is.null(target)) {
    abort_argument(sprintf('`%s` must be given for type = "target".', arg),
                   call)
  }
  target <- port_scalar(target, arg, call)
  lo <- ctx$budget * min(ctx$m)
  hi <- ctx$budget * max(ctx$m)
  if (ctx$long_only && !(target > lo && target < hi)) {
    abort_argument(
      sprintf(
        paste("`%s` = %g is not attainable by a long-only portfolio:",
              "it must lie strictly between %g and %g."),
        arg, target, lo, hi
      ),
      call
    )
  }
  target
}

# The risk of weights w and its gradient in w.
port_risk <- function(ctx, w) {
  switch(ctx$measure,
    sd = {
      vw <- drop(ctx$v %*% w)
      s <- sqrt(sum(w * vw))
      list(value = s, grad = vw / s)
    },
    es = {
      att <- es_attribution(ctx$law, w, ctx$level)
      list(value = -att$es, grad = -att$gradient[1L, ])
    },
    var = port_var(ctx, w)
  )
}

# Minus the VaR, with its gradient by central differences (one call).
port_var <- function(ctx, w) {
  h <- 1e-6 * max(abs(w))
  e <- diag(h, ctx$d)
  wm <- rbind(w, sweep(e, 2L, w, "+"), sweep(-e, 2L, w, "+"))
  v <- -value_at_risk(ctx$law, ctx$level, weights = wm)
  d <- ctx$d
  list(value = v[[1L]],
       grad = (v[1L + seq_len(d)] - v[1L + d + seq_len(d)]) / (2 * h))
}

# The constraints A w = c: the budget, and the mean if a target is given.
port_constraints <- function(ctx, target) {
  if (is.null(target)) {
    return(list(a = matrix(1, 1L, ctx$d), c = ctx$budget))
  }
  list(a = rbind(rep(1, ctx$d), ctx$m), c = c(ctx$budget, target))
}

# w = w0 + N z: w0 the least-norm solution of A w = c, N orthonormal.
port_space <- function(con) {
  k <- nrow(con$a)
  w0 <- drop(t(con$a) %*% solve(con$a %*% t(con$a), con$c))
  q <- qr.Q(qr(t(con$a)), complete = TRUE)
  list(w0 = w0, n = q[, -seq_len(k), drop = FALSE])
}

# The minimum-risk portfolio, for a target mean or not.
port_target <- function(ctx, target, call) {
  con <- port_constraints(ctx, target)
  if (qr(con$a)$rank < nrow(con$a)) {
    abort_argument(
      "`target_return` needs assets with different means.", call
    )
  }
  vi_a <- solve(ctx$v, t(con$a))
  w_sd <- drop(vi_a %*% solve(con$a %*% vi_a, con$c))
  if (ctx$measure == "sd" && !ctx$long_only) {
    return(list(w = w_sd, message = "closed form"))
  }
  start <- if (ctx$long_only) port_interior(ctx, target) else w_sd
  port_solve(ctx, port_space(con), start, function(w) port_risk(ctx, w))
}

# A strictly positive w with the budget (and the target mean).
port_interior <- function(ctx, target) {
  w <- rep(ctx$budget / ctx$d, ctx$d)
  if (is.null(target)) {
    return(w)
  }
  m_eq <- sum(w * ctx$m)
  j <- if (target > m_eq) which.max(ctx$m) else which.min(ctx$m)
  corner <- replace(numeric(ctx$d), j, ctx$budget)
  s <- (target - m_eq) / (ctx$budget * ctx$m[[j]] - m_eq)
  (1 - s) * w + s * corner
}

port_tangency <- function(ctx, rf, call) {
  excess <- ctx$m - rf
  vi_e <- solve(ctx$v, excess)
  if (ctx$measure == "sd" && !ctx$long_only) {
    if (!(sum(vi_e) * ctx$budget > 0)) {
      abort_argument(
        paste("No tangency portfolio: the excess returns over `risk_free`",
              "are too small."),
        call
      )
    }
    return(list(w = ctx$budget * vi_e / sum(vi_e), message = "closed form"))
  }
  start <- rep(ctx$budget / ctx$d, ctx$d)
  if (!ctx$long_only && sum(vi_e) * ctx$budget > 0) {
    start <- ctx$budget * vi_e / sum(vi_e)
  }
  sp <- port_space(port_constraints(ctx, NULL))
  port_solve(ctx, sp, start, function(w) {
    r <- port_risk(ctx, w)
    e <- sum(w * excess)
    list(value = -e / r$value,
         grad = -(excess * r$value - e * r$grad) / r$value^2)
  })
}

# Minimise f(w)$value over w = w0 + N z (w >= 0 if long-only), from the
# feasible w start; the objective is scaled to 1 at the start.
port_solve <- function(ctx, sp, start, f) {
  scale <- abs(f(start)$value)
  if (!(scale > 0)) scale <- 1
  to_w <- function(z) sp$w0 + drop(sp$n %*% z)
  obj <- function(z) f(to_w(z))$value / scale
  grad <- function(z) drop(crossprod(sp$n, f(to_w(z))$grad)) / scale
  z0 <- drop(crossprod(sp$n, start - sp$w0))
  if (ctx$long_only) {
    res <- port_barrier(z0, obj, grad, ui = sp$n, ci = -sp$w0)
    return(list(w = to_w(res$par), message = res$message))
  }
  res <- stats::nlminb(z0, obj, grad,
                       control = list(rel.tol = 1e-10,
                                      eval.max = 2000L, iter.max = 1000L))
  list(w = to_w(res$par), message = res$message)
}

# Minimise obj(z) subject to ui z > ci from an interior z0, by the adaptive
# logarithmic barrier of Lange (1994), the method of stats::constrOptim():
# outer step k minimises obj(z) - mu sum_i (s_i(z_k) log s_i(z) - u_i'z),
# s(z) = ui z - ci, by BFGS from z_k; it stops when that minimum changes by
# less than eps relative, or obj rises.  Weights that belong on the
# boundary end within rounding of it, where constrOptim() failed ("initial
# value in 'vmmin' is not finite") under some OpenBLAS kernels (issue 31):
# there `ui %*% z` of the same z differs in its last bits from call to
# call (the kernel's path depends on the alignment of the memory), and a
# slack of 1e-16 at the end of one BFGS run was -4e-16 at the start of the
# next.  Here the slack is summed without BLAS, and an outer step's end is
# pulled back halfway towards z_k until it is strictly inside.
port_barrier <- function(z0, obj, grad, ui, ci, mu = 1e-4, outer = 200L,
                         eps = 1e-12) {
  ui_t <- t(ui)
  slack <- function(z) colSums(ui_t * z) - ci
  z <- z0
  value <- obj(z)
  min_old <- value - mu * sum(slack(z) * log(slack(z)) - slack(z) - ci)
  res <- list(convergence = 0L)
  for (i in seq_len(outer)) {
    s_k <- slack(z)
    barrier <- function(t) {
      s <- slack(t)
      if (any(s <= 0)) Inf else obj(t) - mu * sum(s_k * log(s) - s - ci)
    }
    barrier_grad <- function(t) {
      grad(t) - mu * drop(crossprod(ui, s_k / slack(t) - 1))
    }
    res <- stats::optim(z, barrier, barrier_grad, method = "BFGS",
                        control = list(reltol = 1e-12, maxit = 500L))
    if (abs(res$value - min_old) < (1e-3 + abs(res$value)) * eps) break
    min_old <- res$value
    z <- port_inside(res$par, z, slack)
    value_old <- value
    value <- obj(z)
    if (value > value_old) break
  }
  message <- if (res$convergence == 0L || is.null(res$message)) {
    ""
  } else {
    res$message
  }
  list(par = z, value = value, message = message)
}

# z, or the point halfway towards z_in (strictly inside) until slack() > 0.
port_inside <- function(z, z_in, slack) {
  for (i in seq_len(64L)) {
    if (all(slack(z) > 0)) {
      return(z)
    }
    z <- (z + z_in) / 2
  }
  z_in
}

port_result <- function(ctx, res, type) {
  w <- stats::setNames(res$w, ctx$names)
  lv <- ctx$level
  out <- list(
    weights = w, mean = sum(w * ctx$m),
    risk = port_risk(ctx, w)$value,
    sd = sqrt(sum(w * drop(ctx$v %*% w))),
    var = -value_at_risk(ctx$law, lv, weights = w),
    es = -expected_shortfall(ctx$law, lv, weights = w),
    risk_measure = ctx$measure, type = type, level = lv,
    message = res$message
  )
  structure(out, class = "ghmix_portfolio")
}
