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

# The bitwise or of the flags `names` of `group`.
ghmix_flags <- function(group, names) {
  Reduce(bitwOr, as.integer(ghmix_code(group, names)), 0L)
}

# The layout of the E-step statistics of a model shape (src/core/estep.h):
# nstats and, per block, c(start, length, nrow, ncol, component), cached.
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
  the$layouts[[key]] <- layout
  layout
}
