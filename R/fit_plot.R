#' Diagnostic plots of a GH-family fit
#'
#' Base-graphics plots comparing the data with the fitted distribution.
#'
#' For \eqn{d = 1} (`which` among 1 to 3, or the names):
#' 1. `"density"`: a histogram of the data with the fitted density and,
#'    for comparison, the normal density with the data's mean and standard
#'    deviation;
#' 2. `"log_density"`: the logarithm of the histogram's densities (the
#'    bins holding data) against the fitted and the normal log-densities,
#'    which shows the tails;
#' 3. `"qq"`: a QQ plot of the data against the fitted distribution's
#'    quantiles ([qgh()]);
#' * `"pp"`: a PP plot, the fitted distribution function [pgh()] at the
#'    sorted data against the uniform plotting positions ([ppgh()]);
#' * `"trace"`: the EM's log-likelihood by iteration (for a penalised fit
#'    its objective), each point marked by its step (the start, an EM step,
#'    an accelerated SQUAREM step, a direct maximisation).
#'
#' For \eqn{d > 1} (`which` among 1 and 2, or the names):
#' 1. `"margins"`: QQ plots of each margin against its fitted
#'    distribution, in one figure (the \eqn{j}-th margin of a GH
#'    distribution is the univariate GH with \eqn{\mu_j}, \eqn{\gamma_j},
#'    scale \eqn{\sqrt{\Sigma_{jj}}} and the same \eqn{p, a, b});
#' 2. `"mahalanobis"`: a QQ plot of the Mahalanobis distances
#'    \eqn{\sqrt{(x - \mu)'\Sigma^{-1}(x - \mu)}} of the data against those
#'    of a sample of size `nsim` simulated from the fit;
#' * `"pp"`: PP plots of each margin;
#' * `"trace"`: as for \eqn{d = 1}.
#'
#' QQ and PP plots show at most 400 order statistics: all of them for up
#' to 400 rows, otherwise the 50 most extreme on each side and evenly
#' spaced ones between. A fit made in standardised units (its element
#' `scaling`; see the Units section of [fit_nig()]) is plotted in those
#' units. The trace needs no rows: it is drawn for fits of chunked data
#' too, and for an online fit (`plot(fit)`, `which = "trace"` only) it is
#' each batch's mean log-likelihood at the parameters before its update.
#' [plot.ghmix_law()] draws the fitted law itself (`plot(gh_law(fit))`),
#' [qqgh()] and [ppgh()] compare any data with it.
#'
#' @param x A fit from [fit_nig()], [fit_gh()], [fit_vg()] or
#'   [fit_skewt()].
#' @param which Which plots (see Details); by default the numbered ones.
#' @param ask `TRUE` asks before each new page (as [graphics::par()]'s
#'   `ask`).
#' @param nsim Size of the simulated sample for the Mahalanobis QQ plot.
#' @param seed Seed for that sample (the random number generator's state is
#'   restored afterwards); `NULL` uses the current stream.
#' @param ... Not used.
#' @return `x`, invisibly.
#' @family fitting
#' @export
#' @examples
#' r <- diff(log(EuStockMarkets))
#' fit <- fit_nig(r[, "DAX"])
#' op <- par(mfrow = c(1, 3))
#' plot(fit)
#' par(op)
#' plot(fit_nig(r[, 1:2]), which = 2, nsim = 2000)
#' plot(fit, which = c("pp", "trace"))
plot.ghmix_fit <- function(x, which = NULL, ask = FALSE, nsim = 10000L,
                           seed = 1L, ...) {
  which <- fit_plot_which(x, which, sys.call())
  if (!all(which == "trace")) fit_need_rows(x, "plot()", sys.call())
  check_flag(ask, "ask", sys.call())
  if (!is_count(nsim)) {
    abort_argument("`nsim` must be a positive whole number.", sys.call())
  }
  if (ask) {
    op <- graphics::par(ask = TRUE)
    on.exit(graphics::par(op))
  }
  view <- x
  if (!all(which == "trace")) {
    if (!is.null(x$scaling)) view <- fit_std_view(view)
    view <- cov_get(x$factors)$full_view(view)
  }
  for (w in which) plot_fit_panel(view, w, nsim, seed)
  invisible(x)
}

plot_fit_panel <- function(x, w, nsim, seed) {
  switch(w,
    density = plot_fit_density(x),
    log_density = plot_fit_log_density(x),
    qq = plot_fit_qq(x),
    margins = plot_fit_margins(x),
    mahalanobis = plot_fit_mahalanobis(x, nsim, seed),
    pp = plot_fit_margins(x, plot_pp_margin, "PP plot"),
    trace = plot_trace(x$trace, plot_title(x, "EM trace"))
  )
}

# The plots of a fit of dimension d: their names; the numbers of `which`
# are the first 3 (d = 1) or 2, the default.
fit_plot_names <- function(d) {
  if (d == 1L) {
    c("density", "log_density", "qq", "pp", "trace")
  } else {
    c("margins", "mahalanobis", "pp", "trace")
  }
}

fit_plot_which <- function(x, which, call) {
  all <- fit_plot_names(x$d)
  n_num <- if (x$d == 1L) 3L else 2L
  if (is.null(which)) which <- seq_len(n_num)
  if (is.numeric(which) && length(which) > 0L &&
        all(which %in% seq_len(n_num))) {
    return(all[which])
  }
  ok <- is.character(which) && length(which) > 0L && all(which %in% all)
  if (!ok) {
    abort_argument(
      sprintf(
        "`which` must be among 1:%d or %s for a fit with d = %d.", n_num,
        paste0('"', all, '"', collapse = ", "), x$d
      ),
      call
    )
  }
  which
}

