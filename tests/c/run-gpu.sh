#!/usr/bin/env bash
# The GPU checks of the CUDA backend in one go, without R:
#
#   bash tests/c/run-gpu.sh            (from anywhere; needs nvcc and a GPU)
#
# 1. nvidia-smi and nvcc --version (what the run was on);
# 2. builds test_cuda and bench_cuda for the local GPU only (CUDA_ARCH from
#    nvidia-smi, e.g. 90 on an H100/H200; override with CUDA_ARCH=...);
# 3. runs test_cuda: every kernel against the CPU path (parity, poisoned
#    outputs, determinism, error paths), ends "N passed, M failed";
# 4. runs bench_cuda: throughput and latency tables.
#
# Writes everything also to $OUT/run-gpu.log when OUT is set.  Exit status:
# that of the build or of test_cuda (the benchmark never fails).  Takes
# about 2 to 3 minutes on an H200, most of it compiling.  Options (env):
# CUDA_HOME (default /usr/local/cuda), TEST_CUDA_ARGS (e.g. --n=100000),
# BENCH_CUDA_ARGS (e.g. --quick), JOBS (parallel compile jobs, default 8).
set -u
set -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG=/dev/null
if [ -n "${OUT:-}" ]; then
  mkdir -p "${OUT}" && LOG="${OUT}/run-gpu.log"
fi

main() {
  local rc=0 t0=${SECONDS}
  echo "==== ghmix CUDA checks: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
  echo "==== git: $(git -C "${HERE}" log -1 --format='%h %s' 2>/dev/null || echo unknown)"
  echo "==== nvidia-smi"
  nvidia-smi || echo "nvidia-smi failed (exit $?)"
  nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version,clocks.max.sm \
    --format=csv 2>/dev/null
  local nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
  if [ ! -x "${nvcc}" ]; then
    nvcc=$(command -v nvcc || true)
  fi
  if [ -z "${nvcc}" ]; then
    echo "FAIL: nvcc not found (set CUDA_HOME)"
    return 1
  fi
  echo "==== ${nvcc} --version"
  "${nvcc}" --version | tail -n 2
  local arch=${CUDA_ARCH:-}
  if [ -z "${arch}" ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
      head -n 1 | tr -d '. ')
  fi
  echo "==== build for sm_${arch:-default} ($(nproc) cores)"
  local tb=${SECONDS}
  if ! make -C "${HERE}" -j "${JOBS:-8}" cuda-build NVCC="${nvcc}" \
    ${arch:+CUDA_ARCH=${arch}}; then
    echo "FAIL: build"
    return 1
  fi
  echo "(build: $((SECONDS - tb)) s)"
  echo "==== test_cuda ${TEST_CUDA_ARGS:-}"
  # shellcheck disable=SC2086
  (cd "${HERE}" && ./test_cuda ${TEST_CUDA_ARGS:-}) || rc=$?
  echo "==== bench_cuda ${BENCH_CUDA_ARGS:-}"
  # shellcheck disable=SC2086
  (cd "${HERE}" && ./bench_cuda ${BENCH_CUDA_ARGS:-}) ||
    echo "bench_cuda exited with status $?"
  echo "==== done in $((SECONDS - t0)) s; test_cuda exit status ${rc}"
  return "${rc}"
}

main 2>&1 | tee "${LOG}"
