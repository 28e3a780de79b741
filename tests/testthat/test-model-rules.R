# Every row of the rules table (R/model_rules.R) is raised by a call that
# asks for its combination, with the row's classes and message; every row
# names two arguments and says why.

rules_calls <- function() {
  set.seed(3)
  x <- matrix(stats::rnorm(300), 100)
  ch <- ghmix_data(list(x[1:50, ], x[51:100, ]))
  far <- ghmix_data(list(x[1:50, ] * 1e200, x[51:100, ] * 1e200))
  spread <- x
  spread[, 1] <- spread[, 1] * 1e300
  spread[, 2] <- spread[, 2] * 1e-300
  on <- ghmix_control(online = ghmix_online(batch_size = 50))
  calls <- list(
    fixed_components = quote(fit_nig(x, components = 2,
                                     fixed = list(p = 1))),
    online_components = quote(fit_nig(x, components = 2, control = on)),
    online_cluster = quote(fit_nig(x, control = on, cluster = "future")),
    factor_mixture_chunked_cuda = quote(fit_nig(
      x, components = 2, factors = 1, backend = "cuda", cluster = "future"
    )),
    chunks_scale = quote(fit_nig(far)),
    gaussian_chunks = quote(fit_gaussian(ch)),
    weights_chunks = quote(fit_nig(ch, weights = rep(1, 100))),
    weights_stream = quote(fit_nig(ch, control = on, weights = rep(1, 100))),
    fixed_all_mixing = quote(fit_gh(x, fixed = list(p = 1, a = 1, b = 1))),
    fixed_p_range = quote(fit_gh(x, fixed = list(p = 100, a = 1))),
    fixed_gauge = quote(fit_gh(x, fixed = list(a = 2), gauge = "det")),
    shrink_cv_components = quote(fit_nig(
      x, components = 2, shrink = ghmix_shrink(weight = "cv")
    )),
    shrink_cv_online = quote(fit_nig(
      x, control = on, shrink = ghmix_shrink(weight = "cv")
    )),
    shrink_cv_gaussian = quote(fit_gaussian(
      x, shrink = ghmix_shrink(weight = "cv")
    )),
    shrink_rule_chunks = quote(fit_nig(ch, shrink = ghmix_shrink())),
    shrink_target_scaled = quote(fit_nig(
      x * 1e300, components = 2, shrink = ghmix_shrink("identity", 1)
    )),
    shrink_target_scales = quote(fit_nig(
      spread, components = 2, factors = 1,
      shrink = ghmix_shrink("identity", weight = 5)
    )),
    shrink_vcov = quote(vcov(fit_nig(x, shrink = 1)))
  )
  # each call evaluated where its data are
  lapply(calls, function(e) function() eval(e, parent.env(environment())))
}

test_that("every rule names two arguments and a reason", {
  for (id in names(ghmix:::model_rules)) {
    rule <- ghmix:::model_rules[[id]]
    expect_length(rule$args, 2L)
    expect_true(is.character(rule$why) && nzchar(rule$why), label = id)
    expect_true("ghmix_error_argument" %in% rule$class, label = id)
  }
})

test_that("every fixed message names both of its rule's arguments", {
  # (control$online as `control$online` or online EM's name; messages
  # built from values are checked where they are raised, below)
  for (id in names(ghmix:::model_rules)) {
    rule <- ghmix:::model_rules[[id]]
    if (!is.character(rule$message)) next
    for (arg in unique(rule$args)) {
      expect_true(grepl(arg, rule$message, fixed = TRUE) ||
                    grepl(sub("^control\\$", "", arg), rule$message,
                          fixed = TRUE),
                  label = paste(id, "names", arg))
    }
  }
})

test_that("every rule is raised by the call that asks for it", {
  skip_if_not_installed("future")
  calls <- rules_calls()
  rules <- ghmix:::model_rules
  # (factor_cov_cuda: a build without CUDA refuses backend = "cuda" first)
  expect_setequal(c(names(calls), "factor_cov_cuda"), names(rules))
  for (id in names(calls)) {
    err <- tryCatch(suppressWarnings(calls[[id]]()),
                    error = function(e) e)
    expect_s3_class(err, "error")
    expect_identical(class(err),
                     c(rules[[id]]$class, "ghmix_error", "error",
                       "condition"),
                     label = id)
    if (is.character(rules[[id]]$message)) {
      expect_identical(conditionMessage(err), rules[[id]]$message,
                       label = id)
    }
  }
})

test_that("the messages built from values say them", {
  calls <- rules_calls()
  err <- expect_error(calls$fixed_p_range(), class = "ghmix_error_argument")
  expect_match(conditionMessage(err), "`fixed$a` = 1", fixed = TRUE)
  err <- expect_error(calls$fixed_gauge(), class = "ghmix_error_argument")
  expect_match(conditionMessage(err), 'gauge = "mean"', fixed = TRUE)
})
