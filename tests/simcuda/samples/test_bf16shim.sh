#!/usr/bin/env bash
# Tests of the `bf16shim` command: dispatch, `version`, and `sim` (library path, architecture
# and exit status passed through; a real-library sample program reaches the simulator).
# Usage: test_bf16shim.sh BF16SHIM SAMPLE_GEMM SIMDIR VERSION SAMPLE_GEMM_WITH_RPATH
set -u
shim=$1 sample=$2 simdir=$3 version=$4 rpath_sample=$5
failures=0

fail() {
	echo "FAILED: $*" >&2
	failures=$((failures + 1))
}

# expect_status WANT DESCRIPTION CMD...: runs CMD, output in $out.
expect_status() {
	local want=$1 what=$2 got
	shift 2
	out=$("$@" 2>&1)
	got=$?
	printf '%s -> %s\n' "$what" "$got"
	[ "$got" = "$want" ] || fail "$what: exit status $got, want $want; output:"$'\n'"$out"
}

expect_output() {
	local what=$1 pattern=$2
	grep -qE -- "$pattern" <<<"$out" || fail "$what: output lacks /$pattern/:"$'\n'"$out"
}

export BF16SHIM_SIMDIR=$simdir
# meson test adds the simulator's folders itself; the sample must reach it through `sim`.
unset LD_LIBRARY_PATH

expect_status 0 "help" "$shim" help
expect_output "help" "bf16shim sim sm_61 -- "
expect_status 2 "unknown subcommand" "$shim" no-such-command
expect_status 2 "sim without a command" "$shim" sim sm_75
expect_status 2 "sim with a malformed arch" "$shim" sim pascal -- true
expect_status 0 "version" "$shim" version
expect_output "version" "^bf16shim $version\$"

expect_status 7 "exit status passed through" "$shim" sim sm_61 -- sh -c 'exit 7'
expect_status 0 "arch and library path visible to the child" \
	"$shim" sim sm_75 -- sh -c 'printf "%s|%s\n" "$SIMCUDA_ARCH" "$LD_LIBRARY_PATH"'
expect_output "arch" "^sm_75\|"
expect_output "library path" "\|$simdir(:|\$)"
LD_LIBRARY_PATH=/keep/me expect_status 0 "existing LD_LIBRARY_PATH kept after the simulator" \
	"$shim" sim sm_75 -- sh -c 'printf "%s\n" "$LD_LIBRARY_PATH"'
expect_output "library path order" "^$simdir:/keep/me\$"
expect_status 127 "missing program" "$shim" sim sm_75 -- /no/such/program
# The simulator is preloaded too, after what was preloaded already.
LD_PRELOAD=/keep/preload.so expect_status 0 "preloads" \
	"$shim" sim sm_75 -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
expect_output "preloads" "^/keep/preload.so:$simdir/libcuda.so.1:$simdir/libcudart.so.13:$simdir/libcublasLt.so.13:$simdir/libcublas.so.13\$"

# A program linked against the real CUDA libraries runs on the simulated device.
expect_status 0 "sample on sm_61" "$shim" sim sm_61 -- "$sample" --expect-sm 61 gemm_ex_bf16
expect_output "sample on sm_61" "sm_61"
expect_output "sample on sm_61" "gemm_ex_bf16 .*CUBLAS_STATUS_NOT_SUPPORTED \(expected"
expect_status 0 "sample on sm_90" "$shim" sim sm_90 -- "$sample" --expect-sm 90 gemm_ex_bf16
expect_output "sample on sm_90" "gemm_ex_bf16 .*CUBLAS_STATUS_SUCCESS \(expected"
# A DT_RPATH to the real libraries (PyTorch's wheels have one) does not take the program off
# the simulator.
if readelf -d "$rpath_sample" 2>/dev/null | grep -q "(RPATH)"; then
	expect_status 0 "sample with an rpath on sm_61" \
		"$shim" sim sm_61 -- "$rpath_sample" --expect-sm 61 gemm_ex_bf16
	expect_output "sample with an rpath on sm_61" "gemm_ex_bf16 .*CUBLAS_STATUS_NOT_SUPPORTED \(expected"
else
	echo "sample with an rpath: not checked (no real CUDA libraries to point it at)"
fi
# The wrong expectation must fail, or the two checks above prove nothing.
expect_status 1 "sample with a wrong arch expectation" \
	"$shim" sim sm_75 -- "$sample" --expect-sm 61 gemm_ex_f32

# Without BF16SHIM_SIMDIR, a source build under the repository root is found.
unset BF16SHIM_SIMDIR
root=$(cd "$(dirname "$shim")/.." && pwd)
found=
for d in "$root"/build*/tests/simcuda/v13; do
	[ -e "$d/libcublas.so.13" ] && found=1
done
if [ -n "$found" ]; then
	expect_status 0 "source-build search" \
		"$shim" sim sm_70 -- sh -c 'printf "%s\n" "${LD_LIBRARY_PATH%%:*}"'
	expect_output "source-build search" "^$root/build[^/]*/tests/simcuda/v13\$"
else
	expect_status 2 "source-build search without a build" "$shim" sim sm_70 -- true
	expect_output "source-build search without a build" "BF16SHIM_SIMDIR"
fi
BF16SHIM_SIMDIR=/nonexistent expect_status 2 "BF16SHIM_SIMDIR without a stack" \
	"$shim" sim sm_70 -- true

echo "test_bf16shim: $failures failed"
[ "$failures" = 0 ]
