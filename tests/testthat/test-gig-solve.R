# gig_expectation(), gig_moments(), gig_mean(), gig_var() against independent
# mpmath references (fixtures/gig_eta_ref.csv, written by
# tools/make_gig_eta_fixtures.py), and gig_from_expectation(): round trips,
# Jacobian, feasibility, the gamma limits, threads, inputs and errors.

gig_eta_ref <- function() {
  utils::read.csv(testthat::test_path("fixtures", "gig_eta_ref.csv"),
                  colClasses = c(region = "character"))
}

# |got - ref| / |ref| (/ max(1, |ref|) when absolute); equal infinities are 0
rel_err_gig <- function(got, ref, absolute = FALSE) {
  err <- abs(got - ref) / if (absolute) pmax(1, abs(ref)) else abs(ref)
  err[is.infinite(ref) & got == ref] <- 0
  err[is.na(err)] <- Inf
  err
}

expect_below <- function(err, tol, ref, what) {
  bad <- which(!(err <= tol))
  testthat::expect(
    length(bad) == 0L,
    sprintf(
      "%s: %d rows above %g; worst %.3g at p = %.17g, a = %.17g, b = %.17g",
      what, length(bad), tol, max(err), ref$p[which.max(err)],
      ref$a[which.max(err)], ref$b[which.max(err)]
    )
  )
}

eta_rel_err <- function(got, ref) {
  pmax(rel_err_gig(got[, 1], ref[, 1], absolute = TRUE),
       rel_err_gig(got[, 2], ref[, 2]), rel_err_gig(got[, 3], ref[, 3]))
}

# p x sqrt(ab) x a/b, as in the issue
gig_grid <- function() {
  g <- expand.grid(
    p = c(-50, -20, -10, -5, -2.5, -1.5, -1, -0.5, -0.1, 0, 0.1, 0.5, 1, 1.5,
          2, 2.5, 5, 10, 20, 50),
    w = 10^seq(-6, 4, by = 0.5),
    ratio = 10^c(-8, -4, 0, 4, 8)
  )
  data.frame(p = g$p, a = g$w * sqrt(g$ratio), b = g$w / sqrt(g$ratio))
}

test_that("the fixture covers the parameter domain and the limits", {
  ref <- gig_eta_ref()
  expect_gte(nrow(ref), 300L)
  expect_true(all(c("grid", "random", "gamma", "invgamma") %in% ref$region))
  int <- ref$a > 0 & ref$b > 0
  expect_equal(range(ref$p[int]), c(-50, 50))
  w <- sqrt(ref$a[int] * ref$b[int])
  expect_true(min(w) <= 1.01e-6 && max(w) >= 0.99e4)
  expect_true(min(ref$a[int] / ref$b[int]) <= 1.01e-8)
  expect_true(max(ref$a[int] / ref$b[int]) >= 0.99e8)
})

test_that("gig_expectation() matches mpmath to 1e-13", {
  ref <- gig_eta_ref()
  got <- gig_expectation(ref$p, ref$a, ref$b)
  expect_identical(dim(got), c(nrow(ref), 3L))
  expect_identical(colnames(got), c("E_log_y", "E_inv_y", "E_y"))
  expect_below(rel_err_gig(got[, "E_log_y"], ref$E_log_y, absolute = TRUE),
               1e-13, ref, "E_log_y")
  expect_below(rel_err_gig(got[, "E_inv_y"], ref$E_inv_y), 1e-13, ref,
               "E_inv_y")
  expect_below(rel_err_gig(got[, "E_y"], ref$E_y), 1e-13, ref, "E_y")
})

test_that("gig_moments(), gig_mean() and gig_var() match mpmath", {
  ref <- gig_eta_ref()
  expect_below(rel_err_gig(gig_moments(ref$p, ref$a, ref$b, ref$r),
                           ref$E_y_r), 1e-13, ref, "E Y^r")
  expect_below(rel_err_gig(gig_mean(ref$p, ref$a, ref$b), ref$E_y), 1e-13,
               ref, "mean")
  expect_below(rel_err_gig(gig_var(ref$p, ref$a, ref$b), ref$var_y), 1e-12,
               ref, "variance")
  # E[Y^1] and E[Y^-1] are the expectation parameters
  expect_equal(gig_moments(ref$p, ref$a, ref$b, -1), ref$E_inv_y,
               tolerance = 1e-13)
})

