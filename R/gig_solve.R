# The GIG expectation-parameter map and its inverse (src/core/gig_solve.c).

gig_eta_names <- c("E_log_y", "E_inv_y", "E_y")

# gig_from_expectation()'s note for each solver note (ghmix_code("gig_note"))
gig_solve_notes <- c(
  interior = "",
  gamma = "gamma limit (b = 0)",
  gamma_mle =
    "gamma limit (b = 0): E_inv_y is above the gamma's and not matched",
  invgamma = "inverse gamma limit (a = 0)",
  invgamma_mle = paste(
    "inverse gamma limit (a = 0): E_y is above the inverse gamma's",
    "and not matched"
  ),
  out_of_range =
    "no representable solution: sqrt(ab) < 1e-300 or a, b outside doubles"
)

# The text of each solver note code.
gig_note_text <- function(note) {
  codes <- ghmix_code("gig_note", names(gig_solve_notes))
  unname(gig_solve_notes[match(note, codes)])
}

#' Expectation parameters and moments of the GIG distribution
#'
#' The generalized inverse Gaussian distribution GIG(p, a, b) has density
#' \deqn{f(y) = \frac{(a/b)^{p/2}}{2 K_p(\sqrt{ab})} y^{p-1}
#'   e^{-(a y + b/y)/2}, \quad y > 0,}{f(y) = (a/b)^(p/2) / (2 K_p(sqrt(ab)))
#'   y^(p-1) exp(-(a y + b/y) / 2), y > 0,}
#' for \eqn{a, b > 0}; \eqn{b = 0} with \eqn{p > 0} is the gamma
#' distribution with shape \eqn{p} and rate \eqn{a/2}, and \eqn{a = 0} with
#' \eqn{p < 0} the inverse gamma distribution with shape \eqn{-p} and scale
#' \eqn{b/2}. It is an exponential family with sufficient statistics
#' \eqn{(\log y, 1/y, y)}{(log y, 1/y, y)} and natural parameters
#' \eqn{(p - 1, -b/2, -a/2)}; its expectation parameters are
#' \deqn{E \log Y = \tfrac12 \log(b/a) + \partial_p \log K_p(w), \quad
#'   E\, Y^{-1} = \sqrt{a/b}\, K_{p-1}(w) / K_p(w), \quad
#'   E\, Y = \sqrt{b/a}\, K_{p+1}(w) / K_p(w),}{E log Y = log(b/a)/2 +
#'   d/dp log K_p(w), E 1/Y = sqrt(a/b) K_(p-1)(w) / K_p(w), E Y =
#'   sqrt(b/a) K_(p+1)(w) / K_p(w),}
#' with \eqn{w = \sqrt{ab}}{w = sqrt(ab)}.
#'
#' `gig_expectation()` returns the three expectation parameters,
#' `gig_moments()` the moment \eqn{E[Y^r]}{E[Y^r]} of any real order
#' \eqn{r} (\eqn{(b/a)^{r/2} K_{p+r}(w) / K_p(w)}{(b/a)^(r/2) K_(p+r)(w) /
#' K_p(w)}, computed in log space, so it neither overflows nor underflows
#' where the moment itself is a double), `gig_mean()` the mean and
#' `gig_var()` the variance (from the second derivatives of
#' \eqn{\log K}{log K}, without the cancellation of
#' \eqn{E[Y^2] - E[Y]^2}{E[Y^2] - E[Y]^2} when the distribution is
#' concentrated). Against 40-digit mpmath references the relative errors
#' are below \eqn{10^{-14}}{1e-14} for the expectation parameters and for
#' moments of moderate order (up to about \eqn{|r| \epsilon}{|r| eps}
#' times the size of \eqn{\log K}{log K} for large orders, e.g.
#' \eqn{10^{-13}}{1e-13} at \eqn{r = -30}{r = -30}, \eqn{p = 60}), and
#' below \eqn{10^{-13}}{1e-13} for the variance; all derivatives of
#' \eqn{\log K}{log K} are analytic.
#'
#' The arguments are recycled to the length of the longest (0 if any is
#' empty), as in [dgamma()]. `NA` stays `NA`; invalid parameters (negative
#' `a` or `b`, `b = 0` with `p <= 0`, `a = 0` with `p >= 0`, non-finite
#' values) give `NaN` with a warning. A moment that does not exist (of a
#' gamma or inverse-gamma limit) is `Inf`.
#'
#' @param p Numeric vector of indices (any real number).
#' @param a,b Numeric vectors of the parameters \eqn{a, b \ge 0}{a, b >= 0}.
#' @param order Numeric vector of orders \eqn{r} of the moment
#'   \eqn{E[Y^r]}{E[Y^r]} (any real number).
#' @inheritParams ghmix-params
#' @return `gig_expectation()`: a matrix with one row per parameter set and
#'   columns `E_log_y`, `E_inv_y`, `E_y` (row names from the first argument
#'   of full length that has names). `gig_moments()`, `gig_mean()`,
#'   `gig_var()`: a double vector, with the attributes (names, dimensions)
#'   of the first argument of full length.
#' @seealso [gig_from_expectation()] for the inverse map.
#' @family GIG functions
#' @export
#' @examples
#' gig_expectation(p = c(-0.5, 1, 5), a = 2, b = 1)
#'
#' # the gamma limit (b = 0): E log Y = digamma(p) - log(a / 2)
#' gig_expectation(3, a = 2, b = 0)
#' digamma(3) - log(1)
#'
#' # moments of any real order, mean and variance
#' gig_moments(p = 1.5, a = 2, b = 3, order = c(-1, 0.5, 1, 2))
#' gig_mean(1.5, 2, 3)
#' gig_var(1.5, 2, 3)
#' # the variance without cancellation, where E[Y^2] - E[Y]^2 loses digits
#' # (the exact value is 1e-12 + 5e-24)
#' print(gig_var(2, 1e12, 1e12), digits = 15)
#' print(gig_moments(2, 1e12, 1e12, 2) - gig_mean(2, 1e12, 1e12)^2,
#'       digits = 15)
gig_expectation <- function(p, a, b, backend = c("cpu", "cuda"),
                            device = 0L, threads = ghmix_threads()) {
  call <- sys.call()
  args <- gig_param_args(list(p = p, a = a, b = b), backend, threads, call,
                         "gig_expectation", device = device, cuda = TRUE)
  out <- .Call(ffi_gig_expectation, args$x$p, args$x$a, args$x$b,
               args$threads, device_arg(args$backend, args$device))
  rn <- NULL
  for (x in list(p, a, b)) {
    if (length(x) == nrow(out) && !is.null(names(x))) {
      rn <- names(x)
      break
    }
  }
  dimnames(out) <- list(rn, gig_eta_names)
  gig_warn_nan(out, args$x, nrow(out), call)
  out
}

