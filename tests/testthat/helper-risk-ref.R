# The risk fixtures (value at risk and expected shortfall of univariate
# laws, mpmath; tools/make_risk_fixtures.py and
# tools/make_heavy_risk_fixtures.py): each row's law, level, VaR and ES
# checked to 1e-12 and 1e-10 relative (and, with `negated`, the ES of the
# law of -X's upper tail too).
expect_risk_fixture <- function(file, negated = FALSE) {
  ref <- utils::read.csv(testthat::test_path("fixtures", file),
                         stringsAsFactors = FALSE)
  for (v in c("p", "a", "b", "mu", "gamma", "sigma", "level")) {
    ref[[v]] <- as.numeric(ref[[paste0(v, "_hex")]])
  }
  for (i in seq_len(nrow(ref))) {
    r <- ref[i, ]
    law <- gh_law(r$mu, r$gamma, r$sigma, r$p, r$a, r$b)
    expect_lt(abs(value_at_risk(law, r$level) / r$var - 1), 1e-12)
    expect_lt(abs(expected_shortfall(law, r$level) / r$es - 1), 1e-10)
    if (negated) {
      neg <- gh_law(-r$mu, -r$gamma, r$sigma, r$p, r$a, r$b)
      expect_lt(abs(expected_shortfall(neg, r$level, type = "loss") /
                      -r$es - 1), 1e-10)
    }
  }
}
