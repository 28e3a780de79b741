# Plots of laws, QQ and PP plots against a law, the EM's trace and the
# uncertainty of a mixture: they draw (base graphics, into a null device),
# return what they say, and the contours enclose the probabilities asked
# for (against draws from the law).

with_null_device <- function(expr) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expr
}

test_that("plot(<law>) draws d = 1, 2 and the pairs of d > 2", {
  s <- matrix(c(1, 0.6, 0.6, 2), 2)
  law2 <- gh_law(mu = c(0, 1), gamma = c(0.5, -0.2), sigma = s)
  with_null_device({
    expect_invisible(plot(gh_law(gamma = 0.5, p = -2, a = 0.5, b = 2)))
    expect_invisible(plot(law2))
    expect_invisible(plot(law2, data = rgh(200, law2), levels = 0.5))
    expect_invisible(plot(law2[1], data = rgh(100, law2[1])))
    law4 <- gh_law(mu = 1:4, sigma = diag(4) + 0.5)
    expect_invisible(plot(law4, n = 20))
    expect_invisible(plot(law4, margins = c(4, 2), n = 20))
  })
  expect_error(plot(law2, levels = 1.5), class = "ghmix_error_argument")
  expect_error(plot(law2, n = 3), class = "ghmix_error_argument")
  expect_error(plot(law2, data = matrix(0, 3, 3)),
               class = "ghmix_error_argument")
  expect_error(plot(gh_law(mu = 1:4, sigma = diag(4)), margins = 5),
               class = "ghmix_error_argument")
})

test_that("the contour levels enclose the probabilities asked for", {
  law <- gh_law(mu = c(0, 0), gamma = c(0.4, 0), p = -1, a = 1, b = 1,
                sigma = matrix(c(1, -0.3, -0.3, 0.5), 2))
  levels <- c(0.5, 0.9)
  grid <- ghmix:::law_grid(law, levels, 150L)
  set.seed(5)
  draws <- rgh(40000, law)
  dens <- dgh(draws, law)
  # P(f(X) >= level) by simulation: the mass of the highest-density region
  inside <- vapply(grid$at, function(h) mean(dens >= h), 0)
  expect_equal(inside, levels, tolerance = 0.01)
})

test_that("qqgh() and ppgh() plot the order statistics against the law", {
  set.seed(6)
  law <- gh_law(mu = 1, gamma = 0.5, sigma = 2, p = -0.5, a = 1, b = 1)
  y <- rgh(300, law)
  with_null_device({
    qq <- qqgh(y, law)
    pp <- ppgh(y, law)
  })
  prob <- ppoints(300)
  expect_equal(qq$y, sort(y))
  expect_equal(qq$x, qgh(prob, law), tolerance = 1e-10)
  expect_equal(pp$y, prob)
  expect_equal(pp$x, pgh(sort(y), law), tolerance = 1e-10)
  # a sample of the law: its PP plot stays near the diagonal (the
  # Kolmogorov-Smirnov distance is below its 0.1 % critical value)
  expect_lt(max(abs(pp$x - prob)), 1.95 / sqrt(300))
  # against a fit, for each margin; a large sample thinned to 400 points
  x <- diff(log(EuStockMarkets))[, 1:2]
  fit <- fit_nig(x)
  with_null_device(out <- qqgh(x, fit))
  expect_named(out, c("DAX", "SMI"))
  expect_length(out$DAX$x, 400L)
  expect_equal(out$SMI$x[1:3],
               qgh(ppoints(nrow(x))[1:3], gh_law(fit)["SMI"]),
               tolerance = 1e-10)
  expect_error(qqgh(y, list(1)), class = "ghmix_error_argument")
  expect_error(ppgh(cbind(y, y), law), class = "ghmix_error_argument")
})

test_that("plot(fit, which = ) draws the trace, PP plots; online and chunked", {
  x <- diff(log(EuStockMarkets))
  fit1 <- suppressWarnings(fit_nig(x[, "DAX"]))
  fit2 <- fit_nig(x[, 1:2])
  set.seed(7)
  y <- rgh(20000, p = -0.5, a = 1, b = 1, gamma = 0.2)
  on <- fit_nig(y, control = ghmix_control(
    online = ghmix_online(batch_size = 5000)
  ))
  ch <- fit_nig(ghmix_data(list(x[1:900, 1:2], x[901:1859, 1:2])))
  pen <- fit_nig(x, shrink = 0.2)
  with_null_device({
    expect_invisible(plot(fit1, which = c("pp", "trace")))
    expect_invisible(plot(fit1, which = c(1, 3)))
    expect_invisible(plot(fit2, which = c("pp", "trace", "margins")))
    expect_invisible(plot(on))
    expect_invisible(plot(ch, which = "trace"))
    expect_invisible(plot(pen, which = "trace"))
  })
  expect_error(plot(on, which = "qq"), class = "ghmix_error_online")
  expect_error(plot(ch, which = "pp"), class = "ghmix_error_chunked")
  expect_error(plot(fit2, which = "qq"), class = "ghmix_error_argument")
  expect_error(plot(fit1, which = "margins"), class = "ghmix_error_argument")
})

test_that("a mixture's uncertainty and trace plots", {
  set.seed(8)
  fit <- suppressWarnings(fit_nig(faithful, components = 2))
  fit1 <- suppressWarnings(fit_nig(faithful$waiting, components = 2))
  fit4 <- suppressWarnings(fit_nig(iris[, 1:4], components = 2))
  with_null_device({
    expect_invisible(plot(fit, which = c("uncertainty", "trace")))
    expect_invisible(plot(fit1, which = "uncertainty"))
    expect_invisible(plot(fit4, which = "uncertainty"))
  })
  expect_error(plot(fit, which = "BIC"), class = "ghmix_error_argument")
  ch <- suppressWarnings(fit_nig(ghmix_data(list(faithful[1:136, ],
                                                 faithful[137:272, ])),
                                 components = 2))
  expect_error(plot(ch, which = "uncertainty"), class = "ghmix_error_chunked")
  with_null_device(expect_invisible(plot(ch, which = "trace")))
})
