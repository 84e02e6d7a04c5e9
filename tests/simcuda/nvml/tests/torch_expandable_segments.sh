#!/usr/bin/env bash
# PyTorch, unmodified, with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True on a simulated GPU
# through bf16shim: the allocator grows its segments with the driver's virtual-memory calls and
# asks NVML (the simulated libnvidia-ml.so.1) about the device first.  Run from
# tests/clients/meson.build (suite clients), with run_torch.sh's conventions.
# Usage: torch_expandable_segments.sh PYTHON CUDA_MAJOR ARCH NVML_CALL...
#   PYTHON       a Python with torch installed (tests/clients/install.sh)
#   CUDA_MAJOR   12 or 13: the simulated stack the wheel was built for
#   ARCH         the device to run on
#   NVML_CALL    an extended regular expression each of which some NVML line of the call log
#                must match (the calls this torch makes, with their statuses)
# BF16SHIM_LIB and BF16SHIM_SIMDIR name the library and the simulated stack.
# Checks, failing (never skipping) when one does not hold:
#   1. tests/clients/torch/bf16_programs.py passes with bf16shim, on expandable segments
#      (cuMemCreate and cuMemMap in the call log), making the NVML calls given
#   2. an allocation past the device's memory raises PyTorch's out-of-memory error, whose
#      report of the processes on the device (NVML's) names this one and its memory
set -u
python=$1 cuda=$2 arch=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../clients/common.sh"

# run NAME CMD...: as capture, with the call log in $work/NAME.log.  Where the GPU runs bf16
# GEMMs itself the cost model leaves these small ones to the library: --mode force rewrites
# them.
mode=auto
[ "$arch" = sm_61 ] || mode=force
run() {
	local name=$1
	shift
	PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True SIMCUDA_LOG=$work/$name.log \
		capture "$name" "$bf16shim" run --sim "$arch" --cuda "$cuda" --mode "$mode" -- "$@"
}

echo "== torch $("$python" -c 'import torch; print(torch.__version__)') on $arch" \
	"(CUDA $cuda stack), expandable segments"

# 1. The bf16 programs.
run programs "$python" "$program"
[ "$status" = 0 ] || fail "bf16_programs.py: exit status $status"
grep -q "^0 case(s) failed" "$work/programs.out" || fail "bf16_programs.py: a case failed"
grep -q "[1-9][0-9]* GEMMs rewritten" "$work/programs.out" || fail "no GEMM was rewritten"
for api in cuMemCreate cuMemMap; do
	grep -q " $api .*-> CUDA_SUCCESS" "$work/programs.log" ||
		fail "no $api: expandable segments were not used"
done
grep " nvml" "$work/programs.log" | cut -d' ' -f4- | sort | uniq -c | sed 's/^/  nvml| /'
for call in "$@"; do
	grep " nvml" "$work/programs.log" | cut -d' ' -f4- | grep -qE -- "$call" ||
		fail "no NVML call matching /$call/ in the call log"
done

# 2. Out of memory (the simulated device has 1 GiB), with 256 MiB held.
run oom "$python" -c "
import torch
held = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')
try:
    torch.empty(2 << 30, dtype=torch.uint8, device='cuda')
except torch.OutOfMemoryError as e:
    print('out of memory:', e)
"
[ "$status" = 0 ] || fail "out of memory: exit status $status"
own="Including non-PyTorch memory, this process has 2[0-9][0-9]\.[0-9]* MiB memory in use"
grep -q "^out of memory: .*$own" "$work/oom.out" ||
	fail "the out-of-memory report does not name this process and its memory"
grep -q " nvmlDeviceGetComputeRunningProcesses device=0 .*-> NVML_SUCCESS" "$work/oom.log" ||
	fail "the out-of-memory report did not ask NVML for the processes"

echo "torch_expandable_segments: $failures failed"
[ "$failures" = 0 ]
