# The screening of the mixture starts on many rows: above
# mixture_screen_max rows, the few EM cycles that rank the starts
# (mixture_best_start()) run on mixture_screen_rows rows taken evenly
# through the data, and Ward's clustering on every other one of them.
# The EM on every row continues from the chosen start's parameters after
# its cycles on the sample: it climbs to the same maximum as from the
# screening of every row whenever the sample ranks the same start first.

mixture_screen_max <- 2000L
mixture_screen_rows <- 1000L

# The rows to screen on (sorted indices), or NULL for all of them.
mixture_screen_sample <- function(n) {
  if (n <= mixture_screen_max) {
    return(NULL)
  }
  unique(round(seq(1, n, length.out = mixture_screen_rows)))
}

# What the screening log-likelihoods on z_s need besides the shift that
# mixture_result() applies to those of all the rows z for them to be in
# the data's units: 0 when z_s is z.
mixture_screen_shift <- function(z, z_s, ctx, ctx_s, std) {
  (mixture_nobs(z, ctx) - mixture_nobs(z_s, ctx_s)) * sum(log(std$scale))
}

# The rows of Ward's clustering when the starts are screened on idx: every
# other one (its cost grows as the square of the rows).
mixture_screen_ward <- function(idx) {
  if (is.null(idx)) NULL else idx[c(TRUE, FALSE)]
}

# ctx for the EM cycles on the rows idx of z (NULL: all rows), with the
# factor from a component's size on the sample to its size on all rows
# (mixture_degenerate() drops a component by the latter).
mixture_screen_ctx <- function(ctx, z, idx) {
  if (is.null(idx)) {
    return(ctx)
  }
  n <- mixture_nobs(z, ctx)
  if (!is.null(ctx$weights)) ctx$weights <- ctx$weights[idx]
  ctx$screen_scale <- n / mixture_nobs(z[idx, , drop = FALSE], ctx)
  ctx
}

# A component's effective size on all rows from its size on the rows of
# ctx's E-step.
mixture_screen_size <- function(tau, ctx) {
  if (is.null(ctx$screen_scale)) tau else tau * ctx$screen_scale
}

# TRUE when a screened start is clearly behind: its objective, extended by
# its last gain for each of the `left` cycles it has to go (EM's gains
# shrink from cycle to cycle), stays below ctx$screen_bar, the best that
# an earlier start reached.
mixture_screen_behind <- function(ctx, old, new, left) {
  bar <- ctx$screen_bar
  !is.null(bar) &&
    new$objective + left * (new$objective - old$objective) < bar
}

# The labellings that are not near copies of an earlier one (the same
# partition, up to the names of the clusters, on 99% of the rows or more):
# their EM cycles would retrace the earlier one's.
mixture_screen_distinct <- function(labels, g, agree = 0.99) {
  keep <- rep(TRUE, length(labels))
  for (i in seq_along(labels)[-1L]) {
    for (j in which(keep[seq_len(i - 1L)])) {
      if (mixture_screen_agreement(labels[[i]], labels[[j]], g) >= agree) {
        keep[[i]] <- FALSE
        break
      }
    }
  }
  labels[keep]
}

# The share of rows on which two labellings agree once each cluster of the
# first is matched with the cluster of the second it shares most rows with
# (0 when that matching is not one to one).
mixture_screen_agreement <- function(a, b, g) {
  tab <- matrix(tabulate(a + g * (b - 1L), g * g), g, g)
  match <- max.col(tab, "first")
  if (anyDuplicated(match)) {
    return(0)
  }
  sum(tab[cbind(seq_len(g), match)]) / length(a)
}
