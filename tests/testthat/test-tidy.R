# tidy(), glance() and augment() of every kind of fit, against vcov(),
# predict() and base R (stats::mahalanobis), in broom's conventions
# (the column names of modeltests' glossary; one row per parameter or per
# model; the new columns of augment() start with a dot).

tidy_columns <- c("term", "component", "estimate", "std.error", "statistic",
                  "p.value", "conf.low", "conf.high")
glance_columns <- c("logLik", "AIC", "BIC", "ICL", "nobs", "df", "G",
                    "family", "symmetric", "converged", "iterations")

expect_tidy_conventions <- function(td) {
  expect_s3_class(td, "data.frame")
  expect_true(all(names(td) %in% tidy_columns))
  expect_identical(names(td)[1L], "term")
  expect_identical(anyDuplicated(names(td)), 0L)
  expect_identical(attr(td, "row.names"), seq_len(nrow(td)))
}

eu <- diff(log(EuStockMarkets))

# n rows of a NIG law with d = ncol(s), named v1, v2, ...
sim_nig <- function(n, mu, gamma, s) {
  y <- rgig(n, -0.5, 1, 1)
  x <- outer(y, gamma) + sqrt(y) * (matrix(rnorm(n * nrow(s)), n) %*% chol(s))
  x <- sweep(x, 2L, mu, "+")
  colnames(x) <- paste0("v", seq_len(ncol(x)))
  x
}

test_that("tidy() of one distribution: vcov()'s terms and errors", {
  fit <- fit_nig(eu[, 1:2])
  td <- tidy(fit, conf.int = TRUE, conf.level = 0.9)
  expect_tidy_conventions(td)
  v <- vcov(fit)
  expect_identical(td$term, rownames(v))
  expect_equal(td$std.error, unname(sqrt(diag(v))), tolerance = 1e-14)
  par <- fit$parameters
  expect_identical(td$estimate[td$term == "mu[DAX]"], unname(par$mu[1]))
  expect_identical(td$estimate[td$term == "Sigma[DAX,SMI]"], par$sigma[2, 1])
  expect_identical(td$estimate[td$term == "a"], par$a)
  z <- td$estimate / td$std.error
  tested <- td$term %in% c("mu[DAX]", "mu[SMI]", "gamma[DAX]", "gamma[SMI]",
                           "Sigma[DAX,SMI]")
  expect_equal(td$statistic[tested], z[tested], tolerance = 1e-14)
  expect_true(all(is.na(td$statistic[!tested])))
  expect_equal(td$p.value[tested], 2 * pnorm(-abs(z[tested])),
               tolerance = 1e-14)
  q <- qnorm(0.95)
  expect_equal(td$conf.low, td$estimate - q * td$std.error, tolerance = 1e-14)
  expect_equal(td$conf.high, td$estimate + q * td$std.error,
               tolerance = 1e-14)
  expect_false("conf.low" %in% names(tidy(fit)))
  if (requireNamespace("tibble", quietly = TRUE)) {
    expect_s3_class(td, "tbl_df")
  }
})

test_that("tidy() marks held parameters and the GH's p", {
  set.seed(2)
  x <- rgh(1500, mu = 0, gamma = 0.3, sigma = 1, p = 1, a = 2, b = 1)
  fit <- fit_gh(x, fixed = list(mu = 0))
  td <- tidy(fit, conf.int = TRUE)
  held <- td$term == "mu[x]"
  expect_identical(td$estimate[held], 0)
  expect_true(is.na(td$std.error[held]) && is.na(td$conf.low[held]))
  expect_false(is.na(td$statistic[td$term == "p"]))
  vg <- fit_vg(x)
  expect_true(is.na(tidy(vg)$statistic[tidy(vg)$term == "p"]))
})

