#!/bin/sh
# The LLP64 rule of CONTRIBUTING.md ("C portability"): on 64-bit Windows
# `long` is 32 bits, so the C, C++ and CUDA sources under src/ use no
# `long` other than `long long` and `long double`, no `l`, `z`, `j` or `t`
# length modifier in a format, and no `L` or `UL` suffix on an integer
# constant outside preprocessor lines (`#define _POSIX_C_SOURCE 199309L`
# is POSIX's own spelling).  Comments are left out (the C preprocessor strips them:
# `cpp -fpreprocessed` keeps everything else, line markers included).
#
#   sh tools/portable-types.sh [DIR]    (default: src)
#
# Prints each offending line as FILE:LINE: TEXT and exits 1 if there is one.
CPP=${CPP:-cpp}
dir=${1:-src}
found=0
for f in $(find "${dir}" -type f \( -name '*.c' -o -name '*.h' \
  -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \) | sort); do
  out=$("${CPP}" -fpreprocessed -dD -x c "${f}" 2>/dev/null | awk -v f="${f}" '
    /^# [0-9]+ "/ { line = $2 - 1; next }
    { line++ }
    {
      s = $0
      gsub(/long[ \t]+(long|double)/, "", s)
      if (s ~ /(^|[^A-Za-z0-9_])long([^A-Za-z0-9_]|$)/ ||
          s ~ /%[-+ #0-9.*]*(l|z|j|t)[a-zA-Z]/ ||
          (s !~ /^[ \t]*#/ &&
           s ~ /(^|[^A-Za-z0-9_.])[0-9]+([uU]?[lL]|[lL][uU])([^A-Za-z0-9_]|$)/))
        printf "%s:%d: %s\n", f, line, $0
    }')
  if [ -n "${out}" ]; then
    printf '%s\n' "${out}"
    found=1
  fi
done
if [ "${found}" -ne 0 ]; then
  echo "portable-types: 'long' (32 bits on Windows) or a long/size format or suffix above; see CONTRIBUTING.md, C portability" >&2
  exit 1
fi
echo "portable-types: no 'long', %l/%z/%j/%t format or L suffix in ${dir}"
