# Helpers shared by the benchmark scripts in bench/ (sourced by each; not part
# of the package).  Run the scripts from the repository root.

suppressPackageStartupMessages(library(ghmix))

bench_dir <- file.path("bench", "results")
bench_quick <- nzchar(Sys.getenv("GHMIX_BENCH_QUICK"))

# Median elapsed seconds of `reps` calls of f(), after one warm-up call.
time_median <- function(f, reps = 5L, warm_up = TRUE) {
  if (warm_up) f()
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    system.time(f())[["elapsed"]]
  }, numeric(1))
  stats::median(t)
}

# Medians of reps runs of f() after one warm-up call: elapsed and CPU (user
# plus system) seconds.  On a machine shared with other work the CPU time
# of one thread is the fairer per-core measure.
time_both <- function(f, reps) {
  f()
  t <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    s <- system.time(f())
    c(s[["elapsed"]], s[["user.self"]] + s[["sys.self"]])
  }, numeric(2))
  c(elapsed = stats::median(t[1L, ]), cpu = stats::median(t[2L, ]))
}

# TRUE when a peer package can be loaded; otherwise says so and returns FALSE.
have_peer <- function(pkg) {
  ok <- requireNamespace(pkg, quietly = TRUE)
  if (!ok) {
    message(sprintf(
      "skipping %s: not installed (see bench/README.md; R_LIBS=<peer library>)",
      pkg
    ))
  }
  ok
}

# Runs f() in a forked child and returns its value, or the string
# "timeout" after `limit` seconds (the child is then killed).  For peer
# code that can loop in C without checking for interrupts, which
# setTimeLimit() cannot stop.
in_child <- function(f, limit) {
  job <- parallel::mcparallel(f(), silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = limit)
  if (is.null(res)) {
    tools::pskill(job$pid)
    parallel::mccollect(job, wait = TRUE)
    return("timeout")
  }
  res[[1L]]
}

# The Python interpreter that can import normix, or "" (with a message).
normix_python <- function() {
  cands <- c(Sys.getenv("GHMIX_NORMIX_PYTHON"),
             file.path(Sys.getenv("HOME"), ".local", "share", "ghmix-peers",
                       "venv", "bin", "python"))
  cands <- cands[nzchar(cands) & file.exists(cands)]
  for (py in cands) {
    rc <- suppressWarnings(system2(py, c("-c", shQuote("import normix")),
                                   stdout = FALSE, stderr = FALSE))
    if (identical(rc, 0L)) return(py)
  }
  message(paste(
    "skipping normix: no Python with normix found",
    "(set GHMIX_NORMIX_PYTHON; see bench/README.md)"
  ))
  ""
}

# One line describing the machine and the run, for the top of each table.
bench_header <- function(what) {
  load <- tryCatch(
    strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1]][1:3],
    error = function(e) rep("?", 3)
  )
  info <- ghmix_info()
  sprintf(
    paste0(
      "%s. %s; %s; ghmix %s (OpenMP %s, CUDA %s); %s %s, %d cores; ",
      "BLAS %s; load average at the start %s"
    ),
    what, format(Sys.time(), "%Y-%m-%d %H:%M"), R.version.string,
    utils::packageVersion("ghmix"), if (info$openmp) "yes" else "no",
    if (info$cuda) info$cuda_version else "not built",
    Sys.info()[["sysname"]], Sys.info()[["machine"]],
    parallel::detectCores(), basename(extSoftVersion()[["BLAS"]]),
    paste(load, collapse = " ")
  )
}

# A data frame as a markdown table (character columns as they are, numbers
# with `digits` significant digits).
md_table <- function(df, digits = 4L) {
  fmt <- vapply(df, function(col) {
    if (is.numeric(col)) {
      whole <- all(is.na(col) | (col == round(col) & abs(col) < 1e15))
      ifelse(is.na(col), "", if (whole) {
        formatC(col, format = "d", big.mark = ",")
      } else {
        formatC(col, digits = digits, format = "g")
      })
    } else {
      ifelse(is.na(col), "", gsub("|", "\\|", as.character(col),
                                  fixed = TRUE))
    }
  }, character(nrow(df)))
  fmt <- trimws(matrix(fmt, nrow = nrow(df)))
  align <- ifelse(vapply(df, is.numeric, logical(1)), "---:", "---")
  c(
    paste("|", paste(names(df), collapse = " | "), "|"),
    paste("|", paste(align, collapse = " | "), "|"),
    apply(fmt, 1L, function(row) paste("|", paste(row, collapse = " | "), "|"))
  )
}

