#!/bin/bash
# Device traffic per bf16 GEMM for each path, on the simulator (deterministic: bytes and
# launches, not time), on realistic operands (bench/traffic.c: random normal, softmax rows of
# attention, GELU and SiLU outputs) and on zeros.  The shapes are the PyTorch nn.Linear form
# (A transposed); x_native is the bytes over what a native bf16 GEMM moves.
# Usage: traffic.sh BUILD_DIR [--check]   (--check: fail on a row above its committed baseline
#        or a path above its budget, below)
# TRAFFIC_JOBS: rows run at once (default 2).
set -eu
build=${1:-build} check=${2:-}
prog=$(realpath "$build/bench/traffic") shim=$(realpath "$build/src/libbf16shim.so")
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core")
here=$(dirname "$(realpath "$0")")
out=$build/traffic.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One row a line: path arch kind ctype m n k [VAR=VALUE...].  A path named fp16/capN runs
# under BF16SHIM_WORKSPACE_MB=N; "auto" is the planner's choice (BF16SHIM_PATH unset).
rows() {
  # The fused path (issue 28) on each kind of GPU: Turing's and Volta's tensor-core kernels
  # (T4, V100) and the CUDA cores' (GTX 1080, P100), at the issue's three shapes, C fp32
  # and bf16; then on softmax rows, GELU and SiLU outputs beside random operands of their
  # shapes; and what the planner chooses at 1024^3.  The big rows first: they take longest.
  for arch in sm_75 sm_70 sm_61 sm_60; do
    for shape in "512 4096 4096" "4096 4096 512" "1024 1024 1024"; do
      for ct in f32 bf16; do echo "fused $arch normal $ct $shape BF16SHIM_PATH=fused"; done
    done
  done
  for arch in sm_75 sm_70 sm_61; do
    for shape in "512 64 512" "256 256 256"; do
      for kind in normal softmax2 softmax4 softmax8 softmax16; do
        echo "fused $arch $kind f32 $shape BF16SHIM_PATH=fused"
      done
    done
    for kind in gelu3 gelu10 silu3 silu10; do
      echo "fused $arch $kind f32 256 256 256 BF16SHIM_PATH=fused"
    done
  done
  for arch in sm_75 sm_70 sm_61 sm_60; do echo "auto $arch normal f32 1024 1024 1024"; done
  # A few rows (token batches) on the tensor cores: too few blocks for the multiprocessors,
  # so k is split (cost.h, cost_fused_splits), forced and as the planner chooses.
  for arch in sm_75 sm_70; do
    echo "fused $arch normal bf16 32 4096 4096 BF16SHIM_PATH=fused"
    echo "auto $arch normal bf16 48 4096 4096"
  done
  for s in 128 256; do echo "native sm_90 normal f32 $s $s $s"; done
  for s in 256 1024 2048; do
    for ct in f32 bf16; do echo "fp32 sm_61 normal $ct $s $s $s BF16SHIM_PATH=fp32"; done
  done
  echo "fp32 sm_61 zeros f32 256 256 256 BF16SHIM_PATH=fp32"
  echo "fp32 sm_61 softmax4 f32 512 64 512 BF16SHIM_PATH=fp32"
  echo "fp16 sm_75 zeros f32 256 256 256 BF16SHIM_PATH=fp16"
  for s in 128 256 1024 2048; do echo "fp16 sm_75 normal f32 $s $s $s BF16SHIM_PATH=fp16"; done
  for s in 1024 2048; do echo "fp16 sm_75 normal bf16 $s $s $s BF16SHIM_PATH=fp16"; done
  # Attention's P V (op(A)'s rows softmax rows of logits with std 2 to 16) and an MLP's down
  # projection (op(B) GELU or SiLU outputs), beside random operands of the same shape.
  for shape in "512 64 512" "1024 64 1024" "256 256 256"; do
    for kind in softmax2 softmax4 softmax8 softmax16; do
      echo "fp16 sm_75 $kind f32 $shape BF16SHIM_PATH=fp16"
    done
    [ "$shape" = "256 256 256" ] || echo "fp16 sm_75 normal f32 $shape BF16SHIM_PATH=fp16"
  done
  for kind in gelu3 gelu10 silu3 silu10; do
    echo "fp16 sm_75 $kind f32 256 256 256 BF16SHIM_PATH=fp16"
  done
  for m in 1 8 16; do
    echo "native sm_90 normal f32 $m 512 512"
    echo "decode sm_75 normal f32 $m 512 512 BF16SHIM_PATH=decode"
  done
  # Token-by-token decoding on a T4 (40 SMs) and a V100 (80): k split where too few blocks.
  # BF16SHIM_PATH=decode: that path even where the cost model would leave the call native.
  for arch in sm_75 sm_70; do
    for m in 1 16; do echo "decode $arch normal f32 $m 4096 4096 BF16SHIM_PATH=decode"; done
  done
  # The converted operands and the result over the workspace cap (16 MiB; they need 20):
  # each operand converted once, the result in tiles (beside the same shapes uncapped).
  for shape in "2048 2048 256"; do
    echo "fp16 sm_75 normal f32 $shape BF16SHIM_PATH=fp16"
    echo "fp16/cap16 sm_75 normal f32 $shape BF16SHIM_PATH=fp16 BF16SHIM_WORKSPACE_MB=16"
    echo "fp32 sm_61 normal bf16 $shape BF16SHIM_PATH=fp32"
    echo "fp32/cap16 sm_61 normal bf16 $shape BF16SHIM_PATH=fp32 BF16SHIM_WORKSPACE_MB=16"
  done
}

