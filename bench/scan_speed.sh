#!/bin/sh
# How long `bf16shim scan` takes on the client environments' site-packages (several GB of
# shared objects each), for sm_61, sm_70 and sm_75: read from disk (the environment's files
# dropped from the page cache first, posix_fadvise DONTNEED, which leaves every other file
# cached), again from the page cache, then with --deep from a cold cache of lowered modules
# (an empty BF16SHIM_CACHE_DIR: everything lowered and checked by ptxas) and warm (the same
# folder again: everything read back), with the ptxas the command would find (CUDA's, and the
# copy Triton bundles in that environment).  Wall time and the CPU time of the scan and its
# ptxas, the machine's load before each run, and its processors.  Run by hand; prints the
# figures.
#   usage: bench/scan_speed.sh [BUILD] [ENVIRONMENT...]   (default: ./build, every one)
set -eu
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
scan=$build/tools/bf16shim-scan
[ -x "$scan" ] || { echo "no $scan: ninja -C $build tools/bf16shim-scan" >&2; exit 2; }
nproc_=$(nproc 2>/dev/null || echo '?')
archs=sm_61,sm_70,sm_75
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

load() {
	cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'
}

# $1: a label; the rest: the scan.  One line: the scan's first line, wall and CPU seconds.
timed() {
	label=$1
	shift
	l=$(load)
	out=$(/usr/bin/env time -f '%e %U %S' -o "$cache.time" "$@" | head -n 1)
	# The last line: time says first when the scan exits 1 (some code cannot run).
	read -r wall user sys <<EOF
$(tail -n 1 "$cache.time")
EOF
	printf '%s: %s; %s s wall, %s s CPU, load %s before, %s processors\n' "$label" \
		"${out#bf16shim scan: }" "$wall" "$(echo "$user $sys" | awk '{print $1 + $2}')" "$l" \
		"$nproc_"
}

envs=${*:-$(ls -d "$root"/.venv-clients/*/ 2>/dev/null)}
for env in $envs; do
	site=$(ls -d "${env%/}"/lib/python3*/site-packages 2>/dev/null | head -n 1)
	[ -n "$site" ] || continue
	name=$(basename "$env")
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
	timed "$name ($size), from disk" "$scan" --arch $archs "$site"
	timed "$name, from the page cache" "$scan" --arch $archs "$site"
	triton=$site/triton/backends/nvidia/bin/ptxas
	set --
	[ ! -x "$triton" ] || set -- --ptxas-candidate "$triton"
	rm -rf "${cache:?}"/*
	export BF16SHIM_CACHE_DIR="$cache"
	timed "$name, --deep, cold (empty cache)" "$scan" --deep "$@" --arch $archs "$site"
	timed "$name, --deep, warm (everything in the cache)" "$scan" --deep "$@" --arch $archs \
		"$site"
	"$scan" --deep "$@" --arch $archs "$site" | sed -n 2p
	printf '%s: the cache holds %s in %s files\n' "$name" "$(du -sh "$cache" | cut -f1)" \
		"$(ls "$cache" | wc -l)"
done