test_that("tidy(), glance(), augment() of factor, online, Gaussian fits", {
  set.seed(3)
  x <- sim_nig(400, rep(0, 4), c(0.3, 0, 0, -0.2), 0.6 + diag(4) * 0.4)
  fac <- fit_nig(x, factors = 1)
  td <- tidy(fac)
  expect_tidy_conventions(td)
  expect_identical(td$term, rownames(vcov(fac)))
  expect_true(all(c("F[v1,F1]", "D[v4]") %in% td$term))
  expect_true(is.na(td$statistic[td$term == "D[v1]"]))
  aug <- augment(fac)
  sigma <- coef(fac, sigma = TRUE)$sigma
  expect_equal(aug$.mahalanobis,
               unname(mahalanobis(x, coef(fac)$mu, sigma)), tolerance = 1e-10)
  expect_equal(aug$.density, unname(predict(fac)), tolerance = 1e-14)
  on <- fit_nig(rbind(x, x, x), control = ghmix_control(
    online = ghmix_online(batch_size = 400)
  ))
  expect_identical(tidy(on)$term, rownames(vcov(on)))
  gl <- glance(on)
  expect_true(is.na(gl$converged))
  expect_identical(gl$iterations, 3L)
  expect_error(augment(on), class = "ghmix_error_online")
  expect_identical(nrow(augment(on, newdata = x[1:5, ])), 5L)
  g <- fit_gaussian(x)
  tg <- tidy(g)
  expect_tidy_conventions(tg)
  expect_identical(tg$estimate[1:4], unname(colMeans(x)))
  expect_identical(glance(g)$family, "gaussian")
  ag <- augment(g)
  s <- g$parameters$sigma
  expect_equal(ag$.density,
               exp(-(4 * log(2 * pi) + log(det(s)) +
                       mahalanobis(x, colMeans(x), s)) / 2),
               tolerance = 1e-12)
})

test_that("glance() has one row of the model's figures", {
  set.seed(4)
  fit <- fit_skewt(sim_nig(500, c(0, 1), c(0.2, 0), diag(2)))
  gl <- glance(fit)
  expect_identical(nrow(gl), 1L)
  expect_identical(names(gl), glance_columns)
  ll <- logLik(fit)
  expect_identical(gl$logLik, fit$loglik)
  expect_identical(gl$AIC, AIC(ll))
  expect_identical(gl$BIC, BIC(ll))
  expect_identical(gl$ICL, gl$BIC)
  expect_identical(gl$df, as.integer(fit$df))
  expect_identical(gl$G, 1L)
  expect_identical(gl$family, "skewt")
  expect_identical(gl$nobs, nobs(fit))
  # one table of several fits
  tab <- do.call(rbind, lapply(list(fit, fit_nig(fit$data)), glance))
  expect_identical(tab$family, c("skewt", "nig"))
})

test_that("augment() adds the density and the Mahalanobis distance", {
  fit <- fit_nig(eu)
  aug <- augment(fit)
  expect_identical(names(aug), c(colnames(eu), ".density", ".mahalanobis"))
  expect_identical(nrow(aug), nrow(eu))
  par <- coef(fit)
  expect_equal(aug$.mahalanobis, unname(mahalanobis(eu, par$mu, par$sigma)),
               tolerance = 1e-10)
  expect_equal(aug$.density, unname(dgh(eu, gh_law(fit))), tolerance = 1e-12)
  # data with other columns and a missing row; newdata first
  df <- data.frame(day = seq_len(6), eu[1:6, ])
  df$CAC[2] <- NA
  rownames(df) <- paste0("d", 1:6)
  a2 <- augment(fit, data = df)
  expect_identical(names(a2)[1:3], c(".rownames", "day", "DAX"))
  expect_identical(a2$.rownames, rownames(df))
  expect_true(is.na(a2$.density[2]) && is.na(a2$.mahalanobis[2]))
  expect_equal(a2$.density[-2], aug$.density[c(1, 3:6)], tolerance = 1e-14)
  a3 <- augment(fit, data = df, newdata = eu[7:8, ])
  expect_identical(nrow(a3), 2L)
  expect_error(augment(fit, data = df[, 1:3]), class = "ghmix_error_argument")
  ch <- fit_nig(ghmix_data(list(eu[1:900, ], eu[901:1859, ])))
  expect_error(augment(ch), class = "ghmix_error_chunked")
  expect_identical(nrow(augment(ch, newdata = eu[1:3, ])), 3L)
})

