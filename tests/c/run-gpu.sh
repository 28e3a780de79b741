#!/usr/bin/env bash
# The GPU checks of the CUDA backend in one go, without R (and with R's
# device tests where R is there), within a few minutes of device time:
#
#   bash tests/c/run-gpu.sh                 builds for the local GPU, then runs
#   SKIP_BUILD=1 bash tests/c/run-gpu.sh    runs the prebuilt bundle (below)
#
# The bundle is built where nvcc is, with or without a GPU (no device time):
#
#   make -C tests/c gpu-bundle CUDA_ARCH=90   (an H100 or H200: sm_90)
#
# which leaves test_cuda, bench_cuda and the shared libraries they need
# (BLAS, OpenMP, C++ runtime; the CUDA runtime is linked in statically, the
# driver is the machine's) in tests/c/gpu-bundle/, and, when R and the
# toolkit are here, an installed CUDA build of the package for the R
# device tests (gpu-bundle/R/); also all of it in tests/c/gpu-bundle.tar.xz
# (about 10 MB: what a device run takes along; git ignores both), which
# this script unpacks when it is newer than the folder.
#
# Steps, each under `timeout` (seconds, env): 1. nvidia-smi (20); 2. the
# build unless SKIP_BUILD=1 (BUILD_TIMEOUT, 900); 3. test_cuda: every
# kernel against the CPU (TEST_TIMEOUT, 300), ending with the parity table
# (the largest error of each kernel's comparisons) and "N passed, M
# failed"; 4. bench_cuda --quick: the CPU-vs-GPU crossovers (BENCH_TIMEOUT,
# 240); 5. the R device tests, tests/testthat/test-cuda.R against
# gpu-bundle/R/ (R_TIMEOUT, 240), where Rscript and testthat are found
# (skipped otherwise, saying why; set R_TESTS=0 to skip).  Each step's time
# is printed, and the time from the start to the first device call.
#
# Writes everything also to $OUT/run-gpu.log when OUT is set.  Exit status:
# that of the build, of test_cuda or of the R tests (the benchmark never
# fails).  Options (env): CUDA_HOME (default /usr/local/cuda), CUDA_ARCH,
# TEST_CUDA_ARGS (e.g. --n=100000), BENCH_CUDA_ARGS (default --quick),
# JOBS (parallel compile jobs, default 8).
set -u
set -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUNDLE="${HERE}/gpu-bundle"
LOG=/dev/null
if [ -n "${OUT:-}" ]; then
  mkdir -p "${OUT}" && LOG="${OUT}/run-gpu.log"
fi
T0=${SECONDS}

stamp() { echo "==== (+$((SECONDS - T0)) s) $*"; }

# step NAME SECONDS COMMAND...: the command (a program or one of the
# functions below, exported) under timeout, and its time
step() {
  local name=$1 limit=$2 rc t=${SECONDS}
  shift 2
  stamp "${name} (limit ${limit} s)"
  timeout "${limit}" bash -c '"$@"' step "$@"
  rc=$?
  if [ "${rc}" -eq 124 ]; then
    echo "TIMEOUT: ${name} ran past ${limit} s"
  fi
  echo "(${name}: $((SECONDS - t)) s, exit status ${rc})"
  return "${rc}"
}

build() {
  local nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" arch=${CUDA_ARCH:-}
  if [ ! -x "${nvcc}" ]; then
    nvcc=$(command -v nvcc || true)
  fi
  if [ -z "${nvcc}" ]; then
    echo "FAIL: nvcc not found (set CUDA_HOME), and SKIP_BUILD is not set"
    return 1
  fi
  "${nvcc}" --version | tail -n 2
  if [ -z "${arch}" ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader \
      2>/dev/null | head -n 1 | tr -d '. ')
  fi
  make -C "${HERE}" -j "${JOBS:-8}" gpu-bundle NVCC="${nvcc}" \
    ${arch:+CUDA_ARCH=${arch}}
}

