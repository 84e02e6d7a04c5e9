#!/usr/bin/env bash
# Triton's bf16 kernels (RMSNorm, softmax, tl.dot matmul, explicit-rounding conversions),
# compiled for Turing (sm_75) and Volta (sm_70) without a GPU: with Triton's own ptxas, then
# under `bf16shim run` (the ptxas wrapper), and run lowered on the simulated GPU against
# PyTorch on the CPU.  Prints a table; fails, never skips, when anything does not
# work, a missing Python environment included.
# Usage: run_triton.sh PYTHON BF16SHIM_CMD SIMDIR13
#   PYTHON        a Python with torch and triton (tests/clients/install.sh)
#   BF16SHIM_CMD  the bf16shim command (scripts/bf16shim)
#   SIMDIR13      the simulated CUDA 13 stack (<build>/tests/simcuda/v13)
set -u
[ $# = 3 ] || { sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
python=$1 bf16shim=$2 simdir=$3
[ -x "$python" ] || { echo "FAIL: no $python: tests/clients/install.sh installs it"; exit 1; }
"$python" -c 'import torch, triton' || { echo "FAIL: $python has no torch or triton"; exit 1; }
[ -e "$simdir/libcuda.so.1" ] || { echo "FAIL: no simulated driver in $simdir"; exit 1; }
exec "$python" "$(dirname "$0")/run_triton.py" "$bf16shim" "$simdir"
