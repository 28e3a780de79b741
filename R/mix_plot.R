#' Plots of a GH mixture fit
#'
#' Base-graphics plots of a fit with `components` (see [fit_nig()]).
#' `which = "classification"`: for \eqn{d = 1} a histogram of the data with
#' the mixture density and each component's density times its proportion;
#' for \eqn{d = 2} the rows coloured by their class (the component of
#' highest membership) with contours of the mixture density; for
#' \eqn{d > 2} a pairs plot coloured by class. `which = "BIC"` plots the
#' criteria against the number of components, when several were compared.
#' `which = "uncertainty"` is the uncertainty plot (as mclust's): the rows
#' coloured by class with their size growing with the uncertainty of
#' their classification (1 minus the highest membership; the rows of
#' uncertainty above 0.1 drawn last, filled), for \eqn{d = 1} the
#' uncertainty against the data, for \eqn{d > 2} pairs of coordinates.
#' `which = "trace"` draws the EM's log-likelihood by cycle (dotted lines
#' where a component was dropped), as for one distribution
#' ([plot.ghmix_fit()]). The classification and uncertainty plots need the
#' rows in memory: for a fit of chunked data they are an error of class
#' `ghmix_error_chunked`.
#'
#' @param x A mixture fit.
#' @param which `"classification"`, `"BIC"`, `"uncertainty"` and/or
#'   `"trace"`; by default the first, and the second when several numbers
#'   of components were fitted.
#' @param ask `TRUE` asks before each new page.
#' @param ... Not used.
#' @return `x`, invisibly.
#' @family fitting
#' @export
#' @examples
#' fit <- fit_nig(faithful, components = 1:3)
#' plot(fit)
#' plot(fit, which = c("uncertainty", "trace"))
plot.ghmix_mixture <- function(x, which = NULL, ask = FALSE, ...) {
  which <- plot_mixture_which(x, which, sys.call())
  check_flag(ask, "ask", sys.call())
  if (ask) {
    op <- graphics::par(ask = TRUE)
    on.exit(graphics::par(op))
  }
  for (w in intersect(which, c("classification", "uncertainty"))) {
    fit_need_rows(x, sprintf('plot(which = "%s")', w), sys.call())
  }
  for (w in which) plot_mixture_panel(x, w)
  invisible(x)
}

plot_mixture_which <- function(x, which, call) {
  several <- !is.null(x$criteria)
  if (is.null(which)) {
    return(c("classification", if (several) "BIC"))
  }
  ok <- is.character(which) && length(which) > 0L &&
    all(which %in% c("classification", "uncertainty", "trace",
                     if (several) "BIC"))
  if (!ok) {
    abort_argument(
      paste(
        '`which` must be among "classification", "uncertainty", "trace"',
        'and "BIC" ("BIC" only for a fit that compared several numbers of',
        "components)."
      ),
      call
    )
  }
  which
}

plot_mixture_panel <- function(x, w) {
  if (w == "BIC") {
    plot_mixture_criteria(x)
  } else if (w == "uncertainty") {
    plot_mixture_uncertainty(x)
  } else if (w == "trace") {
    plot_trace(x$trace, sprintf("%s: EM trace", mixture_label(x)))
  } else if (x$d == 1L) {
    plot_mixture_density(x)
  } else if (x$d == 2L) {
    plot_mixture_scatter(x)
  } else {
    graphics::pairs(x$data, col = x$classification + 1L, pch = 20,
                    cex = 0.4, main = mixture_label(x))
  }
}

plot_mixture_density <- function(x) {
  v <- x$data[, 1L]
  h <- graphics::hist(v, breaks = "FD", plot = FALSE)
  grid <- seq(min(v), max(v), length.out = 401L)
  gm <- matrix(grid, ncol = 1L, dimnames = list(NULL, colnames(x$data)))
  dens <- stats::predict(x, gm, type = "density")
  comp <- vapply(seq_len(x$G), function(k) {
    x$proportions[[k]] * mixture_component_density(x, k, gm)
  }, grid)
  dim(comp) <- c(length(grid), x$G)
  graphics::plot(
    h, freq = FALSE, border = "grey50", col = "grey90",
    ylim = c(0, max(h$density, dens)), main = mixture_label(x),
    xlab = colnames(x$data)
  )
  graphics::matlines(grid, comp, lty = 2, col = seq_len(x$G) + 1L)
  graphics::lines(grid, dens, lwd = 2)
  graphics::legend(
    "topright", c("mixture", paste("component", seq_len(x$G))),
    lty = c(1, rep(2, x$G)), lwd = c(2, rep(1, x$G)),
    col = c(1, seq_len(x$G) + 1L), bty = "n"
  )
}

mixture_component_density <- function(x, k, rows) {
  par <- x$components[[k]]
  exp(mixture_rows_r(rows, list(par), 1, ghmix_threads())$logf)
}

plot_mixture_scatter <- function(x, m = 80L) {
  v <- colnames(x$data)
  graphics::plot(x$data, col = x$classification + 1L, pch = 20, cex = 0.5,
                 main = mixture_label(x), xlab = v[1L], ylab = v[2L])
  g1 <- seq(min(x$data[, 1L]), max(x$data[, 1L]), length.out = m)
  g2 <- seq(min(x$data[, 2L]), max(x$data[, 2L]), length.out = m)
  pts <- as.matrix(expand.grid(g1, g2))
  colnames(pts) <- v
  dens <- matrix(stats::predict(x, pts, type = "density"), m, m)
  graphics::contour(g1, g2, log(dens), add = TRUE, drawlabels = FALSE,
                    nlevels = 12L, col = "grey30")
}

plot_mixture_criteria <- function(x) {
  tab <- x$criteria
  graphics::matplot(tab$asked, tab[, c("BIC", "ICL")], type = "b",
                    pch = c(19, 1), lty = 1:2, col = 1,
                    xlab = "components asked (G)", ylab = "criterion",
                    main = sprintf("%s: BIC and ICL (lower is better)",
                                   fit_label(x)))
  graphics::legend("topright", c("BIC", "ICL"), pch = c(19, 1), lty = 1:2,
                   bty = "n")
}

# The rows coloured by class, sized by the uncertainty of their class
# (those above 0.1 filled and drawn last).
plot_mixture_uncertainty <- function(x) {
  u <- x$uncertainty
  ord <- order(u)
  col <- x$classification[ord] + 1L
  cex <- 0.3 + 2.2 * sqrt(u[ord] / max(u, 1e-300))
  pch <- ifelse(u[ord] > 0.1, 19, 1)
  main <- sprintf("%s: uncertainty", mixture_label(x))
  v <- colnames(x$data)
  if (x$d == 1L) {
    graphics::plot(x$data[ord, 1L], u[ord], col = col, pch = pch,
                   cex = pmin(cex, 1.2), main = main, xlab = v[[1L]],
                   ylab = "uncertainty (1 - highest membership)")
  } else if (x$d == 2L) {
    graphics::plot(x$data[ord, , drop = FALSE], col = col, pch = pch,
                   cex = cex, main = main, xlab = v[[1L]], ylab = v[[2L]])
  } else {
    graphics::pairs(x$data[ord, , drop = FALSE], col = col, pch = pch,
                    cex = cex * 0.6, main = main)
  }
}
