# Finite mixtures of GH-family distributions (components = G).

# G separated NIG clusters in d = 2 with known labels and parameters.
sim_clusters <- function(n, seed) {
  set.seed(seed)
  truth <- list(
    props = c(0.3, 0.3, 0.4),
    comps = list(
      list(mu = c(-6, 0), gamma = c(1, 0), sigma = diag(c(0.5, 0.8))),
      list(mu = c(0, 5), gamma = c(0, -1),
           sigma = matrix(c(1, 0.3, 0.3, 0.6), 2)),
      list(mu = c(6, 0), gamma = c(-0.5, 0.5), sigma = diag(c(0.7, 0.5)))
    )
  )
  lab <- sample(3L, n, replace = TRUE, prob = truth$props)
  x <- matrix(0, n, 2L, dimnames = list(NULL, c("v1", "v2")))
  for (k in 1:3) {
    i <- which(lab == k)
    ck <- truth$comps[[k]]
    x[i, ] <- sim_mixture(length(i), ck$mu, ck$gamma, ck$sigma, -0.5, 2, 2)
  }
  list(x = x, labels = lab, truth = truth)
}

# The mixture log-likelihood from dgh() of each component.
true_loglik <- function(x, truth) {
  dens <- vapply(1:3, function(k) {
    ck <- truth$comps[[k]]
    truth$props[[k]] * dgh(x, ck$mu, ck$gamma, ck$sigma, -0.5, 2, 2)
  }, numeric(nrow(x)))
  sum(log(rowSums(dens)))
}

# The maximum log-likelihood of a Gaussian mixture of two full-covariance
# components by plain EM from a partition (written out here, independent of
# ghmix).
gaussian_mixture_loglik <- function(x, lab, iters = 500L) {
  z <- cbind(lab == 1, lab == 2) + 0
  for (it in seq_len(iters)) {
    dens <- vapply(1:2, function(k) {
      w <- z[, k]
      m <- colSums(w * x) / sum(w)
      u <- sweep(x, 2L, m)
      s <- crossprod(u * w, u) / sum(w)
      q <- rowSums((u %*% solve(s)) * u)
      mean(w) * exp(-q / 2) / (2 * pi * sqrt(det(s)))
    }, numeric(nrow(x)))
    z <- dens / rowSums(dens)
  }
  sum(log(rowSums(dens)))
}

big <- sim_clusters(30000L, 11L)

test_that("the adjusted Rand index matches its closed form and mclust", {
  expect_equal(ari(c(1, 1, 2, 2), c(2, 2, 1, 1)), 1)
  # table [[2, 0], [1, 1]]: sum C(n_ij, 2) = 1, rows C(2,2) + C(2,2) = 2,
  # columns C(3,2) + 0 = 3, expected 2 * 3 / C(4,2) = 1: (1 - 1) / ... = 0
  expect_equal(ari(c(1, 1, 2, 2), c(1, 1, 1, 2)), 0)
  skip_if_not_installed("mclust")
  a <- sample(3, 50, TRUE)
  b <- sample(3, 50, TRUE)
  expect_equal(ari(a, b), mclust::adjustedRandIndex(a, b))
})

test_that("a G = 3 NIG mixture recovers separated clusters", {
  set.seed(1)
  fit <- fit_nig(big$x, components = 3, nstart = 1)
  expect_s3_class(fit, c("ghmix_mixture_nig", "ghmix_mixture"))
  expect_true(fit$converged)
  expect_identical(fit$G, 3L)
  expect_gte(ari(fit$classification, big$labels), 0.95)
  expect_gte(fit$loglik, true_loglik(big$x, big$truth))
  # components ordered by mu[1]: the truth's order
  mu1 <- vapply(fit$components, function(par) par$mu[[1L]], 0)
  expect_equal(mu1, c(-6, 0, 6), tolerance = 0.05)
  expect_equal(fit$proportions, big$truth$props, tolerance = 0.05)
  # the EM log-likelihood never decreases
  ll <- fit$trace$loglik
  expect_true(all(diff(ll) >= -1e-9 * abs(ll[-1L])))
  # loglik, criteria, memberships
  z <- fitted(fit)
  expect_equal(dim(z), c(nrow(big$x), 3L))
  expect_equal(rowSums(z), rep(1, nrow(z)), tolerance = 1e-12)
  expect_equal(fit$uncertainty, 1 - apply(z, 1L, max))
  expect_equal(fit$df, 2 + 3 * (2 + 2 + 3 + 1))
  expect_equal(BIC(fit), fit$BIC)
  expect_equal(AIC(fit), fit$AIC)
  expect_gte(fit$ICL, fit$BIC)
  # predict at the data is the fit's membership; density integrates its log
  expect_equal(predict(fit, big$x[1:50, ]), z[1:50, ], tolerance = 1e-8,
               ignore_attr = TRUE)
  expect_identical(predict(fit, big$x[1:50, ], type = "class"),
                   fit$classification[1:50])
  expect_equal(sum(log(predict(fit, type = "density"))), fit$loglik,
               tolerance = 1e-10)
  # coef per component, every parametrisation of one fit
  k2 <- coef(fit, component = 2, parametrization = "ghyp")
  expect_equal(k2$chi, fit$components[[2L]]$b)
  expect_length(coef(fit)$components, 3L)
  expect_error(coef(fit, component = 4), class = "ghmix_error_argument")
  sims <- simulate(fit, seed = 3)
  expect_equal(dim(sims$sim_1), dim(big$x))
  expect_setequal(unique(attr(sims$sim_1, "component")), 1:3)
  expect_output(print(fit), "3-component NIG mixture")
  expect_output(print(summary(fit)), "Component 3")
})

