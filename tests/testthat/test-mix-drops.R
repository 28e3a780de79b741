# Components lost while the starts are screened (issue 31, item 6): the
# fit records them in `dropped` (iteration 0) and warns, as for drops in
# the EM proper.

drop_warnings <- function(expr) {
  ws <- list()
  value <- withCallingHandlers(expr, warning = function(w) {
    ws[[length(ws) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = ws)
}

test_that("3 clusters of 4 rows in d = 2: the lost components recorded", {
  set.seed(4)
  z <- rbind(matrix(rnorm(8), 4), matrix(rnorm(8, 10), 4),
             matrix(rnorm(8, 20), 4))
  res <- drop_warnings(fit_nig(z, components = 3))
  fit <- res$value
  expect_lt(fit$G, 3L)
  expect_identical(fit$asked, 3L)
  expect_false(is.null(fit$dropped))
  expect_identical(nrow(fit$dropped), 3L - fit$G)
  expect_true(all(fit$dropped$iteration == 0L))
  expect_true(all(fit$dropped$reason == "too few rows"))
  comp <- Filter(function(w) inherits(w, "ghmix_warning_component"),
                 res$warnings)
  expect_length(comp, 3L - fit$G)
})

test_that("two pairs of points in d = 1: the drop is recorded", {
  res <- drop_warnings(fit_nig(c(1, 2, 10, 11), components = 2))
  fit <- res$value
  expect_identical(fit$G, 1L)
  expect_identical(nrow(fit$dropped), 1L)
  expect_true(any(vapply(res$warnings, inherits, NA,
                         "ghmix_warning_component")))
})

test_that("every fit with fewer components than asked says why", {
  set.seed(7)
  for (n in c(12, 15, 24)) {
    x <- matrix(rnorm(2 * n), n)
    fit <- suppressWarnings(fit_nig(x, components = 3))
    lost <- if (is.null(fit$dropped)) 0L else nrow(fit$dropped)
    expect_identical(lost, 3L - fit$G)
  }
})