test_that("forward maps: recycling, attributes, NA, invalid parameters", {
  expect_identical(nrow(gig_expectation(1:3, 1, 2)), 3L)
  expect_identical(nrow(gig_expectation(numeric(), 1, 2)), 0L)
  expect_identical(rownames(gig_expectation(c(u = 1, v = 2), 1, 1)),
                   c("u", "v"))
  expect_named(gig_moments(c(u = 1, v = 2), 1, 1), c("u", "v"))
  m <- matrix(1:4, 2)
  expect_identical(dim(gig_mean(m, 1, 1)), c(2L, 2L))
  expect_length(gig_moments(1, 1, 1, order = c(1, 2, 3)), 3L)
  expect_identical(gig_moments(1, 1, 1, numeric()), numeric())
  expect_true(is.na(gig_mean(NA, 1, 1)))
  expect_silent(gig_expectation(NA, 1, 1))
  expect_warning(v <- gig_mean(1, -1, 1), "NaNs produced")
  expect_true(is.nan(v))
  expect_warning(gig_expectation(0, 1, 0), "NaNs produced") # b = 0, p <= 0
  expect_warning(gig_var(1, 0, 1), "NaNs produced")         # a = 0, p >= 0
  expect_warning(gig_mean(Inf, 1, 1), "NaNs produced")
  # limits: moments that do not exist are Inf
  expect_identical(gig_expectation(0.5, 2, 0)[[1, "E_inv_y"]], Inf)
  expect_identical(gig_moments(2, 1, 0, order = -3), Inf)
  expect_identical(gig_var(-1.5, 0, 1), Inf)
  expect_equal(gig_mean(3, 2, 0), 3)
  expect_equal(gig_var(3, 2, 0), 3)
  # inverse Gaussian (p = -1/2): mean sqrt(b/a), variance sqrt(b/a)^3 / b
  expect_equal(gig_mean(-0.5, 4, 9), 1.5, tolerance = 1e-14)
  expect_equal(gig_var(-0.5, 4, 9), 1.5^3 / 9, tolerance = 1e-14)
  expect_error(gig_mean("1", 1, 1), class = "ghmix_error_argument")
  expect_error(gig_moments(1, 1, 1, order = "a"), "`order`")
})

test_that("round trip (p, a, b) -> eta -> (p, a, b) on the grid", {
  g <- gig_grid()
  eta <- gig_expectation(g$p, g$a, g$b)
  fit <- gig_from_expectation(eta)
  expect_true(all(fit$converged))
  expect_true(all(fit$iterations <= 10L))
  back <- gig_expectation(fit$p, fit$a, fit$b)
  err_eta <- eta_rel_err(back, eta)
  expect_below(err_eta, 1e-12, g, "eta round trip")
  err_par <- pmax(abs(fit$p - g$p) / pmax(1, abs(g$p)),
                  abs(fit$a / g$a - 1), abs(fit$b / g$b - 1))
  tol <- ifelse(fit$condition < 1e7, 1e-8, 1e-14 * fit$condition)
  expect_below(err_par / tol, 1, g, "(p, a, b) round trip / tolerance")
  # the condition number is the one of the issue: large |p| with tiny
  # sqrt(ab), and sqrt(ab) in the thousands, are badly conditioned
  w <- sqrt(g$a * g$b)
  moderate <- abs(g$p) <= 2 & w >= 0.3 & w <= 3 & g$a == g$b
  expect_true(all(fit$condition[moderate] < 1e3))
  expect_gt(max(fit$condition[w >= 1e3 & is.finite(fit$condition)]), 1e9)
  # near a gamma limit to rounding, the answer is the limit with a note
  lim <- fit$note != ""
  expect_true(all(grepl("gamma limit", fit$note[lim])))
  expect_true(all(is.infinite(fit$condition[lim])))
})

