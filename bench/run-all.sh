#!/usr/bin/env bash
# Runs every benchmark in bench/ and writes its table and plot to
# bench/results/<name>.md and <name>.png.  From the repository root:
#
#   bash bench/run-all.sh                    # ghmix and the peers already
#                                            # installed (R_LIBS, GHMIX_NORMIX_PYTHON)
#   bash bench/run-all.sh --install          # on a fresh machine: first install
#                                            # the peers and this checkout of ghmix
#                                            # into $GHMIX_PEERS_DIR, then run
#   GHMIX_BENCH_QUICK=1 bash bench/run-all.sh   # smaller sizes, fewer runs
#   bash bench/run-all.sh bessel fit         # only these scripts
#
# Options:
#   --install-peers  R packages ghyp, GeneralizedHyperbolic, QRM, gsl,
#                    GIGrvg, MixGHD (with mixture) and mclust from CRAN
#                    into $GHMIX_PEERS_DIR/R, and a Python
#                    venv with normix and jax (CPU) in $GHMIX_PEERS_DIR/venv
#                    (needs Python >= 3.12: $GHMIX_PYTHON, default python3.12)
#   --install-ghmix  R CMD build this checkout in a temporary directory and
#                    install the tarball into $GHMIX_PEERS_DIR/R
#   --install        both
# Environment:
#   GHMIX_PEERS_DIR      default ~/.local/share/ghmix-peers; its R/ library is
#                        put in front of R_LIBS and its venv's python is used
#                        for normix unless GHMIX_NORMIX_PYTHON is set
#   GHMIX_NORMIX_PYTHON  a Python that can `import normix`
#   GHMIX_BENCH_QUICK    1: quick mode (every script)
#
# Each script skips a peer that is not installed, with a message.  The load
# average before and after each script goes to bench/results/run-all.log,
# with the exit status; the run goes on after a failure and exits non-zero
# if any script failed.  Run it on an otherwise idle machine.

set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

PEERS_DIR=${GHMIX_PEERS_DIR:-${HOME}/.local/share/ghmix-peers}
PYTHON=${GHMIX_PYTHON:-python3.12}
CRAN=${GHMIX_CRAN:-https://cloud.r-project.org}
install_peers=0
install_ghmix=0
scripts=()
for arg in "$@"; do
  case "${arg}" in
  --install) install_peers=1 install_ghmix=1 ;;
  --install-peers) install_peers=1 ;;
  --install-ghmix) install_ghmix=1 ;;
  -h | --help)
    sed -n '2,33p' "$0"
    exit 0
    ;;
  *) scripts+=("${arg}") ;;
  esac
done
if [ "${#scripts[@]}" -eq 0 ]; then
  scripts=(bessel gig_dist gig_solve gh_dist fit backends)
  # benchmarks added later (e.g. chunked.R) run after these, and the
  # panel of data shapes (panel.R, hours at full size) last
  for f in bench/*.R; do
    name=$(basename "${f}" .R)
    case " ${scripts[*]} common panel " in
    *" ${name} "*) ;;
    *) scripts+=("${name}") ;;
    esac
  done
  scripts+=(panel)
fi

mkdir -p "${PEERS_DIR}/R" bench/results
export R_LIBS="${PEERS_DIR}/R${R_LIBS:+:${R_LIBS}}"
if [ -z "${GHMIX_NORMIX_PYTHON:-}" ] && [ -x "${PEERS_DIR}/venv/bin/python" ]; then
  export GHMIX_NORMIX_PYTHON="${PEERS_DIR}/venv/bin/python"
fi

if [ "${install_peers}" = 1 ]; then
  echo "== installing the R peers into ${PEERS_DIR}/R"
  Rscript -e 'install.packages(c("ghyp", "GeneralizedHyperbolic", "QRM",
                                 "gsl", "GIGrvg", "MixGHD", "mixture",
                                 "mclust"),
                               lib = commandArgs(TRUE)[1],
                               repos = commandArgs(TRUE)[2])' \
    "${PEERS_DIR}/R" "${CRAN}" || echo "(some R peers failed to install)"
  echo "== installing normix into ${PEERS_DIR}/venv (${PYTHON})"
  if "${PYTHON}" -m venv "${PEERS_DIR}/venv" &&
    "${PEERS_DIR}/venv/bin/pip" install --quiet normix "jax[cpu]"; then
    export GHMIX_NORMIX_PYTHON="${PEERS_DIR}/venv/bin/python"
  else
    echo "(normix not installed: it needs Python >= 3.12, set GHMIX_PYTHON)"
  fi
fi

if [ "${install_ghmix}" = 1 ]; then
  echo "== building and installing ghmix into ${PEERS_DIR}/R"
  tmp=$(mktemp -d)
  root=$(pwd)
  (cd "${tmp}" && R CMD build --no-build-vignettes "${root}" &&
    R CMD INSTALL -l "${PEERS_DIR}/R" ghmix_*.tar.gz) || {
    echo "installing ghmix failed"
    rm -rf "${tmp}"
    exit 1
  }
  rm -rf "${tmp}"
fi

if ! Rscript -e 'library(ghmix)' >/dev/null 2>&1; then
  echo "ghmix is not installed (R_LIBS=${R_LIBS}); use --install-ghmix" >&2
  exit 1
fi

LOG=bench/results/run-all.log
{
  echo "# bash bench/run-all.sh $*  ($(date '+%Y-%m-%d %H:%M'), $(nproc) cores)"
  echo "# R_LIBS=${R_LIBS}; GHMIX_NORMIX_PYTHON=${GHMIX_NORMIX_PYTHON:-}; GHMIX_BENCH_QUICK=${GHMIX_BENCH_QUICK:-}"
} >"${LOG}"
failed=()
for name in "${scripts[@]}"; do
  f="bench/${name}.R"
  if [ ! -f "${f}" ]; then
    echo "no such benchmark: ${f}" >&2
    failed+=("${name}")
    continue
  fi
  echo
  echo "==== ${f} (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  t0=${SECONDS}
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  Rscript "${f}"
  rc=$?
  echo "${name}: exit ${rc}, $((SECONDS - t0)) s, load average ${load0} at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end" |
    tee -a "${LOG}"
  [ "${rc}" -eq 0 ] || failed+=("${name}")
done

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]}" | tee -a "${LOG}"
  exit 1
fi
echo "all ${#scripts[@]} benchmarks ran; tables and plots in bench/results/" |
  tee -a "${LOG}"
