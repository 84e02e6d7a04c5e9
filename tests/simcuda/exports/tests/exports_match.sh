#!/bin/sh
# A simulated library exports exactly what the real one does (its list, ../<soname>.txt):
# every listed function, under the list's version node, and nothing else.
# Usage: exports_match.sh NM LIBRARY LIST
set -eu
nm_prog=$1 lib=$2 list=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node=$(sed -n 's/^# version node: //p' "$list")
test -n "$node" || { echo "$list: no version node in its header"; exit 1; }
[ "$node" = none ] && node=

# "T name@@node" per function (no @@ for the unversioned driver), plus "A node", the version
# definition itself, as nm prints the real libraries.
{
	grep -v '^#' "$list" | awk -v node="$node" '{ print "T " $1 (node == "" ? "" : "@@" node) }'
	test -z "$node" || echo "A $node"
} | LC_ALL=C sort > "$tmp/want"
"$nm_prog" -D --defined-only "$lib" | awk '{ print $2, $3 }' | LC_ALL=C sort > "$tmp/got"

if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "$lib against $list:"
	echo "listed, not exported (or another type or version node):"
	comm -23 "$tmp/want" "$tmp/got" | head -20
	echo "exported, not listed:"
	comm -13 "$tmp/want" "$tmp/got" | head -20
	exit 1
fi
echo "$lib: $(grep -c '^T' "$tmp/got") functions, as listed${node:+, all under $node}"
