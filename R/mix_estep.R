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
#            the "weights" flag is added here when weights is not NULL;
#   rows     TRUE: also the per-row results (below);
#   threads  CPU threads (results do not depend on them);
#   backend  "cpu" or "cuda"; device: the GPU (NULL: the current one).
#
# Returns NULL when some component's parameters are not usable (sigma not
# positive definite, an invalid GIG, mu or gamma not finite), as
# mix_estep() does; otherwise
#   list(n, weight, loglik, n_bad,
#        components = list of G lists, each with the fields of
#          unpack_stats(): tau (= sum_i v_ik, v_ik = w_i tau_ik), s_inv,
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
  stop("internal error: mixture_estep() is not implemented yet",
       call. = FALSE)
}
