# The covariance structures of a component's Sigma (issue 26, design
# 3.3): one entry per structure, whose methods the fitting layer calls
# instead of testing for loadings.  Entries: full (Sigma itself, par$sigma)
# and factor (F F' + diag(D): par$loadings, par$uniquenesses).  An entry
# holds
#   kind       its name
#   collinear  whether collinear columns are refused (mix_data())
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
#   start      start(src, start, family, args, call): a single fit's start
#              in the units its rows are fitted in (stage_start())
#   start_cluster  start_cluster(rows, mixing, r): a mixture member's start
#              from the rows of one cluster: their mean, gamma 0, Sigma from
#              their covariance and the law `mixing`
# and the geometry of Sigma (its part of each map of the parameters):
#   logdet     logdet(par): log det Sigma (gauge_scale())
#   scale      scale(par, s): Sigma / s (Y -> s Y, apply_scale())
#   to_std     to_std(par, std), from_std(par, std): Sigma / (s s') and
#              Sigma * (s s') for the column scales s = std$scale
#   to_user    to_user(par, par_z, ls, log_k): Sigma of par from par_z's
#              in z units, s = exp(ls), by k = exp(log_k)
#              for scaling_to_user()
#   sigma_diag sigma_diag(par): diag(Sigma)
#   mahalanobis  mahalanobis(u, par): u_i' Sigma^-1 u_i for the rows of u
#              (all finite): in the correlation scale of Sigma (free of
#              the data's units), or by the Woodbury identity for a factor
#              Sigma = F F' + diag(D)
#   tie_form   tie_form(par, chol_l): for the singular-tie test
#              (mix_tie_argument()), functions of gamma' Sigma^-1 gamma
#              (gsg()), of log det Sigma - 2 ls, ls = sum(log s) for the
#              column scales s (logdet_std(ls)), and of the quadratic
#              forms at the rows pts (q(pts)); chol_l: the lower Cholesky
#              factor of a full Sigma
# and the report:
#   rotate     rotate(par, log_scale = NULL): the documented rotation
#   name       name(par, vars): the variables' names on mu, gamma and
#              Sigma's parts
#   result     result(fit): the fit object's parts of the structure
#   print_sigma  print_sigma(x, digits): Sigma's lines of print(x) for a
#              single fit x
#   summary_header  summary_header(x): the lines above the coefficients
#              in print(summary(fit)) (x: the summary)
#   full_view  full_view(object, call = NULL): the single fit with Sigma
#              itself in its parameters (for methods that need it)
# and the E-step's rows:
#   rows       rows(par, x, backend, device, threads): the E-step's
#              per-row output at the rows x (fit_rows_compute())
# and for the natural packing (R/packing.R) and vcov() (R/vcov.R)
#   pack_nat, unpack_nat(v, par), size_nat(par), names_nat(vars, r):
#              Sigma's entries in pack_nat(), and their names
#   step_scale step_scale(par, sd_x): the natural scales of the entries
#   orbit      orbit(par): Sigma's part of the scaling orbit's tangent
#   rotations  rotations(par): Sigma's parts of the other null directions
#   score      score(st, par): the score of mu, gamma and Sigma (NULL where
#              par is not usable)
#   units_log  units_log(ls, lk, par): the logs of the factors that take
#              the entries to the user's units (scaling_log_factors())
#   report     report(par, log_scale): the reported form of par (the
#              rotation of F); NULL where it is par itself
#   pack_em, size_em(d, r), unpack_em(v, d, r): Sigma's block of
#              pack_em() (chol_v: the caller's, or NULL) and back
#   score_em   score_em(sc, par): score()'s Sigma part by the chain rule
#              in pack_em()'s block (full only: the direct polish of
#              R/mix_direct.R runs for full mixtures)
#   vcov_max_k the most parameters whose information vcov() forms
#   vcov_unidentified(object): TRUE, with a warning, where Sigma's
#              parameters are not identified
# The largest number of parameters k for which vcov() forms the k x k
# information of a factor fit (2 k E-steps).
factor_vcov_max_k <- 5000L

