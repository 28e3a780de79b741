.onLoad <- function(libname, pkgname) {
  the$threads <- threads_from_env()
  the$codes <- .Call(ffi_codes)
  the$layouts <- new.env(parent = emptyenv())
  the$flags <- new.env(parent = emptyenv())
  the$what <- new.env(parent = emptyenv())
  the$family_code <- new.env(parent = emptyenv())
  invisible()
}
