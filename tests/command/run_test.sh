#!/usr/bin/env bash
# `bf16shim run`: exit status passed through, LD_PRELOAD kept and de-duplicated (by resolved
# path), nested runs, settings exported to a whole process tree, Triton's ptxas, --sim, the
# library search, and a real bf16 GEMM program fixed by it on a simulated Pascal card.
# Usage: run_test.sh BF16SHIM SHIM_LIB STUB_LIB SIMDIR DEMO_GEMM
set -u
. "$(dirname "$0")/lib.sh"
cmd=$1 lib=$2 stub=$3 simdir=$4 demo=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BF16SHIM_LIB=$lib BF16SHIM_SIMDIR=$simdir
# As a user runs it: meson test's own library path must not help the programs find anything.
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_MODE BF16SHIM_PATH BF16SHIM_LOG BF16SHIM_LOG_FILE BF16SHIM_TRACE \
	BF16SHIM_EMULATE_SM
show_preload='printf "%s\n" "$LD_PRELOAD"'

# Exit status: CMD's, whatever it is.
expect_status 0 "true" "$cmd" run -- true
expect_status 1 "false" "$cmd" run -- false
expect_status 7 "exit 7" "$cmd" run -- sh -c 'exit 7'
expect_status 143 "killed by SIGTERM" "$cmd" run -- sh -c 'kill -TERM $$'
expect_status 127 "no such program" "$cmd" run -- /no/such/program
expect_output "no such program" "cannot run /no/such/program"
expect_status 2 "no command" "$cmd" run --log info
expect_status 2 "unknown option" "$cmd" run --frobnicate -- true
expect_status 2 "bad --mode" "$cmd" run --mode sometimes -- true
expect_output "bad --mode" "want one of auto force off"
expect_status 2 "bad --emulate-sm" "$cmd" run --emulate-sm pascal -- true
expect_status 2 "option without value" "$cmd" run --trace

# LD_PRELOAD: the library first, what was there kept in order, never twice.
expect_status 0 "empty LD_PRELOAD" "$cmd" run -- sh -c "$show_preload"
expect_equal "empty LD_PRELOAD" "$out" "$lib"
LD_PRELOAD=$stub expect_status 0 "existing entry kept" "$cmd" run -- sh -c "$show_preload"
expect_equal "existing entry kept" "$out" "$lib:$stub"
LD_PRELOAD="$stub:$lib" expect_status 0 "already there: not added twice" \
	"$cmd" run -- sh -c "$show_preload"
expect_equal "already there" "$out" "$lib:$stub"
ln -s "$lib" "$tmp/link-to-shim.so"
LD_PRELOAD="$tmp/link-to-shim.so $stub" expect_status 0 "symbolic link to it, space-separated" \
	"$cmd" run -- sh -c "$show_preload"
expect_equal "symbolic link resolved" "$out" "$lib:$stub"
libdir=$(dirname "$lib")
(
	failures=0
	cd "$libdir" || exit 1
	LD_PRELOAD=./libbf16shim.so expect_status 0 "relative path to it" \
		"$cmd" run -- sh -c "$show_preload"
	expect_equal "relative path" "$out" "$lib"
	exit $failures
) || failures=$((failures + 1))
cp "$lib" "$tmp/libbf16shim.so"
LD_PRELOAD="$tmp/libbf16shim.so:$stub" expect_status 0 "another copy of the shim replaced" \
	"$cmd" run -- sh -c "$show_preload"
expect_equal "another copy replaced" "$out" "$lib:$stub"

# Nested runs: the inner one adds nothing, its options win for its subtree.
expect_status 0 "nested run" "$cmd" run --log warn -- "$cmd" run --log debug -- \
	sh -c 'printf "%s|%s\n" "$LD_PRELOAD" "$BF16SHIM_LOG"'
expect_equal "nested run" "$out" "$lib|debug"
LD_PRELOAD=$stub expect_status 0 "nested run keeps other entries" \
	"$cmd" run -- "$cmd" run -- sh -c "$show_preload"
expect_equal "nested run keeps other entries" "$out" "$lib:$stub"

# Settings: exported, inherited by a whole tree; file names made absolute.
cd "$tmp" || exit 1
expect_status 0 "settings exported to a process tree" "$cmd" run --mode force --path=fp32 \
	--emulate-sm sm_61 --log info --log-file log.txt --trace 't.%p.jsonl' -- \
	sh -c 'true; sh -c "printf \"%s \" \"\$BF16SHIM_MODE\" \"\$BF16SHIM_PATH\" \"\$BF16SHIM_EMULATE_SM\" \"\$BF16SHIM_LOG\" \"\$BF16SHIM_LOG_FILE\" \"\$BF16SHIM_TRACE\" \"\$LD_PRELOAD\""'
expect_equal "settings" "$out" "force fp32 61 info $tmp/log.txt $tmp/t.%p.jsonl $lib "
expect_status 0 "the library is mapped in a grandchild" \
	"$cmd" run -- sh -c 'sh -c "cat /proc/self/maps"'
expect_output "grandchild" "$lib"
cd - >/dev/null || exit 1

# What Triton and the ptxas wrapper read: the wrapper next to the command and the lowering
# helper of the library's build, unless the user chose others.
# expect_helper VARIABLE DEFAULT
expect_helper() {
	local show="printf '%s\\n' \"\$$1\""
	unset "$1"
	expect_status 0 "$1 set" "$cmd" run -- sh -c "$show"
	expect_equal "$1 set" "$out" "$2"
	export "$1=/opt/my/helper"
	expect_status 0 "$1 kept" "$cmd" run -- sh -c "$show"
	expect_equal "$1 kept" "$out" /opt/my/helper
	unset "$1"
}
expect_helper TRITON_PTXAS_PATH "$(dirname "$cmd")/bf16shim-ptxas"
expect_helper BF16SHIM_LOWER "$(dirname "$lib")/../tools/bf16shim-lower"

