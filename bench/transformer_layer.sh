#!/bin/bash
# A transformer decoder layer's GEMMs through PyTorch on a simulated T4, without and with
# bf16shim (bench/transformer_layer.py): device bytes and launches of each GEMM, and of the
# layer, as the simulator counts them: bytes, every global access; dram, what device memory
# sees behind the L2 model (a GEMM the simulator computes itself counts its compulsory bytes).
# Usage: transformer_layer.sh BUILD_DIR PYTHON [SEQ D] [--check]
#   PYTHON: a Python with torch for CUDA 13 (tests/clients/install.sh's torch-cu13).
#   --check: the layer within 4.0x the bytes without bf16shim, on the fused path within 1.5x
#   its DRAM bytes, at most 4 launches a GEMM (its kernels and the GEMM itself), and no GEMM
#   above bench/transformer_baseline.csv in either.  Twice with bf16shim: the planner's
#   choice (path auto) and every GEMM forced onto the fused path (fused).
set -eu
build=$1 python=$2 seq=${3:-256} d=${4:-512} check=${5:-}
case ${3:-} in --check) check=--check seq=256 d=512 ;; esac
here=$(dirname "$(realpath "$0")")
root=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$python" ] || { echo "no $python (tests/clients/install.sh installs it)"; exit 1; }
export BF16SHIM_LIB=$(realpath "$build/src/libbf16shim.so")
export BF16SHIM_SIMDIR=$(realpath "$build/tests/simcuda/v13")

"$root/scripts/bf16shim" sim --cuda 13 sm_75 -- "$python" "$here/transformer_layer.py" \
	"$seq" "$d" > "$work/native" 2> "$work/native.err" ||
	{ cat "$work/native.err"; echo "FAIL: the layer without bf16shim"; exit 1; }
# With bf16shim: the planner's choice (auto), and every GEMM on the fused path (fused).
for path in auto fused; do
	BF16SHIM_PATH=$path "$root/scripts/bf16shim" run --sim sm_75 --cuda 13 -- "$python" \
		"$here/transformer_layer.py" "$seq" "$d" > "$work/$path" 2> "$work/$path.err" ||
		{ cat "$work/$path.err"; echo "FAIL: the layer with bf16shim ($path)"; exit 1; }
done

out=$build/transformer_layer.csv
echo "seq,d,path,gemm,m,n,k,batch,native_bytes,bytes,x_native,launches,gemms,native_dram,dram,x_dram" > "$out"
for path in auto fused; do
	paste -d, "$work/native" "$work/$path" | awk -F, -v seq="$seq" -v d="$d" -v path="$path" '
	  { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.2f,%s,%s,%s,%s,%.2f\n", seq, d, path, $1, $2, $3,
	      $4, $5, $6, $15, $15 / $6, $16, $17, $9, $18, $18 / $9 }' >> "$out"
done
column -t -s, "$out"
[ "$check" = --check ] || exit 0

awk -F, '
  NR == FNR { if (FNR > 1) { k = $1 "," $2 "," $3 "," $4; base[k] = $10; bdram[k] = $15 }; next }
  FNR == 1 { next }
  {
    key = $1 "," $2 "," $3 "," $4
    if ((key in base) && $10 > base[key]) { printf "%s: %d bytes; baseline %d\n", key, $10, base[key]; bad++ }
    if ((key in bdram) && $15 > bdram[key]) { printf "%s: %d DRAM bytes; baseline %d\n", key, $15, bdram[key]; bad++ }
    if ($4 == "layer") {
      if ($11 > 4.0) { printf "%s: %.2fx the bytes without bf16shim (at most 4.0x)\n", key, $11; bad++ }
      if ($3 == "fused" && $16 > 1.5) { printf "%s: %.2fx the DRAM bytes without bf16shim (at most 1.5x)\n", key, $16; bad++ }
    } else if ($12 + $13 > 4) { printf "%s: %d launches (at most 4)\n", key, $12 + $13; bad++ }
  }
  END { exit bad ? 1 : 0 }' "$here/transformer_baseline.csv" "$out"
echo "transformer layer: within the baseline and the budget"
