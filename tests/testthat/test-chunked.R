# Chunked data (ghmix_data), out-of-core fits, and fits on a parallel
# cluster or a future plan: the same numbers as the in-memory fit.

chunked_sim <- function(n = 1200L, d = 3L, seed = 11L) {
  par <- sim_params(d, "nig", seed)
  set.seed(seed)
  sim_mixture(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
}

chunked_split <- function(x, k) {
  idx <- split(seq_len(nrow(x)), rep(seq_len(k), length.out = nrow(x)))
  lapply(unname(idx), function(i) x[sort(i), , drop = FALSE])
}

# Rows in chunk order, as the chunks hold them.
chunked_rows <- function(chunks) do.call(rbind, chunks)

# The guarantee of ?fit_nig for a chunked or distributed fit against the
# in-memory fit of the same rows (which adds the statistics in another
# order, so that the two can stop at different iterations, and under
# OpenBLAS do): the same fit to the convergence tolerance, i.e. mean
# log-likelihoods within a few `tol` and the parameters, standardised as the
# stopping rule measures them, within a few `param_tol`.
expect_same_fit <- function(fit, ref, ctl = ref$control, slack = 10) {
  expect_lte(abs(fit$loglik - ref$loglik) / ref$nobs, slack * ctl$tol)
  expect_lte(chunked_par_change(fit, ref), slack * ctl$param_tol)
  expect_identical(names(fit$parameters$mu), names(ref$parameters$mu))
  expect_identical(fit$nobs, ref$nobs)
  expect_identical(fit$converged, ref$converged)
  expect_s3_class(fit, class(ref))
}

# The largest relative change |a - b| / (1 + |b|) between the parameters
# of two fits standardised by the data's column scales: mu, gamma, Sigma,
# and the free mixing parameters (p, log a, log b).
chunked_par_change <- function(fit, ref) {
  s <- sqrt(diag(ref$parameters$sigma))
  std <- function(par) {
    mix <- unlist(par[ghmix:::mix_family(ref$family)$free])
    mix[names(mix) != "p"] <- log(mix[names(mix) != "p"])
    c(par$mu / s, par$gamma / s, par$sigma / tcrossprod(s), mix)
  }
  a <- std(fit$parameters)
  b <- std(ref$parameters)
  max(abs(a - b) / (1 + abs(b)))
}

# Cleaned up when the calling test ends.
chunked_cluster <- function(n = 2L, env = parent.frame()) {
  cl <- parallel::makePSOCKcluster(n)
  chunked_defer(bquote(try(parallel::stopCluster(.(cl)), silent = TRUE)), env)
  cl
}

chunked_dir <- function(env = parent.frame()) {
  dir <- tempfile("ghmix-chunks-")
  dir.create(dir)
  chunked_defer(bquote(unlink(.(dir), recursive = TRUE)), env)
  dir
}

# Run the call expr when the test whose frame is env ends.
chunked_defer <- function(expr, env) {
  do.call(on.exit, list(expr, add = TRUE), envir = env)
}

# How many fits' chunks each worker holds.
chunked_held <- function(cl) {
  fun <- function() length(ls(get("the_worker", envir = asNamespace("ghmix"))))
  environment(fun) <- globalenv()
  unlist(parallel::clusterCall(cl, fun))
}

test_that("ghmix_data() describes matrices, files and functions", {
  x <- chunked_sim(60L)
  ch <- chunked_split(x, 3L)
  d1 <- ghmix_data(ch)
  expect_s3_class(d1, "ghmix_data")
  expect_null(dim(d1))
  expect_output(print(d1), "3 chunks \\(3 matrix\\)")
  d2 <- ghmix_data(c("a.rds", "b.csv", "c.CSV.gz"))
  expect_identical(d2$kind, rep("file", 3L))
  d3 <- ghmix_data(list(function() ch[[1L]], "a.rds", ch[[2L]]))
  expect_identical(d3$kind, c("function", "file", "matrix"))
  expect_error(ghmix_data(list()), class = "ghmix_error_argument")
  expect_error(ghmix_data("a.txt"), "\\.rds or \\.csv",
               class = "ghmix_error_argument")
  expect_error(ghmix_data(list(ch[[1L]], factor("a"))), "Chunk 2",
               class = "ghmix_error_argument")
})

test_that("out-of-core fits equal the in-memory fit (matrices, files, fns)", {
  x <- chunked_sim()
  ch <- chunked_split(x, 3L)
  xr <- chunked_rows(ch)
  ref <- fit_nig(xr)
  fit <- fit_nig(ghmix_data(ch))
  expect_same_fit(fit, ref)
  expect_identical(dim(fit$data), dim(xr))
  expect_identical(colnames(fit$data), colnames(xr))
  expect_identical(fit$distributed$mode, "stream")
  dir <- chunked_dir()
  files <- file.path(dir, c("a.rds", "b.csv", "c.csv"))
  saveRDS(ch[[1L]], files[1L], compress = FALSE)
  for (i in 2:3) {
    utils::write.table(format(ch[[i]], digits = 17), files[i], sep = ",",
                       quote = FALSE, row.names = FALSE, col.names = FALSE)
  }
  fit_files <- fit_nig(ghmix_data(files, names = colnames(x)))
  expect_same_fit(fit_files, ref)
  funs <- lapply(ch, function(m) function() m)
  expect_same_fit(fit_nig(ghmix_data(funs)), ref)
  sk <- fit_skewt(xr)
  expect_same_fit(fit_skewt(ghmix_data(ch)), sk)
})

test_that("checks of chunked data: NA rows, columns, shape, read failures", {
  x <- chunked_sim(300L)
  ch <- chunked_split(x, 3L)
  ch[[2L]][c(5L, 9L), 2L] <- NA
  expect_error(fit_nig(ghmix_data(ch)), "chunk 2: rows 5, 9",
               class = "ghmix_error_argument")
  fit <- fit_nig(ghmix_data(ch), na.rm = TRUE)
  ref <- fit_nig(chunked_rows(ch), na.rm = TRUE)
  expect_same_fit(fit, ref)
  expect_identical(fit$na_action, ref$na_action)
  bad_cols <- list(x[1:50, ], x[51:100, 1:2])
  expect_error(fit_nig(ghmix_data(bad_cols)), "chunk 2 has 2",
               class = "ghmix_error_argument")
  expect_error(fit_nig(ghmix_data(list(x[1:2, ], x[3:4, ]))),
               "more than d \\+ 1", class = "ghmix_error_argument")
  const <- list(cbind(x[1:50, 1:2], k = 1), cbind(x[51:99, 1:2], k = 1))
  expect_error(fit_nig(ghmix_data(const)), "constant column",
               class = "ghmix_error_argument")
  e <- expect_error(
    fit_nig(ghmix_data(list(x, function() stop("no database")))),
    "Chunk 2 could not be read.*no database", class = "ghmix_error_chunk"
  )
  expect_identical(e$chunk, 2L)
  expect_identical(e$iteration, 0L)
  missing <- ghmix_data(file.path(chunked_dir(), "none.rds"))
  expect_error(fit_nig(missing), "does not exist",
               class = "ghmix_error_chunk")
  empty <- file.path(chunked_dir(), "empty.csv")
  file.create(empty)
  expect_error(fit_nig(ghmix_data(empty)), "is empty",
               class = "ghmix_error_chunk")
})

test_that("ties are found within chunks", {
  x <- chunked_sim(400L, d = 2L)
  x[c(10L, 20L, 30L), ] <- rep(x[5L, ], each = 3L)
  ch <- list(x[1:200, ], x[201:400, ])
  w <- tryCatch(fit_vg(ghmix_data(ch)), ghmix_warning_ties = function(w) w)
  expect_s3_class(w, "ghmix_warning_ties")
  expect_identical(w$n_repeated, 3L)
  expect_identical(fit_nig(ghmix_data(ch))$ties, 3L)
})

test_that("methods work on a chunked fit", {
  x <- chunked_sim()
  ch <- chunked_split(x, 4L)
  xr <- chunked_rows(ch)
  ref <- fit_nig(xr)
  fit <- fit_nig(ghmix_data(ch))
  expect_equal(fitted(fit), fitted(ref), tolerance = 1e-10,
               ignore_attr = TRUE)
  expect_equal(predict(fit, type = "log_density"),
               predict(ref, type = "log_density"), tolerance = 1e-10,
               ignore_attr = TRUE)
  expect_equal(vcov(fit), vcov(ref), tolerance = 1e-6)
  expect_output(print(fit), "NIG distribution, d = 3, n = 1200")
  sims <- simulate(fit, seed = 1)
  expect_identical(dim(sims[[1L]]), dim(xr))
  expect_error(plot(fit), class = "ghmix_error_chunked")
})

test_that("trace prints E-step, M-step and communication times", {
  x <- chunked_sim(300L)
  msgs <- character()
  withCallingHandlers(
    fit <- fit_nig(ghmix_data(chunked_split(x, 2L)),
                   control = ghmix_control(trace = TRUE, max_iter = 3L)),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    },
    ghmix_warning_convergence = function(w) invokeRestart("muffleWarning")
  )
  expect_length(msgs, fit$iterations)
  expect_match(
    msgs,
    "^iter +[1-3] +loglik .*E-step [0-9.]+ s +M-step [0-9.]+ s +comm [0-9.]+ s"
  )
  expect_true(fit$control$trace)
})

