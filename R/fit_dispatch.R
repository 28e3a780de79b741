# The body of fit_nig(), fit_gh(), fit_vg() and fit_skewt(): one fit of
# `family`, or, for `components` other than 1, the mixtures of
# mix_fit_components() (with shrinkage or factors, not both; no fixed
# parameters).
fit_dispatch <- function(family, x, symmetric, start, control, gauge,
                         na_rm, backend, threads, device, cluster, weights,
                         components, nstart, criterion, shrink, factors,
                         call, fixed = NULL) {
  if (!mix_is_single(components)) {
    if (!is.null(fixed)) {
      abort_argument(
        "`fixed` with `components` other than 1 is not supported yet.",
        call
      )
    }
    return(mix_fit_components(
      x, family, components, nstart, criterion, symmetric, start, control,
      gauge, na_rm, backend, threads, device, cluster, call, weights, shrink,
      factors
    ))
  }
  mix_fit(
    x, family, symmetric, start, control, gauge, na_rm, backend, threads,
    device, call, cluster, weights, fixed = fixed, shrink = shrink,
    factors = factors
  )
}
