# Issue 14's recovery check at the issue's size: simulated G = 3 NIG and GH
# mixtures in d = 2 and d = 5 with n = 3e4 rows, known labels and
# parameters (the components apart along the first coordinate, E[Y] = 1
# in each, the fits' default gauge).  For each case it fits G = 1:5 (BIC
# picks the number) and asserts, for the G = 3 fit:
#   - the adjusted Rand index against the true labels >= 0.95 (mclust);
#   - the log-likelihood >= that at the true parameters;
#   - every parameter within 4.5 standard errors of the truth
#     (vcov.ghmix_mixture()), and the mean square of those z-scores < 2;
#   - BIC picks G = 3 among 1:5.
# It prints a table and stop()s with a message naming the case and the
# criterion when one fails.  Not part of CI (minutes).
#
#   Rscript bench/mix_recovery.R [--n=30000] [--nstart=1]
#     (writes bench/results/mix_recovery.md)

source(file.path("bench", "common.R"))
if (!requireNamespace("mclust", quietly = TRUE)) {
  stop("bench/mix_recovery.R needs mclust (the adjusted Rand index)")
}

opt <- function(name, default) {
  a <- grep(paste0("^--", name, "="), commandArgs(TRUE), value = TRUE)
  if (length(a)) as.numeric(sub("^[^=]*=", "", a[1L])) else default
}
n <- opt("n", 3e4)
nstart <- as.integer(opt("nstart", 1))
props <- c(0.25, 0.35, 0.4)
pab <- list(nig = c(-0.5, 2, 2), gh = c(1, 1.5, 1))

# Three components of `family` in d dimensions, in the order the fits
# report them (by mu[1]), each with E[Y] = 1: GIG(p, a, b) divided by s =
# E[Y] is GIG(p, s a, b / s).
sim_components <- function(d, family) {
  lapply(1:3, function(k) {
    a_mat <- matrix(stats::rnorm(d * d), d, d) / 3
    shift <- c(-6, 0, 6)[k]
    p <- pab[[family]]
    s <- gig_mean(p[1], p[2], p[3])
    list(mu = c(shift, shift / 2 + stats::rnorm(d - 1L)),
         gamma = stats::rnorm(d) / 2, sigma = crossprod(a_mat) + diag(d) / 2,
         p = p[1], a = s * p[2], b = p[3] / s)
  })
}

sim_case <- function(d, family, seed) {
  set.seed(seed)
  comps <- sim_components(d, family)
  lab <- sample(3L, n, replace = TRUE, prob = props)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in 1:3) {
    i <- which(lab == k)
    ck <- comps[[k]]
    x[i, ] <- rgh(length(i), ck$mu, ck$gamma, ck$sigma, ck$p, ck$a, ck$b)
  }
  list(x = x, labels = lab, comps = comps)
}

fitter <- list(nig = fit_nig, gh = fit_gh)
pack <- function(comps, props, family) {
  c(unlist(lapply(comps, ghmix:::pack_nat, family = family,
                  symmetric = FALSE)), props)
}

run_case <- function(d, family, seed) {
  t0 <- proc.time()[["elapsed"]]
  sim <- sim_case(d, family, seed)
  x <- sim$x
  set.seed(1)
  sel <- fitter[[family]](x, components = 1:5, nstart = nstart)
  fit <- if (sel$G == 3L) {
    sel
  } else {
    set.seed(1)
    fitter[[family]](x, components = 3L, nstart = nstart)
  }
  dens <- vapply(1:3, function(k) {
    ck <- sim$comps[[k]]
    props[[k]] * dgh(x, ck$mu, ck$gamma, ck$sigma, ck$p, ck$a, ck$b)
  }, numeric(nrow(x)))
  ll_true <- sum(log(rowSums(dens)))
  se <- sqrt(diag(vcov(fit)))
  z <- (pack(fit$components, fit$proportions, family) -
          pack(sim$comps, props, family)) / se
  bic <- sel$criteria$BIC[match(1:5, sel$criteria$G)]
  data.frame(
    family = family, d = d, n = n, G_bic = sel$G,
    bic_2_minus_3 = bic[2] - bic[3], bic_4_minus_3 = bic[4] - bic[3],
    converged = fit$converged,
    ari = mclust::adjustedRandIndex(fit$classification, sim$labels),
    loglik_true = ll_true, loglik_minus_true = fit$loglik - ll_true,
    max_abs_z = max(abs(z)), mean_z2 = mean(z^2),
    se_ok = all(is.finite(se) & se > 0),
    seconds = proc.time()[["elapsed"]] - t0
  )
}

t_start <- proc.time()[["elapsed"]]
cases <- expand.grid(family = c("nig", "gh"), d = c(2L, 5L),
                     stringsAsFactors = FALSE)
tab <- do.call(rbind, lapply(seq_len(nrow(cases)), function(i) {
  r <- run_case(cases$d[i], cases$family[i], 140 + i)
  print(r, row.names = FALSE, digits = 4)
  r
}))
elapsed <- proc.time()[["elapsed"]] - t_start

# the criteria, each with its failure message
checks <- list(
  list(ok = tab$G_bic == 3L, what = "BIC did not pick G = 3 among 1:5"),
  list(ok = tab$converged, what = "the G = 3 fit did not converge"),
  list(ok = tab$ari >= 0.95, what = "adjusted Rand index below 0.95"),
  list(ok = tab$loglik_minus_true >= -1e-8 * abs(tab$loglik_true),
       what = "log-likelihood below that at the true parameters"),
  list(ok = tab$se_ok, what = "standard errors not finite and positive"),
  list(ok = tab$max_abs_z < 4.5,
       what = "a parameter more than 4.5 standard errors from the truth"),
  list(ok = tab$mean_z2 < 2, what = "mean square z-score of 2 or more")
)
fails <- unlist(lapply(checks, function(ck) {
  bad <- which(!ck$ok)
  if (length(bad)) {
    sprintf("%s, d = %d: %s", tab$family[bad], tab$d[bad], ck$what)
  }
}))

out <- c(
  "# Mixture recovery at the size of issue 14 (bench/mix_recovery.R)",
  "",
  sprintf("Date: %s UTC. Machine: %s, %d cores (shared), R %s, ghmix %s.",
          format(Sys.time(), tz = "UTC", usetz = FALSE),
          Sys.info()[["sysname"]], parallel::detectCores(),
          getRversion(), utils::packageVersion("ghmix")),
  sprintf(paste("n = %g, G = 3 (proportions %s), fits of G = 1:5 with",
                "nstart = %d, %d threads; elapsed %.0f s."),
          n, paste(props, collapse = ", "), nstart, ghmix_threads(), elapsed),
  "",
  "```",
  utils::capture.output(print(format(tab, digits = 4), row.names = FALSE)),
  "```",
  "",
  if (length(fails)) paste("FAILED:", fails) else
    "All criteria hold (ARI >= 0.95, loglik >= true, |z| < 4.5, BIC G = 3)."
)
writeLines(out)
if (!bench_quick) writeLines(out, file.path(bench_dir, "mix_recovery.md"))
if (length(fails)) stop(paste(fails, collapse = "\n"), call. = FALSE)
