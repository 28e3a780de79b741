# Golden results of the fitting layer: a grid of fits over the model's axes
# (family, components, covariance structure, shrinkage, fixed parameters,
# weights, data source, online EM, units), saved whole so that a change of
# the code under them can be checked bit for bit.  bench/numbers.R covers
# single full-Sigma fits and the distribution functions; this covers the
# rest (mixtures, factor models, shrinkage, fixed parameters, online EM,
# chunks and clusters, refusals).
#
#   Rscript bench/golden.R save before.rds      # with the old build (R_LIBS)
#   Rscript bench/golden.R save after.rds       # with the new build
#   Rscript bench/golden.R compare before.rds after.rds
#   Rscript bench/golden.R save FILE CELL...    # only the cells named
#
# Each cell records, under set.seed(): the fit object with what is not a
# number of the fit removed (timings, calls, closures and environments,
# worker clocks), its warnings (classes and messages, in order), or its
# error; R's random seed after the fit; and vcov(), predict() on 20 rows
# and the printed summary where the fit has them.  compare reports, per
# cell, whether the records are identical() and otherwise the largest
# relative difference among their numbers, and exits non-zero when any
# cell differs.  Fits run on 2 threads (bits must not depend on them: the
# cell "threads_1" repeats one fit on 1 thread).  Records depend on the
# BLAS: compare records made with the same BLAS and kernel.

suppressPackageStartupMessages(library(ghmix))

golden_data <- function() {
  set.seed(101)
  n <- 120L
  one <- function(center, skew) {
    y <- stats::rgamma(n, 2, 2)
    z <- matrix(stats::rnorm(n * 3L), n) %*% chol(matrix(
      c(1, 0.3, 0.1, 0.3, 1, -0.2, 0.1, -0.2, 1), 3
    ))
    sweep(y * rep(skew, each = n) + sqrt(y) * z, 2L, center, "+")
  }
  x <- rbind(one(c(0, 0, 0), c(0.5, 0, -0.3)),
             one(c(6, 5, -4), c(-0.4, 0.6, 0)))
  colnames(x) <- c("u", "v", "w")
  labels <- rep(1:2, each = n)
  w <- rep_len(c(1, 2, 1, 3), nrow(x))
  chunks <- ghmix_data(list(x[1:100, ], x[101:170, ], x[171:240, ]))
  list(x = x, x1 = x[seq_len(n), ], labels = labels, w = w, chunks = chunks,
       chunks1 = ghmix_data(list(x[1:60, ], x[61:120, ])),
       faithful = as.matrix(datasets::faithful),
       eu = diff(log(datasets::EuStockMarkets))[1:400, ])
}

