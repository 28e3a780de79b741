#' Arguments shared by ghmix's computing functions
#'
#' @param backend Where to compute: `"cpu"` (the default) or `"cuda"`.
#'   `"cuda"` is an error of class `ghmix_error_cuda_not_built` in a build
#'   without CUDA and of class `ghmix_error_no_device` when no usable GPU is
#'   present; ghmix never falls back to the CPU silently. See [ghmix_info()].
#' @param device The CUDA device to use with `backend = "cuda"`: its index,
#'   a whole number from 0 (the first device) to the number of devices
#'   minus 1; see the `devices` listed by [ghmix_info()]. Checked, but
#'   otherwise ignored, with `backend = "cpu"`.
#' @param threads Number of CPU threads, a positive whole number; by default
#'   [ghmix_threads()]. Values above the number available are capped.
#'   Results do not depend on it.
#' @name ghmix-params
#' @keywords internal
NULL
