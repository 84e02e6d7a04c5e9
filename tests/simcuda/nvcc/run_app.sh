#!/usr/bin/env bash
# Runs an nvcc-built program on the simulated stack with `bf16shim sim` (or, with the shim,
# `bf16shim run --sim`) and checks what it must print besides its own checks: the simulator's
# one line naming a kernel whose SASS it cannot run, and the shim's rewrite of the bf16 GEMMs.
# Usage: run_app.sh sim|shim CUDA_MAJOR ARCH PROGRAM --kernels K --gemm G
#        (BF16SHIM_SIMDIR and, for shim, BF16SHIM_LIB name the simulator and the library)
set -u
mode=$1 cuda=$2 arch=$3 app=$4
shift 4
kernels=$2
bf16shim=$(dirname "$0")/../../../scripts/bf16shim
out=$(mktemp)
trap 'rm -f "$out"' EXIT

unset LD_LIBRARY_PATH # the command must find the simulator itself
if [ "$mode" = sim ]; then
	"$bf16shim" sim --cuda "$cuda" "$arch" -- "$app" "$@" >"$out" 2>&1
else
	BF16SHIM_LOG=info "$bf16shim" run --sim "$arch" --cuda "$cuda" -- "$app" "$@" >"$out" 2>&1
fi
status=$?
cat "$out"
[ "$status" = 0 ] || { echo "FAILED: $app exited with $status"; exit 1; }
if [ "$kernels" = noimage ]; then
	# The error users really see, as the program prints it.
	grep -q "no kernel image is available for execution on the device" "$out" ||
		{ echo "FAILED: the program did not print the no-kernel-image error"; exit 1; }
fi
if [ "$kernels" = sass ]; then
	# Once per kernel, naming it, and saying how to rebuild.
	for k in _Z8sum_bf16PK13__nv_bfloat16iPf _Z10round_bf16iPKfP13__nv_bfloat16; do
		n=$(grep -c "simcuda: kernel $k[: ].*SASS" "$out")
		[ "$n" = 1 ] || { echo "FAILED: kernel $k named $n times, want once"; exit 1; }
		# With its source name: the program is C++, so it has the demangler.
		grep -q "simcuda: kernel $k (.*(" "$out" ||
			{ echo "FAILED: kernel $k not named as the source does"; exit 1; }
	done
	grep -q "compute_75" "$out" || { echo "FAILED: no advice to build PTX"; exit 1; }
fi
if [ "$mode" = shim ] && [ "${arch#sm_}" -lt 80 ]; then
	grep -q "bf16shim" "$out" || { echo "FAILED: the shim said nothing below sm_80"; exit 1; }
fi
exit 0