# The cells: name = an expression over the data (x: two clusters of 120
# rows in d = 3; x1: the first cluster; eu: 400 rows of EuStockMarkets log
# returns; cl: a PSOCK cluster of 2 workers).
golden_cells <- function() {
  list(
    # single fits, full Sigma
    nig = quote(fit_nig(x1)),
    gh = quote(fit_gh(x1)),
    vg = quote(fit_vg(x1)),
    skewt = quote(fit_skewt(x1)),
    nig_sym = quote(fit_nig(x1, symmetric = TRUE)),
    nig_det = quote(fit_nig(x1, gauge = "det")),
    nig_eu = quote(fit_nig(eu)),
    gh_eu = quote(fit_gh(eu)),
    gh_fixed_p = quote(fit_gh(x1, fixed = list(p = 1))),
    gh_fixed_mu = quote(fit_gh(x1, fixed = list(mu = c(0, 0, 0)))),
    gh_fixed_a = quote(fit_gh(x1, fixed = list(a = 2))),
    gh_fixed_gamma = quote(fit_gh(x1, fixed = list(gamma = c(0.2, 0, 0),
                                                   p = -0.5))),
    nig_weights = quote(fit_nig(x1, weights = w[seq_len(120)])),
    gh_weights = quote(fit_gh(x1, weights = w[seq_len(120)])),
    nig_shrink = quote(fit_nig(x1, shrink = 5)),
    gh_shrink_lw = quote(fit_gh(x1, shrink = "diagonal")),
    nig_shrink_id = quote(fit_nig(x1, shrink = ghmix_shrink("identity", 3))),
    threads_1 = quote(fit_gh(x1, threads = 1L)),
    # factor structure
    nig_f1 = quote(fit_nig(eu, factors = 1)),
    gh_f1 = quote(fit_gh(eu, factors = 1)),
    nig_f0 = quote(fit_nig(x1, factors = 0)),
    nig_f1_shrink = quote(fit_nig(eu, factors = 1, shrink = 5)),
    gh_f1_fixed_p = quote(fit_gh(eu, factors = 1, fixed = list(p = 1))),
    nig_f1_weights = quote(fit_nig(x1, factors = 1, weights = w[1:120])),
    # online EM
    nig_online = quote(fit_nig(x1, control = ghmix_control(
      online = ghmix_online(batch_size = 40, warmup = 5)
    ))),
    nig_f1_online = quote(fit_nig(eu, factors = 1, control = ghmix_control(
      online = ghmix_online(batch_size = 100, warmup = 5)
    ))),
    nig_online_shrink = quote(fit_nig(x1, shrink = 5, control = ghmix_control(
      online = ghmix_online(batch_size = 40, warmup = 5)
    ))),
    nig_update = quote(update(fit_nig(x1[1:60, ]), x1[61:120, ])),
    # chunked data and clusters
    nig_chunks = quote(fit_nig(chunks1)),
    gh_chunks = quote(fit_gh(chunks1)),
    nig_f1_chunks = quote(fit_nig(chunks1, factors = 1)),
    nig_shrink_chunks = quote(fit_nig(chunks1, shrink = 5)),
    nig_cluster = quote(fit_nig(x1, cluster = cl)),
    nig_f1_cluster = quote(fit_nig(x1, factors = 1, cluster = cl)),
    # units
    nig_big = quote(fit_nig(x1 * 2^300)),
    nig_tiny = quote(fit_nig(x1 * 1e-200)),
    nig_f1_big = quote(fit_nig(eu * 1e200, factors = 1)),
    # other families
    student = quote(fit_student(x1)),
    hyperbolic = quote(fit_hyperbolic(x1)),
    gaussian = quote(fit_gaussian(x1)),
    families = quote(fit_families(x1[, 1])),
    # mixtures
    mix_nig = quote(fit_nig(x, components = 2)),
    mix_gh = quote(fit_gh(x, components = 2)),
    mix_vg = quote(fit_vg(x, components = 2)),
    mix_skewt = quote(fit_skewt(x, components = 2)),
    mix_nig_sym = quote(fit_nig(x, components = 2, symmetric = TRUE)),
    mix_nig_set = quote(fit_nig(x, components = 1:3)),
    mix_nig_icl = quote(fit_nig(x, components = 1:2, criterion = "icl")),
    mix_nig_weights = quote(fit_nig(x, components = 2, weights = w)),
    mix_nig_shrink = quote(fit_nig(x, components = 2, shrink = 5)),
    mix_nig_f1 = quote(fit_nig(x, components = 2, factors = 1)),
    mix_gh_f1 = quote(fit_gh(x, components = 2, factors = 1)),
    mix_nig_f1_shrink = quote(fit_nig(x, components = 2, factors = 1,
                                      shrink = 5)),
    mix_nig_chunks = quote(fit_nig(chunks, components = 2)),
    mix_nig_f1_chunks = quote(fit_nig(chunks, components = 2, factors = 1)),
    mix_nig_cluster = quote(fit_nig(x, components = 2, cluster = cl)),
    mix_nig_labels = quote(fit_nig(x, components = 2, start = labels)),
    mix_gh_from_nig = quote(fit_gh(x, components = 2,
                                   start = fit_nig(x, components = 2))),
    mix_gh_faithful = quote(fit_gh(faithful, components = 2)),
    mix_nig_faithful3 = quote(fit_nig(faithful, components = 3)),
    mix_nig_big = quote(fit_nig(x * 2^300, components = 2)),
    mix_nig_tiny = quote(fit_nig(x * 1e-200, components = 2)),
    # constraints, penalty and units crossed (added for issue 26 step 5)
    gh_f1_fixed_mu = quote(fit_gh(eu, factors = 1, fixed = list(mu = c(0, 0, 0, 0)))),
    gh_f1_fixed_a = quote(fit_gh(eu, factors = 1, fixed = list(a = 2))),
    gh_f1_fixed_gamma = quote(fit_gh(eu, factors = 1, fixed = list(gamma = c(0.001, 0, 0, 0), p = -0.5))),
    gh_f1_fixed_gamma_mu = quote(fit_gh(eu, factors = 1, fixed = list(gamma = c(0.001, 0, 0, 0), mu = c(0, 0, 0, 0)))),
    gh_f1_shrink_fixed_gamma = quote(fit_gh(eu, factors = 1, shrink = 5, fixed = list(gamma = c(0.001, 0, 0, 0)))),
    gh_f1_shrink_fixed_mu = quote(fit_gh(eu, factors = 1, shrink = "identity", fixed = list(mu = c(0, 0, 0, 0)))),
    gh_f1_shrink_fixed_p = quote(fit_gh(eu, factors = 1, shrink = ghmix_shrink(diag(4) * 1e-4, 10), fixed = list(p = 1))),
    gh_fixed_gamma_mu = quote(fit_gh(x1, fixed = list(gamma = c(0.2, 0, 0), mu = c(0, 0, 0)))),
    gh_fixed_mu_a = quote(fit_gh(x1, fixed = list(mu = c(0, 0, 0), a = 2))),
    gh_fixed_mu_p = quote(fit_gh(x1, fixed = list(mu = c(0, 0, 0), p = 1))),
    gh_shrink_fixed_mu = quote(fit_gh(x1, shrink = 5, fixed = list(mu = c(0, 0, 0)))),
    gh_shrink_fixed_gamma = quote(fit_gh(x1, shrink = "identity", fixed = list(gamma = c(0.2, 0, 0)))),
    nig_shrink_matrix = quote(fit_nig(eu, shrink = ghmix_shrink(diag(4) * 1e-4, 10))),
    nig_f1_shrink_lw = quote(fit_nig(eu, factors = 1, shrink = "diagonal")),
    nig_f2_shrink_id = quote(fit_nig(eu, factors = 2, shrink = ghmix_shrink("identity", 20))),
    gh_online_fixed_p = quote(fit_gh(x1, fixed = list(p = 1), control = ghmix_control(online = ghmix_online(batch_size = 40, warmup = 5)))),
    gh_online_fixed_mu = quote(fit_gh(x1, fixed = list(mu = c(0, 0, 0)), control = ghmix_control(online = ghmix_online(batch_size = 40, warmup = 5)))),
    gh_online_fixed_a = quote(fit_gh(x1, fixed = list(a = 2), control = ghmix_control(online = ghmix_online(batch_size = 40, warmup = 5)))),
    gh_online_fixed_gamma = quote(fit_gh(x1, fixed = list(gamma = c(0.2, 0, 0)), control = ghmix_control(online = ghmix_online(batch_size = 40, warmup = 5)))),
    gh_f1_online_fixed_mu = quote(fit_gh(eu, factors = 1, fixed = list(mu = c(0, 0, 0, 0)), control = ghmix_control(online = ghmix_online(batch_size = 100, warmup = 5)))),
    gh_f1_online_fixed_gamma = quote(fit_gh(eu, factors = 1, fixed = list(gamma = c(0.001, 0, 0, 0)), control = ghmix_control(online = ghmix_online(batch_size = 100, warmup = 5)))),
    nig_f1_online_shrink = quote(fit_nig(eu, factors = 1, shrink = 5, control = ghmix_control(online = ghmix_online(batch_size = 100, warmup = 5)))),
    nig_f1_online_shrink_id = quote(fit_nig(eu, factors = 1, shrink = ghmix_shrink("identity", 20), control = ghmix_control(online = ghmix_online(batch_size = 100, warmup = 5)))),
    nig_online_shrink_big = quote(fit_nig(x1 * 2^300, shrink = 5, control = ghmix_control(online = ghmix_online(batch_size = 40, warmup = 5)))),
    nig_f1_online_update = quote(update(fit_nig(eu[1:200, ], factors = 1, shrink = 5), eu[201:400, ])),
    nig_online_update_shrink = quote(update(fit_nig(x1[1:60, ], shrink = 5), x1[61:120, ])),
    mix_nig_shrink_lw = quote(fit_nig(x, components = 2, shrink = "diagonal")),
    mix_nig_shrink_id = quote(fit_nig(x, components = 2, shrink = ghmix_shrink("identity", 4))),
    mix_nig_f1_shrink_lw = quote(fit_nig(x, components = 2, factors = 1, shrink = "identity")),
    mix_nig_shrink_big = quote(fit_nig(x * 2^300, components = 2, shrink = 5)),
    mix_nig_f1_shrink_big = quote(fit_nig(x * 2^300, components = 2, factors = 1, shrink = "identity")),
    mix_nig_f1_shrink_chunks = quote(fit_nig(chunks, components = 2, factors = 1, shrink = 5)),
    mix_nig_shrink_chunks = quote(fit_nig(chunks, components = 2, shrink = 5)),
    mix_gh_shrink = quote(fit_gh(x, components = 2, shrink = 3)),
    mix_nig_f0_shrink = quote(fit_nig(x, components = 2, factors = 0, shrink = 3)),
    nig_f0_shrink = quote(fit_nig(x1, factors = 0, shrink = 3)),
    nig_shrink_d1 = quote(fit_nig(x1[, 1, drop = FALSE], shrink = 3)),
    nig_f1_shrink_chunks = quote(fit_nig(chunks1, factors = 1, shrink = 5)),
    nig_shrink_big = quote(fit_nig(x1 * 2^300, shrink = 5)),
    gh_shrink_tiny_id = quote(fit_gh(x1 * 1e-200, shrink = ghmix_shrink("diagonal", 4))),
    nig_f1_shrink_big = quote(fit_nig(eu * 1e200, factors = 1, shrink = 5)),
    nig_f1_fixed_chunks = quote(fit_gh(chunks1, factors = 1, fixed = list(mu = c(0, 0, 0)))),
    # refusals
    refuse_fixed_mix = quote(fit_gh(x, components = 2,
                                    fixed = list(p = 1))),
    refuse_online_mix = quote(fit_nig(x, components = 2,
                                      control = ghmix_control(
                                        online = ghmix_online(batch_size = 50)
                                      ))),
    refuse_gaussian_chunks = quote(fit_gaussian(chunks1))
  )
}

