#!/bin/bash
# bf16shim-ptxas run by Triton (TRITON_PTXAS_PATH) assembles with the ptxas that Triton
# bundles, the one Triton would have run: Triton picks its PTX ISA version from our
# --version, and the system's ptxas may be another release (CUDA 13's has no sm_70, which
# Triton's CUDA 12 copy has).  BF16SHIM_PTXAS still wins; anywhere else $CUDA_HOME's is
# used, and a CUDA 13 ptxas asked for a target below sm_75 gets a hint next to its error.
# No real ptxas is needed: a Python parent that maps a file named .../triton/_C/libtriton.so
# plays Triton, and the ptxas copies are scripts that say who they are.
# Usage: triton_parent_test.sh WRAPPER LOWER PTX
set -u
wrapper=$1 lower=$2 ptx=$3
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to play Triton"; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export BF16SHIM_LOWER=$lower
unset BF16SHIM_PTXAS

# fake_ptxas DIR RELEASE: a ptxas that reports RELEASE, keeps a copy of its input PTX in
# DIR/got.ptx and, like CUDA 13's, refuses targets below sm_75 when RELEASE is 13.
fake_ptxas() {
	mkdir -p "$1"
	cat >"$1/ptxas" <<-EOF
	#!/bin/sh
	[ "\$1" = --version ] && { echo "Cuda compilation tools, release $2, V$2.1"; exit 0; }
	for a; do
		case \$a in
		--gpu-name=sm_[5-6]*|--gpu-name=sm_7[0-4])
			[ ${2%%.*} -ge 13 ] && { echo "ptxas fatal   : Value '\${a#*=}' is not defined for option 'gpu-name'"; exit 255; } ;;
		*.ptx) cp "\$a" "$1/got.ptx" ;;
		esac
	done
	echo "ran $2"
	EOF
	chmod +x "$1/ptxas"
}
triton=$t/site-packages/triton
fake_ptxas "$triton/backends/nvidia/bin" 12.9
mkdir -p "$triton/_C" && head -c 4096 /dev/zero >"$triton/_C/libtriton.so"
fake_ptxas "$t/cuda13/bin" 13.0
export CUDA_HOME=$t/cuda13

# as_triton CMD...: runs CMD as a child of a process that maps Triton's libtriton.so.
as_triton() {
	python3 - "$triton/_C/libtriton.so" "$@" <<-'EOF'
	import mmap, subprocess, sys
	with open(sys.argv[1], "rb") as f:
	    lib = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
	    sys.exit(subprocess.run(sys.argv[2:]).returncode)
	EOF
}

fail=0
check() { # description, expected status, expected text in the output, command...
	local what=$1 want=$2 text=$3
	shift 3
	"$@" >"$t/out" 2>&1
	local got=$?
	if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$t/out"; then
		echo "FAIL $what: status $got (want $want), output (want '$text'):"
		sed 's/^/  | /' "$t/out"
		fail=1
	else
		echo "ok   $what"
	fi
}

sed 's/^\.target sm_[0-9]*/.target sm_70/' "$ptx" >"$t/in.ptx"
check "Triton asks for --version: Triton's own ptxas answers" 0 "release 12.9" \
	as_triton "$wrapper" --version
check "Triton assembles for sm_70: Triton's own ptxas, on lowered PTX" 0 "ran 12.9" \
	as_triton "$wrapper" -lineinfo -v --gpu-name=sm_70 "$t/in.ptx" -o "$t/a.cubin"
if ! [ -s "$triton/backends/nvidia/bin/got.ptx" ] ||
	grep -qE '^[[:space:]]*cvt[.a-z]*\.bf16' "$triton/backends/nvidia/bin/got.ptx"; then
	echo "FAIL: Triton's ptxas did not get the lowered PTX"
	fail=1
fi
check "not Triton: \$CUDA_HOME's ptxas" 0 "release 13.0" "$wrapper" --version
check "not Triton, sm_70 on CUDA 13: ptxas's error and status, and the hint" 255 \
	"set BF16SHIM_PTXAS to a CUDA 12 ptxas" "$wrapper" --gpu-name=sm_70 "$t/in.ptx" -o "$t/b.cubin"
grep -q "Value 'sm_70' is not defined" "$t/out" || { echo "FAIL: ptxas's own message lost"; fail=1; }
check "CUDA 13 for sm_75: no hint" 0 "ran 13.0" "$wrapper" --gpu-name=sm_75 "$t/in.ptx" -o "$t/c.cubin"
grep -q "BF16SHIM_PTXAS" "$t/out" && { echo "FAIL: a hint for sm_75"; fail=1; }
fake_ptxas "$t/chosen/bin" 12.4
export BF16SHIM_PTXAS=$t/chosen/bin/ptxas
check "BF16SHIM_PTXAS wins over Triton's own" 0 "release 12.4" as_triton "$wrapper" --version
unset BF16SHIM_PTXAS
exit $fail
