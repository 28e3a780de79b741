# The E-step of a finite mixture (mixture_estep(), R/mix_estep.R; the C
# driver ghmix_mix_estep_mixture_cpu) against an independent computation:
# log f_k from dgh() of each component, tau by hand, the posterior moments
# from gig_expectation() of Y | x, k ~ GIG(p - d/2, a + gamma' S^-1 gamma,
# b + (x - mu)' S^-1 (x - mu)), and every sum written out.

mix_test_pars <- function(d, g) {
  lapply(seq_len(g), function(k) {
    a <- matrix(0.3 * sin(seq_len(d * d) + k), d, d)
    list(mu = 0.8 * (k - 1) * cos(seq_len(d) + k),
         gamma = 0.3 * sin(2 * seq_len(d) + k),
         sigma = diag(0.5 + 0.25 * k, d) + crossprod(a) / d,
         p = c(-0.5, 1.2, -2.5)[k], a = c(1.3, 0.7, 0.4)[k],
         b = c(0.9, 1.6, 2.1)[k])
  })
}

mix_test_reference <- function(x, pars, props, w) {
  n <- nrow(x)
  d <- ncol(x)
  g <- length(pars)
  lf <- vapply(seq_len(g), function(k) {
    p <- pars[[k]]
    log(props[k]) + dgh(x, mu = p$mu, gamma = p$gamma, sigma = p$sigma,
                        p = p$p, a = p$a, b = p$b, log = TRUE)
  }, numeric(n))
  lf <- matrix(lf, n, g)
  m <- apply(lf, 1, max)
  loglik <- m + log(rowSums(exp(lf - m)))
  tau <- exp(lf - loglik)
  comps <- lapply(seq_len(g), function(k) {
    p <- pars[[k]]
    si <- solve(p$sigma)
    u <- sweep(x, 2, p$mu)
    q <- rowSums((u %*% si) * u)
    eta <- gig_expectation(p$p - d / 2,
                           p$a + drop(crossprod(p$gamma, si %*% p$gamma)),
                           p$b + q)
    v <- w * tau[, k]
    vw <- v * eta[, "E_inv_y"]
    list(tau = sum(v), s_inv = sum(vw), s_y = sum(v * eta[, "E_y"]),
         s_log = sum(v * eta[, "E_log_y"]), sx = colSums(v * u),
         sxw = colSums(vw * u), sxx = crossprod(u, vw * u),
         inv_y = eta[, "E_inv_y"])
  })
  list(loglik = sum(w * loglik), row_loglik = loglik, tau = tau,
       comps = comps, weight = sum(w))
}

mix_test_compare <- function(got, want, g, info) {
  expect_equal(got$loglik, want$loglik, tolerance = 1e-12, info = info)
  expect_equal(got$weight, want$weight, tolerance = 1e-14, info = info)
  expect_identical(got$n_bad, 0)
  for (k in seq_len(g)) {
    gk <- got$components[[k]]
    wk <- want$comps[[k]]
    for (f in c("tau", "s_inv", "s_y", "s_log", "sx", "sxw", "sxx")) {
      expect_equal(gk[[f]], wk[[f]], tolerance = 1e-10,
                   info = paste(info, "component", k, f))
    }
  }
}

test_that("mixture_estep() agrees with dgh() and gig_expectation()", {
  set.seed(21)
  what <- ghmix:::mix_what("gh")
  for (d in c(1L, 2L, 5L)) {
    for (g in 2:3) {
      info <- sprintf("d = %d, G = %d", d, g)
      pars <- mix_test_pars(d, g)
      props <- (1:g) / sum(1:g)
      x <- matrix(rnorm(300 * d), 300, d)
      got <- ghmix:::mixture_estep(x, pars, props, what = what, rows = TRUE,
                                   threads = 1L)
      want <- mix_test_reference(x, pars, props, rep(1, nrow(x)))
      mix_test_compare(got, want, g, info)
      expect_identical(got$n, nrow(x) + 0)
      expect_equal(got$rows$loglik, want$row_loglik, tolerance = 1e-12,
                   info = info)
      expect_equal(got$rows$tau, want$tau, tolerance = 1e-12, info = info)
      expect_equal(rowSums(got$rows$tau), rep(1, nrow(x)), tolerance = 1e-14)
      expect_equal(got$rows$inv_y[, g], want$comps[[g]]$inv_y,
                   tolerance = 1e-12, info = info)
    }
  }
})

