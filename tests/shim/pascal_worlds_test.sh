#!/bin/bash
# bf16 GEMMs on Pascal in both worlds (doc/facts.md, "bf16 GEMMs on Maxwell and Pascal"):
#   refuse  the library refuses them (cuBLAS 11.5): each configuration reaches it once, is
#           refused, and from then on goes straight to the rewrite; every result is right
#   run     the library runs them, slowly (cuBLAS 12): the cost model leaves the client's small
#           GEMMs to it, so bf16 GEMMs succeed in cuBLAS and none is refused
#   rewrite a library that is not cuBLAS 12 (its version says it refuses them): the rewrite
#           comes first, so no bf16 GEMM reaches it and nothing is refused; the rewrites show
#           as fp32 GEMMs or as the shim's own kernels (decode, fused), launched by the shim
# refuse and run take a client of the simulator's .12 stack, rewrite one of its .13 stack.
# Usage: pascal_worlds_test.sh CLIENT SHIM refuse|run|rewrite   (SIMCUDA_ARCH: a Pascal part)
set -eu
client=$1 shim=$2 world=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
case $world in
refuse|run) export SIMCUDA_BF16_BELOW_SM70=$world ;;
esac
SIMCUDA_LOG=$log LD_PRELOAD=$shim "$client" check
awk -v world="$world" '
  $3 == 0 && $4 ~ /^cublasGemm(StridedBatched|Batched)?Ex(_64)?$/ && $0 ~ /atype=R_16BF/ {
    if ($NF == "CUBLAS_STATUS_SUCCESS") ran++
    else if ($NF == "CUBLAS_STATUS_NOT_SUPPORTED") {
      refused++
      conf = ""
      for (i = 5; i <= NF; i++) if ($i ~ /^(atype|btype|ctype|compute|algo)=/) conf = conf " " $i
      if (seen[conf]++) again++
      configs += (seen[conf] == 1)
    }
  }
  $4 ~ /^cublas(Gemm(StridedBatched|Batched)?Ex|Sgemm)/ && $0 ~ /atype=R_32F/ && $3 == 0 { fp32++ }
  $4 ~ /^cuLaunchKernel(_ptsz)?$/ { launches++ }
  END {
    printf "%s: %d bf16 GEMMs ran in cuBLAS, %d refused (%d configurations, %d refused again), %d fp32 GEMMs, %d kernel launches\n",
      world, ran, refused, configs, again, fp32, launches
    if (world == "refuse" && (ran || !refused || again || !fp32)) { print "FAIL"; exit 1 }
    if (world == "run" && (!ran || refused)) { print "FAIL"; exit 1 }
    if (world == "rewrite" && (ran || refused || !(fp32 || launches))) { print "FAIL"; exit 1 }
  }' "$log"
