# The backend argument, checked the same way everywhere.

backends <- c("cpu", "cuda")

# Returns "cpu" or "cuda". For "cuda", signals ghmix_error_cuda_not_built in
# a CPU-only build and ghmix_error_no_device without a usable GPU, and an
# argument error when `device` (already checked by check_device()) is not
# one of the devices present.
check_backend <- function(backend, call = sys.call(-1L), device = 0L) {
  backend <- backend_name(backend, call)
  if (backend == "cuda") {
    count <- cuda_require(call)
    if (device >= count) {
      abort_argument(
        sprintf(
          "`device` is %d, but there %s %d CUDA device%s (numbered from 0).",
          device, if (count == 1L) "is" else "are", count,
          if (count == 1L) "" else "s"
        ),
        call
      )
    }
  }
  backend
}

# A CUDA device index: one non-negative whole number, returned as an
# integer. Checked whatever the backend, so that a bad `device` is the same
# error on both.
check_device <- function(device, call = sys.call(-1L)) {
  ok <- is.numeric(device) && !is.factor(device) && length(device) == 1L &&
    isTRUE(is.finite(device) && device >= 0 && device == round(device) &&
             device <= .Machine$integer.max)
  if (!ok) {
    abort_argument(
      paste(
        "`device` must be a single non-negative whole number",
        "(a CUDA device index; 0 is the first device)."
      ),
      call
    )
  }
  as.integer(device)
}

# Signal the classed error that says why the CUDA backend cannot be used;
# otherwise return the number of devices.
cuda_require <- function(call) {
  tryCatch(
    .Call(ffi_cuda_require),
    ghmix_error = function(e) {
      e$call <- call
      e$message <- paste0('backend = "cuda" is not available: ', e$message)
      stop(e)
    }
  )
}

# Until the CUDA kernel for a function exists.
abort_cuda_unimplemented <- function(fun, call) {
  ghmix_abort(
    sprintf(
      paste(
        'backend = "cuda": ghmix %s has no CUDA kernel for %s() yet;',
        'use backend = "cpu".'
      ),
      getNamespaceVersion("ghmix"), fun
    ),
    class = "ghmix_error_cuda",
    call = call
  )
}

# The backend asked for ("cpu" by default, partial matching), without
# checking that it can run here (workers of a cluster check their own).
backend_name <- function(backend, call) {
  if (identical(backend, backends)) {
    return("cpu")
  }
  i <- if (is.character(backend) && length(backend) == 1L &&
             !is.na(backend)) {
    pmatch(backend, backends)
  } else {
    NA_integer_
  }
  if (is.na(i)) {
    abort_argument('`backend` must be "cpu" or "cuda".', call)
  }
  backends[[i]]
}

# The `device` argument of a C entry point that serves both backends (log K,
# the GIG expectation map and solver, the univariate GH density): the CUDA
# device index, or NULL for the CPU (which then uses its `threads`).
device_arg <- function(backend, device) {
  if (backend == "cuda") device else NULL
}
