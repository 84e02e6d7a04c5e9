#!/bin/bash
# Device traffic per bf16 GEMM for each path, on the simulator (deterministic: bytes and
# launches, not time).  The shapes are the PyTorch nn.Linear form (A transposed).
# Usage: traffic.sh BUILD_DIR [--check]   (--check: fail if a path moves more than its budget)
set -eu
build=${1:-build} check=${2:-}
prog=$build/bench/traffic shim=$(realpath "$build/src/libbf16shim.so")
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core")
row() { # label arch env... -- m n k
  local label=$1 arch=$2; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  printf '%s,%s,' "$label" "$arch"
  env SIMCUDA_ARCH="$arch" "${envs[@]}" "$prog" "$@"
}
{
  echo "path,arch,m,n,k,bytes_read,bytes_written,kernel_launches,gemms,native_bytes"
  for s in 128 256; do
    row native sm_90 -- $s $s $s
    row fp32 sm_61 LD_PRELOAD="$shim" BF16SHIM_PATH=fp32 -- $s $s $s
    row fp16 sm_75 LD_PRELOAD="$shim" BF16SHIM_PATH=fp16 -- $s $s $s
  done
  for m in 1 8 16; do
    row native sm_90 -- $m 512 512
    row decode sm_75 LD_PRELOAD="$shim" -- $m 512 512
  done
} > "$build/traffic.csv"
column -t -s, "$build/traffic.csv"
[ "$check" = --check ] || exit 0
# Regressions: no path may move more bytes or launch more kernels than in the committed
# baseline (the counts are deterministic).  And the issue's rule for the decode kernel: at
# most 1.1x the bytes a native GEMM moves.
awk -F, '
  NR == FNR { if (FNR > 1) { base[$1 "," $2 "," $3 "," $4 "," $5] = $6 + $7; bl[$1 "," $2 "," $3 "," $4 "," $5] = $8 }; next }
  FNR > 1 {
    key = $1 "," $2 "," $3 "," $4 "," $5; total = $6 + $7
    if ((key in base) && (total > base[key] || $8 > bl[key])) {
      printf "%s: %d bytes, %d launches; baseline %d, %d\n", key, total, $8, base[key], bl[key]; bad++
    }
    if ($1 == "decode" && total > 1.1 * $10) {
      printf "%s: %.2fx the native bytes (at most 1.1x)\n", key, total / $10; bad++
    }
  }
  END { exit bad ? 1 : 0 }' "$(dirname "$0")/traffic_baseline.csv" "$build/traffic.csv"
echo "traffic: within the baseline"
