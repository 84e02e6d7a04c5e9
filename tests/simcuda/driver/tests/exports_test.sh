#!/bin/sh
# Every symbol the driver's entry table (entry_table.h, what the simulator models) names is
# exported.  The exports themselves are the real driver's list (../../exports, checked by
# exports_match.sh), and cuGetProcAddress serves every one of them (exports/tests/proc_table.c).
# Usage: exports_test.sh NM LIBCUDA PROC_ADDRESS_EXE
set -eu
nm_prog=$1 lib=$2 table=$3
tmp=${TMPDIR:-/tmp}/simcuda-exports.$$
trap 'rm -f "$tmp".*' EXIT
"$nm_prog" -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$tmp.exported"
"$table" --list | sort -u > "$tmp.listed"
if [ -n "$(comm -13 "$tmp.exported" "$tmp.listed")" ]; then
	echo "in entry_table.h but not exported:"
	comm -13 "$tmp.exported" "$tmp.listed"
	exit 1
fi
echo "$(wc -l < "$tmp.listed") symbols in the table, all exported (of $(wc -l < "$tmp.exported"))"
