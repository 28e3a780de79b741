# confint(): Wald intervals from vcov() (their coverage in simulations
# with known truth), the Gaussian fit's closed-form vcov() against a
# numerical Hessian, and profile intervals against a plain-R profile of
# the likelihood by dgh() and optim().

test_that("Wald intervals are estimate -/+ z se, named as tidy() names them", {
  fit <- fit_nig(diff(log(EuStockMarkets))[, 1:2])
  ci <- confint(fit, level = 0.9)
  td <- tidy(fit)
  expect_identical(rownames(ci), td$term)
  expect_identical(colnames(ci), c("5 %", "95 %"))
  expect_identical(attr(ci, "method"), "wald")
  z <- qnorm(0.95)
  expect_equal(unname(ci[, 1]), td$estimate - z * td$std.error,
               tolerance = 1e-14)
  expect_equal(unname(ci[, 2]), td$estimate + z * td$std.error,
               tolerance = 1e-14)
  expect_identical(confint(fit, c("a", "mu[DAX]"))[, 1],
                   confint(fit)[c("a", "mu[DAX]"), 1])
  expect_identical(confint(fit, 2:3)[, 1], confint(fit)[2:3, 1])
  expect_error(confint(fit, "nu"), class = "ghmix_error_argument")
  expect_error(confint(fit, level = 1), class = "ghmix_error_argument")
  expect_error(confint(fit, method = "bootstrap"),
               class = "ghmix_error_argument")
})

test_that("confint() of held, factor, online, penalised and mixture fits", {
  set.seed(21)
  x <- rgh(800, mu = 0.1, gamma = 0.3, sigma = 1, p = -0.5, a = 1, b = 1)
  held <- fit_nig(x, fixed = list(mu = 0.1))
  ci <- confint(held)
  expect_true(all(is.na(ci["mu[x]", ])))
  expect_false(anyNA(ci[-1, ]))
  pen <- fit_nig(cbind(x, x + rnorm(800)), shrink = 0.5)
  expect_true(all(is.na(confint(pen))))
  on <- fit_nig(x, control = ghmix_control(
    online = ghmix_online(batch_size = 200)
  ))
  expect_identical(rownames(confint(on)), rownames(vcov(on)))
  y <- cbind(x, x + rnorm(800), x - rnorm(800))
  fac <- fit_nig(y, factors = 1)
  expect_identical(rownames(confint(fac)), rownames(vcov(fac)))
  two <- c(x, x + 8)
  mix <- fit_nig(two, components = 2)
  cm <- confint(mix)
  expect_identical(rownames(cm), rownames(vcov(mix)))
  expect_true("component_2:a" %in% rownames(cm))
  expect_false(anyNA(cm))
  expect_error(confint(mix, method = "profile"),
               class = "ghmix_error_argument")
  expect_error(confint(on, method = "profile"), class = "ghmix_error_online")
  expect_error(confint(pen, method = "profile"),
               class = "ghmix_error_argument")
  expect_error(confint(fit_gaussian(x), method = "profile"),
               class = "ghmix_error_argument")
  expect_error(confint(fit_nig(x, gauge = "det"), "a", method = "profile"),
               class = "ghmix_error_argument")
})

test_that("the Gaussian fit's vcov() is the inverse observed information", {
  set.seed(22)
  x <- matrix(rnorm(500 * 2), ncol = 2) %*% matrix(c(1, 0.5, 0, 1), 2)
  colnames(x) <- c("u", "v")
  fit <- fit_gaussian(x)
  theta <- c(fit$parameters$mu, fit$parameters$sigma[c(1, 2, 4)])
  ll <- function(th) {
    s <- matrix(th[c(3, 4, 4, 5)], 2)
    u <- sweep(x, 2L, th[1:2])
    -nrow(x) / 2 * (2 * log(2 * pi) + log(det(s))) -
      sum((u %*% solve(s)) * u) / 2
  }
  h <- optimHess(theta, ll)
  expect_equal(unname(vcov(fit)), unname(solve(-h)), tolerance = 1e-5)
  expect_identical(rownames(vcov(fit)),
                   c("mu[u]", "mu[v]", "Sigma[u,u]", "Sigma[u,v]",
                     "Sigma[v,v]"))
  ci <- confint(fit)
  expect_equal(unname(ci["mu[u]", 2] - ci["mu[u]", 1]),
               2 * qnorm(0.975) * sqrt(fit$parameters$sigma[1, 1] / 500),
               tolerance = 1e-12)
})