test_that("a PSOCK cluster gives the in-memory fit; workers keep chunks", {
  skip_on_cran()
  cl <- chunked_cluster(2L)
  x <- chunked_sim()
  ch <- chunked_split(x, 5L)
  xr <- chunked_rows(ch)
  ref <- fit_nig(xr)
  fit <- fit_nig(ghmix_data(ch), cluster = cl, threads = 1L)
  expect_same_fit(fit, ref)
  expect_identical(fit$distributed$mode, "cluster")
  expect_identical(fit$distributed$workers, 2L)
  # only parameters and statistics travel at each E-step
  expect_lt(sum(fit$distributed$bytes_per_estep), 6000)
  # the same numbers as out of core, bit for bit: the chunks' statistics
  # are added in chunk order
  expect_identical(fit$loglik, fit_nig(ghmix_data(ch))$loglik)
  # a matrix on a cluster: split into a chunk per worker
  expect_same_fit(fit_nig(xr, cluster = cl, threads = 1L), ref)
  # GH's likelihood is flat in p: run both to the maximum, so that the
  # comparison is of two maxima rather than of two stopping points.  EM
  # creeps along that flat direction (steps of 1e-13 still leave the
  # stopping point further from the maximum), so the two maxima are
  # compared to 1e-10, not to 10 param_tol (seen 2.8e-12 apart with OpenBLAS)
  tight <- ghmix_control(tol = 1e-15, param_tol = 1e-13, max_iter = 5000L)
  gh_ref <- suppressWarnings(fit_gh(xr, control = tight))
  gh <- suppressWarnings(fit_gh(ghmix_data(ch), cluster = cl, threads = 1L,
                                control = tight))
  expect_same_fit(gh, gh_ref, slack = 1000)
  expect_equal(vcov(fit, cluster = cl), vcov(ref), tolerance = 1e-6)
  # nothing is left on the workers
  expect_identical(chunked_held(cl), c(0L, 0L))
})

