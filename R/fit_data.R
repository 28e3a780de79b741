# Checking and preparing the data of the fit_* functions.

# Returns list(x = numeric matrix with column names, dropped = integer row
# numbers dropped by na.rm).
mix_data <- function(x, na.rm, call) { # nolint
  check_flag(na.rm, "na.rm", call)
  x <- mix_as_matrix(x, call)
  bad <- na_rows(x)
  if (length(bad) > 0L && !na.rm) {
    abort_na_rows(
      length(bad), sprintf("row%s %s", plural(bad), row_list(bad)), call
    )
  }
  if (length(bad) > 0L) {
    x <- x[-bad, , drop = FALSE]
  }
  mix_check_shape(x, call)
  list(x = x, dropped = bad)
}

# The rows of x with an NA, NaN or infinite value.
na_rows <- function(x) which(rowSums(!is.finite(x)) > 0L)

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

mix_as_matrix <- function(x, call) {
  if (is.data.frame(x)) {
    num <- vapply(x, function(col) is.numeric(col) && !is.factor(col), NA)
    if (!all(num)) {
      abort_argument(
        sprintf(
          "`x` must have numeric columns only; not numeric: %s.",
          paste0("`", names(x)[!num], "`", collapse = ", ")
        ),
        call
      )
    }
    x <- as.matrix(x)
  }
  if (!is.numeric(x) || is.factor(x)) {
    abort_argument(
      sprintf(
        "`x` must be a numeric vector, matrix or data frame, not %s.",
        type_name(x)
      ),
      call
    )
  }
  if (is.null(dim(x))) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), "x"))
  } else if (length(dim(x)) != 2L) {
    abort_argument("`x` must be a vector or a two-dimensional matrix.", call)
  }
  storage.mode(x) <- "double"
  if (is.null(colnames(x))) {
    colnames(x) <- paste0("x", seq_len(ncol(x)))
  }
  attr(x, "tsp") <- NULL
  class(x) <- NULL
  x
}

mix_check_shape <- function(x, call) {
  check_rows(nrow(x), ncol(x), call)
  rng <- apply(x, 2L, range)
  check_columns(rng[1L, ], rng[2L, ], colnames(x), function() stats::cor(x),
                call)
  invisible(x)
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
# matrix (called only for d > 1).
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
  if (length(lo) > 1L) {
    ev <- eigen(cor(), symmetric = TRUE, only.values = TRUE)$values
    if (min(ev) <= 1e-10 * max(ev)) {
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

row_list <- function(rows, max = 5L) {
  shown <- paste(utils::head(rows, max), collapse = ", ")
  if (length(rows) > max) paste0(shown, ", ...") else shown
}

# Rows that repeat an earlier row, and the distinct repeated points: sort
# the rows and compare neighbours (duplicated() on a matrix pastes rows into
# strings, which is slow for large n).
mix_ties <- function(x) {
  n <- nrow(x)
  ord <- do.call(order, lapply(seq_len(ncol(x)), function(j) x[, j]))
  xs <- x[ord, , drop = FALSE]
  same <- rowSums(xs[-1L, , drop = FALSE] == xs[-n, , drop = FALSE]) ==
    ncol(x)
  pts <- xs[-1L, , drop = FALSE][same, , drop = FALSE]
  list(n_repeated = sum(same), points = unique(pts))
}

# GH and VG likelihoods are unbounded at repeated points: mu at the point,
# b -> 0, p <= d/2 (the density at mu is then infinite).
mix_warn_ties <- function(ties, family, call) {
  if (ties$n_repeated == 0L || !family %in% c("gh", "vg")) {
    return(invisible(FALSE))
  }
  msg <- sprintf(
    paste(
      "`x` has %d row%s that repeat%s another row (%d distinct point%s,",
      "e.g. zero returns on holidays). The %s likelihood is unbounded at",
      "such points (mu at the point, b -> 0, p <= d/2), so a fit can run",
      "towards that singularity; ghmix stops and reports converged = FALSE if",
      "it does. Consider fit_nig(), or removing or jittering the repeated",
      "rows."
    ),
    ties$n_repeated, plural(seq_len(ties$n_repeated)),
    if (ties$n_repeated == 1L) "s" else "",
    nrow(ties$points), plural(seq_len(nrow(ties$points))),
    mix_family(family)$label
  )
  ghmix_warn(msg, class = "ghmix_warning_ties",
             n_repeated = ties$n_repeated, call = call)
  invisible(TRUE)
}