test_that("the component order and results do not depend on the seed", {
  x <- big$x[1:3000, ]
  tab <- lapply(c(5L, 99L), function(seed) {
    set.seed(seed)
    fit <- fit_nig(x, components = 3, nstart = 1)
    capture.output(print(signif(ghmix:::mixture_table(fit), 4)))
  })
  expect_identical(tab[[1L]], tab[[2L]])
})

test_that("BIC picks G = 3 among 1:5 and keeps the table", {
  x <- big$x[1:5000, ]
  set.seed(2)
  fit <- suppressWarnings(
    fit_nig(x, components = 1:5, nstart = 0,
            control = ghmix_control(tol = 1e-6, param_tol = 1e-4,
                                    max_iter = 40))
  )
  expect_identical(fit$G, 3L)
  expect_identical(fit$criteria$asked, 1:5)
  expect_identical(which.min(fit$criteria$BIC), 3L)
  expect_identical(fit$criterion, "bic")
  expect_output(print(fit), "Selected G = 3 by BIC")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
})

test_that("components = 1 is today's fit", {
  set.seed(8)
  x <- sim_mixture(2000, c(1, 2), c(0.5, -0.5), diag(2), -0.5, 2, 2)
  one <- fit_nig(x)
  again <- fit_nig(x, components = 1)
  keep <- setdiff(names(one), c("timings", "call"))
  expect_identical(again[keep], one[keep])
  expect_identical(class(again), class(one))
  expect_identical(fit_gh(x, components = 1L)$loglik, fit_gh(x)$loglik)
})

test_that("start labels give the fit and bad labels are classed errors", {
  x <- big$x[1:3000, ]
  lab <- big$labels[1:3000]
  fit <- fit_nig(x, components = 3, start = lab)
  expect_identical(fit$start, "labels")
  expect_gte(ari(fit$classification, lab), 0.95)
  again <- fit_nig(x, components = 3, start = fit)
  expect_equal(again$loglik, fit$loglik, tolerance = 1e-8)
  err <- "ghmix_error_start_labels"
  expect_error(fit_nig(x, components = 3, start = lab[-1]), class = err)
  expect_error(fit_nig(x, components = 2, start = lab), class = err)
  na_lab <- lab
  na_lab[5] <- NA
  expect_error(fit_nig(x, components = 3, start = na_lab), class = err)
  one_point <- lab
  one_point[1] <- 4L
  expect_error(fit_nig(x, components = 4, start = one_point), class = err)
  expect_error(fit_nig(x, components = 3, start = "a"), class = err)
  expect_error(fit_nig(x, components = 0), class = "ghmix_error_argument")
  expect_error(fit_nig(x, components = c(2, 2)),
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, components = 2, nstart = -1),
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, components = 2, criterion = "aic"),
               class = "ghmix_error_argument")
})

test_that("a degenerate component is dropped with a classed warning", {
  x <- big$x[1:3000, ]
  lab <- big$labels[1:3000]
  # a fourth cluster of 3 rows: d + 1, allowed as a start, but below the
  # component's 8 free parameters
  lab[which(lab == 1L)[1:3]] <- 4L
  expect_warning(
    fit <- fit_nig(x, components = 4, start = lab),
    class = "ghmix_warning_component"
  )
  expect_identical(fit$G, 3L)
  expect_identical(nrow(fit$dropped), 1L)
  expect_false(anyNA(unlist(fit$components)))
  expect_identical(ncol(fit$z), 3L)
})

