# Checking and preparing the data of the fit_* functions.

# Returns list(x = numeric matrix with column names, dropped = integer row
# numbers dropped by na.rm).
mix_data <- function(x, na.rm, call, collinear = TRUE) { # nolint
  check_flag(na.rm, "na.rm", call)
  x <- mix_as_matrix(x, call)
  check_no_columns(x, "x", call)
  bad <- na_rows(x)
  if (length(bad) > 0L && !na.rm) {
    abort_na_rows(
      length(bad), sprintf("row%s %s", plural(bad), row_list(bad)), call
    )
  }
  if (length(bad) > 0L) {
    x <- x[-bad, , drop = FALSE]
  }
  mix_check_shape(x, call, collinear)
  list(x = x, dropped = bad)
}

# The rows of x with an NA, NaN or infinite value (none where the sum of
# all values is finite: a non-finite value makes it NA, NaN or infinite).
na_rows <- function(x) {
  if (is.finite(sum(x))) {
    none <- integer()
    if (!is.null(rownames(x))) names(none) <- character()
    return(none)
  }
  which(rowSums(!is.finite(x)) > 0L)
}

# where: which rows, e.g. "rows 3, 8".
abort_na_rows <- function(n_bad, where, call) {
  abort_argument(
    sprintf(
      paste(
        "`x` has %d row%s with NA, NaN or infinite values (%s);",
        "use `na.rm = TRUE` to drop them."
      ),
      n_bad, plural(seq_len(n_bad)), where
    ),
    call
  )
}

# A numeric matrix with column names from the data given as `arg` (a
# vector, matrix or data frame of numeric columns); messages name `arg`.
mix_as_matrix <- function(x, call, arg = "x") {
  if (is.data.frame(x)) {
    num <- vapply(x, function(col) is.numeric(col) && !is.factor(col), NA)
    if (!all(num)) {
      abort_argument(
        sprintf(
          "`%s` must have numeric columns only; not numeric: %s.", arg,
          paste0("`", names(x)[!num], "`", collapse = ", ")
        ),
        call
      )
    }
    check_no_columns(x, arg, call)
    x <- as.matrix(x)
  }
  if (!is.numeric(x) || is.factor(x)) {
    abort_argument(
      sprintf(
        "`%s` must be a numeric vector, matrix or data frame, not %s.", arg,
        type_name(x)
      ),
      call
    )
  }
  if (is.null(dim(x))) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), "x"))
  } else if (length(dim(x)) != 2L) {
    abort_argument(
      sprintf("`%s` must be a vector or a two-dimensional matrix.", arg), call
    )
  }
  storage.mode(x) <- "double"
  if (is.null(colnames(x))) {
    colnames(x) <- paste0("x", seq_len(ncol(x)), recycle0 = TRUE)
  }
  attr(x, "tsp") <- NULL
  class(x) <- NULL
  x
}

check_no_columns <- function(x, arg, call) {
  if (NCOL(x) == 0L) {
    abort_argument(
      sprintf("`%s` has no columns (%d rows, 0 columns).", arg, NROW(x)), call
    )
  }
}

# collinear: TRUE (a check of collinearity), FALSE (none) or, for a
# mixture, its largest number of components G (the check within clusters).
mix_check_shape <- function(x, call, collinear = TRUE) {
  check_rows(nrow(x), ncol(x), call)
  rng <- column_ranges(x)
  groups <- if (isTRUE(collinear)) 1L else as.integer(collinear)
  check_columns(rng[1L, ], rng[2L, ], colnames(x),
                if (groups > 0L) function() mix_cor_bulk(x, groups), call)
  invisible(x)
}

# apply(x, 2L, range) without its transposed copy of x.
column_ranges <- function(x) {
  vapply(seq_len(ncol(x)), function(j) range(x[, j]), numeric(2L))
}

# mix_cor(x), or where that is singular, the correlation of the bulk of the
# rows: those within 2^10 robust spreads of the column medians in every
# column.  One row far off the axes (x = (D, -D/3), D = 1e13) dominates
# the sample correlation (-1 to the doubles) though the columns are not
# collinear; truly collinear rows stay collinear in any subset.
mix_cor_bulk <- function(x, groups = 1L) {
  cm <- mix_cor(x)
  if (!all(is.finite(cm)) || !cor_singular(cm)) {
    return(cm)
  }
  if (groups > 1L) {
    return(mix_cor_within(x, groups))
  }
  center <- column_medians(x)
  far <- Reduce(`|`, lapply(seq_len(ncol(x)), function(j) {
    abs(x[, j] - center[[j]]) > 2^10 * robust_spread(x[, j], center[[j]])
  }))
  if (!any(far) || sum(!far) <= ncol(x) + 1L) {
    return(cm)
  }
  mix_cor(x[!far, , drop = FALSE])
}

