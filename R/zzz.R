.onLoad <- function(libname, pkgname) {
  the$threads <- threads_from_env()
  invisible()
}
