# Shared by the far-row tests (test-far-rows-mv-gh.R,
# test-far-rows-beyond.R).

# list(fit, warned): fit_fun(x, gauge = "det") with the classes of its
# warnings
far_fit_det <- function(fit_fun, x) {
  warned <- NULL
  f <- withCallingHandlers(
    fit_fun(x, gauge = "det"),
    warning = function(w) {
      warned <<- c(warned, class(w))
      invokeRestart("muffleWarning")
    }
  )
  list(fit = f, warned = warned)
}

# the maximum of the log-likelihood ll by nlminb() from v0
far_nlminb_max <- function(v0, ll) {
  -stats::nlminb(v0, function(t) {
    r <- -ll(t)
    if (is.finite(r)) r else .Machine$double.xmax
  }, control = list(eval.max = 4000L, iter.max = 2000L,
                    rel.tol = 1e-14))$objective
}
