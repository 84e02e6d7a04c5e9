#!/usr/bin/env bash
# The README's Quick start, as a newcomer runs it: the checkout copied into an empty folder
# (what a clone holds, with the working tree's changes), nothing built, and the README's first
# command run there, read from README.md so that the two cannot drift apart.  Then, from the
# partial build that command leaves, `bf16shim run --sim sm_61` and `bf16shim doctor --sim
# sm_75`; and a simulated stack with a library missing is rebuilt by `bf16shim sim`.  Each
# of these builds through the meson alias target 'command': dropping a target from it fails
# here.  (The README's second command, ./scripts/test, is what runs this test.)
# Usage: newcomer_test.sh SOURCE_ROOT
set -u
. "$(dirname "$0")/lib.sh"
src=$1

command -v git >/dev/null || { echo "newcomer: needs git"; exit 77; }
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "newcomer: $src is not a git checkout"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clone=$tmp/bf16shim
mkdir "$clone"
# Tracked files and new ones git does not ignore, as the working tree has them.
git -C "$src" ls-files -z --cached --others --exclude-standard |
	(cd "$src" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) |
	tar -xf - -C "$clone" || { echo "newcomer: copying the checkout failed"; exit 1; }

# The first command of the Quick start block (docs_test.py checks that it holds the two).
first=$(awk '/^## Quick start/ { q = 1; next } /^## / { q = 0 }
	q && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b { print; exit }' "$src/README.md")
expect_equal "the README's first command" "$first" "./scripts/bf16shim demo"

# A newcomer's environment: nothing of ours set, no build folder.
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_LIB BF16SHIM_SIMDIR BF16SHIM_TRACE BF16SHIM_LOG \
	BF16SHIM_BUILD BF16SHIM_MODE BF16SHIM_PATH BF16SHIM_EMULATE_SM MESON_BUILD_ROOT \
	MESON_SOURCE_ROOT
cd "$clone" || exit 1
[ ! -e build ] || fail "the copy already has a build folder"

expect_status 0 "README: $first" sh -c "$first"
expect_output "demo: building first" "Building bf16shim and the simulated CUDA stack"
expect_output "demo: refused without bf16shim" "cublasGemmEx +[0-9x]+ +CUBLAS_STATUS_NOT_SUPPORTED"
after=${out#*2. With bf16shim} after=${after%%-- Result*}
out=$after expect_output "demo: computed with bf16shim" \
	"cublasGemmEx .*CUBLAS_STATUS_SUCCESS, error [0-9.e+-]+: correct"
out=$after expect_no_output "demo: nothing refused or wrong with bf16shim" "NOT_SUPPORTED|WRONG"
# Only what the command needs was built, not the test suites.
[ -e build/build.ninja ] || fail "demo left no build folder"
[ ! -e build/tests/shim/gemm_client ] || fail "demo built the test suites too"

client=build/tools/bf16shim-demo-gemm
expect_status 0 "run --sim sm_61 -- a client" \
	./scripts/bf16shim run --sim sm_61 --trace "$tmp/trace.jsonl" -- "$client"
expect_output "run --sim: correct results" "CUBLAS_STATUS_SUCCESS, error [0-9.e+-]+: correct"
expect_no_output "run --sim: nothing refused" "NOT_SUPPORTED|WRONG"
out=$(cat "$tmp/trace.jsonl" 2>&1)
expect_output "run --sim: the trace shows the fp32 path" '"decision":"fp32"'

expect_status 0 "doctor --sim sm_75" ./scripts/bf16shim doctor --sim sm_75
expect_output "doctor: the simulated card" "GPU 0: .*sm_75 \\(Turing\\)"
expect_output "doctor: bf16 GEMMs through the shim" "bf16 GEMM \\(cuBLAS\\) +provided by bf16shim"
expect_output "doctor: the library found" "libbf16shim\\.so"
expect_no_output "doctor: nothing missing" "not found"

# A stack missing a library is not complete: the next subcommand builds it again.
rm -f build/tests/simcuda/v13/libnvidia-ml.so.1
expect_status 0 "sim sm_61, a library of the stack removed" ./scripts/bf16shim sim sm_61 -- true
[ -e build/tests/simcuda/v13/libnvidia-ml.so.1 ] || fail "sim did not build the missing NVML"

finish
