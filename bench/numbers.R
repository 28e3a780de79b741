# The numbers ghmix gives today, saved so that a change of the code under
# them can be checked against them (a refactor must keep them to 1e-12).
#
#   Rscript bench/numbers.R save before.rds     # with the old build (R_LIBS)
#   Rscript bench/numbers.R save after.rds      # with the new build
#   Rscript bench/numbers.R compare before.rds after.rds [tol]
#
# compare prints, per case, the largest relative difference
# |new - old| / max(|old|, 1e-300) over every number of the case (parameters,
# log-likelihoods, densities, ...), and exits non-zero when one exceeds tol
# (default 1e-12).  Cases: the bench fits (EuStockMarkets NIG/GH/VG/skew-t,
# d = 4 and the DAX; simulated n = 1e5, d = 10 NIG and GH; n = 2552,
# d = 468 GH, 5 EM iterations from a fixed start), a chunked fit, vcov,
# predict, and the distribution functions and log K on fixed grids.
# GHMIX_NUMBERS_QUICK=1 leaves out the n = 1e5 and d = 468 cases.

source(file.path("bench", "common.R"))

quick <- nzchar(Sys.getenv("GHMIX_NUMBERS_QUICK"))

fit_numbers <- function(f) {
  par <- f$parameters
  list(
    mu = unname(par$mu), gamma = unname(par$gamma),
    sigma = unname(par$sigma), pab = c(par$p, par$a, par$b),
    loglik = f$loglik, iterations = f$iterations,
    trace = f$trace$loglik
  )
}

quiet_fit <- function(expr) {
  suppressWarnings(expr)
}

numbers_fits <- function() {
  r <- diff(log(EuStockMarkets))
  out <- list()
  nig <- quiet_fit(fit_nig(r))
  out$eu_nig <- c(fit_numbers(nig), list(
    vcov = unname(vcov(nig)),
    pred = unname(as.matrix(predict(nig, r[1:50, ], type = "moments"))),
    dens = unname(predict(nig, r[1:50, ], type = "log_density")),
    fitted = unname(as.matrix(fitted(nig))[1:50, ])
  ))
  out$eu_gh <- fit_numbers(quiet_fit(fit_gh(r)))
  out$eu_vg <- fit_numbers(quiet_fit(fit_vg(r)))
  out$eu_skewt <- fit_numbers(quiet_fit(fit_skewt(r)))
  out$eu_nig_sym <- fit_numbers(quiet_fit(fit_nig(r, symmetric = TRUE)))
  out$dax_nig <- fit_numbers(quiet_fit(fit_nig(r[, "DAX"])))
  out$dax_gh <- fit_numbers(quiet_fit(fit_gh(r[, "DAX"])))
  out$eu_nig_det <- fit_numbers(quiet_fit(fit_nig(r, gauge = "det")))
  chunks <- ghmix_data(list(r[1:600, ], r[601:1200, ], r[1201:1858, ]))
  out$eu_nig_chunked <- fit_numbers(quiet_fit(fit_nig(chunks)))
  if (!quick) {
    x <- simulate_mixture(1e5, 10, -0.5, 1, 1, 1)
    out$sim_nig <- fit_numbers(quiet_fit(fit_nig(x)))
    out$sim_gh <- fit_numbers(quiet_fit(fit_gh(x)))
    y <- simulate_mixture(2552, 468, 1.5, 3, 0.4, 2)
    start <- list(mu = colMeans(y), gamma = rep(0, 468),
                  sigma = stats::cov(y), p = -0.5, a = 1, b = 1)
    ctl <- ghmix_control(max_iter = 5L, accelerate = FALSE)
    out$large_d_gh <- fit_numbers(quiet_fit(fit_gh(y, start = start,
                                                   control = ctl)))
  }
  out
}

