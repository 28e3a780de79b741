# Factor-analytic fits (`factors = r`): Sigma = F F' + diag(D) with F the
# d x r loadings and D the d uniquenesses, through the one fit path of
# R/fit_run.R and R/fit_em.R.  The parameters are list(mu, gamma, loadings,
# uniquenesses, p, a, b) (no sigma; no d x d matrix is ever formed); the
# E-step is factor_estep() (Woodbury, O(n d r)); the M-step of mu, gamma
# and (p, a, b) is that of mstep_member(), and Sigma's is one closed-form
# factor-analysis EM step (Rubin and Thayer 1982, Psychometrika 47,
# 69-76) on the effective scatter S of full_sigma(): with beta =
# F' Sigma^-1 from the E-step,
#   F_new = S beta' (I - beta F + beta S beta')^-1,
#   D_new = diag(S) - rowSums(F_new * (S beta')),
# which increases -log det Sigma - tr(Sigma^-1 S) (it is one EM step of
# the factor-analysis likelihood of S), so that each iteration is a GEM
# step and the log-likelihood never decreases.

# The relative floor of the uniquenesses: D_j >= factor_uniq_floor S_jj.
# Where the maximum has D_j -> 0 (a Heywood case: column j explained by the
# factors), the M-step stops there; the step remains the maximiser of the
# EM auxiliary function over the D above the floor, so still monotone.
factor_uniq_floor <- 1e-6

factor_abort_mode <- function(message, call) {
  ghmix_abort(message, class = c("ghmix_error_factor_mode",
                                 "ghmix_error_argument"), call = call)
}

# The rows as fitted (x, or x standardised where the rule of
# R/fit_scaling.R asks for it), their scaling and moments (center, scale:
# no covariance), for a factor fit with r factors.
factor_fitted_rows <- function(x, w, r, call) {
  if (r >= ncol(x)) {
    abort_argument(
      sprintf("`factors` must be less than d = %d (the columns of `x`).",
              ncol(x)),
      call
    )
  }
  factor_warn_identified(ncol(x), r, call)
  mix_fitted_rows(x, w, factor_moments)
}

# The columns' (weighted) means and standard deviations.
factor_moments <- function(x, w) {
  tot <- if (is.null(w)) nrow(x) else sum(w)
  vw <- if (is.null(w)) rep(1, nrow(x)) else w
  center <- drop(crossprod(vw, x)) / tot
  u <- x - rep(center, each = nrow(x))
  den <- if (is.null(w)) tot - 1 else weights_divisor(w)
  scale <- sqrt(drop(crossprod(vw, u^2)) / den)
  list(center = stats::setNames(center, colnames(x)),
       scale = stats::setNames(scale, colnames(x)))
}

# The start of a factor fit (any gauge): mu, gamma and the mixing law as
# mix_start() has them, F and D from the r leading principal components
# of the sample covariance C (principal-factor start: F = V (L - s2)^1/2,
# s2 the mean of the other eigenvalues, D = diag(C) - rowSums(F^2), at
# least diag(C) / 10), or those of `start`; in the units the rows are
# fitted in (src$scaling).  C is that of the rows in memory (src$rows),
# else that of the chunks' summary.
factor_start <- function(src, start, family, args, call) {
  d <- length(src$std$center)
  r <- args$factors
  par <- c(list(mu = src$std$center, gamma = rep(0, d)),
           mix_start_mixing(family))
  if (!is.null(start)) {
    par <- factor_start_from(start, par, family, d, r, call, src$scaling)
  }
  if (is.null(par$loadings) || is.null(par$uniquenesses)) {
    pc <- if (is.null(src$rows)) {
      factor_pca_summary(src$engine$summary, src$std, r)
    } else {
      factor_pca(src$rows, weights_in_sums(src$weights), src$std, r)
    }
    par[c("loadings", "uniquenesses")] <- factor_principal(pc, r)
  }
  if (is.null(factor_woodbury(par))) {
    abort_argument(
      paste("`start` must have finite loadings, positive uniquenesses and",
            "valid p, a, b."),
      call
    )
  }
  if (args$symmetric) par$gamma <- rep(0, d)
  factor_names(par[c("mu", "gamma", "loadings", "uniquenesses", "p", "a",
                     "b")], colnames(src$stored))
}

