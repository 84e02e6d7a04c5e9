#!/bin/sh
# Runs nvcc, or copies its output from a cache keyed by the compiler's version, the
# arguments, the source and the files it includes from its own folder (#include "..."), so
# that each build folder (build, build-sanitize...) and each fresh clone on the same machine
# compiles a test program once.
#   usage: nvcc_cached.sh NVCC OUTPUT SOURCE [NVCC ARGUMENTS...]
#   BF16SHIM_NVCC_CACHE: the cache folder (default: .cache/nvcc in the source tree)
set -eu
nvcc=$1 out=$2 src=$3
shift 3
root=$(CDPATH= cd -- "$(dirname -- "$0")/../.." && pwd)
cache=${BF16SHIM_NVCC_CACHE:-$root/.cache/nvcc}
local_includes() {
	sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$src" | while read -r inc; do
		[ ! -f "$(dirname -- "$src")/$inc" ] || cat "$(dirname -- "$src")/$inc"
	done
}
key=$({ "$nvcc" --version; printf '%s\n' "$@"; cat "$src"; local_includes; } | sha256sum |
	cut -c1-32)
hit=$cache/$key/$(basename -- "$out")
if [ -f "$hit" ]; then
	cp "$hit" "$out"
	exit 0
fi
"$nvcc" "$@" "$src" -o "$out"
mkdir -p "$cache/$key"
cp "$out" "$hit.$$"
mv "$hit.$$" "$hit"