numbers_dist <- function() {
  x <- seq(-6, 6, length.out = 41)
  pars <- list(
    list(p = -0.5, a = 2, b = 1.5), list(p = 2.5, a = 0.3, b = 4),
    list(p = -3, a = 0, b = 4), list(p = 2, a = 4, b = 0)
  )
  out <- list()
  for (k in seq_along(pars)) {
    pp <- pars[[k]]
    args <- list(mu = 0.2, gamma = -0.7, sigma = 1.3,
                 p = pp$p, a = pp$a, b = pp$b)
    out[[paste0("dgh_", k)]] <- do.call(dgh, c(list(x), args, log = TRUE))
    out[[paste0("pgh_", k)]] <- do.call(pgh, c(list(x), args))
    out[[paste0("pgh_upper_", k)]] <- do.call(
      pgh, c(list(x), args, lower.tail = FALSE, log.p = TRUE)
    )
    out[[paste0("qgh_", k)]] <- do.call(
      qgh, c(list(c(1e-10, 0.01, 0.3, 0.5, 0.9, 0.999)), args)
    )
  }
  sig <- matrix(c(1, 0.3, 0.2, 0.3, 2, -0.4, 0.2, -0.4, 1.5), 3)
  xm <- matrix(seq(-3, 3, length.out = 60), 20, 3)
  out$dgh_multi <- dgh(xm, mu = c(0, 1, -1), gamma = c(0.5, -0.2, 0.1),
                       sigma = sig, p = 1.2, a = 2, b = 0.7, log = TRUE)
  xs <- 10^seq(-8, 3, length.out = 37)
  nus <- c(-20.3, -2.5, 0, 0.3, 1, 4.7, 15.9, 16, 40, 300)
  grid <- expand.grid(x = xs, nu = nus)
  lk <- log_besselK(grid$x, grid$nu, gradient = TRUE)
  out$logk <- as.vector(lk)
  out$logk_grad <- as.vector(attr(lk, "gradient"))
  gp <- expand.grid(p = c(-4, -0.5, 0.2, 3), a = c(0.1, 2), b = c(0.05, 3))
  eta <- gig_expectation(gp$p, gp$a, gp$b)
  out$gig_eta <- unlist(eta)
  sol <- gig_from_expectation(eta, jacobian = TRUE)
  out$gig_solve <- c(sol$p, sol$a, sol$b, unlist(sol$jacobian))
  out$gig_moments <- unlist(gig_moments(gp$p, gp$a, gp$b))
  out$gig_var <- gig_var(gp$p, gp$a, gp$b)
  yy <- c(0.01, 0.5, 1, 3, 20)
  out$dgig <- dgig(yy, 0.7, 1.3, 2.1, log = TRUE)
  out$pgig <- pgig(yy, -1.7, 1.3, 2.1)
  out$qgig <- qgig(c(1e-8, 0.2, 0.5, 0.97), 2.2, 0.4, 3)
  set.seed(42)
  out$rgig <- c(rgig(200, 0.7, 1.3, 2.1), rgig(200, -2, 0, 3),
                rgig(200, 3, 2, 0))
  set.seed(43)
  out$rgh <- as.vector(rgh(100, mu = c(0, 1), gamma = c(0.3, 0),
                           sigma = diag(2), p = -0.5, a = 1, b = 1))
  out
}

numbers_save <- function(path) {
  ghmix_threads(2L)
  res <- list(fits = numbers_fits(), dist = numbers_dist())
  saveRDS(res, path)
  message("wrote ", path)
}

rel_diff <- function(old, new) {
  old <- unlist(old)
  new <- unlist(new)
  if (length(old) != length(new)) {
    return(Inf)
  }
  same <- (is.na(old) & is.na(new)) | (old == new)
  same[is.na(same)] <- FALSE
  d <- abs(new - old) / pmax(abs(old), 1e-300)
  d[same] <- 0
  d[is.na(d)] <- Inf
  if (length(d) == 0L) 0 else max(d)
}

numbers_compare <- function(old_path, new_path, tol) {
  old <- readRDS(old_path)
  new <- readRDS(new_path)
  rows <- list()
  for (group in names(old)) {
    for (case in names(old[[group]])) {
      o <- old[[group]][[case]]
      n <- new[[group]][[case]]
      parts <- if (is.list(o)) names(o) else ""
      for (part in parts) {
        ov <- if (nzchar(part)) o[[part]] else o
        nv <- if (nzchar(part)) n[[part]] else n
        rows[[length(rows) + 1L]] <- data.frame(
          case = paste0(group, "/", case, if (nzchar(part)) "$", part),
          max_rel_diff = rel_diff(ov, nv)
        )
      }
    }
  }
  tab <- do.call(rbind, rows)
  print(tab, row.names = FALSE, digits = 3)
  worst <- max(tab$max_rel_diff)
  cat(sprintf("\nworst relative difference %.3g (tolerance %.3g): %s\n",
              worst, tol, if (worst <= tol) "OK" else "DIFFERENT"))
  if (worst > tol) quit(status = 1L)
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 2L && args[[1]] == "save") {
  numbers_save(args[[2]])
} else if (length(args) >= 3L && args[[1]] == "compare") {
  tol <- if (length(args) >= 4L) as.numeric(args[[4]]) else 1e-12
  numbers_compare(args[[2]], args[[3]], tol)
} else {
  stop("usage: Rscript bench/numbers.R save FILE | compare OLD NEW [tol]")
}
