#!/bin/bash
# bf16shim-ptxas, the drop-in ptxas: below sm_80 it lowers bf16 PTX that the real ptxas
# refuses; at sm_80 and above, and for PTX without bf16, it is the real ptxas untouched
# (same exit status, same output); both spellings of the target are understood; without
# BF16SHIM_LOWER it lowers through the command's `lower`.
# Usage: ptxas_wrapper_test.sh WRAPPER LOWER PTX COMMAND
set -u
wrapper=$1 lower=$2 ptx=$3 command=$4
real=${BF16SHIM_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
[ -x "$real" ] || { echo "no ptxas here"; exit 77; }
export BF16SHIM_LOWER=$lower BF16SHIM_PTXAS=$real
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# As Triton writes it for a Turing card: .target sm_75, bf16 instructions inside.
orig=$ptx
sed 's/^\.target sm_[0-9]*/.target sm_75/' "$ptx" > "$t/in.ptx"
ptx=$t/in.ptx
fail=0
check() { # description, expected status, command...
	local what=$1 want=$2; shift 2
	"$@" >"$t/out" 2>&1; local got=$?
	if [ "$got" != "$want" ]; then echo "FAIL $what: status $got, want $want"; cat "$t/out"; fail=1
	else echo "ok   $what"; fi
}
check "real ptxas refuses bf16 for sm_75" 255 "$real" --gpu-name sm_75 "$ptx" -o "$t/real.cubin"
grep -q "requires .target sm_80" "$t/out" || { echo "FAIL: not the expected ptxas message"; fail=1; }
check "wrapper, --gpu-name sm_75" 0 "$wrapper" --gpu-name sm_75 "$ptx" -o "$t/a.cubin"
check "wrapper, --gpu-name=sm_75" 0 "$wrapper" --gpu-name=sm_75 "$ptx" -o "$t/b.cubin"
check "wrapper, -arch sm_75" 0 "$wrapper" -arch sm_75 "$ptx" -o "$t/c.cubin"
[ -s "$t/a.cubin" ] && cmp -s "$t/a.cubin" "$t/b.cubin" && cmp -s "$t/a.cubin" "$t/c.cubin" ||
	{ echo "FAIL: the three spellings gave different cubins"; fail=1; }
# The same through the bf16shim command's subcommands.
check "bf16shim ptxas" 0 "$command" ptxas --gpu-name sm_75 "$ptx" -o "$t/d.cubin"
cmp -s "$t/a.cubin" "$t/d.cubin" || { echo "FAIL: bf16shim ptxas gave another cubin"; fail=1; }
# Without BF16SHIM_LOWER the wrapper lowers through the command beside it, which finds the
# helper by its one rule (here beside BF16SHIM_LIB: this build's).
check "wrapper without BF16SHIM_LOWER: the command's lower" 0 env -u BF16SHIM_LOWER \
	BF16SHIM_LIB="$(dirname "$lower")/../src/libbf16shim.so" "$wrapper" --gpu-name sm_75 "$ptx" \
	-o "$t/f.cubin"
cmp -s "$t/a.cubin" "$t/f.cubin" || { echo "FAIL: lowered through the command: another cubin"; fail=1; }
check "bf16shim lower" 0 "$command" lower "$ptx" -o "$t/low.ptx" --target sm_75
check "real ptxas takes the lowered file" 0 "$real" --gpu-name sm_75 "$t/low.ptx" -o "$t/e.cubin"
grep -q 'bf16' "$t/low.ptx" && grep -qE '^[[:space:]]*cvt[.a-z]*\.bf16' "$t/low.ptx" &&
	{ echo "FAIL: bf16 conversions left in the lowered file"; fail=1; }
# sm_80 and above: the real ptxas on the original input, byte for byte the same result.
check "real, sm_90" 0 "$real" --gpu-name sm_90 "$orig" -o "$t/r90.cubin"
check "wrapper, sm_90" 0 "$wrapper" --gpu-name sm_90 "$orig" -o "$t/w90.cubin"
cmp -s "$t/r90.cubin" "$t/w90.cubin" || { echo "FAIL: sm_90 output differs"; fail=1; }
# A broken PTX: the real ptxas's status and message come back.
printf '.version 7.0\n.target sm_75\n.address_size 64\nthis is not ptx;\n' > "$t/bad.ptx"
check "broken input: real status passes through" 255 "$wrapper" --gpu-name sm_75 "$t/bad.ptx" -o "$t/x.cubin"
grep -q "syntax error" "$t/out" || { echo "FAIL: ptxas's own message lost"; cat "$t/out"; fail=1; }
exit $fail
