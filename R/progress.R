# Progress of long work through the progressr package (Bengtsson 2020):
# one signal per unit (a fit of a model-selection loop, a start screened,
# a cross-validation fold, a column of the observed information), which
# progressr reports only where the user has enabled handlers
# (progressr::handlers(), with_progress()).  Signals touch neither the RNG
# nor the numbers.  Without progressr installed, nothing is signalled.

# A function that signals one step of `steps` (a message may come with
# it), tied to the frame `envir` (progressr closes it when that frame
# exits); a no-op where progressr is missing or there are no steps.
ghmix_progressor <- function(steps, envir = parent.frame()) {
  if (steps < 1L || !requireNamespace("progressr", quietly = TRUE)) {
    return(function(...) invisible())
  }
  progressr::progressor(steps = steps, envir = envir)
}

# lapply(x, fun) with one progress signal per element, labelled by
# label(element).
progress_lapply <- function(x, fun, label = function(el) NULL) {
  p <- ghmix_progressor(length(x))
  lapply(x, function(el) {
    out <- fun(el)
    msg <- label(el)
    p(if (is.null(msg)) character(0L) else msg)
    out
  })
}

progress_label_g <- function(g) sprintf("G = %d", g)
