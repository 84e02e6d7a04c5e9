#!/bin/sh
# For one corpus file: ptxas --gpu-name sm_75 refuses the original (retargeted to sm_75,
# as Triton writes it for a T4) with ptxas's own message, and accepts the lowered file.
#   usage: ptxas_corpus.sh BF16SHIM_LOWER FILE.ptx
# Skips (77) when ptxas is not installed.
LOWER=$1
FILE=$2
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ ! -x "$PTXAS" ]; then
	echo "ptxas not found: skipped"
	exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed 's/^\.target sm_[0-9a-z]*/.target sm_75/' "$FILE" > "$TMP/orig75.ptx"
if "$PTXAS" --gpu-name sm_75 "$TMP/orig75.ptx" -o "$TMP/o.cubin" 2> "$TMP/err"; then
	echo "FAIL: ptxas accepted the original for sm_75"
	exit 1
fi
if ! grep -q "requires .target sm_[89]0 or higher" "$TMP/err"; then
	echo "FAIL: ptxas refused the original without the bf16 message:"
	head -5 "$TMP/err"
	exit 1
fi
echo "original: $(grep -m1 'requires .target' "$TMP/err")"
"$LOWER" "$FILE" -o "$TMP/low.ptx" --target sm_75 -v || { echo "FAIL: lowering failed"; exit 1; }
grep -q '^\.target sm_75' "$TMP/low.ptx" || { echo "FAIL: .target not lowered"; exit 1; }
if ! "$PTXAS" --gpu-name sm_75 "$TMP/low.ptx" -o "$TMP/l.cubin" 2> "$TMP/err"; then
	echo "FAIL: ptxas refused the lowered file for sm_75:"
	head -10 "$TMP/err"
	exit 1
fi
echo "lowered: ptxas --gpu-name sm_75 accepts it"