# F and D from the principal components pc (factor_pca()).
factor_principal <- function(pc, r) {
  d <- length(pc$diag)
  rest <- max((sum(pc$diag) - sum(pc$values[seq_len(r)])) / (d - r), 0)
  f <- pc$vectors[, seq_len(r), drop = FALSE] *
    rep(sqrt(pmax(pc$values[seq_len(r)] - rest, 0)), each = d)
  list(loadings = f,
       uniquenesses = pmax(pc$diag - rowSums(f^2), pc$diag / 10))
}

# The leading eigenvalues and eigenvectors of the (weighted) sample
# covariance C of x, and diag(C), without forming C for large d: a block
# of k = min(d, r + 5) vectors by subspace iteration (Golub and Van Loan,
# Matrix Computations, 4th ed., section 8.2.4), each step C V = u'(w u V)
# / (n - 1) in O(n d k), started deterministically from the columns of C
# of the k largest variances, then Rayleigh-Ritz on the block.  C is that
# of at most max(factor_pca_rows, d) rows of positive weight evenly
# spaced through x, their weights scaled to the same sum (a start only:
# the EM goes on from there; the full C cost 5 s of CPU in a d = 2000,
# n = 1e4 fit with reference BLAS).
factor_pca <- function(x, w, std, r, iter = 4L) {
  d <- ncol(x)
  rows <- if (is.null(w)) seq_len(nrow(x)) else which(w > 0)
  keep <- rows[factor_pca_subset(length(rows), d)]
  x <- x[keep, , drop = FALSE]
  unit <- if (is.null(w)) 1 else weights_unit(w)
  if (!is.null(w)) w <- w[keep] * (sum(w) / sum(w[keep]))
  den <- (if (is.null(w)) nrow(x) else sum(w)) - unit
  u <- x - rep(std$center, each = nrow(x))
  uw <- if (is.null(w)) u else u * w
  k <- min(d, r + 5L)
  top <- order(std$scale, decreasing = TRUE)[seq_len(k)]
  factor_subspace(function(v) crossprod(uw, u %*% v) / den,
                  crossprod(uw, u[, top, drop = FALSE]), std$scale, iter)
}

# The subspace iteration of factor_pca() for C v = apply_c(v), from the
# block `first`; scale: the columns' standard deviations (diag C).
factor_subspace <- function(apply_c, first, scale, iter) {
  v <- qr.Q(qr(first))
  for (i in seq_len(iter)) v <- qr.Q(qr(apply_c(v)))
  cv <- apply_c(v)
  e <- eigen(crossprod(v, cv), symmetric = TRUE)
  list(values = pmax(e$values, 0), vectors = v %*% e$vectors,
       diag = scale^2)
}

factor_pca_rows <- 2000L

# The rows factor_pca() uses: all, or max(factor_pca_rows, d) of them
# evenly spaced.
factor_pca_subset <- function(n, d) {
  m <- max(factor_pca_rows, d)
  if (n <= m) seq_len(n) else unique(round(seq(1, n, length.out = m)))
}

# A start given by the user: a factor fit (with as many factors), any other
# fit (its mu, gamma and mixing law), or a list of some of mu, gamma,
# loadings, uniquenesses, p, a, b; moved into the units of `scaling`.
factor_start_from <- function(start, par, family, d, r, call,
                              scaling = NULL) {
  fitted <- start_of_fit(start)
  from <- fitted$from
  if (is.null(fitted)) {
    factor_check_start_list(start, family, d, r, call)
  } else {
    start <- fitted$par
    if (length(start$mu) != d) {
      abort_argument(
        sprintf("`start` is a fit to %d variables; the data have %d.",
                length(start$mu), d),
        call
      )
    }
    if (!is.null(start$loadings) && ncol(start$loadings) != r) {
      start[c("loadings", "uniquenesses")] <- NULL
    }
  }
  given <- intersect(names(start),
                     c("mu", "gamma", "loadings", "uniquenesses"))
  par[given] <- factor_scaling_move(start[given], from, scaling)
  if (!is.null(par$loadings)) {
    par$loadings <- matrix(as.double(par$loadings), d, r)
  }
  par[c("p", "a", "b")] <- mix_start_sub(start, par, family)
  par
}

