# From the user's call to a fit object.

mix_fit <- function(x, family, symmetric, start, control, gauge, na.rm, # nolint
                    backend, threads, device, call, cluster = NULL) {
  if (!is.null(cluster) || inherits(x, "ghmix_data")) {
    # chunked data or a cluster: R/chunked.R
    return(chunk_fit(x, family, symmetric, start, control, gauge, na.rm,
                     backend, threads, device, cluster, call))
  }
  t_start <- proc.time()[[3]]
  device <- check_device(device, call)
  backend <- check_backend(backend, call, device)
  threads <- check_threads(threads, call = call)
  check_flag(symmetric, "symmetric", call)
  if (!inherits(control, "ghmix_control")) {
    abort_argument("`control` must be made by ghmix_control().", call)
  }
  gauge <- check_gauge(gauge, call)
  data <- mix_data(x, na.rm, call)
  x <- data$x
  ties <- mix_ties(x)
  mix_warn_ties(ties, family, call)
  engine <- mix_engine(x, backend, threads, device)
  on.exit(engine$free())
  if (is.null(start) && family == "gh") {
    # the fitted NIG as start: GH nests it, so the GH fit ends at least as
    # high
    start <- mix_run(x, engine, "nig", symmetric, NULL, control, call,
                     ties)$point$par
  }
  ctx <- mix_context(x, engine, family, symmetric, control, call, ties)
  em <- mix_em(mix_start(x, start, family, symmetric, call), ctx)
  mix_result(em, ctx, x, data$dropped, gauge, backend, threads, call, t_start)
}

mix_context <- function(x, engine, family, symmetric, control, call, ties,
                        std = NULL) {
  ctx <- new.env(parent = emptyenv())
  ctx$engine <- engine
  ctx$family <- family
  ctx$symmetric <- symmetric
  ctx$what <- mix_what(family)
  ctx$control <- control
  ctx$call <- call
  ctx$ties <- ties
  ctx$std <- if (is.null(std)) {
    list(center = colMeans(x), scale = apply(x, 2L, stats::sd))
  } else {
    std[c("center", "scale")]
  }
  ctx$clock <- list(estep = 0, mstep = 0, esteps = 0L, launches = 0L)
  ctx
}

mix_run <- function(x, engine, family, symmetric, start, control, call,
                    ties) {
  ctx <- mix_context(x, engine, family, symmetric, control, call, ties)
  mix_em(mix_start(x, start, family, symmetric, call), ctx)
}

check_gauge <- function(gauge, call) {
  if (identical(gauge, c("mean", "det"))) {
    return("mean")
  }
  if (!is.character(gauge) || length(gauge) != 1L ||
        !gauge %in% c("mean", "det")) {
    abort_argument('`gauge` must be "mean" or "det".', call)
  }
  gauge
}

mix_engine <- function(x, backend, threads, device) {
  if (backend == "cuda") {
    return(mix_engine_cuda(x, device))
  }
  mix_engine_cpu(x, threads)
}

# Starting values in the x units, any gauge.
mix_start <- function(x, start, family, symmetric, call,
                      center = colMeans(x), cov = stats::cov(x)) {
  d <- ncol(x)
  sub <- switch(family,
    gh = list(p = -0.5, a = 1, b = 1),
    nig = list(p = -0.5, a = 1, b = 1),
    vg = list(p = 2, a = 4, b = 0),
    skewt = list(p = -3, a = 0, b = 4)
  )
  par <- c(
    list(mu = center, gamma = rep(0, d), sigma = cov), sub
  )
  if (!is.null(start)) {
    par <- mix_start_from(start, par, family, symmetric, d, call)
  }
  if (symmetric) par$gamma <- rep(0, d)
  names(par$mu) <- names(par$gamma) <- colnames(x)
  dimnames(par$sigma) <- list(colnames(x), colnames(x))
  par
}

mix_start_from <- function(start, par, family, symmetric, d, call) {
  if (inherits(start, "ghmix_fit")) {
    start <- start$parameters
  }
  if (!is.list(start)) {
    abort_argument("`start` must be a ghmix fit or a list of parameters.", call)
  }
  for (nm in intersect(names(start), c("mu", "gamma", "sigma"))) {
    par[[nm]] <- start[[nm]]
  }
  par$sigma <- as.matrix(par$sigma)
  if (length(par$mu) != d || length(par$gamma) != d ||
        !identical(dim(par$sigma), c(d, d))) {
    abort_argument(
      sprintf("`start` must have mu, gamma of length %d and sigma %d x %d.",
              d, d, d),
      call
    )
  }
  sub <- mix_start_sub(start, par, family)
  par[c("p", "a", "b")] <- sub
  if (!gig_valid(par$p, par$a, par$b) ||
        inherits(try(chol(par$sigma), silent = TRUE), "try-error")) {
    abort_argument(
      "`start` must have a positive definite sigma and valid p, a, b.", call
    )
  }
  par
}

