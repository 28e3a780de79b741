# Shared by test-shrink.R and test-factor-shrink.R.

# The Ledoit-Wolf (2004) quantities written out row by row.
lw_direct <- function(x, target = c("identity", "diagonal")) {
  target <- match.arg(target)
  n <- nrow(x)
  x <- sweep(x, 2L, colMeans(x))
  if (target == "diagonal") x <- sweep(x, 2L, sqrt(colMeans(x^2)), "/")
  s <- crossprod(x) / n
  keep <- if (target == "diagonal") row(s) != col(s) else TRUE
  tgt <- if (target == "diagonal") diag(diag(s)) else
    diag(sum(diag(s)) / ncol(x), ncol(x))
  b2bar <- 0
  for (k in seq_len(n)) {
    b2bar <- b2bar + sum(((tcrossprod(x[k, ]) - s)[keep])^2)
  }
  b2bar <- b2bar / n^2
  d2 <- sum(((s - tgt)[keep])^2)
  min(b2bar, d2) / d2
}