factor_check_start_list <- function(start, family, d, r, call) {
  known <- c("mu", "gamma", "loadings", "uniquenesses", "p", "a", "b")
  if (!is.list(start) || is.null(names(start)) ||
        !all(names(start) %in% known)) {
    abort_argument(
      sprintf("`start` of a factor fit must be a fit or a named list of %s.",
              paste0("`", known, "`", collapse = ", ")),
      call
    )
  }
  size <- c(mu = d, gamma = d, loadings = d * r, uniquenesses = d, p = 1,
            a = 1, b = 1)
  for (nm in names(start)) {
    check_start_element(start[[nm]], nm, size[[nm]], call)
  }
  check_start_mixing(start, family, call)
}

factor_names <- function(par, vars) {
  names(par$mu) <- names(par$gamma) <- names(par$uniquenesses) <- vars
  dimnames(par$loadings) <- list(vars, paste0("F", seq_len(ncol(par$loadings)),
                                            recycle0 = TRUE))
  par
}

# log det Sigma = log det M + sum(log D) (NULL: par not usable): what
# factor_woodbury() gives, by the same operations (the same bits), without
# the rest of its set-up (beta, gamma' Sigma^-1 gamma), which the E-step
# forms in C; once per EM iteration (factor_point()).
factor_logdet <- function(par) {
  if (!factor_par_finite(par)) {
    return(NULL)
  }
  chol_m <- factor_chol_m(par$loadings / par$uniquenesses, par$loadings)
  if (is.null(chol_m)) NULL else factor_logdet_chol(chol_m, par$uniquenesses)
}

# The documented rotation of the loadings: F' D^-1 F diagonal with
# decreasing entries (F -> F V, V its eigenvectors: Sigma unchanged), and
# each column's sign such that its largest entry in absolute value is
# positive (log_scale: NULL, or the logs of the factors of the rows of F in
# the user's units, for F in standardised units).
factor_rotate <- function(par, log_scale = NULL) {
  f <- par$loadings
  if (ncol(f) == 0L) {
    return(par)
  }
  e <- eigen(crossprod(f, f / par$uniquenesses), symmetric = TRUE)
  f <- f %*% e$vectors
  size <- if (is.null(log_scale)) abs(t(f)) else t(log(abs(f)) + log_scale)
  top <- f[cbind(max.col(size, "first"), seq_len(ncol(f)))]
  f <- f * rep(ifelse(top < 0, -1, 1), each = nrow(f))
  dimnames(f) <- dimnames(par$loadings)
  par$loadings <- f
  par
}

# The factor fit's mix_point(): the parameters normalised (standardised,
# in the det gauge), theta (mu, gamma, vec(F), log D and the mixing
# parameters as pack_em() has them) and the E-step statistics.  F is
# not rotated here (factor_result() does it once, at the end): the
# rotation's sign and order conventions jump where two entries or two
# eigenvalues cross, which breaks the SQUAREM extrapolation and the
# parameter rule, while the M-step (factor_fa_step()) is equivariant
# under F -> F R (R orthogonal), so the unrotated iteration is smooth.
factor_point <- function(par, ctx) {
  if (!is.null(ctx$fixed)) par <- fixed_impose(par, ctx$fixed)
  z <- to_std(par, ctx$std)
  ld <- factor_logdet(z)
  if (is.null(ld)) {
    return(list(par = par, ok = FALSE, st = NULL, loglik = NA_real_,
                objective = NA_real_))
  }
  z <- apply_scale(z, exp(ld / length(z$mu)))
  par <- from_std(z, ctx$std)
  t0 <- proc.time()[[3]]
  st <- factor_point_estep(par, ctx)
  ctx$clock$estep <- ctx$clock$estep + proc.time()[[3]] - t0
  ctx$clock$esteps <- ctx$clock$esteps + 1L
  if (!is.null(st$launches)) {
    ctx$clock$launches <- ctx$clock$launches + st$launches
  }
  ok <- !is.null(st) && st$n_bad == 0 && is.finite(st$loglik)
  loglik <- if (ok) st$loglik else NA_real_
  pt <- list(
    par = par,
    theta = pack_em(z, ctx$family, ctx$symmetric),
    st = st, ok = ok, loglik = loglik, objective = loglik
  )
  penalty_point(pt, loglik, list(par), list(st), ctx$shrink)
}