test_that("Wald intervals of a NIG fit cover the truth at their level", {
  skip_on_cran()
  set.seed(23)
  truth <- c(0.5, 1, 2, 1, 1) # mu, gamma, Sigma, a, b (E[Y] = 1)
  hits <- replicate(200, {
    x <- rgh(400, mu = 0.5, gamma = 1, sigma = sqrt(2), p = -0.5, a = 1,
             b = 1)
    ci <- confint(fit_nig(x))
    ci[, 1] <= truth & truth <= ci[, 2]
  })
  cover <- rowMeans(hits)
  # 200 replicates: the binomial standard error at 0.95 is 0.015
  expect_true(all(cover > 0.9 & cover < 0.99))
})

# The constrained maximum of f over v (Nelder-Mead from v0, restarted
# from its answer until it gains nothing).
max_over <- function(f, v0) {
  g <- function(v) {
    val <- f(v)
    if (is.finite(val)) -val else 1e300
  }
  best <- optim(v0, g, control = list(reltol = 1e-14, maxit = 20000))
  repeat {
    again <- optim(best$par, g, control = list(reltol = 1e-14, maxit = 20000))
    if (again$value >= best$value - 1e-10) break
    best <- again
  }
  -best$value
}

# The ends of the plain-R profile interval of a parameter: roots of
# 2 (ll_hat - ll_at(v)) = crit in the brackets given.
plain_ends <- function(ll_at, ll_hat, lower, upper, crit = qchisq(0.95, 1)) {
  dev <- function(v) 2 * (ll_hat - ll_at(v)) - crit
  c(uniroot(dev, lower, tol = 1e-7)$root, uniroot(dev, upper, tol = 1e-7)$root)
}

test_that("profile intervals of the NIG's a and the t's p match plain R", {
  set.seed(24)
  x <- rgh(400, mu = 0, gamma = 0.5, sigma = 1, p = -0.5, a = 0.7, b = 0.7)
  fit <- fit_nig(x)
  pr <- confint(fit, "a", method = "profile")
  expect_identical(attr(pr, "method"), "profile")
  par <- fit$parameters
  ll_a <- function(v) {
    max_over(function(w) {
      sum(dgh(x, w[1], w[2], exp(w[3]), -0.5, v, v, log = TRUE))
    }, c(par$mu, par$gamma, log(sqrt(par$sigma[1]))))
  }
  ends <- plain_ends(ll_a, fit$loglik, c(pr[1] / 1.5, par$a),
                     c(par$a, pr[2] * 1.5))
  expect_equal(unname(pr[1, ]), ends, tolerance = 2e-4)
  # wider than Wald on the side away from 0
  wald <- confint(fit, "a")
  expect_gt(pr[2] - par$a, wald[2] - par$a)

  y <- 0.3 + 1.5 * rt(400, df = 5)
  tf <- fit_student(y)
  pt <- confint(tf, method = "profile")
  expect_identical(rownames(pt), "p")
  tp <- tf$parameters
  ll_p <- function(p) {
    # the gauge b = 1 (the likelihood does not depend on it)
    max_over(function(w) {
      sum(dgh(y, w[1], 0, exp(w[2]), p, 0, 1, log = TRUE))
    }, c(tp$mu, log(sqrt(tp$sigma[1] * tp$b))))
  }
  ends <- plain_ends(ll_p, tf$loglik, c(pt[1] * 1.5, tp$p),
                     c(tp$p, pt[2] / 1.5))
  expect_equal(unname(pt[1, ]), ends, tolerance = 2e-4)
})

test_that("the GH's p profile matches plain R; unbounded ends are edges", {
  skip_on_cran()
  set.seed(25)
  x <- rgh(3000, mu = 0, gamma = 0.3, sigma = 1, p = -1.5, a = 1, b = 2)
  fit <- fit_gh(x)
  # (a level whose ends are interior fits: a, b > 0, where the plain-R
  # gauge a = b = w reaches)
  pr <- confint(fit, "p", level = 0.5, method = "profile")
  expect_identical(colnames(pr), c("25 %", "75 %"))
  par <- fit$parameters
  s <- sqrt(par$a / par$b) # the gauge a = b = w
  v0 <- c(par$mu, par$gamma / s, log(sqrt(par$sigma[1] / s)),
          log(sqrt(par$a * par$b)))
  ll_p <- function(p) {
    max_over(function(w) {
      sum(dgh(x, w[1], w[2], exp(w[3]), p, exp(w[4]), exp(w[4]), log = TRUE))
    }, v0)
  }
  ends <- plain_ends(ll_p, fit$loglik, c(pr[1] - 0.3, pr[1] + 0.3),
                     c(pr[2] - 0.3, pr[2] + 0.3), crit = qchisq(0.5, 1))
  expect_equal(unname(pr[1, ]), ends, tolerance = 1e-3)
  # nearly normal data: the t's degrees of freedom are not bounded above
  set.seed(26)
  z <- rnorm(300)
  pz <- suppressWarnings(confint(fit_student(z), "p", method = "profile"))
  expect_identical(pz[[1L]], -Inf)
  expect_lt(pz[[2L]], 0)
})
