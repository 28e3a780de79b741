.onLoad <- function(libname, pkgname) {
  the$threads <- threads_from_env()
  the$codes <- .Call(ffi_codes)
  the$layouts <- new.env(parent = emptyenv())
  the$flags <- new.env(parent = emptyenv())
  the$what <- new.env(parent = emptyenv())
  the$family_code <- new.env(parent = emptyenv())
  invisible()
}

# ghmix's worker threads end before its library can be unloaded (none may
# sleep inside code that is unmapped; src/cpu/pool.c), then the library.
.onUnload <- function(libpath) {
  .Call(ffi_pool_stop)
  library.dynam.unload("ghmix", libpath)
}
