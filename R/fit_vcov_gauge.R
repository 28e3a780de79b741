# vcov() of a fit with a, b or a nonzero gamma held in the gauge E[Y] = 1
# (R/fit_fixed_gauge.R).  Its estimates lie on the set C of parameters
# with E[Y] = 1 and the held values, of dimension df: a chart of C takes
# the free coordinates of theta (R/fit_vcov.R) but one of the mixing law,
# k, which E[Y] = 1 determines.  The tangent T of C is made of the unit
# vectors of the chart's coordinates, where a coordinate j of the mixing
# law also moves k by -(dE[Y]/dj) / (dE[Y]/dk) (the implicit function
# theorem).  C is curved and the score is not 0 on it (only T' times it
# is), so the information on the chart is minus the Jacobian of
# T' score along C itself (k solved at each point), and the covariance of
# the reported parameters T (that information)^-1 T' (the delta method).

# The matrix for vcov.ghmix_fit(), or na_cov with a warning where the
# information on C is not positive definite.
vcov_gauge_held <- function(object, engine, par, nm, steps, na_cov) {
  family <- object$family
  symmetric <- object$symmetric
  fixed <- object$fixed
  theta <- fit_pack(par, family, symmetric)
  tt <- vcov_gauge_tangent(fixed, par, nm)
  chart <- which(colSums(tt != 0) > 0)
  det <- vcov_gauge_determined(fixed, nm)
  score_at <- function(th) {
    full <- theta
    full[chart] <- th
    q <- vcov_gauge_solve(fit_unpack(full, par, family, symmetric), det)
    score <- if (is.null(q)) NULL else
      fit_score_at(engine, q, family, symmetric)
    if (is.null(score)) NULL else
      drop(crossprod(vcov_gauge_tangent(fixed, q, nm), score))[chart]
  }
  jac <- central_jacobian(score_at, theta[chart], steps[chart],
                          progress = TRUE)
  info <- if (is.null(jac)) NULL else -(jac + t(jac)) / 2
  info_s <- info * tcrossprod(steps[chart])
  r <- if (is.null(info) || !all(is.finite(info))) NULL else
    tryCatch(chol(info_s), error = function(e) NULL)
  if (is.null(r) || min(diag(r))^2 <= 1e-13 * max(diag(r))^2) {
    warn_vcov(paste(
      "the observed information is not positive definite (the fit is not",
      "at a maximum of the likelihood); no standard errors"
    ))
    return(na_cov)
  }
  t_s <- sweep(tt[, chart, drop = FALSE], 2L, steps[chart], "*")
  out <- t_s %*% chol2inv(r) %*% t(t_s)
  dimnames(out) <- dimnames(na_cov)
  (out + t(out)) / 2
}

# The mixing parameter that E[Y] = 1 determines: b, or a where b is held
# (or the family has none: the VG), or p where both are; among those the
# fit estimates (its vcov() names nm).
vcov_gauge_determined <- function(fixed, nm) {
  setdiff(intersect(c("b", "a", "p"), nm), names(fixed))[[1L]]
}

# par with its parameter det moved so that E[Y] = 1 (NULL where no root).
vcov_gauge_solve <- function(par, det) {
  f <- function(v) {
    par[[det]] <- if (det == "p") v else exp(v)
    log(gig_mean_value(par$p, par$a, par$b))
  }
  v0 <- if (det == "p") par$p else log(par[[det]])
  root <- tryCatch(
    stats::uniroot(f, v0 + c(-0.1, 0.1), extendInt = "yes", tol = 1e-14,
                   maxiter = 2000L)$root,
    error = function(e) NULL
  )
  if (is.null(root)) {
    return(NULL)
  }
  par[[det]] <- if (det == "p") root else exp(root)
  par
}

# T as a square matrix (a column per coordinate of theta, 0 for those
# held or determined), before the steps' scaling.
vcov_gauge_tangent <- function(fixed, par, nm) {
  held <- nm %in% intersect(names(fixed), c("p", "a", "b")) |
    ("mu" %in% names(fixed) & startsWith(nm, "mu[")) |
    ("gamma" %in% names(fixed) & startsWith(nm, "gamma["))
  mix <- c("p", "a", "b")
  det <- vcov_gauge_determined(fixed, nm)
  tt <- diag(as.double(!held & nm != det), length(nm))
  grad <- vcov_gauge_mean_gradient(par)
  k <- match(det, nm)
  for (j in which(nm %in% mix & !held & nm != det)) {
    tt[k, j] <- -grad[[nm[[j]]]] / grad[[det]]
  }
  tt
}

# d E[Y] / d(p, a, b) by central differences (relative steps for a, b).
vcov_gauge_mean_gradient <- function(par) {
  v <- c(p = par$p, a = par$a, b = par$b)
  h <- 1e-5 * c(1, par$a, par$b)
  out <- vapply(seq_along(v), function(i) {
    up <- v
    dn <- v
    up[[i]] <- up[[i]] + h[[i]]
    dn[[i]] <- dn[[i]] - h[[i]]
    (gig_mean_value(up[[1L]], up[[2L]], up[[3L]]) -
       gig_mean_value(dn[[1L]], dn[[2L]], dn[[3L]])) / (2 * h[[i]])
  }, 0)
  stats::setNames(out, names(v))
}
