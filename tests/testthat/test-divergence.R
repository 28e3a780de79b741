# kl_divergence(), hellinger(), entropy(), gig_kl_divergence(): zero on
# equal laws, ranges, mpmath references (tools/make_divergence_fixtures.py),
# Monte Carlo against quadrature, the GIG closed form against integrate().

div_ref <- function() {
  ref <- utils::read.csv(testthat::test_path("fixtures", "divergence_ref.csv"),
                         stringsAsFactors = FALSE)
  for (v in c("p", "a", "b", "mu", "gamma", "sigma")) {
    for (k in 1:2) {
      ref[[paste0(v, k)]] <- as.numeric(ref[[paste0(v, k, "_hex")]])
    }
  }
  ref
}

div_laws <- function(r) {
  list(
    gh_law(r$mu1, r$gamma1, r$sigma1, r$p1, r$a1, r$b1),
    gh_law(r$mu2, r$gamma2, r$sigma2, r$p2, r$a2, r$b2)
  )
}

test_that("KL(P, P) = 0 and H(P, P) = 0", {
  laws <- list(
    gh_law(mu = 0.1, gamma = 0.5, sigma = 2, p = -0.5, a = 1, b = 1),
    gh_law(mu = 0, gamma = 0.2, sigma = 1, p = 1.5, a = 3, b = 0),
    gh_law(mu = 0.5, gamma = -0.4, sigma = 1, p = -3, a = 0, b = 6)
  )
  for (law in laws) {
    expect_identical(as.numeric(kl_divergence(law, law)), 0)
    expect_identical(as.numeric(hellinger(law, law)), 0)
  }
  law2 <- gh_law(mu = c(0, 1), gamma = c(0.5, 0), p = -0.5, a = 1, b = 1)
  set.seed(3)
  kl <- kl_divergence(law2, law2, n = 1000)
  expect_identical(as.numeric(kl), 0)
  expect_identical(attr(kl, "std_error"), 0)
  expect_identical(as.numeric(hellinger(law2, law2, n = 1000)), 0)
})

test_that("d = 1 values match mpmath quadrature", {
  ref <- div_ref()
  for (i in seq_len(nrow(ref))) {
    r <- ref[i, ]
    laws <- div_laws(r)
    kl <- kl_divergence(laws[[1L]], laws[[2L]])
    expect_identical(attr(kl, "method"), "quadrature")
    expect_lt(abs(as.numeric(kl) / r$kl - 1), 1e-8)
    h <- hellinger(laws[[1L]], laws[[2L]])
    expect_lt(abs(as.numeric(h) / r$hellinger - 1), 1e-8)
    expect_lt(abs(entropy(laws[[1L]]) / r$entropy - 1), 1e-8)
  }
})

test_that("Hellinger distances lie in [0, 1], KL is positive", {
  ref <- div_ref()
  for (i in seq_len(nrow(ref))) {
    laws <- div_laws(ref[i, ])
    h <- as.numeric(hellinger(laws[[1L]], laws[[2L]]))
    expect_true(h >= 0 && h <= 1)
    expect_gt(as.numeric(kl_divergence(laws[[2L]], laws[[1L]])), 0)
  }
  far <- gh_law(mu = 50, sigma = 0.1, p = -0.5, a = 1, b = 1)
  near <- gh_law(mu = 0, sigma = 0.1, p = -0.5, a = 1, b = 1)
  h <- as.numeric(hellinger(far, near))
  expect_true(h >= 0 && h <= 1)
  expect_gt(h, 0.99)
  set.seed(4)
  h_mc <- as.numeric(hellinger(far, near, method = "monte_carlo", n = 2000))
  expect_true(h_mc >= 0 && h_mc <= 1)
})

test_that("Monte Carlo agrees with quadrature within 3 standard errors", {
  ref <- div_ref()
  set.seed(20261201)
  for (i in seq_len(nrow(ref))) {
    laws <- div_laws(ref[i, ])
    for (fun in list(kl_divergence, hellinger)) {
      quad <- fun(laws[[1L]], laws[[2L]])
      mc <- fun(laws[[1L]], laws[[2L]], method = "monte_carlo", n = 4e4)
      expect_identical(attr(mc, "method"), "monte_carlo")
      se <- attr(mc, "std_error")
      expect_gt(se, 0)
      expect_lt(abs(as.numeric(mc) - as.numeric(quad)), 3 * se)
    }
  }
})