# A factor fit's second SQUAREM candidate (mix_squarem()), tried where the
# global step alpha was cut short by its bound: the loadings extrapolated
# with their own block's step -|r_F| / |v_F| (Varadhan and Roland 2008,
# S3), the rest with alpha.  The loadings can converge far more slowly
# than the rest (in the d = 2000, r = 20 fit of bench/factor.R their
# block's |r| / |v| is near 100 where the others' are near 1), and one
# global step long enough for them overshoots in the other blocks and is
# refused.  The better of px (the global step's point) and this one;
# mix_squarem()'s guard still compares it with two EM steps.
factor_squarem_block <- function(px, pt, r, v, alpha, ctx) {
  d <- length(ctx$std$center)
  f <- (if (ctx$symmetric) d else 2L * d) + seq_len(d * ctx$factors)
  raw <- -sqrt(sum(r[f]^2) / sum(v[f]^2))
  if (!is.finite(raw) || raw >= alpha) {
    return(px)
  }
  a <- rep(alpha, length(r))
  a[f] <- raw
  theta <- pt$theta - 2 * a * r + a^2 * v
  z <- unpack_em(theta, ctx$family, ctx$symmetric, d, ctx$factors)
  pb <- mix_point(from_std(z, ctx$std), ctx)
  better <- pb$ok && (!px$ok || pb$objective > px$objective)
  if (better) pb else px
}

# The M-step of a factor fit (see the top of this file); with a prior
# (pen: penalty_arg(), R/penalty.R), on the penalised scatter: the factor
# structure's mstep (R/cov.R, R/mstep.R) at the location step loc.  Its
# products are small (d x r by r x r, r x r solves with d right-hand
# sides): a multithreaded BLAS (OpenBLAS) hands each to its own threads,
# which costs milliseconds per iteration on a busy machine or beside the
# E-step's threads, so the BLAS runs on one thread for it, as the compiled
# E-steps do (src/cpu/blas_threads.h).
factor_cov_mstep <- function(st, loc, par, pen) {
  blas_threads <- .Call(ffi_blas_threads_single)
  on.exit(.Call(ffi_blas_threads_restore, blas_threads))
  sc <- factor_scatter(st, factor_scatter_terms(loc))
  sc <- penalty_scatter(sc, st$proj, pen)
  factor_fa_step(sc, st$proj, par$loadings)
}

# The factor step of constraints_profiled_mstep() with a nonzero gamma
# held: gauge_search() profiled Q_N over a scale s of Sigma -> s Sigma
# (F -> s^1/2 F, D -> s D) with F and D otherwise held: for the scatter
# M(gamma) of R/constraints.R's gauge section, Q_N = -(d log s + log det
# Sigma) / 2 - tr(Sigma^-1 M) / (2 s), at its best s = tr(Sigma^-1 M) / d
# -d / 2 log tr(Sigma^-1 M) up to a constant (factor_gauge_normal(); the
# full fit's profile over Sigma, -log det M / 2, has no closed form
# here).  Then the factor-analysis step from (s^1/2 F, s D) on M at the
# new mu and gamma (loc), whose beta is beta / s^1/2 (with a prior, whose
# tr(Sigma^-1 T) is then tr / s).
factor_mstep_profiled <- function(s, st, loc, par, pen) {
  at <- st
  at$proj <- st$proj / sqrt(s)
  at$sxx_proj <- st$sxx_proj / sqrt(s)
  sc <- factor_scatter(at, factor_scatter_terms(loc))
  if (!is.null(pen)) pen$tr <- pen$tr / s
  sc <- penalty_scatter(sc, at$proj, pen)
  factor_fa_step(sc, at$proj, par$loadings * sqrt(s))
}

