#' The E-step of a factor-analytic GH model
#'
#' Sigma = F F' + diag(D) with F d x r (0 <= r < d): the E-step by the
#' Woodbury identity in C (src/core/factor.h, src/cpu/factor_cpu.c), O(d r)
#' per row, never a d x d matrix.
#'
#' @param x n x d double matrix.
#' @param par list(mu, gamma, loadings = F (d x r), uniquenesses = D, p, a,
#'   b).
#' @param what E-step flags (ghmix_flags("estep", ...)); the "weights" flag
#'   follows `weights`.
#' @param weights NULL or n non-negative finite row weights.
#' @param rows TRUE: also the per-row results.
#' @param threads CPU threads (results bit-identical whatever their number).
#' @return NULL when the parameters are not usable (some D_j not finite or
#'   not positive, F, mu or gamma not finite, an invalid GIG, or M, the
#'   r x r matrix I + F' D^-1 F, not numerically positive definite); else
#'   the fields of unpack_stats() except sxx (n, tau, loglik, s_inv, s_y,
#'   s_log, s_inv_dev, s_y_dev, n_bad, sx, sxw, rows, launches), and
#'   sxx_diag (diag S, S = sum_i v_i E[1/Y|x_i] u_i u_i', u = x - mu),
#'   sxx_proj (S %*% t(proj), d x r), proj (beta = F' Sigma^-1, r x d),
#'   logdet (log det Sigma) and gsg (gamma' Sigma^-1 gamma).
#' @noRd
factor_estep <- function(x, par, what, weights = NULL, rows = FALSE,
                         threads = ghmix_threads()) {
  if (!gig_valid(par$p, par$a, par$b)) {
    return(NULL)
  }
  loadings <- par$loadings
  storage.mode(loadings) <- "double"
  if (!is.double(x)) {
    storage.mode(x) <- "double"
  }
  if (!is.null(weights)) {
    weights <- as.double(weights)
  }
  no_weights <- bitwNot(ghmix_flags("estep", "weights"))
  raw <- .Call(ffi_mix_estep_factor, x, weights, as.double(par$mu), loadings,
               as.double(par$uniquenesses), as.double(par$gamma),
               as.double(c(par$p, par$a, par$b)),
               bitwAnd(as.integer(what), no_weights), rows,
               as.integer(threads))
  if (is.null(raw)) {
    return(NULL)
  }
  factor_unpack(raw, ncol(x), ncol(loadings))
}

# The statistics of the factor E-step by the names of the layout's blocks
# (as unpack_stats() decodes those of a full sigma), and its constants.
factor_unpack <- function(raw, d, r) {
  ix <- estep_layout(d, cov = "factor", factors = r)$index
  proj <- raw[ix$inv_y_uu_proj]
  dim(proj) <- c(d, r)
  list(
    n = raw[[ix$rows]], tau = raw[[ix$tau]], loglik = raw[[ix$loglik]],
    s_inv = raw[[ix$inv_y]], s_y = raw[[ix$y]], s_log = raw[[ix$log_y]],
    s_inv_dev = raw[[ix$inv_y_dev]], s_y_dev = raw[[ix$y_dev]],
    n_bad = raw[[ix$bad]], sx = raw[ix$u], sxw = raw[ix$inv_y_u],
    rows = attr(raw, "rows"), launches = NULL,
    sxx_diag = raw[ix$inv_y_uu_diag], sxx_proj = proj,
    proj = attr(raw, "proj"), logdet = attr(raw, "logdet"),
    gsg = attr(raw, "gsg")
  )
}
