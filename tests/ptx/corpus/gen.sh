#!/bin/sh
# Regenerates the corpus PTX: the nvcc kernels (compute_80, convert90 compute_90) and
# allops.ptx (gen_allops.py).   gen.sh [NVCC [OUTDIR]]
# The list here is the list tests/simcuda/kernels/check_regen.sh compares.
set -e
NVCC=${1:-nvcc}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${2:-$SRC}
for k in rmsnorm:80 softmax:80 layernorm:80 axpy:80 gelu:80 convert90:90; do
	"$NVCC" -ptx -arch=compute_${k#*:} "$SRC/${k%:*}.cu" -o "$OUT/${k%:*}.ptx"
done
python3 "$SRC/gen_allops.py" > "$OUT/allops.ptx"
