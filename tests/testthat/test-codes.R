# The codes and the E-step layout that R reads from C (src/r_codes.c).

test_that("codes are distinct integers in every group", {
  codes <- ghmix:::the$codes
  expect_setequal(
    names(codes),
    c("family", "cov", "estep", "gig_note", "gig_infeasible", "gig_moment")
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
  per <- c(tau = 1, inv_y = 1, y = 1, log_y = 1, u = d, inv_y_u = d)
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
