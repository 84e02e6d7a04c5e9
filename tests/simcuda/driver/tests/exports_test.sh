#!/bin/sh
# The driver's dynamic symbols are exactly the entry table's symbols: nothing exported that
# cuGetProcAddress cannot hand out, nothing listed that is not exported.
# Usage: exports_test.sh NM LIBCUDA PROC_ADDRESS_EXE
set -eu
nm_prog=$1 lib=$2 table=$3
tmp=${TMPDIR:-/tmp}/simcuda-exports.$$
trap 'rm -f "$tmp".*' EXIT
"$nm_prog" -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$tmp.exported"
"$table" --list | sort -u > "$tmp.listed"
if ! cmp -s "$tmp.exported" "$tmp.listed"; then
	echo "exported but not in entry_table.h:"
	comm -23 "$tmp.exported" "$tmp.listed"
	echo "in entry_table.h but not exported:"
	comm -13 "$tmp.exported" "$tmp.listed"
	exit 1
fi
echo "$(wc -l < "$tmp.listed") symbols, all in the table"
