#!/bin/sh
# The kernels of the Ampere lowering checks (ptx_lower_sm80), through the real ptxas: each
# original for its own target, each lowered text for sm_75 with this ptxas (CUDA 13) and
# for sm_70 and sm_61 with one that still has them (CUDA 12's, as Triton bundles it:
# BF16SHIM_PTXAS_OLD, else .venv-clients/torch-cu126's).  The older ptxas knows PTX ISA
# 8.4 at most: the lowered texts must declare a .version it knows (the pass declares the
# lowest that holds what they use); it is skipped when there is no such ptxas.
#   usage: ptxas_sm80.sh PTX_LOWER_SM80 BF16SHIM_LOWER SOURCE_ROOT
# Skips (77) without ptxas.
set -u
tests=$1 lower=$2 root=$3
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$ptxas" ] || { echo "ptxas not found: skipped"; exit 77; }
old=${BF16SHIM_PTXAS_OLD:-$(ls "$root"/.venv-clients/torch-cu126/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas 2>/dev/null | head -n 1)}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
for name in mma mma_sp wmma ldmatrix cp_async mbarrier redux atom hint cvt float tanh misc memory stmatrix mma_types; do
	SIM80_DUMP_DIR=$t "$tests" "$name" >/dev/null 2>&1
done
fail=0 n=0
oldver=
if [ -n "$old" ] && [ -x "$old" ]; then
	oldver=$("$old" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	echo "sm_70, sm_61: $old ($(echo "$oldver" | tr ' ' .))"
else
	echo "no CUDA 12 ptxas: sm_70 and sm_61 not assembled (set BF16SHIM_PTXAS_OLD)"
fi
for f in "$t"/k*.ptx; do
	[ -e "$f" ] || { echo "FAIL: no kernels were dumped"; exit 1; }
	n=$((n + 1))
	sm=$(sed -n 's/^\.target sm_\([0-9]*\).*/\1/p' "$f")
	if ! "$ptxas" --gpu-name "sm_$sm" "$f" -o "$t/o.cubin" 2>"$t/err"; then
		echo "FAIL: the original $(basename "$f") for sm_$sm:"; head -5 "$t/err"; fail=1
	fi
	for target in 75 70 61; do
		"$lower" "$f" -o "$t/low.ptx" --target "sm_$target" 2>"$t/err" ||
			{ echo "FAIL: lowering $(basename "$f") for sm_$target:"; head -5 "$t/err"; fail=1; continue; }
		p=$ptxas
		if [ "$target" -lt 75 ]; then
			[ -n "$oldver" ] || continue
			p=$old
		fi
		if ! "$p" --gpu-name "sm_$target" "$t/low.ptx" -o "$t/o.cubin" 2>"$t/err"; then
			echo "FAIL: $(basename "$f") lowered for sm_$target:"; head -5 "$t/err"; fail=1
		fi
	done
done
echo "$n kernels: originals and their lowered texts assembled"
exit $fail
