#!/bin/sh
# Runs a fuzz target under clang's libFuzzer (with ASan and UBSan) for a bounded time, on a
# copy of its seeds: the planner and the settings parser (tests/fuzz) and the PTX lowering
# pass (tests/ptx).  Skips (77) when clang or its libFuzzer runtime is missing; otherwise the
# fuzzer's own status is the result (a crash is 1: libFuzzer's 77 would read as "skipped").
#   usage: fuzz_libfuzzer.sh SECONDS MAX_LEN SEEDS CLANG_ARGUMENTS...
#   SEEDS: ':'-separated folders (all their files) or file patterns (corpus/*.ptx)
#   FUZZ_CORPUS: keep the corpus in that folder (a longer run by hand) instead of a temporary
SECONDS_=$1
MAX_LEN=$2
SEEDS=$3
shift 3
CLANG=${CLANG:-$(command -v clang || echo none)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "$CLANG" = none ] || ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	"$CLANG" -x c -fsanitize=fuzzer - -o "$TMP/probe" 2>/dev/null; then
	echo "clang with libFuzzer not found: skipped"
	exit 77
fi
"$CLANG" -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all "$@" \
	-o "$TMP/fuzz" || { echo "FAIL: build"; exit 1; }
CORPUS=${FUZZ_CORPUS:-$TMP/corpus}
mkdir -p "$CORPUS"
for seeds in $(echo "$SEEDS" | tr ':' ' '); do
	if [ -d "$seeds" ]; then cp "$seeds"/* "$CORPUS/"; else cp $seeds "$CORPUS/"; fi
done
cd "$TMP" && ./fuzz -max_total_time="$SECONDS_" -max_len="$MAX_LEN" -print_final_stats=1 \
	-error_exitcode=1 -timeout_exitcode=1 "$CORPUS" >"$TMP/log" 2>&1
status=$?
grep "invariant broken" "$TMP/log"
tail -25 "$TMP/log"
[ $status = 0 ] || echo "FAIL: libFuzzer exited with $status"
exit $status
