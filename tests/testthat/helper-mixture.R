# Simulation of X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z with Y ~ GIG(p, a, b)
# straight from the definition (rgig and rnorm), independent of ghmix's rgh.
sim_mixture <- function(n, mu, gamma, sigma, p, a, b) {
  d <- length(mu)
  y <- ghmix::rgig(n, p, a, b)
  z <- matrix(stats::rnorm(n * d), n, d) %*% chol(sigma)
  x <- outer(y, gamma) + sqrt(y) * z
  x <- sweep(x, 2L, mu, "+")
  colnames(x) <- paste0("v", seq_len(d))
  x
}

# A random parameter set of dimension d with E[Y] = 1 (the default gauge).
sim_params <- function(d, family, seed) {
  set.seed(seed)
  a_mat <- matrix(stats::rnorm(d * d), d, d)
  sigma <- crossprod(a_mat) / d + diag(d)
  sub <- switch(family,
    nig = list(p = -0.5, a = 2, b = 2),
    gh = list(p = 1.5, a = 3, b = 0.4),
    vg = list(p = 3, a = 6, b = 0),
    skewt = list(p = -4, a = 0, b = 6)
  )
  par <- c(
    list(mu = stats::rnorm(d), gamma = stats::rnorm(d) / 2, sigma = sigma),
    sub
  )
  # E[Y] = 1 for each family's choice above: check
  stopifnot(abs(ghmix::gig_mean(par$p, par$a, par$b) - 1) < 0.5)
  par
}

# Total log-likelihood of x at par, through the package's density.
mixture_loglik <- function(x, par, family) {
  engine <- ghmix:::mix_engine_cpu(x, 1L)
  what <- ghmix:::mix_what(family)
  ghmix:::mix_estep(engine, par, what)$loglik
}

# The adjusted Rand index (Hubert and Arabie 1985) from the contingency
# table of two labelings.
ari <- function(a, b) {
  tab <- table(a, b)
  pairs <- function(v) sum(v * (v - 1) / 2)
  s_ij <- pairs(tab)
  s_a <- pairs(rowSums(tab))
  s_b <- pairs(colSums(tab))
  expected <- s_a * s_b / pairs(sum(tab))
  (s_ij - expected) / ((s_a + s_b) / 2 - expected)
}

# expr without the warning that r factors are not identified (class
# ghmix_warning_factors: r = 1 in d = 2, r = 2 in d = 4), for tests that
# fit such models on purpose.
muffle_factors <- function(expr) {
  withCallingHandlers(expr, ghmix_warning_factors = function(w) {
    invokeRestart("muffleWarning")
  })
}

# The classes of the warnings expr gives (muffled).
warning_classes <- function(expr) {
  cls <- character()
  withCallingHandlers(expr, warning = function(w) {
    cls <<- c(cls, class(w))
    invokeRestart("muffleWarning")
  })
  cls
}