# Print the markdown lines and write them to bench/results/<name>.md.
write_md <- function(lines, name) {
  dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
  path <- file.path(bench_dir, paste0(name, ".md"))
  cat(lines, sep = "\n")
  cat("\n")
  writeLines(lines, path)
  message("wrote ", path)
  invisible(path)
}

# Open bench/results/<name>.png; close it with grDevices::dev.off().
open_png <- function(name, width = 900, height = 520) {
  dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
  path <- file.path(bench_dir, paste0(name, ".png"))
  grDevices::png(path, width = width, height = height, res = 96)
  message("writing ", path)
  invisible(path)
}

# A dot chart of `values` on a log scale, one row per label, ghmix's in
# blue and the others in grey, each point labelled with its value.
dot_chart <- function(values, labels, xlab, main) {
  ok <- is.finite(values) & values > 0
  values <- values[ok]
  labels <- labels[ok]
  k <- length(values)
  y <- rev(seq_len(k))
  cols <- ifelse(grepl("ghmix|log_besselK|^[dpqr]gh|^[dpqr]gig|fit_|gig_",
                       labels), "#4575b4", "grey45")
  op <- graphics::par(mar = c(4.5, 1 + 0.32 * max(nchar(labels)), 3, 1))
  on.exit(graphics::par(op))
  xr <- range(values) * c(0.7, 2.5)
  graphics::plot(values, y, log = "x", xlim = xr, ylim = c(0.5, k + 0.5),
                 yaxt = "n", ylab = "", xlab = xlab, main = main,
                 pch = 19, col = cols)
  graphics::abline(h = y, col = "grey90", lty = 3)
  graphics::points(values, y, pch = 19, col = cols)
  graphics::text(values, y, formatC(values, digits = 3, format = "g"),
                 pos = 4, cex = 0.7)
  graphics::axis(2, at = y, labels = labels, las = 1, cex.axis = 0.7,
                 tick = FALSE)
}

# Simulated GH rows X = mu + Y gamma + sqrt(Y) Sigma^(1/2) Z from the
# definition (rgig and rnorm), with random mu, gamma and Sigma.
simulate_mixture <- function(n, d, p, a, b, seed) {
  set.seed(seed)
  a_mat <- matrix(stats::rnorm(d * d), d, d)
  sigma <- crossprod(a_mat) / d + diag(d)
  mu <- stats::rnorm(d)
  gamma <- stats::rnorm(d) / 2
  y <- rgig(n, p, a, b)
  z <- matrix(stats::rnorm(n * d), n, d) %*% chol(sigma)
  sweep(outer(y, gamma) + sqrt(y) * z, 2L, mu, "+")
}

# The G = 3 NIG mixture of bench/mixture.R and bench/mixghd.R: n = 5000
# rows in d = 5 (seeded), three well separated clusters with their own skew.
mixture_bench_rows <- function(n = 5000L, d = 5L) {
  set.seed(1)
  centres <- rbind(rep(-4, d), rep(0, d), rep(4, d))
  centres[2L, 1L] <- 6
  labels <- sample(3L, n, replace = TRUE)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("x", seq_len(d))))
  for (k in 1:3) {
    i <- which(labels == k)
    x[i, ] <- ghmix::rgh(length(i), mu = centres[k, ],
                         gamma = rep(0.5, d) * (k - 2), sigma = diag(d),
                         p = -0.5, a = 1, b = 1)
  }
  x
}

# ---- helpers of bench/panel.R (peers in a fresh R, a competing load, GH
# ---- mixtures simulated from the definition, mixture log-likelihoods)

