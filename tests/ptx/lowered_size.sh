#!/bin/sh
# The size of lowered PTX against the original's: what the driver has to compile at a
# program's start.  Each PTX file given is lowered for sm_75, sm_70 and sm_61; the lowered
# text may be at most LIMIT (default 3) times the original's bytes.  The files: the
# compute_80 PTX of CUTLASS's Sm80 GEMMs, its cute HGEMM and its sparse GEMMs
# (tests/simcuda/cutlass/build.sh), tensor-core modules as CUTLASS-based extensions ship them.
#   usage: lowered_size.sh BF16SHIM_LOWER FILE.ptx...   (LIMIT: the ratio allowed)
set -u
lower=$1
shift
limit=${LIMIT:-3}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
[ $# -gt 0 ] || { echo "FAIL: no PTX files"; exit 1; }
for f in "$@"; do
	in=$(wc -c < "$f")
	for target in 75 70 61; do
		if ! "$lower" "$f" -o "$t/low.ptx" --target "sm_$target" > "$t/log" 2>&1; then
			echo "FAIL: $(basename "$f") not lowered for sm_$target:"; head -5 "$t/log"; fail=1
			continue
		fi
		out=$(wc -c < "$t/low.ptx")
		ratio=$(awk -v a="$out" -v b="$in" 'BEGIN { printf "%.2f", a / b }')
		echo "$(basename "$f") sm_$target: $in bytes -> $out ($ratio x)"
		awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r > l) }' &&
			{ echo "FAIL: $(basename "$f") lowered for sm_$target is ${ratio}x the original (at most ${limit}x)"; fail=1; }
	done
done
exit $fail
