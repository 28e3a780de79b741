# Starting values of the mixture fits, in the standardised units the EM
# works in (z = (x - center) / scale): a start is list(pars, props, label),
# pars G parameter lists.

# The candidate starts: the user's (labels or a previous mixture fit), or
# k-means, Ward's hierarchical clustering and nstart random centres
# (factors: NULL, or the r of factor-analytic members).  With screen =
# TRUE, the rows to screen them on (mixture_screen_sample(), NULL for all)
# are kept as the attribute "screen".
mixture_starts <- function(z, g, family, nstart, start, std, call,
                           screen = FALSE, factors = NULL) {
  if (!is.null(start)) {
    return(list(mixture_start_user(z, g, family, start, std, call,
                                   factors)))
  }
  mixture_check_distinct(z, g, call)
  idx <- if (screen) mixture_screen_sample(nrow(z))
  labels <- c(
    list(kmeans = mixture_kmeans(z, g),
         hclust = mixture_hclust(z, g, mixture_screen_ward(idx))),
    stats::setNames(lapply(seq_len(nstart), function(i) {
      mixture_nearest(z, z[sample.int(nrow(z), g), , drop = FALSE])
    }), paste0("random ", seq_len(nstart), recycle0 = TRUE))
  )
  # clusters numbered by their first row: a partition's start (and so its
  # EM) does not depend on the names the seed gave its clusters
  labels <- lapply(labels, function(lab) match(lab, unique(lab)))
  if (!is.null(idx)) labels <- mixture_screen_distinct(labels, g)
  starts <- Map(function(lab, nm) {
    mixture_start_labels(z, lab, g, family, nm, factors)
  }, labels, names(labels))
  structure(Filter(Negate(is.null), starts), screen = idx)
}

# k-means and the clusters of the starts need G distinct rows: else an
# error naming `components` (rather than kmeans()'s own).
mixture_check_distinct <- function(z, g, call) {
  if (g <= 1L) {
    return(invisible())
  }
  distinct <- nrow(z) - tie_points(z, rep(1L, nrow(z)))$n_repeated
  if (g > distinct) {
    abort_argument(
      sprintf(
        paste(
          "`components` = %d is more than the %d distinct rows of `x` (of",
          "those the starts use): each component needs rows of its own."
        ),
        g, distinct
      ),
      call
    )
  }
}

mixture_kmeans <- function(z, g) {
  stats::kmeans(z, g, iter.max = 50L, nstart = 1L)$cluster
}

# Ward's method (ward.D2 on Euclidean distances) on the rows idx, or on at
# most 2000 rows (it costs O(m^2) memory); the other rows join the nearest
# cluster centre.
mixture_hclust <- function(z, g, idx = NULL, m = 2000L) {
  if (is.null(idx)) {
    idx <- if (nrow(z) > m) sort(sample.int(nrow(z), m)) else seq_len(nrow(z))
  }
  tree <- stats::hclust(stats::dist(z[idx, , drop = FALSE]), "ward.D2")
  lab <- stats::cutree(tree, g)
  centres <- rowsum(z[idx, , drop = FALSE], lab) / as.vector(table(lab))
  mixture_nearest(z, centres)
}

# The label of the nearest of the centres (rows of `centres`) for each row.
mixture_nearest <- function(z, centres) {
  dist2 <- -2 * tcrossprod(z, centres) +
    rep(rowSums(centres^2), each = nrow(z))
  max.col(-dist2, "first")
}

# Per cluster: its mean, gamma 0, Sigma from its covariance (the r
# leading principal components for factor members) and the family's
# mixing law with mean 1 (a NIG law for GH); NULL when a cluster has fewer
# than d + 1 rows or a member is not regular.
mixture_start_labels <- function(z, labels, g, family, label,
                                 factors = NULL) {
  counts <- tabulate(labels, g)
  if (any(counts < ncol(z) + 1L)) {
    return(NULL)
  }
  cov <- cov_get(factors)
  mixing <- mix_start_mixing(family_get(family)$start_family)
  pars <- lapply(seq_len(g), function(k) {
    cov$start_cluster(z[labels == k, , drop = FALSE], mixing, factors)
  })
  if (!all(vapply(pars, cov$regular, NA))) {
    return(NULL)
  }
  list(pars = pars, props = counts / sum(counts), label = label)
}

