#!/usr/bin/env bash
# `meson install`: the library, the command, its helpers and the manual page land in a
# staging folder, and the installed command finds the installed library and helpers (not
# the source build's); without Python, its run and env are the same.
# Usage: install_test.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
build=$1
command -v meson >/dev/null || { echo "no meson on PATH"; exit 77; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_LIB BF16SHIM_SIMDIR BF16SHIM_BUILD

expect_status 0 "meson install --destdir" meson install -C "$build" --destdir "$stage" \
	--no-rebuild --quiet
cmd=$(find "$stage" -path '*/bin/bf16shim' -type f | head -n 1)
lib=$(find "$stage" -name libbf16shim.so -type f | head -n 1)
checks=$((checks + 5))
[ -x "$cmd" ] || fail "no executable bin/bf16shim under $stage: $(find "$stage" -type f)"
[ -x "$(dirname "$cmd")/bf16shim-report.py" ] || fail "no bin/bf16shim-report.py"
[ -f "$lib" ] || fail "no libbf16shim.so under $stage"
[ -x "$(dirname "$lib")/bf16shim/bf16shim-probe" ] || fail "no bf16shim-probe next to the library"
[ -n "$(find "$stage" -path '*/man1/bf16shim.1*')" ] || fail "no man1/bf16shim.1"
[ "$failures" = 0 ] || { finish; exit 1; }
lib=$(readlink -f "$lib")

cd "$stage" || exit 1  # nowhere near the source build
expect_status 0 "installed run finds the installed library" \
	"$cmd" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
expect_equal "installed run" "$out" "$lib"
checks=$((checks + 1))
[ -x "$(dirname "$cmd")/bf16shim-ptxas" ] || fail "no bin/bf16shim-ptxas"
(unset TRITON_PTXAS_PATH
	expect_status 0 "installed run points Triton at the installed ptxas wrapper" \
		"$cmd" run -- sh -c 'printf "%s\n" "$TRITON_PTXAS_PATH"'
	expect_equal "installed ptxas wrapper" "$out" "$(dirname "$cmd")/bf16shim-ptxas"
	exit "$failures") || failures=$((failures + 1))
expect_status 3 "installed run: exit status" "$cmd" run -- sh -c 'exit 3'
expect_status 0 "installed version" "$cmd" version
expect_output "installed version" "^bf16shim [0-9]+\.[0-9]+\.[0-9]+\$"
BF16SHIM_LIBCUDA=/nonexistent/libcuda.so.1 expect_status 1 "installed doctor, no driver" \
	"$cmd" doctor
expect_output "installed doctor: the installed library" "^bf16shim library +$lib\$"
printf '%s\n' '{"api":"cublasGemmEx","m":2,"n":3,"k":4,"batch":1,"atype":"R_16BF","btype":"R_16BF","ctype":"R_16BF","compute":"R_32F","decision":"fp32","status":0,"pid":1}' \
	>"$stage/t.jsonl"
expect_status 0 "installed report" "$cmd" report "$stage/t.jsonl"
expect_output "installed report" "^1 calls from 1 process, 0 failed"
expect_status 2 "installed demo without the simulator" "$cmd" demo
expect_output "installed demo" "demo --gpu"
# The installed scan finds its installed helper; an empty folder holds no GPU code.
mkdir -p "$stage/empty"
expect_status 0 "installed scan" "$cmd" scan --arch sm_61 "$stage/empty"
expect_output "installed scan" "^bf16shim scan: 0 files read"
checks=$((checks + 1))
[ -x "$(dirname "$lib")/bf16shim/bf16shim-scan" ] || fail "no bf16shim-scan next to the library"
ln -s "$cmd" "$stage/linked-bf16shim"
expect_status 0 "installed command through a symbolic link" \
	"$stage/linked-bf16shim" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
expect_equal "through a symbolic link" "$out" "$lib"

# Where there is no Python, run and env still work, parsed by the launcher's part generated
# from the table of options: the same status and output as the command in Python.  A PATH
# with every program of this machine but Python's.
nopy=$stage/no-python
mkdir "$nopy"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	case ${f##*/} in python*) continue ;; esac
	[ -e "$nopy/${f##*/}" ] || ln -s "$f" "$nopy/${f##*/}"
done
mkdir -p "$stage/My Drive" "$stage/a:b" "$stage/copy"
for d in "My Drive" "a:b" copy; do cp "$lib" "$stage/$d/libbf16shim.so"; done
show='printf "%s|%s|%s|%s|%s|%s\n" "$LD_PRELOAD" "${LD_LIBRARY_PATH-unset}" "$BF16SHIM_LIB" \
	"$TRITON_PTXAS_PATH" "$BF16SHIM_LOWER" "$BF16SHIM_MODE"'
# same WHAT [NAME=VALUE...] ARGS...: the installed command with and without Python.
same() {
	local what=$1 with without status_with status_without
	local assign=()
	shift
	while [[ $1 =~ ^[A-Z_][A-Z0-9_]*= ]]; do assign+=("$1"); shift; done
	with=$(env "${assign[@]}" "$cmd" "$@" 2>&1 </dev/null)
	status_with=$?
	without=$(env "${assign[@]}" PATH="$nopy" "$cmd" "$@" 2>&1 </dev/null)
	status_without=$?
	printf '%s -> %s, without Python %s\n' "$what" "$status_with" "$status_without"
	# The folder of links for a library under a colon is named by a checksum of its path.
	with=$(sed -E 's|/bf16shim/[0-9]+|/bf16shim/N|g' <<<"$with")
	without=$(sed -E 's|/bf16shim/[0-9]+|/bf16shim/N|g' <<<"$without")
	expect_equal "$what: the exit status without Python" "$status_without" "$status_with"
	expect_equal "$what: the output without Python" "$without" "$with"
}
same "env" env
same "env, every setting" env --mode force --path=fp32 --emulate-sm sm_61 --log info \
	--log-file "a 'b' c" --trace=t.%p.jsonl
same "env, bad --mode" env --mode sometimes
same "env, bad --emulate-sm" env --emulate-sm pascal
same "env, unknown option" env --frobnicate=1
same "env, option without value" env --trace
same "env, a command" env -- true
same "env, again" LD_PRELOAD="$lib" BF16SHIM_LIB="$lib" env
same "run" run -- sh -c "$show"
same "run, settings" run --mode=off --log debug -- sh -c "$show"
same "run, LD_PRELOAD kept and de-duplicated" LD_PRELOAD="libm.so.6 $lib:libdl.so.2" \
	run -- sh -c "$show"
same "run, another copy of the shim dropped" LD_PRELOAD="$stage/copy/libbf16shim.so:libm.so.6" \
	run -- sh -c "$show"
same "run, after a run from a folder with a space" LD_PRELOAD="libbf16shim.so libm.so.6" \
	LD_LIBRARY_PATH="$stage/copy" \
	run -- sh -c "$show"
same "run, a space in the library's path" BF16SHIM_LIB="$stage/My Drive/libbf16shim.so" \
	run -- sh -c "$show"
same "run, a colon in the library's path" BF16SHIM_LIB="$stage/a:b/libbf16shim.so" \
	XDG_CACHE_HOME="$stage/cache" run -- sh -c "$show"
same "run, BF16SHIM_LIB missing" BF16SHIM_LIB=/no/such/libbf16shim.so run -- true
same "run, exit status" run -- sh -c 'exit 3'
same "run, no such program" run -- /no/such/program
same "run, no command" run --log info
same "run, bad --log" run --log loud -- true
PATH=$nopy expect_status 2 "run --sim without Python" "$cmd" run --sim sm_61 -- true
expect_output "run --sim without Python" "^bf16shim: run: --sim needs Python 3 \(python3 not found\)\$"
PATH=$nopy expect_status 2 "doctor without Python" "$cmd" doctor
expect_output "doctor without Python" "^bf16shim: doctor: needs Python 3.8 or newer"

finish
