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
# The fuzzer's own status is the result (libFuzzer's 77 for a crash would read as "skipped").
cd "$TMP" && ./fuzz -max_total_time="$SECONDS_" -max_len=65536 -print_final_stats=1 \
	-error_exitcode=1 -timeout_exitcode=1 corpus >"$TMP/log" 2>&1
status=$?
tail -15 "$TMP/log"
[ $status = 0 ] || echo "FAIL: libFuzzer exited with $status"
exit $status
