# Fuzzer for ghmix's registered .Call entry points (base R only), and for
# two R-level entry points ("r:fit": the fitters with weights, components,
# factors, shrink, fixed and start labels; "r:law": divergences and risk of
# heavy-tailed laws), called through the exported functions.
#
#   Rscript tests/fuzz/fuzz.R [--seconds 60] [--seed 1] [--lib PATH]
#                             [--batch-seconds 10] [--call-timeout 10]
#                             [--max-mem-mb 2048] [--routines REGEX]
#                             [--skip-known]
#   Rscript tests/fuzz/fuzz.R --replay CALLSEED [--lib PATH]
#   Rscript tests/fuzz/fuzz.R --regress [--lib PATH] [--routines REGEX]
#
# Every routine of getDLLRegisteredRoutines("ghmix")$.Call is called with
# its exact number of arguments, built from a per-routine template of a
# valid call with one to three arguments replaced or mutated, or with
# special values in its numeric arguments (or, one call in five, all of
# them random): SEXP types NULL, logical, integer, double,
# complex, character, list, external pointer, environment, function and
# factor; lengths 0, 1, 2, 3, 7 and 1000 (rarely 1e5 to 1e7); special
# values (NA, NaN, +-Inf, 0, -1, 1e300, 1e-310, .Machine$integer.max, 2^31,
# 2^53, ...); attributes (dim of a random or wrong shape, names, class).
#
# Each call is generated from its own seed (a hash of --seed, the batch and
# the call's index), so any call can be regenerated from that seed alone.
# Calls run in child R processes (Rscript, a batch of --batch-seconds each,
# one child at a time) under `ulimit -v` (--max-mem-mb; not under
# AddressSanitizer, whose allocator limit is set by ASAN_OPTIONS instead).
# An R error is the expected answer to bad input and counts as a pass.
# Failures are: a child that dies (segfault, abort), a report of a
# sanitizer or of R's segfault handler on the child's stderr, and a call
# that runs longer than --call-timeout seconds and does not return within
# 3 s of a SIGINT (a call that returns to the interrupt is only "slow").
# After a failure the batch is re-run (the failing call alone, then the
# shortest tail of the batch that still fails) to find the culprit, its
# arguments are shrunk, and the seed, the routine and a dput() of the
# arguments are printed.  The exit status is 1 if anything failed.
#
# --replay runs one call, from its seed, in a child and prints it.
# --regress runs the known findings of tests/fuzz/regressions.R, each in a
# child of its own, and fails if any of them still crashes or hangs.
# --skip-known does not make the calls that match a known finding (its
# `matches` predicate), so that a fuzz run looks for new ones instead of
# finding the open ones again; --regress still runs those.
#
# The summary's call count is of calls made; --seconds bounds the whole
# run, the search for a culprit included.

# ------------------------------------------------------------ options

fuzz_defaults <- list(
  seconds = 60, seed = 1, lib = "", batch_seconds = 10, call_timeout = 10,
  max_mem_mb = 2048, routines = "", replay = NA_real_, regress = FALSE,
  child = "", job = "", skip_known = FALSE
)

parse_args <- function(argv) {
  opts <- fuzz_defaults
  i <- 1L
  while (i <= length(argv)) {
    key <- sub("^--", "", argv[[i]])
    key <- gsub("-", "_", key, fixed = TRUE)
    if (!key %in% names(opts)) {
      stop("unknown option ", argv[[i]], call. = FALSE)
    }
    if (is.logical(opts[[key]])) {
      opts[[key]] <- TRUE
      i <- i + 1L
      next
    }
    if (i == length(argv)) {
      stop("option ", argv[[i]], " needs a value", call. = FALSE)
    }
    val <- argv[[i + 1L]]
    opts[[key]] <- if (is.numeric(opts[[key]])) as.numeric(val) else val
    i <- i + 2L
  }
  opts
}

script_path <- function() {
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f) == 0L) {
    stop("run this file with Rscript", call. = FALSE)
  }
  normalizePath(f[[1L]])
}

# ----------------------------------------------------- value generators

special_doubles <- c(
  NA, NaN, Inf, -Inf, 0, -0, -1, 1, 0.5, 2, 3, 1e300, -1e300, 1e-310,
  5e-324, .Machine$double.xmax, .Machine$double.eps, .Machine$integer.max,
  -.Machine$integer.max, 2^31, 2^32, 2^53, -2^31, 1e18, 1e10, 1e-10
)
special_integers <- c(
  NA, 0L, 1L, -1L, 2L, 3L, 4L, 100L, .Machine$integer.max,
  -.Machine$integer.max
)
special_strings <- c(
  "", "a", NA, "cpu", "cuda", "nig", "gh", "vg", "skewt", "NaN", "1",
  strrep("x", 1000L), "\u00e9"
)

pick <- function(x) x[[sample.int(length(x), 1L)]]

rand_length <- function() {
  if (stats::runif(1L) < 0.002) {
    return(pick(c(1e5, 1e6, 1e7)))
  }
  pick(c(0, 1, 1, 1, 2, 3, 7, 1000))
}

rand_doubles <- function(n) {
  kind <- sample.int(5L, 1L)
  x <- switch(kind,
    stats::rnorm(n),
    stats::rexp(n),
    exp(stats::rnorm(n, sd = 10)),
    stats::runif(n),
    sample(special_doubles, n, replace = TRUE)
  )
  sprinkle(x, special_doubles)
}

# Put a few special values at random places.
sprinkle <- function(x, specials, prob = 0.4) {
  n <- length(x)
  if (n > 0L && stats::runif(1L) < prob) {
    k <- min(n, sample.int(3L, 1L))
    x[sample.int(n, k)] <- sample(specials, k, replace = TRUE)
  }
  x
}

rand_integers <- function(n) {
  x <- if (stats::runif(1L) < 0.5) {
    sample(-3:10, n, replace = TRUE)
  } else {
    sample(special_integers, n, replace = TRUE)
  }
  sprinkle(as.integer(x), special_integers)
}

