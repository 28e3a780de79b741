# The machinery of the bad-input catalogue (test-bad-input.R): every call
# runs in a child process with a time limit, so that a hang or a crash is a
# failing case and not the end of the test run.
#
# A case (bad_case()) has a label, `expr` (a quoted call), `check` (a
# function of the child's record that returns the problems it finds, none
# when the case passes) and how to run it. The record is
#   list(status = "value" | "error" | "hang" | "crash", value = summary,
#        error = list(class, message), warnings = list of list(class,
#        message), elapsed)
# with `value` a summary of the result (bad_summary()), never the result
# itself when that is large.
#
# Cases with the default settings run up to 100 to a forked child (a fork
# costs ~30 ms); if such a child hangs or dies, its cases run again one per
# child. Cases with their own time limit (the samplers), `alone` cases and
# `fresh` cases run one per child. Forked children (parallel::mcparallel)
# inherit the objects of the test file and run with one thread: GNU OpenMP
# is not fork-safe, and a child forked from a process that has run a
# parallel region with more threads hangs in its first one. Cases that need
# more threads, and cases that need a memory limit, run in a fresh R
# process (`fresh = TRUE`, with the objects they use in `objects`).
bad_can_fork <- function() .Platform$OS.type == "unix"

# The library ghmix was loaded from, for fresh processes.
bad_lib <- function() {
  path <- getNamespaceInfo("ghmix", "path")
  if (file.exists(file.path(path, "Meta", "package.rds"))) dirname(path) else
    NULL
}

# What comes back from a child: type, class, length, attributes, counts of
# NA, NaN, +-Inf and, when small, the value.
bad_summary <- function(v) {
  small <- utils::object.size(v) < 4e6
  atts <- attributes(v)
  out <- list(
    type = typeof(v), class = class(v), length = length(v),
    attr_names = names(atts),
    attributes = if (utils::object.size(atts) < 1e6) atts else NULL,
    value = if (small) v else NULL
  )
  if (is.atomic(v) && is.numeric(v)) {
    x <- as.double(v)
    out$n_na <- sum(is.na(x) & !is.nan(x))
    out$n_nan <- sum(is.nan(x))
    out$n_posinf <- sum(x == Inf, na.rm = TRUE)
    out$n_neginf <- sum(x == -Inf, na.rm = TRUE)
    out$head <- utils::head(x, 20L)
  }
  out
}

# Evaluates expr in env (in the child): the record without the status of
# the process.
bad_child <- function(expr, env) {
  if ("ghmix" %in% loadedNamespaces()) {
    ghmix::ghmix_threads(1L)
  }
  # a null device, opened only if the case plots (opening one costs 0.1 s)
  options(device = function(...) grDevices::pdf(NULL))
  warns <- list()
  t0 <- proc.time()[[3L]]
  res <- withCallingHandlers(
    tryCatch(
      {
        utils::capture.output(v <- eval(expr, env))
        list(status = "value", value = bad_summary(v))
      },
      error = function(e) {
        list(status = "error",
             error = list(class = class(e), message = conditionMessage(e)))
      }
    ),
    warning = function(w) {
      warns[[length(warns) + 1L]] <<- list(class = class(w),
                                            message = conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) invokeRestart("muffleMessage")
  )
  res$warnings <- warns
  res$elapsed <- proc.time()[[3L]] - t0
  res
}

bad_fork <- function(expr, env, timeout) {
  job <- parallel::mcparallel(bad_child(expr, env), silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = timeout)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(parallel::mccollect(job, wait = TRUE))
    return(list(status = "hang", timeout = timeout))
  }
  r <- res[[1L]]
  if (is.null(r) || inherits(r, "try-error")) {
    return(list(status = "crash", message = as.character(r)))
  }
  r
}

# Several cases in one forked child (forking costs ~30 ms a case): NULL when
# the child hangs or dies, and then each case runs on its own.
bad_fork_batch <- function(exprs, env, timeout) {
  job <- parallel::mcparallel(lapply(exprs, bad_child, env = env),
                              silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = timeout)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(parallel::mccollect(job, wait = TRUE))
    return(NULL)
  }
  r <- res[[1L]]
  if (!is.list(r) || length(r) != length(exprs)) NULL else r
}

