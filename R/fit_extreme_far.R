# A row beyond extreme_mv_max_dist robust spreads in a direct maximisation
# with d >= 2 (R/fit_extreme.R): its log density in closed form, exact
# where the E-step's and dgh()'s are rounded.
#
# There the maximum puts gamma along x - mu to within |z|^(-1/2), finer
# than the rounding of any direction in doubles (and x - mu rounds to x).
# So gamma is taken as s (x - mu) + h exactly, s = w[1] / |x| and h the
# part across x (extreme_gamma_map()): in whitened coordinates
# g = L^-1 gamma = s z + eta, eta = L^-1 h, and with Q = |z|^2,
# B = g'z, G = |g|^2 and omega = sqrt((a + G)(b + Q)) (src/core/mixture.h):
#   s^2 (b + Q) = s^2 b + |g - eta|^2,   s B = G - g'eta,
#   z_perp = z - (B / G) g = -eta_perp / s  (eta_perp: eta across g),
#   B - omega = -(a (b + Q) + G b + G |z_perp|^2) / (B + omega),
# each from s, g and eta alone, without cancellation; and
#   log f = log c(p, a, b) - (d/2) log(2 pi) - log|L| + log 2
#           + (lam/2) log((b + Q) / (a + G)) + log K_lam(omega)
# (lam = p - d/2; the normal mixture over GIG(p, a, b) integrated,
# DLMF 10.32.10), with K_lam(omega) e^omega from besselK(expon.scaled =
# TRUE) and the exponent B - omega added apart.

# The largest sqrt(ab) at which the far row's log density is taken: its
# rounding there is ~ eps sqrt(ab), 2e-10.
extreme_far_max_w <- 2^20

extreme_far_max_order <- 1e4

# The index of the row whose log density extreme_far_ldens() gives (NULL:
# every row by dgh()): the farthest row, where it lies beyond
# extreme_mv_max_dist in a fit with gamma and d >= 2.
extreme_far_exact <- function(ctx, far) {
  i <- which.max(far$distance)
  if (ctx$symmetric || ctx$engine$d == 1L ||
        far$distance[[i]] <= extreme_mv_max_dist) {
    return(NULL)
  }
  far$rows[[i]]
}

# list(s, h) of the exact gamma = s (x - mu) + h of the far row, from the
# coordinates w of gamma (extreme_gamma_map()) and the gauge's scale sg
# (gamma / sg reported); NULL where no row is taken exactly.
extreme_far_tilt <- function(ctx, w, sg) {
  if (is.null(ctx$far_exact)) {
    return(NULL)
  }
  m <- ctx$gamma_map
  list(s = w[[1L]] / ctx$far_norm / sg,
       h = drop(m[, -1L, drop = FALSE] %*% w[-1L]) / sg)
}

# log f of the far row at the parameters z (lower Cholesky factor chol_z),
# gamma = tilt$s (x - mu) + tilt$h.  NA where s <= 0 (the row on the
# light side, where its density underflows); where sqrt(ab) exceeds
# extreme_far_max_w: there log c(p, a, b) ~ +sqrt(ab) cancels against the
# exponent's -omega, and the row's log density is ~ -sqrt(a) |z|, far
# below the maximum's (sqrt(ab) ~ n / |z|, or a = 0); and where
# |p - d/2| exceeds extreme_far_max_order (besselK() allocates ~ nu
# doubles), where it is ~ (p - d/2) log |z| < -1e4 log |z|.
extreme_far_ldens <- function(z, chol_z, tilt) {
  s <- tilt$s
  d <- length(z$mu)
  lam <- z$p - d / 2
  if (!(s > 0) || sqrt(z$a) * sqrt(z$b) > extreme_far_max_w ||
        abs(lam) > extreme_far_max_order) {
    return(NA_real_)
  }
  g <- forwardsolve(chol_z, z$gamma)
  # relative to |g| (~ 1e107 in the balanced gauge at |z| = 1e100): perp2
  # is |eta_perp|^2 over G, r2 is s^2 (b + Q) over G, a_g is a over G and
  # big_s is s times (B + omega), over G
  g_norm <- extreme_norm(g)
  g_hat <- g / g_norm
  eta <- forwardsolve(chol_z, tilt$h) / g_norm
  g_eta <- sum(g_hat * eta)
  perp2 <- sum((eta - g_eta * g_hat)^2)
  r2 <- (s / g_norm)^2 * z$b + sum((g_hat - eta)^2)
  a_g <- z$a / g_norm / g_norm
  root_a <- sqrt(1 + a_g)
  big_s <- (1 - g_eta) + root_a * sqrt(r2)
  omega <- g_norm * root_a * sqrt(r2) * (g_norm / s)
  expo <- -(z$a * r2 / s + z$b * s + perp2 / s) / big_s
  extreme_gig_log_const(z$p, z$a, z$b) - (d / 2) * log(2 * pi) -
    sum(log(diag(chol_z))) + log(2) +
    (lam / 2) * (log(r2) - 2 * log(s) - log1p(a_g)) +
    log(besselK(omega, abs(lam), expon.scaled = TRUE)) + expo
}

# gig_log_const() with sqrt(a) sqrt(b) (a b underflows where a = b ~ 1 / D
# in the balanced gauge).
extreme_gig_log_const <- function(p, a, b) {
  if (a == 0) {
    return(gig_log_const(p, a, b))
  }
  (p / 2) * (log(a) - log(b)) - log(2) - log_besselK(sqrt(a) * sqrt(b), p)
}

# extreme_confirmed() where the far row is taken exactly: dgh() of the
# other rows at pt$par in the units they are fitted in (not the robust
# ones) agrees with pt$loglik less the far row's term, so that the
# parameters are doubles there (data on a scale of 1e-290 beside the row
# are fitted unstandardised, where they are not).
extreme_far_confirmed <- function(pt, ctx) {
  i <- ctx$far_exact
  par <- pt$par
  f <- tryCatch(suppressWarnings(dgh(ctx$x[-i, , drop = FALSE], par$mu,
                                     par$gamma, par$sigma, par$p, par$a,
                                     par$b, log = TRUE)),
                ghmix_error = function(e) NA_real_)
  w <- ctx$w
  rest <- if (is.null(w)) sum(f) else sum(w[-i] * f)
  far <- pt$far - sum(log(ctx$std$scale))
  if (!is.null(w)) far <- w[[i]] * far
  isTRUE(abs(rest + far - pt$loglik) <= 1e-9 * (1 + abs(pt$loglik)))
}