# A pointer is a marker here and is made in the child (see materialize()):
# external pointers do not survive serialization.
ptr_kinds <- c("null", "routine", "dll")

rand_value <- function(depth = 0L) {
  type <- pick(c(
    "double", "double", "double", "double", "integer", "integer", "logical",
    "logical", "NULL", "complex", "character", "list", "externalptr",
    "environment", "function", "factor"
  ))
  n <- rand_length()
  if (n > 1000 && type %in% c("list", "character", "factor", "complex")) {
    n <- 1000
  }
  x <- switch(type,
    double = rand_doubles(n),
    integer = rand_integers(n),
    logical = sample(c(TRUE, FALSE, NA), n, replace = TRUE),
    "NULL" = NULL,
    complex = complex(real = rand_doubles(n), imaginary = rand_doubles(n)),
    character = sample(special_strings, n, replace = TRUE),
    list = if (depth >= 2L) list() else
      lapply(seq_len(min(n, 7)), function(i) rand_value(depth + 1L)),
    externalptr = list(.fuzz_ptr = pick(ptr_kinds)),
    environment = pick(list(new.env(), globalenv(), emptyenv())),
    "function" = pick(list(function(x) x, sum, `+`)),
    factor = factor(sample(c("a", "b", NA), n, replace = TRUE))
  )
  if (stats::runif(1L) < 0.3) x <- rand_attributes(x)
  x
}

# dim of a random shape (a matrix that does not fit the routine, 3-d arrays,
# empty dimensions), names, class, stray attributes.
rand_attributes <- function(x) {
  if (is.null(x) || is.environment(x) || is.function(x) || is_ptr(x)) {
    return(x)
  }
  n <- length(x)
  switch(sample.int(4L, 1L),
    dim(x) <- rand_dim(n),
    names(x) <- rep_len(c("a", "b", ""), n),
    class(x) <- pick(list("foo", c("ghmix_fit", "list"), "data.frame")),
    attr(x, pick(c("gradient", "rows", "launches", "dim_"))) <-
      rand_value(2L)
  )
  x
}

# A dim that fits n values: r x (n / r), r x 1 x (n / r), or empty.
rand_dim <- function(n) {
  if (n == 0L) {
    return(pick(list(c(0L, 3L), c(3L, 0L), c(0L, 0L))))
  }
  r <- pick(which(n %% seq_len(min(n, 50L)) == 0L))
  as.integer(if (stats::runif(1L) < 0.3) c(r, 1L, n %/% r) else
    c(r, n %/% r))
}

is_ptr <- function(x) is.list(x) && identical(names(x), ".fuzz_ptr")

# Change one argument of a valid call.
mutate <- function(x) {
  how <- sample.int(8L, 1L)
  n <- length(x)
  switch(how,
    rand_value(),
    if (is.double(x) || is.integer(x)) {
      sprinkle(x, if (is.integer(x)) special_integers else special_doubles)
    } else {
      rand_value()
    },
    if (is.atomic(x) && n > 0L) x[seq_len(pick(c(0L, 1L, max(0L, n - 1L))))]
    else NULL,
    if (is.atomic(x) && n > 0L) rep_len(x, pick(c(n + 1L, 1000L, 2L * n)))
    else x,
    rand_attributes(x),
    if (is.atomic(x)) {
      suppressWarnings(switch(sample.int(5L, 1L),
        as.integer(x), as.logical(x), as.character(x), as.complex(x),
        as.list(x)
      ))
    } else {
      x
    },
    if (is.atomic(x)) {
      # drop the attributes (a matrix becomes a vector)
      as.vector(x)
    } else {
      x
    },
    NULL
  )
}

# ------------------------------------------------------------ templates
# A valid call of each routine (as R/ makes it), for mutation.  Routines
# without a template get random arguments only.

pos <- function(n) stats::rexp(n) + 0.05
num <- function(n, sd = 1) stats::rnorm(n, sd = sd)
flag <- function() pick(c(TRUE, FALSE))
thr <- function() pick(1:2)
small_n <- function() pick(c(0L, 1L, 2L, 5L, 50L))
# The device of a routine that serves both backends: NULL (the CPU) or a
# CUDA device index.
dev <- function() if (flag()) NULL else 0L

pd_matrix <- function(d) {
  a <- matrix(stats::rnorm(d * d), d, d)
  crossprod(a) + diag(d)
}
lower_chol <- function(d) t(chol(pd_matrix(d)))

# Feasible expectation parameters (E log Y, E 1/Y, E Y), n rows.
eta_rows <- function(n) {
  ey <- exp(stats::rnorm(n))
  einv <- (1 + stats::rexp(n)) / ey
  elog <- stats::runif(n, -log(einv), log(ey))
  cbind(elog, einv, ey)
}

mix_args <- function() {
  d <- pick(1:4)
  n <- pick(c(0L, 1L, 5L, 40L))
  list(
    d = d,
    x = matrix(stats::rnorm(n * d), n, d),
    center = num(d), chol = lower_chol(d), g = num(d),
    consts = c(-0.5, pos(2), pos(1), num(1)),
    what = pick(c(1L, 3L))
  )
}

# The arguments of the G-component E-step (ffi_mix_estep_mixture).
mix_g_args <- function() {
  m <- mix_args()
  g <- pick(1:3)
  n <- nrow(m$x)
  list(
    m$x, matrix(num(m$d * g), m$d, g),
    as.vector(replicate(g, lower_chol(m$d))), matrix(num(m$d * g), m$d, g),
    as.vector(replicate(g, m$consts)), log(rep(1 / g, g)),
    if (flag()) NULL else pos(n), m$what, flag()
  )
}

gh1 <- function(n) list(num(n), num(1), num(1), pos(1), num(1), pos(1), pos(1))

