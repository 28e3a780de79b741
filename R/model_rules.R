# The combinations of a fit's arguments that ghmix refuses, in one table
# (issue 26).  Each row: args, the two arguments that do not combine; class,
# the error's classes (before "ghmix_error"); message, the error's text;
# why, its reason: a mathematical one, or "not written yet" for those that
# a later step of issue 26 implements.  model_refuse(id, call) raises a
# row where the fit first knows both arguments, so that several bad
# arguments are reported in the order they always were.
model_rules <- list(
  fixed_components = list(
    args = c("fixed", "components"), class = "ghmix_error_argument",
    message = "`fixed` with `components` other than 1 is not supported yet.",
    why = "not written yet: fixed values per component"
  ),
  online_components = list(
    args = c("control$online", "components"), class = "ghmix_error_argument",
    message = paste("Online EM (`control$online`) fits one distribution:",
                    "`components` must be 1."),
    why = "not written yet: averaged statistics per component"
  ),
  online_cluster = list(
    args = c("control$online", "cluster"), class = "ghmix_error_argument",
    message = "`cluster` cannot be used with online EM (`control$online`).",
    why = "not written yet: batches read where the chunks are held"
  ),
  factor_mixture_chunked_cuda = list(
    args = c("factors", "backend"),
    class = c("ghmix_error_factor_mode", "ghmix_error_argument"),
    message = paste(
      "`factors` with `components` and chunked data or a cluster with",
      "backend = \"cuda\" is not supported yet."
    ),
    why = "not written yet: the one-pass factor mixture E-step per chunk"
  ),
  factor_cov_cuda = list(
    args = c("sigma", "backend"), class = "ghmix_error_argument",
    message = paste("`sigma` as factor_cov() is computed on the CPU only:",
                    "use backend = \"cpu\"."),
    why = "not written yet: the factor E-step's rows on the GPU"
  ),
  chunks_scale = list(
    args = c("x", "x"), class = "ghmix_error_argument",
    message = paste(
      "The chunks of `x` have a column whose standard deviation is outside",
      "[2^-128, 2^128] or whose mean exceeds 2^26 standard deviations;",
      "chunked data are fitted in their own units, so rescale or centre the",
      "chunks (e.g. chunk functions that return (x - center) / scale), or",
      "fit a matrix (which ghmix standardises itself)."
    ),
    why = "not written yet: units from the one-pass summary"
  ),
  gaussian_chunks = list(
    args = c("x", "fit_gaussian"), class = "ghmix_error_argument",
    message = "`x` must be in memory for fit_gaussian().",
    why = "not written yet: the Gaussian family through the one fit"
  ),
  weights_chunks = list(
    args = c("weights", "x"), class = "ghmix_error_argument",
    message = paste(
      "`weights` of chunked data come with the chunks: use",
      "ghmix_data(weights = <column>) or chunks list(x = , weights = )."
    ),
    why = "the weights of chunked data travel with their rows"
  ),
  weights_stream = list(
    args = c("weights", "x"), class = "ghmix_error_argument",
    message = paste(
      "`weights` of a stream come with its batches: chunks or answers",
      "list(x = , weights = ) (or ghmix_data(weights = <column>))."
    ),
    why = "the weights of a stream travel with its batches"
  ),
  fixed_all_mixing = list(
    args = c("fixed", "fixed"), class = "ghmix_error_argument",
    message = paste(
      "`fixed` cannot hold all of `p`, `a` and `b`: with E[Y] = 1 two of",
      "them determine the third."
    ),
    why = "E[Y] = 1 leaves two of p, a and b free"
  ),
  fixed_p_range = list(
    args = c("fixed$p", "fixed"), class = "ghmix_error_argument",
    message = function(range, held, value) {
      sprintf(
        paste(
          "`fixed$p` must lie in (%.6g, %.6g) with `fixed$%s` = %.6g: no",
          "GIG law of mean 1 has those values."
        ),
        range[[1L]], range[[2L]], held, value
      )
    },
    why = "no GIG law of mean 1 has p outside that range (gauge_p_range())"
  ),
  fixed_gauge = list(
    args = c("fixed", "gauge"), class = "ghmix_error_argument",
    message = function(why) {
      sprintf("`fixed` with `a`, `b` or a nonzero `gamma` needs %s.", why)
    },
    why = paste("a, b and a nonzero gamma are values in the gauge E[Y] = 1:",
                "the det gauge moves them, symmetric = TRUE contradicts a",
                "gamma, and online EM does not hold them yet")
  ),
  shrink_cv_components = list(
    args = c("shrink", "components"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      '`shrink` weight "cv" is for one distribution (`components = 1`);',
      "give mixtures a weight or the Ledoit-Wolf rule (weight = NULL)."
    ),
    why = "not written yet: fold fits of the same mixture"
  ),
  shrink_cv_online = list(
    args = c("shrink", "control$online"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      'Online EM (`control$online`) takes no `shrink` weight "cv" (it would',
      "refit the stream); give a weight, or NULL for the rule on the first",
      "batch."
    ),
    why = "a stream is read once"
  ),
  shrink_cv_gaussian = list(
    args = c("shrink", "fit_gaussian"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = 'fit_gaussian() takes no `shrink` weight "cv".',
    why = "not written yet: the Gaussian family through the one fit"
  ),
  shrink_rule_chunks = list(
    args = c("shrink", "x"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      "The weight rules of `shrink` need the rows in memory; give chunked",
      "data a weight: ghmix_shrink(weight = ) or shrink = <number>."
    ),
    why = "not written yet: the rule's second pass over the chunks"
  ),
  shrink_target_scaled = list(
    args = c("shrink", "x"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      "The target of `shrink` must be \"diagonal\" here: the scale of `x`",
      "is beyond the doubles for a target in the data's units (the rows are",
      "fitted standardised)."
    ),
    why = "the target is no double in the data's units"
  ),
  shrink_target_scales = list(
    args = c("shrink", "x"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      "The target of `shrink` must be \"diagonal\" here: the scales of",
      "the columns of `x` are too far apart for a target in the data's units."
    ),
    why = "the target is no double in the data's units"
  ),
  shrink_vcov = list(
    args = c("vcov", "shrink"),
    class = c("ghmix_error_shrink", "ghmix_error_argument"),
    message = paste(
      "vcov() is not available for penalised fits (`shrink`): the",
      "observed information of the likelihood does not apply at a",
      "posterior mode."
    ),
    why = "a posterior mode has no observed-information standard errors"
  )
)

# Raise the refusal `id` of model_rules (... : the arguments of a message
# that is a function).
model_refuse <- function(id, call, ...) {
  rule <- model_rules[[id]]
  message <- rule$message
  if (is.function(message)) message <- message(...)
  ghmix_abort(message, class = rule$class, call = call)
}
