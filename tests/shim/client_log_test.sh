#!/bin/bash
# Runs the GEMM client under the shim with the simulator's call log on, then reads the log:
# the rewritten GEMMs must show up as GEMMs of EXPECT_ATYPE (default R_32F; "none": no GEMM
# at all reaches cuBLAS, the kernels do everything), no bf16 GEMM may run in cuBLAS (one it
# refuses is not run), and between the client's first GEMM and its one synchronisation
# nothing may synchronise (no blocking copy, sync, alloc or free).  EXPECT_SPLIT=1: some
# launch has a grid of more than one in z (the client's long-k mode has one batch item a
# GEMM, so that is the fused path's split of k), each followed by its epilogue, and the
# trace says so ("splits"); EXPECT_SPLIT=0: none has, and no trace record says it.
set -eu
client=$1 shim=$2; shift 2
here=$(dirname "$0")
log=$(mktemp) trace=$(mktemp)
trap 'rm -f "$log" "$trace"' EXIT
# The trace only where the splits are checked: the other runs stay as they were.
env SIMCUDA_LOG="$log" ${EXPECT_SPLIT:+BF16SHIM_TRACE="$trace"} LD_PRELOAD="$shim" "$client" "$@"
# Lines are written when a call returns, so a call's nested calls come just before it.
# Pass 1 finds the phase: from the client's first cublasSetPointerMode_v2 to its one
# cudaStreamSynchronize (depth 0), less that call's own nested lines just before it.
awk '
  NR == FNR {
    if ($3 == 0 && $4 == "cublasSetPointerMode_v2" && !start) start = FNR
    if (start && !end && $3 == 0 && $4 == "cudaStreamSynchronize") end = FNR
    depth[FNR] = $3
    next
  }
  FNR == 1 { last = end - 1; while (last > start && depth[last] > 0) last-- }
  FNR > start && FNR <= last {
    if ($4 ~ /Synchronize|^cudaMemcpy$|^cuMemcpy(HtoD|DtoH)|^cuMemcpy$|^cudaMalloc$|^cuMemAlloc(_v2)?$|^cudaFree$|^cuMemFree(_v2)?$/) {
      print "synchronising call in the GEMM phase: " $0; bad++
    }
    if ($4 ~ /^cublasGemm(StridedBatched)?Ex/ && $0 ~ ("atype=" want " ")) fp32++
    # A GEMM the library refused (bf16 in cuBLAS 11 on Pascal) ran nothing; it was then rewritten.
    refused = $NF == "CUBLAS_STATUS_NOT_SUPPORTED"
    if ($4 ~ /^cublas(Gemm|Sgemm)/ && $0 ~ /atype=R_16BF/ && !refused) bf16++
    if ($4 ~ /^cublas(Gemm|Sgemm)|^cublasLtMatmul$/ && !refused) gemms++
    if ($4 == "cuLaunchKernel" || $4 == "cuLaunchKernel_ptsz") {
      launches++
      g = $0; sub(/.*grid=/, "", g); split(g, d, /[ ,]/)
      if (d[3] > 1) split_at[++splits] = launches
    }
  }
  END {
    if (!start || !end) { print "GEMM phase not found in the log"; exit 1 }
    printf "GEMM phase: %d %s GEMMs, %d kernel launches, %d bf16 GEMMs reached cuBLAS\n",
      fp32, want, launches, bf16
    if (want == "none" && gemms) { printf "%d GEMMs reached cuBLAS\n", gemms; exit 1 }
    if ((!fp32 && want != "none") || !launches) { print "no rewrite visible in the log"; exit 1 }
    if (bf16) { print "bf16 GEMMs reached cuBLAS: the shim did not rewrite them"; exit 1 }
    if (want_split == "0" && splits) { printf "%d launches split k, want none\n", splits; exit 1 }
    if (want_split == "1") {
      printf "%d launches split k\n", splits
      if (!splits) { print "no launch split k"; exit 1 }
      # Each split launch is followed by its epilogue, before the next GEMM'"'"'s kernel.
      for (i = 1; i <= splits; i++)
        if (split_at[i] + 1 > launches || (i < splits && split_at[i + 1] == split_at[i] + 1)) {
          print "a split launch without its epilogue"; exit 1
        }
    }
    exit bad ? 1 : 0
  }' want="${EXPECT_ATYPE:-R_32F}" want_split="${EXPECT_SPLIT:-}" "$log" "$log"
# The trace: a record with "splits" for each GEMM that ran split (one launch in z each),
# none otherwise.
[ -n "${EXPECT_SPLIT:-}" ] || exit 0
traced=$(grep -c '"splits":' "$trace" || true)
launched=$(awk -f "$here/split_launches.awk" "$log")
echo "trace: $traced records with splits, $launched launches split"
case "${EXPECT_SPLIT:-}" in
1) [ "$traced" -gt 0 ] && [ "$traced" -eq "$launched" ] ||
	{ echo "the trace shows $traced splits of k for $launched split launches"; exit 1; } ;;
0) [ "$traced" -eq 0 ] || { echo "$traced trace records show a split of k, want none"; exit 1; } ;;
esac
