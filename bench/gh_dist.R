# The GH distribution functions against the peers: time and accuracy.
#
#   Rscript bench/gh_dist.R
#
# from the repository root, with ghmix installed; GHMIX_BENCH_QUICK=1: fewer
# points and runs.
#
# 1. Accuracy: log densities and log tail probabilities of four univariate
#    parameter sets (NIG, GH, hyperbolic, sqrt(ab) = 1000) at 25 points each,
#    from the centre out to 10^6 scales, against the mpmath references in
#    tests/testthat/fixtures/gh_dist_ref.csv (made by
#    tools/make_gh_fixtures.py): largest error of the log (a relative error
#    of the value) over the points where the implementation returns a
#    finite, non-zero value, and the number of points where it does not.
# 2. Speed: dgh() on 10^5 points, pgh() and qgh() on 10^3 (peers on fewer
#    when slow), rgh() draws; multivariate dgh() and rgh() for d = 4 with the
#    parameters of the NIG fit to EuStockMarkets.
# Peers, where installed: ghyp (dghyp, pghyp, qghyp, rghyp),
# GeneralizedHyperbolic (dghyp, pghyp, qghyp, rghyp), QRM (dghyp, dmghyp,
# rghyp, rmghyp; univariate without a scale).  Writes bench/results/gh_dist.md
# and gh_dist.png.

source(file.path("bench", "common.R"))

peers <- c(ghyp = have_peer("ghyp"),
           GeneralizedHyperbolic = have_peer("GeneralizedHyperbolic"),
           QRM = have_peer("QRM"))
reps <- if (bench_quick) 3L else 5L