# In a fresh Rscript (killed after `timeout` s; address space limited to
# mem_kb KiB when given). `objects`: a named list of what expr uses.
bad_fresh <- function(expr, objects, timeout, mem_kb = NULL) {
  dir <- tempfile("bad_input")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  child <- bad_child
  summ <- bad_summary
  environment(child) <- environment(summ) <- globalenv()
  saveRDS(list(expr = expr, objects = objects, lib = bad_lib(),
               child = child, summary = summ),
          file.path(dir, "in.rds"))
  writeLines(c(
    "a <- readRDS(commandArgs(TRUE)[[1L]])",
    ".libPaths(c(a$lib, .libPaths()))",
    "suppressPackageStartupMessages(library(ghmix))",
    "bad_summary <- a$summary",
    "env <- list2env(a$objects, parent = globalenv())",
    "saveRDS(a$child(a$expr, env), commandArgs(TRUE)[[2L]])"
  ), file.path(dir, "run.R"))
  rscript <- file.path(R.home("bin"), "Rscript")
  # (AddressSanitizer reserves terabytes of address space for its shadow
  # memory: no address-space limit there)
  if (grepl("asan", Sys.getenv("LD_PRELOAD"))) mem_kb <- NULL
  cmd <- sprintf(
    "%s timeout -s KILL %d %s --vanilla %s %s %s",
    if (is.null(mem_kb)) "" else sprintf("ulimit -v %d;", as.integer(mem_kb)),
    as.integer(timeout), shQuote(rscript), shQuote(file.path(dir, "run.R")),
    shQuote(file.path(dir, "in.rds")), shQuote(file.path(dir, "out.rds"))
  )
  rc <- system2("bash", c("-c", shQuote(cmd)), stdout = FALSE, stderr = FALSE)
  out <- file.path(dir, "out.rds")
  if (file.exists(out)) {
    return(readRDS(out))
  }
  list(status = if (rc %in% c(124L, 137L)) "hang" else "crash", rc = rc,
       timeout = timeout)
}

bad_eval <- function(case, env) {
  if (isTRUE(case$fresh)) {
    bad_fresh(case$expr, case$objects, case$timeout, case$mem_kb)
  } else {
    bad_fork(case$expr, env, case$timeout)
  }
}

# The records of a list of cases: those with the default settings in
# batches of up to 100 per child, the others (fresh, alone, their own time
# limit) one per child.
bad_eval_cases <- function(cases, env) {
  out <- vector("list", length(cases))
  batchable <- vapply(cases, function(cs) {
    !cs$fresh && !cs$alone && cs$timeout == 10
  }, NA)
  idx <- which(batchable)
  for (chunk in split(idx, ceiling(seq_along(idx) / 100))) {
    recs <- bad_fork_batch(lapply(cases[chunk], `[[`, "expr"), env,
                           min(60, 10 * length(chunk)))
    if (!is.null(recs)) out[chunk] <- recs
  }
  for (i in which(vapply(out, is.null, NA))) {
    out[[i]] <- bad_eval(cases[[i]], env)
  }
  out
}

# Building the table ----------------------------------------------------------

bad_cases <- new.env(parent = emptyenv())
bad_cases$list <- list()

# Adds a case; expr is quoted (use bquote() to splice values in).
# Adds a case; expr is quoted (use bquote() to splice values in). Cases are
# reported in groups named by the function the label starts with. `alone`:
# run in a child of its own (cases that change the state of the session).
# `open`: a known open problem (why, and where it is tracked): the case
# must still fail (its test is then skipped with that reason) and fails
# once it passes, so that the mark is removed.
bad_case <- function(label, expr, check, timeout = 10, fresh = FALSE,
                     objects = list(), mem_kb = NULL, alone = FALSE,
                     open = NULL) {
  bad_cases$list[[length(bad_cases$list) + 1L]] <- list(
    label = label, expr = expr, check = check, timeout = timeout,
    fresh = fresh, objects = objects, mem_kb = mem_kb, alone = alone,
    open = open, group = sub("[( <].*$", "", label)
  )
  invisible()
}

# A short text for a value, for labels.
bad_label <- function(v) {
  if (is.null(v)) {
    return("NULL")
  }
  if (is.data.frame(v) || is.matrix(v)) {
    kind <- if (is.matrix(v)) paste(typeof(v), "matrix") else "data frame"
    return(sprintf("<%d x %d %s>", nrow(v), ncol(v), kind))
  }
  txt <- paste(deparse(v, width.cutoff = 60L, nlines = 1L), collapse = "")
  if (bad_rounded(v, txt)) {
    txt <- deparse(v, control = "digits17")
  }
  if (nchar(txt) > 50L) paste0(substr(txt, 1L, 47L), "...") else txt
}

# TRUE when the 15-digit text of a number is another number (1 + 1e-15).
bad_rounded <- function(v, txt) {
  is.double(v) && length(v) == 1L && !is.na(v) &&
    !identical(eval(parse(text = txt)), v)
}