templates <- list(
  ffi_log_besselK = function() {
    list(pos(small_n()), num(pick(1:3), 5), flag(), thr(), dev())
  },
  ffi_gig_expectation = function() {
    list(num(small_n()), pos(1), pos(1), thr(), dev())
  },
  ffi_gig_moment = function() {
    list(num(3), pos(3), pos(1), num(1), pick(0:1), thr())
  },
  ffi_gig_from_expectation = function() {
    n <- pick(1:5)
    st <- if (flag()) NULL else cbind(num(n), pos(n), pos(n))
    list(eta_rows(n), st, pick(c(1L, 20L, 100L)), 1e-12, flag(), thr(),
         dev())
  },
  ffi_dgig = function() {
    list(pos(small_n()), num(1), pos(1), pos(1), flag(), thr())
  },
  ffi_pgig = function() {
    list(pos(small_n()), num(1), pos(1), pos(1), flag(), flag(), thr())
  },
  ffi_qgig = function() {
    list(stats::runif(small_n()), num(1), pos(1), pos(1), flag(), flag(),
         thr())
  },
  ffi_rgig = function() list(small_n(), num(1), pos(1), pos(1)),
  ffi_dgh1 = function() c(gh1(small_n()), list(flag(), thr(), dev())),
  ffi_pgh = function() c(gh1(pick(0:3)), list(flag(), flag(), thr())),
  ffi_qgh = function() {
    a <- gh1(pick(0:3))
    a[[1L]] <- stats::runif(length(a[[1L]]))
    c(a, list(flag(), flag(), thr()))
  },
  ffi_dgh_rows = function() {
    n <- small_n()
    list(pos(n), num(n), pick(1:4), num(1), pos(1), pos(1), pos(1), num(1),
         flag(), thr())
  },
  ffi_gh_risk = function() {
    n <- small_n()
    list(stats::runif(pick(0:3)), num(n), num(n), pos(n), c(num(1), pos(2)),
         flag(), flag(), thr())
  },
  ffi_mix_estep = function() {
    m <- mix_args()
    list(m$x, m$center, m$chol, m$g, m$consts, m$what, flag(), thr())
  },
  ffi_mix_estep_weighted = function() {
    m <- mix_args()
    w <- if (flag()) NULL else pos(pick(c(nrow(m$x), 1L)))
    list(m$x, w, m$center, m$chol, m$g, m$consts, m$what, flag(), thr())
  },
  ffi_mix_estep_mixture = function() c(mix_g_args(), list(thr())),
  ffi_mix_estep_factor = function() {
    m <- mix_args()
    r <- pick(seq.int(0L, m$d - 1L))
    w <- if (flag()) NULL else pos(nrow(m$x))
    list(m$x, w, m$center, matrix(num(m$d * r), m$d, r), pos(m$d), num(m$d),
         c(num(1), pos(2)), m$what, flag(), thr())
  },
  ffi_mix_subordinator = function() {
    list(pick(0:3), as.vector(eta_rows(1)), c(num(1), pos(2)))
  },
  ffi_mix_subordinator_fixed_p = function() {
    list(num(1), as.vector(eta_rows(1)), c(num(1), pos(2)))
  },
  ffi_gig_log_norm = function() list(num(1), pos(1), pos(1)),
  ffi_chol_lower = function() list(pd_matrix(pick(1:4))),
  ffi_chol_upper = function() list(pd_matrix(pick(1:4))),
  ffi_eigen_values_sym = function() list(pd_matrix(pick(1:4))),
  ffi_mixture_estep_args = function() {
    d <- pick(1:4)
    list(replicate(pick(1:3), list(
      mu = num(d), gamma = num(d), sigma = pd_matrix(d), p = -0.5,
      a = pos(1), b = pos(1)
    ), simplify = FALSE))
  },
  ffi_estep_decode = function() {
    d <- pick(1:3)
    g <- pick(1:3)
    per <- 6L + 2L * d + d * d
    comps <- lapply(seq_len(g), function(k) {
      at <- 4L + (k - 1L) * per
      list(tau = at + 1L, s_inv = at + 2L, s_y = at + 3L, s_log = at + 4L,
           s_inv_dev = at + 5L, s_y_dev = at + 6L, sx = at + 6L + seq_len(d),
           sxw = at + 6L + d + seq_len(d),
           sxx = at + 6L + 2L * d + seq_len(d * d))
    })
    list(num(4L + g * per), comps, list(sxx = c(d, d)))
  },
  ffi_mix_consts = function() {
    d <- pick(1:4)
    list(lower_chol(d), num(d), c(-0.5, pos(2)))
  },
  ffi_sigint_hold = function() list(flag()),
  ffi_nap = function() list(pick(c(0L, 50L, 1000L))),
  ffi_cuda_mix_data_create = function() list(mix_args()$x, 0L),
  ffi_cuda_mix_data_free = function() list(list(.fuzz_ptr = pick(ptr_kinds))),
  ffi_cuda_mix_data_weights = function() {
    list(list(.fuzz_ptr = pick(ptr_kinds)), pos(small_n()))
  },
  ffi_cuda_mix_estep = function() {
    m <- mix_args()
    list(list(.fuzz_ptr = pick(ptr_kinds)), m$center, m$chol, m$g, m$consts,
         m$what, flag())
  },
  ffi_cuda_mix_estep_mixture = function() {
    c(list(list(.fuzz_ptr = pick(ptr_kinds))), mix_g_args()[-1L])
  },
  ffi_cuda_mix_rows = function() {
    m <- mix_args()
    list(m$x, m$center, m$chol, m$g, m$consts, m$what, flag(), flag(), 0L)
  }
)

# R-level entry points (issue 31): the fitters and the law functions with
# the newer arguments -- weights of any scale, components, factors,
# shrink, fixed, start labels -- and heavy-tailed laws, called through the
# exported functions (name "r:<what>"); bounded by max_iter 30 so a call
# takes well under a second.  The arguments are a named list, mutated as
# a routine's are.
r_weights <- function(n) {
  pick_mostly(
    list(NULL, pos(n), rep(1 / max(n, 1L), n)),
    list(rep(1e-300, n), rep(1e300, n), c(1e300, rep(1, max(n - 1L, 0L))),
         rep(0, n), c(0, pos(max(n - 1L, 0L))), rep(2^-1074, n)),
    p = 0.3
  )
}