# Runs fun(x, ...) in a fresh R process up to `reps` times (each after
# set.seed(seed)), starting another run only while the runs so far plus
# one more of the last one's length fit in `budget` seconds; the process
# is killed (by its id) when its first run has not ended `limit` seconds
# after it began (R's start-up and the loading of x not counted).
# Returns list(status = "ok", "timeout" or "error", seconds = the runs'
# elapsed times, value = the last run's value, message).  A fresh process
# rather than in_child()'s fork: after ghmix has run an OpenMP region, an
# OpenMP region in a forked child waits forever for the parent's pool
# threads (libgomp), and the peer mixture is built with OpenMP
# (Armadillo), so a fork could turn a peer's fit into a false timeout.
# `x` goes through an .rds file (pass `x_file` to reuse one), fun's other
# arguments through `args`; fun is serialised, so it may call only base R
# and packages (pkg::name).
in_rscript <- function(fun, x = NULL, args = list(), limit = 600,
                       reps = 1L, budget = limit, seed = 1L,
                       x_file = NULL) {
  dir <- tempfile("ghmix-bench-")
  dir.create(dir)
  on.exit({
    rscript_kill(dir)
    unlink(dir, recursive = TRUE)
  })
  if (is.null(x_file)) {
    x_file <- file.path(dir, "x.rds")
    saveRDS(x, x_file, compress = FALSE)
  }
  job <- list(fun = fun, x_file = x_file, args = args, reps = reps,
              budget = budget, seed = seed, dir = dir)
  saveRDS(c(job, runner = rscript_runner), file.path(dir, "job.rds"))
  script <- file.path(dir, "run.R")
  writeLines("job <- readRDS(commandArgs(TRUE)[[1L]]); job$runner(job)",
             script)
  system2(file.path(R.home("bin"), "Rscript"),
          c("--vanilla", script, file.path(dir, "job.rds")),
          stdout = FALSE, stderr = file.path(dir, "stderr"), wait = FALSE)
  status <- rscript_wait(dir, limit, budget)
  res <- if (file.exists(file.path(dir, "out.rds"))) {
    readRDS(file.path(dir, "out.rds"))
  }
  if (!is.null(res$error)) status <- "error"
  if (status == "ok" && !length(res$seconds)) status <- "error"
  msg <- switch(status,
    ok = "",
    timeout = sprintf("no fit within %.0f s", limit),
    error = res$error %||% paste(utils::tail(
      readLines(file.path(dir, "stderr"), warn = FALSE), 3L
    ), collapse = " ")
  )
  ok <- status == "ok"
  list(status = status, seconds = if (ok) res$seconds else numeric(0),
       value = if (ok) res$value, message = msg)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# The id in_rscript()'s child wrote to `dir`, or NA.
rscript_pid <- function(dir) {
  f <- file.path(dir, "pid")
  pid <- if (file.exists(f)) suppressWarnings(as.integer(readLines(f))[1L])
  if (length(pid)) pid else NA_integer_
}

# Kills in_rscript()'s child (by the id it wrote) if it still runs.
rscript_kill <- function(dir) {
  pid <- rscript_pid(dir)
  if (!is.na(pid) && tools::pskill(pid, 0L)) {
    tools::pskill(pid, tools::SIGKILL)
  }
}

# Waits for in_rscript()'s child in `dir`: "ok" when it wrote `done`,
# "error" when it is gone without, "timeout" (after killing it) when its
# first run began more than `limit` seconds ago and has not ended, "ok"
# again (after killing it) when its later runs go on beyond `limit` plus
# `budget` (its saved runs count).
rscript_wait <- function(dir, limit, budget) {
  repeat {
    Sys.sleep(0.1)
    state <- rscript_state(dir, limit, budget)
    if (!is.null(state)) return(state)
  }
}

# One look at in_rscript()'s child for rscript_wait(): its status, or NULL
# while it runs within its time.
rscript_state <- function(dir, limit, budget) {
  if (file.exists(file.path(dir, "done"))) return("ok")
  pid <- rscript_pid(dir)
  if (is.na(pid)) return(NULL)
  saved <- file.exists(file.path(dir, "out.rds"))
  if (rscript_spent(dir) > limit + saved * budget) {
    rscript_kill(dir)
    return(if (saved) "ok" else "timeout")
  }
  if (tools::pskill(pid, 0L)) return(NULL)
  Sys.sleep(0.2) # it may have ended between the two looks
  if (file.exists(file.path(dir, "done"))) "ok" else "error"
}

# Seconds since in_rscript()'s child began its first run (0 before).
rscript_spent <- function(dir) {
  f <- file.path(dir, "began")
  if (!file.exists(f)) return(0)
  began <- suppressWarnings(as.numeric(readLines(f, warn = FALSE))[1L])
  if (is.na(began)) 0 else as.numeric(Sys.time()) - began
}

# The loop in_rscript()'s child runs (serialised with the job, so it uses
# base R only); it saves what it has after every run and writes `done`
# at the end.
rscript_runner <- function(job) {
  mark <- function(name, text = "") {
    writeLines(text, file.path(job$dir, paste0(name, ".tmp")))
    file.rename(file.path(job$dir, paste0(name, ".tmp")),
                file.path(job$dir, name))
  }
  mark("pid", as.character(Sys.getpid()))
  x <- readRDS(job$x_file)
  res <- list(seconds = numeric(0), value = NULL, error = NULL)
  out <- file.path(job$dir, "out.rds")
  save <- function() {
    saveRDS(res, paste0(out, ".tmp"))
    file.rename(paste0(out, ".tmp"), out)
  }
  for (i in seq_len(job$reps)) {
    set.seed(job$seed)
    gc(FALSE)
    if (i == 1L) mark("began", format(as.numeric(Sys.time()), digits = 15))
    t0 <- proc.time()[["elapsed"]]
    val <- tryCatch(suppressWarnings(do.call(job$fun, c(list(x), job$args))),
                    error = function(e) e)
    secs <- proc.time()[["elapsed"]] - t0
    if (inherits(val, "error")) {
      res$error <- conditionMessage(val)
      break
    }
    res$seconds <- c(res$seconds, secs)
    res$value <- val
    save()
    if (sum(res$seconds) + secs > job$budget) break
  }
  save()
  mark("done")
  invisible()
}

# Starts k processes that keep a core busy each (a shell loop, which ends
# by itself once this R process is gone); returns their ids for
# busy_load_stop().
busy_load_start <- function(k) {
  if (k < 1L) return(integer(0))
  loop <- sprintf(paste0(
    "while kill -0 %d 2>/dev/null; do i=0; ",
    "while [ $i -lt 200000 ]; do i=$((i+1)); done; done"
  ), Sys.getpid())
  pids <- vapply(seq_len(k), function(i) {
    as.integer(system(sprintf("sh -c '%s' >/dev/null 2>&1 & echo $!", loop),
                      intern = TRUE))
  }, integer(1))
  Sys.sleep(0.5) # let the scheduler see them
  pids
}

# Stops the processes of busy_load_start() (by their ids) and waits until
# they are gone.
busy_load_stop <- function(pids) {
  for (pid in pids) tools::pskill(pid, tools::SIGTERM)
  for (i in 1:50) {
    alive <- vapply(pids, function(pid) tools::pskill(pid, 0L), logical(1))
    if (!any(alive)) break
    Sys.sleep(0.1)
  }
  invisible()
}

# The log-likelihood at the rows x of a GH mixture given as
# list(pi = proportions, comps = list of list(mu, gamma, sigma, p, a, b)),
# by dgh(log = TRUE) and a log-sum-exp over the components.
gh_mixture_loglik <- function(par, x) {
  logd <- vapply(seq_along(par$comps), function(k) {
    cp <- par$comps[[k]]
    log(par$pi[[k]]) + dgh(x, cp$mu, cp$gamma, cp$sigma, cp$p, cp$a, cp$b,
                           log = TRUE)
  }, numeric(nrow(x)))
  logd <- matrix(logd, nrow(x))
  top <- apply(logd, 1L, max)
  sum(top + log(rowSums(exp(logd - top))))
}

# The log-likelihood of a Gaussian mixture list(pi, comps = list of
# list(mu, sigma)) at x, in plain R (Cholesky factors).
gaussian_mixture_loglik <- function(par, x) {
  d <- ncol(x)
  logd <- vapply(seq_along(par$comps), function(k) {
    cp <- par$comps[[k]]
    r <- chol(cp$sigma)
    z <- backsolve(r, t(x) - cp$mu, transpose = TRUE)
    log(par$pi[[k]]) - 0.5 * colSums(z^2) - sum(log(diag(r))) -
      0.5 * d * log(2 * pi)
  }, numeric(nrow(x)))
  logd <- matrix(logd, nrow(x))
  top <- apply(logd, 1L, max)
  sum(top + log(rowSums(exp(logd - top))))
}

# MGHD()'s parameters (its fit's gpar slot) as a GH mixture: its
# component (mu, alpha, sigma, cpl = (omega, lambda)) is ghmix's GH with
# gamma = alpha, p = lambda and a = b = omega.
mixghd_params <- function(gp) {
  g <- length(gp) - 1L
  list(pi = gp$pi, comps = lapply(gp[seq_len(g)], function(cp) {
    list(mu = cp$mu, gamma = cp$alpha, sigma = cp$sigma, p = cp$cpl[[2L]],
         a = cp$cpl[[1L]], b = cp$cpl[[1L]])
  }))
}

# G well spread centres in d dimensions whose closest two are `delta`
# apart: the farthest-point choice among 100 G normal draws, rescaled.
spread_centres <- function(g, d, delta) {
  cand <- matrix(stats::rnorm(100L * g * d), ncol = d)
  pick <- 1L
  dist <- sqrt(colSums((t(cand) - cand[1L, ])^2))
  while (length(pick) < g) {
    nxt <- which.max(dist)
    pick <- c(pick, nxt)
    dist <- pmin(dist, sqrt(colSums((t(cand) - cand[nxt, ])^2)))
  }
  centres <- cand[pick, , drop = FALSE]
  gaps <- stats::dist(centres)
  centres * delta / min(gaps)
}

# The mixing law of each simulated family, with E Y = 1: NIG (inverse
# Gaussian, p = -1/2, a = b), VG (gamma, b = 0), skew-t (inverse gamma,
# a = 0; heavy: 3 degrees of freedom, light: 20), GH (p = 1, a = b) and
# the Gaussian (Y = 1, no skewness).
panel_mixing_law <- function(family, tail) {
  if (family == "gaussian") return(NULL)
  heavy <- identical(tail, "heavy")
  # a = b for NIG and GH, the shape for VG, the degrees of freedom for t
  k <- switch(family, nig = if (heavy) 0.5 else 8,
              vg = if (heavy) 0.75 else 6, skewt = if (heavy) 3 else 20,
              gh = if (heavy) 0.5 else 4, stop("unknown family ", family))
  switch(family,
    nig = list(p = -0.5, a = k, b = k),
    vg = list(p = k, a = 2 * k, b = 0),
    skewt = list(p = -k / 2, a = 0, b = k - 2),
    gh = list(p = 1, a = k, b = k)
  )
}

# n rows of a G-component mixture of `family` laws in d dimensions, from
# the definition (rgh, or rnorm for the Gaussian): centres whose closest
# two are `delta` apart (spread_centres()), random Sigma_k with
# eigenvalues in [0.5, 2], skewness gamma_k of length `skew` in a random
# direction, proportions from 1 to 2 relative to each other.  Returns
# list(x, labels, truth) with truth as gh_mixture_loglik() takes it
# (gaussian_mixture_loglik() for the Gaussian).
simulate_panel_mixture <- function(n, d, g, family, delta, tail = "heavy",
                                   skew = 1, seed = 1L) {
  set.seed(seed)
  law <- panel_mixing_law(family, tail)
  centres <- spread_centres(g, d, delta)
  props <- seq(1, 2, length.out = g)
  props <- props / sum(props)
  comps <- lapply(seq_len(g), function(k) {
    q <- qr.Q(qr(matrix(stats::rnorm(d * d), d)))
    sigma <- q %*% (exp(stats::runif(d, log(0.5), log(2))) * t(q))
    sigma <- (sigma + t(sigma)) / 2
    dir <- stats::rnorm(d)
    gamma <- if (is.null(law)) numeric(d) else skew * dir / sqrt(sum(dir^2))
    c(list(mu = centres[k, ], gamma = gamma, sigma = sigma), law)
  })
  labels <- sample.int(g, n, replace = TRUE, prob = props)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("x", seq_len(d))))
  for (k in seq_len(g)) {
    i <- which(labels == k)
    cp <- comps[[k]]
    x[i, ] <- if (is.null(law)) {
      sweep(matrix(stats::rnorm(length(i) * d), ncol = d) %*% chol(cp$sigma),
            2L, cp$mu, "+")
    } else {
      rgh(length(i), cp$mu, cp$gamma, cp$sigma, cp$p, cp$a, cp$b)
    }
  }
  list(x = x, labels = labels, truth = list(pi = props, comps = comps))
}

