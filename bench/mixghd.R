# ghmix's GH mixtures against MixGHD's MGHD() (issue 14): the
# log-likelihood reached for the same G on MixGHD's own data (bankruptcy,
# banknote), on `faithful` and on a simulated G = 3 NIG mixture (n = 5000,
# d = 5), and the time to the end of each fit, from the same run.
#
# MGHD() runs with its defaults (k-means start, at most 100 iterations,
# eps = 0.01) except scale = FALSE, so that both fits are of the same rows
# in their own units.  Its log-likelihood is recomputed here from its
# parameters with dgh() (its GHD component with parameters mu, alpha,
# Sigma, (omega, lambda) is ghmix's GH with gamma = alpha, p = lambda and
# a = b = omega); ghmix fits fit_gh(components = G) with its defaults on 2
# threads.  Times are medians of 3 runs of MGHD() and 5 of fit_gh(), each
# from set.seed(3).  The script stops when a ghmix log-likelihood is below
# MixGHD's, except where MixGHD's solution has a component with fewer
# effective rows than free parameters, which ghmix drops by design
# (reported).
#
#   R_LIBS=<library with MixGHD> Rscript bench/mixghd.R [out.md]

source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(ghmix))
if (!have_peer("MixGHD")) quit(status = 0)

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[[1L]] else ""
ghmix_threads(2L)
# times are medians of this many runs of each fit
reps_peer <- 3L
reps_own <- 5L

# The mixture log-likelihood of MGHD()'s parameters at the rows x.
mixghd_loglik <- function(m, x) gh_mixture_loglik(mixghd_params(m@gpar), x)

peer_data <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "MixGHD", envir = env)
  as.matrix(env[[name]][, -1L]) # the first column is the class
}

cases <- list(
  list(name = "faithful", x = as.matrix(faithful), g = 2L),
  list(name = "faithful", x = as.matrix(faithful), g = 3L),
  list(name = "bankruptcy (MixGHD)", x = peer_data("bankruptcy"), g = 2L),
  list(name = "banknote (MixGHD)", x = peer_data("banknote"), g = 2L),
  list(name = "simulated NIG, G = 3", x = mixture_bench_rows(), g = 3L)
)

# The median elapsed time of `reps` runs of fit() (each after set.seed(3),
# so every run is the same fit), and the last run's result.
timed <- function(fit, reps) {
  secs <- numeric(reps)
  for (i in seq_len(reps)) {
    set.seed(3)
    secs[[i]] <- system.time(res <- fit())[["elapsed"]]
  }
  list(result = res, seconds = stats::median(secs))
}

rows <- lapply(cases, function(cs) {
  peer_run <- timed(function() {
    suppressWarnings(MixGHD::MGHD(cs$x, G = cs$g, scale = FALSE))
  }, reps_peer)
  own_run <- timed(function() {
    suppressWarnings(fit_gh(cs$x, components = cs$g))
  }, reps_own)
  peer <- peer_run$result
  own <- own_run$result
  t_peer <- peer_run$seconds
  t_own <- own_run$seconds
  data.frame(
    data = cs$name, n = nrow(cs$x), d = ncol(cs$x), G = cs$g,
    mixghd_loglik = mixghd_loglik(peer, cs$x),
    mixghd_reported = utils::tail(peer@loglik, 1L),
    mixghd_iter = length(peer@loglik), mixghd_s = t_peer,
    mixghd_min_size = min(colSums(matrix(peer@z, nrow(cs$x)))),
    params = ghmix:::mix_df("gh", FALSE, ncol(cs$x)), ghmix_G = own$G,
    ghmix_loglik = own$loglik, ghmix_iter = own$iterations,
    ghmix_converged = own$converged, ghmix_s = t_own,
    gain = own$loglik - mixghd_loglik(peer, cs$x), speedup = t_peer / t_own,
    stringsAsFactors = FALSE
  )
})
res <- do.call(rbind, rows)
print(res, digits = 10, row.names = FALSE)
if (nzchar(out)) {
  lines <- c(
    sprintf("# ghmix fit_gh(components = G) vs MixGHD::MGHD(scale = FALSE)"),
    "",
    sprintf("%s; %s; R %s; MixGHD %s; ghmix %s; 2 threads.",
            format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"),
            paste(utils::tail(readLines("/proc/loadavg"), 1L)),
            getRversion(), utils::packageVersion("MixGHD"),
            utils::packageVersion("ghmix")),
    sprintf("Times: medians of %d runs (MGHD) and %d runs (fit_gh).",
            reps_peer, reps_own),
    "Command: `R_LIBS=<MixGHD library> Rscript bench/mixghd.R out.md`",
    "(first field of the load line: the machine's 1-minute load).", "",
    paste("|", paste(names(res), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(res)), collapse = " | "), "|"),
    apply(format(res, digits = 10), 1L, function(r) {
      paste("|", paste(trimws(r), collapse = " | "), "|")
    })
  )
  writeLines(lines, out)
}
# ghmix drops a component whose effective size is below its number of free
# parameters (the degenerate solutions of ?fit_nig's mixtures section):
# where MixGHD's solution has one, its log-likelihood is not a bar for ghmix
degenerate <- res$mixghd_min_size < res$params
if (any(degenerate)) {
  message("MixGHD's solution has a component with fewer effective rows than ",
          "parameters (ghmix drops such components) for: ",
          paste(res$data[degenerate], "G =", res$G[degenerate],
                collapse = "; "))
}
bad <- res$gain < -1e-6 * abs(res$mixghd_loglik) & !degenerate
if (any(bad)) {
  stop("ghmix's log-likelihood is below MixGHD's for: ",
       paste(res$data[bad], "G =", res$G[bad], collapse = "; "))
}
