#!/bin/sh
# Runs one fuzz target under clang's libFuzzer (with ASan and UBSan) for a bounded time, on a
# copy of its seeds.  Skips (77) when clang or its libFuzzer runtime is missing.  The same
# pattern as tests/ptx/fuzz_libfuzzer.sh, but the fuzzer's own exit status is the result.
#   usage: fuzz_libfuzzer.sh TESTS_FUZZ_DIR SRC_DIR TARGET SECONDS [CORPUS_DIR]
DIR=$1
SRC=$2
TARGET=$3
SECONDS_=${4:-10}
KEEP=$5
CLANG=${CLANG:-$(command -v clang || echo none)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "$CLANG" = none ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	"$CLANG" -x c -fsanitize=fuzzer - -o "$TMP/probe" 2>/dev/null; then
	echo "clang with libFuzzer not found: skipped"
	exit 77
fi
"$CLANG" -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$SRC" -I"$DIR" "$DIR/fuzz_$TARGET.c" "$SRC/plan.c" "$SRC/config.c" "$SRC/log.c" \
	-lpthread -o "$TMP/fuzz" || { echo "FAIL: build"; exit 1; }
CORPUS=${KEEP:-$TMP/corpus}
mkdir -p "$CORPUS"
cp "$DIR/seeds_$TARGET"/* "$CORPUS/"
# libFuzzer's own exit status for a crash is 77, which meson reads as "skipped": use 1.
cd "$TMP" && ./fuzz -max_total_time="$SECONDS_" -max_len=4096 -print_final_stats=1 \
	-error_exitcode=1 -timeout_exitcode=1 \
	"$CORPUS" >"$TMP/log" 2>&1
status=$?
grep "invariant broken" "$TMP/log"
tail -25 "$TMP/log"
[ $status = 0 ] || echo "FAIL: libFuzzer exited with $status"
exit $status