test_that("round trip of the mpmath eta reproduces the parameters", {
  ref <- gig_eta_ref()
  ref <- ref[ref$region %in% c("grid", "random"), ]
  eta <- as.matrix(ref[c("E_log_y", "E_inv_y", "E_y")])
  fit <- gig_from_expectation(eta)
  expect_true(all(fit$converged))
  err_par <- pmax(abs(fit$p - ref$p) / pmax(1, abs(ref$p)),
                  abs(fit$a / ref$a - 1), abs(fit$b / ref$b - 1))
  tol <- ifelse(fit$condition < 1e7, 1e-8, 1e-14 * fit$condition)
  expect_below(err_par / tol, 1, ref, "(p, a, b) from mpmath eta / tolerance")
})

test_that("the Jacobian agrees with finite differences of the forward map", {
  pts <- data.frame(
    p = c(-0.5, 2, 0, 3.5, -4, 1, 0.3, -1.2, 12),
    a = c(1, 2, 0.1, 20, 1e-3, 1, 40, 7, 0.05),
    b = c(3, 2, 5, 1, 2, 1e-2, 60, 0.5, 300)
  )
  eta <- gig_expectation(pts$p, pts$a, pts$b)
  fit <- gig_from_expectation(eta, jacobian = TRUE)
  jac <- attr(fit, "jacobian")
  expect_identical(dim(jac), c(3L, 3L, nrow(pts)))
  expect_identical(dimnames(jac)[1:2], list(c("p", "a", "b"),
                                            c("E_log_y", "E_inv_y", "E_y")))
  for (i in seq_len(nrow(pts))) {
    par <- unlist(pts[i, ])
    sp <- c(max(1, abs(par[[1]])), par[[2]], par[[3]])
    # d eta / d(p, a, b) by fourth-order central differences
    fwd <- vapply(1:3, function(k) {
      h <- 1e-3 * sp[[k]]
      f <- function(d) {
        x <- par
        x[[k]] <- x[[k]] + d
        drop(gig_expectation(x[[1]], x[[2]], x[[3]]))
      }
      (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)
    }, numeric(3))
    # solve(J) is the analytic forward derivative; compare row-wise in
    # units of the parameters' scales
    inv <- solve(jac[, , i])
    err <- apply(abs(inv - fwd) %*% diag(sp), 1, max) /
      apply(abs(fwd) %*% diag(sp), 1, max)
    expect_lt(max(err), 1e-6)
    # and J %*% fwd = I in relative units where well conditioned
    if (fit$condition[i] < 1e4) {
      prod <- diag(1 / sp) %*% jac[, , i] %*% fwd %*% diag(sp)
      expect_lt(max(abs(prod - diag(3))), 1e-6)
    }
  }
  # the condition number is the 2-norm of the relative Jacobian
  for (i in seq_len(nrow(pts))) {
    rel <- diag(c(1 / max(1, abs(fit$p[i])), 1 / fit$a[i], 1 / fit$b[i])) %*%
      jac[, , i] %*% diag(c(max(1, abs(eta[i, 1])), eta[i, 2], eta[i, 3]))
    expect_equal(fit$condition[i], norm(rel, "2"), tolerance = 1e-8)
  }
})

test_that("infeasible eta is a classed error that names rows and inequality", {
  eta <- rbind(
    c(0.1, 1, 2),        # feasible
    c(0, 0.5, 1.5),      # product below 1
    c(log(2), 1, 2),     # E_log_y at its upper bound
    c(0.1, 1, 2),
    c(-0.1, 1, 2),       # E_log_y below its lower bound
    c(0, 0.5, 2)         # product exactly 1
  )
  e <- tryCatch(gig_from_expectation(eta), error = identity)
  expect_s3_class(e, "ghmix_error_infeasible")
  expect_s3_class(e, "ghmix_error")
  expect_identical(e$rows, c(2L, 3L, 5L, 6L))
  expect_match(conditionMessage(e), "rows 2, 6 (E_y * E_inv_y <= 1)",
               fixed = TRUE)
  expect_match(conditionMessage(e), "row 3 (E_log_y >= log(E_y))",
               fixed = TRUE)
  expect_match(conditionMessage(e), "row 5 (E_log_y <= -log(E_inv_y))",
               fixed = TRUE)
  expect_identical(conditionCall(e)[[1L]], as.name("gig_from_expectation"))
  # many rows: the first few, then a count
  many <- matrix(rep(c(0, 0.5, 1.5), each = 20), 20)
  expect_error(gig_from_expectation(many), "rows 1, 2, 3, 4, 5 and 15 more",
               class = "ghmix_error_infeasible")
})