# The mixing parameters of start, moved into the family (e.g. a GH start for
# a NIG fit keeps a and b and sets p = -1/2).
mix_start_sub <- function(start, par, family) {
  get_sub <- function(nm) if (is.null(start[[nm]])) par[[nm]] else start[[nm]]
  p <- get_sub("p")
  a <- get_sub("a")
  b <- get_sub("b")
  switch(family,
    gh = list(p, a, b),
    nig = list(-0.5, if (a > 0) a else 1, if (b > 0) b else 1),
    vg = list(if (p > 0) p else 2, if (a > 0) a else 4, 0),
    skewt = list(if (p < 0) p else -3, 0, if (b > 0) b else 4)
  )
}

# NULL, or why the fit is stopped as running into the singularity at tied
# rows: the posterior of a tied row degenerates (sqrt((a + G) (b + Q)) -> 0
# with p - d/2 <= 0, so E[1/Y | x] -> Inf).
mix_singular <- function(pt, ctx) {
  if (ctx$ties$n_repeated == 0L || !ctx$family %in% c("gh", "vg")) {
    return(NULL)
  }
  par <- pt$par
  d <- length(par$mu)
  if (par$p - d / 2 > 0) {
    return(NULL)
  }
  chol_l <- t(chol(par$sigma))
  g <- forwardsolve(chol_l, par$gamma)
  z <- forwardsolve(chol_l, t(ctx$ties$points) - par$mu)
  w <- sqrt((par$a + sum(g^2)) * (par$b + colSums(z^2)))
  if (min(w) >= ctx$control$singular_tol) {
    return(NULL)
  }
  sprintf(
    paste(
      "the fit ran into the singularity of the %s likelihood at repeated rows",
      "(mu -> a repeated point, b -> 0, p = %.3g <= d/2); the likelihood is",
      "unbounded there, so there is no maximum-likelihood fit to report"
    ),
    mix_family(ctx$family)$label, par$p
  )
}

mix_result <- function(em, ctx, x, dropped, gauge, backend, threads, call,
                       t_start) {
  par <- em$point$par
  fam <- ctx$family
  if (gauge == "mean" && !is.finite(gig_mean_value(par$p, par$a, par$b))) {
    ghmix_warn(
      paste(
        "E[Y] is infinite for the fitted mixing distribution;",
        'parameters are reported in gauge = "det".'
      ),
      class = "ghmix_warning_gauge", call = call
    )
    gauge <- "det"
  }
  par <- set_gauge(par, gauge)
  names(par$mu) <- names(par$gamma) <- colnames(x)
  dimnames(par$sigma) <- list(colnames(x), colnames(x))
  n <- nrow(x)
  d <- ncol(x)
  fit <- list(
    parameters = par, family = fam, symmetric = ctx$symmetric,
    gauge = gauge, loglik = em$point$loglik, nobs = n, d = d,
    df = mix_df(fam, ctx$symmetric, d),
    iterations = em$iterations, converged = em$status$converged,
    message = em$status$message, trace = em$trace,
    timings = c(
      total = proc.time()[[3]] - t_start, estep = ctx$clock$estep,
      mstep = ctx$clock$mstep, esteps = ctx$clock$esteps,
      launches = ctx$clock$launches
    ),
    ties = ctx$ties$n_repeated, na_action = dropped, data = x,
    control = ctx$control, backend = backend, threads = threads, call = call
  )
  if (!fit$converged) {
    ghmix_warn(
      sprintf("%s fit did not converge: %s.", mix_family(fam)$label,
              fit$message),
      class = "ghmix_warning_convergence", call = call
    )
  }
  class(fit) <- c(paste0("ghmix_fit_", fam), "ghmix_fit")
  fit
}

# Free parameters: mu, gamma, sigma, and the mixing parameters less the
# gauge.
mix_df <- function(family, symmetric, d) {
  d + (if (symmetric) 0L else d) + d * (d + 1L) / 2L +
    length(mix_family(family)$free) - 1L
}