# A user start: labels (a vector or factor of length n) or a mixture fit.
mixture_start_user <- function(z, g, family, start, std, call,
                               factors = NULL) {
  if (inherits(start, "ghmix_mixture")) {
    mixture_factor_check_start(start, factors, call)
    return(mixture_start_fit(z, g, family, start, std, call))
  }
  labels <- mixture_check_labels(start, nrow(z), ncol(z), g, call)
  out <- mixture_start_labels(z, labels, g, family, "labels", factors)
  if (is.null(out)) {
    mixture_abort_start(
      "`start` labels give a cluster with a singular covariance.", call
    )
  }
  out
}

# Labels 1..g from start: a vector or factor of n values without NA, with
# g distinct values, each on at least d + 1 rows.
mixture_check_labels <- function(start, n, d, g, call) {
  if (!(is.numeric(start) || is.factor(start)) || length(start) != n ||
        anyNA(start)) {
    mixture_abort_start(
      sprintf(
        paste(
          "`start` must be a mixture fit or cluster labels: a vector or",
          "factor of length %d (the rows fitted) without NA."
        ),
        n
      ),
      call
    )
  }
  labels <- as.integer(factor(start))
  counts <- tabulate(labels)
  if (length(counts) != g) {
    mixture_abort_start(
      sprintf("`start` has %d distinct labels, but `components` is %d.",
              length(counts), g),
      call
    )
  }
  small <- which(counts < d + 1L)
  if (length(small) > 0L) {
    mixture_abort_start(
      sprintf(
        paste(
          "`start` label%s %s ha%s fewer than d + 1 = %d rows; every",
          "cluster needs at least d + 1 rows (none may be empty or a",
          "single point)."
        ),
        plural(small), paste(levels(factor(start))[small], collapse = ", "),
        if (length(small) == 1L) "s" else "ve", d + 1L
      ),
      call
    )
  }
  labels
}

mixture_start_fit <- function(z, g, family, start, std, call) {
  if (length(start$components) != g || start$d != ncol(z)) {
    mixture_abort_start(
      sprintf(
        "`start` is a fit of %d components in d = %d; this fit has %d in %d.",
        length(start$components), start$d, g, ncol(z)
      ),
      call
    )
  }
  pars <- lapply(start$components, function(par) {
    par[c("p", "a", "b")] <- mix_start_sub(par, par, family)
    to_std(par, std)
  })
  list(pars = pars, props = start$proportions, label = "fit")
}

mixture_abort_start <- function(message, call) {
  ghmix_abort(message, class = c("ghmix_error_start_labels",
                                 "ghmix_error_argument"), call = call)
}

# Positive definite with a condition number of at most 1e12, of sigma or
# of its correlation matrix: a component whose columns' spreads differ by
# 1e6 in the units the EM works in (clusters far apart in one column) is
# regular, as rescaling its columns shows.
mixture_sigma_ok <- function(sigma, kappa_max = 1e12) {
  # the values of eigen(symmetric = TRUE), decreasing
  ev <- .Call(ffi_eigen_values_sym, sigma)
  if (!all(is.finite(ev)) || !(ev[length(ev)] > 0)) {
    return(FALSE)
  }
  if (ev[1L] / ev[length(ev)] <= kappa_max) {
    return(TRUE)
  }
  s <- sqrt(diag(sigma))
  ev <- .Call(ffi_eigen_values_sym, sigma / tcrossprod(s))
  all(is.finite(ev)) && ev[length(ev)] > 0 &&
    ev[1L] / ev[length(ev)] <= kappa_max
}
