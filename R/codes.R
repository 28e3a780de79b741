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
  layout$decode <- estep_decoder(layout$blocks)
  the$layouts[[key]] <- layout
  layout
}

# R's names of the E-step's blocks (C names them: ghmix_stat_name()).
estep_stat_names <- c(
  rows = "n", weight = "weight", loglik = "loglik", bad = "n_bad",
  tau = "tau", inv_y = "s_inv", y = "s_y", log_y = "s_log",
  inv_y_dev = "s_inv_dev", y_dev = "s_y_dev", u = "sx", inv_y_u = "sxw",
  inv_y_uu = "sxx", inv_y_uu_diag = "sxx_diag", inv_y_uu_proj = "sxx_proj"
)

# The blocks of length 1 whatever the shape (GHMIX_STAT_NSCALAR).
estep_scalars <- c("rows", "weight", "loglik", "bad", "tau", "inv_y", "y",
                   "log_y", "inv_y_dev", "y_dev")

# How estep_decode() reads the statistics of a layout's blocks, by R's
# names: global, the positions of the whole model's sums; components, per
# component the positions of its blocks; one, those of a one-component
# E-step as one list (the model's scalars among the component's);
# dims, the matrix blocks' dim.
estep_decoder <- function(blocks) {
  blocks <- estep_empty_proj(blocks)
  comp <- vapply(blocks, function(b) b[["component"]], 0L)
  names(blocks) <- estep_stat_names[names(blocks)]
  at <- function(b) seq.int(b[["start"]], length.out = b[["length"]])
  mats <- blocks[names(blocks) %in% c("sxx", "sxx_proj") & comp <= 1L]
  global <- lapply(blocks[comp == 0L], at)
  components <- lapply(seq_len(max(comp)), function(k) {
    lapply(blocks[comp == k], at)
  })
  first <- components[[1L]]
  scalar <- names(first) %in% estep_stat_names[estep_scalars]
  list(
    global = global, components = components,
    one = c(global["n"], first["tau"], global["loglik"],
            first[scalar & names(first) != "tau"], global["n_bad"],
            first[!scalar]),
    dims = lapply(mats, function(b) c(b[["nrow"]], b[["ncol"]]))
  )
}

# The layout's blocks with, for a factor shape with r = 0, each
# component's S beta' as the d x 0 matrix it is (C lists no empty block).
estep_empty_proj <- function(blocks) {
  if ("inv_y_uu_proj" %in% names(blocks)) {
    return(blocks)
  }
  out <- list()
  for (i in seq_along(blocks)) {
    b <- blocks[[i]]
    out <- c(out, blocks[i])
    if (names(blocks)[[i]] == "inv_y_uu_diag") {
      b[c("length", "ncol")] <- 0L
      out <- c(out, list(inv_y_uu_proj = b))
    }
  }
  out
}

# The E-step statistics raw of the shape `layout` (estep_layout()) by name:
# list(n, weight, loglik, n_bad, components = G lists of named blocks).
estep_decode <- function(raw, layout) {
  plan <- layout$decode
  ix <- plan$global
  list(n = raw[[ix$n]], weight = raw[[ix$weight]], loglik = raw[[ix$loglik]],
       n_bad = raw[[ix$n_bad]],
       components = estep_blocks(raw, plan$components, plan$dims))
}

# The statistics of a one-component E-step as one list (n, tau, loglik,
# the component's scalars, n_bad, its vectors and matrices), with the raw
# output's per-row results (rows) and GPU kernel launches (launches).
estep_decode_one <- function(raw, layout) {
  plan <- layout$decode
  st <- estep_blocks(raw, list(plan$one), plan$dims)[[1L]]
  st$rows <- attr(raw, "rows")
  st$launches <- attr(raw, "launches")
  st
}

# raw's blocks at the positions of each list in `at` (lists by name), the
# matrices shaped by dims (in C for a plain double vector).
estep_blocks <- function(raw, at, dims) {
  if (is.double(raw) && is.null(names(raw))) {
    return(.Call(ffi_estep_decode, raw, at, dims))
  }
  lapply(at, function(ix) {
    scalar <- names(ix) %in% estep_stat_names[estep_scalars]
    out <- Map(function(i, one) if (one) raw[[i]] else raw[i], ix, scalar)
    for (m in intersect(names(dims), names(out))) dim(out[[m]]) <- dims[[m]]
    out
  })
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
