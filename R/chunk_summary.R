# The one-pass summary of chunked data: each chunk's rows, rows with
# missing values, mean, cross-products, column ranges and repeated rows
# (computed where the chunk is read), merged in chunk order and checked with
# the checks mix_data() makes on a matrix (R/fit_data.R).

# One chunk's pass: drops non-finite rows (all of them are recorded), and
# summarises the rest (weighted by its attribute "weights", if any).
# Returns list(x, summary).
chunk_scan <- function(x, na_rm) {
  n_raw <- nrow(x)
  bad <- integer()
  if (!all(is.finite(colSums(x)))) {
    bad <- na_rows(x)
  }
  if (length(bad) > 0L && na_rm) {
    x <- chunk_drop_rows(x, bad)
  }
  sm <- if (length(bad) > 0L && !na_rm) NULL else
    chunk_moments(x, attr(x, "weights"))
  list(x = x, summary = c(
    list(n_raw = n_raw, bad = bad, d = ncol(x), names = colnames(x)), sm
  ))
}

# Rows, mean, cross-products about the mean (in blocks of rows, so no copy
# of the chunk is made), column ranges and repeated rows; with weights w,
# their sum (w), the weighted mean and cross-products.
chunk_moments <- function(x, w = NULL) {
  n <- nrow(x)
  d <- ncol(x)
  if (n == 0L) {
    return(list(n = 0))
  }
  if (!is.null(w)) {
    return(chunk_moments_weighted(x, w))
  }
  m <- colMeans(x)
  cp <- matrix(0, d, d)
  step <- max(1L, 2^17 %/% d)
  for (s in seq.int(1L, n, by = step)) {
    rows <- s:min(n, s + step - 1L)
    cp <- cp + crossprod(x[rows, , drop = FALSE] - rep(m, each = length(rows)))
  }
  rng <- column_ranges(x)
  list(n = as.double(n), mean = unname(m), cp = unname(cp), lo = rng[1L, ],
       hi = rng[2L, ], ties = chunk_ties(x, m, sqrt(diag(cp) / n)))
}

chunk_moments_weighted <- function(x, w) {
  d <- ncol(x)
  tot <- sum(w)
  m <- colSums(x * w) / tot
  cp <- matrix(0, d, d)
  step <- max(1L, 2^17 %/% d)
  for (s in seq.int(1L, nrow(x), by = step)) {
    rows <- s:min(nrow(x), s + step - 1L)
    u <- x[rows, , drop = FALSE] - rep(m, each = length(rows))
    cp <- cp + crossprod(u * w[rows], u)
  }
  rng <- column_ranges(x)
  list(n = as.double(nrow(x)), w = tot, unit = chunk_unit(w),
       mean = unname(m), cp = unname(cp), lo = rng[1L, ], hi = rng[2L, ],
       ties = chunk_ties(x, m, sqrt(diag(cp) / tot), w))
}

# The chunk's weights_unit() (Inf where no weight is positive: none).
chunk_unit <- function(w) if (any(w > 0)) weights_unit(w) else Inf

# mix_ties() on the candidates: rows whose hash (a fixed linear combination
# of the standardised columns, the same arithmetic for every row, so equal
# rows hash equal) occurs more than once, and rows of weight above the
# chunk's unit.  (Rows are compared within their chunk; a chunk whose
# smallest weight is above that of other chunks counts its rows of that
# weight once.)
chunk_ties <- function(x, center, scale, wt = NULL) {
  cand <- row_hash_repeated(x, center, scale)
  unit <- if (is.null(wt)) 1 else chunk_unit(wt)
  if (!is.null(wt)) cand <- cand | wt > unit
  if (!any(cand)) {
    return(list(n_repeated = 0L, points = x[0L, , drop = FALSE],
                counts = integer(), unit = unit))
  }
  mix_ties(x[cand, , drop = FALSE], wt[cand], unit)
}

# Whether each row's hash (a fixed linear combination of the columns
# standardised by center and scale, the same arithmetic for every row, so
# equal rows hash equal) occurs more than once: the rows that can repeat
# another (a superset of them; one pass with a hash table).
row_hash_repeated <- function(x, center, scale) {
  scale[!(scale > 0)] <- 1
  w <- sqrt(c(2, 3, 5, 7, 11, 13, 17, 19, 23, 29))
  h <- 0
  for (j in seq_len(ncol(x))) {
    h <- h + (x[, j] - center[j]) / scale[j] * w[(j - 1L) %% 10L + 1L] * j
  }
  duplicated(h) | duplicated(h, fromLast = TRUE)
}

# Merging the summaries in chunk order ---------------------------------------