#' @rdname gig_expectation
#' @export
gig_moments <- function(p, a, b, order = 1, backend = c("cpu", "cuda"),
                        threads = ghmix_threads()) {
  call <- sys.call()
  gig_moment_call(list(p = p, a = a, b = b, order = order), "raw", backend,
                  threads, call, "gig_moments")
}

#' @rdname gig_expectation
#' @export
gig_mean <- function(p, a, b, backend = c("cpu", "cuda"),
                     threads = ghmix_threads()) {
  call <- sys.call()
  gig_moment_call(list(p = p, a = a, b = b, order = 1), "raw", backend,
                  threads, call, "gig_mean")
}

#' @rdname gig_expectation
#' @export
gig_var <- function(p, a, b, backend = c("cpu", "cuda"),
                    threads = ghmix_threads()) {
  call <- sys.call()
  gig_moment_call(list(p = p, a = a, b = b), "variance", backend, threads,
                  call, "gig_var")
}

# E[Y^order] (kind "raw"; x = list(p, a, b, order)) or Var(Y) (kind
# "variance"; x = list(p, a, b)), checked, with the attributes and warnings
# of gig_finish_vector().
gig_moment_call <- function(x, kind, backend, threads, call, fun) {
  args <- gig_param_args(x, backend, threads, call, fun)
  order <- if (is.null(args$x$order)) 0 else args$x$order
  out <- .Call(ffi_gig_moment, args$x$p, args$x$a, args$x$b, order,
               ghmix_code("gig_moment", kind), args$threads)
  gig_finish_vector(out, x, args$x, call)
}