# What a fit object holds that is not a number of the fit.
golden_drop <- c("timings", "call", "worker_time", "read_time", "comm",
                 "elapsed", "bytes_sent", "bytes_received", "bytes_setup",
                 "bytes_per_estep")

golden_strip <- function(v) {
  if (is.function(v) || is.environment(v) || inherits(v, "cluster")) {
    return("<not a value>")
  }
  if (is.list(v)) {
    keep <- is.null(names(v)) | !(names(v) %in% golden_drop)
    at <- attributes(v)
    v <- lapply(v[keep], golden_strip)
    if (!is.null(at$class)) class(v) <- at$class
    if (!is.null(at$row.names) && is.data.frame(v)) {
      attr(v, "row.names") <- at$row.names
    }
  }
  v
}

golden_run <- function(expr, env) {
  warnings <- list()
  set.seed(7)
  res <- withCallingHandlers(
    tryCatch(eval(expr, env), error = function(e) {
      list(error = class(e), message = conditionMessage(e))
    }),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- list(class(w),
                                                  conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  seed <- .Random.seed
  extra <- list()
  if (inherits(res, c("ghmix_fit", "ghmix_mixture"))) {
    extra$vcov <- tryCatch(vcov(res), error = function(e) class(e))
    rows <- res$data
    if (is.matrix(rows)) {
      extra$predict <- tryCatch(predict(res, rows[1:20, , drop = FALSE]),
                                error = function(e) class(e))
    }
    extra$summary <- tryCatch(
      gsub("[0-9.]+ s\\b", "<seconds>",
           utils::capture.output(print(summary(res)))),
      error = function(e) class(e)
    )
  }
  list(fit = golden_strip(res), warnings = warnings, seed = seed,
       extra = golden_strip(extra))
}

golden_is_error <- function(res) {
  is.list(res) && identical(names(res), c("error", "message"))
}

golden_save <- function(path, only) {
  ghmix_threads(2L)
  env <- list2env(golden_data(), parent = globalenv())
  cells <- golden_cells()
  if (length(only)) cells <- cells[only]
  if (any(grepl("cluster", names(cells)))) {
    env$cl <- parallel::makePSOCKcluster(2L)
    on.exit(parallel::stopCluster(env$cl))
    lib <- dirname(dirname(system.file(package = "ghmix")))
    parallel::clusterCall(env$cl, function(lib) {
      .libPaths(c(lib, .libPaths()))
      NULL
    }, lib)
  }
  out <- list()
  for (name in names(cells)) {
    t0 <- proc.time()[["elapsed"]]
    out[[name]] <- golden_run(cells[[name]], env)
    message(sprintf("%-22s %6.2f s%s", name, proc.time()[["elapsed"]] - t0,
                    if (golden_is_error(out[[name]]$fit)) "  (error)" else ""))
  }
  saveRDS(out, path)
  message("wrote ", path, " (", length(out), " cells)")
}

golden_numbers <- function(v) {
  u <- unlist(v, use.names = FALSE)
  if (is.numeric(u) || is.logical(u)) as.numeric(u) else numeric()
}

golden_rel_diff <- function(old, new) {
  o <- golden_numbers(old)
  n <- golden_numbers(new)
  if (length(o) != length(n)) {
    return(NA_real_)
  }
  same <- (is.na(o) & is.na(n)) | (!is.na(o) & !is.na(n) & o == n)
  d <- abs(n - o) / pmax(abs(o), 1e-300)
  d[same] <- 0
  d[is.na(d)] <- Inf
  if (length(d)) max(d) else 0
}

golden_compare <- function(old_path, new_path) {
  old <- readRDS(old_path)
  new <- readRDS(new_path)
  cells <- union(names(old), names(new))
  rows <- lapply(cells, function(cell) {
    o <- old[[cell]]
    n <- new[[cell]]
    parts <- c("fit", "warnings", "seed", "extra")
    same <- vapply(parts, function(p) identical(o[[p]], n[[p]]), TRUE)
    data.frame(cell = cell, identical = all(same),
               differs = paste(parts[!same], collapse = ","),
               max_rel_diff = if (all(same)) 0 else
                 golden_rel_diff(o$fit, n$fit))
  })
  tab <- do.call(rbind, rows)
  print(tab, row.names = FALSE, digits = 3)
  bad <- sum(!tab$identical)
  cat(sprintf("\n%d of %d cells identical; %d differ\n", sum(tab$identical),
              nrow(tab), bad))
  if (bad) quit(status = 1L)
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 2L && args[[1]] == "save") {
  golden_save(args[[2]], args[-(1:2)])
} else if (length(args) == 3L && args[[1]] == "compare") {
  golden_compare(args[[2]], args[[3]])
} else {
  stop("usage: Rscript bench/golden.R save FILE [CELL...] | compare OLD NEW")
}