chunk_merge <- function(a, b) {
  if (b$n == 0L) {
    return(a)
  }
  if (is.null(a) || a$n == 0L) {
    return(b)
  }
  if (!is.null(a$w) || !is.null(b$w)) {
    return(chunk_merge_weighted(a, b))
  }
  n <- a$n + b$n
  delta <- b$mean - a$mean
  list(
    n = n, mean = a$mean + delta * (b$n / n),
    cp = a$cp + b$cp + tcrossprod(delta) * (a$n / n * b$n),
    lo = pmin(a$lo, b$lo), hi = pmax(a$hi, b$hi),
    ties = tie_points(rbind(a$ties$points, b$ties$points),
                      c(a$ties$counts, b$ties$counts))
  )
}

# The same where a chunk has weights (one without counts each row once):
# the update of Chan, Golub and LeVeque (1979) with the sums of weights.
chunk_merge_weighted <- function(a, b) {
  wa <- if (is.null(a$w)) a$n else a$w
  wb <- if (is.null(b$w)) b$n else b$w
  tot <- wa + wb
  delta <- b$mean - a$mean
  # (a chunk without weights counts each row once: a unit of 1)
  unit <- min(if (is.null(a$w)) 1 else a$unit, if (is.null(b$w)) 1 else b$unit)
  list(
    n = a$n + b$n, w = tot, unit = unit, mean = a$mean + delta * (wb / tot),
    cp = a$cp + b$cp + tcrossprod(delta) * (wa / tot * wb),
    lo = pmin(a$lo, b$lo), hi = pmax(a$hi, b$hi),
    ties = tie_points(rbind(a$ties$points, b$ties$points),
                      c(a$ties$counts, b$ties$counts), unit)
  )
}

# The data description completed from the chunk summaries (in chunk order),
# after the checks mix_data() makes on a matrix.
chunk_complete <- function(data, parts, na_rm, call) {
  d <- chunk_check_columns(data, parts, call)
  chunk_check_na(parts, na_rm, call)
  tot <- NULL
  for (p in parts) tot <- chunk_merge(tot, p)
  names <- data$names
  if (is.null(names)) names <- parts[[1L]]$names
  if (is.null(names)) names <- paste0("x", seq_len(d))
  n_raw <- vapply(parts, function(p) as.double(p$n_raw), 0)
  offset <- cumsum(c(0, n_raw))
  data$dropped <- unlist(lapply(seq_along(parts), function(i) {
    parts[[i]]$bad + offset[i]
  }))
  data$dropped <- if (length(data$dropped) == 0L) integer() else
    if (max(data$dropped) <= .Machine$integer.max) {
      as.integer(data$dropped)
    } else {
      data$dropped
    }
  data$bad <- lapply(parts, function(p) p$bad)
  data$rows <- vapply(parts, function(p) p$n, 0)
  data$n <- if (is.null(tot)) 0L else tot$n
  if (data$n <= .Machine$integer.max) data$n <- as.integer(data$n)
  data$d <- d
  data$names <- names
  chunk_check_shape(tot, data, call)
  list(data = data, summary = tot)
}

chunk_check_columns <- function(data, parts, call) {
  d <- vapply(parts, function(p) p$d, 0L)
  want <- if (is.na(data$d)) d[1L] else data$d
  wrong <- which(d != want)
  if (length(wrong) > 0L) {
    abort_argument(
      sprintf(
        "All chunks of `x` must have %d column%s; chunk%s %s ha%s %s.",
        want, plural(seq_len(want)), plural(wrong), row_list(wrong),
        if (length(wrong) == 1L) "s" else "ve",
        paste(unique(d[wrong]), collapse = ", ")
      ),
      call
    )
  }
  want
}

chunk_check_na <- function(parts, na_rm, call) {
  nbad <- vapply(parts, function(p) length(p$bad), 0L)
  if (na_rm || all(nbad == 0L)) {
    return(invisible())
  }
  i <- which(nbad > 0L)[1L]
  bad <- parts[[i]]$bad
  abort_na_rows(
    sum(nbad),
    sprintf("%d in chunk %d: row%s %s of that chunk", length(bad), i,
            plural(bad), row_list(bad)),
    call
  )
}

# The checks of mix_check_shape(), from the merged summary.
chunk_check_shape <- function(tot, data, call) {
  check_rows(data$n, data$d, call)
  check_columns(tot$lo, tot$hi, data$names,
                function() stats::cov2cor(tot$cp), call)
}

# The moments the fit starts from, as colMeans(), sd() and cov() give them
# for a matrix (weighted: as mix_moments() gives them).
chunk_std <- function(tot, names) {
  center <- stats::setNames(tot$mean, names)
  cov <- tot$cp / chunk_divisor(tot)
  dimnames(cov) <- list(names, names)
  list(center = center, scale = sqrt(diag(cov)), cov = cov)
}

# The divisor of the covariance from the merged summary: n - 1, or with
# weights sum(w) - unit (weights_divisor()).
chunk_divisor <- function(tot) {
  if (is.null(tot$w)) tot$n - 1 else tot$w - tot$unit
}
