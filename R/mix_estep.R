# The E-step of a finite mixture of G >= 1 normal variance-mean mixture
# components (src/core/estep.h, mixture.h; the C driver in
# src/cpu/mixture_cpu.c and src/cuda), for the R-level mixture fits.
#
# THE AGREED SIGNATURE (kept from the first commit on):
#
#   mixture_estep(x, pars, props, weights = NULL, what, rows = FALSE,
#                 threads = ghmix_threads(), backend = "cpu", device = NULL)
#
#   x        n x d double matrix (for backend = "cuda" also the handle of
#            ffi_cuda_mix_data_create(x, device), so that a fit copies the
#            rows to the GPU once);
#   pars     list of G parameter lists as R/fit_model.R uses them:
#            list(mu, gamma, sigma, p, a, b); component k's statistics are
#            taken about its own pars[[k]]$mu;
#   props    the G mixing proportions pi_k (> 0; they are used as given,
#            through log(props), so they should sum to 1);
#   weights  NULL, or n non-negative finite row weights w_i (a row with
#            w_i = 0 adds nothing at all, not even to n_bad);
#   what     E-step flags (ghmix_flags("estep", ...), e.g. mix_what(family));
#            the "weights" flag follows `weights`, whatever `what` says;
#   rows     TRUE: also the per-row results (below);
#   threads  CPU threads (results do not depend on them);
#   backend  "cpu" or "cuda"; device: the GPU (NULL: device 0).
#
# Returns NULL when some component's parameters are not usable (sigma not
# positive definite, an invalid GIG, mu or gamma not finite), as
# mix_estep() does; otherwise
#   list(n, weight, loglik, n_bad,
#        components = list of G lists, each with the fields of
#          estep_decode(): tau (= sum_i v_ik, v_ik = w_i tau_ik), s_inv,
#          s_y, s_log, s_inv_dev, s_y_dev, sx, sxw, sxx (all sums weighted
#          by v_ik, about pars[[k]]$mu),
#        rows = NULL, or (rows = TRUE) list(loglik = n vector of the
#          mixture log f(x_i), tau = n x G posterior memberships tau_ik,
#          inv_y, y, log_y = n x G matrices of E[1/Y | x_i, k],
#          E[Y | x_i, k], E[log Y | x_i, k] (log_y NaN without the "logy"
#          flag)))
# n: rows in the sums (accepted, with w_i > 0); weight: sum of their w_i;
# loglik: sum w_i log f(x_i), f the mixture density; n_bad: rows whose
# mixture density is not finite and positive (left out of every sum).
mixture_estep <- function(x, pars, props, weights = NULL, what, rows = FALSE,
                          threads = ghmix_threads(), backend = "cpu",
                          device = NULL) {
  args <- mixture_estep_args(pars, props, what)
  if (is.null(args)) {
    return(NULL)
  }
  if (!is.null(weights)) {
    weights <- as.double(weights)
  }
  raw <- if (backend == "cuda") {
    if (!inherits(x, "externalptr")) {
      dev <- if (is.null(device)) 0L else as.integer(device)
      x <- .Call(ffi_cuda_mix_data_create, x, dev)
      on.exit(.Call(ffi_cuda_mix_data_free, x), add = TRUE)
    }
    .Call(ffi_cuda_mix_estep_mixture, x, args$centers, args$chols, args$gs,
          args$consts, args$log_props, weights, args$what, rows)
  } else {
    .Call(ffi_mix_estep_mixture, x, args$centers, args$chols, args$gs,
          args$consts, args$log_props, weights, args$what, rows,
          as.integer(threads))
  }
  mixture_unpack(raw, nrow(args$centers), length(pars))
}

# The .Call arguments of the G components (NULL when one is not usable).
mixture_estep_args <- function(pars, props, what) {
  args <- .Call(ffi_mixture_estep_args, pars)
  if (is.null(args)) {
    return(NULL)
  }
  no_weights <- the$estep_no_weights
  if (is.null(no_weights)) {
    no_weights <- bitwNot(ghmix_flags("estep", "weights"))
    the$estep_no_weights <- no_weights
  }
  c(args, list(log_props = log(as.double(props)),
               what = bitwAnd(as.integer(what), no_weights)))
}

# The statistics of the whole model and of each component (by name:
# estep_decode()), and the rows.
mixture_unpack <- function(raw, d, g) {
  c(estep_decode(raw, estep_layout(d, components = g)),
    list(rows = mixture_rows(attr(raw, "rows"), g)))
}

# The per-row output by its column names (src/r_mix_estep.c).
mixture_rows <- function(r, g) {
  if (is.null(r)) {
    return(NULL)
  }
  block <- function(name) {
    m <- r[, paste0(name, "_", seq_len(g)), drop = FALSE]
    dimnames(m) <- NULL
    m
  }
  list(loglik = unname(r[, "loglik"]), tau = block("tau"),
       inv_y = block("inv_y"), y = block("y"), log_y = block("log_y"))
}