# The call fun(args) with the value of args[[arg]] spliced in; values
# that deparse badly (large vectors) are kept in objects by the caller.
bad_call <- function(fun, args) {
  as.call(c(list(as.name(fun)), args))
}

# Checks: each returns the problems it finds (character; empty when the
# case passes) ----------------------------------------------------------------

bad_warning_messages <- function(r) {
  vapply(r$warnings, `[[`, "", "message")
}

bad_describe <- function(r) {
  switch(r$status,
    error = sprintf("error [%s]: %s", paste(r$error$class, collapse = ", "),
                    r$error$message),
    value = sprintf("value of type %s, length %d%s", r$value$type,
                    r$value$length,
                    if (length(r$warnings)) {
                      paste0("; warnings: ",
                             paste(bad_warning_messages(r), collapse = " | "))
                    } else {
                      ""
                    }),
    hang = sprintf("no result within %d s (killed)", r$timeout),
    crash = "the process died"
  )
}

# Never a hang or a crash.
check_returns <- function(r) {
  if (r$status %in% c("value", "error")) character() else
    sprintf("expected a result or an error; got %s", bad_describe(r))
}

# A classed error (`class`, by default ghmix_error_argument) whose message
# names `arg` in backquotes (unless arg is NULL) and does not say "internal
# error".
check_arg_error <- function(arg, class = "ghmix_error_argument") {
  force(arg)
  force(class)
  function(r) {
    msg <- if (r$status == "error") r$error$message else ""
    names_arg <- is.null(arg) ||
      grepl(paste0("`", arg, "`"), msg, fixed = TRUE) ||
      grepl(paste0(arg, " = "), msg, fixed = TRUE)
    ok <- r$status == "error" && class %in% r$error$class && names_arg &&
      !grepl("internal error", msg, fixed = TRUE)
    if (ok) character() else sprintf(
      "expected an error of class %s%s; got %s", class,
      if (is.null(arg)) "" else sprintf(" naming `%s`", arg), bad_describe(r)
    )
  }
}

# A classed ghmix error of the given class (no argument named).
check_classed_error <- function(class) check_arg_error(NULL, class)

# Any error whose message matches `pattern` (base R's own errors, e.g.
# from print.default() or set.seed(), where ghmix passes the argument on).
check_error_mentions <- function(pattern) {
  force(pattern)
  function(r) {
    if (r$status == "error" && grepl(pattern, r$error$message)) {
      character()
    } else {
      sprintf("expected an error mentioning /%s/; got %s", pattern,
              bad_describe(r))
    }
  }
}

# A value, with no warning unless `warning` (a regular expression) is given,
# then that warning (and no other; NA: any warnings or none); and test(value
# summary) TRUE.
check_value <- function(test = NULL, warning = NULL, what = "") {
  force(test)
  force(warning)
  force(what)
  function(r) {
    if (r$status != "value") {
      return(sprintf("expected a value%s; got %s",
                     if (nzchar(what)) paste0(" (", what, ")") else "",
                     bad_describe(r)))
    }
    out <- bad_warning_problems(bad_warning_messages(r), warning)
    if (!is.null(test) &&
          !isTRUE(tryCatch(test(r$value), error = function(e) FALSE))) {
      out <- c(out, sprintf(
        "the value is wrong%s: %s",
        if (nzchar(what)) paste0(" (expected ", what, ")") else "",
        bad_value_text(r$value)
      ))
    }
    out
  }
}

bad_warning_problems <- function(msgs, warning) {
  if (identical(warning, NA)) {
    return(character())
  }
  if (is.null(warning)) {
    if (length(msgs) == 0L) character() else
      sprintf("expected no warning; got: %s", paste(msgs, collapse = " | "))
  } else if (length(msgs) && all(grepl(warning, msgs))) {
    character()
  } else {
    sprintf("expected the warning /%s/; got: %s", warning,
            if (length(msgs)) paste(msgs, collapse = " | ") else "none")
  }
}

# Either of two checks.
check_either <- function(c1, c2) {
  function(r) {
    p1 <- c1(r)
    if (!length(p1)) {
      return(character())
    }
    p2 <- c2(r)
    if (!length(p2)) character() else paste(p1, "; or:", p2)
  }
}

