#' ghmix: Generalized Hyperbolic Mixtures with Exact Bessel Functions
#'
#' ghmix fits generalized hyperbolic (GH) distributions and their special
#' cases, normal variance-mean mixtures with a generalized inverse Gaussian
#' mixing variable, with a numerical core in portable C that runs on CPU
#' threads (OpenMP) or, in a build with the CUDA toolkit, on an NVIDIA GPU.
#' This version provides the Bessel function at the heart of every GH
#' computation, [log_besselK()], and the backend controls [ghmix_info()] and
#' [ghmix_threads()].
#'
#' @section Backends and threads:
#' Every computing function takes `backend = c("cpu", "cuda")` (default
#' `"cpu"`) and `threads`. Nothing falls back silently: `backend = "cuda"` in a
#' build without CUDA, or on a machine without a usable GPU, is an error (see
#' below). The thread count defaults to [ghmix_threads()], which is initialised
#' from the environment variable `GHMIX_NUM_THREADS` when the package is
#' loaded and is capped by OpenMP's limits (`OMP_THREAD_LIMIT`, the number of
#' processors). Results do not depend on the thread count.
#'
#' @section Conditions:
#' Errors raised by ghmix are conditions of class
#' `c("ghmix_error_<kind>", "ghmix_error", "error", "condition")`, so that
#' they can be caught selectively with [tryCatch()]. The kinds are:
#' * `ghmix_error_argument`: an invalid argument; the message names it.
#' * `ghmix_error_cuda_not_built`: `backend = "cuda"` in a build without
#'   CUDA; the message says how to reinstall with the CUDA toolkit.
#' * `ghmix_error_no_device`: a CUDA build, but no usable GPU; the message
#'   gives the CUDA runtime's reason (no driver, no device, ...).
#' * `ghmix_error_cuda`: a failure inside the CUDA backend, or a kernel that
#'   this version does not have yet.
#' * `ghmix_error_domain`, `ghmix_error_nomem`, `ghmix_error_no_convergence`,
#'   `ghmix_error_infeasible`: failures reported by the C core. When one is
#'   tied to an element of the input, its 1-based position is in the field
#'   `index` of the condition.
#'
#' A long computation interrupted with Ctrl-C signals an ordinary R
#' `interrupt` condition.
#'
#' @section Installation:
#' The `configure` script builds the CUDA backend when it finds a working CUDA
#' toolkit (`GHMIX_CUDA=auto`, the default), never (`GHMIX_CUDA=no`) or fails
#' without one (`GHMIX_CUDA=yes`). It looks for `nvcc` in `CUDA_HOME`, on the
#' `PATH` and in `/usr/local/cuda`; `GHMIX_CUDA_ARCHS` (e.g. `"80 90"`) sets the
#' GPU architectures to compile for. [ghmix_info()] shows what was built.
#'
#' @keywords internal
"_PACKAGE"

#' @useDynLib ghmix, .registration = TRUE
NULL
