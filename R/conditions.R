# Classed conditions, in base R only.

# Signal an error of class c(class, "ghmix_error", "error", "condition").
# Extra named fields (e.g. index) go into the condition object.
ghmix_abort <- function(message, class = NULL, ..., call = NULL) {
  cond <- structure(
    class = c(class, "ghmix_error", "error", "condition"),
    list(message = message, call = call, ...)
  )
  stop(cond)
}

# Signal a warning of class c(class, "ghmix_warning", "warning",
# "condition"), with extra named fields as for ghmix_abort().
ghmix_warn <- function(message, class = NULL, ..., call = NULL) {
  cond <- structure(
    class = c(class, "ghmix_warning", "warning", "condition"),
    list(message = message, call = call, ...)
  )
  warning(cond)
}

# Called from C (src/r_errors.c) with a ghmix_error: status is the short name
# of the ghmix_status ("domain", "no_device", ...), index the 1-based element
# or NA.
abort_status <- function(message, status, index = NA_real_) {
  if (identical(status, "interrupted")) {
    signal_interrupt()
  }
  class <- paste0("ghmix_error_", status)
  if (identical(status, "cuda_fault")) {
    # a failure inside the CUDA backend, which now holds for good
    class <- c(class, "ghmix_error_cuda")
  }
  ghmix_abort(message, class = class, index = index, call = caller_call())
}

# The call of the closure that called .Call(): the frame below abort_status.
caller_call <- function() {
  n <- sys.nframe() - 2L
  if (n >= 1L) sys.call(n) else NULL
}

# Behave as R does on Ctrl-C: signal an "interrupt" condition, then jump to
# the top level.
signal_interrupt <- function() {
  cond <- structure(
    class = c("ghmix_interrupt", "interrupt", "condition"),
    list(message = "interrupted", call = NULL)
  )
  signalCondition(cond)
  invokeRestart("abort")
}

# Argument checks ------------------------------------------------------------

abort_argument <- function(message, call) {
  ghmix_abort(message, class = "ghmix_error_argument", call = call)
}

type_name <- function(x) {
  if (is.null(x)) "NULL" else class(x)[[1L]]
}

# Numeric in the sense of base R's math functions: double, integer or logical,
# but not a factor.
check_numeric <- function(x, arg, call = sys.call(-1L)) {
  ok <- (is.double(x) || is.integer(x) || is.logical(x)) && !is.factor(x)
  if (!ok) {
    abort_argument(
      sprintf("`%s` must be numeric, not %s.", arg, type_name(x)),
      call
    )
  }
  invisible(x)
}

check_flag <- function(x, arg, call = sys.call(-1L)) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_argument(sprintf("`%s` must be TRUE or FALSE.", arg), call)
  }
  invisible(x)
}

# One of `choices` (partial matching and wording as in match.arg(); the
# whole default vector gives the first), else an argument error naming
# `arg`.
check_choice <- function(value, choices, arg, call) {
  if (identical(value, choices)) {
    return(choices[[1L]])
  }
  i <- if (is.character(value) && length(value) == 1L && !is.na(value)) {
    pmatch(value, choices)
  } else {
    NA_integer_
  }
  if (is.na(i)) {
    abort_argument(
      sprintf("`%s` should be one of %s.", arg,
              paste0('"', choices, '"', collapse = ", ")),
      call
    )
  }
  choices[[i]]
}

# Significant digits as print() takes them: a whole number from 1 to 22.
check_digits <- function(digits, call) {
  ok <- is.numeric(digits) && !is.factor(digits) && length(digits) == 1L &&
    isTRUE(digits >= 1 && digits <= 22 && digits == round(digits))
  if (!ok) {
    abort_argument("`digits` must be a whole number from 1 to 22.", call)
  }
  invisible(digits)
}

# A short description of an argument's value for a message: a number
# (6 significant digits), or its type and length.
format_arg_value <- function(v) {
  if (is.numeric(v) && length(v) == 1L && !is.factor(v)) {
    return(format(v, digits = 6L))
  }
  sprintf("%s of length %d", type_name(v), length(v))
}
