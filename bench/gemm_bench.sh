#!/bin/bash
# The issue-4 benchmark table, on a GPU (native bf16, and the shim's paths with
# BF16SHIM_EMULATE_SM=75): sizes m=n=k 1024/4096/8192 and decode m=1/8/16 with n=k=4096.
# And the fused path's kernels (issue 28) against cuBLAS's fp16 GEMM of the same shape (the
# f16gemm rows) and native bf16: fused75 (Turing's tensor-core kernel, as planned for
# sm_75), fused70 (Volta's, sm_70) and fusedfma (the CUDA cores', sm_61), each with its
# achieved TFLOPS and its efficiency, its rate over the one the model gives cuBLAS on the
# same units (cost_tensor_rate, cost_fp32_rate): on a card of the architecture it is planned
# for, the figure for COST_FUSED_EFFICIENCY (doc/facts.md, "The fused path's kernels");
# elsewhere only a comparison.
# Writes BUILD/gemm_bench.csv and the chart BUILD/gemm_bench.svg.
# Usage: gemm_bench.sh BUILD_DIR [ITERS]
set -eu
build=${1:-build} iters=${2:-20}
prog=$build/bench/gemm_bench shim=$(realpath "$build/src/libbf16shim.so")
# The real CUDA libraries: the build links the simulator's, which LD_LIBRARY_PATH overrides.
export LD_LIBRARY_PATH=${CUDA_LIB:-/usr/local/cuda/lib64}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
csv=$build/gemm_bench.csv
# Bytes each path moves beyond a native GEMM (A, B bf16; C fp32, beta = 0), as
# bench/traffic.sh measures them:
#   fp32:  casts read A,B (2 B/elem) and write fp32 copies (4 B), the GEMM reads 4 B/elem
#          instead of 2 and writes C itself (C fp32: no epilogue)
#   fp16:  the slices read A,B once (2 B) and write fp16 copies (2 B) the GEMM reads (2 B)
#          instead of the native read (2 B), plus the result round trip (8 B/elem of C)
#   decode, fused: nothing extra by design
extra() { # path m n k
  awk -v p="$1" -v m="$2" -v n="$3" -v k="$4" 'BEGIN {
    ab = m*k + k*n
    if (p == "fp32") print ab*(2+4+4-2)
    else if (p == "fp16") print ab*(2+2+2-2) + 8*m*n
    else print 0 }'
}
# modeled_ms: the cost model's time for the same path (src/gemm/cost.h), beside the measured ms.
echo "label,m,n,k,ms,tflops,extra_bytes,added_ms,copy_gbs,cast_gbs_effective,modeled_ms,efficiency" > "$csv"
run() { # label path env... -- m n k
  local label=$1 path=$2; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" "$prog" "$@" "$iters" "$(extra "$path" "$@")" "$label" | grep "^$label," >> "$csv"
}
for s in 1024 4096 8192; do
  run native native -- $s $s $s
  run fp32 fp32 LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=75 BF16SHIM_PATH=fp32 -- $s $s $s
  run fp16 fp16 LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=75 BF16SHIM_PATH=fp16 -- $s $s $s
done
for m in 1 8 16; do
  run native native -- $m 4096 4096
  run decode decode LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=75 -- $m 4096 4096
done
for shape in "1024 1024 1024" "4096 4096 4096" "512 4096 4096" "4096 4096 512" "64 4096 4096"; do
  run native native -- $shape
  run fused75 fused LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=75 BF16SHIM_PATH=fused -- $shape
  run fused70 fused LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=70 BF16SHIM_PATH=fused -- $shape
  run fusedfma fused LD_PRELOAD="$shim" BF16SHIM_EMULATE_SM=61 BF16SHIM_PATH=fused -- $shape
done
# The fused rows beside cuBLAS's fp16 GEMM of their shape (timed in the same run: ms -
# added_ms) and native bf16.
awk -F, 'NR > 1 { shape = $2 "x" $3 "x" $4 }
  NR > 1 && $1 == "native" { native[shape] = $5 }
  NR > 1 && $1 ~ /^fused/ { f16 = $5 - $8
    printf "%-9s %-15s %9.4f ms %7.2f TFLOPS  fp16 GEMM %9.4f ms (x%.2f)  native bf16 %s ms  efficiency %s\n",
      $1, shape, $5, $6, f16, (f16 > 0 ? $5 / f16 : 0), (shape in native ? native[shape] : "-"),
      ($12 == "" ? "-" : $12) }' "$csv"
# copy bandwidth and the plain fp16 GEMM once per shape, from the native runs
column -t -s, "$csv"
python3 "$(dirname "$0")/chart.py" "$csv" "$build/gemm_bench.svg"
echo "chart: $build/gemm_bench.svg"