# One of `usual` mostly, one of `odd` with probability p.
pick_mostly <- function(usual, odd, p = 0.2) {
  if (stats::runif(1L) < p) pick(odd) else pick(usual)
}

r_templates <- list(
  "r:fit" = function() {
    d <- pick(1:3)
    n <- pick_mostly(c(30L, 60L), c(3L, 8L))
    x <- matrix(stats::rt(n * d, 4), n, d) *
      pick_mostly(1, c(1e-200, 1e200)) + pick_mostly(0, 1e6)
    fam <- pick(c("fit_nig", "fit_gh", "fit_vg", "fit_skewt"))
    list(
      family = fam, x = x, weights = r_weights(n),
      components = pick_mostly(list(1L, 2L), list(3L, 1:2, 10L, 0L, NA)),
      factors = pick_mostly(list(NULL), list(0L, 1L, d - 1L, d)),
      shrink = pick_mostly(list(NULL), list(0, 5, 1e250, 1e308, "identity")),
      fixed = if (fam != "fit_gh") NULL else
        pick_mostly(list(NULL), list(list(a = 1e-50), list(b = 1e-300),
                                     list(a = 5e-324),
                                     list(p = -0.5, a = 1e-20),
                                     list(gamma = 0))),
      start = pick_mostly(list(NULL),
                          list(rep(1:2, length.out = n), rep(1L, n))),
      control = ghmix_fuzz_control()
    )
  },
  "r:law" = function() {
    law <- function() {
      list(mu = num(1), gamma = pick(c(0, num(1))), sigma = pos(1),
           p = pick(c(-0.25, -0.5, -1, -1.0001, -1.5, num(1))),
           a = pick(c(0, 1e-300, pos(1), 1e300)),
           b = pick(c(0, 1e-300, pos(1), 1e300)))
    }
    list(what = pick(c("kl_divergence", "hellinger", "entropy",
                       "expected_shortfall", "value_at_risk",
                       "es_attribution")),
         law = law(), other = law(), level = stats::runif(pick(1:2)))
  }
)

# (a function, so that materialize() leaves it alone; in the child)
ghmix_fuzz_control <- function() list(.fuzz_control = 30L)

# Runs an "r:" call: the function named in args, with the rest.
run_r_entry <- function(routine, args) {
  ctl <- args$control
  if (is.list(ctl) && identical(names(ctl), ".fuzz_control")) {
    args$control <- ghmix::ghmix_control(max_iter = ctl$.fuzz_control)
  }
  if (routine == "r:fit") {
    fun <- getExportedValue("ghmix", args$family)
    args$family <- NULL
    return(do.call(fun, args))
  }
  # (a mutation can turn a law into a vector of 1e7 numbers: as 1e7
  # arguments of do.call() it timed R's argument matching, not ghmix)
  make <- function(v) {
    if (is.list(v) || length(v) <= 6L) {
      return(do.call(ghmix::gh_law, as.list(v)))
    }
    ghmix::gh_law(mu = v)
  }
  law <- make(args$law)
  other <- make(args$other)
  switch(args$what,
    kl_divergence = ghmix::kl_divergence(law, other),
    hellinger = ghmix::hellinger(law, other),
    entropy = ghmix::entropy(law),
    expected_shortfall = ghmix::expected_shortfall(law, args$level),
    value_at_risk = ghmix::value_at_risk(law, args$level),
    es_attribution = ghmix::es_attribution(law, 1, args$level)
  )
}

# ------------------------------------------------------------- calls

call_seed <- function(seed, batch, i) {
  m <- 2147483647
  h <- (seed * 1000003 + batch) %% m
  h <- (h * 1000003 + i) %% m
  as.integer(h)
}

# The call of seed cs: list(routine, args).  Pure R (no ghmix needed), so
# the parent can regenerate any call a child made.
gen_call <- function(cs, routines) {
  set.seed(cs, kind = "Mersenne-Twister", normal.kind = "Inversion",
           sample.kind = "Rejection")
  k <- sample.int(nrow(routines), 1L)
  name <- routines$name[[k]]
  nargs <- routines$nargs[[k]]
  tmpl <- c(templates, r_templates)[[name]]
  args <- NULL
  if (!is.null(tmpl) && stats::runif(1L) < 0.8) {
    args <- tmpl()
    if (length(args) != nargs) args <- NULL
  }
  if (is.null(args)) {
    args <- lapply(seq_len(nargs), function(i) rand_value())
  } else if (nargs > 0L) {
    # three in eight: special values in numeric arguments, types kept (to
    # reach the numerics); else any mutation of one to three arguments
    values_only <- stats::runif(1L) < 0.375
    for (j in sample.int(nargs, min(nargs, sample.int(3L, 1L)))) {
      v <- if (values_only) mutate_values(args[[j]]) else mutate(args[[j]])
      args[j] <- list(v)
    }
  }
  list(routine = name, args = args)
}

mutate_values <- function(x) {
  if (is.double(x)) {
    sprinkle(x, special_doubles, 1)
  } else if (is.integer(x)) {
    sprinkle(x, special_integers, 1)
  } else {
    x
  }
}

# External pointers, made in the child: a null one, one to a function's
# code (a registered routine's address) and one to a DllInfo.
make_ptr <- function(kind) {
  switch(kind,
    null = methods::new("externalptr"),
    routine = getDLLRegisteredRoutines("ghmix")$.Call[[1L]]$address,
    dll = getLoadedDLLs()[["ghmix"]][["info"]]
  )
}

materialize <- function(x) {
  if (is_ptr(x)) {
    return(make_ptr(x$.fuzz_ptr))
  }
  if (is.list(x) && !is.data.frame(x) && length(x) > 0L) {
    a <- attributes(x)
    x <- lapply(x, materialize)
    attributes(x) <- a
  }
  x
}