# Q_N of factor_mstep_profiled() at the best scale of Sigma (par's, with
# beta = st$proj) for gauge_q(): tr(Sigma^-1 M(gamma)) from the E-step's
# S beta' and diag(S) and Sigma^-1 v = v / D - (F / D) beta v (Woodbury),
# O(d r) per trial; mu_u the move of mu (0 with mu held), scale the best s.
factor_gauge_normal <- function(st, par) {
  dd <- par$uniquenesses
  fd <- par$loadings / dd
  d <- length(dd)
  beta <- if (ncol(fd) == 0L) matrix(0, 0L, d) else st$proj
  inv <- function(v) v / dd - drop(fd %*% (beta %*% v))
  tr_sxx <- (sum(st$sxx_diag / dd) - sum(fd * st$sxx_proj)) / st$tau
  function(gamma, m, mu_held) {
    mu_u <- if (mu_held) 0 * gamma else (m$xw - gamma) / m$delta
    rest <- m$xbar - mu_u
    inv_g <- inv(gamma)
    tr <- tr_sxx - 2 * sum(m$xw * inv(mu_u)) +
      m$delta * sum(mu_u * inv(mu_u)) - 2 * sum(rest * inv_g) +
      m$eta * sum(gamma * inv_g)
    list(mu_u = mu_u, scale = tr / d,
         q = if (tr > 0) -d / 2 * log(tr / d) else -Inf)
  }
}

# The effective scatter of full_sigma() as S = sxx / n + sum_k c_k
# a_k b_k': its rank-one terms list(c_k, a_k, b_k) at the new mu, gamma.
factor_scatter_terms <- function(loc) {
  xw <- loc$xw
  mu_u <- loc$mu_u
  gamma <- loc$gamma
  if (loc$held) {
    return(list(
      list(-1, xw, mu_u), list(-1, mu_u, xw), list(-1, loc$xbar, gamma),
      list(-1, gamma, loc$xbar), list(loc$delta, mu_u, mu_u),
      list(1, mu_u, gamma), list(1, gamma, mu_u), list(loc$eta, gamma, gamma)
    ))
  }
  list(list(-1, xw, mu_u), list(-1, mu_u, xw), list(loc$delta, mu_u, mu_u),
       list(-loc$eta, gamma, gamma))
}

# S beta' (d x r) and diag(S) of the effective scatter S = sxx / n +
# sum_k c_k a_k b_k' (factor_scatter_terms()), from the E-step's
# sxx_proj = sxx beta' and sxx_diag, without forming S.  (A shrinkage
# prior enters after it: penalty_scatter().)
factor_scatter <- function(st, terms) {
  n <- st$tau
  proj <- st$sxx_proj / n
  dg <- st$sxx_diag / n
  for (term in terms) {
    proj <- proj + term[[1L]] * tcrossprod(term[[2L]], st$proj %*% term[[3L]])
    dg <- dg + term[[1L]] * term[[2L]] * term[[3L]]
  }
  list(proj = proj, diag = dg)
}

# One factor-analysis EM step for the scatter sc (factor_scatter()) from
# beta = F' Sigma^-1 and F at the E-step (Rubin and Thayer 1982, eq. 5-6).
factor_fa_step <- function(sc, beta, f) {
  r <- ncol(f)
  if (r == 0L) {
    return(list(loadings = f, uniquenesses = sc$diag))
  }
  cc <- diag(r) - beta %*% f + beta %*% sc$proj
  f_new <- t(solve((cc + t(cc)) / 2, t(sc$proj)))
  dd <- sc$diag - rowSums(f_new * sc$proj)
  list(loadings = f_new,
       uniquenesses = pmax(dd, factor_uniq_floor * sc$diag))
}

# Whether r factors in d dimensions are identified (up to rotation): F F'
# + diag(D) has no more parameters than Sigma, (d - r)^2 >= d + r
# (Ledermann 1937; Anderson and Rubin 1956).  Beyond it (r >= 3 in d = 5)
# the model is the full Sigma with loadings that are not unique.
factor_identified <- function(d, r) (d - r)^2 >= d + r

