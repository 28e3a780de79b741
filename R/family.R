# The mixing families: one entry per family, which the fitting layer asks
# instead of switching on the family's name wherever a family differs.
# Y ~ GIG(p, a, b): GH (p, a, b free), NIG (p = -1/2), VG (b = 0: gamma
# mixing) and the skew-t (a = 0: inverse-gamma mixing).  An entry holds
#   label        the family's name in messages
#   free         its free mixing parameters
#   logy         whether its M-step needs E[log Y | x] (GIG solve)
#   start_family the family of the first stage of a fit without a start
#                (GH: the fitted NIG, which GH nests)
#   start_law    the default mixing law (mean 1)
#   law_from     law_from(p, a, b): the family's law nearest a start's
#   start_sign   the sign each free parameter of a start must have
#   pack         pack(par): its mixing coordinates in theta (pack_em())
#   unpack       unpack(sub): list(p, a, b) from them (unpack_em())
#   score        score(sc, par, d_log_a, d_log_b): the score of those
#                coordinates from that of (p, a, b) and of log a, log b
#   far_ab       far_ab(la, lb, log_s): the last coordinates of theta in
#                the units of the far-row rescue (extreme_theta())
#   ab_at        where log a and log b lie among the rescue's mixing
#                coordinates (NULL: not both free)
#   step_p       step_p(par): the scale of a step in p (vcov)
#   a_zero       a is 0 (the tie test's bound comes from the scale)
#   ties_any     every repeated point makes the likelihood unbounded (not
#                only one with more than n / (d + 1) rows)
#   tie_rule     how the likelihood is unbounded at a repeated point
#   tie_nig      the NIG is an alternative where ties are unbounded
#   limits       whether a fit can end at the skew-t or VG limit (a or b
#                0) and is snapped there (gig_snap_limit())
#   rescue       whether the far-row rescue (R/fit_extreme.R) applies
#   normal_limit whether the fit can tend to the normal law (sqrt(ab) large)
family_table <- list(
  gh = list(
    label = "GH", free = c("p", "a", "b"), logy = TRUE, start_family = "nig",
    start_law = list(p = -0.5, a = 1, b = 1),
    law_from = function(p, a, b) list(p, a, b),
    start_sign = NULL,
    # a GH fit can reach a = 0 or b = 0 (its skew-t and VG limits): keep
    # theta finite there
    pack = function(par) {
      c(par$p, log(max(par$a, 1e-300)), log(max(par$b, 1e-300)))
    },
    unpack = function(sub) list(p = sub[1], a = exp(sub[2]), b = exp(sub[3])),
    score = function(sc, par, d_log_a, d_log_b) c(sc$p, d_log_a, d_log_b),
    far_ab = function(la, lb, log_s) {
      pmax(c(la, lb), log(1e-300) - abs(log_s))
    },
    ab_at = 2:3, step_p = function(par) 1, a_zero = FALSE, ties_any = TRUE,
    tie_rule = "mu at the point, b -> 0, p <= d/2", tie_nig = TRUE,
    limits = TRUE, rescue = TRUE, normal_limit = TRUE
  ),
  nig = list(
    label = "NIG", free = c("a", "b"), logy = FALSE, start_family = "nig",
    start_law = list(p = -0.5, a = 1, b = 1),
    law_from = function(p, a, b) {
      list(-0.5, if (a > 0) a else 1, if (b > 0) b else 1)
    },
    start_sign = list(a = "positive", b = "positive"),
    pack = function(par) c(log(par$a), log(par$b)),
    unpack = function(sub) list(p = -0.5, a = exp(sub[1]), b = exp(sub[2])),
    score = function(sc, par, d_log_a, d_log_b) c(d_log_a, d_log_b),
    far_ab = function(la, lb, log_s) c(la, lb),
    ab_at = 1:2, step_p = function(par) abs(par$p), a_zero = FALSE,
    ties_any = FALSE,
    tie_rule = "mu at the point, b -> 0, with more than n/(d + 1) rows there",
    tie_nig = FALSE, limits = FALSE, rescue = TRUE, normal_limit = TRUE
  ),
  vg = list(
    label = "VG", free = c("p", "a"), logy = TRUE, start_family = "vg",
    start_law = list(p = 2, a = 4, b = 0),
    law_from = function(p, a, b) {
      list(if (p > 0) p else 2, if (a > 0) a else 4, 0)
    },
    start_sign = list(p = "positive", a = "positive"),
    pack = function(par) c(log(par$p), log(par$a)),
    unpack = function(sub) list(p = exp(sub[1]), a = exp(sub[2]), b = 0),
    score = function(sc, par, d_log_a, d_log_b) c(par$p * sc$p, d_log_a),
    far_ab = function(la, lb, log_s) la,
    ab_at = NULL, step_p = function(par) abs(par$p), a_zero = FALSE,
    ties_any = TRUE, tie_rule = "mu at the point, b -> 0, p <= d/2",
    tie_nig = TRUE, limits = FALSE, rescue = FALSE, normal_limit = FALSE
  ),
  skewt = list(
    label = "skew-t", free = c("p", "b"), logy = TRUE, start_family = "skewt",
    start_law = list(p = -3, a = 0, b = 4),
    law_from = function(p, a, b) {
      list(if (p < 0) p else -3, 0, if (b > 0) b else 4)
    },
    start_sign = list(p = "negative", b = "positive"),
    pack = function(par) c(log(-par$p), log(par$b)),
    unpack = function(sub) list(p = -exp(sub[1]), a = 0, b = exp(sub[2])),
    score = function(sc, par, d_log_a, d_log_b) c(par$p * sc$p, d_log_b),
    far_ab = function(la, lb, log_s) lb,
    ab_at = NULL, step_p = function(par) abs(par$p), a_zero = TRUE,
    ties_any = TRUE,
    tie_rule = "mu at the point, b -> 0 and the degrees of freedom with it",
    tie_nig = FALSE, limits = FALSE, rescue = TRUE, normal_limit = FALSE
  )
)

# The entry of `family` ("gh", "nig", "vg" or "skewt").
family_get <- function(family) family_table[[family]]
