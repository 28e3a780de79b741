# Issue 17: multivariate rows far out on the heavy side of a skewed law,
# where B + log K_q(omega) cancels (src/core/mixture.h, ghmix_mix_row_z).
# The reference values are those that tools/make_heavy_row_fixtures.py
# writes to the fixture heavy_row_ref.csv: the closed form of the density
# in mpmath at up to 380 digits from the exact doubles.  Asked for: log f
# to 1e-10 relative to max(1, |reference|), plus `sens`, what moving x by
# 4 ulps per coordinate changes (far rows along gamma are ill-conditioned:
# a rounding of x moves the part of x - mu orthogonal to gamma by eps |x|,
# and log f by about |g| (eps |z|)^2 / (2 |z|); no double algorithm does
# better there).

heavy_fixture <- function() {
  ref <- utils::read.csv(testthat::test_path("fixtures", "heavy_row_ref.csv"),
                         stringsAsFactors = FALSE,
                         colClasses = c(D = "character"))
  for (v in c("p", "a", "b")) {
    ref[[v]] <- as.numeric(ref[[paste0(v, "_hex")]])
  }
  ref
}

heavy_sigma <- function(r) {
  hex <- function(v) as.numeric(strsplit(v, ";", fixed = TRUE)[[1L]])
  if (is.na(r$sigma_hex)) {
    factor_cov(matrix(hex(r$loadings_hex), r$d), hex(r$uniq_hex))
  } else {
    matrix(hex(r$sigma_hex), r$d)
  }
}

heavy_logf <- function(r, ...) {
  hex <- function(v) as.numeric(strsplit(v, ";", fixed = TRUE)[[1L]])
  dgh(matrix(hex(r$x_hex), 1L), mu = hex(r$mu_hex),
      gamma = hex(r$gamma_hex), sigma = heavy_sigma(r), p = r$p, a = r$a,
      b = r$b, log = TRUE, ...)
}

test_that("dgh() is right far out on the heavy side (d = 2, 3)", {
  ref <- heavy_fixture()
  expect_setequal(unique(ref$D), c("1e+03", "1e+08", "1e+13", "1e+50",
                                   "1e+150", "1e+160"))
  for (i in seq_len(nrow(ref))) {
    r <- ref[i, ]
    v <- heavy_logf(r)
    info <- sprintf("%s D = %s %s: %.17g, reference %.17g (sens %g)",
                    r$label, r$D, r$kind, v, r$value, r$sens)
    expect_true(is.finite(v) && v < 0, info = info)
    expect_lte(abs(v - r$value), 1e-10 * max(1, abs(r$value)) + r$sens,
               label = info)
  }
})

test_that("heavy rows: the density and the E-step's rows agree", {
  ref <- heavy_fixture()
  ref <- ref[ref$label == "nig2" & ref$kind == "tilted", ]
  hex <- function(v) as.numeric(strsplit(v, ";", fixed = TRUE)[[1L]])
  x <- do.call(rbind, lapply(ref$x_hex, hex))
  r <- ref[1L, ]
  par <- list(mu = hex(r$mu_hex), gamma = hex(r$gamma_hex), p = r$p,
              a = r$a, b = r$b)
  chol_l <- t(chol(heavy_sigma(r)))
  rows <- ghmix:::mix_estep(ghmix:::mix_engine_cpu(x, 1L), par,
                            ghmix:::mix_what_rows(), rows = TRUE,
                            chol_l = chol_l)$rows
  lf <- rows[, ghmix:::estep_row_columns()[["loglik"]]]
  expect_equal(lf, ref$value, tolerance = 1e-10)
})
