#!/usr/bin/env bash
# The manual page renders without warnings (man -l, as `man ./bf16shim.1` does, else groff)
# and documents every subcommand of the command and every environment variable that the
# library, the command and its helpers read.
# Usage: man_test.sh SOURCE_ROOT
set -u
. "$(dirname "$0")/lib.sh"
root=$1
page=$root/doc/bf16shim.1
if command -v man >/dev/null; then
	render() { MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" 2>&1 | col -b; }
elif command -v groff >/dev/null; then
	render() { groff -man -Tutf8 -rLL=80n "$page" 2>&1 | col -b; }
else
	echo "neither man nor groff: cannot render (scripts/test installs man-db)"
	exit 77
fi
checks=$((checks + 1))
out=$(render)
[ -n "$out" ] || fail "nothing rendered"
if command -v groff >/dev/null; then
	warnings=$(groff -man -ww -z "$page" 2>&1)
	checks=$((checks + 1))
	[ -z "$warnings" ] || fail "groff warnings: $warnings"
fi
# The page's version is the project's.
version=$(sed -n "s/^[[:space:]]*version:[[:space:]]*'\([^']*\)'.*/\1/p" "$root/meson.build" | head -n 1)
checks=$((checks + 1))
grep -q "^\.TH BF16SHIM 1 .*\"bf16shim $version\"" "$page" ||
	fail "doc/bf16shim.1: .TH does not name version $version: $(grep '^\.TH' "$page")"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS ENVIRONMENT "TRACE FORMAT" "EXIT STATUS"; do
	expect_output "section $section" "^$section\$"
done

# Every subcommand of the dispatcher (the table at the bottom of the command).
subcommands=$(sed -n '/^COMMANDS = {/,/^}/p' "$root/python/bf16shim/commands.py" |
	sed -n 's/^    "\([a-z][a-z]*\)": .*/\1/p' | grep -v '^help$')
checks=$((checks + 1))
[ "$(wc -l <<<"$subcommands")" -ge 6 ] || fail "found too few subcommands: $subcommands"
help=$("$root/scripts/bf16shim" help)
for c in $subcommands; do
	expect_output "subcommand $c documented" "^       $c( |\$)"
	checks=$((checks + 1))
	grep -qE "^  $c( |\$)" <<<"$help" || fail "subcommand $c missing from 'bf16shim help'"
done

# Every variable read: by the library (quoted names in src/ and its public header), the
# helpers (tools/), the command (its Python package, quoted; its launcher, ${BF16SHIM_...})
# and the ptxas wrapper, and the simulator's user-facing ones.
vars=$( (grep -rhoE '"BF16SHIM_[A-Z_]+"' "$root/src" "$root/include" "$root/tools" \
		"$root/python/bf16shim" | tr -d '"'
	grep -ohE '\$\{BF16SHIM_[A-Z_]+' "$root/scripts/bf16shim" "$root/scripts/bf16shim-ptxas" |
		tr -d '${'
	echo SIMCUDA_ARCH SIMCUDA_MEM_MB SIMCUDA_FAIL SIMCUDA_LOG SIMCUDA_COMPUTE | tr ' ' '\n'
	) | sort -u)
checks=$((checks + 1))
grep -q BF16SHIM_TRACE <<<"$vars" || fail "the variable search found nothing: $vars"
echo "subcommands: "$subcommands
echo "variables: "$vars
for v in $vars; do
	expect_output "variable $v documented" "^       $v\$"
done
finish
