# The backend argument, checked the same way everywhere.

backends <- c("cpu", "cuda")

# Returns "cpu" or "cuda". For "cuda", signals ghmix_error_cuda_not_built in
# a CPU-only build and ghmix_error_no_device without a usable GPU.
check_backend <- function(backend, call = sys.call(-1L)) {
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
  backend <- backends[[i]]
  if (backend == "cuda") {
    cuda_require(call)
  }
  backend
}

# Signal the classed error that says why the CUDA backend cannot be used.
cuda_require <- function(call) {
  tryCatch(
    .Call(ffi_cuda_require),
    ghmix_error = function(e) {
      e$call <- call
      e$message <- paste0('backend = "cuda" is not available: ', e$message)
      stop(e)
    }
  )
  invisible(TRUE)
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
