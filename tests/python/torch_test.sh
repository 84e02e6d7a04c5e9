#!/usr/bin/env bash
# PyTorch from the client suite's environment, unmodified, through the wheel (installed with
# pip --target beside the environment, never into it) on a simulated pre-Ampere GPU, three
# ways: python -m bf16shim, bf16shim.enable() as a script's first line, and notebooks
# executed headless (torch_ways.py).
# Usage: torch_test.sh TOOLS_PYTHON WHEEL_PATH_FILE PYTHON KERNEL_PACKAGES CUDA ARCH EXTRA
#   KERNEL_PACKAGES  ipykernel for PYTHON (tests/python/install.sh: .venv-python/kernel-NAME)
#   EXTRA            too-late (a notebook that imports torch before enable()) or spawn (a
#                    DataLoader-style child process under enable())
# BF16SHIM_SIMDIR names the simulated stack.
set -u
tools=$1 wheel=$(cat "$2") python=$3 kernel=$4
[ -f "$wheel" ] || { echo "FAIL: $wheel"; exit 1; }
shift 4
here=$(cd "$(dirname "$0")" && pwd)
for p in "$tools" "$python"; do
	[ -x "$p" ] || { echo "FAIL: no $p (tests/python/install.sh, tests/clients/install.sh)"; exit 1; }
done
[ -f "$kernel/.installed" ] || { echo "FAIL: no $kernel (tests/python/install.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_PRELOAD LD_LIBRARY_PATH BF16SHIM_LIB PYTHONPATH JUPYTER_PATH
# The wheel beside the environment: pip --target, then PYTHONPATH.
"$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$work/site" \
	"$wheel" || { echo "FAIL: pip install --target the wheel"; exit 1; }
exec "$tools" "$here/torch_ways.py" "$python" "$work/site:$kernel" "$work" \
	"$here/../clients/torch/bf16_programs.py" "$@"
