# Codes shared with C (families, E-step flags, GIG solver notes, ...), read
# from src/r_codes.c when the package is loaded, so that none is written as
# a literal in R.

# The integer code of `name` in `group` (e.g. ghmix_code("family", "nig")).
ghmix_code <- function(group, name) {
  codes <- the$codes[[group]]
  if (is.null(codes) || !all(name %in% names(codes))) {
    stop(sprintf("internal error: no code %s in group %s",
                 paste(name, collapse = ", "), group), call. = FALSE)
  }
  codes[name]
}

# The bitwise or of the flags `names` of `group` (cached: the E-steps of
# a fit ask for the same flags each time).
ghmix_flags <- function(group, names) {
  key <- paste(c(group, names), collapse = " ")
  hit <- the$flags[[key]]
  if (is.null(hit)) {
    hit <- Reduce(bitwOr, as.integer(ghmix_code(group, names)), 0L)
    the$flags[[key]] <- hit
  }
  hit
}

# The layout of the E-step statistics of a model shape (src/core/estep.h):
# nstats; per block, c(start, length, nrow, ncol, component), named so; and
# index, per block of the whole model and of component 1, the positions of
# its statistics.  Cached per shape: the E-step decodes by it each time.
estep_layout <- function(d, components = 1L, cov = "full", factors = 0L,
                         what = ghmix_code("estep", "moments")) {
  key <- paste(d, components, cov, factors, what)
  hit <- the$layouts[[key]]
  if (!is.null(hit)) {
    return(hit)
  }
  layout <- .Call(ffi_estep_layout, as.integer(d), as.integer(components),
                  ghmix_code("cov", cov), as.integer(factors),
                  as.integer(what))
  first <- vapply(layout$blocks, function(b) b[["component"]] <= 1L, TRUE)
  layout$index <- lapply(layout$blocks[first], function(b) {
    seq.int(b[["start"]], length.out = b[["length"]])
  })
  the$layouts[[key]] <- layout
  layout
}

# The layout of the fits' E-step (one component, a full sigma) for dimension
# d: a list lookup, as mix_estep() decodes by it every time.
estep_layout_full <- function(d) {
  hit <- if (d <= length(the$layouts_full)) the$layouts_full[[d]]
  if (is.null(hit)) {
    hit <- estep_layout(d)
    the$layouts_full[[d]] <- hit
  }
  hit
}

# The columns of the E-step's per-row output (src/core/mixture.h): their
# 1-based positions, named loglik, inv_y, y, log_y.
estep_row_columns <- function() the$codes$estep_row + 1L
