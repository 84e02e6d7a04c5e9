#!/usr/bin/env bash
# Paths with a space and a quote (') everywhere: a checkout, its build folder (so the library
# and the simulated stack), a Python environment and the trace file all live under
# "it's a folder/".  The checkout is a copy of this one (what a clone holds); its build
# folder holds this build's library, helpers and simulated stack, and a build.ninja whose
# 'command' target has nothing to do (what a finished build says), so that nothing is
# rebuilt there.  Then every way in, each of which must find that build and keep the paths
# whole: run (with --sim and a trace), report of the trace, env evaluated by a shell, sim,
# doctor, kernel install and a notebook on that kernel, python -m bf16shim and enable().
# Usage: paths_test.sh SOURCE_ROOT BUILD_DIR TOOLS_PYTHON
#   TOOLS_PYTHON  .venv-python/tools/bin/python (tests/python/install.sh): ipykernel, nbclient
set -u
. "$(dirname "$0")/lib.sh"
src=$1 from=$2 tools=$3
command -v git >/dev/null || { echo "paths: needs git"; exit 77; }
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "paths: $src is not a git checkout"; exit 77; }
[ -x "$tools" ] || { echo "FAIL: no $tools (tests/python/install.sh makes it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base="$tmp/it's a folder"
checkout="$base/bf16shim checkout"
build="$checkout/build it's"
mkdir -p "$checkout"
git -C "$src" ls-files -z --cached --others --exclude-standard |
	(cd "$src" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) |
	tar -xf - -C "$checkout" || { echo "paths: copying the checkout failed"; exit 1; }
mkdir -p "$build/src" "$build/tools" "$build/tests/simcuda" "$build/meson-info"
cp "$from/src/libbf16shim.so" "$build/src/"
for t in probe demo-gemm lower scan; do cp "$from/tools/bf16shim-$t" "$build/tools/"; done
mkdir "$build/tests/simcuda/v13" "$build/tests/simcuda/core"
cp -a "$from"/tests/simcuda/v13/lib*.so* "$build/tests/simcuda/v13/"
cp "$from/tests/simcuda/core/libsimcuda.so" "$build/tests/simcuda/core/"
cp "$from/meson-info/intro-buildoptions.json" "$build/meson-info/"
printf 'ninja_required_version = 1.5\nbuild command: phony\n' >"$build/build.ninja"
cmd=$checkout/scripts/bf16shim
lib=$build/src/libbf16shim.so
demo=$build/tools/bf16shim-demo-gemm
simdir=$build/tests/simcuda/v13

# As a user runs it: nothing of ours set, no other build to find.
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_LIB BF16SHIM_SIMDIR BF16SHIM_TRACE BF16SHIM_LOG \
	BF16SHIM_BUILD BF16SHIM_MODE BF16SHIM_PATH BF16SHIM_EMULATE_SM BF16SHIM_LOG_FILE \
	BF16SHIM_LOWER TRITON_PTXAS_PATH BF16SHIM_PYTHON PYTHONPATH MESON_BUILD_ROOT \
	MESON_SOURCE_ROOT SIMCUDA_ARCH
export BF16SHIM_CACHE_DIR="$base/cache"
cd "$base" || exit 1
# correct_gemms WHAT: $out shows the demo's bf16 GEMMs computed, through bf16shim.
correct_gemms() {
	expect_output "$1: computed" "cublasGemmEx .*CUBLAS_STATUS_SUCCESS, error [0-9.e+-]+: correct"
	expect_no_output "$1: nothing refused, nothing wrong, nothing rebuilt" \
		"NOT_SUPPORTED|WRONG|cannot be preloaded|Building bf16shim"
}

# run: the build found, the simulator preloaded, a trace written there; report reads it.
trace="$base/trace 'q' %p.jsonl"
expect_status 0 "run --sim --trace" "$cmd" run --sim sm_61 --trace "$trace" -- "$demo"
correct_gemms "run --sim"
expect_status 0 "run: the library and the simulator" "$cmd" run --sim sm_61 -- \
	sh -c 'grep -oE "/.*lib(bf16shim|cublas)\.so[.0-9]*$" /proc/self/maps | sort -u'
expect_equal "run: the library and the simulator" "$out" "$lib"$'\n'"$simdir/libcublas.so.13"
set -- "$base"/trace\ \'q\'\ *.jsonl
expect_status 0 "report of the trace" "$cmd" report "$@"
expect_output "report" "^[1-9][0-9]* calls from 1 process, 0 failed"
expect_output "report: the fp32 path" "fp32"

# env, evaluated by a shell: what run gives, the program then run by itself.
expect_status 0 "env --sim --log-file" "$cmd" env --sim sm_61 --log info --log-file "$base/log 'x'"
env_out=$out
expect_status 0 "env, evaluated" sh -c 'eval "$1"; "$2"' sh "$env_out" "$demo"
correct_gemms "env, evaluated"
out=$(cat "$base/log 'x'" 2>&1)
expect_output "env: the log file" "bf16shim\[[0-9]+\]: info: "

# sim without the shim: the simulated card refuses bf16, as the real one does.
expect_status 1 "sim" "$cmd" sim sm_61 -- "$demo"
expect_output "sim: refused without the shim" "cublasGemmEx .*CUBLAS_STATUS_NOT_SUPPORTED"
expect_no_output "sim: the simulator preloaded" "cannot be preloaded"
expect_status 0 "doctor --sim" "$cmd" doctor --sim sm_61
expect_output "doctor: the library" "^bf16shim library +$lib\$"
expect_output "doctor: the simulated driver" "^NVIDIA driver +CUDA [0-9.]+ +$simdir/libcuda\.so\.1\$"

# A Python environment there, with this checkout's package and the tools' ipykernel.
venv="$base/python env"
expect_status 0 "a Python environment" "$tools" -m venv --without-pip "$venv"
py=$venv/bin/python
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
tools_site=$("$tools" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "$checkout/python" "$tools_site" >"$site/bf16shim-checkout.pth"
cat >"$base/gemms 'x'.py" <<'EOF'
import os, subprocess, sys
with open("/proc/self/maps") as f:
    print("mapped:", *sorted({l.split(None, 5)[5].strip() for l in f if "libbf16shim" in l}))
sys.exit(subprocess.run([sys.argv[1]]).returncode)
EOF
expect_status 0 "python -m bf16shim" "$py" -m bf16shim --sim sm_61 -- "$base/gemms 'x'.py" "$demo"
expect_output "python -m bf16shim: the library mapped" "^mapped: $lib\$"
correct_gemms "python -m bf16shim"
expect_status 0 "enable()" "$py" -c 'import bf16shim, subprocess, sys
bf16shim.enable(sim="sm_61", trace=sys.argv[2])
with open("/proc/self/maps") as f:
    print("mapped:", *sorted({l.split(None, 5)[5].strip() for l in f if "libcublas.so" in l}))
print(bf16shim.report())
sys.exit(subprocess.run([sys.argv[1]]).returncode)' "$demo" "$base/enabled 'q'.jsonl"
expect_output "enable(): the simulated cuBLAS loaded" "^mapped: $simdir/libcublas.so.13\$"
expect_output "enable(): report(), nothing called in this process" "^0 calls from 0 processes, 0 failed"
correct_gemms "enable(), its child"
out=$(cat "$base/enabled 'q'.jsonl" 2>&1)
expect_output "enable(): the child's trace" '"decision":"fp32"'

# kernel install for that Python, and a notebook on the kernel.
export JUPYTER_DATA_DIR="$base/jupyter data" IPYTHONDIR="$base/ipython" JUPYTER_PLATFORM_DIRS=1
BF16SHIM_PYTHON=$py expect_status 0 "kernel install" "$cmd" kernel install --user \
	--name spaced --sim sm_61
spec="$JUPYTER_DATA_DIR/kernels/spaced/kernel.json"
expect_status 0 "the kernelspec" "$tools" -c 'import json, sys
spec = json.load(open(sys.argv[1]))
print(spec["argv"][0]); print(spec["env"]["LD_PRELOAD"]); print(spec["env"]["LD_LIBRARY_PATH"])' \
	"$spec"
expect_equal "the kernelspec: its Python, the preload, the library path" "$out" \
	"$py"$'\n'"libbf16shim.so:libcuda.so.1:libcudart.so.13:libcublasLt.so.13:libcublas.so.13"$'\n'"$simdir:$build/src"
expect_status 0 "a notebook on the kernel" "$tools" -c 'import sys, nbformat
from nbclient import NotebookClient
cell = """import bf16shim, subprocess
print("enabled:", bf16shim.enabled())
print(subprocess.run([%r], capture_output=True, text=True).stdout)
print(bf16shim.report())""" % sys.argv[1]
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
NotebookClient(nb, kernel_name="spaced", timeout=300).execute()
print("".join(o.get("text", "") for o in nb.cells[0].outputs))' "$demo"
expect_output "notebook: bf16shim loaded in the kernel" "^enabled: True\$"
expect_output "notebook: its tally, nothing called in the kernel" "^0 calls from 0 processes, 0 failed"
correct_gemms "notebook, a child of the kernel"

finish