cov_table <- list(
  full = list(
    kind = "full",
    collinear = TRUE,
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
    start = function(src, start, family, args, call) {
      mix_start(src$stored, start, family, args$symmetric, call, src$std,
                src$scaling)
    },
    start_cluster = function(rows, mixing, r) {
      vars <- colnames(rows)
      par <- c(list(mu = colMeans(rows), gamma = rep(0, ncol(rows)),
                    sigma = stats::cov(rows)), mixing)
      names(par$mu) <- names(par$gamma) <- vars
      par
    },
    logdet = function(par) logdet(par$sigma),
    scale = function(par, s) {
      par$sigma <- par$sigma / s
      par
    },
    to_std = function(par, std) {
      par$sigma <- par$sigma / tcrossprod(std$scale)
      par
    },
    from_std = function(par, std) {
      par$sigma <- par$sigma * tcrossprod(std$scale)
      par
    },
    to_user = function(par, par_z, ls, log_k) {
      par$sigma <- par_z$sigma * exp(outer(ls, ls, "+") - log_k)
      par
    },
    sigma_diag = function(par) diag(par$sigma),
    mahalanobis = function(u, par) {
      s <- sqrt(diag(par$sigma))
      r <- par$sigma / tcrossprod(s)
      z <- forwardsolve(t(chol(r)), t(sweep(u, 2L, s, "/")))
      colSums(z^2)
    },
    tie_form = function(par, chol_l) {
      list(
        gsg = function() sum(forwardsolve(chol_l, par$gamma)^2),
        logdet_std = function(ls) 2 * (sum(log(diag(chol_l))) - ls),
        q = function(pts) {
          z <- forwardsolve(chol_l, t(pts) - par$mu)
          colSums(z^2)
        }
      )
    },
    rotate = function(par, log_scale = NULL) par,
    name = function(par, vars) {
      names(par$mu) <- names(par$gamma) <- vars
      dimnames(par$sigma) <- list(vars, vars)
      par
    },
    result = function(fit) fit,
    print_sigma = function(x, digits) {
      par <- x$parameters
      d <- x$d
      if (d == 1L) {
        cat(sprintf(
          "sigma: %s (scale; Sigma = sigma^2 = %s)\n",
          format(fit_column_sd(x)[[1L]], digits = digits),
          format(par$sigma[[1L]], digits = digits)
        ))
      } else if (d <= 8L) {
        cat("Sigma:\n")
        print(signif(par$sigma, digits))
      } else {
        cat(sprintf("Sigma: %d x %d matrix (see coef())\n", d, d))
      }
    },
    summary_header = function(x) {
      cat(sprintf(
        "\nParameters (gauge %s; %s):\n", fit_gauge_label(x$gauge),
        if (is.null(x$shrink)) "standard errors from the observed information"
        else "a penalised fit: no standard errors"
      ))
    },
    full_view = function(object, call = NULL) object,
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
    },
    pack_nat = function(par) par$sigma[lower.tri(par$sigma, diag = TRUE)],
    unpack_nat = function(v, par) {
      sigma <- par$sigma
      sigma[lower.tri(sigma, diag = TRUE)] <- v
      sigma[upper.tri(sigma)] <- t(sigma)[upper.tri(sigma)]
      par$sigma <- sigma
      par
    },
    size_nat = function(par) length(par$mu) * (length(par$mu) + 1L) / 2L,
    names_nat = function(vars, r) {
      idx <- which(lower.tri(diag(length(vars)), diag = TRUE), arr.ind = TRUE)
      sprintf("Sigma[%s,%s]", vars[idx[, 2L]], vars[idx[, 1L]])
    },
    step_scale = function(par, sd_x) list(sigma = tcrossprod(sd_x)),
    orbit = function(par) list(sigma = -par$sigma),
    rotations = function(par) list(),
    score = function(st, par) fit_score_cov(st, par),
    units_log = function(ls, lk, par) {
      list(sigma = outer(ls, ls, "+") - lk)
    },
    report = NULL,
    pack_em = function(par, chol_v) {
      if (is.null(chol_v)) {
        at <- chol_index(length(par$mu))
        chol_v <- chol_upper(par$sigma)[at$upper]
        chol_v[at$on_diag] <- log(chol_v[at$on_diag])
      }
      chol_v
    },
    size_em = function(d, r) d * (d + 1L) / 2L,
    unpack_em = function(v, d, r) {
      at <- chol_index(d)
      chol_l <- matrix(0, d, d)
      chol_l[at$lower] <- v
      chol_l[at$diag] <- exp(chol_l[at$diag])
      list(sigma = tcrossprod(chol_l))
    },
    # Sigma = L L': score() counts each off-diagonal entry of Sigma once,
    # with twice the matrix derivative G, and d loglik / dL = 2 G L
    score_em = function(sc, par) {
      g_mat <- sc$sigma / 2
      diag(g_mat) <- diag(sc$sigma)
      chol_l <- t(chol(par$sigma))
      d_l <- 2 * g_mat %*% chol_l
      lower <- lower.tri(d_l, diag = TRUE)
      on_diag <- diag(nrow(d_l))[lower] == 1
      d_chol <- d_l[lower]
      d_chol[on_diag] <- d_chol[on_diag] * diag(chol_l)
      d_chol
    },
    vcov_max_k = Inf,
    vcov_unidentified = function(object) FALSE,
    online_stats = function(st, par) online_normalise(st),
    # sum v e (u - c)(u - c)' = sxx - sxw c' - c sxw' + s_inv c c', c the
    # shift of mu
    online_move = function(s, shift) {
      s$sxx <- s$sxx - tcrossprod(s$sxw, shift) - tcrossprod(shift, s$sxw) +
        s$s_inv * tcrossprod(shift)
      s$sxx <- (s$sxx + t(s$sxx)) / 2
      s
    },
    online_scale = function(s, k) {
      s$sxx <- s$sxx / k
      s
    },
    online_mstep = function(s, par, st, state, w) {
      mstep_member(s, par, state, online_penalty_arg(par, state$prior, w))
    }
  ),
  factor = list(
    kind = "factor",
    collinear = FALSE,
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
    start = function(src, start, family, args, call) {
      factor_start(src, start, family, args, call)
    },
    start_cluster = function(rows, mixing, r) {
      center <- colMeans(rows)
      u <- rows - rep(center, each = nrow(rows))
      std <- list(center = center,
                  scale = sqrt(colSums(u^2) / (nrow(rows) - 1)))
      fd <- factor_principal(factor_pca(rows, NULL, std, r), r)
      c(list(mu = center, gamma = rep(0, ncol(rows))), fd, mixing)
    },
    logdet = function(par) factor_logdet(par),
    scale = function(par, s) {
      par$loadings <- par$loadings / sqrt(s)
      par$uniquenesses <- par$uniquenesses / s
      par
    },
    to_std = function(par, std) {
      par$loadings <- par$loadings / std$scale
      par$uniquenesses <- par$uniquenesses / std$scale^2
      par
    },
    from_std = function(par, std) {
      par$loadings <- par$loadings * std$scale
      par$uniquenesses <- par$uniquenesses * std$scale^2
      par
    },
    to_user = function(par, par_z, ls, log_k) {
      par$loadings <- par_z$loadings * exp(ls - log_k / 2)
      par$uniquenesses <- par_z$uniquenesses * exp(2 * ls - log_k)
      par
    },
    sigma_diag = function(par) rowSums(par$loadings^2) + par$uniquenesses,
    mahalanobis = function(u, par) {
      w <- sweep(u, 2L, par$uniquenesses, "/")
      fw <- w %*% par$loadings
      inner <- diag(ncol(par$loadings)) +
        crossprod(par$loadings / par$uniquenesses, par$loadings)
      rowSums(u * w) - rowSums(fw * t(solve(inner, t(fw))))
    },
    tie_form = function(par, chol_l) {
      wb <- factor_woodbury(par)
      list(
        gsg = function() wb$gsg,
        logdet_std = function(ls) wb$logdet - 2 * ls,
        q = function(pts) {
          factor_quad(pts - rep(par$mu, each = nrow(pts)), par, wb)$q
        }
      )
    },
    rotate = function(par, log_scale = NULL) factor_rotate(par, log_scale),
    name = function(par, vars) factor_names(par, vars),
    result = function(fit) factor_result(fit),
    print_sigma = function(x, digits) factor_print_sigma(x, digits),
    summary_header = function(x) factor_summary_header(x),
    full_view = function(object, call = NULL) factor_full_view(object, call),
    rows = function(par, x, backend, device, threads) {
      storage.mode(x) <- "double"
      factor_estep(x, par, mix_what_rows(), rows = TRUE, threads = threads,
                   backend = backend, device = device)$rows
    },
    pack_nat = function(par) c(par$loadings, par$uniquenesses),
    unpack_nat = function(v, par) {
      size <- length(par$loadings)
      par$loadings[] <- v[seq_len(size)]
      par$uniquenesses[] <- v[size + seq_along(par$uniquenesses)]
      par
    },
    size_nat = function(par) length(par$loadings) + length(par$uniquenesses),
    names_nat = function(vars, r) {
      c(
        sprintf("F[%s,F%d]", rep(vars, r),
                rep(seq_len(r), each = length(vars))),
        sprintf("D[%s]", vars)
      )
    },
    step_scale = function(par, sd_x) {
      list(loadings = outer(sd_x, rep(1, ncol(par$loadings))),
           uniquenesses = par$uniquenesses)
    },
    # (gamma / s, F / sqrt(s), D / s, a / s, b s)
    orbit = function(par) {
      list(loadings = -par$loadings / 2, uniquenesses = -par$uniquenesses)
    },
    # F -> F exp(A), A antisymmetric: the tangents F (e_j e_l' - e_l e_j')
    # for the pairs of columns j < l
    rotations = function(par) {
      f <- par$loadings
      pairs <- which(upper.tri(diag(ncol(f))), arr.ind = TRUE)
      lapply(seq_len(nrow(pairs)), function(i) {
        tangent <- matrix(0, nrow(f), ncol(f))
        tangent[, pairs[i, 2L]] <- f[, pairs[i, 1L]]
        tangent[, pairs[i, 1L]] <- -f[, pairs[i, 2L]]
        list(loadings = tangent, uniquenesses = 0 * par$uniquenesses)
      })
    },
    score = function(st, par) {
      wb <- factor_woodbury(par)
      if (!is.null(wb)) factor_score(st, par, wb)
    },
    units_log = function(ls, lk, par) {
      list(loadings = rep(ls - lk / 2, ncol(par$loadings)),
           uniquenesses = 2 * ls - lk)
    },
    report = function(par, log_scale) factor_rotate(par, log_scale),
    pack_em = function(par, chol_v) c(par$loadings, log(par$uniquenesses)),
    size_em = function(d, r) d * r + d,
    unpack_em = function(v, d, r) {
      list(loadings = matrix(v[seq_len(d * r)], d, r),
           uniquenesses = exp(v[d * r + seq_len(d)]))
    },
    vcov_max_k = factor_vcov_max_k,
    vcov_unidentified = function(object) factor_vcov_unidentified(object),
    online_stats = function(st, par) {
      s <- lapply(online_factor_latent(st, par), function(v) v / st$tau)
      s$tau <- 1
      s
    },
    online_move = function(s, shift) {
      s$sxx_diag <- s$sxx_diag - 2 * s$sxw * shift + s$s_inv * shift^2
      s$a_uf <- s$a_uf - tcrossprod(shift, s$b_if)
      s
    },
    # Y -> k Y, f -> sqrt(k) f
    online_scale = function(s, k) {
      s$sxx_diag <- s$sxx_diag / k
      s$a_uf <- s$a_uf / sqrt(k)
      s$b_if <- s$b_if / sqrt(k)
      s$b_f <- s$b_f * sqrt(k)
      s
    },
    # S beta' does not average: the M-step from the complete-data
    # statistics
    online_mstep = function(s, par, st, state, w) {
      online_factor_mstep(s, par, state,
                          online_factor_prior(state$prior, st, par, w))
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
