# vcov() of fits with parameters held (fit_gh(fixed = )): the observed
# information of the free parameters only, against optimHess() of the
# log-likelihood from dgh() in a chart that fixes the gauge (d = 1, gauge
# "det": Sigma = 1).

vcov_fixed_data <- function() {
  set.seed(16)
  x <- rgh(4000, mu = 0.2, gamma = -0.4, sigma = 1.3, p = 1, a = 2, b = 1.5)
  matrix(x, dimnames = list(NULL, "u"))
}

# minus the log-likelihood at th (the free parameters, named) with the
# others from par
vcov_fixed_nll <- function(x, par) {
  function(th) {
    q <- utils::modifyList(par, as.list(th))
    -sum(dgh(x[, 1L], mu = q$mu, gamma = q$gamma, sigma = 1, p = q$p,
             a = q$a, b = q$b, log = TRUE))
  }
}

vcov_fixed_chart <- function(x, fit, free) {
  par <- fit$parameters
  par <- list(mu = par$mu[[1L]], gamma = par$gamma[[1L]], p = par$p,
              a = par$a, b = par$b)
  theta <- unlist(par[free])
  scale <- ifelse(free %in% c("a", "b"), theta, 1)
  hess <- stats::optimHess(theta, vcov_fixed_nll(x, par),
                           control = list(ndeps = 1e-3 * scale))
  solve(hess)
}

test_that("vcov with p held: the free parameters' inverse Hessian", {
  x <- vcov_fixed_data()
  fit <- fit_gh(x, fixed = list(p = 1), gauge = "det")
  expect_equal(fit$parameters$sigma[[1L]], 1)
  v <- vcov(fit)
  expect_identical(rownames(v),
                   c("mu[u]", "gamma[u]", "Sigma[u,u]", "p", "a", "b"))
  keep <- c("mu[u]", "gamma[u]", "a", "b")
  ref <- vcov_fixed_chart(x, fit, c("mu", "gamma", "a", "b"))
  expect_equal(unname(v[keep, keep]), unname(ref), tolerance = 1e-4)
  expect_identical(unname(v["p", ]), rep(0, 6))
  expect_equal(unname(v["Sigma[u,u]", ]), rep(0, 6), tolerance = 1e-12)
  # summary() reports the standard errors (0 for p)
  se <- summary(fit)$coefficients[, "Std. Error"]
  expect_equal(unname(se[keep]), sqrt(diag(unname(ref))), tolerance = 1e-4)
  expect_identical(unname(se["p"]), 0)
})

test_that("vcov with mu held: the free parameters' inverse Hessian", {
  x <- vcov_fixed_data()
  fit <- fit_gh(x, fixed = list(mu = 0.2), gauge = "det")
  v <- vcov(fit)
  keep <- c("gamma[u]", "p", "a", "b")
  ref <- vcov_fixed_chart(x, fit, c("gamma", "p", "a", "b"))
  # (p, a, b are nearly collinear here: the reference's second differences
  # are good to a few 1e-4)
  expect_equal(unname(v[keep, keep]), unname(ref), tolerance = 1e-3)
  expect_identical(unname(v["mu[u]", ]), rep(0, 6))
  # held parameters are known: the free ones' variances are at most those
  # of the fit with everything free
  v_free <- vcov(fit_gh(x, gauge = "det"))
  expect_true(all(diag(v)[keep] <= diag(v_free)[keep] * 1.2))
})

test_that("vcov of a hyperbolic fit in the mean gauge", {
  x <- vcov_fixed_data()
  fit <- fit_hyperbolic(x)
  v <- vcov(fit)
  expect_identical(unname(v["p", ]), rep(0, 6))
  expect_true(all(is.finite(v)))
  expect_true(all(diag(v)[c("mu[u]", "gamma[u]", "a", "b")] > 0))
})
