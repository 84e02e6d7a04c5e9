# shellcheck shell=bash
# Shared by the tests of the bf16shim command: run a command, check its exit status and
# output, count failures, print both values when a check fails.
failures=0
checks=0

fail() {
	echo "FAILED: $*" >&2
	failures=$((failures + 1))
}

# expect_status WANT DESCRIPTION CMD...: runs CMD with stdin closed; output (stdout and
# stderr) in $out.
expect_status() {
	local want=$1 what=$2 got
	shift 2
	checks=$((checks + 1))
	out=$("$@" 2>&1 </dev/null)
	got=$?
	printf '%s -> %s\n' "$what" "$got"
	[ "$got" = "$want" ] || fail "$what: exit status $got, want $want; output:"$'\n'"$out"
}

# expect_output DESCRIPTION REGEX: $out must match (grep -E, multi-line).
expect_output() {
	checks=$((checks + 1))
	grep -qE -- "$2" <<<"$out" || fail "$1: output lacks /$2/:"$'\n'"$out"
}

expect_no_output() {
	checks=$((checks + 1))
	! grep -qE -- "$2" <<<"$out" || fail "$1: output has /$2/:"$'\n'"$out"
}

# expect_equal DESCRIPTION GOT WANT
expect_equal() {
	checks=$((checks + 1))
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

finish() {
	echo "$(basename "$0"): $checks checks, $failures failed"
	[ "$failures" = 0 ]
}
