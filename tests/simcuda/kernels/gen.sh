#!/bin/sh
# Regenerates the PTX test data from the .cu sources.
#   gen.sh [NVCC [OUTDIR]]     (default: nvcc on PATH, this folder)
# The list here is the list check_regen.sh compares.
set -e
NVCC=${1:-nvcc}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${2:-$SRC}
for k in elementwise rmsnorm bf16 softmax divergent calls mma wmma async; do
	"$NVCC" -ptx -arch=compute_80 "$SRC/$k.cu" -o "$OUT/$k.ptx"
done
# The shapes of sm_70 and sm_75 (nvcc 13 has no compute_70: the tests retarget mma70.ptx).
for k in mma70 mma75 wmma70; do
	"$NVCC" -ptx -arch=compute_75 "$SRC/$k.cu" -o "$OUT/$k.ptx"
done