test_that("a future multisession plan gives the in-memory fit", {
  skip_on_cran()
  skip_if_not_installed("future")
  x <- chunked_sim()
  ch <- chunked_split(x, 3L)
  ref <- fit_nig(chunked_rows(ch))
  dir <- chunked_dir()
  files <- file.path(dir, sprintf("part%d.rds", 1:3))
  for (i in 1:3) saveRDS(ch[[i]], files[i])
  old <- future::plan(future::multisession, workers = 2L)
  on.exit(future::plan(old), add = TRUE)
  fit <- fit_nig(ghmix_data(files), cluster = "future", threads = 1L)
  expect_same_fit(fit, ref)
  expect_identical(fit$distributed$mode, "future")
  # a chunk that fails at its 8th reading: the fit stops with the
  # iteration reached and parameters to restart from
  count <- file.path(dir, "count")
  writeLines("0", count)
  flaky <- function() {
    k <- as.integer(readLines(count)) + 1L
    writeLines(as.character(k), count)
    if (k == 8L) stop("the disk went away")
    readRDS(files[3L])
  }
  e <- expect_error(
    fit_nig(ghmix_data(list(files[1L], files[2L], flaky)),
            cluster = "future", threads = 1L),
    "Chunk 3 could not be read.*disk went away.*iteration",
    class = "ghmix_error_chunk"
  )
  expect_identical(e$chunk, 3L)
  expect_gte(e$iteration, 1L)
  restart <- fit_nig(ghmix_data(files), start = e$parameters)
  expect_equal(restart$loglik, ref$loglik, tolerance = 1e-8)
})