test_that("d > 1 uses Monte Carlo; a margin's KL is at most the joint's", {
  p2 <- gh_law(mu = c(0, 0), gamma = c(0.5, 0.2),
               sigma = matrix(c(1, 0.3, 0.3, 1), 2), p = -0.5, a = 1, b = 1)
  q2 <- gh_law(mu = c(0.1, 0), gamma = c(0, 0), p = -0.5, a = 1, b = 1)
  set.seed(5)
  kl <- kl_divergence(p2, q2, n = 4e4)
  expect_identical(attr(kl, "method"), "monte_carlo")
  kl1 <- kl_divergence(p2[1], q2[1])
  expect_gt(as.numeric(kl) + 3 * attr(kl, "std_error"), as.numeric(kl1))
  h <- hellinger(p2, q2, n = 4e4)
  expect_true(h >= 0 && h <= 1)
})

test_that("entropy of a near-normal law is the normal's", {
  law <- gh_law(mu = 1, sigma = 2, p = -0.5, a = 1e6, b = 1e6)
  s2 <- vcov(law)[[1L]]
  expect_lt(abs(entropy(law) - 0.5 * log(2 * pi * exp(1) * s2)), 1e-5)
})

test_that("the GIG closed form matches integrate() of the densities", {
  sets <- rbind(
    c(-0.5, 1, 1, 1, 2, 0.5),
    c(2, 1, 0, -1, 0, 2),
    c(1.5, 3, 0.5, 1.5, 3, 0.5),
    c(-2, 0, 3, 0.7, 1, 1),
    c(0.3, 4, 2, 2, 1, 0)
  )
  for (i in seq_len(nrow(sets))) {
    s <- sets[i, ]
    f <- function(y) {
      lf <- dgig(y, s[1], s[2], s[3], log = TRUE)
      lg <- dgig(y, s[4], s[5], s[6], log = TRUE)
      ifelse(lf == -Inf, 0, exp(lf) * (lf - lg))
    }
    m <- gig_mean(s[1], s[2], s[3])
    cuts <- c(0, m * c(0.01, 0.1, 1, 10, 100), Inf)
    ref <- sum(vapply(seq_len(length(cuts) - 1L), function(k) {
      stats::integrate(f, cuts[k], cuts[k + 1L], rel.tol = 1e-12)$value
    }, numeric(1)))
    kl <- gig_kl_divergence(s[1], s[2], s[3], s[4], s[5], s[6])
    expect_lt(abs(kl - ref), 1e-9 * max(1, abs(ref)))
  }
  expect_identical(gig_kl_divergence(1, 2, 3, 1, 2, 3), 0)
  expect_length(gig_kl_divergence(c(1, 2), 2, 3, 1, 2, 3), 2L)
  # E[Y] of an inverse gamma with shape 1/2 is infinite
  expect_identical(gig_kl_divergence(-0.5, 0, 1, -0.5, 1, 1), Inf)
})

test_that("bad input: classed errors naming the argument", {
  law <- gh_law(mu = 0, p = -0.5, a = 1, b = 1)
  law2 <- gh_law(mu = c(0, 0), p = -0.5, a = 1, b = 1)
  err <- "ghmix_error_argument"
  expect_error(kl_divergence(1, law), class = err, regexp = "`law`")
  expect_error(hellinger(law, list()), class = err, regexp = "`other`")
  expect_error(kl_divergence(law, law2), class = err, regexp = "`other`")
  expect_error(kl_divergence(law2, law2, method = "quadrature"),
               class = err, regexp = "`method`")
  expect_error(kl_divergence(law, law, method = "exact"), class = err,
               regexp = "`method`")
  expect_error(kl_divergence(law, law, method = "monte_carlo", n = 1),
               class = err, regexp = "`n`")
  expect_error(entropy(law2), class = err, regexp = "`law`")
  expect_error(gig_kl_divergence("a", 1, 1, 1, 1, 1), class = err,
               regexp = "`p1`")
})