# A row's CSV line; for the decode path also its kernel's blocks per multiprocessor (the
# call log's last launch with dynamic shared memory, over the part's SM count).
run_row() { # index path arch kind ctype m n k [VAR=VALUE...]
  local i=$1 path=$2 arch=$3 kind=$4 ct=$5 m=$6 n=$7 k=$8; shift 8
  local pre=() log=$work/$i.log bps=
  [ "$path" = native ] || pre=(LD_PRELOAD="$shim")
  line=$(env SIMCUDA_ARCH="$arch" SIMCUDA_MEM_MB=4096 SIMCUDA_LOG="$log" "${pre[@]}" "$@" \
    "$prog" "$m" "$n" "$k" "$kind" "$ct" 2>/dev/null) || echo "FAIL: $path $arch $kind $ct $m $n $k" >&2
  if [ "$path" = decode ]; then
    sms=$(SIMCUDA_ARCH="$arch" "$probe" 2>/dev/null)
    bps=$(awk -v sms="$sms" '/ cuLaunchKernel / && !/shmem=0 / { g = $0 }
      END { sub(/.*grid=/, "", g); split(g, d, /[ ,]/); printf "%.1f", d[1] * d[2] * d[3] / sms }' "$log")
  fi
  echo "$path,$arch,$line,$bps" > "$work/$i"
  rm -f "$log"
}
export -f run_row
probe=$(realpath "$build/bench/sm_count")
export prog shim work probe

rows | nl -nln -w1 -s' ' | xargs -P "${TRAFFIC_JOBS:-2}" -L1 bash -c 'run_row "$@"' _
{
  echo "path,arch,kind,ctype,m,n,k,bytes_read,bytes_written,kernel_launches,gemms,native_bytes,x_native,blocks_per_sm,dram_read,dram_written,warp_instructions,mma_instructions"
  for f in $(ls "$work" | grep -v log | sort -n); do
    awk -F, '{ bps = $17; split($13 "," $14 "," $15 "," $16, late, ","); NF = 12
      printf "%s,%.2f,%s,%s,%s,%s,%s\n", $0, ($8 + $9) / $12, bps, late[1], late[2], late[3], late[4] }' OFS=, "$work/$f"
  done
} > "$out"
column -t -s, "$out"
# The fused path's figures as the issue states its targets: device memory's bytes (through the
# L2 model) over a native GEMM's, launches and library GEMMs, warp instructions per mma
# (tensor cores) or per 32 multiply-adds (CUDA cores).  With the planner choosing (auto),
# the launch and GEMM targets hold only where it takes the fused path: elsewhere they are
# printed as open (the model keeps compute-bound shapes on cuBLAS while it rates the fused
# kernels at half of cuBLAS's rate: doc/facts.md).
echo
awk -F, 'NR > 1 && ($1 == "fused" || $1 == "auto") {
  per = $18 > 0 ? sprintf("%.2f a mma", $17 / $18) : sprintf("%.3f per 32 fma", $17 * 32 / ($5 * $6 * $7))
  printf "%-5s %-5s %-9s %-4s %4sx%4sx%4s  dram %.3fx native  %d launch(es), %d GEMM(s)  %s\n",
    $1, $2, $3, $4, $5, $6, $7, ($15 + $16) / $12, $10, $11,
    ($1 == "fused" ? per : $10 > 2 || $11 > 0 ? "open: the planner took a path through cuBLAS" : "") }' "$out"
