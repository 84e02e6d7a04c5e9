#!/bin/bash
# PTX text for sm_80 with no bf16 (ampere_text.cu) through the tools that ask the library's
# decision: the ptxas wrapper lowers it for sm_75 (CUDA 13's ptxas), sm_70 and sm_61 (the
# CUDA 12 ptxas Triton bundles), which refuse it as it is; `bf16shim lower --leave-out`
# lowers it as the library does, naming the kernel it leaves out; `bf16shim scan` says
# bf16shim runs it, and with --deep that it runs partly, naming that kernel.
#   usage: text_tools_test.sh SOURCE_ROOT BF16SHIM_LOWER BF16SHIM_SCAN TEXT.ptx WHOLE.ptx
set -u
root=$1 lower=$2 scan=$3 text=$4 whole=$5
wrapper=$root/scripts/bf16shim-ptxas
new=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
old=${BF16SHIM_PTXAS_OLD:-$(ls "$root"/.venv-clients/torch-cu126/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas 2>/dev/null | head -n 1)}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
check() { # description, expected status, command...
	local what=$1 want=$2; shift 2
	"$@" >"$t/out" 2>&1; local got=$?
	if [ "$got" != "$want" ]; then echo "FAIL $what: status $got, want $want"; head -5 "$t/out"; fail=1
	else echo "ok   $what"; fi
}
export BF16SHIM_LOWER=$lower

for sm in 75 70 61; do
	p=$new
	[ "$sm" -ge 75 ] || p=$old
	if [ -z "$p" ] || [ ! -x "$p" ]; then
		echo "no ptxas for sm_$sm: skipped"
		continue
	fi
	check "ptxas refuses the text for sm_$sm" 255 "$p" --gpu-name "sm_$sm" "$whole" -o "$t/a.cubin"
	check "bf16shim-ptxas assembles it for sm_$sm" 0 env BF16SHIM_PTXAS="$p" \
		"$wrapper" --gpu-name "sm_$sm" "$whole" -o "$t/b.cubin"
	[ -s "$t/b.cubin" ] || { echo "FAIL: no cubin for sm_$sm"; fail=1; }
	# The wrapper asks the decision: for sm_80 the text needs nothing, and the real
	# ptxas gets it untouched.
	check "the decision: nothing to lower for sm_80" 1 "$lower" --needed "$whole" --target sm_80
	check "the decision: lower for sm_$sm" 0 "$lower" --needed "$whole" --target "sm_$sm"
done

check "bf16shim lower --leave-out names the left-out kernel" 1 \
	"$lower" "$text" --leave-out --target sm_75 -o "$t/low.ptx"
grep -q "kernel tf32_round cannot be lowered: .*cvt.rna.tf32.f32" "$t/out" ||
	{ echo "FAIL: tf32_round not named"; cat "$t/out"; fail=1; }
grep -q "entry mma_f16" "$t/low.ptx" && ! grep -q "entry tf32_round" "$t/low.ptx" ||
	{ echo "FAIL: the lowered text should hold mma_f16 and not tf32_round"; fail=1; }

cp "$text" "$t/ampere_text.ptx"
cp "$whole" "$t/whole.ptx"
check "scan: bf16shim runs the text below sm_80" 0 "$scan" --arch sm_75,sm_70,sm_61 "$t/whole.ptx"
grep -q "bf16shim" "$t/out" || { echo "FAIL: scan's verdict:"; cat "$t/out"; fail=1; }
check "scan --deep: the whole text lowers" 0 "$scan" --deep --arch sm_75,sm_70,sm_61 "$t/whole.ptx"
# The other runs without the kernel lowering leaves out, as a library whose other kernels
# run: partly, which does not fail the scan, with that kernel named.
check "scan --deep: a kernel of the other cannot" 0 "$scan" --deep --arch sm_75 "$t/ampere_text.ptx"
grep -q "partly .*1 of 3 kernels cannot run" "$t/out" && grep -q "kernel tf32_round" "$t/out" ||
	{ echo "FAIL: scan --deep does not say the text runs partly, without tf32_round:"; cat "$t/out"; fail=1; }
exit $fail