# The bundle (unpacked from gpu-bundle.tar.xz when that is newer), its GPU
# code against the GPU's compute capability.
check_bundle() {
  local want have
  if [ -f "${BUNDLE}.tar.xz" ] &&
    { [ ! -d "${BUNDLE}" ] || [ "${BUNDLE}.tar.xz" -nt "${BUNDLE}/MANIFEST" ]; }; then
    echo "unpacking ${BUNDLE}.tar.xz"
    rm -rf "${BUNDLE}"
    tar -C "${HERE}" -xJf "${BUNDLE}.tar.xz" ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "${BUNDLE}.tar.xz" "${HERE}" || return 1
  fi
  if [ ! -x "${BUNDLE}/test_cuda" ] || [ ! -x "${BUNDLE}/bench_cuda" ]; then
    echo "FAIL: ${BUNDLE} has no test_cuda and bench_cuda: run make -C" \
      "tests/c gpu-bundle CUDA_ARCH=90 where nvcc is (or drop SKIP_BUILD)"
    return 1
  fi
  cat "${BUNDLE}/MANIFEST" 2>/dev/null
  have=$(cat "${BUNDLE}/ARCH" 2>/dev/null)
  want=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader \
    2>/dev/null | head -n 1 | tr -d '. ')
  if [ -n "${want}" ] && [ "${have}" != "${want}" ]; then
    echo "NOTE: the bundle has sm_${have} code and the GPU is sm_${want}:" \
      "the kernels will not load unless sm_${have} runs there"
  fi
}

r_tests() {
  local lib="${BUNDLE}/R" root
  root=$(cd "${HERE}/../.." && pwd)
  if [ "${R_TESTS:-1}" = 0 ]; then
    echo "SKIP: R device tests (R_TESTS=0)"
    return 0
  fi
  if ! command -v Rscript >/dev/null 2>&1; then
    echo "SKIP: R device tests: no Rscript on this machine (the bundle's" \
      "package needs R $(cat "${lib}/R_VERSION" 2>/dev/null || echo '?')" \
      "with testthat; nothing can be installed from here)"
    return 0
  fi
  if [ ! -d "${lib}/ghmix" ]; then
    echo "SKIP: R device tests: the bundle has no installed package" \
      "(make gpu-bundle installs one where R and nvcc are)"
    return 0
  fi
  if ! Rscript -e 'quit(status = !requireNamespace("testthat", quietly = TRUE))'; then
    echo "SKIP: R device tests: testthat is not installed here"
    return 0
  fi
  if ! R_LIBS="${lib}" Rscript -e 'library(ghmix)' >/dev/null 2>&1; then
    echo "SKIP: R device tests: the bundle's package does not load with" \
      "this R ($(R --version | head -n 1); built with" \
      "$(cat "${lib}/R_VERSION" 2>/dev/null))"
    return 0
  fi
  (cd "${root}" && R_LIBS="${lib}${R_LIBS:+:${R_LIBS}}" NOT_CRAN=true \
    Rscript -e '
      library(ghmix)
      print(ghmix_info())
      res <- testthat::test_file("tests/testthat/test-cuda.R",
        package = "ghmix", load_package = "installed",
        reporter = testthat::SummaryReporter$new(show_praise = FALSE))
      df <- as.data.frame(res)
      cat(sprintf("R device tests: %d passed, %d failed, %d skipped\n",
                  sum(df$passed), sum(df$failed) + sum(df$error),
                  sum(df$skipped)))
      quit(status = as.integer(sum(df$failed) + sum(df$error) > 0))')
}

export HERE BUNDLE
export -f build check_bundle r_tests

main() {
  local rc=0
  stamp "ghmix CUDA checks: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
  echo "git: $(git -C "${HERE}" log -1 --format='%h %s' 2>/dev/null || echo unknown)"
  step "nvidia-smi" 20 nvidia-smi ||
    echo "(nvidia-smi failed: the CUDA runtime says why below)"
  nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version,clocks.max.sm \
    --format=csv 2>/dev/null
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    if ! step "build" "${BUILD_TIMEOUT:-900}" build; then
      echo "FAIL: build"
      return 1
    fi
  fi
  check_bundle || return 1
  export LD_LIBRARY_PATH="${BUNDLE}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
  # shellcheck disable=SC2086
  step "test_cuda ${TEST_CUDA_ARGS:-}" "${TEST_TIMEOUT:-300}" \
    "${BUNDLE}/test_cuda" ${TEST_CUDA_ARGS:-} || rc=1
  # shellcheck disable=SC2086
  step "bench_cuda ${BENCH_CUDA_ARGS:---quick}" "${BENCH_TIMEOUT:-240}" \
    "${BUNDLE}/bench_cuda" ${BENCH_CUDA_ARGS:---quick} ||
    echo "(bench_cuda did not finish; the tables above are what it measured)"
  step "R device tests" "${R_TIMEOUT:-240}" r_tests || rc=1
  stamp "done; exit status ${rc}"
  return "${rc}"
}

main 2>&1 | tee "${LOG}"
