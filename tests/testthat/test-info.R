test_that("ghmix_info() describes the build and the machine", {
  info <- ghmix_info()
  expect_s3_class(info, "ghmix_info")
  expect_identical(info$version, as.character(packageVersion("ghmix")))
  expect_type(info$openmp, "logical")
  expect_type(info$cuda, "logical")
  expect_identical(info$threads, ghmix_threads())
  expect_gte(info$max_threads, 1L)
  expect_s3_class(info$devices, "data.frame")
  expect_named(
    info$devices,
    c("id", "name", "memory_gib", "compute_capability", "multiprocessors",
      "float64_rate")
  )
  expect_type(info$devices$float64_rate, "character")
  if (info$openmp) {
    expect_gt(info$openmp_version, 200000L)
  } else {
    expect_identical(info$max_threads, 1L)
  }
  if (info$cuda) {
    expect_match(info$cuda_version, "^[0-9]+\\.[0-9]+$")
    expect_true(any(grepl("^sm_", info$cuda_archs)))
    expect_true(any(grepl("^compute_", info$cuda_archs)))
  } else {
    expect_identical(info$cuda_archs, character())
    expect_identical(nrow(info$devices), 0L)
  }
  # no devices always comes with a reason
  if (nrow(info$devices) == 0L) {
    expect_true(is.character(info$devices_reason) &&
                  nzchar(info$devices_reason))
  } else {
    expect_identical(info$devices_reason, NA_character_)
  }
})

test_that("ghmix_info() prints", {
  info <- ghmix_info()
  expect_output(print(info), "ghmix [0-9]")
  expect_output(print(info), "OpenMP:")
  expect_output(print(info), "CUDA:")
  expect_output(print(info), "Threads:")
  expect_output(print(info), "CUDA devices:")
  capture.output(vis <- withVisible(print(info)))
  expect_false(vis$visible)
  expect_identical(vis$value, info)
  if (!info$cuda) expect_output(print(info), "not built")
})
