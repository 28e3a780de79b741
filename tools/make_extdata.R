# Writes inst/extdata/bessel_ref.csv.gz, the copy of the mpmath reference
# values of log K_nu(x) that the vignette "The GIG distribution and log
# Bessel functions" reads when it is built (tests/ is not installed).
#
#   Rscript tools/make_extdata.R        # from the repository root
#
# It keeps every row of tests/testthat/fixtures/bessel_ref.csv (made by
# tools/make_bessel_fixtures.py) and the columns x, nu, logk, dnu and
# region, unchanged (the strings are copied, not re-parsed, so the values
# are the fixture's to the last digit), gzip-compressed: about 150 KB.
# Base R only; a rerun on the same fixture gives the same file.

src <- file.path("tests", "testthat", "fixtures", "bessel_ref.csv")
dst <- file.path("inst", "extdata", "bessel_ref.csv.gz")
keep <- c("x", "nu", "logk", "dnu", "region")

ref <- utils::read.csv(src, colClasses = "character")
stopifnot(all(keep %in% names(ref)))
dir.create(dirname(dst), showWarnings = FALSE, recursive = TRUE)
con <- gzfile(dst, "wb", compression = 9)
writeLines(paste(keep, collapse = ","), con)
writeLines(do.call(paste, c(unname(ref[keep]), sep = ",")), con)
close(con)
cat(sprintf("wrote %s: %d rows, %d bytes\n", dst, nrow(ref), file.size(dst)))
