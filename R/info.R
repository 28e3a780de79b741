#' What this ghmix build has and what is available now
#'
#' `ghmix_info()` reports how the installed package was built (OpenMP and its
#' version; the CUDA toolkit version and GPU architectures compiled in, or
#' that the CUDA backend was not built) and what is available now: the thread
#' count and its maximum, and the CUDA devices by name and memory, or the
#' reason there are none.
#'
#' @return An object of class `"ghmix_info"`: a list with elements
#'   `version`, `openmp` (logical), `openmp_version` (the `_OPENMP` date
#'   code, e.g. 201511, or `NA`), `openmp_spec` (e.g. `"4.5"`), `cuda`
#'   (logical: CUDA backend built), `cuda_version` (toolkit version compiled
#'   against, e.g. `"13.0"`, or `NA`), `cuda_archs` (character: `sm_XX` for
#'   compiled GPU code, `compute_XX` for PTX), `cuda_runtime_version`,
#'   `cuda_driver_version` (`NA` when not built; `"none"` for no driver),
#'   `threads`, `max_threads`, `devices` (a data frame with columns `id`,
#'   `name`, `memory_gib`, `compute_capability`, `multiprocessors` and
#'   `float64_rate`, one row per usable device) and `devices_reason` (why
#'   there is no usable device, or `NA`). It has a `print()` method.
#'
#' @section Float64 throughput:
#' ghmix computes in double precision (float64). Data-centre GPUs (compute
#' capability 6.0, 7.0, 8.0, 9.0 and 10.0: P100, V100, A100, H100, H200,
#' B200) run float64 at half their float32 rate, `float64_rate` `"full
#' (1:2)"`; consumer and inference GPUs (e.g. T4, L4, the GeForce and RTX
#' cards) at a small fraction of it, `"1:32 or 1:64 of float32"`, and on
#' those `backend = "cuda"` can be slower than the CPU. The printed summary
#' warns about such devices.
#' @family backend controls
#' @export
#' @examples
#' info <- ghmix_info()
#' info
#' info$openmp
#' nrow(info$devices)
ghmix_info <- function() {
  b <- .Call(ffi_build_info)
  d <- .Call(ffi_cuda_devices)
  archs <- if (b$cuda) strsplit(b$cuda_archs, ",", fixed = TRUE)[[1L]] else
    character()
  devices <- data.frame(
    id = seq_along(d$name) - 1L,
    name = d$name,
    memory_gib = d$memory_bytes / 2^30,
    compute_capability = sprintf("%d.%d", d$cc_major, d$cc_minor),
    multiprocessors = d$multiprocessors,
    float64_rate = float64_rate(d$cc_major, d$cc_minor),
    stringsAsFactors = FALSE
  )
  structure(
    list(
      version = getNamespaceVersion("ghmix")[[1L]],
      openmp = b$openmp,
      openmp_version = if (b$openmp) b$openmp_version else NA_integer_,
      openmp_spec = if (b$openmp) openmp_spec(b$openmp_version) else
        NA_character_,
      cuda = b$cuda,
      cuda_version = if (b$cuda) cuda_version_string(b$cuda_version) else
        NA_character_,
      cuda_archs = archs,
      cuda_runtime_version = if (b$cuda) {
        cuda_version_string(d$runtime_version)
      } else {
        NA_character_
      },
      cuda_driver_version = if (b$cuda) {
        cuda_version_string(d$driver_version)
      } else {
        NA_character_
      },
      threads = ghmix_threads(),
      max_threads = b$max_threads,
      devices = devices,
      devices_reason = if (d$available) NA_character_ else d$reason
    ),
    class = "ghmix_info"
  )
}

# The float64 throughput class of a device from its compute capability: the
# data-centre chips (GP100, GV100, GA100, GH100, GB100) run float64 at half
# the float32 rate, every other NVIDIA GPU at 1/32 or 1/64 of it.
float64_full_rate_cc <- c("6.0", "7.0", "8.0", "9.0", "10.0")

float64_rate <- function(major, minor) {
  cc <- sprintf("%d.%d", major, minor)
  out <- rep("1:32 or 1:64 of float32", length(cc))
  out[cc %in% float64_full_rate_cc] <- "full (1:2)"
  out
}

# CUDA encodes versions as 1000 * major + 10 * minor; 0 means none.
cuda_version_string <- function(v) {
  if (is.na(v)) {
    return(NA_character_)
  }
  if (v <= 0L) {
    return("none")
  }
  sprintf("%d.%d", v %/% 1000L, (v %% 1000L) %/% 10L)
}

# The OpenMP specification behind an _OPENMP date code.
openmp_spec <- function(code) {
  specs <- c(
    "200505" = "2.5", "200805" = "3.0", "201107" = "3.1", "201307" = "4.0",
    "201511" = "4.5", "201811" = "5.0", "202011" = "5.1", "202111" = "5.2",
    "202411" = "6.0"
  )
  spec <- specs[as.character(code)]
  if (is.na(spec)) NA_character_ else unname(spec)
}

#' @rdname ghmix_info
#' @param x A `"ghmix_info"` object.
#' @param ... Ignored.
#' @export
print.ghmix_info <- function(x, ...) {
  line <- function(label, value) {
    label <- if (nzchar(label)) paste0(label, ":") else ""
    cat(sprintf("  %-15s %s\n", label, value))
  }
  cat(sprintf("ghmix %s\n", x$version))
  cat("Built with\n")
  line("OpenMP", if (x$openmp) {
    sprintf(
      "yes (%s_OPENMP %d)",
      if (is.na(x$openmp_spec)) "" else paste0("OpenMP ", x$openmp_spec, ", "),
      x$openmp_version
    )
  } else {
    "no (one thread)"
  })
  line("CUDA", if (x$cuda) {
    sprintf("yes (toolkit %s)", x$cuda_version)
  } else {
    "not built"
  })
  if (x$cuda) {
    line("GPU code", paste(x$cuda_archs, collapse = ", "))
  }
  cat("Available now\n")
  line("Threads", sprintf(
    "%d of at most %d (set with ghmix_threads())", x$threads, x$max_threads
  ))
  if (x$cuda) {
    line("CUDA runtime", sprintf(
      "%s (driver %s)", x$cuda_runtime_version,
      if (identical(x$cuda_driver_version, "none")) "not installed" else
        x$cuda_driver_version
    ))
  }
  if (nrow(x$devices) > 0L) {
    for (i in seq_len(nrow(x$devices))) {
      dev <- x$devices[i, ]
      line(
        if (i == 1L) "CUDA devices" else "",
        sprintf(
          "%d: %s (%.1f GiB, compute capability %s, %d SMs, float64 %s)",
          dev$id, dev$name, dev$memory_gib, dev$compute_capability,
          dev$multiprocessors, dev$float64_rate
        )
      )
    }
    slow <- x$devices$float64_rate != "full (1:2)"
    for (i in which(slow)) {
      cat(strwrap(
        sprintf(
          paste(
            "Warning: device %d (%s) computes float64 at only 1/32 or 1/64",
            "of its float32 rate; ghmix computes in float64, so",
            "backend = \"cuda\" may be slower than the CPU on it."
          ),
          x$devices$id[[i]], x$devices$name[[i]]
        ),
        indent = 2L, exdent = 4L
      ), sep = "\n")
    }
  } else {
    line("CUDA devices", sprintf("none (%s)", x$devices_reason))
  }
  invisible(x)
}