# Checks the numeric arguments, the device, the backend and the thread
# count; returns list(x = the arguments as doubles, threads, backend,
# device). `cuda = FALSE`: the function has no CUDA kernel yet.
gig_param_args <- function(x, backend, threads, call, fun, device = 0L,
                           cuda = FALSE) {
  for (nm in names(x)) {
    check_numeric(x[[nm]], nm, call = call)
  }
  device <- check_device(device, call = call)
  backend <- check_backend(backend, call = call, device = device)
  threads <- check_threads(threads, call = call)
  if (backend == "cuda" && !cuda) {
    abort_cuda_unimplemented(fun, call)
  }
  list(x = lapply(x, as.double), threads = threads, backend = backend,
       device = device)
}

# Gives `out` the attributes of the first argument as long as it (as
# log_besselK() does) and warns about NaNs that no NA input explains.
gig_finish_vector <- function(out, orig, x, call) {
  n <- length(out)
  if (n > 0) {
    for (o in orig) {
      if (length(o) == n) {
        attributes(out) <- attributes(o)
        break
      }
    }
  }
  gig_warn_nan(out, x, n, call)
  out
}

gig_warn_nan <- function(out, x, n, call) {
  if (n == 0 || !anyNA(out)) {
    return(invisible())
  }
  bad_in <- Reduce(`|`, lapply(x, function(v) is.na(rep_len(v, n))))
  nan_out <- is.nan(matrix(as.double(out), nrow = n))
  if (any(nan_out & !bad_in)) {
    warning(simpleWarning("NaNs produced", call))
  }
  invisible()
}