# The orders and arguments of a GH E-step's posterior GIG(p - d/2, a + G,
# b + Q): nu = p - d/2 with p uniform in [-3, 3] and d drawn from
# {1, 2, 5, 10, 20, 50}, x = sqrt((a + G) (b + Q)) log-uniform in
# [0.1, 100] (set.seed(20240602)), n points, each with the log K kernel's
# region (src/core/bessel.c): |nu| >= 16 (Debye), half-integer nu (closed
# form), else x <= 2 (Temme's series), 2 < x < 100 (CF2), x >= 100
# (Hankel).
bench_estep_points <- function(n) {
  set.seed(20240602)
  d_e <- sample(c(1, 2, 5, 10, 20, 50), n, replace = TRUE)
  nu <- stats::runif(n, -3, 3) - d_e / 2
  x <- 10^stats::runif(n, -1, 2)
  region <- ifelse(
    abs(nu) >= 16, "|nu| >= 16 (Debye)",
    ifelse(abs(nu) - 0.5 == floor(abs(nu) - 0.5), "half-integer nu",
           ifelse(x <= 2, "x <= 2 (series)",
                  ifelse(x < 100, "2 < x < 100 (CF2)", "x >= 100 (Hankel)")))
  )
  list(x = x, nu = nu, region = region)
}
