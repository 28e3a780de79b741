#!/bin/sh
# Runs C test programs, shows their output and adds up their last lines,
# "N passed, M failed" (a program that prints no such line, or exits
# non-zero with no failure counted, counts as one failure).  Used by
# `make test` and `make windows-test` (windows.mk).
#
#   sh run_tests.sh RUNNER DIR SUFFIX 'PROGRAM ARGS' ...
#
# runs RUNNER DIR/PROGRAM SUFFIX ARGS for each (RUNNER: empty, or e.g.
# wine64; SUFFIX: empty or .exe); the last line is the total,
# "N passed, M failed", and the exit status 1 when anything failed.
runner=$1
dir=$2
suffix=$3
shift 3
out=$(mktemp "${TMPDIR:-/tmp}/ghmix-ctest.XXXXXX") || exit 2
trap 'rm -f "${out}"' EXIT
p=0
f=0
for t in "$@"; do
  # shellcheck disable=SC2086 # ARGS are words
  set -- ${t}
  prog=$1
  shift
  if [ -n "${runner}" ]; then
    ${runner} "${dir}${prog}${suffix}" "$@" >"${out}" 2>&1
  else
    "${dir}${prog}${suffix}" "$@" >"${out}" 2>&1
  fi
  rc=$?
  # (a Windows program writes CR LF)
  tr -d '\r' <"${out}"
  line=$(tail -n 1 "${out}" | tr -d '\r')
  case "${line}" in
    [0-9]*" passed, "[0-9]*" failed")
      np=${line%% passed*}
      nf=${line#*passed, }
      nf=${nf%% failed}
      if [ "${rc}" -ne 0 ] && [ "${nf}" -eq 0 ]; then nf=1; fi
      ;;
    *)
      echo "${prog}: exit status ${rc} and no summary line"
      np=0
      nf=1
      ;;
  esac
  p=$((p + np))
  f=$((f + nf))
done
echo "${p} passed, ${f} failed"
test "${f}" -eq 0
