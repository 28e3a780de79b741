# GH-family mixtures (components = G): a G = 3 NIG mixture of n = 5000
# rows in d = 5 fitted to convergence on 1 and 2 threads, by the R mixture
# E-step
# (mixture_estep_r, option ghmix.mixture_estep = "r") and, where this build
# has it, the compiled one (the default); and one E-step of each.  MixGHD
# (MGHD(), the peer of issue 14) is timed where installed; it is not
# installable on the machine these results come from (no CRAN access).
#
#   Rscript bench/mixture.R        (from the repository root)

source(file.path("bench", "common.R"))

x <- mixture_bench_rows()

paths <- c("r", if (exists("mixture_estep", asNamespace("ghmix"))) "c")
cases <- expand.grid(path = paths, threads = 1:2, stringsAsFactors = FALSE)
rows <- lapply(seq_len(nrow(cases)), function(i) {
  path <- cases$path[[i]]
  ghmix_threads(cases$threads[[i]])
  old <- options(ghmix.mixture_estep = path)
  on.exit(options(old))
  set.seed(2)
  t_fit <- system.time(fit <- fit_nig(x, components = 3))[["elapsed"]]
  pars <- fit$components
  estep <- ghmix:::mixture_estep_fun()
  t_e <- time_median(function() {
    estep(x, pars, fit$proportions, what = ghmix:::mix_what("nig"))
  })
  data.frame(
    estep = path, threads = cases$threads[[i]], fit_s = t_fit,
    cycles = fit$iterations, converged = fit$converged, loglik = fit$loglik,
    estep_ms = 1000 * t_e, stringsAsFactors = FALSE
  )
})
res <- do.call(rbind, rows)
single <- time_median(function() fit_nig(x), reps = 3L)
print(res, digits = 10, row.names = FALSE)
cat(sprintf("one NIG distribution on the same rows: %.3f s\n", single))
if (have_peer("MixGHD")) {
  t_peer <- system.time(
    peer <- MixGHD::MGHD(x, G = 3, modelSel = "BIC")
  )[["elapsed"]]
  cat(sprintf("MixGHD::MGHD: %.3f s\n", t_peer))
}