#' GIG parameters from expectation parameters
#'
#' `gig_from_expectation()` inverts [gig_expectation()]: given
#' \eqn{\eta = (E \log Y, E\, Y^{-1}, E\, Y)}{eta = (E log Y, E 1/Y, E Y)}
#' it finds the GIG(p, a, b) with these expectations, i.e. it solves
#' \eqn{\nabla A(\theta) = \eta}{grad A(theta) = eta} for the natural
#' parameters \eqn{\theta = (p - 1, -b/2, -a/2)}{theta = (p - 1, -b/2,
#' -a/2)}, where \eqn{A} is the log-partition function. This is the
#' maximum-likelihood estimate of (p, a, b) from data whose averages of
#' \eqn{\log y}{log y}, \eqn{1/y} and \eqn{y} are `eta`, and the M-step of
#' EM for generalized hyperbolic models. The problem is strictly convex; it
#' is solved by Newton's method with the analytic Hessian (the Fisher
#' information, from the second derivatives of \eqn{\log K_p}{log K_p}),
#' after the rescaling of \eqn{Y} that makes \eqn{E\, Y = E\, Y^{-1}}{E Y =
#' E 1/Y}, from starting values that come from asymptotic forms of the map,
#' with a line search. It typically takes 1 to 6 steps, a few
#' microseconds per row; rows are solved in parallel on `threads`.
#'
#' @section Feasibility and the gamma limits:
#' A distribution on \eqn{(0, \infty)}{(0, Inf)} with these expectations
#' exists if and only if
#' \deqn{E\, Y \cdot E\, Y^{-1} > 1 \quad\mathrm{and}\quad
#'   -\log E\, Y^{-1} < E \log Y < \log E\, Y}{E Y * E 1/Y > 1 and
#'   -log(E 1/Y) < E log Y < log(E Y)}
#' (Jensen's inequality). Rows outside this set are an error of class
#' `ghmix_error_infeasible`, whose message names the rows (the first few)
#' and the violated inequality; the condition has fields `rows` and
#' `inequality`.
#'
#' The GIG family with \eqn{a, b > 0} does not fill this whole set: its
#' limits, the gamma (\eqn{b = 0}, \eqn{p > 1}) and the inverse gamma
#' (\eqn{a = 0}, \eqn{p < -1}), have finite expectation parameters and
#' form its boundary. With \eqn{c = E \log Y - \log E\, Y}{c = E log Y -
#' log E Y}, the gamma whose \eqn{E \log Y}{E log Y} and \eqn{E\, Y}{E Y}
#' are those given has shape \eqn{p} solving \eqn{\psi(p) - \log p = c}{
#' digamma(p) - log(p) = c}, and \eqn{E\, Y \cdot E\, Y^{-1} = p / (p -
#' 1)}{E Y * E 1/Y = p / (p - 1)}. A row whose product
#' \eqn{E\, Y \cdot E\, Y^{-1}}{E Y * E 1/Y} equals that bound (to
#' rounding) is on the boundary: the answer is that gamma, with `b = 0` and
#' the note `"gamma limit (b = 0)"`. A row beyond it (a larger product, but
#' still feasible) has no GIG solution; the answer is again that gamma,
#' which is the maximum-likelihood point of the closed family (the M-step's
#' answer), with `E_inv_y` not matched, a note that says so, and a warning
#' of class `ghmix_warning_boundary`. The inverse gamma is the mirror image
#' (\eqn{Y \to 1/Y}{Y -> 1/Y}, \eqn{p \to -p}{p -> -p}, \eqn{a
#' \leftrightarrow b}{a <-> b}).
#'
#' @section Accuracy and the condition number:
#' Each converged row reproduces `eta` to `grad_norm`, the largest relative
#' residual of the three equations (relative to
#' \eqn{\max(1, |E \log Y|)}{max(1, |E log Y|)} for `E_log_y`), normally a
#' few units of \eqn{10^{-16}}. How well that pins down \eqn{(p, a, b)} is
#' measured by `condition`: the 2-norm of the matrix of relative
#' sensitivities \eqn{\mathrm{diag}(1/\max(1, |p|), 1/a, 1/b)\, J\,
#' \mathrm{diag}(\max(1, |E \log Y|), E\, Y^{-1}, E\, Y)}{diag(1 / max(1,
#' |p|), 1/a, 1/b) J diag(max(1, |E log Y|), E 1/Y, E Y)}, where \eqn{J} is
#' the Jacobian \eqn{\partial(p, a, b)/\partial\eta}{d(p, a, b) / d eta}.
#' A relative error \eqn{\epsilon}{eps} in `eta` (rounding, or sampling
#' noise in moments estimated from data) moves \eqn{p / \max(1, |p|)}{p /
#' max(1, |p|)}, \eqn{\log a}{log a} and \eqn{\log b}{log b} by up to about
#' `condition` times \eqn{\epsilon}{eps}. It is about \eqn{10^2} to
#' \eqn{10^3} for \eqn{|p| \le 2}{|p| <= 2} and \eqn{\sqrt{ab}}{sqrt(ab)}
#' near 1, and grows where the moments say little about the parameters:
#' large \eqn{|p|} with small \eqn{\sqrt{ab}}{sqrt(ab)} (nearly a gamma:
#' \eqn{b} is barely determined) or large \eqn{\sqrt{ab}}{sqrt(ab)}
#' (nearly log-normal: \eqn{p} is barely determined; about
#' \eqn{10^4} at \eqn{\sqrt{ab} = 10}{sqrt(ab) = 10}), reaching
#' \eqn{10^{10}} and more. It is `Inf` on a boundary.
#'
#' @param eta Expectation parameters: a numeric vector of length 3, or a
#'   matrix or data frame with 3 columns, one row per problem. Columns are
#'   taken by name when `eta` has columns named `E_log_y`, `E_inv_y` and
#'   `E_y` (as returned by [gig_expectation()]), otherwise in that order.
#' @param ... Must be empty: the arguments after `eta` must be named.
#' @param start Optional starting values (a warm start, e.g. the previous
#'   EM iteration's parameters): a vector `c(p, a, b)`, or a matrix or data
#'   frame with columns `p`, `a`, `b` (by name or in that order) and one row
#'   or one row per row of `eta`; rows with a non-finite value, or with
#'   `a` or `b` not positive, start cold. Cold starts are good: a warm
#'   start mainly saves a step or two.
#' @param jacobian If `TRUE`, attach the Jacobian
#'   \eqn{\partial(p, a, b)/\partial\eta}{d(p, a, b) / d eta} of each row as
#'   attribute `"jacobian"`: an array of dimension `c(3, 3, n)` with
#'   dimnames `c("p", "a", "b")` and `c("E_log_y", "E_inv_y", "E_y")`. It is
#'   computed analytically from the inverse Fisher information (no finite
#'   differences). At a boundary it is the Jacobian of the limit family
#'   (with `a` or `b` held at 0).
#' @param control A list of settings: `max_iter` (default 100) Newton steps
#'   at most per row, `tol` (default `1e-12`) the largest `grad_norm` that
#'   counts as converged. Rows always iterate until no step improves the
#'   residual, so `tol` only decides the `converged` flag.
#' @inheritParams ghmix-params
#' @return A data frame with one row per row of `eta` (and its row names)
#'   and columns `p`, `a`, `b`; `iterations` (Newton steps); `grad_norm`
#'   (see Accuracy); `converged` (logical); `condition` (see Accuracy); and
#'   `note` (`""`, or what is special about the row: a gamma or inverse
#'   gamma limit, or no representable solution). A row that does not
#'   converge has `converged = FALSE`, holds the best iterate (not a
#'   solution), and causes a warning of class
#'   `ghmix_warning_no_convergence` naming the rows; nothing is replaced by
#'   a guess. With `jacobian = TRUE`, attribute `"jacobian"` as described
#'   above.
#' @seealso [gig_expectation()] for the forward map.
#' @family GIG functions
#' @export
#' @examples
#' eta <- gig_expectation(p = c(-0.5, 2, 10), a = c(1, 2, 3), b = c(3, 2, 1))
#' eta
#' gig_from_expectation(eta)
#'
#' # one row, with the Jacobian d(p, a, b) / d(eta)
#' fit <- gig_from_expectation(c(E_log_y = 0.1, E_inv_y = 1.5, E_y = 1.6),
#'                             jacobian = TRUE)
#' fit
#' attr(fit, "jacobian")[, , 1]
#'
#' # a gamma: b = 0 exactly, with a note
#' gig_from_expectation(gig_expectation(3, a = 2, b = 0))
#'
#' # no distribution has E Y * E 1/Y <= 1
#' try(gig_from_expectation(c(0, 0.5, 1.5)))
gig_from_expectation <- function(eta, ..., start = NULL, jacobian = FALSE,
                                 control = list(),
                                 backend = c("cpu", "cuda"), device = 0L,
                                 threads = ghmix_threads()) {
  call <- sys.call()
  if (...length() > 0L) {
    abort_argument(
      paste("Arguments after `eta` must be named (`start`, `jacobian`,",
            "`control`, `backend`, `device`, `threads`)."),
      call
    )
  }
  m <- gig_eta_matrix(eta, call)
  n <- nrow(m)
  check_flag(jacobian, "jacobian", call = call)
  ctrl <- gig_solve_control(control, call)
  st <- gig_start_matrix(start, n, call)
  device <- check_device(device, call = call)
  backend <- check_backend(backend, call = call, device = device)
  threads <- check_threads(threads, call = call)

  res <- .Call(ffi_gig_from_expectation, m, st, ctrl$max_iter, ctrl$tol,
               jacobian, threads, device_arg(backend, device))
  if (any(res$infeasible != 0L)) {
    abort_infeasible(res$infeasible, call)
  }
  # a data frame built directly (data.frame() costs more than a solve)
  rn <- rownames(m)
  if (is.null(rn) || anyDuplicated(rn) || !all(nzchar(rn))) {
    rn <- .set_row_names(n)
  }
  out <- structure(
    list(p = res$p, a = res$a, b = res$b, iterations = res$iterations,
         grad_norm = res$grad_norm, converged = res$converged,
         condition = res$condition, note = gig_note_text(res$note)),
    class = "data.frame", row.names = rn
  )
  rn <- rownames(m)
  if (jacobian) {
    jac <- res$jacobian
    dimnames(jac) <- list(c("p", "a", "b"), gig_eta_names, rn)
    attr(out, "jacobian") <- jac
  }
  beyond <- which(
    res$note %in% ghmix_code("gig_note", c("gamma_mle", "invgamma_mle"))
  )
  if (length(beyond) > 0L) {
    ghmix_warn(
      paste0(
        "No GIG with a, b > 0 has the given expectations in ",
        rows_text(beyond), ": they lie beyond the gamma or inverse-gamma ",
        "boundary; returned that limit (maximum likelihood), see `note`."
      ),
      class = "ghmix_warning_boundary", rows = beyond, call = call
    )
  }
  if (!all(res$converged)) {
    bad <- which(!res$converged)
    ghmix_warn(
      paste0(
        "gig_from_expectation() did not converge in ", rows_text(bad),
        " (converged = FALSE; see grad_norm and note)."
      ),
      class = "ghmix_warning_no_convergence", rows = bad, call = call
    )
  }
  out
}