test_that("tidy(), glance(), augment() of mixtures", {
  set.seed(7)
  two <- rbind(sim_nig(300, c(0, 0), c(0.3, 0), diag(2)),
               sim_nig(300, c(6, 4), c(0, -0.3), diag(2) + 0.5))
  fit <- fit_nig(two, components = 2)
  td <- tidy(fit, conf.int = TRUE)
  expect_tidy_conventions(td)
  expect_identical(td$component, c(rep(1L, 9), rep(2L, 9), 1L, 2L))
  expect_identical(td$term[c(1, 19)], c("mu[v1]", "proportion"))
  expect_identical(td$estimate[19:20], fit$proportions)
  est <- coef(fit)
  expect_identical(td$estimate[td$component == 2 & td$term == "a"],
                   est$components[[2]]$a)
  gl <- glance(fit)
  expect_identical(gl$G, 2L)
  expect_identical(gl$ICL, fit$ICL)
  expect_identical(gl$BIC, fit$BIC)
  aug <- augment(fit)
  expect_identical(aug$.class, unname(fit$classification))
  expect_equal(aug$.uncertainty, unname(fit$uncertainty), tolerance = 1e-12)
  expect_equal(as.matrix(aug[, c(".prob_1", ".prob_2")]), unname(fit$z),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(aug$.density, unname(predict(fit, type = "density")),
               tolerance = 1e-14)
  k <- aug$.class[1]
  cp <- fit$components[[k]]
  expect_equal(aug$.mahalanobis[1],
               unname(mahalanobis(two[1, , drop = FALSE], cp$mu, cp$sigma)),
               tolerance = 1e-10)
  expect_false(anyNA(td$std.error))
  means <- vapply(fit$components, function(p) {
    p$mu + p$gamma * gig_mean(p$p, p$a, p$b)
  }, c(0, 0))
  expect_equal(unname(mean(fit)), unname(drop(means %*% fit$proportions)),
               tolerance = 1e-14)
})

test_that("broom and generics see the same methods", {
  fit <- fit_nig(eu[, "DAX"])
  expect_identical(tidy, generics::tidy)
  skip_if_not_installed("broom")
  expect_identical(broom::tidy(fit), tidy(fit))
  expect_identical(broom::glance(fit), glance(fit))
  expect_identical(broom::augment(fit), augment(fit))
})

test_that("mean(fit) is the fitted law's mean", {
  fit <- fit_nig(eu)
  par <- fit$parameters
  expect_identical(mean(fit), mean(gh_law(fit)))
  expect_equal(mean(fit), par$mu + gig_mean(par$p, par$a, par$b) * par$gamma,
               tolerance = 1e-14)
  set.seed(1)
  sims <- simulate(fit, nsim = 20)
  expect_equal(colMeans(do.call(rbind, sims)), mean(fit), tolerance = 0.05)
  expect_identical(mean(fit_gaussian(eu)), colMeans(eu))
})

test_that("factor mixtures and factor fits: every method", {
  set.seed(9)
  s <- 0.5 + diag(4) * 0.5
  x <- rbind(sim_nig(300, rep(0, 4), c(0.3, 0, 0, 0), s),
             sim_nig(300, rep(5, 4), c(0, 0, -0.3, 0), s))
  mix <- fit_nig(x, components = 2, factors = 1)
  td <- tidy(mix, conf.int = TRUE)
  expect_tidy_conventions(td)
  v <- vcov(mix)
  expect_identical(paste0("component_", td$component, ":", td$term)[1:5],
                   rownames(v)[1:5])
  expect_identical(td$term[td$component == 1 & startsWith(td$term, "F[")],
                   sprintf("F[v%d,F1]", 1:4))
  expect_equal(td$std.error, unname(sqrt(diag(v))), tolerance = 1e-14)
  expect_identical(rownames(confint(mix)), rownames(v))
  expect_identical(glance(mix)$G, 2L)
  aug <- augment(mix)
  cp <- coef(mix, component = 1, sigma = TRUE)
  rows <- which(aug$.class == 1)[1:3]
  expect_equal(aug$.mahalanobis[rows],
               unname(mahalanobis(x[rows, ], cp$mu, cp$sigma)),
               tolerance = 1e-10)
  expect_length(mean(mix), 4L)
  fac <- fit_nig(x[1:300, ], factors = 1)
  expect_equal(mean(fac), mean(gh_law(coef(fac, sigma = TRUE))),
               tolerance = 1e-14)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fac, which = c("pp", "trace")))
  expect_invisible(plot(mix, which = c("uncertainty", "trace")))
  expect_named(qqgh(x[1:300, ], fac), colnames(x))
})