[ "$check" = --check ] || exit 0

# Regressions: no row may move more bytes (every access, or device memory's) or launch more
# kernels than in the committed baseline (the counts are deterministic).  And the budgets:
#   decode: at most 1.1x the native bytes; at 1 and 16 x 4096 x 4096 at least 2 blocks a
#     multiprocessor, which for 16 columns takes a split k whose partial results and repeated
#     reads of op(B) cost 14 % (40 SMs) to 21 % (80 SMs): there, at most 1.25x;
#   fp16 on softmax rows, GELU and SiLU outputs: at most 2x its bytes on random operands of
#     the same shape (no cliff);
#   fp16 on random operands from 1024^3: at most 3.3x (C fp32), 4.0x (C bf16), and at most
#     3 launches besides the GEMM;
#   fp32 on random operands from 1024^3: at most 3.1x (C fp32), 5.3x (C bf16);
#   under the workspace cap (path/capN): at most 1.1x the bytes of the same GEMM uncapped;
#   fused (issue 28): one launch and no library GEMM (at most 2 and none; with k split, for
#     a few rows of 4096 x 4096 on the tensor cores, exactly 2, at most 1.25x); device memory's
#     bytes through the L2 model at most 1.25x a native GEMM's on random operands at
#     1024^3, 512 x 4096 x 4096 and 4096 x 4096 x 512 (C fp32 and bf16); on softmax rows,
#     GELU and SiLU outputs at most 1.1x the bytes of random operands of the same shape; at
#     1024^3, at most 6 warp instructions an mma on sm_75, 8 on sm_70 (doc/facts.md, "The
#     fused path's kernels"), 1.3 per 32 multiply-adds on the CUDA cores.  A byte target the
#     committed baseline already misses is printed as open and does not fail (its row cannot
#     grow): the GTX 1080 (sm_61), whose 2 MiB L2 holds less than the op(A) and op(B) panels
#     a wave of its 40 resident blocks walks, so they come from memory 1.5 to 3 times (the
#     least of rewrite/fused.c's model of the launch order), which C's bytes dilute.  Where
#     a wave's panels exceed the L2, the next wave (which starts again at k = 0) finds none
#     of them there, whatever the order, so each wave reads every panel it touches: a wave
#     of 40 blocks of 128 x 128 is at best r x c tiles with r + c panels and r c >= 40.
#     512 x 4096 x 4096 (4 rows of tiles, panels of 1 MiB): waves of 4 x 10, three and a
#     last of 4 x 2, 48 MiB of operands at least: 1.273x (C fp32), 1.300x (C bf16), which is
#     what the row measures.  1024^3 (8 x 8 tiles, panels of 256 KiB): 5 x 8 then 3 x 8, 24
#     panels, 6 MiB: 1.25x and 1.333x at least; measured 1.295x and 1.393x.  So with this
#     kernel's tiles the GTX 1080's C bf16 rows cannot reach 1.25x; 4096 x 4096 x 512
#     (panels of 128 KiB: a wave's fit the L2, and the next wave can reuse them) measures
#     1.236x and 1.425x (1.254x and 1.456x before odd groups took the columns backwards).
awk -F, '
  NR == FNR { if (FNR > 1) { key = $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7
                             base[key] = $8 + $9; bl[key] = $10; bd[key] = $15 + $16
                             bdx[key] = ($15 + $16) / $12 }; next }
  FNR == 1 { next }
  {
    key = $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7; total = $8 + $9; x = total / $12
    shape = $4 "," $5 "," $6 "," $7
    if ((key in base) && (total > base[key] || $10 > bl[key] || $15 + $16 > bd[key])) {
      printf "%s: %d bytes, %d launches, %d from device memory; baseline %d, %d, %d\n", key,
        total, $10, $15 + $16, base[key], bl[key], bd[key]; bad++
    }
    if ($1 == "decode") {
      big = $6 == 4096 && $7 == 4096; splitk = $10 > 1
      if (x > (big && splitk ? 1.25 : 1.1)) { printf "%s: %.2fx the native bytes\n", key, x; bad++ }
      if (big && $14 < 2) { printf "%s: %.1f blocks a multiprocessor (at least 2)\n", key, $14; bad++ }
    }
    if ($1 == "fp16" && $3 == "normal") random[shape] = total
    if ($1 ~ /^fp(16|32)$/) uncapped[$1 "," $2 "," shape] = total
    if ($1 ~ /\/cap/) { p = $1; sub(/\/cap.*/, "", p); capped[key] = total; ckey[key] = p "," $2 "," shape }
    if ($1 == "fp16" && $3 ~ /^(softmax|gelu|silu)/) { cliff[key] = total; cshape[key] = shape }
    # A few rows of 4096 x 4096 on the tensor cores, forced or as the planner chooses: the
    # fused path with k split (cost.h), its launch and the epilogue, no library GEMM,
    # device memory within 1.25x.
    if (($1 == "fused" || $1 == "auto") && $5 < 128 && $6 == 4096 && $7 == 4096) {
      dx = ($15 + $16) / $12
      if ($10 != 2 || $11 != 0 || dx > 1.25) {
        printf "%s: %d launches, %d GEMMs, %.3fx the native bytes (want the split fused path)\n", key, $10, $11, dx; bad++
      }
    }
    if ($1 == "fused") {
      dram = $15 + $16; dx = dram / $12
      if ($10 > 2 || $11 > 0) { printf "%s: %d launches, %d GEMMs (at most 2, none)\n", key, $10, $11; bad++ }
      big = shape ~ /,(1024,1024,1024|512,4096,4096|4096,4096,512)$/
      if (big && $3 == "normal" && dx > 1.25) {
        if ((key in bdx) && bdx[key] > 1.25)
          printf "open: %s: %.3fx the native bytes from device memory (target 1.25x)\n", key, dx
        else { printf "%s: %.3fx the native bytes from device memory\n", key, dx; bad++ }
      }
      if ($3 == "normal") frandom[$2 "," shape] = dram
      if ($3 ~ /^(softmax|gelu|silu)/) { fcliff[key] = dram; fshape[key] = $2 "," shape }
      if (shape ~ /,1024,1024,1024$/ && $3 == "normal") {
        per = $18 > 0 ? $17 / $18 : $17 * 32 / ($5 * $6 * $7)
        most = $18 > 0 ? ($2 == "sm_75" ? 6 : 8) : 1.3
        if (per > most) { printf "%s: %.2f warp instructions (at most %.1f)\n", key, per, most; bad++ }
      }
    }
    if ($5 >= 1024 && $5 == $6 && $6 == $7 && $3 == "normal") {
      limit = $1 == "fp16" ? ($4 == "f32" ? 3.3 : 4.0) : $1 == "fp32" ? ($4 == "f32" ? 3.1 : 5.3) : 0
      if (limit && x > limit) { printf "%s: %.2fx the native bytes (at most %.1fx)\n", key, x, limit; bad++ }
      if ($1 == "fp16" && $10 > 3) { printf "%s: %d launches besides the GEMM (at most 3)\n", key, $10; bad++ }
    }
  }
  END {
    for (key in capped) {
      u = uncapped[ckey[key]]
      if (!u) { printf "%s: no uncapped row\n", key; bad++ }
      else if (capped[key] > 1.1 * u) { printf "%s: %.2fx the bytes uncapped (at most 1.1x)\n", key, capped[key] / u; bad++ }
    }
    for (key in fcliff) {
      r = frandom[fshape[key]]
      if (!r) { printf "%s: no random row of that shape\n", key; bad++ }
      else if (fcliff[key] > 1.1 * r) { printf "%s: %.2fx the device memory bytes of random operands (at most 1.1x)\n", key, fcliff[key] / r; bad++ }
    }
    for (key in cliff) {
      r = random[cshape[key]]
      if (!r) { printf "%s: no random row of that shape\n", key; bad++ }
      else if (cliff[key] > 2 * r) { printf "%s: %.2fx the bytes of random operands (at most 2x)\n", key, cliff[key] / r; bad++ }
    }
    exit bad ? 1 : 0
  }' "$here/traffic_baseline.csv" "$out"
echo "traffic: within the baseline and the budgets"