# Source text that rebuilds a value (for the reports).
deparse_value <- function(x) {
  special <- deparse_special(x)
  if (!is.null(special)) {
    return(special)
  }
  if (is.list(x) && !is.data.frame(x) && length(x) > 0L) {
    return(deparse_list(x))
  }
  deparse_atomic(x)
}

deparse_atomic <- function(x) {
  constant <- is.atomic(x) && length(x) > 20L && is.null(attributes(x)) &&
    length(unique(x)) == 1L
  if (constant) {
    return(sprintf("rep(%s, %d)", deparse_atomic(x[[1L]]), length(x)))
  }
  paste(deparse(x, control = c("keepNA", "keepInteger", "niceNames",
                               "showAttributes", "digits17"),
                width.cutoff = 500L), collapse = "\n")
}

# Pointers and environments, which deparse() cannot rebuild; else NULL.
deparse_special <- function(x) {
  if (is_ptr(x)) {
    return(switch(x$.fuzz_ptr,
      null = "methods::new(\"externalptr\")",
      routine = "getDLLRegisteredRoutines(\"ghmix\")$.Call[[1]]$address",
      dll = "getLoadedDLLs()[[\"ghmix\"]][[\"info\"]]"
    ))
  }
  if (!is.environment(x)) {
    return(NULL)
  }
  if (identical(x, globalenv())) {
    return("globalenv()")
  }
  if (identical(x, emptyenv())) "emptyenv()" else "new.env()"
}

deparse_list <- function(x) {
  inner <- vapply(x, deparse_value, "")
  nm <- names(x)
  if (!is.null(nm)) inner <- paste0("`", nm, "` = ", inner)
  txt <- paste0("list(", paste(inner, collapse = ", "), ")")
  a <- attributes(x)
  a$names <- NULL
  if (length(a) == 0L) {
    return(txt)
  }
  paste0("structure(", txt, ", ", paste(
    paste0("`", names(a), "` = ", vapply(a, deparse_value, "")),
    collapse = ", "
  ), ")")
}

reproducer <- function(call, max_chars = 3000L) {
  args <- vapply(call$args, deparse_value, "")
  long <- nchar(args) > max_chars
  args[long] <- paste0(substr(args[long], 1L, max_chars),
                       " ... [cut; --replay regenerates it in full]")
  if (startsWith(call$routine, "r:")) {
    # (run_r_entry() of tests/fuzz/fuzz.R with these arguments)
    return(paste0("run_r_entry(\"", call$routine, "\", list(",
                  paste(paste(names(call$args), "=", args),
                        collapse = ",\n      "), "))"))
  }
  paste0(".Call(ghmix:::", call$routine, if (length(args)) ", ",
         paste(args, collapse = ",\n      "), ")")
}

# --------------------------------------------------------- child side

# Run calls, one at a time; before each, its index goes to the progress
# file.  next_call(i) gives call i (list(routine, args, seed)) or NULL.
# known: predicates function(routine, args) of known findings whose calls
# are not made (outcome "known").
child_run <- function(next_call, progress, result, lib, known = list()) {
  if (nzchar(lib)) {
    # (on the library path too: the "r:" entry points call ghmix's R
    # functions, some of which look the package up)
    .libPaths(c(lib, .libPaths()))
    loadNamespace("ghmix", lib.loc = lib)
  } else {
    loadNamespace("ghmix")
  }
  syms <- getDLLRegisteredRoutines("ghmix")$.Call
  con <- file(progress, "w")
  writeLines(paste("pid", Sys.getpid()), con)
  flush(con)
  stats_tab <- list()
  slow <- integer()
  i <- 0L
  repeat {
    i <- i + 1L
    call <- next_call(i)
    if (is.null(call)) break
    writeLines(as.character(i), con)
    flush(con)
    outcome <- if (is_known(call, known)) "known" else run_one(call, syms)
    if (outcome == "slow") {
      slow <- c(slow, if (is.null(call$seed)) i else call$seed)
      writeLines(paste("slow", i), con)
      flush(con)
    }
    stats_tab[[call$routine]] <- tally(stats_tab[[call$routine]], outcome)
  }
  writeLines("done", con)
  close(con)
  saveRDS(list(stats = stats_tab, slow = slow, n = i - 1L), result)
  invisible(NULL)
}

outcomes <- c("returned", "error", "slow", "known", "lost")

tally <- function(s, outcome) {
  if (is.null(s)) {
    s <- stats::setNames(numeric(length(outcomes) + 1L),
                         c("calls", outcomes))
  }
  s[["calls"]] <- s[["calls"]] + 1
  s[[outcome]] <- s[[outcome]] + 1
  s
}

is_known <- function(call, known) {
  for (f in known) {
    hit <- tryCatch(isTRUE(suppressWarnings(f(call$routine, call$args))),
                    error = function(e) FALSE)
    if (hit) return(TRUE)
  }
  FALSE
}

# One call: "returned", "error" (an R condition) or "slow" (interrupted).
# SIGINT is unblocked again after each call: ffi_sigint_hold(TRUE) blocks
# it for the thread, and a long call after it could then not be stopped
# (a false "hang" in the next call that runs past the timeout).
run_one <- function(call, syms) {
  args <- materialize(call$args)
  on.exit(.Call(syms[["ffi_sigint_hold"]], FALSE), add = TRUE)
  tryCatch(
    withCallingHandlers({
      if (startsWith(call$routine, "r:")) {
        run_r_entry(call$routine, args)
      } else {
        do.call(.Call, c(list(syms[[call$routine]]), args))
      }
      "returned"
    },
    warning = function(w) invokeRestart("muffleWarning"),
    message = function(m) invokeRestart("muffleMessage")),
    error = function(e) "error",
    interrupt = function(e) "slow"
  )
}

# The known findings (tests/fuzz/regressions.R), for --regress and
# --skip-known.
known_findings <- function() {
  env <- new.env()
  sys.source(file.path(dirname(script_path()), "regressions.R"),
             envir = env)
  env$fuzz_regressions
}

