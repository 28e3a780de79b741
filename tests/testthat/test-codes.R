# The codes and the E-step layout that R reads from C (src/r_codes.c).

test_that("codes are distinct integers in every group", {
  codes <- ghmix:::the$codes
  expect_setequal(
    names(codes),
    c("family", "cov", "estep", "estep_row", "gig_note", "gig_infeasible",
      "gig_moment")
  )
  for (group in codes) {
    expect_type(group, "integer")
    expect_false(anyDuplicated(group) > 0)
    expect_false(anyDuplicated(names(group)) > 0)
  }
  expect_setequal(names(codes$family), c("gh", "nig", "vg", "skewt"))
  expect_error(ghmix:::ghmix_code("family", "normal"), "internal error")
  flags <- ghmix:::ghmix_flags("estep", c("moments", "logy"))
  expect_identical(flags, bitwOr(codes$estep[["moments"]],
                                 codes$estep[["logy"]]))
})

# Block lengths from the definition in src/core/estep.h.
expected_blocks <- function(d, g, cov, r) {
  per <- c(tau = 1, inv_y = 1, y = 1, log_y = 1, inv_y_dev = 1, y_dev = 1,
           u = d, inv_y_u = d)
  per <- if (cov == "full") {
    c(per, inv_y_uu = d * d)
  } else {
    c(per, inv_y_uu_diag = d, inv_y_uu_proj = d * r)
  }
  per <- per[per > 0] # blocks of length 0 are not in the layout
  c(c(rows = 1, weight = 1, loglik = 1, bad = 1), rep(per, g))
}

test_that("the E-step layout tiles the statistics in the documented order", {
  shapes <- list(
    list(d = 1, g = 1, cov = "full", r = 0),
    list(d = 4, g = 1, cov = "full", r = 0),
    list(d = 3, g = 4, cov = "full", r = 0),
    list(d = 7, g = 2, cov = "factor", r = 3),
    list(d = 2, g = 1, cov = "factor", r = 0)
  )
  for (s in shapes) {
    lay <- ghmix:::estep_layout(s$d, s$g, s$cov, s$r)
    want <- expected_blocks(s$d, s$g, s$cov, s$r)
    blocks <- lay$blocks
    expect_identical(names(blocks), names(want))
    starts <- vapply(blocks, `[[`, 0L, 1L)
    lens <- vapply(blocks, `[[`, 0L, 2L)
    expect_equal(unname(lens), unname(want))
    expect_equal(unname(starts), unname(cumsum(c(1, want))[seq_along(want)]))
    expect_equal(lay$nstats, sum(want))
    comps <- vapply(blocks, `[[`, 0L, 5L)
    expect_equal(unname(comps),
                 c(rep(0, 4), rep(seq_len(s$g), each = (length(want) - 4) /
                                     s$g)))
    dims <- vapply(blocks, function(b) b[[3]] * b[[4]], 0)
    expect_equal(unname(dims), unname(lens))
  }
  expect_error(ghmix:::estep_layout(3, 1, "factor", 3), "internal error")
  expect_error(ghmix:::estep_layout(0, 1, "full", 0), "internal error")
})

test_that("the E-step statistics decode by the layout's names", {
  set.seed(3)
  x <- matrix(rnorm(300), 100, 3)
  par <- list(mu = c(0.1, 0, -0.1), gamma = c(0.2, 0, -0.1),
              sigma = diag(3) + 0.2, p = -1.2, a = 1.3, b = 0.8)
  chol_l <- .Call(ffi_chol_lower, par$sigma)
  k <- .Call(ffi_mix_consts, chol_l, par$gamma, c(par$p, par$a, par$b))
  expect_named(k, c("g", "consts"))
  expect_equal(k$g, forwardsolve(chol_l, par$gamma))
  expect_named(k$consts, c("p", "a", "b", "gsg", "logdet"))
  what <- ghmix:::mix_what("gh")
  raw <- .Call(ffi_mix_estep, x, par$mu, chol_l, k$g, k$consts, what, TRUE,
               1L)
  lay <- ghmix:::estep_layout(3)
  expect_length(raw, lay$nstats)
  expect_named(lay$blocks$inv_y_uu,
               c("start", "length", "nrow", "ncol", "component"))
  st <- ghmix:::estep_decode_one(raw, lay)
  col <- ghmix:::estep_row_columns()
  expect_named(col, c("loglik", "inv_y", "y", "log_y"))
  rows <- st$rows
  expect_identical(ncol(rows), length(col))
  w <- rows[, col[["inv_y"]]]
  u <- sweep(x, 2, par$mu)
  expect_identical(c(st$n, st$tau, st$n_bad), c(100, 100, 0))
  expect_equal(st$loglik, sum(rows[, col[["loglik"]]]))
  expect_equal(c(st$s_inv, st$s_y, st$s_log),
               unname(colSums(rows[, col[c("inv_y", "y", "log_y")]])))
  expect_equal(st$sx, colSums(u))
  expect_equal(st$sxw, colSums(w * u))
  expect_equal(st$sxx, crossprod(u * sqrt(w)))
  sub <- .Call(ffi_mix_subordinator, ghmix_code("family", "nig"),
               c(0, 1.5, 1.6), c(-0.5, 1, 1))
  expect_named(sub, c("p", "a", "b", "converged", "note"))
})