# A warning (class ghmix_warning_factors) where r is not identified.
factor_warn_identified <- function(d, r, call) {
  if (factor_identified(d, r)) {
    return(invisible(TRUE))
  }
  top <- max(which(vapply(0:r, factor_identified, NA, d = d))) - 1L
  ghmix_warn(
    sprintf(
      paste(
        "%d factors in d = %d are not identified ((d - r)^2 < d + r): the",
        "factor model is the full Sigma (df counts its %d parameters) with",
        "loadings that are not unique, and vcov() has no standard errors;",
        "use %s, or factors = NULL."
      ),
      r, d, d * (d + 1L) / 2L,
      if (top == 0L) "factors = 0 (a diagonal Sigma)" else
        sprintf("factors <= %d", top)
    ),
    class = "ghmix_warning_factors", call = call
  )
  invisible(FALSE)
}

# The fit object's factor parts: the parameters in the documented rotation
# (in the data's units), $factors, $loadings, $uniquenesses.
factor_result <- function(fit) {
  if (!is.null(fit$scaling)) fit <- factor_result_scaled(fit)
  par <- if (is.null(fit$scaling)) factor_rotate(fit$parameters) else
    fit$parameters
  par <- factor_names(par, colnames(fit$data))
  fit$parameters <- par
  fit$factors <- ncol(par$loadings)
  fit$loadings <- par$loadings
  fit$uniquenesses <- par$uniquenesses
  fit
}

# Methods ----------------------------------------------------------------------

# The largest d for which methods that need Sigma itself (plot(), coef()
# in the ghyp forms or with sigma = TRUE) form it.
factor_sigma_max_d <- 2000L

# The fit with Sigma formed in its parameters (for the methods that need
# it; never stored in the fit).
factor_full_view <- function(object, call = NULL) {
  d <- object$d
  if (d > factor_sigma_max_d) {
    factor_abort_mode(
      sprintf(
        paste("This needs the %d x %d matrix Sigma of a factor fit, formed",
              "only for d <= %d."),
        d, d, factor_sigma_max_d
      ),
      call
    )
  }
  par <- object$parameters
  object$parameters$sigma <- factor_sigma(par$loadings, par$uniquenesses)
  dimnames(object$parameters$sigma) <- list(names(par$mu), names(par$mu))
  object
}

factor_print_sigma <- function(x, digits) {
  par <- x$parameters
  r <- x$factors
  cat(sprintf(
    "Sigma = F F' + diag(D) with %d factor%s (see $loadings, $uniquenesses)\n",
    r, plural(seq_len(r))
  ))
  show <- seq_len(min(x$d, 8L))
  if (r > 0L) {
    cat("loadings F:\n")
    print(signif(par$loadings[show, , drop = FALSE], digits))
  }
  cat("uniquenesses D:\n")
  print(signif(par$uniquenesses[show], digits))
}

# The summary's table of a factor fit: the estimates (as vcov() names
# them) with standard errors from vcov(), NA where the fit has more
# parameters than vcov() takes (factor_vcov_max_k) or is penalised.
factor_summary_coefs <- function(object) {
  par <- object$parameters
  nm <- names_fit(par, object$family, object$symmetric)
  est <- pack_nat(par, object$family, object$symmetric)
  se <- if (!is.null(object$shrink) || length(nm) > factor_vcov_max_k) {
    NA_real_
  } else {
    sqrt(pmax(diag(stats::vcov(object)), 0))
  }
  structure(cbind(Estimate = est, `Std. Error` = se),
            dimnames = list(nm, c("Estimate", "Std. Error")))
}

factor_summary_header <- function(x) {
  cat(sprintf(
    paste0(
      "\nSigma = F F' + diag(D) with %d factor%s (loadings: coef(), ",
      "$loadings).\nParameters (gauge %s; %s):\n"
    ),
    x$factors, plural(seq_len(x$factors)), fit_gauge_label(x$gauge),
    if (!is.null(x$shrink)) "a penalised fit: no standard errors" else
      if (all(is.na(x$coefficients[, 2L]))) "no standard errors" else
      "standard errors from the observed information"
  ))
}
