#!/bin/bash
# Instructions a passed-through cublasGemmEx costs above a direct call, counted by callgrind
# on the simulator.  Four runs (N and 2N calls, with and without the shim); the differences
# cancel start-up and the simulator's own work:
#   per call = ((shim 2N - shim N) - (plain 2N - plain N)) / N
# Usage: passthrough_cost.sh BUILD_DIR [N]
set -eu
build=${1:-build} n=${2:-2000}
prog=$build/bench/passthrough shim=$(realpath "$build/src/libbf16shim.so")
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core") SIMCUDA_ARCH=sm_61 SIMCUDA_COMPUTE=0
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }
count() { # calls [preload]
  local out; out=$(mktemp)
  env ${2:+LD_PRELOAD=$2} valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$prog" "$1" 2>/dev/null
  awk '/^summary:/ {print $2}' "$out"; rm -f "$out"
}
p1=$(count "$n") p2=$(count $((2 * n))) s1=$(count "$n" "$shim") s2=$(count $((2 * n)) "$shim")
per=$(( ((s2 - s1) - (p2 - p1)) / n ))
echo "calls=$n plain: $(( (p2 - p1) / n )) instr/call, with shim: $(( (s2 - s1) / n )) instr/call"
echo "pass-through overhead: $per instructions per call (target <= 60)"
