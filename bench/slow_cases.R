# The slow cases of issue 31, timed whole (wall clock, one call each:
# they take seconds to minutes), with their EM iterations, so that a build
# can be compared with another (R_LIBS=<its library>) on the same idle
# machine:
#
#   Rscript bench/slow_cases.R            # prints a table
#
# * `fit_nig(c(rnorm(60), rnorm(60, 5), rnorm(60, 10)), components = 10)`
#   for three seeds: a G = 10 mixture of three clusters, whose best start
#   drops components; up to 3 restarts (each stopped at its first drop
#   since issue 31) and the first run to max_iter on a flat likelihood;
# * `fit_nig(x, factors = 1, shrink = ghmix_shrink(weight = "cv"))` on
#   n = 200 Gaussian rows in d = 4: 40 fold fits that creep towards the
#   NIG's normal limit (each at most 200 iterations since issue 31, 1000
#   before) and the final fit.

source(file.path("bench", "common.R"))

slow_mixture <- function(seed) {
  set.seed(seed)
  x <- c(rnorm(60), rnorm(60, 5), rnorm(60, 10))
  set.seed(seed + 100)
  t <- system.time(f <- suppressWarnings(fit_nig(x, components = 10)))
  data.frame(case = sprintf("components = 10, seed %d", seed),
             seconds = t[["elapsed"]], G = f$G, loglik = f$loglik,
             iterations = f$iterations)
}

slow_cv <- function() {
  set.seed(1)
  f0 <- matrix(rnorm(200))
  x <- f0 %*% t(c(1, 0.8, 0.6, 0.4)) + matrix(rnorm(800), 200) * 0.5
  t <- system.time(
    f <- suppressWarnings(fit_nig(x, factors = 1,
                                  shrink = ghmix_shrink(weight = "cv")))
  )
  data.frame(case = "factors = 1, weight = \"cv\", n = 200, d = 4",
             seconds = t[["elapsed"]], G = 1L, loglik = f$loglik,
             iterations = f$iterations)
}

res <- rbind(slow_mixture(1), slow_mixture(2), slow_mixture(4), slow_cv())
cat(sprintf("ghmix %s, %s\n", utils::packageVersion("ghmix"),
            format(Sys.time(), "%Y-%m-%d %H:%M")))
print(res, row.names = FALSE)
