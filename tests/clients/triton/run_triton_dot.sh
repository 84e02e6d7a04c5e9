#!/usr/bin/env bash
# Triton's fp16 tl.dot compiled without a GPU and run on the simulated tensor cores
# (run_triton_dot.py).  Fails, never skips, when anything does not work, a missing Python
# environment included.
# Usage: run_triton_dot.sh PYTHON SIMDIR13 SM...
set -u
[ $# -ge 3 ] || { sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
python=$1
shift
[ -x "$python" ] || { echo "FAIL: no $python: tests/clients/install.sh installs it"; exit 1; }
"$python" -c 'import torch, triton' || { echo "FAIL: $python has no torch or triton"; exit 1; }
exec "$python" "$(dirname "$0")/run_triton_dot.py" "$@"