test_that("a worker killed mid-fit gives a classed error, not a hang", {
  skip_on_cran()
  skip_on_os("windows")
  cl <- chunked_cluster(2L)
  x <- chunked_sim(600L, d = 2L)
  ch <- chunked_split(x, 4L)
  # the test hook of R/workers.R: worker 2 exits at its 4th E-step (the
  # start's E-step is the first, so after at least one iteration)
  parallel::clusterCall(cl[2L], options, ghmix.test_exit_at_estep = 4L)
  ctl <- ghmix_control(max_iter = 1000L, tol = 0, accelerate = FALSE)
  e <- expect_error(
    fit_nig(ghmix_data(ch), cluster = cl, threads = 1L, control = ctl),
    "Worker 2 \\(.*chunks 3, 4\\) failed", class = "ghmix_error_cluster"
  )
  expect_identical(e$worker, 2L)
  expect_identical(e$chunk, 3:4)
  expect_gt(e$iteration, 0L)
  expect_type(e$parameters, "list")
  expect_named(e$parameters, c("mu", "gamma", "sigma", "p", "a", "b"))
  # the surviving worker was released and still answers
  expect_identical(chunked_held(cl[1L]), 0L)
})

test_that("parallel's sendCall() and recvResult() behave as ghmix needs", {
  # R/cluster.R uses these two unexported functions (see its comment and
  # vignette("distributed")): their arguments, and a round trip
  skip_on_cran()
  send <- utils::getFromNamespace("sendCall", "parallel")
  recv <- utils::getFromNamespace("recvResult", "parallel")
  expect_identical(names(formals(send)),
                   c("con", "fun", "args", "return", "tag"))
  expect_identical(names(formals(recv)), "con")
  cl <- chunked_cluster(1L)
  fun <- function(a, b) a * b
  environment(fun) <- globalenv()
  send(cl[[1L]], fun, list(6, 7))
  expect_identical(recv(cl[[1L]]), 42)
  # an error comes back as a value, leaving the worker in step
  send(cl[[1L]], function() stop("no"), list())
  expect_s3_class(recv(cl[[1L]]), "try-error")
  expect_identical(unlist(parallel::clusterCall(cl, sqrt, 49)), 7)
})

test_that("PSOCK workers load ghmix from the library the master used", {
  skip_on_cran()
  skip_on_os("windows")
  lib <- dirname(getNamespaceInfo("ghmix", "path"))
  skip_if_not(file.exists(file.path(lib, "ghmix", "DESCRIPTION")),
              "ghmix is not loaded from an installed library")
  # a child R that has the library only through library(lib.loc = ), not
  # on its library paths; its workers start with that child's environment
  code <- sprintf(paste(
    "library(ghmix, lib.loc = %s);",
    "stopifnot(!%s %%in%% normalizePath(.libPaths()));",
    "cl <- parallel::makePSOCKcluster(2L);",
    "set.seed(1); x <- matrix(rgh(400, mu = c(0, 0)), 400);",
    "f <- fit_nig(x, cluster = cl, threads = 1L);",
    "where <- parallel::clusterCall(cl, function()",
    "  getNamespaceInfo('ghmix', 'path'));",
    "parallel::stopCluster(cl);",
    "cat('workers', unlist(where) == getNamespaceInfo('ghmix', 'path'),",
    "  f$distributed$workers, '\\n')"
  ), deparse(lib), deparse(normalizePath(lib)))
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"), c("--vanilla", "-e", shQuote(code)),
    stdout = TRUE, stderr = TRUE,
    env = c("R_LIBS=", "R_LIBS_USER=/nonexistent", "R_LIBS_SITE=")
  ))
  expect(any(out == "workers TRUE TRUE 2 "),
         paste(c("child R:", out), collapse = "\n"))
})

