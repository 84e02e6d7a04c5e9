#!/bin/sh
# Builds cutlass_gemm.cu with CUTLASS's headers from the nvidia-cutlass package, once per
# content: the sources, this script, the nvcc release and the CUTLASS version name a cache
# folder, and a build found there is reused (CUTLASS takes minutes to compile on two cores).
# Prints the folder, which holds cutlass_gemm_sm75 and cutlass_gemm_sm80 (PTX for compute_75
# and compute_80 only: the simulator runs PTX), cute_gemm (the package's cute tutorial HGEMM
# for compute_80, cute_gemm.cu) and cutlass_sparse (CUTLASS's Sm80 sparse GEMMs,
# cutlass_sparse.cu), and ptx/ the PTX of the compute_80 builds (what the lowering's size is
# measured on: tests/ptx/lowered_size.sh).
#   usage: build.sh NVCC
# BF16SHIM_TEST_CACHE: the cache folder (default: .cache/cutlass in the source tree, git-ignored,
# beside the other test builds cached by content).
set -eu
NVCC=$1
SRC=$(cd "$(dirname "$0")" && pwd)
VERSION=4.2.0.0
CACHE=${BF16SHIM_TEST_CACHE:-$SRC/../../../.cache/cutlass}
key=$({ cat "$SRC/cutlass_gemm.cu" "$SRC/cute_gemm.cu" "$SRC/cutlass_sparse.cu" "$SRC/check_d.h" "$SRC/build.sh"
	"$NVCC" --version
	echo "$VERSION"; } |
	sha256sum | cut -c1-16)
out=$CACHE/cutlass-gemm-$key
built() {
	[ -x "$out/cutlass_gemm_sm75" ] && [ -x "$out/cutlass_gemm_sm80" ] &&
		[ -x "$out/cute_gemm" ] && [ -x "$out/cutlass_sparse" ]
}
if built; then
	echo "$out"
	exit 0
fi
mkdir -p "$CACHE"
# One build at a time: the tests that need it start together on a fresh clone, and a second
# must wait for the first's headers and build, not race it for the same folders.
exec 9>"$CACHE/.lock"
flock 9
if built; then
	echo "$out"
	exit 0
fi
# The headers: pip, from a virtual environment of its own (the system may have no pip).
headers=$CACHE/nvidia-cutlass-$VERSION
if [ ! -f "$headers/.installed" ]; then
	rm -rf "$headers.tmp" "$CACHE/pip-venv"
	python3 -m venv "$CACHE/pip-venv" >&2
	"$CACHE/pip-venv/bin/python" -m pip install --quiet --no-deps --disable-pip-version-check \
		--target "$headers.tmp" "nvidia-cutlass==$VERSION" >&2
	rm -rf "$CACHE/pip-venv" "$headers"
	mv "$headers.tmp" "$headers"
	touch "$headers/.installed"
fi
pkg=$headers/cutlass_library/source
tmp=$out.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
start=$(date +%s)
mkdir -p "$tmp/ptx" "$tmp/keep80" "$tmp/keepcute" "$tmp/keepsparse"
for sm in 75 80; do
	keep=
	[ $sm = 75 ] || keep="--keep --keep-dir $tmp/keep80"
	"$NVCC" -std=c++17 -O1 --expt-relaxed-constexpr -cudart shared -I "$pkg/include" \
		-gencode "arch=compute_$sm,code=compute_$sm" -DTEST_SM=$sm $keep \
		"$SRC/cutlass_gemm.cu" -o "$tmp/cutlass_gemm_sm$sm" >&2 &
done
"$NVCC" -std=c++17 -O1 --expt-relaxed-constexpr -cudart shared -I "$pkg/include" \
	-I "$pkg/tools/util/include" -I "$pkg/examples" -gencode arch=compute_80,code=compute_80 \
	--keep --keep-dir "$tmp/keepcute" "$SRC/cute_gemm.cu" -o "$tmp/cute_gemm" >&2 &
wait
"$NVCC" -std=c++17 -O1 --expt-relaxed-constexpr -cudart shared -I "$pkg/include" \
	-I "$pkg/tools/util/include" -gencode arch=compute_80,code=compute_80 \
	--keep --keep-dir "$tmp/keepsparse" "$SRC/cutlass_sparse.cu" -o "$tmp/cutlass_sparse" >&2
for k in keep80 keepcute keepsparse; do
	mv "$tmp/$k"/*.ptx "$tmp/ptx/" 2>/dev/null
	rm -rf "${tmp:?}/$k"
done
[ -x "$tmp/cutlass_gemm_sm75" ] && [ -x "$tmp/cutlass_gemm_sm80" ] && [ -x "$tmp/cute_gemm" ] &&
	[ -x "$tmp/cutlass_sparse" ] ||
	{ echo "build.sh: nvcc failed" >&2; rm -rf "$tmp"; exit 1; }
echo "build.sh: built in $(($(date +%s) - start)) s into $out" >&2
rm -rf "$out"
mv "$tmp" "$out"
echo "$out"
