#!/usr/bin/env bash
# The wheel as a user gets it: its name and tag, auditwheel's verdict on it, installed into a
# fresh virtual environment (whose path has a space, which LD_PRELOAD splits on; and with pip
# --target, a folder with a colon, which venv refuses and LD_LIBRARY_PATH splits on too); the
# command pip puts on PATH runs doctor --sim and the demo on the simulated GPU; the library
# and helpers need nothing but the C library, glibc 2.28's symbol versions; python -m
# bf16shim is `run` (same pid, exit status, signals, LD_PRELOAD kept); enable()'s refusals; a
# wheel whose library is missing.  No PyTorch here (torch_test.sh).
# Usage: wheel_test.sh WHEEL_PATH_FILE TOOLS_PYTHON VERSION   (BF16SHIM_SIMDIR: the simulator)
set -u
. "$(dirname "$0")/../command/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
wheel=$(cat "$1") tools=$2 version=$3
[ -f "$wheel" ] || { echo "FAIL: $wheel"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD LD_LIBRARY_PATH BF16SHIM_LIB TRITON_PTXAS_PATH BF16SHIM_LOWER PYTHONPATH

name=$(basename "$wheel")
echo "wheel: $name, $(stat -c %s "$wheel") bytes"
expect_equal "the wheel's name and tag" "$name" "bf16shim-$version-py3-none-manylinux_2_28_$(uname -m).whl"
expect_status 0 "the WHEEL file's tag" "$tools" -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(z.read(next(n for n in z.namelist() if n.endswith("dist-info/WHEEL"))).decode())' "$wheel"
expect_output "WHEEL" "^Tag: py3-none-manylinux_2_28_$(uname -m)\$"
# The ecosystem's own judge: auditwheel finds it consistent with manylinux_2_28 or an older
# policy, with no external library to graft into it (audit_check.py).
expect_status 0 "auditwheel show: manylinux_2_28 or older, nothing to graft" "$tools" \
	"$here/audit_check.py" "$wheel"
printf '%s\n' "$out"

# A fresh environment, as `python3 -m venv` makes it, in a folder LD_PRELOAD cannot name.
venv="$tmp/My Drive/venv"
expect_status 0 "a fresh virtual environment" "$tools" -m venv --without-pip "$venv"
expect_status 0 "pip install the wheel" "$tools" -m pip --python "$venv/bin/python" install \
	--quiet --disable-pip-version-check "$wheel"
bin=$venv/bin
pkg=$("$bin/python" -c 'import bf16shim, os; print(os.path.dirname(bf16shim.__file__))')
lib=$pkg/lib/libbf16shim.so
checks=$((checks + 2))
[ -f "$lib" ] || fail "no $lib"
[ -x "$bin/bf16shim" ] || fail "pip put no bf16shim command in $bin"

cd "$tmp" || exit 1
expect_status 0 "bf16shim version" "$bin/bf16shim" version
expect_equal "bf16shim version" "$out" "bf16shim $version"
expect_status 0 "doctor --sim sm_75" "$bin/bf16shim" doctor --sim sm_75
expect_output "doctor --sim sm_75" "^bf16shim library +$lib\$"
expect_output "doctor --sim sm_75" "sm_75"
expect_status 0 "the demo on a simulated GTX 1080" "$bin/bf16shim" demo
expect_output "demo" "With bf16shim the same program, unchanged, got correct results"
expect_status 0 "the manual page" test -f "$venv/share/man/man1/bf16shim.1"

# What the library and the helpers need.
mapfile -t elves < <(find "$pkg" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF' sh {} \; -print)
checks=$((checks + 1))
[ "${#elves[@]}" -ge 4 ] || fail "fewer ELF files than the library and 3 helpers: ${elves[*]}"
expect_status 0 "NEEDED and glibc versions" bash "$here/elf_check.sh" "${elves[@]}"
printf '%s\n' "$out"

# python -m bf16shim: the command's run, execed.
py=$bin/python
expect_status 0 "python -m bf16shim keeps the pid" sh -c \
	'echo $$; exec "$1" -m bf16shim --log info -- -c "import os; print(os.getpid())"' sh "$py"
pids=($out)
expect_equal "python -m bf16shim keeps the pid" "${pids[1]:-}" "${pids[0]}"
LD_PRELOAD=libm.so.6 expect_status 0 "python -m bf16shim: LD_PRELOAD kept, bare name" "$py" \
	-m bf16shim --mode=force "$here/show_env.py" a "b c"
expect_equal "LD_PRELOAD kept" "$(sed -n 1p <<<"$out")" "libbf16shim.so:libm.so.6|$pkg/lib|force"
expect_equal "the shim mapped, arguments kept" "$(sed -n 2p <<<"$out")" "$(readlink -f "$lib")|a|b c"
colon="$tmp/a:b"
expect_status 0 "pip install --target a folder with a colon" "$tools" -m pip install --quiet \
	--disable-pip-version-check --target "$colon" "$wheel"
XDG_CACHE_HOME=$tmp/cache expect_status 0 "python -m bf16shim from a folder with a colon" "$py" -c \
	'import runpy, sys; sys.path.insert(0, sys.argv[1]); sys.argv[1:2] = []
runpy.run_module("bf16shim", run_name="__main__")' "$colon" "$here/show_env.py"
expect_output "a colon" "^libbf16shim.so\|$tmp/cache/bf16shim/[0-9]+\|\$"
expect_output "a colon" "^$colon/bf16shim/lib/libbf16shim.so\$"
expect_status 7 "python -m bf16shim: exit status" "$py" -m bf16shim -- -c 'import sys; sys.exit(7)'
expect_status 143 "python -m bf16shim: killed by SIGTERM" "$py" -m bf16shim -- -c \
	'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'
expect_status 2 "python -m bf16shim: bad option" "$py" -m bf16shim --mode sometimes x.py
expect_output "bad option" "run: --mode sometimes: want one of auto force off"
expect_status 2 "python -m bf16shim: no script" "$py" -m bf16shim --log info

# enable() without PyTorch: keywords, twice, too late, on the simulated stack.
expect_status 0 "enable(), its refusals" "$py" "$here/enable_checks.py"
printf '%s\n' "$out"

# kernel without ipykernel in that Python.
expect_status 2 "kernel install without ipykernel" "$bin/bf16shim" kernel install --user
expect_output "kernel without ipykernel" "needs ipykernel in $py"

# A wheel whose library is missing: every way in says so, exit status 2.
rm "$lib"
expect_status 2 "library missing: bf16shim run" "$bin/bf16shim" run -- true
expect_output "library missing" "libbf16shim.so is missing from this installation"
expect_status 2 "library missing: python -m bf16shim" "$py" -m bf16shim -- -c pass
expect_output "library missing" "reinstall bf16shim"
expect_status 1 "library missing: enable()" "$py" -c 'import bf16shim; bf16shim.enable()'
expect_output "library missing: enable()" "bf16shim.Error: .*libbf16shim.so is missing"
finish