test_that("on the gamma boundary the answer is the exact limit with a note", {
  eta <- gig_expectation(c(3, 7.25, -2.5, -40), c(2, 0.5, 0, 0),
                         c(0, 0, 3, 0.1))
  fit <- expect_silent(gig_from_expectation(eta, jacobian = TRUE))
  expect_identical(fit$b[1:2], c(0, 0))
  expect_identical(fit$a[3:4], c(0, 0))
  expect_equal(fit$p, c(3, 7.25, -2.5, -40), tolerance = 1e-13)
  expect_equal(fit$a[1:2], c(2, 0.5), tolerance = 1e-13)
  expect_equal(fit$b[3:4], c(3, 0.1), tolerance = 1e-13)
  expect_identical(fit$note, rep(c("gamma limit (b = 0)",
                                   "inverse gamma limit (a = 0)"), each = 2))
  expect_true(all(fit$converged))
  expect_true(all(is.infinite(fit$condition)))
  expect_true(all(attr(fit, "jacobian")[3, , 1:2] == 0))
  # the gamma's shape solves digamma(p) - log(p) = E_log_y - log(E_y)
  expect_equal(digamma(fit$p[1]) - log(fit$p[1]),
               eta[[1, "E_log_y"]] - log(eta[[1, "E_y"]]), tolerance = 1e-14)
})

test_that("beyond the boundary: the limit that maximises the likelihood", {
  eta <- gig_expectation(4, 2, 0)
  eta[, "E_inv_y"] <- eta[, "E_inv_y"] * 1.5
  expect_warning(fit <- gig_from_expectation(eta),
                 class = "ghmix_warning_boundary")
  expect_identical(fit$b, 0)
  expect_equal(c(fit$p, fit$a), c(4, 2), tolerance = 1e-13)
  expect_match(fit$note, "E_inv_y is above the gamma's and not matched")
  # the same eta mirrored (Y -> 1/Y) gives the inverse gamma
  mirror <- cbind(-eta[, 1], eta[, 3], eta[, 2])
  expect_warning(fit2 <- gig_from_expectation(mirror),
                 class = "ghmix_warning_boundary")
  expect_identical(fit2$a, 0)
  expect_equal(c(fit2$p, fit2$b), c(-4, 2), tolerance = 1e-13)
})

test_that("results do not depend on the thread count", {
  set.seed(1)
  n <- 2000
  eta <- gig_expectation(runif(n, -10, 10), 10^runif(n, -3, 3),
                         10^runif(n, -3, 3))
  f1 <- gig_from_expectation(eta, jacobian = TRUE, threads = 1)
  f2 <- gig_from_expectation(eta, jacobian = TRUE, threads = 2)
  expect_identical(f1, f2)
  expect_identical(gig_expectation(1:50 / 7, 1, 2, threads = 1),
                   gig_expectation(1:50 / 7, 1, 2, threads = 2))
})

