#' The E-step of a factor-analytic GH model
#'
#' Sigma = F F' + diag(D) with F d x r (0 <= r < d): the E-step by the
#' Woodbury identity in C (src/core/factor.h), O(d r) per row, never a
#' d x d matrix, on the CPU (src/cpu/factor_cpu.c) or a GPU (src/cuda/
#' factor_estep.cuh: one thread per row, the same per-row code).
#'
#' @param x n x d double matrix, or (backend "cuda") the rows already on
#'   the device (factor_cuda_data(), with their weights).
#' @param par list(mu, gamma, loadings = F (d x r), uniquenesses = D, p, a,
#'   b).
#' @param what E-step flags (ghmix_flags("estep", ...)); the "weights" flag
#'   follows `weights`.
#' @param weights NULL or n non-negative finite row weights (with x a
#'   matrix).
#' @param rows TRUE: also the per-row results.
#' @param threads CPU threads (results bit-identical whatever their number).
#' @param backend "cpu" or "cuda" (checked by the caller: check_backend()).
#' @param device the CUDA device, for a matrix x with backend "cuda".
#' @return NULL when the parameters are not usable (some D_j not finite or
#'   not positive, F, mu or gamma not finite, an invalid GIG, or M, the
#'   r x r matrix I + F' D^-1 F, not numerically positive definite); else
#'   the fields of estep_decode_one() except sxx (n, tau, loglik, s_inv, s_y,
#'   s_log, s_inv_dev, s_y_dev, n_bad, sx, sxw, rows, launches: the kernel
#'   launches on a GPU, else NULL), and
#'   sxx_diag (diag S, S = sum_i v_i E[1/Y|x_i] u_i u_i', u = x - mu),
#'   sxx_proj (S %*% t(proj), d x r), proj (beta = F' Sigma^-1, r x d),
#'   logdet (log det Sigma) and gsg (gamma' Sigma^-1 gamma).
#' @noRd
factor_estep <- function(x, par, what, weights = NULL, rows = FALSE,
                         threads = ghmix_threads(), backend = "cpu",
                         device = 0L) {
  if (!gig_valid(par$p, par$a, par$b)) {
    return(NULL)
  }
  loadings <- par$loadings
  storage.mode(loadings) <- "double"
  if (is.matrix(x) && !is.double(x)) {
    storage.mode(x) <- "double"
  }
  if (!is.null(weights)) {
    weights <- as.double(weights)
  }
  no_weights <- bitwNot(ghmix_flags("estep", "weights"))
  d <- if (is.matrix(x)) ncol(x) else x$dim[[2L]]
  mu <- as.double(par$mu)
  uniq <- as.double(par$uniquenesses)
  gamma <- as.double(par$gamma)
  pab <- as.double(c(par$p, par$a, par$b))
  flags <- bitwAnd(as.integer(what), no_weights)
  raw <- if (backend == "cuda") {
    if (is.matrix(x)) {
      x <- factor_cuda_data(x, weights, device)
      on.exit(x$free())
    }
    .Call(ffi_cuda_mix_estep_factor, x$handle, mu, loadings, uniq, gamma, pab,
          flags, rows)
  } else {
    .Call(ffi_mix_estep_factor, x, weights, mu, loadings, uniq, gamma, pab,
          flags, rows, as.integer(threads))
  }
  if (is.null(raw)) {
    return(NULL)
  }
  factor_unpack(raw, d, ncol(loadings))
}

# The rows of x (n x d) and their weights (NULL or n values >= 0) on CUDA
# device `device`, for factor_estep(): the handle, the dimensions, and
# free() (the device memory is also freed when the handle is collected).
factor_cuda_data <- function(x, weights, device) {
  storage.mode(x) <- "double"
  handle <- .Call(ffi_cuda_factor_data_create, x,
                  if (is.null(weights)) NULL else as.double(weights),
                  as.integer(device))
  list(handle = handle, dim = dim(x),
       free = function() invisible(.Call(ffi_cuda_factor_data_free, handle)))
}

# The engine of a factor fit on rows in memory (R/engines.R): its
# estep_factor(par, what, rows) is factor_estep() on the CPU threads, or
# on the GPU, where the rows and their weights are copied once, when the
# engine is made; there its estep_mixture(args) takes factor_estep_args()
# (the raw statistics of a chunk of a chunked fit: chunk_estep()).
factor_engine <- function(x, backend, threads, device, weights = NULL) {
  if (backend == "cuda") {
    data <- factor_cuda_data(x, weights, device)
    return(new_engine(
      "cuda", nrow(x), ncol(x), estep = factor_engine_no_full,
      free = data$free,
      estep_mixture = function(args) factor_cuda_estep_raw(data, args),
      estep_factor = function(par, what, rows) {
        factor_estep(data, par, what, rows = rows, backend = "cuda")
      }
    ))
  }
  cpu <- mix_engine_cpu(x, threads, weights)
  new_engine(
    "cpu", nrow(x), ncol(x), estep = cpu$estep,
    estep_mixture = cpu$estep_mixture,
    estep_factor = function(par, what, rows) {
      factor_estep(x, par, what, weights, rows, threads)
    }
  )
}

# The raw statistics of the factor E-step (factor_estep_args(): args) of
# the rows on the device (factor_cuda_data(): data), weighted by the
# weights held there, as ffi_mix_estep_factor() gives those of the CPU.
factor_cuda_estep_raw <- function(data, args) {
  if (is.null(args$loadings)) {
    stop("internal error: a factor fit's CUDA engine has no mixture E-step",
         call. = FALSE)
  }
  .Call(ffi_cuda_mix_estep_factor, data$handle, args$center, args$loadings,
        args$uniquenesses, args$gamma, args$pab, args$what, FALSE)
}

# (the estep() of a factor fit's CUDA engine: it holds no full-Sigma data)
factor_engine_no_full <- function(center, chol_l, g, consts, what, rows) {
  stop("internal error: a factor fit's CUDA engine has no full-Sigma E-step",
       call. = FALSE)
}

# The statistics of the factor E-step by name (estep_decode_one()), and
# its constants proj, logdet and gsg.
factor_unpack <- function(raw, d, r) {
  st <- estep_decode_one(raw, estep_layout(d, cov = "factor", factors = r))
  st$proj <- attr(raw, "proj")
  st$logdet <- attr(raw, "logdet")
  st$gsg <- attr(raw, "gsg")
  st
}
