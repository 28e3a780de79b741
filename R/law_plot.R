# Plots of laws (plot(gh_law(...))), QQ and PP plots of data against any
# law (qqgh(), ppgh()), and the trace of an EM (plot(fit, which =
# "trace")): base graphics, as R/fit_plot.R and R/mix_plot.R.

#' Plot a GH distribution
#'
#' Draws a law from [gh_law()]: for \eqn{d = 1} its density (with `data`,
#' over a histogram of the data); for \eqn{d = 2} the contours of its
#' density that enclose the probabilities `levels` (highest-density
#' regions; with `data`, over the points); for \eqn{d > 2} a matrix of
#' the margins: the univariate densities on the diagonal and the contours
#' of each pair of coordinates off it (the margins of a GH law are GH laws
#' with the same mixing law: `law[c(i, j)]`).
#'
#' The plotting range of each coordinate runs from its 0.001 to its 0.999
#' quantile ([qgh()]); the contours are those of the density on an
#' `n` by `n` grid over it, at the levels where the grid's mass above the
#' level reaches each of `levels`.
#'
#' @param x A `"ghmix_law"` from [gh_law()].
#' @param data `NULL`, or observations to draw beneath the law (a vector
#'   for \eqn{d = 1}, a matrix or data frame with \eqn{d} columns).
#' @param levels Probabilities of the highest-density regions whose
#'   contours are drawn (\eqn{d \ge 2}).
#' @param margins For \eqn{d > 2}, the coordinates to draw (at most 6;
#'   the first 5 by default).
#' @param n Grid points per coordinate.
#' @param main A title; `NULL` gives one.
#' @param ... Not used.
#' @return `x`, invisibly.
#' @seealso [qqgh()] and [ppgh()] compare data with a law;
#'   [plot.ghmix_fit()] (`which = "trace"`: the EM's log-likelihood).
#' @family GH distribution
#' @export
#' @examples
#' plot(gh_law(gamma = 0.5, p = -2, a = 0.5, b = 2))
#' s <- matrix(c(1, 0.6, 0.6, 2), 2)
#' plot(gh_law(mu = c(0, 0), gamma = c(0.5, -0.2), sigma = s))
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r)
#' plot(gh_law(fit))
#' plot(gh_law(fit)[c("DAX", "FTSE")], data = r[, c("DAX", "FTSE")])
plot.ghmix_law <- function(x, data = NULL, levels = c(0.5, 0.9, 0.99),
                           margins = NULL, n = 100L, main = NULL, ...) {
  call <- sys.call()
  d <- law_dim(x)
  ok <- is.numeric(levels) && length(levels) > 0L &&
    isTRUE(all(levels > 0 & levels < 1))
  if (!ok) abort_argument("`levels` must be probabilities in (0, 1).", call)
  if (!is_count(n) || n < 10L) {
    abort_argument("`n` must be a whole number, 10 or more.", call)
  }
  if (!is.null(data)) data <- fit_newdata(data, law_names(x), call)
  if (is.null(main)) main <- sprintf("%s law", law_label(x))
  if (d == 1L) {
    law_plot_density(x, data, main, 4L * n)
  } else if (d == 2L) {
    law_plot_contours(x, data, levels, n, main)
  } else {
    law_plot_pairs(x, data, levels, law_check_margins(margins, d, call), n,
                   main)
  }
  invisible(x)
}

law_names <- function(law) {
  nm <- names(law$mu)
  if (is.null(nm)) paste0("x", seq_len(law_dim(law))) else nm
}

law_check_margins <- function(margins, d, call) {
  if (is.null(margins)) {
    return(seq_len(min(d, 5L)))
  }
  ok <- is.numeric(margins) && length(margins) >= 2L &&
    length(margins) <= 6L && !anyDuplicated(margins) &&
    isTRUE(all(margins %in% seq_len(d)))
  if (!ok) {
    abort_argument(
      sprintf("`margins` must be 2 to 6 distinct coordinates among 1:%d.", d),
      call
    )
  }
  margins
}

# The plotting range of margin j: its 0.001 and 0.999 quantiles (widened
# to the data's range where data are given).
law_range <- function(law, j, data = NULL) {
  q <- qgh(c(0.001, 0.999), law[j], threads = 1L)
  if (!is.null(data)) q <- range(q, data[, j], finite = TRUE)
  q
}

law_plot_density <- function(law, data, main, m) {
  xl <- law_range(law, 1L, data)
  grid <- seq(xl[[1L]], xl[[2L]], length.out = m)
  dens <- dgh(grid, law)
  vname <- law_names(law)
  if (is.null(data)) {
    graphics::plot(grid, dens, type = "l", lwd = 2, main = main,
                   xlab = vname, ylab = "density")
    return(invisible())
  }
  h <- graphics::hist(data[, 1L], breaks = "FD", plot = FALSE)
  graphics::plot(h, freq = FALSE, border = "grey50", col = "grey90",
                 xlim = xl, ylim = c(0, max(h$density, dens)), main = main,
                 xlab = vname)
  graphics::lines(grid, dens, lwd = 2)
}

