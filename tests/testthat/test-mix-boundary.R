# GH mixtures on small data whose EM crawls (issue 14): on `faithful`
# (G = 2) a component's Sigma tends to a nearly singular matrix with its
# mixing law at the skew-t (a = 0) or VG (b = 0) limit, and the EM ran to
# max_iter.  The fit now goes on by a direct maximisation after 200 EM
# iterations.  The reference maximum is independent of the EM and of its
# score: the mixture of a skew-t (a = 0) and a VG (b = 0) component, the
# limits the fit reports, maximised by nlminb() with numerical gradients
# over its density from dgh(), in the data's units and the gauge E[Y] = 1.

faithful_rows <- as.matrix(faithful)

# The log-likelihood of a mixture of components (lists mu, gamma, sigma, p,
# a, b) with proportions props, by dgh().
dgh_mixture_loglik <- function(x, comps, props) {
  dens <- Reduce(`+`, lapply(seq_along(comps), function(k) {
    par <- comps[[k]]
    props[[k]] * dgh(x, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
  }))
  sum(log(dens))
}

# The maximum of the skew-t + VG mixture from the start comps (a fit's
# components: the first with p < 0, the second with p > 0).
limit_mixture_max <- function(x, comps, props) {
  to_vec <- function(par, ey) {
    chol_l <- t(chol(par$sigma * ey))
    c(par$mu, par$gamma * ey, log(diag(chol_l)), chol_l[2L, 1L])
  }
  from_vec <- function(v) {
    chol_l <- matrix(c(exp(v[5L]), v[7L], 0, exp(v[6L])), 2L)
    list(mu = v[1:2], gamma = v[3:4], sigma = tcrossprod(chol_l))
  }
  ey1 <- gig_mean(comps[[1L]]$p, 0, comps[[1L]]$b)
  ey2 <- gig_mean(comps[[2L]]$p, comps[[2L]]$a, 0)
  v0 <- c(to_vec(comps[[1L]], ey1), log(-comps[[1L]]$p - 1),
          to_vec(comps[[2L]], ey2), log(comps[[2L]]$p - 1),
          stats::qlogis(props[[1L]]))
  loglik <- function(v) {
    p1 <- -exp(v[8L]) - 1
    p2 <- exp(v[16L]) + 1
    c1 <- c(from_vec(v[1:7]), list(p = p1, a = 0, b = -2 * (p1 + 1)))
    c2 <- c(from_vec(v[9:15]), list(p = p2, a = 2 * p2, b = 0))
    w <- stats::plogis(v[17L])
    ll <- dgh_mixture_loglik(x, list(c1, c2), c(w, 1 - w))
    if (is.finite(ll)) ll else -1e10
  }
  opt <- stats::nlminb(v0, function(v) -loglik(v),
                       control = list(iter.max = 2000, eval.max = 5000,
                                      rel.tol = 1e-14))
  -opt$objective
}

test_that("faithful G = 2 converges, at the limits' maximum", {
  set.seed(3)
  fit <- fit_gh(faithful_rows, components = 2)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 300L)
  expect_identical(fit$direct, 201L)
  # the log-likelihood is that of dgh() at the reported parameters
  expect_equal(dgh_mixture_loglik(faithful_rows, fit$components,
                                  fit$proportions),
               fit$loglik, tolerance = 1e-10)
  # the limits are reported
  expect_identical(fit$limits$limit,
                   c("skew-t (a = 0)", "variance gamma (b = 0)"))
  expect_identical(fit$components[[1L]]$a, 0)
  expect_identical(fit$components[[2L]]$b, 0)
  expect_output(print(fit), "skew-t \\(a = 0\\) limit of the GH family")
  expect_output(print(fit), "direct maximisation")
  # monotone (to the rounding of the sum of 272 log densities)
  expect_true(all(diff(fit$trace$loglik) >= -1e-9))
  # the reference: the limits' mixture maximised from the EM before the
  # direct step (its 100th iteration)
  set.seed(3)
  early <- suppressWarnings(fit_gh(faithful_rows, components = 2,
                                   control = ghmix_control(max_iter = 100)))
  expect_false(early$converged)
  ref <- limit_mixture_max(faithful_rows, early$components,
                           early$proportions)
  expect_gt(ref, early$loglik + 0.05) # the EM at 100 was far from it
  expect_gte(fit$loglik, ref - 1e-5)
})

