# The covariance structures of a component's Sigma (issue 26, design
# 3.3): one entry per structure, whose methods the fitting layer calls
# instead of testing for loadings.  Entries: full (Sigma itself, par$sigma)
# and factor (F F' + diag(D): par$loadings, par$uniquenesses).  An entry
# holds
#   kind       its name
#   df         df(d, r): the free parameters of one component's Sigma
#   regular    regular(par): the component can stay in a mixture
#              (mixture_par_ok(): usable and well conditioned)
#   penalty_parts
#              penalty_parts(par, st, prior, chol_l): c(log det Sigma,
#              tr(Sigma^-1 T)) for the prior (R/penalty.R) from the
#              E-step st or the lower Cholesky factor chol_l of Sigma
#              that the path holds (NULL: t(chol(Sigma)))
#   penalty_target
#              penalty_target(spec, src, call): the target part of the
#              prior (shrink_setup(); full: shrink_full_target(), factor:
#              factor_shrink_target())
#   mstep      mstep(st, loc, par, pen): Sigma's part of the M-step
#              (R/mstep.R) from the E-step st at par and the location
#              step loc, penalised by pen (penalty_arg(); NULL: none)
#   gauge_profile, mstep_profiled
#              with a nonzero gamma held (constraints_profiled_mstep()):
#              gauge_profile(st, par), Q_N at the best Sigma for
#              gauge_search() (NULL: gauge_normal_full()), and
#              mstep_profiled(best, st, loc, par, pen), Sigma's part then
#   draw_z     draw_z(n, par): n draws of sqrt(Y)'s factor Sigma^(1/2) Z
#   rows       rows(par, x, backend, device, threads): the E-step's
#              per-row output at the rows x (fit_rows_compute())
cov_table <- list(
  full = list(
    kind = "full",
    df = function(d, r) d * (d + 1L) / 2L,
    regular = function(par) {
      all(is.finite(unlist(par, use.names = FALSE))) &&
        gig_valid(par$p, par$a, par$b) &&
        mixture_sigma_ok(par$sigma)
    },
    penalty_parts = function(par, st, prior, chol_l) {
      if (is.null(chol_l)) chol_l <- t(chol(par$sigma))
      penalty_parts_chol(chol_l, prior)
    },
    penalty_target = function(spec, src, call) {
      shrink_full_target(spec, src, call)
    },
    mstep = function(st, loc, par, pen) {
      list(sigma = penalty_sigma(full_sigma(st, loc, par), pen))
    },
    gauge_profile = function(st, par) NULL,
    mstep_profiled = function(best, st, loc, par, pen) {
      sigma <- best$normal$sigma
      dimnames(sigma) <- dimnames(par$sigma)
      list(sigma = penalty_sigma(sigma, pen))
    },
    draw_z = function(n, par) {
      d <- length(par$mu)
      matrix(stats::rnorm(n * d), n, d) %*% chol(par$sigma)
    },
    rows = function(par, x, backend, device, threads) {
      if (backend == "cuda") {
        chol_l <- .Call(ffi_chol_lower, par$sigma)
        k <- mix_consts(chol_l, par$gamma, par$p, par$a, par$b)
        storage.mode(x) <- "double"
        return(.Call(ffi_cuda_mix_rows, x, as.double(par$mu), chol_l, k$g,
                     k$consts, mix_what_rows(), TRUE, TRUE, device))
      }
      engine <- mix_engine_cpu(x, threads)
      mix_estep(engine, par, mix_what_rows(), rows = TRUE)$rows
    }
  ),
  factor = list(
    kind = "factor",
    # F less its rotations (r (r - 1) / 2) and D, at most as the full
    # Sigma's d (d + 1) / 2, which they fill where r factors are not
    # identified: see factor_identified()
    df = function(d, r) min(d * r - r * (r - 1L) / 2L + d, d * (d + 1L) / 2L),
    regular = function(par) mixture_factor_par_ok(par),
    penalty_parts = function(par, st, prior, chol_l) {
      penalty_parts_factor(par, st, prior)
    },
    penalty_target = function(spec, src, call) {
      factor_shrink_target(spec, src, call)
    },
    mstep = function(st, loc, par, pen) factor_cov_mstep(st, loc, par, pen),
    gauge_profile = function(st, par) factor_gauge_normal(st, par),
    mstep_profiled = function(best, st, loc, par, pen) {
      factor_mstep_profiled(best$normal$scale, st, loc, par, pen)
    },
    draw_z = function(n, par) {
      d <- length(par$uniquenesses)
      r <- ncol(par$loadings)
      z <- matrix(stats::rnorm(n * d), n, d) * rep(sqrt(par$uniquenesses),
                                                    each = n)
      if (r > 0L) {
        z <- z + matrix(stats::rnorm(n * r), n, r) %*% t(par$loadings)
      }
      z
    },
    rows = function(par, x, backend, device, threads) {
      storage.mode(x) <- "double"
      factor_estep(x, par, mix_what_rows(), rows = TRUE, threads = threads,
                   backend = backend, device = device)$rows
    }
  )
)

# The entry of a fit's covariance structure (factors: NULL or r).
cov_get <- function(factors) {
  cov_table[[if (is.null(factors)) "full" else "factor"]]
}

# The entry of the structure of a component's parameters par.
cov_of <- function(par) cov_get(if (!is.null(par$loadings)) 0L)

# Free parameters of one component: mu, gamma (unless symmetric), Sigma in
# its structure (factors: NULL or r) and the mixing parameters less the
# gauge.
model_df <- function(family, symmetric, d, factors = NULL) {
  d + (if (symmetric) 0L else d) + cov_get(factors)$df(d, factors) +
    length(mix_family(family)$free) - 1L
}

# n draws (an n x d matrix) of the mixture at par: mu + Y gamma + sqrt(Y)
# Sigma^(1/2) z, Y first (the generator's order of both structures).
cov_draw <- function(n, par) {
  y <- rgig(n, par$p, par$a, par$b)
  z <- cov_of(par)$draw_z(n, par)
  x <- outer(y, par$gamma) + sqrt(y) * z
  x + rep(par$mu, each = n)
}