plot_title <- function(x, what) {
  sprintf("%s fit: %s", fit_label(x), what)
}

plot_fit_density <- function(x) {
  v <- x$data[, 1L]
  h <- graphics::hist(v, breaks = "FD", plot = FALSE)
  grid <- seq(min(v), max(v), length.out = 401L)
  dens <- stats::predict(x, grid)
  norm <- stats::dnorm(grid, mean(v), stats::sd(v))
  graphics::plot(
    h, freq = FALSE, border = "grey50", col = "grey90",
    ylim = c(0, max(h$density, dens, norm)),
    main = plot_title(x, "density"), xlab = colnames(x$data)
  )
  graphics::lines(grid, dens, lwd = 2)
  graphics::lines(grid, norm, lty = 2)
  graphics::legend(
    "topright", c(fit_label(x), "normal"), lty = c(1, 2), lwd = c(2, 1),
    bty = "n"
  )
}

plot_fit_log_density <- function(x) {
  v <- x$data[, 1L]
  h <- graphics::hist(v, breaks = "FD", plot = FALSE)
  keep <- h$counts > 0L
  mids <- h$mids[keep]
  log_hist <- log(h$density[keep])
  grid <- seq(min(h$breaks), max(h$breaks), length.out = 401L)
  log_fit <- stats::predict(x, grid, type = "log_density")
  log_norm <- stats::dnorm(grid, mean(v), stats::sd(v), log = TRUE)
  ylim <- range(log_hist, log_fit)
  ylim <- ylim + c(-0.5, 0.5)
  graphics::plot(
    mids, log_hist, ylim = ylim, pch = 19, col = "grey40", cex = 0.8,
    main = plot_title(x, "log-density"), xlab = colnames(x$data),
    ylab = "log density"
  )
  graphics::lines(grid, log_fit, lwd = 2)
  graphics::lines(grid, log_norm, lty = 2)
  graphics::legend(
    "topright", c("histogram", fit_label(x), "normal"),
    col = c("grey40", "black", "black"), pch = c(19, NA, NA),
    lty = c(NA, 1, 2), lwd = c(NA, 2, 1), bty = "n"
  )
}

# Probabilities and the matching order statistics of v: all of them when
# there are at most m, otherwise the `tail` most extreme on each side and
# evenly spaced ones between (the quantile function is costly).
qq_points <- function(v, m = 400L, tail = 50L) {
  v <- sort(v)
  n <- length(v)
  prob <- stats::ppoints(n)
  if (n <= m) {
    return(list(prob = prob, sample = v))
  }
  mid <- round(seq(tail + 1L, n - tail, length.out = m - 2L * tail))
  idx <- unique(c(seq_len(tail), mid, seq.int(n - tail + 1L, n)))
  list(prob = prob[idx], sample = v[idx])
}

plot_qq_margin <- function(v, par, j, main, xlab, threads) {
  pts <- qq_points(v)
  theo <- qgh(
    pts$prob, par$mu[[j]], par$gamma[[j]], sqrt(par$sigma[j, j]),
    par$p, par$a, par$b, threads = threads
  )
  graphics::plot(
    theo, pts$sample, main = main, xlab = xlab, ylab = "sample quantiles"
  )
  graphics::abline(0, 1, col = "grey50")
  invisible(list(x = theo, y = pts$sample))
}

plot_fit_qq <- function(x) {
  plot_qq_margin(
    x$data[, 1L], x$parameters, 1L, plot_title(x, "QQ plot"),
    "fitted quantiles", x$threads
  )
}

# One panel per margin (d > 1; for d = 1 the panel alone).
plot_fit_margins <- function(x, panel = plot_qq_margin, what = NULL) {
  d <- x$d
  if (d > 1L) {
    nr <- ceiling(sqrt(d))
    op <- graphics::par(mfrow = c(nr, ceiling(d / nr)))
    on.exit(graphics::par(op))
  }
  vars <- colnames(x$data)
  for (j in seq_len(d)) {
    main <- if (d == 1L) plot_title(x, what) else
      sprintf("%s: %s", fit_label(x), vars[j])
    panel(x$data[, j], x$parameters, j, main, "fitted quantiles", x$threads)
  }
}

plot_fit_mahalanobis <- function(x, nsim, seed) {
  par <- x$parameters
  if (!is.null(seed)) {
    if (!exists(".Random.seed", envir = globalenv(), inherits = FALSE)) {
      stats::runif(1L)
    }
    saved <- get(".Random.seed", envir = globalenv())
    on.exit(assign(".Random.seed", saved, envir = globalenv()))
    set.seed(seed)
  }
  sim <- fit_draw(nsim, par, colnames(x$data))
  dist_data <- mahalanobis_distance(x$data, par)
  dist_sim <- mahalanobis_distance(sim, par)
  pts <- qq_points(dist_data)
  theo <- stats::quantile(dist_sim, pts$prob, names = FALSE, type = 5L)
  graphics::plot(
    theo, pts$sample, main = plot_title(x, "Mahalanobis distances"),
    xlab = sprintf("simulated from the fit (%d draws)", nsim),
    ylab = "data"
  )
  graphics::abline(0, 1, col = "grey50")
}

mahalanobis_distance <- function(x, par) {
  z <- forwardsolve(t(chol(par$sigma)), t(x) - par$mu)
  sqrt(colSums(z^2))
}