# Under some OpenBLAS kernels (Haswell, Zen) the EM of the fit above
# ended at a = 1.2e-304 and b = 5.7e-297 rather than at 0 (issue 31):
# a law within rounding of its limit is reported at the limit.
test_that("a mixing law within rounding of its gamma limit is that limit", {
  snap <- ghmix:::gig_snap_limit
  y <- c(0.05, 0.5, 2, 30)
  # inverse gamma (a -> 0, p < 0): shape -p, scale b / 2 (closed form)
  near <- list(p = -7.25, a = 1.2e-304, b = 12.5)
  expect_identical(snap(near)$a, 0)
  expect_identical(snap(near)[c("p", "b")], near[c("p", "b")])
  shape <- 7.25
  scale <- 12.5 / 2
  ref <- exp(shape * log(scale) - lgamma(shape) - (shape + 1) * log(y) -
               scale / y)
  expect_equal(dgig(y, near$p, near$a, near$b), ref, tolerance = 1e-13)
  # gamma (b -> 0, p > 0): shape p, rate a / 2
  near_vg <- list(p = 12.25, a = 24.5, b = 5.7e-297)
  expect_identical(snap(near_vg)$b, 0)
  expect_equal(dgig(y, near_vg$p, near_vg$a, near_vg$b),
               stats::dgamma(y, 12.25, rate = 12.25), tolerance = 1e-13)
  # laws that differ from the limit in doubles are left alone:
  # (w / 2)^2 = 3e-10, and for |p| < 1 the term (w / 2)^(2 |p|) = 7e-26
  away <- list(p = -7.25, a = 1e-10, b = 12.5)
  expect_identical(snap(away), away)
  small_p <- list(p = -0.25, a = 1e-100, b = 1)
  expect_identical(snap(small_p), small_p)
  expect_identical(snap(list(p = -0.25, a = 1e-250, b = 1))$a, 0)
  expect_identical(snap(list(p = 0, a = 1e-300, b = 1e-300))$a, 1e-300)
})

test_that("banknote G = 2 converges above the EM that crawled", {
  skip_if_not_installed("mclust")
  env <- new.env()
  utils::data("banknote", package = "mclust", envir = env)
  x <- as.matrix(env$banknote[, -1L])
  set.seed(3)
  fit <- fit_gh(x, components = 2)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 300L)
  expect_equal(dgh_mixture_loglik(x, fit$components, fit$proportions),
               fit$loglik, tolerance = 1e-10)
  # the EM alone, stopped where the direct step starts (no such step: it
  # needs an iteration left), below the direct maximum
  set.seed(3)
  em <- suppressWarnings(fit_gh(x, components = 2,
                                control = ghmix_control(max_iter = 200)))
  expect_false(em$converged)
  expect_null(em$direct)
  expect_false("direct" %in% em$trace$step)
  expect_gt(fit$loglik, em$loglik)
  expect_true(all(diff(fit$trace$loglik) >= -1e-9))
})

# The standardised rows of x and an EM context of family for them.
score_context <- function(x, family) {
  std <- ghmix:::mix_moments(x, NULL)
  z <- sweep(sweep(x, 2L, std$center), 2L, std$scale, "/")
  list(std = std,
       ctx = list(family = family, symmetric = FALSE, threads = 1L, z = z,
                  estep = ghmix:::mixture_estep_fun(), weights = NULL))
}

# Mixing parameters of each family inside its parameter space.
score_mixing <- list(
  gh = list(p = -1.3, a = 0.3, b = 0.8), nig = list(p = -0.5, a = 0.6, b = 1.1),
  vg = list(p = 2.5, a = 1.7, b = 0), skewt = list(p = -3.5, a = 0, b = 2.2)
)

test_that("the direct maximisation's score is the log-likelihood's gradient", {
  x <- faithful_rows
  set.seed(3)
  fit <- suppressWarnings(fit_gh(x, components = 2,
                                 control = ghmix_control(max_iter = 20)))
  for (family in names(score_mixing)) {
    sc <- score_context(x, family)
    pars <- lapply(fit$components, function(par) {
      par <- utils::modifyList(ghmix:::to_std(par, sc$std),
                               score_mixing[[family]])
      ghmix:::set_gauge(par, "det")
    })
    state <- ghmix:::mixture_state(pars, fit$proportions, sc$ctx)
    score <- ghmix:::mixture_direct_score(state, sc$ctx)
    loglik_at <- function(theta) {
      ghmix:::mixture_from_theta(theta, state, sc$ctx)$es$loglik
    }
    h <- 1e-5
    numeric <- vapply(seq_along(state$theta), function(j) {
      e <- replace(0 * state$theta, j, h)
      (loglik_at(state$theta + e) - loglik_at(state$theta - e)) / (2 * h)
    }, 0)
    expect_equal(score, numeric, tolerance = 1e-5, label = family)
  }
})

test_that("NIG, VG and skew-t mixtures of faithful converge too", {
  # (each ran to max_iter = 1000 unconverged before)
  for (fun in list(fit_nig, fit_vg, fit_skewt)) {
    set.seed(1)
    fit <- fun(faithful_rows, components = 2)
    expect_true(fit$converged)
    expect_lt(fit$iterations, 300L)
    expect_identical(fit$direct, 201L)
    expect_equal(dgh_mixture_loglik(faithful_rows, fit$components,
                                    fit$proportions),
                 fit$loglik, tolerance = 1e-10)
    expect_true(all(diff(fit$trace$loglik) >= -1e-9))
    set.seed(1)
    em <- suppressWarnings(fun(faithful_rows, components = 2,
                               control = ghmix_control(max_iter = 200)))
    expect_gt(fit$loglik, em$loglik)
  }
})

test_that("fits that converge within 200 iterations take no direct step", {
  set.seed(2)
  par1 <- sim_params(2, "nig", 1)
  par2 <- sim_params(2, "nig", 2)
  par2$mu <- par2$mu + 6
  x <- rbind(sim_mixture(300, par1$mu, par1$gamma, par1$sigma, -0.5, 2, 2),
             sim_mixture(300, par2$mu, par2$gamma, par2$sigma, -0.5, 2, 2))
  set.seed(1)
  fit <- fit_gh(x, components = 2)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 200L)
  expect_null(fit$direct)
  expect_false("direct" %in% fit$trace$step)
})