# "row 3" / "rows 1, 2, 5" / "rows 1, 2, 3, 4, 5 and 7 more".
rows_text <- function(rows, max = 5L) {
  shown <- paste(rows[seq_len(min(max, length(rows)))], collapse = ", ")
  more <- length(rows) - max
  paste0(
    if (length(rows) == 1L) "row " else "rows ", shown,
    if (more > 0L) sprintf(" and %d more", more) else ""
  )
}

abort_infeasible <- function(codes, call) {
  ineq <- c(
    product = "E_y * E_inv_y <= 1",
    upper = "E_log_y >= log(E_y)",
    lower = "E_log_y <= -log(E_inv_y)"
  )
  kinds <- ghmix_code("gig_infeasible", names(ineq))
  rows <- which(codes %in% kinds)
  parts <- vapply(sort(unique(codes[rows])), function(k) {
    sprintf("%s (%s)", rows_text(which(codes == k)), ineq[[match(k, kinds)]])
  }, character(1))
  ghmix_abort(
    paste0(
      "`eta` is infeasible: no distribution on (0, Inf) has these ",
      "expectations in ", paste(parts, collapse = "; "), ". Feasible ",
      "`eta` has E_y * E_inv_y > 1 and -log(E_inv_y) < E_log_y < log(E_y)."
    ),
    class = "ghmix_error_infeasible",
    rows = rows,
    inequality = unname(ineq[match(codes[rows], kinds)]),
    index = rows[[1L]],
    call = call
  )
}

