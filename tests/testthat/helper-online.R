# Memory of online fits against the length of the stream: fit(stream) of
# 20 and of 200 batches of 500 rows (rows(m, seed) makes a batch); the
# fits keep one batch and one trace row (6 numbers) per batch, the longer
# one is under max_size bytes, and it leaves under 2 MB behind.
expect_stream_memory <- function(rows, fit, max_size) {
  make_stream <- function(batches) {
    k <- 0L
    function() {
      k <<- k + 1L
      if (k > batches) NULL else rows(500L, k)
    }
  }
  few <- fit(make_stream(20L))
  gc()
  before <- sum(gc()[, 2L])
  many <- fit(make_stream(200L))
  after <- sum(gc()[, 2L])
  testthat::expect_identical(many$nobs, 1e5)
  size_few <- as.numeric(utils::object.size(few))
  size_many <- as.numeric(utils::object.size(many))
  testthat::expect_lt(size_many - size_few, 180 * 6 * 8 * 2 + 2048)
  testthat::expect_lt(size_many, max_size)
  testthat::expect_lt(after - before, 2) # MB
}
