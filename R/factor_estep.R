# TEMPORARY: replaced by the C E-step at the merge
factor_estep <- function(x, par, what, weights = NULL, rows = FALSE,
                         threads = ghmix_threads()) {
  factor_estep_r(x, par, what, weights, rows)
}
