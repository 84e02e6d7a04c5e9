#!/bin/sh
# Regenerates the export lists in this folder from the real libraries.  Run by hand when the
# simulated stack follows a new CUDA release; neither the build nor the tests run it.
#
#   lib*.so.13.txt   the CUDA 13 toolkit's libraries (CUDA_HOME, default /usr/local/cuda)
#   libcuda.so.1.txt the toolkit's link stub lib64/stubs/libcuda.so: one driver serves every
#                    CUDA major, so both builds export this list
#   lib*.so.12.txt   the union of the CUDA 12 wheels below (pip download --no-deps): 12.6 is
#                    what PyTorch's CUDA 12.6 builds ship, 12.9 the last CUDA 12 release
#
# Usage: update.sh [WHEEL_DIR]    WHEEL_DIR keeps the downloaded wheels between runs
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheels=${1:-$work/wheels}
runtime12="nvidia-cuda-runtime-cu12==12.6.77 nvidia-cuda-runtime-cu12==12.9.79"
cublas12="nvidia-cublas-cu12==12.6.4.1 nvidia-cublas-cu12==12.9.1.4"

# "name node" for every function a library exports (node empty when unversioned).  Anything
# but functions and version definitions stops the script: the generator only makes functions.
exports() {
	nm -D --defined-only "$1" | awk -v lib="$1" '
		$2 == "A" { next }
		$2 != "T" { print lib ": symbol " $3 " of type " $2 " is not a function" > "/dev/stderr"; exit 1 }
		{ n = $3; v = ""; i = index(n, "@"); if (i) { v = substr(n, i); sub(/^@+/, "", v); n = substr(n, 1, i - 1) } print n, v }'
}

# write SONAME NODE SOURCE LIBRARY...: the list, after checking every symbol's version node.
write() {
	soname=$1 node=$2 source=$3
	shift 3
	for lib; do exports "$lib"; done > "$work/symbols"
	bad=$(awk -v node="$node" '$2 != node' "$work/symbols" | head -3)
	if [ -n "$bad" ]; then
		echo "$soname: symbols outside version node '${node:-none}': $bad" >&2
		exit 1
	fi
	{
		echo "# $soname: every function the real library exports, one per line, sorted."
		echo "# version node: ${node:-none}"
		echo "# source: $source"
		echo "# Written by update.sh; the build makes the simulated library export exactly these."
		awk '{ print $1 }' "$work/symbols" | LC_ALL=C sort -u
	} > "$here/$soname.txt"
	echo "$soname.txt: $(grep -vc '^#' "$here/$soname.txt") functions"
}

# The version of an installed toolkit package, from its dist-info folder when it has one.
package() {
	v=$(ls "$cuda/dist-info" 2>/dev/null | sed -n "s/^$1-\(.*\)\.dist-info\$/\1/p" | head -1)
	echo "$1${v:+ $v}"
}

cuda_version=$(sed -n 's/^#define CUDA_VERSION *\([0-9]*\).*/\1/p' "$cuda/include/cuda.h")
toolkit="CUDA toolkit $((cuda_version / 1000)).$((cuda_version % 1000 / 10))"
write libcudart.so.13 libcudart.so.13 "$toolkit, lib64/libcudart.so.13 ($(package nvidia_cuda_runtime))" \
	"$cuda/lib64/libcudart.so.13"
write libcublas.so.13 libcublas.so.13 "$toolkit, lib64/libcublas.so.13 ($(package nvidia_cublas))" \
	"$cuda/lib64/libcublas.so.13"
write libcublasLt.so.13 libcublasLt.so.13 "$toolkit, lib64/libcublasLt.so.13 ($(package nvidia_cublas))" \
	"$cuda/lib64/libcublasLt.so.13"
write libcuda.so.1 "" "$toolkit, lib64/stubs/libcuda.so (the driver's link stub)" \
	"$cuda/lib64/stubs/libcuda.so"

# The CUDA 12 wheels: x86_64 builds whatever the host, only the libraries taken out.
mkdir -p "$wheels"
for req in $runtime12 $cublas12; do
	python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$wheels" \
		--platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 "$req"
done
extract() {
	# extract PACKAGE VERSION: the wheel's lib*.so.12 into $work/PACKAGE-VERSION/
	whl=$(ls "$wheels/$1-$2-"*.whl | head -1)
	python3 - "$whl" "$work/$1-$2" <<'PY'
import os, re, sys, zipfile
whl, dest = sys.argv[1], sys.argv[2]
os.makedirs(dest, exist_ok=True)
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        if re.fullmatch(r"nvidia/[^/]+/lib/lib[^/]+\.so\.12", name):
            with open(os.path.join(dest, os.path.basename(name)), "wb") as f:
                f.write(z.read(name))
PY
}
extract nvidia_cuda_runtime_cu12 12.6.77
extract nvidia_cuda_runtime_cu12 12.9.79
extract nvidia_cublas_cu12 12.6.4.1
extract nvidia_cublas_cu12 12.9.1.4
rt="nvidia-cuda-runtime-cu12 12.6.77 and 12.9.79"
blas="nvidia-cublas-cu12 12.6.4.1 and 12.9.1.4"
write libcudart.so.12 libcudart.so.12 "union of the wheels $rt, nvidia/cuda_runtime/lib/libcudart.so.12" \
	"$work"/nvidia_cuda_runtime_cu12-*/libcudart.so.12
write libcublas.so.12 libcublas.so.12 "union of the wheels $blas, nvidia/cublas/lib/libcublas.so.12" \
	"$work"/nvidia_cublas_cu12-*/libcublas.so.12
write libcublasLt.so.12 libcublasLt.so.12 "union of the wheels $blas, nvidia/cublas/lib/libcublasLt.so.12" \
	"$work"/nvidia_cublas_cu12-*/libcublasLt.so.12
