#!/bin/bash
# The library exports exactly the names in src/interpose/exports/exports.map, and needs no CUDA
# library at link time (it finds them at run time).
set -eu
lib=$1 map=$2
want=$(sed -n 's/^ *\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$map" | sort)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | grep -v '^$' | sort)
if [ "$want" != "$have" ]; then
  echo "exports differ from $map:"; diff <(echo "$want") <(echo "$have") 2>/dev/null ||
    { echo "want: $want"; echo "have: $have"; }
  exit 1
fi
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
case "$needed" in *libcu*|*libnv*)
  echo "links a CUDA library: $needed"; exit 1;;
esac
echo "exports: $(echo "$want" | wc -l) names, as listed; NEEDED: $(echo $needed)"
