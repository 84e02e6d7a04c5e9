#!/bin/sh
# Checks the shim's PTX files against the portability rules (doc/facts.md, "CUDA
# versions"): .version <= 7.0, .target <= sm_52, no bf16 type or sm_80+ instruction; then
# assembles each with ptxas for the lowest architecture that this ptxas or an older one
# (BF16SHIM_PTXAS_OLD, else the CUDA 12 ptxas that Triton bundles in the source tree's
# .venv-clients/torch-cu126, found from this script's place) accepts (exit 77, skip, when
# there is no ptxas).  With --selftest FILE: checks that the rules reject broken copies.
# With --embedded PROGRAM first: PROGRAM prints the embedded module, which is checked too.
# With --tensor-cores first: the files are the tensor-core module (kernels.h), loaded only on
# sm_70 and newer: .target up to sm_70, assembled for the lowest of sm_70, sm_75 ptxas takes.
# With --fused SM PROGRAM MODULE: the fused path's module that `PROGRAM MODULE` prints,
# loaded only on sm_SM and newer: .target up to sm_SM, the f16 mma and ldmatrix of sm_70 and
# sm_75 allowed, assembled for sm_SM.
max_target=52
archs="sm_50 sm_52 sm_60 sm_61 sm_70 sm_75"
newer='(^|[[:space:]])mma\.|\bldmatrix|'
if [ "$1" = --tensor-cores ]; then
	max_target=70
	archs="sm_70 sm_75"
	shift
fi
if [ "$1" = --fused ]; then
	max_target=$2
	archs=sm_$2
	newer=
	embedded=$(mktemp --suffix=.ptx) || exit 1
	trap 'rm -f "$embedded"' EXIT
	"$3" "$4" > "$embedded" || { echo "FAIL: $3 $4 did not print the module"; exit 1; }
	shift 4
	set -- "$embedded"
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
old=${BF16SHIM_PTXAS_OLD:-$(ls "$root"/.venv-clients/torch-cu126/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas 2>/dev/null | head -n 1)}

# rules FILE: 0 when FILE follows the rules; prints what is wrong.
rules() {
	ver=$(sed -n 's/^[[:space:]]*\.version[[:space:]]\+\([0-9]\+\.[0-9]\+\).*/\1/p' "$1")
	major=${ver%.*}
	minor=${ver#*.}
	bad=0
	if [ -z "$ver" ] || [ $((major * 10 + minor)) -gt 70 ]; then
		echo "FAIL: .version is '$ver', want <= 7.0"; bad=1
	fi
	target=$(sed -n 's/^[[:space:]]*\.target[[:space:]]\+sm_\([0-9]\+\).*/\1/p' "$1")
	if [ -z "$target" ] || [ "$target" -gt $max_target ]; then
		echo "FAIL: .target is sm_'$target', want <= sm_$max_target"; bad=1
	fi
	# Types and instructions that need sm_80 or newer (doc/facts.md's table and friends).
	# (The fused modules may use sm_70's and sm_75's f16 mma and ldmatrix: not in $newer.)
	if grep -nE "\\.bf16|\\.tf32|\\.e4m3|\\.e5m2|$newer\\bwgmma|\\bcp\\.async|\\bredux|\\.relu\\b|\\bsetmaxnreg|\\belect\\." "$1"; then
		echo "FAIL: the lines above need sm_80 or newer"; bad=1
	fi
	return $bad
}

if [ "$1" = --selftest ]; then
	ptx=$2
	tmp=$(mktemp) || exit 1
	trap 'rm -f "$tmp"' EXIT
	rules "$ptx" >/dev/null || { echo "FAIL: the real PTX breaks the rules"; exit 1; }
	for edit in 's/^\.version .*/.version 7.1/' 's/^\.target .*/.target sm_80/' \
		    's/^\.target .*/.target sm_61/' \
		    's/cvt\.rn\.f16\.f32/cvt.rn.bf16.f32/' 's/^\(\t*\)ret;/\1mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {}, {}, {}, {};\n\1ret;/'; do
		sed "$edit" "$ptx" > "$tmp"
		if cmp -s "$ptx" "$tmp"; then
			echo "FAIL: edit '$edit' changed nothing"; exit 1
		fi
		if rules "$tmp" >/dev/null; then
			echo "FAIL: the rules accept the PTX after '$edit'"; exit 1
		fi
	done
	echo "ok: the rules reject every broken copy"
	exit 0
fi

if [ "$1" = --embedded ]; then
	embedded=$(mktemp --suffix=.ptx) || exit 1
	trap 'rm -f "$embedded"' EXIT
	"$2" > "$embedded" || { echo "FAIL: $2 did not print the module"; exit 1; }
	shift 2
	set -- "$@" "$embedded"
fi

for ptx in "$@"; do
	[ -r "$ptx" ] || { echo "FAIL: cannot read $ptx"; exit 1; }
	rules "$ptx" || exit 1
	echo "ok: $ptx: .version $ver, .target sm_$target, no sm_80 instructions"
done

ptxas=/usr/local/cuda/bin/ptxas
[ -x "$ptxas" ] || ptxas=$(command -v ptxas) || { echo "SKIP: no ptxas"; exit 77; }
probe=$(mktemp) && out=$(mktemp) || exit 1
trap 'rm -f "$probe" "$out" "$embedded"' EXIT
printf '.version %s\n.target sm_50\n.address_size 64\n' "$ver" > "$probe"
for arch in $archs; do
	for p in "$ptxas" $old; do
		[ -x "$p" ] || continue
		# An empty module tells "arch unknown to this ptxas" apart from an error in our PTX.
		"$p" --gpu-name $arch -o "$out" "$probe" >/dev/null 2>&1 || continue
		echo "ptxas $("$p" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'): lowest accepted architecture $arch"
		for ptx in "$@"; do
			if ! "$p" --gpu-name $arch -v -o "$out" "$ptx"; then
				echo "FAIL: ptxas rejected $ptx for $arch"
				exit 1
			fi
			echo "ok: $ptx assembled for $arch"
		done
		exit 0
	done
done
echo "FAIL: $ptxas $old accept none of $archs"
exit 1
