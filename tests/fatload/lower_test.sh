#!/usr/bin/env bash
# `bf16shim lower` on compiled code: a fatbin built for sm_80 (plain, LZ4, Zstd), a host
# executable, nvcc's default build, a cubin and a SASS-only fatbin.  What is lowered is
# written per module and assembles with ptxas for the target; kernels that cannot be lowered
# are named with the instruction and left out; what needs nothing, or has nothing to lower,
# says so.  Usage: lower_test.sh FATBIN_PLAIN FATBIN_LZ4 FATBIN_ZSTD PROGRAM DEFAULT_FATBIN
#                  CUBIN SASS_FATBIN   (BF16SHIM_LIB: the library whose bf16shim-lower runs)
set -u
plain=$1 lz4=$2 zstd=$3 program=$4 default=$5 cubin=$6 sass=$7
bf16shim=$(dirname "$0")/../../scripts/bf16shim
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# lower EXPECTED_STATUS ARGS...: output in $tmp/out
lower() {
	local want=$1
	shift
	"$bf16shim" lower "$@" >"$tmp/out" 2>&1
	local got=$?
	cat "$tmp/out"
	[ "$got" = "$want" ] || fail "bf16shim lower $*: exit $got, want $want"
}

for f in "$plain" "$lz4" "$zstd"; do
	rm -rf "$tmp/o"
	lower 1 "$f" --target sm_75 -o "$tmp/o"
	ptx=$tmp/o/$(basename "$f").1.sm_75.ptx
	[ -f "$ptx" ] || { fail "$f: no $ptx"; continue; }
	grep -q "^\.target sm_75" "$ptx" || fail "$f: the lowered PTX does not target sm_75"
	grep -q "\.entry scale_bf16" "$ptx" || fail "$f: scale_bf16 missing from the lowered PTX"
	! grep -q "warp_total" "$ptx" || fail "$f: warp_total is still in the lowered PTX"
	grep -q "kernel warp_total cannot be lowered: line [0-9]*: 'cvt.rna.tf32.f32' needs sm_80" \
		"$tmp/out" || fail "$f: warp_total not named with its instruction"
	if [ -x "$ptxas" ]; then
		"$ptxas" --gpu-name sm_75 "$ptx" -o "$tmp/o/out.cubin" ||
			fail "$f: ptxas refuses the lowered PTX"
	fi
done

# A host executable: its module found in .nv_fatbin; source names from the C++ runtime.
rm -rf "$tmp/o"
lower 1 "$program" --target sm_70 -o "$tmp/o"
grep -q "kernel _Z10warp_totalPKjPj (warp_total(unsigned int const\*, unsigned int\*)) cannot be lowered" \
	"$tmp/out" || fail "$program: warp_total not named, mangled and demangled"
# tanh.approx.f32 (sm_75) has a lowering of its own below sm_75: fast_tanh stays in.
grep -q "fast_tanh" "$tmp/out" && fail "$program: fast_tanh reported for sm_70"
grep -q "\.entry _Z9fast_tanh" "$tmp/o"/*.ptx || fail "$program: fast_tanh missing for sm_70"
[ "$(ls "$tmp/o" | wc -l)" = 1 ] || fail "$program: $(ls "$tmp/o" | wc -l) files written, want 1"
lower 1 "$program" --target sm_75
grep -q "fast_tanh" "$tmp/out" && fail "$program: fast_tanh reported for sm_75, which has tanh.approx"

# Nothing to lower.
lower 0 "$default" --target sm_75 -v
grep -q "runs on sm_75 as it is (sm_75" "$tmp/out" || fail "SASS sm_75: not said to run as it is"
lower 0 "$cubin" --target sm_75
grep -q "a cubin: SASS sm_75 only, no PTX to lower; it runs as it is" "$tmp/out" || fail "cubin on sm_75"
lower 1 "$cubin" --target sm_70
lower 1 "$sass" --target sm_70
grep -q "no PTX for a newer GPU to lower" "$tmp/out" || fail "SASS only: not said"
lower 0 "$default" --target sm_61 -o "$tmp/o61"
grep -q "PTX compute_75 lowered for sm_61" "$tmp/out" || fail "compute_75 for sm_61"
[ "$failures" = 0 ]