# The correlation of the rows of a mixture of G components about their
# clusters' means: clusters far apart (1e6 spreads along a line) make the
# pooled columns collinear to the doubles while each cluster is regular;
# truly collinear rows stay collinear within clusters.  The clusters by
# k-means (stats::kmeans(), Hartigan and Wong) from G rows at evenly spaced
# ranks along the first principal axis of the rows standardised (no
# random numbers); the pooled correlation where that fails.
mix_cor_within <- function(x, g) {
  z <- x / rep(2^ceiling(log2(apply(abs(x), 2L, max))), each = nrow(x))
  z <- sweep(z, 2L, colMeans(z))
  z <- z / rep(pmax(sqrt(colSums(z^2)), .Machine$double.xmin), each = nrow(z))
  axis <- svd(z, nu = 0L, nv = 1L)$v
  ord <- order(drop(z %*% axis))
  first <- ord[pmax(1L, round((seq_len(g) - 0.5) / g * nrow(z)))]
  km <- tryCatch(
    stats::kmeans(z, z[first, , drop = FALSE], iter.max = 50L),
    error = function(e) NULL
  )
  if (is.null(km)) {
    return(mix_cor(x))
  }
  mix_cor(z - km$centers[km$cluster, , drop = FALSE])
}

# TRUE when the correlation matrix cm is singular to the rule of
# check_columns().
cor_singular <- function(cm) {
  ev <- eigen(cm, symmetric = TRUE, only.values = TRUE)$values
  min(ev) <= 1e-10 * max(ev)
}

# cor(x); where the columns' squares under- or overflow, that of the
# columns divided by powers of two (exactly) near their largest values.
mix_cor <- function(x) {
  cm <- suppressWarnings(stats::cor(x))
  if (all(is.finite(cm))) {
    return(cm)
  }
  m <- 2^ceiling(log2(apply(abs(x), 2L, max)))
  stats::cor(x / rep(m, each = nrow(x)))
}

# The checks of the shape of the data (a matrix, or chunks from their
# summary): n complete rows of d columns.
check_rows <- function(n, d, call) {
  if (d < 1L) {
    abort_argument("`x` has no columns.", call)
  }
  if (n <= d + 1L) {
    abort_argument(
      sprintf(
        paste(
          "`x` needs more than d + 1 = %d rows (complete cases) for %d",
          "column%s; it has %d."
        ),
        d + 1L, d, plural(seq_len(d)), n
      ),
      call
    )
  }
}

# lo, hi: the columns' ranges; cor: a function that gives their correlation
# matrix (called only for d > 1), or NULL: no check of collinearity (for
# factor fits, whose Sigma = F F' + diag(D) needs none).
check_columns <- function(lo, hi, names, cor, call) {
  const <- which(hi == lo)
  if (length(const) > 0L) {
    abort_argument(
      sprintf(
        "`x` has constant column%s: %s.", plural(const),
        paste0("`", names[const], "`", collapse = ", ")
      ),
      call
    )
  }
  cm <- if (length(lo) > 1L && !is.null(cor)) cor()
  if (!is.null(cm) && all(is.finite(cm))) {
    # (not finite: chunks whose scale chunk_check_scale() rejects)
    if (cor_singular(cm)) {
      abort_argument(
        paste(
          "The columns of `x` are collinear (their correlation matrix is",
          "singular); drop redundant columns."
        ),
        call
      )
    }
  }
}

plural <- function(x) if (length(x) == 1L) "" else "s"

# A count for a message: in full up to 1e15, else in 4 significant digits
# (a count by weight can be any double).
format_count <- function(n) {
  format(n, digits = if (n < 1e15) 15L else 4L, scientific = n >= 1e15)
}

row_list <- function(rows, max = 5L) {
  shown <- paste(utils::head(rows, max), collapse = ", ")
  if (length(rows) > max) paste0(shown, ", ...") else shown
}