# The engine of a small fit's chunks on the 2 workers of cl.
chunked_cluster_engine <- function(cl) {
  data <- ghmix_data(chunked_split(chunked_sim(600L), 2L))
  opts <- ghmix:::chunk_options("cpu", 1L, 0L, cl, NULL)
  ghmix:::chunk_engine(data, opts, na_rm = FALSE)
}

test_that("an interrupted E-step is drained and the chunks released", {
  skip_on_cran()
  cl <- chunked_cluster(2L)
  engine <- chunked_cluster_engine(cl)
  expect_identical(chunked_held(cl), c(1L, 1L))
  # what an interrupt leaves behind: calls sent, answers not yet read
  send <- utils::getFromNamespace("sendCall", "parallel")
  nap <- function() Sys.sleep(0.2)
  environment(nap) <- globalenv()
  for (i in 1:2) send(cl[[i]], nap, list())
  env <- environment(engine$free)
  link <- get("link", envir = env)
  link$pending <- 1:2
  engine$free()
  expect_identical(chunked_held(cl), c(0L, 0L))
  expect_identical(unlist(parallel::clusterCall(cl, sqrt, 49)), c(7, 7))
})

test_that("an interrupt while the chunks are released is held till the end", {
  skip_on_cran()
  # (tools::pskill() cannot send an interrupt on Windows: it ends the
  # process there)
  skip_on_os("windows")
  cl <- chunked_cluster(2L)
  engine <- chunked_cluster_engine(cl)
  link <- get("link", envir = environment(engine$free))
  # a call in flight whose worker interrupts this process while the
  # release waits for its answer, as a second Ctrl-C would
  send <- utils::getFromNamespace("sendCall", "parallel")
  nap <- function(pid) {
    Sys.sleep(1)
    tools::pskill(pid, tools::SIGINT)
    Sys.sleep(0.5)
    "nap"
  }
  environment(nap) <- globalenv()
  send(cl[[1L]], nap, list(Sys.getpid()))
  link$pending <- 1L
  out <- tryCatch({
    engine$free()
    "released"
  }, interrupt = function(e) "interrupted")
  expect_identical(out, "interrupted")
  expect_identical(link$pending, integer())
  expect_identical(chunked_held(cl), c(0L, 0L))
  expect_identical(unlist(parallel::clusterCall(cl, sqrt, 49)), c(7, 7))
})

test_that("parallel's recvData() gives back the tag sendCall() sent", {
  # R/cluster.R tags every request and reads the whole answer, to tell
  # the answer it waits for from one left behind
  skip_on_cran()
  send <- utils::getFromNamespace("sendCall", "parallel")
  recv <- utils::getFromNamespace("recvData", "parallel")
  expect_identical(names(formals(recv)), "node")
  cl <- chunked_cluster(1L)
  fun <- function(a, b) a * b
  environment(fun) <- globalenv()
  send(cl[[1L]], fun, list(6, 7), tag = "ghmix-test-1")
  msg <- recv(cl[[1L]])
  expect_identical(msg$tag, "ghmix-test-1")
  expect_identical(msg$value, 42)
  # the bytes of a request as ghmix writes them are sendCall()'s own
  bytes <- ghmix:::cluster_request(cl[[1L]], fun, list(2, 3), "t")
  node <- cl[[1L]]
  node$con <- rawConnection(raw(), "wb")
  send(node, fun, list(2, 3), tag = "t")
  expect_identical(bytes, rawConnectionValue(node$con))
  close(node$con)
  writeBin(bytes, cl[[1L]]$con)
  expect_identical(recv(cl[[1L]])$value, 6)
})

test_that("an answer left in a worker's socket is skipped, not taken", {
  skip_on_cran()
  cl <- chunked_cluster(2L)
  x <- chunked_sim(600L)
  ch <- chunked_split(x, 2L)
  ref <- fit_nig(ghmix_data(ch), cluster = cl, threads = 1L)
  # an answer nobody reads, as an interrupt that cut a cleanup short
  # could leave
  send <- utils::getFromNamespace("sendCall", "parallel")
  stale <- function() list(ok = TRUE, host = "stale")
  environment(stale) <- globalenv()
  send(cl[[2L]], stale, list())
  Sys.sleep(0.2)
  fit <- fit_nig(ghmix_data(ch), cluster = cl, threads = 1L)
  expect_identical(fit$loglik, ref$loglik)
  expect_identical(chunked_held(cl), c(0L, 0L))
  expect_identical(unlist(parallel::clusterCall(cl, sqrt, 49)), c(7, 7))
})