bad_value_text <- function(s) {
  v <- if (!is.null(s$head)) s$head else s$value
  txt <- paste(utils::capture.output(utils::str(v, give.attr = FALSE,
                                                vec.len = 4L)),
               collapse = " ")
  sprintf("%s%s", substr(txt, 1L, 200L),
          if (length(s$attr_names)) {
            paste0(" [attributes: ", paste(s$attr_names, collapse = ", "),
                   "]")
          } else {
            ""
          })
}

# Value predicates (on the summary s) ------------------------------------------

# Doubles equal (to a relative tolerance) to want, NA/NaN in place.
is_close <- function(want, tol = 1e-10) {
  force(want)
  force(tol)
  function(s) {
    got <- s$value
    if (!is.double(got) || length(got) != length(want)) {
      return(FALSE)
    }
    got <- as.double(got)
    want <- as.double(want)
    if (!identical(is.na(got), is.na(want)) ||
          !identical(is.nan(got), is.nan(want))) {
      return(FALSE)
    }
    ok <- !is.na(want)
    same <- got[ok] == want[ok]
    rel <- abs(got[ok] - want[ok]) / pmax(abs(want[ok]), .Machine$double.xmin)
    all(same | rel <= tol)
  }
}

# All NA (not NaN), all NaN, length 0.
is_all_na <- function(s) s$length > 0L && s$n_na == s$length
is_all_nan <- function(s) s$length > 0L && s$n_nan == s$length
is_empty_double <- function(s) s$type == "double" && s$length == 0L
# (no NA or NaN in a numeric result; any other result passes)
is_no_na <- function(s) is.null(s$n_na) || s$n_na + s$n_nan == 0L
is_true_value <- function(s) isTRUE(s$value)

# The attributes `want` exactly (NULL: none).
has_attributes <- function(want) {
  force(want)
  function(s) identical(s$attributes, want)
}

# A finite double no larger than `bound` (to rounding).
is_at_most <- function(bound) {
  force(bound)
  function(s) {
    is_finite_double(s) && all(s$value <= bound + 1e-12 * abs(bound))
  }
}

is_finite_double <- function(s) {
  s$type == "double" && s$length > 0L && s$n_na + s$n_nan + s$n_posinf +
    s$n_neginf == 0L
}

# Several predicates at once.
all_of <- function(...) {
  tests <- list(...)
  function(s) all(vapply(tests, function(t) isTRUE(t(s)), NA))
}

# Independent references ------------------------------------------------------

# log K_{1/2}(x) = log(sqrt(pi / (2x)) e^-x) (DLMF 10.39.2), from log x.
ref_logk_half <- function(lx) 0.5 * (log(pi / 2) - lx) - exp(lx)

# The GIG(+-1/2, a, b) log density in closed form (K_{1/2} as above), in
# logs throughout so that a, b, x anywhere in the doubles are exact; the
# exponent w - (a x + b/x)/2 as -(sqrt(a x) - sqrt(b/x))^2 / 2, which does
# not cancel.
ref_gig_half_logpdf <- function(x, p, a, b) {
  lw <- 0.5 * (log(a) + log(b))
  (p / 2) * (log(a) - log(b)) - log(2) - 0.5 * log(pi / 2) + 0.5 * lw +
    (p - 1) * log(x) - 0.5 * (sqrt(a * x) - sqrt(b / x))^2
}

# log(K_1(z) e^z) from log z: base R's besselK() in between, K_1(z) ~ 1/z
# for tiny z (DLMF 10.30.2) and the large-argument expansion (DLMF 10.40.2)
# for large z.
ref_log_k1_scaled <- function(lz) {
  z <- exp(lz)
  if (lz < -200) {
    return(-lz + z)
  }
  if (z > 1e5) {
    return(0.5 * (log(pi / 2) - lz) + log1p(3 / (8 * z) - 15 / (128 * z^2)))
  }
  log(besselK(z, 1, expon.scaled = TRUE))
}

