test_that("backend defaults to cpu and accepts cpu", {
  expect_identical(log_besselK(2, 1), log_besselK(2, 1, backend = "cpu"))
  expect_identical(log_besselK(2, 1), log_besselK(2, 1, backend = "cp"))
})

test_that("an unknown backend is a classed error naming the argument", {
  expect_error(
    log_besselK(1, 1, backend = "gpu"),
    class = "ghmix_error_argument"
  )
  expect_error(log_besselK(1, 1, backend = NA), "`backend`")
  expect_error(log_besselK(1, 1, backend = 1), "`backend`")
  expect_error(log_besselK(1, 1, backend = c("cuda", "cpu")), "`backend`")
})

test_that("backend = 'cuda' in a CPU-only build says how to rebuild", {
  skip_if(ghmix_info()$cuda, "this ghmix was built with CUDA")
  expect_error(
    log_besselK(1, 1, backend = "cuda"),
    class = "ghmix_error_cuda_not_built"
  )
  e <- tryCatch(log_besselK(1, 1, backend = "cuda"), error = identity)
  expect_s3_class(e, "ghmix_error")
  expect_match(conditionMessage(e), "built without CUDA")
  # (every build on Windows is CPU-only: src/cuda_stub.c says so there)
  expect_match(conditionMessage(e), if (.Platform$OS.type == "windows")
    "built on Linux only.*WSL 2" else "GHMIX_CUDA=yes")
  expect_identical(conditionCall(e)[[1L]], as.name("log_besselK"))
})

test_that("backend = 'cuda' without a usable device is ghmix_error_no_device", {
  info <- ghmix_info()
  skip_if_not(info$cuda, "this ghmix was built without CUDA")
  skip_if(nrow(info$devices) > 0L, "a CUDA device is present")
  e <- tryCatch(log_besselK(1, 1, backend = "cuda"), error = identity)
  expect_s3_class(e, "ghmix_error_no_device")
  expect_s3_class(e, "ghmix_error")
  expect_match(conditionMessage(e), "no usable CUDA device")
  # the CUDA runtime's own reason is part of the message
  expect_match(conditionMessage(e), info$devices_reason, fixed = TRUE)
})

test_that("backend = 'cuda' with a device: no gig_moments kernel yet", {
  info <- ghmix_info()
  skip_if_not(info$cuda, "this ghmix was built without CUDA")
  skip_if(nrow(info$devices) == 0L, "no CUDA device")
  expect_error(gig_moments(1, 1, 1, backend = "cuda"),
               class = "ghmix_error_cuda")
})

test_that("errors raised from C carry their status class and index", {
  e <- tryCatch(
    abort_status("went wrong", "no_convergence", 3),
    error = identity
  )
  expect_s3_class(e, "ghmix_error_no_convergence")
  expect_s3_class(e, "ghmix_error")
  expect_identical(e$index, 3)
  expect_identical(conditionMessage(e), "went wrong")
  e <- tryCatch(ghmix_abort("plain", "ghmix_error_domain"), error = identity)
  expect_identical(class(e), c(
    "ghmix_error_domain", "ghmix_error", "error", "condition"
  ))
})
