#!/bin/sh
# nvcc_progress.sh FILE COMMAND...: runs COMMAND (nvcc compiling FILE, from
# the rules configure writes into src/Makevars) and says, every 30 s while
# it runs, that it still does: the kernels' translation units take minutes
# of CPU, and R CMD INSTALL would otherwise print nothing meanwhile.
# POSIX sh.
file=$1
shift
echo "ghmix: nvcc compiles ${file} (a few minutes per GPU arch)"
"$@" &
pid=$!
t=0
while kill -0 "${pid}" 2>/dev/null; do
  sleep 1
  t=$((t + 1))
  if test $((t % 30)) -eq 0 && kill -0 "${pid}" 2>/dev/null; then
    echo "ghmix: nvcc still compiling ${file} (${t} s)"
  fi
done
wait "${pid}"
rc=$?
if test "${rc}" -eq 0; then
  echo "ghmix: ${file} compiled in ${t} s"
else
  echo "ghmix: nvcc failed on ${file} (exit status ${rc})"
fi
exit "${rc}"
