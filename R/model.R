# The model a fit asks for, from the user's arguments (issue 26): every
# fitter's arguments are checked here, once, in the order each path always
# checked them, so that of several bad arguments the same one is reported
# (one distribution: fixed, then factors, the options, shrink; mixtures:
# fixed with components, components, criterion, nstart, the options,
# online, shrink, factors).  What does not combine is refused by the rules
# of R/model_rules.R.

# The body of every fitter: the model's spec (model_spec()), then one fit
# of a distribution (mix_fit_args()), online EM (online_fit()), or the
# mixtures of mix_fit_components().
fit_dispatch <- function(family, x, symmetric, start, control, gauge,
                         na_rm, backend, threads, device, cluster, weights,
                         components, nstart, criterion, shrink, factors,
                         call, fixed = NULL) {
  t_start <- proc.time()[[3]]
  spec <- model_spec(family, x, symmetric, control, gauge, na_rm, backend,
                     threads, device, cluster, weights, components, nstart,
                     criterion, shrink, factors, fixed, call)
  if (spec$online) {
    return(online_fit(x, family, symmetric, start, control, gauge, na_rm,
                      backend, threads, device, call, cluster, weights,
                      spec$args$fixed,
                      list(shrink = shrink, factors = factors)))
  }
  if (!spec$single) {
    return(mix_fit_components(x, start, spec))
  }
  mix_fit_args(x, family, start, spec$args, call, t_start)
}

# The model a fit asks for, its arguments checked (model_single(),
# model_mixture()): family; single (one distribution) and online (online
# EM: its factors and shrink are checked as its batches come); G, the
# sorted numbers of components asked, nstart and criterion (mixtures);
# cov, the covariance structure (list(kind = "full" or "factor", r));
# args, the checked options, constraints and penalty as the fits read
# them; weights (checked with the rows); call.
model_spec <- function(family, x, symmetric, control, gauge, na_rm, backend,
                       threads, device, cluster, weights, components, nstart,
                       criterion, shrink, factors, fixed, call) {
  spec <- list(family = family, single = mix_is_single(components),
               G = 1L, nstart = nstart, criterion = NULL)
  if (spec$single) {
    spec$args <- model_single(family, symmetric, control, gauge, na_rm,
                              backend, threads, device, cluster, weights,
                              fixed, shrink, factors, call)
  } else {
    m <- model_mixture(x, components, nstart, criterion, symmetric,
                       control, gauge, na_rm, backend, threads, device,
                       cluster, shrink, factors, fixed, call)
    spec[c("G", "criterion", "args")] <- m[c("g_all", "criterion", "args")]
  }
  spec$online <- isTRUE(spec$args$online)
  spec$cov <- if (!spec$online) model_cov(spec$args$factors)
  c(spec, list(weights = weights, call = call))
}

# The covariance structure of a checked `factors`.
model_cov <- function(factors) {
  if (is.null(factors)) list(kind = "full", r = 0L) else
    list(kind = "factor", r = factors)
}

# TRUE when `components` asks for one distribution's fit.
mix_is_single <- function(components) {
  is.numeric(components) && length(components) == 1L &&
    isTRUE(components == 1)
}

# The checked arguments of one distribution's fit, as fit_run() reads them
# (weights are checked with the rows, fit_source(); shrink is set up with
# them); for online EM only list(online = TRUE, fixed), the rest being
# checked as its batches come (online_fit()).
model_single <- function(family, symmetric, control, gauge, na_rm, backend,
                         threads, device, cluster, weights, fixed, shrink,
                         factors, call) {
  fixed <- fixed_for_family(fixed, family, call)
  if (inherits(control, "ghmix_control") && !is.null(control$online)) {
    return(list(online = TRUE, fixed = fixed))
  }
  factors <- check_factors(factors, call)
  args <- model_options(symmetric, control, gauge, na_rm, backend, threads,
                        device, cluster, call)
  args$weights <- weights
  args$fixed <- fixed
  args$shrink <- shrink_arg(shrink, call)
  args$factors <- factors
  args
}

# The checked arguments of the mixtures of mix_fit_components():
# list(g_all, the sorted G asked; criterion; args, as model_single()'s
# without weights and fixed).
model_mixture <- function(x, components, nstart, criterion, symmetric,
                          control, gauge, na_rm, backend, threads, device,
                          cluster, shrink, factors, fixed, call) {
  if (!is.null(fixed)) model_refuse("fixed_components", call)
  g_all <- mixture_check_components(components, call)
  criterion <- check_choice(criterion, c("bic", "icl"), "criterion", call)
  mixture_check_nstart(nstart, call)
  args <- model_options(symmetric, control, gauge, na_rm, backend, threads,
                        device, cluster, call)
  if (!is.null(control$online)) model_refuse("online_components", call)
  args$shrink <- shrink_arg(shrink, call)
  args$factors <- mixture_factor_mode(factors, x, args, call)
  list(g_all = g_all, criterion = criterion, args = args)
}

# The options of a fit, checked once whatever the data and the engine.
model_options <- function(symmetric, control, gauge, na_rm, backend, threads,
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

# `factors`: NULL (a full Sigma), or a whole number 0 <= r < d.
check_factors <- function(factors, call) {
  if (is.null(factors)) {
    return(NULL)
  }
  if (is.logical(factors) ||
        !(identical(factors, 0) || identical(factors, 0L) ||
            is_count(factors))) {
    abort_argument(
      "`factors` must be NULL or a whole number r with 0 <= r < d.", call
    )
  }
  as.integer(factors)
}

# The checked r of a factor mixture (NULL without factors).
mixture_factor_mode <- function(factors, x, args, call) {
  factors <- check_factors(factors, call)
  if (is.null(factors)) {
    return(NULL)
  }
  chunked <- !is.null(args$cluster) || inherits(x, "ghmix_data")
  if (chunked && identical(args$backend, "cuda")) {
    model_refuse("factor_mixture_chunked_cuda", call)
  }
  factors
}

mixture_check_components <- function(components, call) {
  ok <- is.numeric(components) && length(components) > 0L &&
    isTRUE(all(is.finite(components) & components >= 1 &
                 components == round(components))) &&
    !anyDuplicated(components)
  if (!ok) {
    abort_argument(
      "`components` must be distinct whole numbers, 1 or more (e.g. 1:6).",
      call
    )
  }
  sort(as.integer(components))
}

mixture_check_nstart <- function(nstart, call) {
  ok <- is.numeric(nstart) && length(nstart) == 1L && is.finite(nstart) &&
    nstart >= 0 && nstart == round(nstart)
  if (!ok) {
    abort_argument("`nstart` must be a whole number, 0 or more.", call)
  }
}
