#!/bin/sh
# How long `bf16shim scan` takes on the client environments' site-packages (several GB of
# shared objects each), twice without --deep and once with it: run by hand, prints the
# figures.  A run reads from disk what the page cache does not hold already.
#   usage: bench/scan_speed.sh [BUILD]        (default build: ./build)
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
build=${1:-$root/build}
scan=$build/tools/bf16shim-scan
[ -x "$scan" ] || { echo "no $scan: ninja -C $build tools/bf16shim-scan" >&2; exit 2; }
nproc_=$(nproc 2>/dev/null || echo '?')
for env in "$root"/.venv-clients/*/; do
	site=$(ls -d "$env"lib/python3*/site-packages 2>/dev/null | head -n 1)
	[ -n "$site" ] || continue
	size=$(du -sh "$site" | cut -f1)
	for run in 1 2; do
		line=$("$scan" --arch sm_61,sm_70,sm_75 "$site" | head -n 1)
		printf '%s (%s, %s cores), run %s: %s\n' "$(basename "$env")" "$size" "$nproc_" \
			"$run" "${line#bf16shim scan: }"
	done
	line=$("$scan" --deep --arch sm_61,sm_70,sm_75 "$site" | head -n 1)
	printf '%s, --deep: %s\n' "$(basename "$env")" "${line#bf16shim scan: }"
done
