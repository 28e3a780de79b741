#!/usr/bin/env bash
# valgrind memcheck over a small tour of ghmix (tools/ci-valgrind.R: log K,
# the GIG and GH distribution functions, gig_from_expectation, a small NIG
# and GH fit, predict):
#
#   bash tools/ci-valgrind.sh LIB
#
# LIB is a library where ghmix is installed (an ordinary -g -O2 build, e.g.
# GHMIX_CUDA=no).  Runs R -d "valgrind --error-exitcode=1 --leak-check=no"
# and fails unless valgrind ends with "ERROR SUMMARY: 0 errors" and the
# script finishes; its last line is valgrind's ERROR SUMMARY line.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB=${1:?usage: ci-valgrind.sh LIB}
TIMEOUT=${GHMIX_CI_STEP_TIMEOUT:-600}
LOG=$(mktemp "${TMPDIR:-/tmp}/ghmix-valgrind.XXXXXX")
trap 'rm -f "${LOG}"' EXIT

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind: not installed"
  exit 1
fi
# OMP_WAIT_POLICY=passive: idle OpenMP threads sleep instead of spinning,
# which valgrind (one thread at a time) would otherwise run for nothing.
OMP_WAIT_POLICY=passive R_LIBS="${LIB}${R_LIBS:+:${R_LIBS}}" \
  timeout "${TIMEOUT}" R --vanilla --quiet -d \
  "valgrind --error-exitcode=1 --leak-check=no --track-origins=yes --num-callers=30" \
  -f "${ROOT}/tools/ci-valgrind.R" >"${LOG}" 2>&1
rc=$?
summary=$(grep -E 'ERROR SUMMARY:' "${LOG}" | tail -n 1 | sed -e 's/^==[0-9]*== //')
done_line=$(grep -c 'ghmix valgrind tour: done' "${LOG}")
if [ "${rc}" -ne 0 ] || [ "${done_line}" -eq 0 ] ||
  ! printf '%s\n' "${summary}" | grep -q 'ERROR SUMMARY: 0 errors'; then
  grep -E -B 2 -A 40 '^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall|Mismatched|Source and dest)' "${LOG}" | head -n 150
  tail -n 40 "${LOG}"
  echo "valgrind: FAIL (exit status ${rc}); ${summary:-no ERROR SUMMARY line}"
  exit 1
fi
echo "valgrind: ${summary}"
