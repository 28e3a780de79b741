# Builds side by side in one run: each round times every case in a fresh R
# process per case and library, alternating the order of the libraries,
# so that the machine's drift hits all alike; medians over the rounds and
# ratios to the first library.
#
#   Rscript bench/side_by_side.R [--rounds=N] LIB1 LIB2 [LIB3 ...]
#
# (default 7 rounds).  Cases: fit_nig and fit_gh on EuStockMarkets (d = 4),
# 10 EM iterations (tol 1e-300) of a NIG and a GH fit at n = 1e5, d = 10,
# and log_besselK() of 1e6 values (x log-uniform in [1e-3, 1e3], nu uniform
# in [-50, 50]); two threads.  Wall-clock seconds of the call only (not
# the process start): the median of 5 calls in the process, then the
# median over the rounds.

args <- commandArgs(trailingOnly = TRUE)
is_rounds <- grepl("^--rounds=", args)
rounds <- if (any(is_rounds)) {
  as.integer(sub("^--rounds=", "", args[is_rounds][1L]))
} else {
  7L
}
libs <- args[!is_rounds]
if (length(libs) < 2L) stop("usage: side_by_side.R [--rounds=N] LIB1 LIB2 ...")
# (a library called lib is named by its parent folder)
lib_base <- basename(normalizePath(libs))
names(libs) <- make.unique(ifelse(lib_base == "lib",
                                  basename(dirname(normalizePath(libs))),
                                  lib_base))

child <- '
suppressMessages(library(ghmix))
ghmix_threads(2L)
r <- diff(log(EuStockMarkets))
set.seed(1)
sim <- rgh(1e5, mu = rep(0, 10), gamma = rep(0.1, 10), sigma = diag(10),
           p = -0.5, a = 1, b = 1)
set.seed(2)
bx <- exp(stats::runif(1e6, log(1e-3), log(1e3)))
bnu <- stats::runif(1e6, -50, 50)
ten <- ghmix_control(tol = 1e-300, param_tol = 1e-300, max_iter = 10)
time <- function(expr, reps = 5L) {
  expr <- substitute(expr)
  stats::median(vapply(seq_len(reps), function(i) {
    t0 <- proc.time()[[3L]]
    suppressWarnings(eval(expr, globalenv()))
    proc.time()[[3L]] - t0
  }, 0))
}
cases <- list(
  eu_nig = quote(fit_nig(r)),
  eu_gh = quote(fit_gh(r)),
  sim_nig_10 = quote(fit_nig(sim, control = ten)),
  sim_gh_10 = quote(fit_gh(sim, start = list(p = -0.5, a = 1, b = 1),
                           control = ten)),
  log_besselK_1e6 = quote(log_besselK(bx, bnu))
)
case <- commandArgs(trailingOnly = TRUE)[[1L]]
cat(eval(bquote(time(.(cases[[case]])))), "\n")
'
script <- tempfile(fileext = ".R")
writeLines(child, script)
case_names <- c("eu_nig", "eu_gh", "sim_nig_10", "sim_gh_10",
                "log_besselK_1e6")
run_one <- function(lib) {
  env <- c(paste0("R_LIBS=", lib), "OMP_NUM_THREADS=2")
  vapply(case_names, function(case) {
    line <- system2(file.path(R.home("bin"), "Rscript"), c(script, case),
                    stdout = TRUE, env = env)
    as.numeric(line[length(line)])
  }, 0)
}
res <- lapply(libs, function(l) list())
for (i in seq_len(rounds)) {
  order <- if (i %% 2L) names(libs) else rev(names(libs))
  for (which in order) {
    res[[which]][[i]] <- run_one(libs[[which]])
  }
  cat(sprintf("round %d of %d done\n", i, rounds))
}
med <- vapply(names(libs), function(which) {
  apply(do.call(rbind, res[[which]]), 2L, stats::median)
}, numeric(length(case_names)))
tab <- data.frame(med, med[, -1L, drop = FALSE] / med[, 1L],
                  check.names = FALSE)
names(tab) <- c(paste0(names(libs), "_s"),
                paste0(names(libs)[-1L], "/", names(libs)[1L]))
print(round(tab, 4))
