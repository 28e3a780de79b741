#!/usr/bin/env bash
# Puts the GPU checks, built here, into one folder that a GPU machine runs
# without compiling (SKIP_BUILD=1 bash tests/c/run-gpu.sh):
#
#   bash tests/c/gpu-bundle.sh DIR ARCH     (make -C tests/c gpu-bundle)
#
# DIR (and DIR.tar.xz, the same in one file: what a device run carries
# along) gets test_cuda and bench_cuda (built by make for sm_ARCH), lib/ with
# the shared libraries they need beyond the C library and the driver (the
# CUDA runtime is linked in statically), ARCH, MANIFEST (what was built
# from what, and the sizes), and R/, the package installed with its CUDA
# backend for sm_ARCH, where R and nvcc are here (GPU_BUNDLE_R=0 leaves it
# out).  GPU_BLAS=openblas (the default where Debian's pthread OpenBLAS is
# installed) bundles OpenBLAS as the CPU drivers' BLAS, so that the
# benchmark's CPU side is not held back by the reference BLAS; system
# bundles whatever libblas.so.3 is here.
set -eu

ARCH=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "${HERE}/../.." && pwd)
OPENBLAS=/usr/lib/x86_64-linux-gnu/openblas-pthread
BLAS=${GPU_BLAS:-$([ -f "${OPENBLAS}/libblas.so.3" ] && echo openblas || echo system)}

rm -rf "$1"
mkdir -p "$1/lib"
DIR=$(cd "$1" && pwd)
cp "${HERE}/test_cuda" "${HERE}/bench_cuda" "${DIR}/"

# copy_deps FILE...: the libraries FILE needs that every Linux has not
copy_deps() {
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
    sort -u | while read -r name path; do
      case "${name}" in
      libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | \
        ld-linux*.so.* | libcuda.so.* | libR.so | libRblas.so | libRlapack.so) ;;
      *) cp -L "${path}" "${DIR}/lib/${name}" ;;
      esac
    done
}
copy_deps "${DIR}/test_cuda" "${DIR}/bench_cuda"
if [ "${BLAS}" = openblas ]; then
  cp -L "${OPENBLAS}/libblas.so.3" "${DIR}/lib/libblas.so.3"
  copy_deps "${OPENBLAS}/libblas.so.3"
  # (the symbols only; OpenBLAS's debug sections are most of its size)
  strip --strip-unneeded "${DIR}/lib/"libopenblas* 2>/dev/null || true
fi
echo "${ARCH}" >"${DIR}/ARCH"

if [ "${GPU_BUNDLE_R:-1}" != 0 ] && command -v R >/dev/null 2>&1 &&
  command -v "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" >/dev/null 2>&1; then
  # the package's tracked and untracked (not ignored) files, built apart
  src=$(mktemp -d)
  trap 'rm -rf "${src}"' EXIT
  (cd "${ROOT}" && git ls-files -co --exclude-standard -z |
    tar --null -T - -cf -) | tar -xf - -C "${src}"
  mkdir -p "${DIR}/R"
  echo "installing the package with its CUDA backend for sm_${ARCH} into" \
    "${DIR}/R"
  (cd "${src}" && GHMIX_CUDA=yes GHMIX_CUDA_ARCHS="${ARCH}" \
    R CMD INSTALL --no-docs --no-multiarch -l "${DIR}/R" . >"${DIR}/R/install.log" 2>&1) || {
    tail -n 30 "${DIR}/R/install.log"
    echo "the R package did not install: the bundle has none"
    rm -rf "${DIR}/R"
  }
  R --version | head -n 1 >"${DIR}/R/R_VERSION" 2>/dev/null || true
  # its CUDA runtime (libcudart) where run-gpu.sh's LD_LIBRARY_PATH finds it
  # (R's own libraries are the machine's)
  if [ -f "${DIR}/R/ghmix/libs/ghmix.so" ]; then
    ldd "${DIR}/R/ghmix/libs/ghmix.so" |
      awk '$1 ~ /^libcudart/ && $3 ~ /^\// { print $3, $1 }' |
      while read -r path name; do cp -L "${path}" "${DIR}/lib/${name}"; done
  fi
fi

{
  echo "bundle: $(git -C "${ROOT}" log -1 --format='%h %s' 2>/dev/null)" \
    "($(git -C "${ROOT}" status --porcelain 2>/dev/null | wc -l) files changed)"
  echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), sm_${ARCH}," \
    "$("${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>/dev/null | tail -n 1)"
  echo "BLAS of the CPU drivers: ${BLAS}; R package:" \
    "$([ -d "${DIR}/R/ghmix" ] && cat "${DIR}/R/R_VERSION" || echo none)"
  echo "size: $(du -sh "${DIR}" | cut -f 1) ($(ls "${DIR}/lib" | tr '\n' ' '))"
} >"${DIR}/MANIFEST"
# what a device run carries along: the folder in one compressed file
# (about 10 MB for 80 MB: device code and OpenBLAS compress well)
tar -C "$(dirname "${DIR}")" -cf - "$(basename "${DIR}")" |
  xz -T0 -6 >"${DIR}.tar.xz"
echo "carry: ${DIR}.tar.xz ($(du -h "${DIR}.tar.xz" | cut -f 1))" >>"${DIR}/MANIFEST"
cat "${DIR}/MANIFEST"
