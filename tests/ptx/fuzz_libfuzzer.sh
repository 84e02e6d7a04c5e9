#!/bin/sh
# Runs fuzz_lower.c under clang's libFuzzer (with ASan and UBSan) for a bounded time, on a
# copy of the seeds.  Skips (77) when clang or its libFuzzer runtime is missing.
#   usage: fuzz_libfuzzer.sh TESTS_PTX_DIR SRC_PTX_DIR SECONDS
DIR=$1
SRC=$2
SECONDS_=${3:-20}
CLANG=${CLANG:-$(command -v clang || echo none)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "$CLANG" = none ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	"$CLANG" -x c -fsanitize=fuzzer - -o "$TMP/probe" 2>/dev/null; then
	echo "clang with libFuzzer not found: skipped"
	exit 77
fi
"$CLANG" -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DFUZZ_LIBFUZZER \
	-I"$SRC" "$DIR/fuzz_lower.c" "$SRC"/*.c -o "$TMP/fuzz" || { echo "FAIL: build"; exit 1; }
mkdir "$TMP/corpus"
cp "$DIR"/fuzz_seeds/* "$DIR"/corpus/*.ptx "$TMP/corpus/"
cd "$TMP" && ./fuzz -max_total_time="$SECONDS_" -max_len=65536 -print_final_stats=1 corpus 2>&1 | tail -15
