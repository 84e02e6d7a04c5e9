#!/bin/sh
# Every runtime entry point the simulated libcudart exports that cuda_runtime_api.h maps to a
# per-thread form under CUDA_API_PER_THREAD_DEFAULT_STREAM (cudaMemcpy -> cudaMemcpy_ptds,
# cudaMemcpyAsync -> cudaMemcpyAsync_ptsz) has that form exported too, so a program built
# with --default-stream per-thread links and runs.
# Usage: rt_exports_test.sh NM LIBCUDART CUDA_RUNTIME_API_H
set -eu
nm_prog=$1 lib=$2 header=$3
tmp=${TMPDIR:-/tmp}/simcuda-rt-exports.$$
trap 'rm -f "$tmp".*' EXIT
"$nm_prog" -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$tmp.exported"
sed -n 's/^ *#define \(cuda[A-Za-z0-9]*\) *__CUDART_API_PT\(DS\|SZ\)(\1).*/\1 \2/p' "$header" \
	| sort -u > "$tmp.mapped"
test -s "$tmp.mapped" || { echo "no per-thread mappings found in $header"; exit 1; }
missing=0 checked=0
while read -r name kind; do
	grep -qx "$name" "$tmp.exported" || continue
	checked=$((checked + 1))
	form=${name}_pt$(echo "$kind" | tr 'DSZ' 'dsz')
	if ! grep -qx "$form" "$tmp.exported"; then
		echo "exports $name but not $form"
		missing=$((missing + 1))
	fi
done < "$tmp.mapped"
echo "$checked per-thread mapped entry points exported, $missing without their per-thread form"
test "$checked" -gt 20 && test "$missing" -eq 0
