# The E-step of a mixture of G components in R, composed from the
# single-component per-row E-step (mix_estep(rows = TRUE)): the reference
# the compiled mixture E-step (mixture_estep(), R/mix_estep.R) is tested
# against, and the E-step the mixture fits use unless that one is chosen
# (mixture_estep_fun()).  Same arguments and result as mixture_estep():
# x the rows (n x d); pars G parameter lists; props the G mixing
# proportions; weights NULL or n non-negative row weights.  NULL when a
# component's parameters are not usable; otherwise list(n, weight, loglik,
# n_bad, components, rows): the rows in the sums and their weight, the
# weighted mixture log-likelihood, the rows whose mixture density is not
# finite and positive (left out of every sum), the G components'
# statistics (the names of estep_decode(), about each component's mu) and,
# with rows = TRUE, list(loglik, tau, inv_y, y, log_y) per row (tau: the
# n x G membership probabilities, 0 at bad rows).
mixture_estep_r <- function(x, pars, props, weights = NULL,
                            what = mix_what_rows(), rows = FALSE,
                            threads = ghmix_threads(), ...) {
  mr <- mixture_rows_r(x, pars, props, threads, what)
  if (is.null(mr)) {
    return(NULL)
  }
  w_in <- if (is.null(weights)) rep(1, nrow(x)) else as.double(weights)
  ok <- mr$ok & w_in > 0
  w <- ifelse(ok, w_in, 0)
  logy <- bitwAnd(as.integer(what), ghmix_flags("estep", "logy")) != 0L
  comps <- lapply(seq_along(pars), function(k) {
    mixture_stats_r(x, pars[[k]], mr$per[[k]], w * mr$z[, k], logy)
  })
  list(
    n = sum(ok), weight = sum(w), loglik = sum(w[ok] * mr$logf[ok]),
    n_bad = sum(!mr$ok & w_in > 0), components = comps,
    rows = if (rows) mixture_rows_list(mr)
  )
}

# Per row: each component's E-step rows (per), the log mixture density
# (logf), the membership probabilities (z, 0 where the density is not
# finite and positive) and whether it is (ok).  what: the E-step flags.
mixture_rows_r <- function(x, pars, props, threads, what = mix_what_rows()) {
  per <- if (is.null(pars[[1L]]$loadings)) {
    engine <- mix_engine_cpu(x, threads)
    lapply(pars, function(par) mix_estep(engine, par, what, rows = TRUE)$rows)
  } else {
    lapply(pars, function(par) {
      factor_estep(x, par, what, rows = TRUE, threads = threads)$rows
    })
  }
  mixture_rows_combine(per, props)
}

# mixture_rows_r()'s result from each component's E-step rows (per; NULL
# where a component's parameters are not usable) and the proportions.
mixture_rows_combine <- function(per, props) {
  if (any(vapply(per, is.null, NA))) {
    return(NULL)
  }
  col <- estep_row_columns()
  n <- nrow(per[[1L]])
  logf <- vapply(seq_along(per), function(k) {
    lf <- per[[k]][, col[["loglik"]]]
    lf[is.na(lf)] <- -Inf
    log(props[[k]]) + lf
  }, numeric(n))
  dim(logf) <- c(n, length(per))
  top <- logf[cbind(seq_len(n), max.col(logf, "first"))]
  lse <- top + log(rowSums(exp(logf - top)))
  ok <- is.finite(top) & is.finite(lse)
  z <- exp(logf - lse)
  z[!ok, ] <- 0
  list(per = per, logf = lse, z = z, ok = ok)
}

# The per-row results as mixture_estep() gives them.
mixture_rows_list <- function(mr) {
  col <- estep_row_columns()
  block <- function(name) {
    vapply(mr$per, function(p) p[, col[[name]]], numeric(length(mr$logf)))
  }
  list(loglik = mr$logf, tau = mr$z, inv_y = block("inv_y"),
       y = block("y"), log_y = block("log_y"))
}

# One component's sums, each row weighted by v (weight times membership);
# rows with v = 0 are left out (their moments may be infinite there).
mixture_stats_r <- function(x, par, per, v, logy) {
  m <- mixture_moments_r(x, par, per, v, logy)
  c(m$stats, list(sxx = crossprod(m$u * m$vi, m$u)))
}

# The sums of mixture_stats_r() but sxx, and the rows kept (v > 0) about
# par$mu (u) with their weights times E[1/Y|x] (vi).
mixture_moments_r <- function(x, par, per, v, logy) {
  col <- estep_row_columns()
  keep <- v > 0
  v <- v[keep]
  u <- sweep(x[keep, , drop = FALSE], 2L, par$mu)
  inv_y <- per[keep, col[["inv_y"]]]
  e_y <- per[keep, col[["y"]]]
  vi <- v * inv_y
  c_k <- if (par$a > 0 && par$b > 0) sqrt(par$b / par$a) else 1
  stats <- list(
    tau = sum(v), s_inv = sum(vi), s_y = sum(v * e_y),
    s_log = if (logy) sum(v * per[keep, col[["log_y"]]]) else 0,
    s_inv_dev = sum(v * (c_k * inv_y - 1)), s_y_dev = sum(v * (e_y / c_k - 1)),
    sx = drop(crossprod(u, v)), sxw = drop(crossprod(u, vi))
  )
  list(stats = stats, u = u, vi = vi)
}

# The mixture E-step the fits call: the compiled mixture_estep() where the
# package has it (R/mix_estep.R) unless option ghmix.mixture_estep = "r"
# asks for the R composition above (the tests' reference).
mixture_estep_fun <- function() {
  ns <- topenv()
  use_c <- !identical(getOption("ghmix.mixture_estep", "c"), "r") &&
    exists("mixture_estep", envir = ns, mode = "function", inherits = FALSE)
  if (use_c) get("mixture_estep", envir = ns) else mixture_estep_r
}
