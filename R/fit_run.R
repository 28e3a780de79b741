# From the user's call to a fit object, by one path for every kind of data
# and engine: the arguments (model_single()), the data source (fit_source():
# a matrix, or chunks) with its summary and engine, the start (the fitted
# NIG for GH), the EM, the result.  What is particular to chunks comes in
# through the source's hooks (R/chunked.R).

mix_fit <- function(x, family, symmetric, start, control, gauge, na.rm, # nolint
                    backend, threads, device, call, cluster = NULL,
                    weights = NULL, fixed = NULL, shrink = NULL,
                    factors = NULL) {
  t_start <- proc.time()[[3]]
  args <- model_single(family, symmetric, control, gauge, na.rm, backend,
                       threads, device, cluster, weights, fixed, shrink,
                       factors, call)
  if (isTRUE(args$online)) {
    return(online_fit(x, family, symmetric, start, control, gauge, na.rm,
                      backend, threads, device, call, cluster, weights,
                      args$fixed, list(shrink = shrink, factors = factors)))
  }
  mix_fit_args(x, family, start, args, call, t_start)
}

# mix_fit() of the checked arguments args (model_single()).
mix_fit_args <- function(x, family, start, args, call, t_start) {
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

fit_run <- function(x, family, start, args, call, state, t_start) {
  src <- fit_source(x, args, call)
  on.exit(src$engine$free())
  args$fixed <- check_fixed(args$fixed, src$engine$d, call)
  check_fixed_mode(args$fixed, args, call)
  if (fixed_gamma_zero(args$fixed)) args$symmetric <- TRUE
  args$prior <- shrink_setup(args$shrink, src, call,
                             shrink_fold_fitter(src, family, args, call),
                             args$factors)
  state$scaling <- src$scaling
  mix_warn_ties(src$ties, family, call, src$nobs)
  if (is.null(start) && family_get(family)$start_family != family) {
    # the fitted NIG as start: GH nests it, so the GH fit ends at least as
    # high
    nig <- fit_stage(src, "nig", NULL, fixed_none(args), call, state,
                     "NIG start")
    start <- mix_start_internal(nig$em$point$par, src$scaling)
  }
  run <- fit_stage(src, family, start, args, call, state, "fit")
  limit <- sigma_limit(run$em, run$ctx, src, family)
  if (!is.null(limit)) run$em$status$message <- limit$message
  if (is.matrix(src$stored)) {
    rows <- src$stored
    if (!is.null(src$scaling)) rows <- scaling_apply(rows, src$scaling)
    mix_warn_normal_limit(rows, run$em$point$par, family, call,
                          weights_in_sums(src$weights))
  }
  fit <- mix_result(run$em, run$ctx, src, args, call, t_start)
  fit$limit <- limit$limit
  src$finish(fixed_result(fit, args$fixed), src$engine)
}

# The data of a fit, wherever they are: the rows kept (a matrix or the
# ghmix_data description), those dropped by na.rm, their weights (NULL,
# or one per row kept) and nobs (the rows, or the sum of the weights:
# what the likelihood counts), the ties, the scaling
# (NULL, or the standardisation the rows are fitted in: R/fit_scaling.R),
# the moments the iteration is standardised by and starts from (std:
# center, scale, cov; of the rows as fitted), for a factor fit in memory
# the rows as fitted (rows; NULL otherwise), the engine, and the hooks
# progress(ctx, state, stage, trace) (NULL or mix_em()'s ctx$progress) and
# finish(fit, engine), and columns (far_rows()' cache for the rows kept).
fit_source <- function(x, args, call) {
  if (!is.null(args$cluster) || inherits(x, "ghmix_data")) {
    return(chunk_source(x, args, call))
  }
  full <- is.null(args$factors)
  data <- mix_data(x, args$na_rm, call, collinear = full)
  weights <- mix_weights(args$weights, data, call)
  x <- mix_check_weighted_shape(data$x, weights, call, collinear = full)
  w <- weights_in_sums(weights)
  fitted <- if (full) {
    mix_fitted_rows(x, w)
  } else {
    factor_fitted_rows(x, w, args$factors, call)
  }
  list(
    stored = x, dropped = data$dropped,
    ties = mix_ties(x, w, z = fitted$x, std = fitted$std),
    weights = weights, nobs = if (is.null(w)) nrow(x) else sum(w),
    scaling = fitted$scaling, std = fitted$std,
    rows = if (!full) fitted$x,
    engine = if (full) {
      mix_engine(fitted$x, args$backend, args$threads, args$device, w)
    } else {
      factor_engine(fitted$x, args$backend, args$threads, args$device, w)
    },
    progress = mix_trace_progress, finish = function(fit, engine) fit,
    columns = new.env(parent = emptyenv())
  )
}

# The rows as they are fitted (x, or x standardised where the rule of
# R/fit_scaling.R asks for it), their scaling and moments (weighted by w,
# unless NULL; moments(x, w): those a factor fit needs are fewer).
mix_fitted_rows <- function(x, w = NULL, moments = mix_moments) {
  std <- moments(x, w)
  scaling <- mix_scaling(x, std, w)
  if (!is.null(scaling)) {
    x <- scaling_apply(x, scaling)
    std <- moments(x, w)
  }
  list(x = x, scaling = scaling, std = std)
}

# The columns' means, standard deviations and covariance; where those are
# not finite (a value near the largest doubles, in standardised data), the
# medians, robust spreads and their diagonal matrix.
mix_moments <- function(x, w = NULL) {
  std <- if (is.null(w)) {
    # (sqrt(diag(cov)) is stats::sd() of each column, bit for bit: the
    # same sums)
    cov <- stats::cov(x)
    list(center = colMeans(x), scale = sqrt(diag(cov)), cov = cov)
  } else {
    weighted_moments(x, w)
  }
  if (all(is.finite(std$cov))) {
    return(std)
  }
  center <- column_medians(x, w)
  scale <- vapply(seq_len(ncol(x)), function(j) {
    robust_spread(x[, j], center[[j]], w)
  }, 0)
  list(center = center, scale = stats::setNames(scale, colnames(x)),
       cov = diag(scale^2, ncol(x)))
}

# One EM run from start (NULL: the default start of the family).
fit_stage <- function(src, family, start, args, call, state, stage) {
  ctx <- mix_context(src, family, args, call)
  par0 <- gauge_start(stage_start(src, start, family, args, call), ctx$fixed)
  state$stage <- stage
  state$iter <- 0L
  state$par <- par0
  ctx$progress <- src$progress(ctx, state, stage, args$control$trace)
  em <- withCallingHandlers(
    extreme_em(par0, ctx, src),
    ghmix_error_start = function(e) {
      mix_abort_start_range(e, src$stored, src$dropped, call, src$columns)
    }
  )
  list(em = em, ctx = ctx)
}

# The starting parameters of a stage, in the units the rows are fitted in.
stage_start <- function(src, start, family, args, call) {
  cov_get(args$factors)$start(src, start, family, args, call)
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
  ctx$fixed <- fixed_internal_family(args$fixed, src$scaling, family)
  # (a NIG held in the gauge searches its law with E[log Y|x])
  ctx$what <- mix_what(
    if (family == "nig" && fixed_in_gauge(ctx$fixed)) "gh" else family
  )
  ctx$control <- args$control
  ctx$call <- call
  ctx$nobs <- src$nobs
  ctx$ties <- src$ties
  ctx$ties$unbounded <- mix_ties_unbounded(src$ties, family, src$nobs)
  if (!is.null(src$scaling)) {
    ctx$ties$points <- scaling_apply(src$ties$points, src$scaling)
  }
  ctx$std <- src$std[c("center", "scale")]
  ctx$shrink <- args$prior
  ctx$clock <- list(estep = 0, mstep = 0, esteps = 0L, launches = 0L)
  if (!is.null(args$factors)) {
    # the factor E-step's rows (NULL: the engine's chunks), weights and
    # threads, for factor_point()
    ctx$factors <- args$factors
    ctx$rows <- src$rows
    ctx$weights <- weights_in_sums(src$weights)
    ctx$threads <- args$threads
  }
  ctx
}

# Starting values in the units the rows are fitted in (those of `scaling`),
# any gauge.  start: NULL, a fit, a list of parameters in the data's units,
# or mix_start_internal().
mix_start <- function(x, start, family, symmetric, call, std,
                      scaling = NULL) {
  d <- ncol(x)
  par <- c(
    list(mu = std$center, gamma = rep(0, d), sigma = std$cov),
    mix_start_mixing(family)
  )
  if (!is.null(start)) {
    par <- mix_start_from(start, par, family, d, call, scaling)
  }
  if (symmetric) par$gamma <- rep(0, d)
  cov_table$full$name(par, colnames(x))
}

# The default mixing law of each family (mean 1).
mix_start_mixing <- function(family) family_get(family)$start_law

# A start the fit made itself (the fitted NIG of a GH fit), in the units of
# `scaling`.
mix_start_internal <- function(par, scaling) {
  structure(list(parameters = par, scaling = scaling),
            class = "ghmix_start_internal")
}

mix_start_from <- function(start, par, family, d, call, scaling) {
  fitted <- start_of_fit(start)
  from <- fitted$from
  if (is.null(fitted)) {
    check_start_list(start, family, d, call)
  } else {
    start <- fitted$par
  }
  given <- intersect(names(start), c("mu", "gamma", "sigma"))
  if (!is.null(start$sigma)) start$sigma <- as.matrix(start$sigma)
  par[given] <- scaling_move(start[given], from, scaling)
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

# NULL where start is a list; for a fit or mix_start_internal(), its
# parameters (par) in the units of its scaling (from: NULL, the data's).
start_of_fit <- function(start) {
  if (inherits(start, "ghmix_start_internal")) {
    return(list(par = start$parameters, from = start$scaling))
  }
  if (!inherits(start, "ghmix_fit")) {
    return(NULL)
  }
  from <- start$scaling
  list(par = if (is.null(from)) start$parameters else from$parameters,
       from = from)
}

# A list of starting values: known elements, each numeric and finite of its
# length, and the mixing parameters the family estimates in its range.
check_start_list <- function(start, family, d, call) {
  check_start_names(start, call)
  size <- c(mu = d, gamma = d, sigma = d * d, p = 1, a = 1, b = 1)
  for (nm in names(start)) {
    check_start_element(start[[nm]], nm, size[[nm]], call)
  }
  check_start_mixing(start, family, call)
}

check_start_element <- function(v, nm, size, call) {
  if (!is.numeric(v) || is.factor(v) || length(v) != size ||
        !all(is.finite(v))) {
    abort_argument(
      sprintf("`start` element `%s` must be %s.", nm,
              if (size == 1) "a single finite number" else
                sprintf("%d finite numbers", size)),
      call
    )
  }
}

check_start_names <- function(start, call) {
  known <- c("mu", "gamma", "sigma", "p", "a", "b")
  if (!is.list(start) || is.data.frame(start) ||
        (length(start) > 0L && is.null(names(start)))) {
    abort_argument(
      "`start` must be a ghmix fit or a named list of parameters.", call
    )
  }
  odd <- c(setdiff(names(start), known),
           names(start)[duplicated(names(start))])
  if (length(odd) > 0L) {
    abort_argument(
      sprintf(
        "`start` has unknown or repeated elements (%s); it takes %s.",
        paste0("`", odd, "`", collapse = ", "),
        paste0("`", known, "`", collapse = ", ")
      ),
      call
    )
  }
}

# The free mixing parameters of the family in their range (those the
# family fixes are replaced, but must be numbers too); checked here so that
# a start outside the family is an error rather than silently replaced.
check_start_mixing <- function(start, family, call) {
  rule <- family_get(family)$start_sign
  for (nm in intersect(names(rule), names(start))) {
    v <- start[[nm]]
    if (!(if (rule[[nm]] == "positive") v > 0 else v < 0)) {
      abort_argument(
        sprintf("`start` element `%s` must be %s for the %s.", nm,
                rule[[nm]], mix_family(family)$label),
        call
      )
    }
  }
  for (nm in intersect(c("a", "b"), names(start))) {
    if (start[[nm]] < 0) {
      abort_argument(
        sprintf("`start` element `%s` must not be negative.", nm), call
      )
    }
  }
}

# The mixing parameters of start, moved into the family (e.g. a GH start for
# a NIG fit keeps a and b and sets p = -1/2), then with Y rescaled to the
# start's scale (mix_start_rescale()).
mix_start_sub <- function(start, par, family) {
  get_sub <- function(nm) if (is.null(start[[nm]])) par[[nm]] else start[[nm]]
  p <- get_sub("p")
  a <- get_sub("a")
  b <- get_sub("b")
  mix_start_rescale(c(p, a, b), family_get(family)$law_from(p, a, b))
}

# The family's law sub (p, a, b) with Y -> sY, (a, b) -> (a / s, b s), so
# that its mean is that of the start's law `from` (their geometric means
# exp(E[log Y]) where a mean is infinite): mu, gamma and Sigma of a start
# from another family (a VG fit for a NIG fit) are on the scale of the
# start's Y, which the law replaced had (in the gauge E[Y] = 1, say);
# without it a component can start far from its data and collapse.
mix_start_rescale <- function(from, sub) {
  to <- unlist(sub, use.names = FALSE)
  if (identical(as.double(from), as.double(to)) ||
        !gig_valid(from[1L], from[2L], from[3L])) {
    return(sub)
  }
  eta <- gig_expectation(c(from[1L], to[1L]), c(from[2L], to[2L]),
                         c(from[3L], to[3L]))
  m <- eta[, "E_y"]
  log_s <- if (all(is.finite(m))) log(m[1L]) - log(m[2L]) else
    eta[1L, "E_log_y"] - eta[2L, "E_log_y"]
  if (!is.finite(log_s)) {
    return(sub)
  }
  list(to[1L], to[2L] * exp(-log_s), to[3L] * exp(log_s))
}

# NULL, or why the fit is stopped as running into the singularity at tied
# rows: the posterior of a tied row degenerates (its GIG argument
# sqrt((a + G) (b + Q)) -> 0 with p - d/2 <= 0, so E[1/Y | x] -> Inf).
mix_singular <- function(pt, ctx) {
  if (!ctx$ties$unbounded) {
    return(NULL)
  }
  par <- pt$par
  d <- length(par$mu)
  if (par$p - d / 2 > 0) {
    return(NULL)
  }
  if (min(mix_tie_argument(par, pt$chol_l, ctx)) >=
        ctx$control$singular_tol) {
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

# sqrt((a + G) (b + Q)) at the tied points (free of units and of the
# gauge; chol_l: the lower Cholesky factor of a full par$sigma).  The
# skew-t has a = 0, and G = 0 when symmetric: for it, sqrt(b + Q) in the
# det gauge of the data standardised by ctx$std, i.e. b + Q (free of
# units) times det(Sigma / D^2)^(1/d) (Y -> sY takes b + Q to s (b + Q)
# and Sigma to Sigma / s).  Without the quadratic forms where the bound
# from b (Q >= 0) already clears singular_tol.
mix_tie_argument <- function(par, chol_l, ctx) {
  tie <- cov_get(ctx$factors)$tie_form(par, chol_l)
  big_a <- if (family_get(ctx$family)$a_zero) {
    exp(tie$logdet_std(sum(log(ctx$std$scale))) / length(par$mu))
  } else {
    par$a + tie$gsg()
  }
  if (sqrt(big_a * par$b) >= ctx$control$singular_tol) {
    return(sqrt(big_a * par$b))
  }
  sqrt(big_a * (par$b + tie$q(ctx$ties$points)))
}

mix_result <- function(em, ctx, src, args, call, t_start) {
  par <- em$point$par
  fam <- ctx$family
  x <- src$stored
  gauge <- result_gauge(par, args$gauge, call)
  par <- set_gauge(par, gauge)
  names(par$mu) <- names(par$gamma) <- colnames(x)
  if (is.null(ctx$factors)) {
    dimnames(par$sigma) <- list(colnames(x), colnames(x))
  }
  n <- src$nobs
  d <- ncol(x)
  sc <- src$scaling
  loglik <- em$point$loglik
  objective <- em$point$objective
  trace <- em$trace
  if (!is.null(sc)) {
    sc$log_k <- scaling_log_k(sc, gauge)
    sc$parameters <- par
    par <- scaling_to_user(par, sc, sc$log_k)
    scaling_check(par, sc$parameters, call)
    shift <- n * sum(log(sc$scale))
    loglik <- loglik - shift
    trace$loglik <- trace$loglik - shift
    trace$mean_loglik <- trace$loglik / n
    # the penalty's log det Sigma moves as the log-likelihood's, k times
    shift <- shift + penalty_shift(ctx$shrink, sum(log(sc$scale)))
    objective <- objective - shift
    if (!is.null(trace$objective)) {
      trace$objective <- trace$objective - shift
    }
  }
  fit <- list(
    parameters = par, family = fam, symmetric = ctx$symmetric,
    gauge = gauge, loglik = loglik, nobs = n, nrow = nrow(x), d = d,
    df = model_df(fam, ctx$symmetric, d, ctx$factors),
    iterations = em$iterations, converged = em$status$converged,
    message = em$status$message, trace = trace,
    timings = c(
      total = proc.time()[[3]] - t_start, estep = ctx$clock$estep,
      mstep = ctx$clock$mstep, esteps = ctx$clock$esteps,
      launches = ctx$clock$launches
    ),
    ties = ctx$ties$n_repeated, na_action = src$dropped, data = x,
    control = ctx$control, backend = args$backend, threads = args$threads,
    call = call
  )
  fit$scaling <- sc
  fit$final_estep <- online_final(em$point) # where update() starts
  if (!is.null(ctx$shrink)) {
    fit$objective <- objective
    fit$shrink <- shrink_result(ctx$shrink)
  }
  fit["weights"] <- list(src$weights)
  fit$weighted <- isTRUE(src$weighted) || !is.null(src$weights)
  if (!fit$converged) {
    fit$message <- mix_warn_convergence(fit, src$dropped, call, src$columns)
  }
  fit <- cov_get(ctx$factors)$result(fit)
  class(fit) <- c(paste0("ghmix_fit_", fam), "ghmix_fit")
  fit
}

# The gauge a fit is reported in: `gauge`, or "det" (with a warning) where
# E[Y] is infinite.
result_gauge <- function(par, gauge, call) {
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
  gauge
}

# Warns that the fit did not converge, and returns its message: the EM's,
# or, for in-memory rows with rows far from the rest (far_rows()), one
# that puts the failure on them (class ghmix_warning_range too; fields
# rows, in the numbering of the user's x, and distance).
#
# What the fit is there (the NIG, one row at distance D from a bulk of n
# rows, in the (alpha, beta, delta, mu) form): that row's log density is
# ~ -(alpha - |beta|) D - 3/2 log D, the bulk's sum has the term
# n delta sqrt(alpha^2 - beta^2), and their balance puts the maximum at
# alpha - |beta| ~ (n delta)^2 alpha / (2 D^2), i.e. sqrt(ab) =
# delta sqrt(alpha^2 - beta^2) ~ n delta^2 alpha / D: an interior maximum,
# within O(1 / D) in log-likelihood of the limit a = 0 (alpha = |beta|),
# with (alpha, beta, delta, mu) converging as D grows (measured: 300 t5
# rows of scale 0.01 plus one row at D = 1e3 .. 1e10 fit with sqrt(ab) =
# 1.7e-2 / D, D in the data's units, and a log-likelihood falling as
# -3/2 log D).  For D = 1e300 its ab ~ 3e-604 is no double: in the
# standardised det gauge the EM iterates in (R/fit_em.R) a or b
# underflows (only a = b ~ 1.7e-302 are doubles), and the EM's sums of
# squares cannot resolve the bulk beside the row's square long before
# that (the EM fails from D ~ 1e11 there, 1e13 robust spreads).  In the
# balanced gauge a = b = sqrt(ab) ~ n / D every parameter is a double:
# univariate fits go on there by a direct maximisation (R/fit_extreme.R),
# and this warning is left for the fits that cannot (multivariate and VG
# fits; see that file).
mix_warn_convergence <- function(fit, dropped, call, cache = NULL) {
  label <- mix_family(fit$family)$label
  far <- far_rows_info(fit$data, dropped, cache)
  if (is.null(far)) {
    ghmix_warn(sprintf("%s fit did not converge: %s.", label, fit$message),
               class = "ghmix_warning_convergence", call = call)
    return(fit$message)
  }
  msg <- sprintf(
    paste(
      "%s; the last parameters reached are returned, and they are no",
      "maximum-likelihood fit: fit without %s, or a transformed `x`"
    ),
    far$text, far$them
  )
  ghmix_warn(
    sprintf("%s fit did not converge: %s.", label, msg),
    class = c("ghmix_warning_range", "ghmix_warning_convergence"),
    call = call, rows = far$rows, distance = far$distance,
    em_message = fit$message
  )
  msg
}

# The handler of mix_em()'s ghmix_error_start for the rows x of a fit (a
# matrix, or chunks): with rows far from the rest, an error that says so
# (class ghmix_error_range too; fields rows, distance), else nothing (the
# error goes on).
mix_abort_start_range <- function(e, x, dropped, call, cache = NULL) {
  far <- far_rows_info(x, dropped, cache)
  if (is.null(far)) {
    return(invisible())
  }
  ghmix_abort(
    sprintf(
      paste(
        "The starting values give a non-finite log-likelihood: %s.",
        "Fit without %s, or a transformed `x`."
      ),
      far$text, far$them
    ),
    class = c("ghmix_error_range", "ghmix_error_start"), call = call,
    rows = far$rows, distance = far$distance
  )
}

# NULL, or the far rows of x (far_rows(); x a matrix, else NULL) as
# list(rows, in the numbering of the user's x, distance, text: what they
# are, them: "that row" or "those rows").
far_rows_info <- function(x, dropped, cache = NULL) {
  far <- if (is.matrix(x)) far_rows(x, cache = cache) else list(rows = NULL)
  if (length(far$rows) == 0L) {
    return(NULL)
  }
  kept <- seq_len(nrow(x) + length(dropped))
  if (length(dropped)) kept <- kept[-dropped]
  rows <- kept[far$rows]
  one <- length(rows) == 1L
  text <- sprintf(
    paste(
      "row%s %s of `x` lie%s %s%.3g robust spreads (IQR / 1.349) from the",
      "column medians, beyond the 2^26 within which the EM's sums of",
      "squares resolve the other rows (%s square%s exceed%s theirs by more",
      "than the precision of doubles)"
    ),
    plural(rows), row_list(rows), if (one) "s" else "",
    if (one) "" else "up to ", max(far$distance), if (one) "its" else "their",
    if (one) "" else "s", if (one) "s" else ""
  )
  list(rows = rows, distance = far$distance, text = text,
       them = if (one) "that row" else "those rows")
}
