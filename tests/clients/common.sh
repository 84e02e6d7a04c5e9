# Shared by the client runners (sourced): the command and the program under test, a scratch
# folder, and how a step is run, shown and failed.  Before sourcing: $python, the Python of a
# client environment.  Sets: root, bf16shim, program, work, failures.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bf16shim=$root/scripts/bf16shim
program=$root/tests/clients/torch/bf16_programs.py
[ -x "$python" ] || {
	echo "FAIL: no $python: tests/clients/install.sh installs it (scripts/test runs it)"
	exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# capture NAME CMD...: output in $work/NAME.out, status in $status; shows it, passing cases
# left out.
capture() {
	local name=$1
	shift
	"$@" >"$work/$name.out" 2>&1
	status=$?
	sed "s/^/  $name| /" "$work/$name.out" | grep -v "| ok " | head -n 40
}
