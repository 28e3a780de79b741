# The E-step of a mixture of G components in R, composed from the
# single-component per-row E-step (mix_estep(rows = TRUE)): the reference
# the compiled mixture E-step (mixture_estep(), R/mix_estep.R) is tested
# against, and the E-step the mixture fits use until it is there.
#
# x: the rows (n x d); pars: G parameter lists; props: the G mixing
# proportions; weights: NULL or n non-negative row weights.  Returns
# list(loglik, rows, weight, bad, stats, z): the weighted mixture
# log-likelihood, the rows in the sums, their weight, the rows whose
# mixture density is not finite and positive (left out of every sum), the G
# components' statistics (the names of unpack_stats(), taken about each
# component's mu) and, with rows = TRUE, the n x G membership
# probabilities (0 at bad rows).
mixture_estep_r <- function(x, pars, props, weights = NULL,
                            what = mix_what_rows(), rows = FALSE,
                            threads = ghmix_threads(), ...) {
  mr <- mixture_rows(x, pars, props, threads, what)
  w <- if (is.null(weights)) rep(1, nrow(x)) else as.double(weights)
  w[!mr$ok] <- 0
  col <- estep_row_columns()
  stats <- lapply(seq_along(pars), function(k) {
    mixture_stats_r(x, pars[[k]], mr$per[[k]], w * mr$z[, k], col)
  })
  list(
    loglik = sum(w[mr$ok] * mr$logf[mr$ok]), rows = sum(mr$ok),
    weight = sum(w), bad = sum(!mr$ok), stats = stats,
    z = if (rows) mr$z
  )
}

# Per row: each component's E-step rows (per), the log mixture density
# (logf), the membership probabilities (z, 0 where the density is not
# finite and positive) and whether it is (ok).  what: the E-step flags
# (E[log Y | x] is 0 without "logy").
mixture_rows <- function(x, pars, props, threads, what = mix_what_rows()) {
  engine <- mix_engine_cpu(x, threads)
  col <- estep_row_columns()
  per <- lapply(pars, function(par) {
    out <- mix_estep(engine, par, what, rows = TRUE)$rows
    if (is.null(out)) matrix(NA_real_, nrow(x), length(col)) else out
  })
  logf <- vapply(seq_along(pars), function(k) {
    lf <- per[[k]][, col[["loglik"]]]
    lf[is.na(lf)] <- -Inf
    log(props[[k]]) + lf
  }, numeric(nrow(x)))
  dim(logf) <- c(nrow(x), length(pars))
  top <- logf[cbind(seq_len(nrow(x)), max.col(logf, "first"))]
  lse <- top + log(rowSums(exp(logf - top)))
  ok <- is.finite(top) & is.finite(lse)
  z <- exp(logf - lse)
  z[!ok, ] <- 0
  list(per = per, logf = lse, z = z, ok = ok)
}

# One component's sums, each row weighted by v (weight times membership);
# rows with v = 0 are left out (their moments may be infinite there).
mixture_stats_r <- function(x, par, per, v, col) {
  keep <- v > 0
  v <- v[keep]
  u <- sweep(x[keep, , drop = FALSE], 2L, par$mu)
  inv_y <- per[keep, col[["inv_y"]]]
  e_y <- per[keep, col[["y"]]]
  vi <- v * inv_y
  c_k <- if (par$a > 0 && par$b > 0) sqrt(par$b / par$a) else 1
  list(
    n = length(v), tau = sum(v), loglik = NA_real_, s_inv = sum(vi),
    s_y = sum(v * e_y), s_log = sum(v * per[keep, col[["log_y"]]]),
    s_inv_dev = sum(v * (c_k * inv_y - 1)), s_y_dev = sum(v * (e_y / c_k - 1)),
    n_bad = 0, sx = drop(crossprod(u, v)), sxw = drop(crossprod(u, vi)),
    sxx = crossprod(u * vi, u)
  )
}

# The mixture E-step the fits call: the compiled one where it is built and
# chosen (option ghmix.mixture_estep = "c"), else the R composition.
mixture_estep_fun <- function() {
  use_c <- identical(getOption("ghmix.mixture_estep", "r"), "c") &&
    exists("mixture_estep", mode = "function")
  if (use_c) get("mixture_estep", mode = "function") else mixture_estep_r
}
