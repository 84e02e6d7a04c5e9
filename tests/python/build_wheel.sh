#!/usr/bin/env bash
# Builds the wheel as a user does (python -m build), without build isolation: with the tools
# of .venv-python/tools, in BUILD_DIR/wheel-build (kept: the next build is incremental).
# Writes the wheel's path to OUTPUT.
# Usage: build_wheel.sh TOOLS_PYTHON SOURCE_ROOT BUILD_DIR OUTPUT
set -eu
python=$1 src=$2 build=$3 output=$4
# Without the tools the build goes on (a developer's `ninja`); the python suite's tests then
# fail with this line, which they find in OUTPUT instead of a wheel's path.
if [ ! -x "$python" ]; then
	echo "no wheel: $python is missing (tests/python/install.sh installs it)" >"$output"
	exit 0
fi
rm -rf "$build/wheel"
"$python" -m build --wheel --no-isolation --outdir "$build/wheel" \
	-Cbuild-dir="$build/wheel-build" "$src" >"$build/wheel.log" 2>&1 ||
	{ tail -n 40 "$build/wheel.log" >&2; exit 1; }
set -- "$build"/wheel/*.whl
[ $# = 1 ] && [ -f "$1" ] || { echo "python -m build made no wheel (or several): $*" >&2; exit 1; }
printf '%s\n' "$1" >"$output"
