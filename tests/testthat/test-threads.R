test_that("ghmix_threads() gets a positive count within the maximum", {
  n <- ghmix_threads()
  expect_type(n, "integer")
  expect_length(n, 1L)
  expect_gte(n, 1L)
  expect_lte(n, max_threads())
})

test_that("ghmix_threads(n) sets and returns the old value invisibly", {
  old <- ghmix_threads()
  on.exit(ghmix_threads(old), add = TRUE)
  expect_invisible(ghmix_threads(1))
  expect_identical(ghmix_threads(), 1L)
  expect_identical(ghmix_threads(old), 1L)
  expect_identical(ghmix_threads(), old)
  # doubles holding whole numbers are fine; large values are capped
  ghmix_threads(1e6)
  expect_identical(ghmix_threads(), max_threads())
})

test_that("ghmix_threads() rejects bad values with a classed error", {
  old <- ghmix_threads()
  on.exit(ghmix_threads(old), add = TRUE)
  bad <- list(0, -1, 1.5, NA, NA_integer_, Inf, "2", c(1, 2), numeric(), NaN)
  for (n in bad) {
    expect_error(ghmix_threads(n), class = "ghmix_error_argument")
  }
  expect_error(ghmix_threads(0), "`n` must be a single positive whole number")
  expect_identical(ghmix_threads(), old)
})

test_that("the threads argument is validated and capped", {
  expect_error(log_besselK(1, 1, threads = 0), class = "ghmix_error_argument")
  expect_error(log_besselK(1, 1, threads = "a"), "`threads`")
  expect_identical(
    log_besselK(c(1, 2), 1, threads = 1e6),
    log_besselK(c(1, 2), 1, threads = 1)
  )
})

test_that("GHMIX_NUM_THREADS sets the default thread count", {
  old <- Sys.getenv("GHMIX_NUM_THREADS", NA)
  on.exit(
    if (is.na(old)) {
      Sys.unsetenv("GHMIX_NUM_THREADS")
    } else {
      Sys.setenv(GHMIX_NUM_THREADS = old)
    },
    add = TRUE
  )
  Sys.setenv(GHMIX_NUM_THREADS = "1")
  expect_identical(threads_from_env(), 1L)
  Sys.setenv(GHMIX_NUM_THREADS = "100000")
  expect_identical(threads_from_env(), max_threads())
  Sys.setenv(GHMIX_NUM_THREADS = "two")
  expect_warning(n <- threads_from_env(), "GHMIX_NUM_THREADS")
  expect_gte(n, 1L)
  Sys.setenv(GHMIX_NUM_THREADS = "0")
  expect_warning(threads_from_env(), "not a positive whole number")
  Sys.unsetenv("GHMIX_NUM_THREADS")
  expect_identical(threads_from_env(), .Call(ffi_build_info)$default_threads)
})

test_that("1 and 2 threads give identical results, across chunks", {
  skip_on_cran() # about 0.2 s with the production kernel
  n <- 70000L # more than one chunk of 2^16 values
  x <- exp(seq(log(1e-3), log(1e3), length.out = 997))
  nu <- seq(-50, 50, length.out = 1009)
  xr <- rep_len(x, n)
  one <- log_besselK(xr, nu, gradient = TRUE, threads = 1)
  two <- log_besselK(xr, nu, gradient = TRUE, threads = 2)
  expect_identical(one, two)
  expect_identical(
    log_besselK(xr, nu, threads = 1),
    log_besselK(xr, nu, threads = 2)
  )
})

test_that("1 and 2 threads give identical results on a small batch", {
  x <- exp(seq(log(1e-2), log(1e2), length.out = 101))
  expect_identical(
    log_besselK(x, 3.5, gradient = TRUE, threads = 1),
    log_besselK(x, 3.5, gradient = TRUE, threads = 2)
  )
})

test_that("a forked child computes on one thread (the workers are not in it)", {
  skip_on_cran()
  skip_if_not(.Platform$OS.type == "unix", "needs fork()")
  skip_if(max_threads() < 2L, "needs 2 threads")
  set.seed(1)
  x <- rgh(20000, gamma = 0.3)
  f2 <- fit_nig(x, threads = 2L) # a 2-thread parallel region here first
  job <- parallel::mcparallel({
    c(.Call(ffi_max_threads), fit_nig(x, threads = 2L)$loglik,
      ghmix_info()$max_threads)
  })
  res <- parallel::mccollect(job, wait = FALSE, timeout = 60)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job)
  }
  expect_false(is.null(res), label = "the forked child returned")
  expect_identical(res[[1L]][c(1L, 3L)], c(1, 1))
  # one thread gives the same fit, bit for bit
  expect_identical(res[[1L]][[2L]], f2$loglik)
  # the parent keeps its threads
  expect_identical(.Call(ffi_max_threads), max_threads())
  expect_gte(.Call(ffi_max_threads), 2L)
})

test_that("unloading and reloading ghmix with its workers asleep works", {
  skip_on_cran()
  skip_if(max_threads() < 2L, "needs 2 threads")
  # in a fresh R: the workers of the first load must end before its library
  # is unmapped (a worker left asleep in it hung the reloaded pool)
  code <- paste(
    "lib <- dirname(system.file(package = 'ghmix'))",
    "set.seed(1); x <- matrix(rnorm(20000), ncol = 4)",
    "ll <- numeric(3); tasks <- integer(3)",
    "tasks0 <- length(list.files('/proc/self/task'))",
    "for (k in 1:3) {",
    "  library(ghmix, lib.loc = lib)",
    "  ll[k] <- suppressWarnings(fit_nig(x, threads = 2L))$loglik",
    "  unloadNamespace('ghmix')",
    "  tasks[k] <- length(list.files('/proc/self/task')) - tasks0",
    "}",
    "cat('done', identical(ll[1], ll[3]), is.null(getLoadedDLLs()$ghmix),",
    "    tasks, '\\n')",
    sep = "\n"
  )
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)),
    stdout = TRUE, stderr = TRUE, timeout = 120,
    env = paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = ":")))
  ))
  line <- grep("^done", out, value = TRUE)
  expect_length(line, 1L)
  fields <- strsplit(line, " ")[[1L]]
  expect_identical(fields[2:3], c("TRUE", "TRUE"))
  if (file.exists("/proc/self/task")) {
    # as many tasks after each unload as before the first load (OpenBLAS
    # starts its own at start-up): no worker of ours remains
    expect_identical(fields[4:6], rep("0", 3))
  }
})
