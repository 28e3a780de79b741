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
