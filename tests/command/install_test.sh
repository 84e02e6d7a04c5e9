#!/usr/bin/env bash
# `meson install`: the library, the command, its helpers and the manual page land in a
# staging folder, and the installed command finds the installed library and helpers (not
# the source build's).
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

finish
