#!/bin/bash
# The public header: `meson install` puts it under include/bf16shim/, and it compiles alone as
# strict C99 (-pedantic, every warning an error) into a check of what it says.
# Usage: header_test.sh BUILD_DIR CHECK_SOURCE PROJECT_VERSION
set -eu
build=$1 src=$2 version=$3
command -v meson >/dev/null || { echo "no meson on PATH"; exit 77; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --no-rebuild --quiet --tags devel
header=$(find "$stage" -path '*/include/bf16shim/bf16shim.h' -type f | head -n 1)
[ -n "$header" ] || { echo "FAIL: no include/bf16shim/bf16shim.h installed"; exit 1; }
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -I "${header%/bf16shim/bf16shim.h}" \
  -DPROJECT_VERSION="\"$version\"" -o "$stage/check" "$src"
"$stage/check"
