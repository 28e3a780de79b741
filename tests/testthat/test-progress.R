# Progress signals (progressr): one per fit of a model selection, per
# start screened, per cross-validation fold, per column of the observed
# information; none reported without handlers, and no number changed.

skip_if_not_installed("progressr")

# The messages of the "update" progress signals of expr, under
# with_progress() with a handler that shows nothing.
progress_messages <- function(expr) {
  got <- character()
  withCallingHandlers(
    progressr::with_progress(expr, handlers = progressr::handler_void,
                             enable = TRUE),
    progression = function(p) {
      if (identical(p$type, "update")) {
        got <<- c(got, paste(p$message, collapse = ""))
      }
    }
  )
  got
}

test_that("components = 1:3: one signal per G and per start screened", {
  set.seed(1)
  msgs <- progress_messages(suppressWarnings(
    fit_nig(faithful, components = 1:3, nstart = 2L)
  ))
  starts <- c("start: kmeans", "start: hclust", "start: random 1",
              "start: random 2")
  expect_identical(msgs, c("G = 1", starts, "G = 2", starts, "G = 3"))
})

test_that("fit_families(): one signal per model fitted", {
  x <- diff(log(EuStockMarkets))[1:400, "DAX"]
  msgs <- progress_messages(
    sel <- fit_families(x, families = c("nig", "vg", "gaussian"))
  )
  expect_setequal(msgs, names(sel$fits))
  expect_length(msgs, 5L)
  # GH and the hyperbolic fit the NIG of each symmetry first: counted once
  msgs <- progress_messages(
    fit_families(x, families = c("gh", "hyperbolic"), symmetric = FALSE)
  )
  expect_identical(msgs, c("NIG", "hyperbolic", "GH"))
})

test_that("vcov(): one signal per column of the information", {
  x <- diff(log(EuStockMarkets))[, 1:2]
  fit <- fit_nig(x)
  msgs <- progress_messages(v <- vcov(fit))
  expect_length(msgs, nrow(v)) # 2 + 2 + 3 + a, b: no parameter held
  mix <- fit_nig(c(x[, 1], x[, 1] + 0.1), components = 2)
  expect_length(progress_messages(suppressWarnings(vcov(mix))),
                2L * 5L + 1L)
})

test_that("weight = \"cv\": one signal per fold fit", {
  set.seed(3)
  x <- matrix(rnorm(200 * 3), ncol = 3)
  msgs <- progress_messages(
    fit_nig(x, shrink = ghmix_shrink(weight = "cv"))
  )
  expect_length(msgs, 8L * 5L)
  expect_identical(msgs[[6L]], "intensity 0.02, fold 1")
})

test_that("the signals are silent without handlers and change no number", {
  set.seed(4)
  quiet <- suppressWarnings(fit_nig(faithful, components = 2))
  set.seed(4)
  expect_silent(progressr::without_progress(
    suppressWarnings(fit_nig(faithful, components = 2))
  ))
  set.seed(4)
  progress_messages(shown <- suppressWarnings(
    fit_nig(faithful, components = 2)
  ))
  expect_identical(shown$loglik, quiet$loglik)
  expect_identical(shown$components, quiet$components)
  expect_identical(shown$starts, quiet$starts)
  # outside with_progress() and without global handlers: nothing printed
  fit <- fit_nig(diff(log(EuStockMarkets))[, 2:3])
  expect_silent(vcov(fit))
})