# Rows that repeat an earlier row, the distinct repeated points and how many
# rows each holds (with weights w: the weight each holds, in units of the
# smallest positive weight, weights_unit(), so that a row of weight 2 is a
# tie with itself among rows of weight 1, and the rule does not depend on
# the weights' scale): sort the rows and compare neighbours (duplicated()
# on a matrix pastes rows into strings, which is slow for large n).  With
# std (list(center, scale) of rows z that are equal where the rows of x
# are: x itself or x standardised row by row), only the rows whose hash
# repeats (row_hash_repeated()) and those of weight above the unit are
# sorted: the same runs, in the same order, as among all rows.
mix_ties <- function(x, w = NULL,
                     unit = if (is.null(w)) 1 else weights_unit(w),
                     z = x, std = NULL) {
  count <- if (is.null(w)) rep(1L, nrow(x)) else w
  if (!is.null(std)) {
    cand <- row_hash_repeated(z, std$center, std$scale)
    if (!is.null(w)) cand <- cand | w > unit
    x <- x[cand, , drop = FALSE]
    count <- count[cand]
  }
  ties <- tie_points(x, count, unit)
  ties$weighted <- !is.null(w)
  ties
}

# The points of x (a matrix of points, each standing for `count` rows, or
# count / unit with weights) that stand for more than one row:
# list(n_repeated (in units), points, counts (as given), unit).
tie_points <- function(x, count, unit = 1) {
  n <- nrow(x)
  ord <- do.call(order, lapply(seq_len(ncol(x)), function(j) x[, j]))
  xs <- x[ord, , drop = FALSE]
  same <- rowSums(xs[-1L, , drop = FALSE] == xs[-n, , drop = FALSE]) ==
    ncol(x)
  # the first row of each run of equal rows, and the rows the run stands
  # for (summed by run: differences of a cumulative sum of weights round)
  first <- which(c(n > 0L, !same))
  counts <- if (is.integer(count) || n == 0L) {
    diff(c(0L, cumsum(count[ord])[c(first[-1L] - 1L, n)]))
  } else {
    as.vector(rowsum(count[ord], cumsum(c(n > 0L, !same)), reorder = FALSE))
  }
  keep <- counts > unit
  n_repeated <- if (unit == 1) {
    sum(counts[keep]) - sum(keep)
  } else {
    sum(counts[keep]) / unit - sum(keep)
  }
  list(n_repeated = n_repeated, points = xs[first[keep], , drop = FALSE],
       counts = counts[keep], unit = unit)
}

# The likelihood is unbounded at a point holding n0 of the n rows (mu at
# the point, b -> 0): for GH and VG (p <= d/2 free) at any repeated point;
# for the skew-t at any, since its degrees of freedom can shrink with b;
# for the NIG when d n0 > n - n0 (its density is ~ b^(-d/2) at the point
# and ~ b^(1/2) elsewhere).
mix_ties_unbounded <- function(ties, family, n) {
  if (ties$n_repeated == 0L) {
    return(FALSE)
  }
  family_get(family)$ties_any ||
    any(ncol(ties$points) * ties$counts > n - ties$counts)
}

mix_warn_ties <- function(ties, family, call, n) {
  if (!mix_ties_unbounded(ties, family, n)) {
    return(invisible(FALSE))
  }
  rule <- family_get(family)$tie_rule
  msg <- sprintf(
    paste(
      "`x` has %s row%s%s that repeat%s another row (%d distinct point%s,",
      "e.g. zero returns on holidays). The %s likelihood is unbounded at",
      "such points (%s), so a fit can run towards that singularity; ghmix",
      "stops and reports converged = FALSE if it does. Consider %sremoving",
      "or jittering the repeated rows."
    ),
    format_count(ties$n_repeated),
    if (ties$n_repeated == 1) "" else "s",
    if (isTRUE(ties$weighted)) " (counted by weight)" else "",
    if (ties$n_repeated == 1) "s" else "",
    nrow(ties$points), plural(seq_len(nrow(ties$points))),
    mix_family(family)$label, rule,
    if (family_get(family)$tie_nig) "fit_nig(), or " else ""
  )
  ghmix_warn(msg, class = "ghmix_warning_ties",
             n_repeated = ties$n_repeated, call = call)
  invisible(TRUE)
}
