# Known findings of tests/fuzz/fuzz.R (see FINDINGS.md), kept as regression
# cases: `Rscript tests/fuzz/fuzz.R --regress` runs each one in a child R
# process.  A case passes when the call returns or signals an R error, and
# fails when it crashes, hangs (no return within 5 s, nor 3 s after a
# SIGINT) or trips a sanitizer.
#
# Each case: id, routine (a registered .Call routine), args (an unevaluated
# list() of plain R values; an external pointer is written
# list(.fuzz_ptr = "null" | "routine" | "dll") and made in the child), and
# optionally matches = function(routine, args): TRUE for the generated
# calls that hit the same open finding, which `fuzz.R --skip-known` does
# not make.  Drop `matches` once the finding is fixed; keep the case.

# (No finding is open: no case has a `matches` predicate.)
fuzz_regressions <- list(
  # F1 (fixed): rgig() hung, without polling for interrupts, when a or b
  # was subnormal (rgig(1, -0.5, 1e-310, 2), rgig(1, -0.5, 2, 1e-310), and
  # rgh(1, a = 1e-310)).
  list(id = "F1a", routine = "ffi_rgig",
       args = quote(list(50L, -0.2874329240236454, 1e-310,
                         1.9937947440052275))),
  list(id = "F1b", routine = "ffi_rgig",
       args = quote(list(1, -0.5, 2, 1e-310))),
  # F2 (fixed): rgig() hung, without polling for interrupts, for |p| >=
  # ~1e308 (1e305 was fine): rgig(2, 1e308, 0.878, 0.5).
  list(id = "F2", routine = "ffi_rgig",
       args = quote(list(2L, 1e308, 0.8780295570892217, 0.5))),
  list(id = "F2b", routine = "ffi_rgig",
       args = quote(list(2L, -1e308, 0.8780295570892217, 0.5))),
  # F5 (fixed): rgig() hung, without polling for interrupts, when a and b
  # were both ~1e308 (1e300 was fine, and so was a = 1e308 with b = 1):
  # rgig(1, 0.0556, 1e308, 1e308).
  list(id = "F5", routine = "ffi_rgig",
       args = quote(list(100L, 0.055596455191921731, 1.7976931348623157e+308,
                         1.7976931348623157e+308))),
  # F3 (fixed): ffi_mix_consts() took d = nrow(chol) (the length of a
  # vector without dim) and read d * d values of chol without checking that
  # it is d x d: out of bounds, a segfault for large d.  Internal only (R/
  # passes a square factor).
  list(id = "F3", routine = "ffi_mix_consts",
       args = quote(list(rep(1, 1e5), rep(0.5, 1e5), c(-0.5, 1, 1)))),
  # F4 (fixed): ffi_mix_subordinator() read eta[0..2] and start[0..2]
  # without checking their lengths: a heap-buffer-overflow (AddressSanitizer,
  # r_mixture.c:97) for a shorter eta, e.g. family 2 (VG) with eta of
  # length 1.  Seen only when the vector sits at the end of a malloc'ed
  # block (R keeps small vectors in pages), so this case passes without
  # the sanitizers and usually with them.  Internal only.
  list(id = "F4", routine = "ffi_mix_subordinator",
       args = quote(list(2L, 1.440379892420665, c(2.5, 0.63, 0.82)))),
  # Not findings: checks that an external pointer of the wrong kind given
  # for the CUDA E-step handle is rejected, not dereferenced (in a CUDA
  # build; a CPU-only build rejects every ffi_cuda_* call).
  list(id = "P1", routine = "ffi_cuda_mix_data_free",
       args = quote(list(list(.fuzz_ptr = "routine")))),
  list(id = "P2", routine = "ffi_cuda_mix_data_free",
       args = quote(list(list(.fuzz_ptr = "null")))),
  list(id = "P3", routine = "ffi_cuda_mix_estep",
       args = quote(list(list(.fuzz_ptr = "dll"), 0, 1, 0,
                         c(-0.5, 1, 1, 0, 0), 1L, FALSE))),
  list(id = "P4", routine = "ffi_cuda_mix_estep",
       args = quote(list(list(.fuzz_ptr = "null"), 0, 1, 0,
                         c(-0.5, 1, 1, 0, 0), 1L, FALSE)))
)
