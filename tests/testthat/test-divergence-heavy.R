# Divergences and entropy of heavy-tailed laws (issue 31, item 3): finite
# values to 1e-8 against 30-digit mpmath
# (tools/make_heavy_divergence_fixtures.py) and the closed-form Student-t
# entropy; Inf where the divergence is infinite; never integrate()'s error.

heavy_ref <- function() {
  ref <- utils::read.csv(
    testthat::test_path("fixtures", "heavy_divergence_ref.csv"),
    stringsAsFactors = FALSE
  )
  for (v in c("p", "a", "b", "mu", "gamma", "sigma")) {
    for (k in 1:2) {
      ref[[paste0(v, k)]] <- as.numeric(ref[[paste0(v, k, "_hex")]])
    }
  }
  ref
}

heavy_law <- function(r, k) {
  g <- function(v) r[[paste0(v, k)]]
  gh_law(g("mu"), g("gamma"), g("sigma"), g("p"), g("a"), g("b"))
}

test_that("heavy tails: KL, Hellinger and entropy to 1e-8", {
  ref <- heavy_ref()
  for (i in seq_len(nrow(ref))) {
    r <- ref[i, ]
    law <- heavy_law(r, 1)
    other <- heavy_law(r, 2)
    expect_lt(abs(kl_divergence(law, other) - r$kl), 1e-8 * (1 + r$kl))
    expect_lt(abs(hellinger(law, other) - r$hellinger), 1e-8)
    expect_lt(abs(entropy(law) - r$entropy), 1e-8 * (1 + abs(r$entropy)))
  }
})

test_that("the entropy of Student's t: its closed form", {
  t_entropy <- function(nu) {
    (nu + 1) / 2 * (digamma((nu + 1) / 2) - digamma(nu / 2)) +
      log(sqrt(nu) * beta(nu / 2, 0.5))
  }
  for (nu in c(0.3, 0.5, 1, 2, 7)) {
    law <- gh_law(p = -nu / 2, a = 0, b = nu)
    expect_lt(abs(entropy(law) - t_entropy(nu)), 1e-8, label = nu)
  }
  # the issue's t(0.5): 3.666727
  expect_equal(entropy(gh_law(p = -0.25, a = 0, b = 0.5)), 3.666727,
               tolerance = 1e-6)
})

test_that("infinite divergences are Inf", {
  nig <- gh_law(p = -0.5, a = 1, b = 1)
  normal <- gh_law(a = 1e300, b = 1e300)
  cauchy <- gh_law(p = -0.5, a = 0, b = 1)
  t2 <- gh_law(p = -1, a = 0, b = 2)
  # Cauchy against NIG: no first moment against a linear log density
  expect_identical(as.vector(kl_divergence(cauchy, nig)), Inf)
  # t(2) against a normal: no second moment against a quadratic one
  expect_identical(as.vector(kl_divergence(t2, normal)), Inf)
  # a skew-t of 3 degrees of freedom, heavy on the left (power 1.5):
  # finite against a normal on the right only, so infinite
  expect_identical(
    as.vector(kl_divergence(gh_law(gamma = -1, p = -1.5, a = 0, b = 3),
                            normal)),
    Inf
  )
  # the other way round all are finite, and Hellinger is at most 1
  expect_true(is.finite(kl_divergence(nig, cauchy)))
  expect_true(is.finite(kl_divergence(normal, t2)))
  h <- hellinger(cauchy, normal)
  expect_true(h > 0 && h < 1)
  # the issue's t(3) against the normal: 0.645461
  expect_equal(as.vector(kl_divergence(gh_law(p = -1.5, a = 0, b = 3),
                                       normal)), 0.645461, tolerance = 1e-6)
})