child_main <- function(opts) {
  job <- readRDS(opts$job)
  if (job$mode == "list") {
    if (nzchar(opts$lib)) {
      loadNamespace("ghmix", lib.loc = opts$lib)
    } else {
      loadNamespace("ghmix")
    }
    r <- getDLLRegisteredRoutines("ghmix")$.Call
    tab <- data.frame(
      name = vapply(r, function(s) s$name, ""),
      nargs = vapply(r, function(s) as.integer(s$numParameters), 0L),
      stringsAsFactors = FALSE
    )
    tab <- rbind(tab, data.frame(
      name = names(r_templates),
      nargs = vapply(r_templates, function(f) length(f()), 0L),
      stringsAsFactors = FALSE
    ))
    tab <- tab[order(tab$name), , drop = FALSE]
    rownames(tab) <- NULL
    saveRDS(tab, job$result)
    return(invisible(NULL))
  }
  next_call <- switch(job$mode,
    batch = {
      t_end <- proc.time()[["elapsed"]] + job$seconds
      function(i) {
        if (proc.time()[["elapsed"]] > t_end) return(NULL)
        cs <- call_seed(job$seed, job$batch, i)
        c(gen_call(cs, job$routines), list(seed = cs))
      }
    },
    seeds = function(i) {
      if (i > length(job$seeds)) return(NULL)
      c(gen_call(job$seeds[[i]], job$routines), list(seed = job$seeds[[i]]))
    },
    calls = function(i) if (i > length(job$calls)) NULL else job$calls[[i]]
  )
  known <- if (isTRUE(job$skip_known)) {
    Filter(Negate(is.null), lapply(known_findings(), `[[`, "matches"))
  } else {
    list()
  }
  # an R error here is a bug of the harness, not of ghmix: exit status 3
  tryCatch(
    child_run(next_call, job$progress, job$result, opts$lib, known),
    error = function(e) {
      message("fuzz harness error: ", conditionMessage(e))
      quit(status = 3L, save = "no")
    }
  )
}

# -------------------------------------------------------- parent side

sanitizer_patterns <- c(
  "ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
  "AddressSanitizer:DEADLYSIGNAL"
)

under_asan <- function() grepl("asan", Sys.getenv("LD_PRELOAD"))

# Start a child job: Rscript in a sh wrapper that writes its exit status to
# dir/status when it ends (under `ulimit -v` unless AddressSanitizer runs).
start_child <- function(job, opts, dir) {
  job_file <- file.path(dir, "job.rds")
  saveRDS(job, job_file)
  status_file <- file.path(dir, "status")
  rscript <- file.path(R.home("bin"), "Rscript")
  args <- c(shQuote(script_path()), "--child", "1", "--job",
            shQuote(job_file),
            if (nzchar(opts$lib)) c("--lib", shQuote(opts$lib)))
  limit <- if (opts$max_mem_mb > 0 && !under_asan()) {
    sprintf("ulimit -v %d 2>/dev/null; ", as.integer(opts$max_mem_mb * 1024))
  } else {
    ""
  }
  cmd <- sprintf("(%sexec %s %s) >/dev/null 2>%s; echo $? >%s; mv %s %s",
                 limit, shQuote(rscript), paste(args, collapse = " "),
                 shQuote(file.path(dir, "stderr")),
                 shQuote(paste0(status_file, ".tmp")),
                 shQuote(paste0(status_file, ".tmp")), shQuote(status_file))
  system2("sh", c("-c", shQuote(cmd)), wait = FALSE)
  status_file
}

# The child's pid, from the first line of its progress file (NA until then).
child_pid <- function(progress) {
  first <- if (file.exists(progress)) {
    readLines(progress, n = 1L, warn = FALSE)
  } else {
    character()
  }
  if (length(first) && startsWith(first, "pid ")) {
    as.integer(sub("pid ", "", first, fixed = TRUE))
  } else {
    NA_integer_
  }
}

# Wait for the child to end.  When its progress file has not grown for
# `timeout` seconds (a call running that long), send SIGINT; when it does
# not go on within 3 s of that, SIGKILL.  TRUE when it was killed.
watch_child <- function(progress, status_file, timeout, startup = 60) {
  st <- new.env()
  st$size <- -1
  st$changed <- proc.time()[["elapsed"]]
  st$interrupted <- NA_real_
  while (!file.exists(status_file)) {
    Sys.sleep(0.05)
    action <- watch_step(st, progress, timeout, startup)
    if (action == "give up") {
      return(FALSE)
    }
    if (action == "killed") {
      while (!file.exists(status_file)) Sys.sleep(0.05)
      return(TRUE)
    }
  }
  FALSE
}

# One look at the child: "wait", "give up" (it never started) or "killed".
watch_step <- function(st, progress, timeout, startup) {
  now <- proc.time()[["elapsed"]]
  size <- if (file.exists(progress)) file.size(progress) else 0
  if (!is.na(size) && size != st$size) {
    st$size <- size
    st$changed <- now
    st$interrupted <- NA_real_
    return("wait")
  }
  pid <- child_pid(progress)
  if (is.na(pid)) {
    # R's start (slower under the sanitizers)
    return(if (now - st$changed > startup) "give up" else "wait")
  }
  if (is.na(st$interrupted)) {
    if (now - st$changed > timeout) {
      tools::pskill(pid, tools::SIGINT)
      st$interrupted <- now
    }
    return("wait")
  }
  if (now - st$interrupted > 3) {
    tools::pskill(pid, tools::SIGKILL)
    return("killed")
  }
  "wait"
}

read_lines_if <- function(f) {
  if (file.exists(f)) readLines(f, warn = FALSE) else character()
}