test_that("the R mixture E-step matches an independent computation", {
  x <- big$x[1:500, ]
  pars <- lapply(big$truth$comps, function(ck) {
    c(ck, list(p = -0.5, a = 2, b = 2))
  })
  es <- ghmix:::mixture_estep_r(x, pars, big$truth$props, rows = TRUE)
  dens <- vapply(1:3, function(k) {
    ck <- pars[[k]]
    big$truth$props[[k]] * dgh(x, ck$mu, ck$gamma, ck$sigma, -0.5, 2, 2)
  }, numeric(nrow(x)))
  expect_equal(es$loglik, sum(log(rowSums(dens))), tolerance = 1e-12)
  expect_equal(es$rows$tau, dens / rowSums(dens), tolerance = 1e-12)
  expect_equal(es$components[[2L]]$tau, sum(es$rows$tau[, 2L]))
  expect_equal(es$components[[2L]]$sx,
               colSums(es$rows$tau[, 2L] * sweep(x, 2L, pars[[2L]]$mu)),
               tolerance = 1e-12, ignore_attr = TRUE)
  # integer weights are replicated rows
  w <- rep(1:2, length.out = nrow(x))
  ew <- ghmix:::mixture_estep_r(x, pars, big$truth$props, weights = w)
  er <- ghmix:::mixture_estep_r(x[rep(seq_len(nrow(x)), w), ], pars,
                                big$truth$props)
  expect_equal(ew$loglik, er$loglik, tolerance = 1e-12)
  expect_equal(ew$components[[3L]]$sxx, er$components[[3L]]$sxx,
               tolerance = 1e-12)
})

test_that("the compiled mixture E-step equals the R one", {
  skip_if_not(exists("mixture_estep", envir = asNamespace("ghmix")),
              "no compiled mixture E-step in this build")
  x <- big$x[1:2000, ]
  pars <- lapply(big$truth$comps, function(ck) {
    c(ck, list(p = -0.5, a = 2, b = 2))
  })
  what <- ghmix:::mix_what_rows()
  r <- ghmix:::mixture_estep_r(x, pars, big$truth$props, what = what,
                               rows = TRUE, threads = 1L)
  cc <- ghmix:::mixture_estep(x, pars, big$truth$props, what = what,
                              rows = TRUE, threads = 1L)
  expect_equal(cc$loglik, r$loglik, tolerance = 1e-12)
  expect_equal(cc$rows$tau, r$rows$tau, tolerance = 1e-12, ignore_attr = TRUE)
  for (k in 1:3) {
    for (nm in c("tau", "s_inv", "s_y", "s_log", "sx", "sxw", "sxx")) {
      expect_equal(cc$components[[k]][[nm]], r$components[[k]][[nm]],
                   tolerance = 1e-10, ignore_attr = TRUE, info = nm)
    }
  }
  # the fit through either E-step
  old <- options(ghmix.mixture_estep = "r")
  on.exit(options(old))
  set.seed(6)
  fit_r <- fit_nig(x, components = 3, nstart = 1)
  options(ghmix.mixture_estep = "c")
  set.seed(6)
  fit_c <- fit_nig(x, components = 3, nstart = 1)
  expect_equal(fit_c$loglik, fit_r$loglik, tolerance = 1e-8)
  expect_equal(fit_c$components, fit_r$components, tolerance = 1e-5)
})

test_that("faithful: a 2-component NIG mixture beats a Gaussian mixture", {
  set.seed(4)
  fit <- suppressWarnings(
    fit_nig(faithful, components = 2, control = ghmix_control(tol = 1e-9))
  )
  expect_identical(fit$G, 2L)
  expect_identical(colnames(fit$data), names(faithful))
  # the best two-component Gaussian mixture's log-likelihood, from the EM
  # below (mclust's VVV model, when installed, gives the same maximum)
  gauss <- gaussian_mixture_loglik(as.matrix(faithful), fit$classification)
  expect_gte(fit$loglik, gauss)
  if (requireNamespace("mclust", quietly = TRUE)) {
    m <- mclust::meVVV(faithful, mclust::unmap(fit$classification))
    expect_gte(fit$loglik, m$loglik)
    expect_equal(m$loglik, gauss, tolerance = 1e-6)
  }
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit))
  # (eruptions, rounded to the millisecond, hold ties: a short fit)
  fit1 <- suppressWarnings(
    fit_nig(faithful$eruptions, components = 2,
            control = ghmix_control(max_iter = 30))
  )
  expect_identical(fit1$G, 2L)
  expect_silent(plot(fit1))
})

