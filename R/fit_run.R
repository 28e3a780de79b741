# From the user's call to a fit object, by one path for every kind of data
# and engine: the arguments (fit_args()), the data source (fit_source():
# a matrix, or chunks) with its summary and engine, the start (the fitted
# NIG for GH), the EM, the result.  What is particular to chunks comes in
# through the source's hooks (R/chunked.R).

mix_fit <- function(x, family, symmetric, start, control, gauge, na.rm, # nolint
                    backend, threads, device, call, cluster = NULL) {
  t_start <- proc.time()[[3]]
  args <- fit_args(symmetric, control, gauge, na.rm, backend, threads,
                   device, cluster, call)
  # where the fit is, for the errors of chunked engines (chunk_abort())
  state <- new.env(parent = emptyenv())
  state$stage <- "setup"
  state$iter <- 0L
  withCallingHandlers(
    fit_run(x, family, start, args, call, state, t_start),
    ghmix_error_chunk = function(e) chunk_abort(e, state, call),
    ghmix_error_cluster = function(e) chunk_abort(e, state, call)
  )
}

# The arguments of a fit, checked once whatever the data and the engine.
fit_args <- function(symmetric, control, gauge, na_rm, backend, threads,
                     device, cluster, call) {
  opts <- chunk_options(backend, threads, device, cluster, call)
  check_flag(symmetric, "symmetric", call)
  check_flag(na_rm, "na.rm", call)
  if (!inherits(control, "ghmix_control")) {
    abort_argument("`control` must be made by ghmix_control().", call)
  }
  c(opts, list(symmetric = symmetric, na_rm = na_rm, control = control,
               gauge = check_gauge(gauge, call)))
}

fit_run <- function(x, family, start, args, call, state, t_start) {
  src <- fit_source(x, args, call)
  on.exit(src$engine$free())
  mix_warn_ties(src$ties, family, call)
  if (is.null(start) && family == "gh") {
    # the fitted NIG as start: GH nests it, so the GH fit ends at least as
    # high
    start <- fit_stage(src, "nig", NULL, args, call, state,
                       "NIG start")$em$point$par
  }
  run <- fit_stage(src, family, start, args, call, state, "fit")
  fit <- mix_result(run$em, run$ctx, src, args, call, t_start)
  src$finish(fit, src$engine)
}

# The data of a fit, wherever they are: the rows kept (a matrix or the
# ghmix_data description), those dropped by na.rm, the ties, the moments the
# iteration is standardised by and starts from (std: center, scale, cov),
# the engine, and the hooks progress(ctx, state, stage, trace) (NULL or
# mix_em()'s ctx$progress) and finish(fit, engine).
fit_source <- function(x, args, call) {
  if (!is.null(args$cluster) || inherits(x, "ghmix_data")) {
    return(chunk_source(x, args, call))
  }
  data <- mix_data(x, args$na_rm, call)
  x <- data$x
  list(
    stored = x, dropped = data$dropped, ties = mix_ties(x),
    std = list(center = colMeans(x), scale = apply(x, 2L, stats::sd),
               cov = stats::cov(x)),
    engine = mix_engine(x, args$backend, args$threads, args$device),
    progress = mix_trace_progress, finish = function(fit, engine) fit
  )
}

# One EM run from start (NULL: the default start of the family).
fit_stage <- function(src, family, start, args, call, state, stage) {
  ctx <- mix_context(src, family, args, call)
  par0 <- mix_start(src$stored, start, family, args$symmetric, call, src$std)
  state$stage <- stage
  state$iter <- 0L
  state$par <- par0
  ctx$progress <- src$progress(ctx, state, stage, args$control$trace)
  list(em = mix_em(par0, ctx), ctx = ctx)
}

# The trace line of an in-memory fit (the progress hook of its source).
mix_trace_progress <- function(ctx, state, stage, trace) {
  if (!trace) {
    return(NULL)
  }
  function(iter, nxt) {
    message(sprintf(
      "iter %4d  loglik %.10g  (%s)", iter, nxt$pt$loglik, nxt$kind
    ))
  }
}

mix_context <- function(src, family, args, call) {
  ctx <- new.env(parent = emptyenv())
  ctx$engine <- src$engine
  ctx$family <- family
  ctx$symmetric <- args$symmetric
  ctx$what <- mix_what(family)
  ctx$control <- args$control
  ctx$call <- call
  ctx$ties <- src$ties
  ctx$std <- src$std[c("center", "scale")]
  ctx$clock <- list(estep = 0, mstep = 0, esteps = 0L, launches = 0L)
  ctx
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

# Starting values in the x units, any gauge.
mix_start <- function(x, start, family, symmetric, call, std) {
  d <- ncol(x)
  sub <- switch(family,
    gh = list(p = -0.5, a = 1, b = 1),
    nig = list(p = -0.5, a = 1, b = 1),
    vg = list(p = 2, a = 4, b = 0),
    skewt = list(p = -3, a = 0, b = 4)
  )
  par <- c(
    list(mu = std$center, gamma = rep(0, d), sigma = std$cov), sub
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

mix_result <- function(em, ctx, src, args, call, t_start) {
  par <- em$point$par
  fam <- ctx$family
  x <- src$stored
  gauge <- args$gauge
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
    ties = ctx$ties$n_repeated, na_action = src$dropped, data = x,
    control = ctx$control, backend = args$backend, threads = args$threads,
    call = call
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
