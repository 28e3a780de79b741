# A small tour of each exported function family, for valgrind memcheck
# (tools/ci-valgrind.sh).  Sizes are small: under valgrind R runs some 30
# times slower.  Everything is also checked for plausibility, so that a
# silently wrong answer fails too.
library(ghmix)
set.seed(1)
ghmix_threads(2L)
stopifnot(
  is.finite(log_besselK(c(1e-10, 0.5, 3, 50, 800), nu = c(0, 2.5, 200))),
  all(is.finite(attr(log_besselK(c(0.1, 2), 1.5, gradient = TRUE),
                     "gradient")))
)
x <- c(0.01, 0.5, 1, 4, 30)
d <- dgig(x, p = -0.5, a = 2, b = 3)
pr <- pgig(x, p = 1.5, a = 1, b = 0.2)
q <- qgig(c(0.01, 0.5, 0.99), p = -2, a = 0.5, b = 4)
r <- rgig(200, p = 0.3, a = 1, b = 1)
stopifnot(all(d >= 0), all(diff(pr) > 0), all(q > 0), all(r > 0),
          abs(pgig(qgig(0.3, 1, 1, 1), 1, 1, 1) - 0.3) < 1e-8)
eta <- gig_expectation(p = c(-0.5, 2), a = c(1, 2), b = c(1, 0.1))
back <- gig_from_expectation(eta, jacobian = TRUE)
stopifnot(all(back$converged), max(abs(back$p - c(-0.5, 2))) < 1e-6)
stopifnot(all(is.finite(gig_moments(1, 2, 3, order = c(-1, 0.5, 2)))),
          is.finite(gig_var(1, 2, 3)))
y <- c(-3, -0.2, 0, 1, 6)
dg <- dgh(y, mu = 0.1, gamma = 0.3, sigma = 1.2, p = -0.5, a = 1, b = 1)
pg <- pgh(y, mu = 0.1, gamma = 0.3, sigma = 1.2, p = 1, a = 2, b = 1)
qg <- qgh(c(0.05, 0.5, 0.95), p = -0.5, a = 1, b = 1)
rg <- rgh(100, mu = c(0, 1), gamma = c(0.2, -0.1), sigma = diag(2))
stopifnot(all(dg > 0), all(diff(pg) > 0), all(diff(qg) > 0),
          identical(dim(rg), c(100L, 2L)))
dm <- dgh(rg[1:5, ], mu = c(0, 1), gamma = c(0.2, -0.1), sigma = diag(2))
stopifnot(all(dm > 0))
xf <- rgh(300, mu = c(0, 1), gamma = c(0.3, 0), sigma = diag(2), p = -0.5,
          a = 1, b = 1)
ctl <- ghmix_control(max_iter = 60L)
fit <- fit_nig(xf, control = ctl)
fit_g <- suppressWarnings(fit_gh(xf[, 1], control = ctl))
pd <- predict(fit, newdata = xf[1:10, ])
pm <- predict(fit, type = "moments")
stopifnot(is.finite(logLik(fit)), is.finite(logLik(fit_g)), all(pd > 0),
          nrow(pm) == 300L, all(is.finite(vcov(fit))))
print(summary(fit))
cat("ghmix valgrind tour: done\n")
