#!/usr/bin/env bash
# CUTLASS's GEMMs on the simulated tensor cores (cutlass_gemm.cu, cute_gemm.cu,
# cutlass_sparse.cu): builds them once per content (build.sh, cached), then runs the
# compute_75 build on sm_75 and sm_80 and the compute_80 builds on sm_80, also with copies
# completing only at their wait; then the compute_80 GEMMs below sm_80, where without
# bf16shim nothing runs and through it (their PTX lowered on its way into the driver:
# cp.async, ldmatrix, mma, mma.sp) every GEMM passes.
# Usage: run.sh NVCC BF16SHIM_CMD   (BF16SHIM_SIMDIR names the simulated stack,
# BF16SHIM_LIB the library)
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
run sm_80 cutlass_sparse

cache_base=$(mktemp -d)
BF16SHIM_CACHE_DIR=$cache_base
export BF16SHIM_CACHE_DIR
trap 'rm -rf "$cache_base"' EXIT
with_shim() {
	local arch=$1 prog=$2
	echo "== $prog on $arch without bf16shim (must fail)"
	"$bf16shim" sim --cuda 13 "$arch" -- "$dir/$prog" && { echo "FAIL: it ran"; status=1; }
	echo "== $prog on $arch with bf16shim"
	"$bf16shim" run --sim "$arch" -- "$dir/$prog" || status=1
}
for arch in sm_75 sm_70 sm_61; do
	with_shim "$arch" cutlass_gemm_sm80
	with_shim "$arch" cutlass_sparse
done
# The cute HGEMM asks for 96 KiB of shared memory per block: of these, only sm_70 has it.
with_shim sm_70 cute_gemm

# Twice more on sm_75 with an empty cache: the first run lowers, the second takes every
# module from the cache (the debug log says "lowering module" per lowering, "from the
# cache" per hit) and gives the same output.
BF16SHIM_CACHE_DIR=$cache_base/again
for n in 1 2; do
	"$bf16shim" run --sim sm_75 --log debug --log-file "$BF16SHIM_CACHE_DIR.log$n" -- \
		"$dir/cutlass_gemm_sm80" > "$BF16SHIM_CACHE_DIR.out$n" || status=1
done
low1=$(grep -c "lowering module" "$BF16SHIM_CACHE_DIR.log1") hit1=$(grep -c "from the cache" "$BF16SHIM_CACHE_DIR.log1")
low2=$(grep -c "lowering module" "$BF16SHIM_CACHE_DIR.log2") hit2=$(grep -c "from the cache" "$BF16SHIM_CACHE_DIR.log2")
echo "== cutlass_gemm_sm80 on sm_75, twice: first run $low1 lowered, $hit1 from the cache;" \
	"second run $low2 lowered, $hit2 from the cache"
if [ "$low1" -lt 1 ] || [ "$low2" != 0 ] || [ "$hit2" != "$low1" ]; then
	echo "FAIL: the second run did not take every lowered module from the cache"
	status=1
fi
cmp -s "$BF16SHIM_CACHE_DIR.out1" "$BF16SHIM_CACHE_DIR.out2" ||
	{ echo "FAIL: the run from the cache printed something else"; status=1; }
exit $status
