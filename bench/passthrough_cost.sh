#!/bin/bash
# Instructions a passed-through cublasGemmEx costs, counted by callgrind on the simulator:
# those run inside libbf16shim.so itself (the figure held to the target), and, for
# reference, the whole difference against a direct call.  Four runs (N and 2N calls, with and
# without the shim); differences cancel start-up and the simulator's own work:
#   difference per call = ((shim 2N - shim N) - (plain 2N - plain N)) / N
# That difference is not steady: the simulator formats its call log with strings whose
# addresses move with the shim loaded, and libc's strlen cost follows their alignment (one
# build printed 4, another 64, for the same 58 instructions in the shim).
# Usage: passthrough_cost.sh BUILD_DIR [N]
set -eu
build=${1:-build} n=${2:-2000}
prog=$build/bench/passthrough shim=$(realpath "$build/src/libbf16shim.so")
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core") SIMCUDA_ARCH=sm_61 SIMCUDA_COMPUTE=0
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }
# Prints the total and the self cost of the functions in libbf16shim.so: a cost line belongs
# to the object of the last fn=; the line after calls= is a callee's inclusive cost; an
# object is named at its first ob= or cob=, later by its number alone.
count() { # calls [preload]
  local out; out=$(mktemp)
  env ${2:+LD_PRELOAD=$2} valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$prog" "$1" 2>/dev/null
  awk '/^summary:/ { total = $2 }
    /^c?ob=/ { id = $1; sub(/^c?ob=/, "", id); if (NF > 1) name[id] = $2 }
    /^ob=/ { ob = name[id] }
    /^fn=/ { fob = ob }
    /^calls=/ { skip = 1; next }
    /^[0-9+*-]/ { if (skip) skip = 0; else if (fob ~ /libbf16shim/ && NF > 1) own += $NF }
    END { print total, own + 0 }' "$out"
  rm -f "$out"
}
read -r p1 _ < <(count "$n"); read -r p2 _ < <(count $((2 * n)))
read -r s1 o1 < <(count "$n" "$shim"); read -r s2 o2 < <(count $((2 * n)) "$shim")
per=$(( ((s2 - s1) - (p2 - p1)) / n ))
echo "calls=$n plain: $(( (p2 - p1) / n )) instr/call, with shim: $(( (s2 - s1) / n )) instr/call" \
  "(difference $per, which moves with the simulator's memory layout)"
echo "pass-through overhead: $(( (o2 - o1) / n )) instructions per call inside libbf16shim.so" \
  "(target <= 60)"
