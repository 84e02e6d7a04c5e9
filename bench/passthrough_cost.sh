#!/bin/bash
# Instructions the shim runs per GEMM call, counted by callgrind on the simulator: for
# cublasGemmEx and cublasLtMatmul, bf16 and fp32, on sm_61, sm_75 and sm_90 (bench/
# passthrough.c makes the calls).  Counted: the shim's own code and the C library functions
# it calls (formatting, locks); not counted: the vendor libraries it forwards to.  Two runs
# per figure, N and 2N calls; the difference cancels start-up:
#   per call = (shim(2N) - shim(N)) / N
# On sm_90 every call passes through (the target: <= 120 each); below sm_80 the bf16 figures
# are those of a rewrite (the fp32 path on sm_61, the fp16 path on sm_75), and a GemmEx
# figure includes the nested cublasLtMatmul that cuBLAS makes inside it.
# Usage: passthrough_cost.sh BUILD_DIR [N]
set -eu
build=${1:-build} n=${2:-400}
prog=$build/bench/passthrough shim=$(realpath "$build/src/libbf16shim.so")
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core") SIMCUDA_COMPUTE=0
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }
# Counted by callgrind_own.awk.
count() { # arch api type calls
  local out; out=$(mktemp)
  SIMCUDA_ARCH=$1 LD_PRELOAD=$shim valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$prog" "$2" "$3" "$4" 2>/dev/null || { echo "FAIL: $prog $2 $3 on $1" >&2; rm -f "$out"; exit 1; }
  awk -f "$(dirname "$0")/callgrind_own.awk" "$out"
  rm -f "$out"
}
printf '%-8s %-16s %6s %6s\n' arch api bf16 fp32
for arch in sm_61 sm_75 sm_90; do
  for api in gemmex lt; do
    row=()
    for type in bf16 fp32; do
      c1=$(count "$arch" "$api" "$type" "$n") c2=$(count "$arch" "$api" "$type" $((2 * n)))
      row+=($(( (c2 - c1) / n )))
    done
    printf '%-8s %-16s %6s %6s\n' "$arch" "$([ $api = lt ] && echo cublasLtMatmul || echo cublasGemmEx)" "${row[@]}"
  done
done
echo "instructions per call inside libbf16shim.so ($n and $((2 * n)) calls); target on sm_90: <= 120"
