# The E-step of one factor-analytic component, Sigma = F F' + diag(D), in
# plain R: the reference the compiled factor_estep() (R/factor_estep.R) is
# tested against.  Same arguments and result as factor_estep() (the agreed
# contract, kept exactly): x the n x d rows; par list(mu, gamma, loadings =
# F (d x r, 0 <= r < d), uniquenesses = D, p, a, b); what the E-step flags;
# weights NULL or n row weights; rows TRUE for the per-row results.  NULL
# when the parameters are not usable; otherwise the fields of
# estep_decode_one() but sxx, and sxx_diag = diag(S), sxx_proj = S beta',
# proj = beta = M^-1 F' D^-1 (r x d), logdet = log det Sigma, gsg =
# gamma' Sigma^-1 gamma, with S = sum_i v_i E[1/Y|x_i] u_i u_i', u = x - mu.
#
# Q and B by the Woodbury identity, Sigma^-1 = D^-1 - D^-1 F M^-1 F' D^-1
# with M = I_r + F' D^-1 F, so log det Sigma = log det M + sum(log D)
# (Rubin and Thayer 1982, Psychometrika 47, 69-76): O(n d r), no d x d
# matrix.  Each row's posterior is GIG(p - d/2, a + gsg, b + Q) (DESIGN.md
# section 2): its density from the package's per-row GH density
# (ffi_dgh_rows, as dgh() takes it from Q and B), its moments from
# gig_expectation()'s C code.
factor_estep_r <- function(x, par, what, weights = NULL, rows = FALSE) {
  wb <- factor_woodbury(par)
  if (is.null(wb)) {
    return(NULL)
  }
  n <- nrow(x)
  d <- ncol(x)
  u <- x - rep(par$mu, each = n)
  qb <- factor_quad(u, par, wb)
  out <- factor_rows_r(qb$q, qb$b, d, par, wb, what)
  w_in <- if (is.null(weights)) rep(1, n) else as.double(weights)
  ok <- out$ok & w_in > 0
  v <- ifelse(ok, w_in, 0)
  logy <- bitwAnd(as.integer(what), ghmix_flags("estep", "logy")) != 0L
  m <- mixture_moments_r(x, par, out$rows, v, logy)
  st <- m$stats
  c(
    list(n = sum(ok), tau = st$tau, loglik = sum(v[ok] * out$loglik[ok]),
         s_inv = st$s_inv, s_y = st$s_y, s_log = st$s_log,
         s_inv_dev = st$s_inv_dev, s_y_dev = st$s_y_dev,
         n_bad = sum(!out$ok & w_in > 0), sx = st$sx, sxw = st$sxw,
         rows = if (rows) out$rows, launches = NULL),
    list(sxx_diag = drop(crossprod(m$vi, m$u^2)),
         sxx_proj = crossprod(m$u * m$vi, m$u %*% t(wb$proj)),
         proj = wb$proj, logdet = wb$logdet, gsg = wb$gsg)
  )
}

# The row-independent parts of the Woodbury identity at par: the upper
# Cholesky factor of M = I + F' D^-1 F, D^-1 F, beta = M^-1 F' D^-1,
# log det Sigma and gamma' Sigma^-1 gamma; NULL when par is not usable.
factor_woodbury <- function(par) {
  if (!factor_par_finite(par)) {
    return(NULL)
  }
  dd <- par$uniquenesses
  fd <- par$loadings / dd
  chol_m <- factor_chol_m(fd, par$loadings)
  if (is.null(chol_m)) {
    return(NULL)
  }
  gz <- factor_half_solve(chol_m, crossprod(fd, par$gamma))
  list(
    chol_m = chol_m, fd = fd,
    proj = factor_solve_m(chol_m, t(fd)),
    logdet = factor_logdet_chol(chol_m, dd),
    gsg = sum(par$gamma^2 / dd) - sum(gz^2), gz = gz
  )
}

# The upper Cholesky factor of M = I + F' D^-1 F from fd = D^-1 F and F
# (NULL: not numerically positive definite).
factor_chol_m <- function(fd, f) {
  r <- ncol(f)
  if (r == 0L) {
    return(matrix(0, 0L, 0L))
  }
  tryCatch(chol(diag(r) + crossprod(f, fd)), error = function(e) NULL)
}

# log det Sigma = log det M + sum(log D) from M's Cholesky factor.
factor_logdet_chol <- function(chol_m, dd) {
  2 * sum(log(diag(chol_m))) + sum(log(dd))
}

factor_par_finite <- function(par) {
  all(is.finite(par$uniquenesses) & par$uniquenesses > 0) &&
    all(is.finite(par$loadings)) && all(is.finite(par$mu)) &&
    all(is.finite(par$gamma)) && gig_valid(par$p, par$a, par$b)
}

# R'^-1 v and M^-1 v for M = R'R (R upper; nothing to do for r = 0).
factor_half_solve <- function(chol_m, v) {
  v <- as.matrix(v)
  if (nrow(chol_m) == 0L) v else backsolve(chol_m, v, transpose = TRUE)
}

factor_solve_m <- function(chol_m, v) {
  v <- as.matrix(v)
  if (nrow(chol_m) == 0L) v else backsolve(chol_m, factor_half_solve(chol_m, v))
}

# Q = u' Sigma^-1 u and B = u' Sigma^-1 gamma of the rows u (n x d, about
# mu) by the Woodbury identity.
factor_quad <- function(u, par, wb) {
  dinv <- 1 / par$uniquenesses
  z <- factor_half_solve(wb$chol_m, t(u %*% wb$fd))
  list(
    q = drop(u^2 %*% dinv) - colSums(z^2),
    b = drop(u %*% (par$gamma * dinv)) - drop(crossprod(z, wb$gz))
  )
}

# Per row from Q and B: the n x 4 matrix of the E-step's rows (columns as
# estep_row_columns(): log f, E[1/Y|x], E[Y|x], E[log Y|x], the last NaN
# without the "logy" flag), its log f and whether each row is accepted
# (finite density and moments, E[1/Y|x] > 0, as src/core/mixture.h says).
factor_rows_r <- function(q, b, d, par, wb, what) {
  n <- length(q)
  loglik <- .Call(ffi_dgh_rows, as.double(q), as.double(b), as.integer(d),
                  as.double(par$p), as.double(par$a), as.double(par$b),
                  wb$gsg, wb$logdet, TRUE, 1L)
  eta <- .Call(ffi_gig_expectation, rep(par$p - d / 2, n),
               rep(par$a + wb$gsg, n), par$b + q, 1L, NULL)
  col <- estep_row_columns()
  out <- matrix(NaN, n, length(col))
  out[, col[["loglik"]]] <- loglik
  out[, col[["inv_y"]]] <- eta[, gig_eta_names == "E_inv_y"]
  out[, col[["y"]]] <- eta[, gig_eta_names == "E_y"]
  if (bitwAnd(as.integer(what), ghmix_flags("estep", "logy")) != 0L) {
    out[, col[["log_y"]]] <- eta[, gig_eta_names == "E_log_y"]
  }
  ok <- is.finite(loglik) & is.finite(out[, col[["inv_y"]]]) &
    is.finite(out[, col[["y"]]]) & out[, col[["inv_y"]]] > 0
  list(rows = out, loglik = loglik, ok = ok)
}
