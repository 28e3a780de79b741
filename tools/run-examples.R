# Runs the examples of every help page of an installed ghmix, as R CMD
# check does (\donttest included, \dontrun left out), each in its own
# environment, and fails when one stops with an error.  CI runs it under
# OpenBLAS (R CMD check runs the examples under the reference BLAS): the
# result of an optimisation or an EM can depend on the BLAS kernel, and an
# example that stopped under one kernel was an ERROR of R CMD check there.
#
#   Rscript tools/run-examples.R LIB
#
# Plots go to a PDF device in a temporary directory.  Prints one line per
# page that fails and ends with "examples: N pages, N failed".

lib <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(lib)) lib <- NULL
suppressPackageStartupMessages(library(ghmix, lib.loc = lib))
dir <- tempfile("ghmix-examples")
dir.create(dir)
old <- setwd(dir)
grDevices::pdf(file.path(dir, "examples.pdf"))
db <- tools::Rd_db("ghmix", lib.loc = lib)
failed <- character()
for (page in sort(names(db))) {
  file <- tempfile(fileext = ".R")
  tools::Rd2ex(db[[page]], file, commentDontrun = TRUE,
               commentDonttest = FALSE)
  if (!file.exists(file)) next
  set.seed(1)
  res <- tryCatch({
    sys.source(file, envir = new.env(parent = globalenv()))
    NULL
  }, error = function(e) conditionMessage(e))
  if (!is.null(res)) {
    failed <- c(failed, page)
    cat(sprintf("FAIL %s: %s\n", page, res))
  }
}
grDevices::dev.off()
setwd(old)
unlink(dir, recursive = TRUE)
cat(sprintf("examples: %d pages, %d failed\n", length(db), length(failed)))
quit(status = if (length(failed)) 1L else 0L)