test_that("weights: integer weights are replicated rows, zero drops a row", {
  set.seed(5)
  what <- ghmix:::mix_what("gh")
  pars <- mix_test_pars(2L, 3L)
  props <- c(0.2, 0.5, 0.3)
  x <- matrix(rnorm(200 * 2), 200, 2)
  w <- rep(0:3, length.out = nrow(x))
  got <- ghmix:::mixture_estep(x, pars, props, weights = w, what = what)
  want <- mix_test_reference(x, pars, props, w)
  mix_test_compare(got, want, 3L, "weighted")
  expect_identical(got$n, sum(w > 0) + 0)
  rep_x <- x[rep(seq_len(nrow(x)), w), , drop = FALSE]
  rep_st <- ghmix:::mixture_estep(rep_x, pars, props, what = what)
  expect_equal(got$loglik, rep_st$loglik, tolerance = 1e-12)
  expect_equal(got$weight, rep_st$n)
  for (k in 1:3) {
    expect_equal(got$components[[k]], rep_st$components[[k]],
                 tolerance = 1e-12)
  }
  # a zero weight on a row whose density is not finite: not even n_bad
  x_bad <- rbind(x, NaN)
  st <- ghmix:::mixture_estep(x_bad, pars, props, weights = c(w, 0),
                              what = what)
  expect_identical(st$n_bad, 0)
  expect_identical(st$loglik, got$loglik)
  st <- ghmix:::mixture_estep(x_bad, pars, props, weights = c(w, 1),
                              what = what)
  expect_identical(st$n_bad, 1)
})

test_that("G = 1 through mixture_estep() is the one-component E-step", {
  set.seed(8)
  x <- matrix(rnorm(6000 * 3), 6000, 3)
  par <- mix_test_pars(3L, 1L)[[1L]]
  what <- ghmix:::mix_what("gh")
  one <- ghmix:::mix_estep(ghmix:::mix_engine_cpu(x, 2L), par, what)
  got <- ghmix:::mixture_estep(x, list(par), 1, what = what, threads = 2L)
  expect_identical(got$loglik, one$loglik)
  expect_identical(got$n, one$n)
  expect_identical(got$components[[1L]],
                   one[names(got$components[[1L]])])
})

test_that("mixture_estep() does not depend on the thread count", {
  set.seed(9)
  x <- matrix(rnorm(9000 * 2), 9000, 2)
  pars <- mix_test_pars(2L, 3L)
  what <- ghmix:::mix_what("gh")
  w <- runif(nrow(x))
  a <- ghmix:::mixture_estep(x, pars, c(0.2, 0.3, 0.5), weights = w,
                             what = what, rows = TRUE, threads = 1L)
  b <- ghmix:::mixture_estep(x, pars, c(0.2, 0.3, 0.5), weights = w,
                             what = what, rows = TRUE, threads = 2L)
  expect_identical(a, b)
})

test_that("mixture_estep() returns NULL for unusable parameters", {
  pars <- mix_test_pars(2L, 2L)
  pars[[2L]]$sigma <- diag(c(1, -1))
  x <- matrix(rnorm(20), 10, 2)
  expect_null(ghmix:::mixture_estep(x, pars, c(0.5, 0.5),
                                    what = ghmix:::mix_what("nig")))
})

test_that("the CUDA mixture E-step matches the CPU's (or says why not)", {
  info <- ghmix_info()
  pars <- mix_test_pars(3L, 3L)
  props <- c(0.2, 0.3, 0.5)
  what <- ghmix:::mix_what("gh")
  set.seed(12)
  x <- matrix(rnorm(3000 * 3), 3000, 3)
  if (!info$cuda || nrow(info$devices) == 0L) {
    cls <- if (info$cuda) "ghmix_error_no_device" else
      "ghmix_error_cuda_not_built"
    expect_error(ghmix:::mixture_estep(x, pars, props, what = what,
                                       backend = "cuda"), class = cls)
    skip("no usable CUDA device")
  }
  w <- runif(nrow(x))
  cpu <- ghmix:::mixture_estep(x, pars, props, weights = w, what = what,
                               rows = TRUE, threads = 1L)
  h <- .Call(ghmix:::ffi_cuda_mix_data_create, x, 0L)
  gpu <- ghmix:::mixture_estep(h, pars, props, weights = w, what = what,
                               rows = TRUE, backend = "cuda")
  again <- ghmix:::mixture_estep(h, pars, props, weights = w, what = what,
                                 rows = TRUE, backend = "cuda")
  .Call(ghmix:::ffi_cuda_mix_data_free, h)
  expect_equal(gpu, cpu, tolerance = 1e-12)
  expect_identical(again, gpu)
})