test_that("GH, VG and skew-t mixtures fit the clusters too", {
  x <- big$x[1:3000, ]
  lab <- big$labels[1:3000]
  for (f in list(fit_gh, fit_vg, fit_skewt)) {
    set.seed(1)
    fit <- f(x, components = 3, nstart = 1)
    expect_true(fit$converged)
    expect_gte(ari(fit$classification, lab), 0.95)
    ll <- fit$trace$loglik
    expect_true(all(diff(ll) >= -1e-9 * abs(ll[-1L])))
  }
  set.seed(1)
  sym <- fit_nig(x, components = 3, nstart = 1, symmetric = TRUE)
  expect_equal(sym$df, 2 + 3 * (2 + 3 + 1))
  expect_true(all(vapply(sym$components, function(p) all(p$gamma == 0), NA)))
  # (chunked data and clusters: test-mix-chunked.R)
})

test_that("mixture weights: integer weights are replicated rows, 0 drops", {
  sim <- sim_clusters(600, 31)
  x <- sim$x
  set.seed(4)
  w <- sample(0:3, nrow(x), replace = TRUE, prob = c(0.1, 0.5, 0.3, 0.1))
  rep_x <- x[rep(seq_len(nrow(x)), w), , drop = FALSE]
  # both from the same previous fit: the two EM paths are then the same up
  # to rounding (the weighted sums are the replicated rows' sums)
  f0 <- suppressWarnings(
    fit_nig(x, components = 3, nstart = 0,
            control = ghmix_control(max_iter = 20))
  )
  ctl <- ghmix_control(max_iter = 200)
  fw <- suppressWarnings(
    fit_nig(x, components = 3, weights = w, control = ctl, start = f0)
  )
  fr <- suppressWarnings(
    fit_nig(rep_x, components = 3, control = ctl, start = f0)
  )
  # the replicated rows' fit, an independent reference
  expect_equal(fw$loglik, fr$loglik, tolerance = 1e-10)
  expect_equal(fw$nobs, sum(w))
  expect_equal(fw$nrow, nrow(x))
  expect_equal(fw$proportions, fr$proportions, tolerance = 1e-6)
  for (k in 1:3) {
    expect_equal(fw$components[[k]]$mu, fr$components[[k]]$mu,
                 tolerance = 1e-6)
  }
  expect_equal(BIC(fw), BIC(fr), tolerance = 1e-10)
  # the reported log-likelihood is the weighted sum of the mixture density
  dens <- Reduce(`+`, lapply(1:3, function(k) {
    cp <- fw$components[[k]]
    fw$proportions[k] * dgh(x, cp$mu, cp$gamma, cp$sigma, cp$p, cp$a, cp$b)
  }))
  expect_equal(fw$loglik, sum(w * log(dens)), tolerance = 1e-10)
  expect_output(print(fw), "weighted: sum of weights")
  expect_error(fit_nig(x, components = 2, weights = -w),
               class = "ghmix_error_argument")
  expect_error(fit_nig(x, components = 2, weights = w[-1]),
               class = "ghmix_error_argument")
})

test_that("backend = \"cuda\" mixtures: the CPU fit, or the classed error", {
  sim <- sim_clusters(900, 12)
  info <- ghmix_info()
  if (!info$cuda || nrow(info$devices) == 0L) {
    cls <- if (info$cuda) "ghmix_error_no_device" else
      "ghmix_error_cuda_not_built"
    expect_error(fit_nig(sim$x, components = 2, backend = "cuda"),
                 class = cls)
    skip("no usable CUDA device")
  }
  set.seed(3)
  cpu <- fit_nig(sim$x, components = 3, nstart = 1)
  set.seed(3)
  gpu <- fit_nig(sim$x, components = 3, nstart = 1, backend = "cuda")
  # the same EM from the same starts; the sums differ by rounding only
  expect_equal(gpu$loglik, cpu$loglik, tolerance = 1e-9)
  expect_equal(gpu$proportions, cpu$proportions, tolerance = 1e-6)
})