test_that("eta as a vector, matrix or data frame, by name or position", {
  eta <- gig_expectation(c(-1, 2), c(1, 3), c(2, 1))
  ref <- gig_from_expectation(eta)
  expect_s3_class(ref, "data.frame")
  expect_named(ref, c("p", "a", "b", "iterations", "grad_norm", "converged",
                      "condition", "note"))
  expect_equal(ref$p, c(-1, 2), tolerance = 1e-12)
  # unnamed matrix: columns in order
  expect_identical(gig_from_expectation(unname(eta)), ref)
  # named columns in another order
  expect_identical(gig_from_expectation(eta[, c(3, 1, 2)]), ref)
  # data frame, with row names carried over
  df <- as.data.frame(eta)
  rownames(df) <- c("x", "y")
  fd <- gig_from_expectation(df)
  expect_identical(rownames(fd), c("x", "y"))
  expect_identical(unname(as.matrix(fd[1:3])), unname(as.matrix(ref[1:3])))
  # a vector, named or not
  expect_identical(gig_from_expectation(eta[1, ]), ref[1, ])
  expect_identical(gig_from_expectation(unname(eta[2, ])),
                   `rownames<-`(ref[2, ], NULL))
  # no rows
  expect_identical(nrow(gig_from_expectation(eta[0, , drop = FALSE])), 0L)
  # warm starts: a previous result, a matrix, a vector
  expect_equal(gig_from_expectation(eta, start = ref)[1:3], ref[1:3],
               tolerance = 1e-13)
  warm <- gig_from_expectation(eta, start = ref)
  expect_true(all(warm$iterations <= 2L))
  expect_equal(gig_from_expectation(eta, start = c(0, 1, 1))$p, ref$p,
               tolerance = 1e-12)
  expect_equal(gig_from_expectation(eta, start = cbind(NA, 1, 1))$p, ref$p,
               tolerance = 1e-12)
})

test_that("rows that do not converge are flagged, with a classed warning", {
  eta <- gig_expectation(c(1, 5), 1, 2)
  expect_warning(
    fit <- gig_from_expectation(eta, control = list(max_iter = 0)),
    class = "ghmix_warning_no_convergence"
  )
  expect_false(any(fit$converged))
  expect_true(all(fit$iterations == 0L))
  expect_true(all(fit$grad_norm > 1e-12))
  w <- tryCatch(gig_from_expectation(eta, control = list(max_iter = 0)),
                warning = identity)
  expect_identical(w$rows, 1:2)
  expect_match(conditionMessage(w), "rows 1, 2")
  # a tolerance nobody can meet is honest too
  expect_warning(gig_from_expectation(eta, control = list(tol = 0)),
                 class = "ghmix_warning_no_convergence")
})

test_that("bad input is a clear error naming the argument", {
  ok <- c(0.1, 1.5, 1.6)
  expect_error(gig_from_expectation("a"), class = "ghmix_error_argument")
  expect_error(gig_from_expectation(1:2), "length 3")
  expect_error(gig_from_expectation(matrix(1, 2, 4)), "3 columns")
  expect_error(gig_from_expectation(array(1, c(1, 3, 1))), "3 columns")
  expect_error(gig_from_expectation(c(NA, 1, 2)), "finite.*row 1")
  expect_error(gig_from_expectation(rbind(ok, c(0, Inf, 2))), "row 2")
  expect_error(gig_from_expectation(c(0, -1, 2)), "positive")
  expect_error(gig_from_expectation(data.frame(a = "x", b = 1, c = 2)),
               "numeric")
  expect_error(gig_from_expectation(cbind(E_y = 1, E_inv_y = 2, z = 3)),
               "some but not all")
  expect_error(gig_from_expectation(ok, TRUE), "must be named",
               class = "ghmix_error_argument")
  expect_error(gig_from_expectation(ok, jacobian = NA), "`jacobian`")
  expect_error(gig_from_expectation(ok, control = list(maxit = 3)),
               "Unknown `control` setting `maxit`")
  expect_error(gig_from_expectation(ok, control = list(max_iter = -1)),
               "max_iter")
  expect_error(gig_from_expectation(ok, control = list(tol = NA)), "tol")
  expect_error(gig_from_expectation(ok, control = 1), "named list")
  expect_error(gig_from_expectation(ok, start = 1:2), "`start`")
  expect_error(gig_from_expectation(rbind(ok, ok, ok),
                                    start = matrix(1, 2, 3)), "1 or 3 rows")
  expect_error(gig_from_expectation(ok, threads = 0), "`threads`")
  expect_error(gig_from_expectation(ok, backend = "gpu"), "`backend`")
})

test_that("backend = 'cuda' is an error, never a silent fallback", {
  e <- tryCatch(gig_from_expectation(c(0.1, 1.5, 1.6), backend = "cuda"),
                error = identity)
  expect_s3_class(e, "ghmix_error")
  expect_error(gig_expectation(1, 1, 1, backend = "cuda"),
               class = "ghmix_error")
  expect_error(gig_moments(1, 1, 1, backend = "cuda"), class = "ghmix_error")
})