# The NIG log density (p = -1/2) of ghmix's parametrisation, from the
# classical form alpha delta K_1(alpha r) / (pi r) exp(delta g0 + beta y)
# (Barndorff-Nielsen 1977) with beta = gamma / sigma^2, g0 = sqrt(a) / sigma
# (= sqrt(alpha^2 - beta^2)), delta = sqrt(b) sigma, y = x - mu,
# r = sqrt(delta^2 + y^2). The exponent -alpha r + delta g0 + beta y is
# taken without cancellation: (alpha r)^2 - (delta g0 + beta y)^2 =
# (g0 y - beta delta)^2; and scaled by m = max(|y|, delta) against
# overflow.
ref_nig_logpdf <- function(x, mu = 0, gamma = 0, sigma = 1, a = 1, b = 1) {
  y <- x - mu
  beta <- gamma / sigma^2
  g0 <- sqrt(a) / sigma
  alpha <- if (abs(beta) > 1e150) abs(beta) * sqrt(1 + (g0 / beta)^2) else
    sqrt(g0^2 + beta^2)
  delta <- sqrt(b) * sigma
  m <- max(abs(y), delta)
  yy <- y / m
  dd <- delta / m
  rr <- sqrt(yy^2 + dd^2)
  tt <- dd * g0 + beta * yy
  num <- g0 * yy - beta * dd
  lead <- if (tt > 0) -(num * (num / (alpha * rr + tt))) * m else
    -m * (alpha * rr - tt)
  lz <- log(alpha) + log(m) + log(rr)
  log(alpha) + log(delta) - log(pi) - log(m) - log(rr) +
    ref_log_k1_scaled(lz) + lead
}

# The univariate GH log density from its formula (?GH) with base R's
# besselK(), for moderate parameters; a = 0 (p < 0) and A = 0 by the
# small-argument form K_nu(z) ~ Gamma(nu) / 2 (2 / z)^nu (DLMF 10.30.2).
ref_gh_logpdf <- function(x, mu = 0, gamma = 0, sigma = 1, p = -0.5, a = 1,
                          b = 1) {
  s <- sigma^2
  q_form <- (x - mu)^2 / s
  b_form <- (x - mu) * gamma / s
  a_form <- a + gamma^2 / s
  q <- p - 0.5
  u <- sqrt(a_form * (b + q_form))
  lc <- if (a == 0) {
    (p + 1) * log(2) - p * log(b) - lgamma(-p)
  } else {
    w <- sqrt(a * b)
    (p / 2) * (log(a) - log(b)) - (log(besselK(w, p, TRUE)) - w)
  }
  lk <- if (a_form == 0) {
    lgamma(-q) + (-q - 1) * log(2) + q * log(b + q_form)
  } else {
    (q / 2) * (log(b + q_form) - log(a_form)) + log(besselK(u, q, TRUE)) - u
  }
  lc - 0.5 * log(2 * pi) - log(sigma) + b_form + lk
}

# Running and reporting -------------------------------------------------------

# pass, FAIL, or OPEN (a known open case that fails as expected)
bad_result_word <- function(problems, open) {
  if (!length(problems)) "pass" else if (is.null(open)) "FAIL" else "OPEN"
}

# Runs the cases, one test_that() block per group with one expectation per
# case; with GHMIX_BAD_INPUT_REPORT set to a path, writes a tab-separated
# line per case there (label, status of the process, pass/FAIL, what came
# back, seconds).
bad_run_all <- function(env) {
  report <- Sys.getenv("GHMIX_BAD_INPUT_REPORT", "")
  cases <- bad_cases$list
  groups <- vapply(cases, `[[`, "", "group")
  rows <- character()
  for (g in unique(groups)) {
    idx <- which(groups == g)
    recs <- bad_eval_cases(cases[idx], env)
    problems <- lapply(seq_along(idx), function(k) {
      r <- recs[[k]]
      c(check_returns(r), if (r$status %in% c("value", "error")) {
        cases[[idx[k]]]$check(r)
      })
    })
    test_that(sprintf("bad input: %s", g), {
      still_open <- character()
      for (k in seq_along(idx)) {
        case <- cases[[idx[k]]]
        failed <- length(problems[[k]]) > 0L
        if (is.null(case$open)) {
          expect(!failed, paste0(case$label, ":\n  ",
                                 paste(problems[[k]], collapse = "\n  ")))
        } else {
          expect(failed, paste0(case$label, ": passes now; remove `open`"))
          if (failed) still_open <- c(still_open, case$open)
        }
      }
      if (length(still_open)) {
        skip(paste("known open:", paste(still_open, collapse = "; ")))
      }
    })
    if (nzchar(report)) {
      rows <- c(rows, vapply(seq_along(idx), function(k) {
        r <- recs[[k]]
        paste(
          gsub("\t", " ", cases[[idx[k]]]$label), r$status,
          bad_result_word(problems[[k]], cases[[idx[k]]]$open),
          gsub("[\t\n]", " ", paste(c(bad_describe(r), problems[[k]]),
                                     collapse = " || ")),
          sprintf("%.2f", if (is.null(r$elapsed)) NA_real_ else r$elapsed),
          sep = "\t"
        )
      }, ""))
    }
  }
  if (nzchar(report)) {
    writeLines(c("label\tstatus\tresult\tgot\tseconds", rows), report)
  }
  invisible()
}