# eta as an n x 3 double matrix with columns E_log_y, E_inv_y, E_y.
gig_eta_matrix <- function(eta, call) {
  if (is.double(eta) && is.null(dim(eta)) && length(eta) == 3L &&
        is.null(names(eta))) {
    out <- matrix(eta, 1L, 3L) # the common single-row case, fast
  } else {
    out <- three_columns(eta, "eta", gig_eta_names, call)
  }
  colnames(out) <- gig_eta_names
  if (!all(is.finite(out))) {
    bad <- which(rowSums(!is.finite(out)) > 0L)
    abort_argument(
      sprintf("`eta` must be finite (no NA, NaN or Inf): %s.",
              rows_text(bad)),
      call
    )
  }
  if (any(out[, 2L] <= 0) || any(out[, 3L] <= 0)) {
    bad <- which(out[, 2L] <= 0 | out[, 3L] <= 0)
    abort_argument(
      sprintf("`eta`: E_inv_y and E_y must be positive: %s.",
              rows_text(bad)),
      call
    )
  }
  out
}

# NULL or an n x 3 double matrix (p, a, b).
gig_start_matrix <- function(start, n, call) {
  if (is.null(start)) {
    return(NULL)
  }
  out <- three_columns(start, "start", c("p", "a", "b"), call)
  if (!(nrow(out) %in% c(1L, n))) {
    rows <- if (n == 1L) "1 row" else sprintf("1 or %d rows", n)
    abort_argument(sprintf("`start` must have %s.", rows), call)
  }
  unname(out[rep_len(seq_len(nrow(out)), n), , drop = FALSE])
}