# Run one child job; returns list(status = "ok"|"crash"|"hang"|"sanitizer",
# rc, last = index of the last call started, result, stderr tail).
run_child <- function(job, opts, timeout = opts$call_timeout) {
  dir <- tempfile("ghmix-fuzz-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  job$progress <- file.path(dir, "progress")
  job$result <- file.path(dir, "result.rds")
  status_file <- start_child(job, opts, dir)
  killed <- watch_child(job$progress, status_file, timeout)
  rc <- suppressWarnings(as.integer(read_lines_if(status_file)[1L]))
  idx <- suppressWarnings(as.integer(read_lines_if(job$progress)))
  last <- if (any(!is.na(idx))) max(idx, na.rm = TRUE) else 0L
  err_txt <- read_lines_if(file.path(dir, "stderr"))
  hit <- any(vapply(sanitizer_patterns, function(p) any(grepl(p, err_txt)),
                    FALSE))
  result <- if (file.exists(job$result)) readRDS(job$result) else NULL
  ok <- !is.na(rc) && rc == 0L && !is.null(result)
  status <- if (killed) "hang" else if (hit) "sanitizer" else
    if (ok) "ok" else if (identical(rc, 3L)) "harness error" else "crash"
  # R's segfault handler prints the whole call: keep lines short
  err_txt <- utils::tail(err_txt, 40L)
  long <- nchar(err_txt) > 300L
  err_txt[long] <- paste(substr(err_txt[long], 1L, 300L), "...")
  list(status = status, rc = rc, last = last, result = result,
       stderr = err_txt)
}

list_routines <- function(opts) {
  res <- tempfile(fileext = ".rds")
  job <- tempfile(fileext = ".rds")
  on.exit(unlink(c(res, job)))
  saveRDS(list(mode = "list", result = res), job)
  rscript <- file.path(R.home("bin"), "Rscript")
  rc <- system2(rscript, c(shQuote(script_path()), "--child", "1", "--job",
                           shQuote(job), if (nzchar(opts$lib)) c("--lib",
                           shQuote(opts$lib))))
  if (rc != 0L || !file.exists(res)) {
    stop("could not list the routines of ghmix (is it installed?)",
         call. = FALSE)
  }
  tab <- readRDS(res)
  if (nzchar(opts$routines)) {
    tab <- tab[grepl(opts$routines, tab$name), , drop = FALSE]
  }
  if (nrow(tab) == 0L) stop("no routines to fuzz", call. = FALSE)
  tab
}

# Does the job fail again?  A hang is re-tried with a shorter timeout.
fails <- function(job, opts, kind) {
  timeout <- if (kind == "hang") min(opts$call_timeout, 5) else
    opts$call_timeout
  r <- run_child(job, opts, timeout)
  r$status != "ok"
}

# Find the call that makes batch b fail: the last call started alone, else
# the shortest tail of the batch's calls that still fails.
find_culprit <- function(seeds, routines, opts, kind) {
  k <- length(seeds)
  job <- function(s) {
    list(mode = "seeds", seeds = s, routines = routines,
         skip_known = opts$skip_known)
  }
  if (fails(job(seeds[k]), opts, kind)) {
    return(list(seed = seeds[k], alone = TRUE, from = k, to = k))
  }
  if (!fails(job(seeds), opts, kind)) {
    return(list(seed = seeds[k], alone = FALSE, from = NA, to = k,
                note = "not reproducible on a re-run"))
  }
  lo <- 1L
  hi <- k
  while (hi - lo > 1L) {
    mid <- (lo + hi) %/% 2L
    if (fails(job(seeds[mid:k]), opts, kind)) lo <- mid else hi <- mid
  }
  list(seed = seeds[lo], alone = FALSE, from = lo, to = k,
       note = sprintf("needs calls %d..%d of the batch (seeds %s)", lo, k,
                      paste(seeds[lo:k], collapse = ", ")))
}

# Smaller arguments that still fail (a few tries per argument).
shrink_call <- function(call, opts, kind, budget = 24L) {
  for (j in seq_along(call$args)) {
    for (cand in shrink_candidates(call$args[[j]])) {
      if (budget <= 0L) break
      budget <- budget - 1L
      trial <- call
      trial$args[j] <- list(cand)
      if (fails(list(mode = "calls", calls = list(trial)), opts, kind)) {
        call <- trial
        break
      }
    }
  }
  call
}

# Shorter versions of x: prefixes (rows of a matrix), then, for a short
# vector, each element alone.
shrink_candidates <- function(x) {
  if (!is.atomic(x) || length(x) <= 1L) {
    return(list())
  }
  mat <- length(dim(x)) == 2L
  n <- if (mat) nrow(x) else length(x)
  picks <- lapply(unique(c(1L, 2L, 3L, 7L, n %/% 2L)), seq_len)
  if (!mat && n <= 7L) picks <- c(picks, as.list(seq_len(n)))
  keep <- function(idx) {
    length(idx) > 0L && length(idx) < n && max(idx) <= n
  }
  picks <- Filter(keep, picks)
  lapply(picks, function(idx) if (mat) x[idx, , drop = FALSE] else x[idx])
}

report_finding <- function(kind, call, cs, info, res) {
  cat("\n======== FINDING: ", kind, " in ", call$routine, " ========\n",
      sep = "")
  cat("call seed: ", cs, "  (Rscript tests/fuzz/fuzz.R --replay ", cs,
      ")\n", sep = "")
  if (!is.null(info$note)) cat("note: ", info$note, "\n", sep = "")
  cat("reproduces alone: ", info$alone, "\n", sep = "")
  cat("reproducer:\n", reproducer(call), "\n", sep = "")
  if (length(res$stderr)) {
    cat("child stderr (tail):\n")
    writeLines(paste0("  ", res$stderr))
  }
  cat("========\n")
}

add_stats <- function(total, stats) {
  for (nm in names(stats)) {
    total[[nm]] <- if (is.null(total[[nm]])) stats[[nm]] else
      total[[nm]] + stats[[nm]]
  }
  total
}

# The call behind a failed batch (seeds: those of its calls up to the last
# one started), shrunk and reported.
investigate <- function(res, seeds, routines, opts) {
  info <- if (res$status == "hang") {
    list(seed = seeds[length(seeds)],
         alone = fails(list(mode = "seeds", seeds = seeds[length(seeds)],
                            routines = routines,
                            skip_known = opts$skip_known), opts, "hang"))
  } else {
    find_culprit(seeds, routines, opts, res$status)
  }
  call <- gen_call(info$seed, routines)
  if (isTRUE(info$alone)) call <- shrink_call(call, opts, res$status)
  report_finding(res$status, call, info$seed, info, res)
  list(kind = res$status, routine = call$routine, seed = info$seed)
}

fuzz_main <- function(opts) {
  routines <- list_routines(opts)
  cat(sprintf("ghmix fuzzer: %d routines, seed %g, %g s, batches of %g s,",
              nrow(routines), opts$seed, opts$seconds, opts$batch_seconds),
      sprintf("per-call timeout %g s%s\n", opts$call_timeout,
              if (under_asan()) ", AddressSanitizer" else
                sprintf(", memory limit %g MB", opts$max_mem_mb)))
  total <- list()
  findings <- list()
  slow <- integer()
  t0 <- proc.time()[["elapsed"]]
  batch <- 0L
  while ((left <- opts$seconds - (proc.time()[["elapsed"]] - t0)) > 0.5) {
    batch <- batch + 1L
    job <- list(mode = "batch", seed = opts$seed, batch = batch,
                seconds = min(opts$batch_seconds, left),
                routines = routines, skip_known = opts$skip_known)
    res <- run_child(job, opts)
    if (!is.null(res$result)) {
      total <- add_stats(total, res$result$stats)
      slow <- c(slow, res$result$slow)
    }
    if (res$status == "ok") next
    if (res$status == "harness error") {
      cat("batch ", batch, ": the fuzzer itself failed:\n", sep = "")
      writeLines(paste0("  ", res$stderr))
      findings[[length(findings) + 1L]] <- list(kind = res$status)
      break
    }
    seeds <- vapply(seq_len(max(1L, res$last)), function(i) {
      call_seed(opts$seed, batch, i)
    }, 0L)
    # count the calls of a batch that did not come back
    if (is.null(res$result)) {
      for (s in seeds) {
        nm <- gen_call(s, routines)$routine
        total <- add_stats(total, stats::setNames(list(tally(NULL, "lost")),
                                                  nm))
      }
    }
    cat(sprintf("batch %d: %s at call %d (exit status %s); looking for",
                batch, res$status, res$last, res$rc), "the culprit\n")
    findings[[length(findings) + 1L]] <- investigate(res, seeds, routines,
                                                     opts)
  }
  elapsed <- proc.time()[["elapsed"]] - t0
  print_counts(total)
  if (length(slow)) {
    cat(sprintf("slow calls (interrupted after %g s, not failures): %s\n",
                opts$call_timeout, paste(slow, collapse = " ")))
  }
  n_calls <- sum(vapply(total, function(s) s[["calls"]], 0))
  kinds <- vapply(findings, function(f) f$kind, "")
  n_known <- sum(vapply(total, function(s) s[["known"]], 0))
  cat(sprintf(paste0("fuzz summary: %d calls of %d routines in %.0f s",
                     " (seed %g): %d crashes, %d hangs, %d sanitizer",
                     " reports, %d slow, %d not made (known findings)",
                     if (any(kinds == "harness error")) "; HARNESS ERROR"
                     else "", "\n"),
              as.integer(n_calls - n_known), length(total), elapsed,
              opts$seed, sum(kinds == "crash"), sum(kinds == "hang"),
              sum(kinds == "sanitizer"), length(slow), as.integer(n_known)))
  length(findings) == 0L
}

print_counts <- function(total) {
  if (length(total) == 0L) return(invisible())
  tab <- do.call(rbind, total)
  tab <- tab[order(rownames(tab)), , drop = FALSE]
  tab <- rbind(tab, total = colSums(tab))
  storage.mode(tab) <- "integer"
  cat("\ncalls per routine:\n")
  print(tab)
}

replay_main <- function(opts) {
  routines <- list_routines(opts)
  call <- gen_call(as.integer(opts$replay), routines)
  cat("call seed ", opts$replay, ":\n", reproducer(call), "\n", sep = "")
  res <- run_child(list(mode = "calls", calls = list(call)), opts)
  cat("outcome: ", res$status, "\n", sep = "")
  if (length(res$stderr)) writeLines(res$stderr)
  if (!is.null(res$result)) {
    s <- res$result$stats[[1L]]
    cat("returned: ", s[["returned"]], ", R error: ", s[["error"]], "\n",
        sep = "")
  }
  res$status == "ok"
}

# Known findings (tests/fuzz/regressions.R: a list `fuzz_regressions` of
# list(id, routine, args = quote(list(...)), matches)): each in a child of
# its own, with a per-call timeout of at most 5 s.
regress_main <- function(opts) {
  cases <- known_findings()
  if (nzchar(opts$routines)) {
    cases <- Filter(function(x) grepl(opts$routines, x$routine), cases)
  }
  n_bad <- 0L
  for (case in cases) {
    call <- list(routine = case$routine, args = eval(case$args))
    res <- run_child(list(mode = "calls", calls = list(call)), opts,
                     min(opts$call_timeout, 5))
    cat(sprintf("%-4s %-24s %s\n", case$id, case$routine,
                if (res$status == "ok") "ok" else toupper(res$status)))
    if (res$status != "ok") {
      n_bad <- n_bad + 1L
      err <- res$stderr[nzchar(res$stderr)]
      if (length(err)) writeLines(paste0("  ", utils::tail(err, 8L)))
    }
  }
  cat(sprintf("fuzz regressions: %d cases, %d failing\n", length(cases),
              n_bad))
  n_bad == 0L
}

main <- function() {
  opts <- parse_args(commandArgs(trailingOnly = TRUE))
  if (nzchar(opts$child)) {
    return(child_main(opts))
  }
  ok <- if (!is.na(opts$replay)) {
    replay_main(opts)
  } else if (opts$regress) {
    regress_main(opts)
  } else {
    fuzz_main(opts)
  }
  quit(status = if (ok) 0L else 1L, save = "no")
}

if (!interactive()) main()
