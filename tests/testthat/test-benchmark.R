test_that("ghmix_benchmark_backends times the CPU and reports the sizes", {
  b <- ghmix_benchmark_backends(n = c(200, 1000), d = 2, backends = "cpu",
                                reps = 1)
  expect_s3_class(b, "ghmix_benchmark")
  expect_identical(b$n, c(200L, 1000L))
  expect_true(all(b$cpu_ms >= 0))
  expect_true(all(is.na(b$cuda_ms)))
  expect_true(is.na(attr(b, "crossover")))
  expect_output(print(b), "milliseconds per iteration")
})

test_that("ghmix_benchmark_backends checks its arguments", {
  expect_error(ghmix_benchmark_backends(n = 5), "`n`",
               class = "ghmix_error_argument")
  expect_error(ghmix_benchmark_backends(backends = "gpu"), "backends",
               class = "ghmix_error_argument")
  cls <- if (ghmix_info()$cuda) "ghmix_error_no_device" else
    "ghmix_error_cuda_not_built"
  skip_if(NROW(ghmix_info()$devices) > 0, "a CUDA device is present")
  expect_error(ghmix_benchmark_backends(n = 100), class = cls)
})
