#!/bin/sh
# Regenerates the PTX test data from the .cu sources.
#   gen.sh [NVCC [OUTDIR]]     (default: nvcc on PATH, this folder)
# The list here is the list check_regen.sh compares.
set -e
NVCC=${1:-nvcc}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${2:-$SRC}
for k in elementwise rmsnorm bf16 softmax divergent calls; do
	"$NVCC" -ptx -arch=compute_80 "$SRC/$k.cu" -o "$OUT/$k.ptx"
done
