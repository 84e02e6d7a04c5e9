#!/usr/bin/env bash
# PyTorch, unmodified, on a simulated pre-Ampere GPU, without and with bf16shim.
# Usage: run_torch.sh PYTHON CUDA_MAJOR ARCH NATIVE_ARCH
#   PYTHON       a Python with torch installed (tests/clients/install.sh)
#   CUDA_MAJOR   12 or 13: the simulated stack the wheel was built for
#   ARCH         the device to run on (sm_61, sm_70, sm_75)
#   NATIVE_ARCH  a device where this torch runs bf16 GEMMs without bf16shim, whose call log
#                is the reference for the trace check (ARCH itself when it is one)
# BF16SHIM_LIB and BF16SHIM_SIMDIR name the library and the simulated stack.
# Checks, failing (never skipping) when one does not hold:
#   1. without bf16shim: on sm_61 the program fails with PyTorch's own CUBLAS_STATUS_NOT_SUPPORTED
#      error (proof that the test is real); elsewhere it passes, natively
#   2. with `bf16shim run --sim`: every case within its bound, the GEMMs rewritten
#   3. the trace of that run, and `bf16shim report` of it, match the calls made
#   4. a PyTorch kernel (SASS only) fails with an error naming it, never a false success
set -u
python=$1 cuda=$2 arch=$3 native=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"

run() { capture "$@"; }

echo "== torch $("$python" -c 'import torch; print(torch.__version__)') on $arch (CUDA $cuda stack)"

# 1. Without the shim.  The native run's call log is the trace check's reference.
SIMCUDA_LOG=$work/native.log run native "$bf16shim" sim --cuda "$cuda" "$native" -- \
	"$python" "$program"
[ "$status" = 0 ] || fail "without bf16shim on $native (native bf16): exit status $status"
if [ "$arch" = sm_61 ]; then
	run plain "$bf16shim" sim --cuda "$cuda" "$arch" -- "$python" "$program"
	[ "$status" != 0 ] || fail "without bf16shim on sm_61 the program passed"
	grep -q "CUBLAS_STATUS_NOT_SUPPORTED when calling \`cublasGemmEx(" "$work/plain.out" ||
		fail "without bf16shim on sm_61: no CUBLAS_STATUS_NOT_SUPPORTED from PyTorch"
elif [ "$arch" != "$native" ]; then
	run plain "$bf16shim" sim --cuda "$cuda" "$arch" -- "$python" "$program"
	[ "$status" = 0 ] || fail "without bf16shim on $arch: exit status $status"
fi

# 2. With the shim.  Where the GPU runs bf16 GEMMs itself (sm_70, sm_75) the cost model leaves
# GEMMs this small to the library: --mode force takes the rewrites this test is about.
mode=auto
[ "$arch" = sm_61 ] || mode=force
run shim "$bf16shim" run --sim "$arch" --cuda "$cuda" --mode "$mode" --log info \
	--trace "$work/trace.jsonl" -- "$python" "$program"
[ "$status" = 0 ] || fail "with bf16shim on $arch: exit status $status"
grep -q "[1-9][0-9]* GEMMs rewritten" "$work/shim.out" ||
	fail "with bf16shim on $arch: no GEMM was rewritten"
grep "^ok " "$work/shim.out" | sed 's/^/  /'

# 3. The trace and its report against the calls the program made.
python3 "$here/../check_trace.py" "$work/trace.jsonl" "$work/native.log" "$bf16shim" ||
	fail "the trace does not match the calls made"

# 4. PyTorch's own kernels are SASS only: a launch fails, naming the kernel.
run kernel "$bf16shim" run --sim "$arch" --cuda "$cuda" -- "$python" -c \
	"import torch; print(torch.ones(4, device='cuda').sum().item())"
[ "$status" != 0 ] || fail "a PyTorch kernel 'ran' on the simulator"
grep -q "simcuda: kernel _ZN2at6native.*SASS" "$work/kernel.out" ||
	fail "the failed PyTorch kernel launch does not name the kernel"
grep -q "operation not supported" "$work/kernel.out" ||
	fail "PyTorch did not report the failed launch"

echo "run_torch: $failures failed"
[ "$failures" = 0 ]