test_that("a request cut short by an interrupt is finished, then released", {
  skip_on_cran()
  cl <- chunked_cluster(2L)
  engine <- chunked_cluster_engine(cl)
  link <- get("link", envir = environment(engine$free))
  # what an interrupt between two pieces of a request leaves: part of its
  # bytes sent, the answer awaited; and a request committed, not begun
  big <- function(v) length(v)
  environment(big) <- globalenv()
  bytes <- ghmix:::cluster_request(cl[[1L]], big, list(runif(1e5)), "t1")
  half <- length(bytes) %/% 2L
  writeBin(bytes[seq_len(half)], cl[[1L]]$con)
  link$out[[1L]] <- bytes
  link$at[1L] <- half
  link$tags[[1L]] <- "t1"
  link$out[[2L]] <- bytes
  link$at[2L] <- 0
  link$tags[[2L]] <- "t2"
  link$pending <- 1:2
  engine$free()
  expect_identical(link$pending, integer())
  expect_identical(chunked_held(cl), c(0L, 0L))
  expect_identical(unlist(parallel::clusterCall(cl, sqrt, 49)), c(7, 7))
})

test_that("every engine comes from new_engine(), with its kind, n and d", {
  x <- chunked_sim(300L)
  ch <- chunked_split(x, 3L)
  xr <- chunked_rows(ch)
  mem <- ghmix:::mix_engine_cpu(xr, 1L)
  expect_named(mem, c("kind", "n", "d", "shape", "estep", "free", "workers",
                      "clock", "data", "summary", "estep_mixture"))
  expect_identical(mem$kind, "cpu")
  expect_identical(c(mem$n, mem$d), dim(xr))
  expect_named(formals(mem$estep), ghmix:::engine_estep_args)
  opts <- ghmix:::chunk_options("cpu", 1L, 0L, NULL, NULL)
  eng <- ghmix:::chunk_engine(ghmix_data(ch), opts, na_rm = FALSE)
  on.exit(eng$free(), add = TRUE)
  expect_identical(eng$kind, "stream")
  expect_named(formals(eng$estep), ghmix:::engine_estep_args)
  expect_identical(c(eng$n, eng$d), dim(xr))
  expect_identical(dim(eng$data), dim(xr))
  expect_identical(eng$summary$n, 300)
  # the chunks' statistics, added in chunk order, are those of the rows
  par <- sim_params(3L, "nig", 11L)
  what <- ghmix:::mix_what("nig")
  expect_equal(ghmix:::mix_estep(eng, par, what)$loglik,
               ghmix:::mix_estep(mem, par, what)$loglik, tolerance = 1e-12)
  expect_identical(eng$clock$esteps, 1L)
  new_engine <- ghmix:::new_engine
  bad <- "invalid engine \\(kind, n, d, estep or free\\)"
  expect_error(new_engine("gpu", 10, 2, mem$estep), bad)
  expect_error(new_engine("cpu", -1, 2, mem$estep), bad)
  expect_error(new_engine("cpu", 10, 1.5, mem$estep), bad)
  expect_error(new_engine("cpu", 10, 2, NULL), bad)
  expect_error(new_engine("stream", 10, 2, mem$estep), "engine \\(workers")
  expect_error(
    new_engine("cpu", 10, 2, mem$estep,
               shape = ghmix:::engine_shape(cov = "factor", factors = 2L)),
    "engine \\(shape\\)"
  )
  expect_true(ghmix:::engine_shape_valid(ghmix:::engine_shape_full, 1L))
  factor2 <- ghmix:::engine_shape(cov = "factor", factors = 1L)
  expect_identical(new_engine("cpu", 10, 2, mem$estep, shape = factor2)$shape,
                   factor2)
})
