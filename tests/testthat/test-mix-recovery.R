# Recovery of a simulated G = 3 NIG mixture in d = 5 (n = 5000) with known
# labels and parameters: the likelihood, the classification and the
# parameters within a few standard errors (vcov.ghmix_mixture()).

# Three NIG components (E[Y] = 1: a = b, the fit's default gauge) apart
# along every coordinate, in the order the fit reports them (by mu[1]).
sim_recovery <- function(n, d, seed) {
  set.seed(seed)
  props <- c(0.25, 0.35, 0.4)
  comps <- lapply(1:3, function(k) {
    a_mat <- matrix(stats::rnorm(d * d), d, d) / 3
    shift <- c(-6, 0, 6)[k]
    list(mu = c(shift, shift / 2 + stats::rnorm(d - 1L)),
         gamma = stats::rnorm(d) / 2, sigma = crossprod(a_mat) + diag(d) / 2,
         p = -0.5, a = 2, b = 2)
  })
  lab <- sample(3L, n, replace = TRUE, prob = props)
  x <- matrix(0, n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  for (k in 1:3) {
    i <- which(lab == k)
    ck <- comps[[k]]
    x[i, ] <- sim_mixture(length(i), ck$mu, ck$gamma, ck$sigma, ck$p, ck$a,
                          ck$b)
  }
  list(x = x, labels = lab, props = props, comps = comps)
}

test_that("d = 5: G = 3 NIG mixture recovered (loglik, ARI, parameters)", {
  skip_on_cran()
  skip_if_not_installed("mclust")
  sim <- sim_recovery(5000, 5, 141)
  x <- sim$x
  set.seed(1)
  fit <- fit_nig(x, components = 3, nstart = 1)
  expect_true(fit$converged)
  dens <- vapply(1:3, function(k) {
    ck <- sim$comps[[k]]
    sim$props[[k]] * dgh(x, ck$mu, ck$gamma, ck$sigma, ck$p, ck$a, ck$b)
  }, numeric(nrow(x)))
  ll_true <- sum(log(rowSums(dens)))
  expect_gte(fit$loglik, ll_true - 1e-8 * abs(ll_true))
  expect_gte(mclust::adjustedRandIndex(fit$classification, sim$labels), 0.95)
  pack <- function(comps, props) {
    c(unlist(lapply(comps, ghmix:::pack_nat, family = "nig",
                    symmetric = FALSE)), props)
  }
  se <- sqrt(diag(vcov(fit)))
  expect_true(all(is.finite(se) & se > 0))
  z <- (pack(fit$components, fit$proportions) -
          pack(sim$comps, sim$props)) / se
  expect_lt(max(abs(z)), 4.5)
  # about standard normal: the mean square near 1
  expect_lt(mean(z^2), 2)
})
