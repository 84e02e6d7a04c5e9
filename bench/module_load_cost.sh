#!/bin/bash
# Instructions the shim runs per module load, counted by callgrind on the simulator
# (bench/module_load.c loads, looks a kernel up and unloads; callgrind_own.awk counts the
# shim's own code and the C library functions it calls, not the driver's).  Two runs per
# figure, N and 2N loads; the difference cancels start-up:  per load = (shim(2N) - shim(N)) / N
#
#   passes through: a fatbin with code the device runs (SASS sm_75 + PTX compute_75 on sm_75;
#     SASS sm_80 + PTX compute_80 on sm_90, whose PTX the driver compiles): the shim reads
#     the container's entry headers and hands the image on;
#   lowered: the sm_80 fatbin on sm_75, its lowering read from the disk cache (a fresh
#     folder, filled by the first load of each run): hash, read, check, a new container.
# Usage: module_load_cost.sh BUILD_DIR [N]
set -eu
build=${1:-build} n=${2:-200}
prog=$build/bench/module_load shim=$(realpath "$build/src/libbf16shim.so")
sm80=$build/tests/fatload/driver_kernels_plain.fatbin
default=$build/tests/simcuda/fatbin/default_none.fatbin
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core") SIMCUDA_COMPUTE=0
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }
[ -f "$sm80" ] && [ -f "$default" ] || { echo "build $sm80 and $default first (ninja -C $build)"; exit 77; }
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
count() { # arch image way kernel loads
  local out; out=$(mktemp)
  rm -rf "$cache"/*
  SIMCUDA_ARCH=$1 LD_PRELOAD=$shim BF16SHIM_CACHE_DIR=$cache valgrind --tool=callgrind \
    --callgrind-out-file="$out" "$prog" "$2" "$3" "$4" "$5" 2>/dev/null ||
    { echo "FAIL: $prog $2 $3 on $1" >&2; rm -f "$out"; exit 1; }
  awk -f "$(dirname "$0")/callgrind_own.awk" "$out"
  rm -f "$out"
}
printf '%-8s %-44s %8s %8s\n' arch image module library
row() { # arch image kernel label
  local r=()
  for way in module library; do
    c1=$(count "$1" "$2" $way "$3" "$n") c2=$(count "$1" "$2" $way "$3" $((2 * n)))
    r+=($(( (c2 - c1) / n )))
  done
  printf '%-8s %-44s %8s %8s\n' "$1" "$4" "${r[@]}"
}
row sm_75 "$default" add_bias "SASS sm_75 + PTX compute_75: passes through"
row sm_90 "$sm80" scale_bf16 "SASS sm_80 + PTX compute_80: passes through"
row sm_75 "$sm80" scale_bf16 "SASS sm_80 + PTX compute_80: lowered (cache)"
echo "instructions per load inside libbf16shim.so ($n and $((2 * n)) loads)"