# The density of a bivariate law on an n x n grid over its ranges, and the
# levels whose superlevel sets hold the probabilities `levels` of the grid's
# mass.
law_grid <- function(law, levels, n, data = NULL) {
  g1 <- do.call(seq, c(as.list(law_range(law, 1L, data)), length.out = n))
  g2 <- do.call(seq, c(as.list(law_range(law, 2L, data)), length.out = n))
  dens <- matrix(dgh(as.matrix(expand.grid(g1, g2)), law), n, n)
  f <- sort(dens[is.finite(dens)], decreasing = TRUE)
  mass <- cumsum(f) / sum(f)
  # (between two grid values: a level at a node's own value draws a notch
  # where the contour touches that node)
  at <- vapply(levels, function(p) {
    i <- min(which(mass >= p))
    (f[[i]] + f[[min(i + 1L, length(f))]]) / 2
  }, 0)
  list(x = g1, y = g2, z = dens, at = at)
}

law_draw_contours <- function(grid, levels, add = TRUE) {
  ord <- order(grid$at, decreasing = TRUE)
  graphics::contour(grid$x, grid$y, grid$z, levels = grid$at[ord],
                    labels = paste0(format(100 * levels[ord]), "%"),
                    add = add, col = "grey20", labcex = 0.7)
}

law_plot_contours <- function(law, data, levels, n, main) {
  grid <- law_grid(law, levels, n, data)
  vn <- law_names(law)
  graphics::plot(range(grid$x), range(grid$y), type = "n", main = main,
                 xlab = vn[[1L]], ylab = vn[[2L]])
  if (!is.null(data)) {
    graphics::points(data, pch = 20, cex = 0.4, col = "grey60")
  }
  law_draw_contours(grid, levels)
}

law_plot_pairs <- function(law, data, levels, margins, n, main) {
  k <- length(margins)
  vn <- law_names(law)
  op <- graphics::par(mfrow = c(k, k), mar = c(2, 2, 1.5, 0.5),
                      oma = c(0, 0, 2, 0))
  on.exit(graphics::par(op))
  for (i in margins) {
    for (j in margins) {
      if (i == j) {
        m <- law[i]
        xl <- law_range(m, 1L)
        grid <- seq(xl[[1L]], xl[[2L]], length.out = 2L * n)
        graphics::plot(grid, dgh(grid, m), type = "l", main = vn[[i]],
                       xlab = "", ylab = "", lwd = 2)
      } else {
        sub <- law[c(j, i)]
        grid <- law_grid(sub, levels, n)
        graphics::plot(range(grid$x), range(grid$y), type = "n", xlab = "",
                       ylab = "", main = sprintf("%s ~ %s", vn[[i]],
                                                 vn[[j]]))
        if (!is.null(data)) {
          graphics::points(data[, c(j, i)], pch = ".", col = "grey60")
        }
        law_draw_contours(grid, levels)
      }
    }
  }
  graphics::mtext(main, outer = TRUE, font = 2)
}

# QQ and PP plots ------------------------------------------------------------

#' QQ and PP plots of data against a GH distribution
#'
#' `qqgh()` plots the sample quantiles of `y` against the quantiles of
#' `law` ([qgh()]), `ppgh()` the probabilities [pgh()] of the sorted
#' sample against the uniform plotting positions [stats::ppoints()] (as
#' [stats::qqnorm()] does for the normal); the grey line is the identity,
#' where a sample of the law lies. A QQ plot shows the tails, a PP plot
#' the body. For \eqn{d > 1} each margin of `y` is plotted against the
#' margin of the law, in one figure. At most 400 order statistics are
#' drawn: all for up to 400 rows, otherwise the 50 most extreme on each
#' side and evenly spaced ones between.
#'
#' @param y Observations: a vector (\eqn{d = 1}), a matrix or a data
#'   frame with \eqn{d} columns. Non-finite values are left out.
#' @param law A `"ghmix_law"` ([gh_law()]) or a fit of one distribution
#'   ([fit_nig()] and the others), whose fitted law is taken.
#' @param main A title; `NULL` gives one.
#' @param threads Threads for [qgh()] and [pgh()].
#' @param ... Not used.
#' @return Invisibly, for \eqn{d = 1} a list with `x` (the law's
#'   quantiles or probabilities) and `y` (the sample's); for \eqn{d > 1}
#'   one such list per margin.
#' @seealso [plot.ghmix_fit()] (QQ and PP plots of a fit's own data).
#' @family GH distribution
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' law <- gh_law(fit_nig(r[, "DAX"]))
#' qqgh(r[, "DAX"], law)
#' ppgh(r[, "DAX"], law)
#' # against a law that is not a fit
#' qqgh(r[, "DAX"], gh_law(sigma = sd(r[, "DAX"]), a = 1e6, b = 1e6))
qqgh <- function(y, law, main = NULL, threads = ghmix_threads(), ...) {
  law_plot_margins(y, law, main, threads, "QQ plot", plot_qq_margin,
                   sys.call())
}