# Each implementation of the univariate functions, for ghmix parameters
# par = list(mu, gamma, sigma, p, a, b) (sigma a scale).  NULL where the
# implementation has no such function.
impl <- list(
  ghmix = list(
    d = function(x, par) {
      dgh(x, par$mu, par$gamma, par$sigma, par$p, par$a, par$b, log = TRUE)
    },
    p = function(q, par, lower) {
      pgh(q, par$mu, par$gamma, par$sigma, par$p, par$a, par$b,
          lower.tail = lower, log.p = TRUE)
    },
    q = function(pr, par) {
      qgh(pr, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
    },
    r = function(n, par) {
      rgh(n, par$mu, par$gamma, par$sigma, par$p, par$a, par$b)
    }
  )
)
if (peers[["ghyp"]]) {
  # ghyp's univariate sigma is the scale, chi = b, psi = a, lambda = p
  g_obj <- function(par) {
    ghyp::ghyp(lambda = par$p, chi = par$b, psi = par$a, mu = par$mu,
               sigma = par$sigma, gamma = par$gamma)
  }
  impl$ghyp <- list(
    d = function(x, par) ghyp::dghyp(x, g_obj(par), logvalue = TRUE),
    p = function(q, par, lower) {
      v <- ghyp::pghyp(q, g_obj(par), lower.tail = lower)
      log(v)
    },
    q = function(pr, par) ghyp::qghyp(pr, g_obj(par)),
    r = function(n, par) ghyp::rghyp(n, g_obj(par))
  )
}
if (peers[["GeneralizedHyperbolic"]]) {
  # (mu, delta, alpha, beta, lambda) with Sigma = s^2: beta = gamma / s^2,
  # delta = sqrt(b) s, alpha = sqrt(a / s^2 + beta^2)
  gh_param <- function(par) {
    s2 <- par$sigma^2
    beta <- par$gamma / s2
    c(par$mu, sqrt(par$b * s2), sqrt(par$a / s2 + beta^2), beta, par$p)
  }
  impl$GeneralizedHyperbolic <- list(
    d = function(x, par) {
      log(GeneralizedHyperbolic::dghyp(x, param = gh_param(par)))
    },
    p = function(q, par, lower) {
      log(GeneralizedHyperbolic::pghyp(q, param = gh_param(par),
                                       lower.tail = lower))
    },
    q = function(pr, par) {
      GeneralizedHyperbolic::qghyp(pr, param = gh_param(par))
    },
    r = function(n, par) GeneralizedHyperbolic::rghyp(n, param = gh_param(par))
  )
}
if (peers[["QRM"]]) {
  # QRM's univariate dghyp has no scale: only sets with sigma = 1
  impl$QRM <- list(
    d = function(x, par) {
      if (par$sigma != 1) return(rep(NA_real_, length(x)))
      QRM::dghyp(x, lambda = par$p, chi = par$b, psi = par$a, mu = par$mu,
                 gamma = par$gamma, log = TRUE)
    },
    r = function(n, par) {
      QRM::rghyp(n, lambda = par$p, chi = par$b, psi = par$a, mu = par$mu,
                 gamma = par$gamma)
    }
  )
}

# f() in a forked child, stopped after `limit` seconds (peer code can loop
# in C, where setTimeLimit() cannot stop it); NULL on error or timeout.
guarded <- function(f, limit = 120) {
  out <- in_child(function() {
    tryCatch(suppressWarnings(f()), error = function(e) {
      structure(conditionMessage(e), class = "bench_error")
    })
  }, limit)
  if (identical(out, "timeout") || inherits(out, "bench_error") ||
        inherits(out, "try-error")) {
    message("  no result: ", if (identical(out, "timeout")) {
      sprintf("stopped after %g s", limit)
    } else {
      as.character(out)
    })
    return(NULL)
  }
  out
}

# 1. accuracy ----------------------------------------------------------------
ref <- utils::read.csv(file.path("tests", "testthat", "fixtures",
                                 "gh_dist_ref.csv"), stringsAsFactors = FALSE)
sets <- c("nig", "gh", "hyp", "w1000")
acc <- list()
for (set in sets) {
  rr <- ref[ref$kind == "uni" & ref$label == set, ]
  # (the multivariate rows hold vectors, so these columns are read as text)
  for (col in c("x", "mu", "gamma", "sigma", "p", "a", "b", "logpdf",
                "log_lower", "log_upper")) {
    rr[[col]] <- as.numeric(rr[[col]])
  }
  par <- list(mu = rr$mu[1], gamma = rr$gamma[1], sigma = rr$sigma[1],
              p = rr$p[1], a = rr$a[1], b = rr$b[1])
  for (nm in names(impl)) {
    for (what in c("log density", "log lower tail", "log upper tail")) {
      fun <- switch(what,
        "log density" = impl[[nm]]$d,
        "log lower tail" = if (!is.null(impl[[nm]]$p)) {
          function(x, par) impl[[nm]]$p(x, par, TRUE)
        },
        "log upper tail" = if (!is.null(impl[[nm]]$p)) {
          function(x, par) impl[[nm]]$p(x, par, FALSE)
        }
      )
      if (is.null(fun)) next
      exact <- switch(what, "log density" = rr$logpdf,
                      "log lower tail" = rr$log_lower,
                      "log upper tail" = rr$log_upper)
      message(sprintf("accuracy: %s %s %s", nm, set, what))
      val <- guarded(function() {
        vapply(rr$x, function(x) {
          v <- tryCatch(fun(x, par), error = function(e) NA_real_)
          if (length(v) == 1L) v else NA_real_
        }, numeric(1))
      })
      if (is.null(val) || all(is.na(val))) next
      ok <- is.finite(val) & is.finite(exact)
      err <- abs(val - exact) / pmax(1, abs(exact))
      acc[[length(acc) + 1L]] <- data.frame(
        set = sprintf("%s (p = %g, a = %g, b = %g, gamma = %g, sigma = %g)",
                      set, par$p, par$a, par$b, par$gamma, par$sigma),
        quantity = what, implementation = nm, points = length(exact),
        not_finite = sum(!is.finite(val) & is.finite(exact)),
        max_error = if (any(ok)) max(err[ok]) else NA_real_,
        stringsAsFactors = FALSE
      )
    }
  }
}
acc <- do.call(rbind, acc)

# 2. speed ---------------------------------------------------------------------
par <- list(mu = 0, gamma = 0.5, sigma = 1, p = -0.5, a = 1, b = 1)
m <- if (bench_quick) 2e4 else 1e5
x <- impl$ghmix$q((seq_len(m) - 0.5) / m, par)
m_p <- 1000
xp <- x[round(seq(1, m, length.out = m_p))]
prq <- (seq_len(m_p) - 0.5) / m_p
speed <- list()
add_speed <- function(what, nm, count, secs, note = "") {
  speed[[length(speed) + 1L]] <<- data.frame(
    what = what, implementation = nm, n = count, seconds = secs,
    per_second = count / secs, note = note, stringsAsFactors = FALSE
  )
}
# ghmix: median of `r` runs; a peer: one run in a child (see guarded())
timed <- function(what, nm, count, f, r = if (nm == "ghmix") reps else 1L) {
  message(sprintf("speed: %s %s", nm, what))
  if (r > 1L) {
    secs <- time_median(function() suppressWarnings(f()), r)
    add_speed(what, nm, count, secs)
    return(invisible())
  }
  secs <- guarded(function() system.time(f())[["elapsed"]])
  if (is.null(secs)) {
    add_speed(what, nm, count, NA_real_, "failed or stopped after 120 s")
  } else {
    add_speed(what, nm, count, secs)
  }
}
for (nm in names(impl)) {
  f <- impl[[nm]]
  peer <- nm != "ghmix"
  if (!is.null(f$d)) {
    timed("univariate NIG density", nm, m, function() f$d(x, par))
  }
  if (!is.null(f$p)) {
    k <- if (peer) m_p / 10 else m_p
    timed("univariate NIG distribution function", nm, k,
          function() f$p(xp[seq_len(k) * (m_p / k)], par, TRUE))
  }
  if (!is.null(f$q)) {
    k <- if (peer) m_p / 10 else m_p
    timed("univariate NIG quantile", nm, k,
          function() f$q(prq[seq_len(k) * (m_p / k)], par))
  }
  if (!is.null(f$r)) {
    timed("univariate NIG random numbers", nm, m, function() f$r(m, par))
  }
}

# multivariate, d = 4, the NIG fit to EuStockMarkets
r4 <- diff(log(EuStockMarkets))
fit <- fit_nig(r4)
pp <- fit$parameters
set.seed(1)
xm <- rgh(m, pp$mu, pp$gamma, pp$sigma, pp$p, pp$a, pp$b)
timed("d = 4 NIG density", "ghmix", m, function() {
  dgh(xm, pp$mu, pp$gamma, pp$sigma, pp$p, pp$a, pp$b, log = TRUE)
})
timed("d = 4 NIG random numbers", "ghmix", m, function() {
  rgh(m, pp$mu, pp$gamma, pp$sigma, pp$p, pp$a, pp$b)
})
ref_m <- dgh(xm, pp$mu, pp$gamma, pp$sigma, pp$p, pp$a, pp$b, log = TRUE)
if (peers[["ghyp"]]) {
  gobj <- ghyp::ghyp(lambda = pp$p, chi = pp$b, psi = pp$a,
                     mu = unname(pp$mu), sigma = unname(pp$sigma),
                     gamma = unname(pp$gamma))
  timed("d = 4 NIG density", "ghyp", m,
        function() ghyp::dghyp(xm, gobj, logvalue = TRUE))
  timed("d = 4 NIG random numbers", "ghyp", m,
        function() ghyp::rghyp(m, gobj))
  message("ghyp d = 4 density: max |difference of the log| from ghmix ",
          format(max(abs(ghyp::dghyp(xm, gobj, logvalue = TRUE) - ref_m))))
}
if (peers[["QRM"]]) {
  timed("d = 4 NIG density", "QRM", m, function() {
    QRM::dmghyp(xm, lambda = pp$p, chi = pp$b, psi = pp$a,
                mu = unname(pp$mu), Sigma = unname(pp$sigma),
                gamma = unname(pp$gamma), log = TRUE)
  })
  timed("d = 4 NIG random numbers", "QRM", m, function() {
    QRM::rmghyp(m, lambda = pp$p, chi = pp$b, psi = pp$a,
                Sigma = unname(pp$sigma), mu = unname(pp$mu),
                gamma = unname(pp$gamma))
  })
}
speed <- do.call(rbind, speed)

md <- c(
  "# GH distribution functions", "",
  bench_header(sprintf("ghmix: median of %d runs; peers: one run each",
                       reps)), "",
  "## Accuracy against mpmath (tests/testthat/fixtures/gh_dist_ref.csv)", "",
  paste("`max_error`: largest |log value - log reference| / max(1, |log",
        "reference|) over the 25 points (centre to 10^6 scales out) where",
        "the implementation's value is finite; `not_finite`: points where",
        "it is 0 (log -Inf), Inf or NaN although the reference is finite.",
        "ghmix: `log = TRUE` / `log.p = TRUE`; the peers' values are logged."),
  "", md_table(acc, 3L), "",
  "## Speed", "",
  paste("Univariate: NIG with mu = 0, gamma = 0.5, sigma = 1, a = b = 1,",
        "at quantiles of itself. d = 4: the NIG fit to EuStockMarkets."),
  "", md_table(speed, 3L)
)
write_md(md, "gh_dist")

open_png("gh_dist", height = 60 + 18 * nrow(speed))
dot_chart(speed$per_second, paste(speed$implementation, speed$what,
                                  sep = ": "),
          "values per second (log scale)", "GH distribution functions")
invisible(grDevices::dev.off())
