# shellcheck shell=bash
# Shared by the tests of the disk cache of lowered modules (cache_test.sh,
# cache_trust_test.sh): a harness program built for sm_80 run with the shim on simulated
# sm_75, its lowerings counted from the debug log ("lowering module" per lowering, "from the
# cache" per hit).  Set app (the program) and tmp (a folder of the test's) before use.
bf16shim=$(dirname "${BASH_SOURCE[0]}")/../../scripts/bf16shim
unset LD_LIBRARY_PATH LD_PRELOAD
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME [VAR=VALUE...]: the program on sm_75 with the shim and the cache in $tmp/cache
# unless a VAR says otherwise; its output in $tmp/NAME.out, the shim's log in $tmp/NAME.log.
# With $wrap set (a command and its arguments), the program runs under it.
run() {
	local name=$1
	shift
	"${wrap[@]}" env BF16SHIM_CACHE_DIR="$tmp/cache" "$@" BF16SHIM_LOG=debug \
		BF16SHIM_LOG_FILE="$tmp/$name.log" "$bf16shim" run --sim sm_75 -- "$app" \
		>"$tmp/$name.out" 2>&1 || fail "$name: the program exited with $?"
	touch "$tmp/$name.log"
}
wrap=()
lowerings() { grep -c "lowering module" "$tmp/$1.log"; }
hits() { grep -c "from the cache" "$tmp/$1.log"; }
results() { grep '^case ' "$tmp/$1.out"; }