#' @rdname qqgh
#' @export
ppgh <- function(y, law, main = NULL, threads = ghmix_threads(), ...) {
  law_plot_margins(y, law, main, threads, "PP plot", plot_pp_margin,
                   sys.call())
}

# One panel per margin of y against law's (panel(v, law, j, main, xlab,
# threads)).
law_plot_margins <- function(y, law, main, threads, what, panel, call) {
  law <- plot_law_of(law, call)
  threads <- check_threads(threads, call = call)
  y <- fit_newdata(y, law_names(law), call)
  d <- ncol(y)
  vn <- law_names(law)
  title <- function(j) {
    if (!is.null(main)) main else if (d == 1L) {
      sprintf("%s law: %s", law_label(law), what)
    } else {
      sprintf("%s: %s", vn[[j]], what)
    }
  }
  if (d > 1L) {
    nr <- ceiling(sqrt(d))
    op <- graphics::par(mfrow = c(nr, ceiling(d / nr)))
    on.exit(graphics::par(op))
  }
  out <- lapply(seq_len(d), function(j) {
    v <- y[, j]
    panel(v[is.finite(v)], law, j, title(j), "quantiles of the law",
          threads)
  })
  names(out) <- vn
  invisible(if (d == 1L) out[[1L]] else out)
}

# The law of a fit of one distribution, or law itself.
plot_law_of <- function(law, call) {
  if (inherits(law, "ghmix_law")) {
    return(law)
  }
  if (inherits(law, "ghmix_fit")) {
    par <- stats::coef(law, sigma = TRUE)
    return(law_make(par$mu, par$gamma, par$sigma, par$p, par$a, par$b))
  }
  abort_argument(
    sprintf("`law` must be a \"ghmix_law\" (gh_law()) or a fit, not %s.",
            type_name(law)),
    call
  )
}

plot_pp_margin <- function(v, par, j, main, xlab = NULL, threads) {
  pts <- qq_points(v)
  theo <- pgh(
    pts$sample, par$mu[[j]], par$gamma[[j]], sqrt(par$sigma[j, j]),
    par$p, par$a, par$b, threads = threads
  )
  graphics::plot(
    pts$prob, theo, main = main, xlim = c(0, 1), ylim = c(0, 1), pch = 20,
    cex = 0.6,
    xlab = "plotting positions (uniform)", ylab = "probabilities of the law"
  )
  graphics::abline(0, 1, col = "grey50")
  invisible(list(x = theo, y = pts$prob))
}

# The trace of an EM -----------------------------------------------------------

# The log-likelihood (or a penalised fit's objective) by iteration, each
# point marked by its step (start, EM, SQUAREM, direct maximisation), and
# the iterations where a mixture dropped a component.
plot_trace <- function(trace, title) {
  y <- if (is.null(trace$objective)) trace$loglik else trace$objective
  kinds <- c("start", "em", "squarem", "direct")
  step <- match(trace$step, kinds)
  step[is.na(step)] <- 2L
  ok <- is.finite(y)
  graphics::plot(
    trace$iteration[ok], y[ok], type = "l", col = "grey60",
    main = title, xlab = "iteration",
    ylab = if (is.null(trace$objective)) "log-likelihood" else
      "penalised objective"
  )
  graphics::points(trace$iteration[ok], y[ok], pch = c(15, 1, 19, 17)[step[ok]],
                   cex = 0.8)
  if (!is.null(trace$components)) {
    drops <- which(diff(trace$components) < 0) + 1L
    graphics::abline(v = trace$iteration[drops], lty = 3)
  }
  shown <- sort(unique(step[ok]))
  graphics::legend("bottomright", c("start", "EM", "SQUAREM", "direct")[shown],
                   pch = c(15, 1, 19, 17)[shown], bty = "n")
}

# An online fit's trace: each batch's mean log-likelihood at the
# parameters before its update (out of sample).
plot_online_trace <- function(x) {
  tr <- x$trace
  graphics::plot(
    tr$batch, tr$mean_loglik, type = "b", pch = 20, cex = 0.7,
    main = sprintf("%s online fit: each batch before its update",
                   fit_label(x)),
    xlab = "batch", ylab = "mean log-likelihood per row"
  )
}