# --sim: the simulator's libraries and architecture, and the shim.
expect_status 0 "--sim" "$cmd" run --sim sm_75 -- \
	sh -c 'printf "%s|%s|%s\n" "$SIMCUDA_ARCH" "${LD_LIBRARY_PATH%%:*}" "$LD_PRELOAD"'
# The shim first, so that it interposes on the simulated libraries preloaded after it.
expect_equal "--sim" "$out" "sm_75|$simdir|$lib:$simdir/libcuda.so.1:$simdir/libcudart.so.13:$simdir/libcublasLt.so.13:$simdir/libcublas.so.13"
expect_status 2 "--sim with a bad arch" "$cmd" run --sim pascal -- true

# A library whose path LD_PRELOAD cannot carry (ld.so splits it on ' ' and ':'): preloaded
# by its bare name, found through LD_LIBRARY_PATH, or a link in the cache when the folder has
# a ':' that LD_LIBRARY_PATH would split on too.
mkdir -p "$tmp/My Drive/lib" "$tmp/a:b/lib"
cp "$lib" "$tmp/My Drive/lib/libbf16shim.so"
cp "$lib" "$tmp/a:b/lib/libbf16shim.so"
show_maps='printf "%s|%s\n" "$LD_PRELOAD" "$LD_LIBRARY_PATH"; grep -o "/.*libbf16shim.so" /proc/self/maps | sort -u'
BF16SHIM_LIB="$tmp/My Drive/lib/libbf16shim.so" LD_PRELOAD=$stub \
	expect_status 0 "a space in the library's path" "$cmd" run -- sh -c "$show_maps"
expect_equal "a space in the library's path" "$out" \
	"libbf16shim.so:$stub|$tmp/My Drive/lib"$'\n'"$tmp/My Drive/lib/libbf16shim.so"
BF16SHIM_LIB="$tmp/a:b/lib/libbf16shim.so" XDG_CACHE_HOME=$tmp/cache \
	expect_status 0 "a colon in the library's path" "$cmd" run -- sh -c "$show_maps"
expect_output "a colon in the library's path" "^libbf16shim.so\|$tmp/cache/bf16shim/[0-9]+\$"
expect_output "a colon in the library's path" "^$tmp/a:b/lib/libbf16shim.so\$"

# env: the same settings as export lines, only what it changes, no command.
expect_status 0 "env" "$cmd" env --mode force --log=info --sim sm_61
expect_output "env" "^export LD_PRELOAD='$lib:$simdir/libcuda.so.1:"
expect_output "env" "^export LD_LIBRARY_PATH='$simdir'\$"
expect_output "env" "^export SIMCUDA_ARCH='sm_61'\$"
expect_output "env" "^export BF16SHIM_MODE='force'\$"
expect_output "env" "^export BF16SHIM_LOG='info'\$"
expect_output "env" "^export TRITON_PTXAS_PATH='"
expect_no_output "env" "BF16SHIM_PATH|BF16SHIM_TRACE"
env_out=$out
expect_status 0 "env, evaluated: what run gives" sh -c 'eval "$1"; printf "%s|%s|%s\n" \
	"$LD_PRELOAD" "$SIMCUDA_ARCH" "$BF16SHIM_MODE"' sh "$env_out"
expect_equal "env, evaluated" "$out" "$lib:$simdir/libcuda.so.1:$simdir/libcudart.so.13:$simdir/libcublasLt.so.13:$simdir/libcublas.so.13|sm_61|force"
expect_status 0 "env again: nothing to change" sh -c 'eval "$("$1" env)"; "$1" env' sh "$cmd"
expect_equal "env again" "$out" ""
BF16SHIM_LOG_FILE="it's here" expect_status 0 "env quotes values" \
	sh -c 'eval "$("$1" env --log-file "a '"'"'quoted'"'"' name")"; printf "%s\n" "$BF16SHIM_LOG_FILE"' \
	sh "$cmd"
expect_equal "env quotes values" "$out" "$PWD/a 'quoted' name"
expect_status 2 "env takes no command" "$cmd" env -- true
expect_status 2 "env, bad option" "$cmd" env --mode sometimes
expect_output "env, bad option" "env: --mode sometimes: want one of auto force off"

# The library search.
BF16SHIM_LIB=/no/such/libbf16shim.so expect_status 2 "BF16SHIM_LIB missing" "$cmd" run -- true
expect_output "BF16SHIM_LIB missing" "BF16SHIM_LIB=/no/such/libbf16shim.so: no such file"
root=$(cd "$(dirname "$cmd")/.." && pwd)
(
	failures=0
	unset BF16SHIM_LIB
	expect_status 0 "found in a source build" "$cmd" run -- sh -c "$show_preload"
	expect_output "found in a source build" "^$root/build[^/]*/src/libbf16shim\.so\$"
	exit $failures
) || failures=$((failures + 1))

# The point of it all: PyTorch's bf16 GEMMs, refused on Pascal, computed with the shim.
expect_status 1 "bf16 GEMMs on sm_61 without the shim" "$cmd" sim sm_61 -- "$demo"
expect_output "without the shim" "CUBLAS_STATUS_NOT_SUPPORTED"
expect_status 0 "bf16 GEMMs on sm_61 with bf16shim run" "$cmd" run --sim sm_61 -- "$demo"
expect_output "with bf16shim run" "cublasGemmEx .*CUBLAS_STATUS_SUCCESS"
expect_output "with bf16shim run" "correct"
expect_no_output "with bf16shim run" "WRONG|NOT_SUPPORTED"

finish
