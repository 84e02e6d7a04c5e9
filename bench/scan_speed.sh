#!/bin/sh
# How long `bf16shim scan` takes on the client environments' site-packages (several GB of
# shared objects each): read from disk (the environment's files are dropped from the page
# cache first, posix_fadvise DONTNEED, which leaves every other file cached), then again
# from the page cache, then with --deep.  Run by hand; prints the figures.
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
	python3 - "$site" <<'EOF'
import os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        try:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
        except OSError:
            continue
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
EOF
	for run in "from disk" "from the page cache"; do
		line=$("$scan" --arch sm_61,sm_70,sm_75 "$site" | head -n 1)
		printf '%s (%s, %s cores), %s: %s\n' "$(basename "$env")" "$size" "$nproc_" \
			"$run" "${line#bf16shim scan: }"
	done
	line=$("$scan" --deep --arch sm_61,sm_70,sm_75 "$site" | head -n 1)
	printf '%s, --deep: %s\n' "$(basename "$env")" "${line#bf16shim scan: }"
done