# x (a vector of length 3, or a matrix or data frame with 3 columns) as a
# double matrix with 3 columns: by name when x has all of `cols` as names,
# else in order.  Keeps row names.
three_columns <- function(x, arg, cols, call) {
  if (is.data.frame(x) && all(cols %in% names(x))) {
    x <- x[cols]
  }
  x <- as_numeric_table(x, arg, call)
  if (is.null(dim(x))) {
    if (length(x) != 3L) {
      abort_argument(
        sprintf(paste("`%s` must have length 3 (%s) or be a matrix or data",
                      "frame with 3 columns, not length %d."),
                arg, paste(cols, collapse = ", "), length(x)),
        call
      )
    }
    x <- matrix(x, nrow = 1L, dimnames = list(NULL, names(x)))
  }
  cn <- colnames(x)
  if (!is.null(cn) && all(cols %in% cn)) {
    x <- x[, cols, drop = FALSE]
  } else if (any(cols %in% cn)) {
    abort_argument(
      sprintf("`%s` has some but not all of the columns %s (it has %s).",
              arg, paste(cols, collapse = ", "), paste(cn, collapse = ", ")),
      call
    )
  }
  if (length(dim(x)) != 2L || ncol(x) != 3L) {
    abort_argument(
      sprintf("`%s` must have 3 columns (%s), not %s.", arg,
              paste(cols, collapse = ", "),
              paste(dim(x)[-1L], collapse = " x ")),
      call
    )
  }
  matrix(as.double(x), nrow = nrow(x), ncol = 3L,
         dimnames = list(rownames(x), NULL))
}

# A data frame as a numeric matrix (its character row names kept); any
# other x is checked to be numeric.
as_numeric_table <- function(x, arg, call) {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(v) is.numeric(v) || is.logical(v), TRUE)
    if (!all(ok)) {
      abort_argument(sprintf("The columns of `%s` must be numeric.", arg),
                     call)
    }
    rn <- attr(x, "row.names")
    m <- as.matrix(x)
    rownames(m) <- if (is.character(rn)) rn else NULL
    x <- m
  }
  check_numeric(x, arg, call = call)
  x
}

gig_solve_control <- function(control, call) {
  if (identical(control, list())) {
    return(list(max_iter = 100L, tol = 1e-12))
  }
  if (!is_named_list(control)) {
    abort_argument("`control` must be a named list.", call)
  }
  unknown <- setdiff(names(control), c("max_iter", "tol"))
  if (length(unknown)) {
    abort_argument(
      sprintf("Unknown `control` setting %s; known: max_iter, tol.",
              paste0("`", unknown, "`", collapse = ", ")),
      call
    )
  }
  ctrl <- list(max_iter = 100L, tol = 1e-12)
  ctrl[names(control)] <- control
  if (!is_nonneg_number(ctrl$max_iter, whole = TRUE)) {
    abort_argument("`control$max_iter` must be a non-negative whole number.",
                   call)
  }
  if (!is_nonneg_number(ctrl$tol)) {
    abort_argument("`control$tol` must be a non-negative number.", call)
  }
  list(max_iter = as.integer(ctrl$max_iter), tol = as.double(ctrl$tol))
}

is_named_list <- function(x) {
  is.list(x) && !is.data.frame(x) &&
    (length(x) == 0L || (!is.null(names(x)) && all(nzchar(names(x)))))
}

is_nonneg_number <- function(x, whole = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && isTRUE(is.finite(x) && x >= 0)
  if (ok && whole) {
    ok <- x == round(x) && x <= .Machine$integer.max
  }
  isTRUE(ok)
}
