#!/usr/bin/env bash
# CUTLASS's GEMMs on the simulated tensor cores (cutlass_gemm.cu, cute_gemm.cu): builds them
# once per content (build.sh, cached), then runs the compute_75 build on sm_75 and sm_80 and
# the compute_80 builds on sm_80, also with copies completing only at their wait.
# Usage: run.sh NVCC BF16SHIM_CMD   (BF16SHIM_SIMDIR names the simulated stack)
set -u
nvcc=$1 bf16shim=$2
dir=$(sh "$(dirname "$0")/build.sh" "$nvcc") || { echo "FAIL: could not build"; exit 1; }
status=0
run() {
	local arch=$1 prog=$2
	shift 2
	echo "== $prog on $arch $*"
	env "$@" "$bf16shim" sim --cuda 13 "$arch" -- "$dir/$prog" || status=1
}
unset LD_LIBRARY_PATH
run sm_75 cutlass_gemm_sm75
run sm_80 cutlass_gemm_sm75
run sm_80 cutlass_gemm_sm80
run sm_80 cutlass_gemm_sm80 SIMCUDA_ASYNC_COPY=wait
run sm_80 cute_gemm
run sm_80 cute_gemm SIMCUDA_ASYNC_COPY=wait
exit $status
