#!/bin/bash
# The lowering pass's table of what each instruction needs (src/load/ptx/isa.c), row by row
# against real ptxas: each row's example assembles at the row's architecture and PTX ISA
# version, and is refused one architecture below and one version below.  CUDA 13's ptxas
# for sm_75 and newer, CUDA 12's (Triton's, in the client environments) for the older ones.
#   usage: isa_check.sh ISA_ROWS SOURCE_ROOT
# Skips (77) without ptxas.
set -u
rows=$1 root=$2
new=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
old=${BF16SHIM_PTXAS_OLD:-$(ls "$root"/.venv-clients/torch-cu126/lib/python3*/site-packages/triton/backends/nvidia/bin/ptxas 2>/dev/null | head -n 1)}
[ -x "$new" ] || { echo "ptxas not found: skipped"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# The newest PTX ISA version a ptxas knows: 9.0 for CUDA 13.0, 8.x for CUDA 12.x.
known() { "$1" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' |
	{ read -r a b; [ "$a" -ge 13 ] && echo 90 || echo $((80 + b)); }; }
newmax=$(known "$new")
oldmax=0
[ -n "$old" ] && [ -x "$old" ] && oldmax=$(known "$old")
# 0: assembled; 1: refused; 2: no ptxas here for that architecture and version.
asm() { # SM VERSION EXAMPLE DECLARATIONS
	local sm=$1 v=$2 ex=$3 decl=$4 p=$new max=$newmax
	[ "$sm" -ge 75 ] || { p=$old; max=$oldmax; }
	[ -n "$p" ] && [ "$v" -le "$max" ] || return 2
	{ printf '.version %d.%d\n.target sm_%s\n.address_size 64\n' $((v / 10)) $((v % 10)) "$sm"
	  case $ex in
	  .pragma*) printf '.visible .entry k() {\n%s\n%s\nret;\n}\n' "$decl" "$ex" ;;
	  .*) printf '%s\n%s\n.visible .entry k() { ret; }\n' "$decl" "$ex" ;;
	  *) printf '.visible .entry k() {\n.reg .b16 %%h<8>; .reg .b32 %%r<16>; .reg .b64 %%rd<8>;\n'
	     printf '.reg .f32 %%f<16>; .reg .f64 %%fd<8>; .reg .pred %%p<4>;\n'
	     printf '.shared .align 16 .b8 smem[1024];\n%s\n%s\nret;\n}\n' "$decl" "$ex" ;;
	  esac; } > "$t/k.ptx"
	"$p" --gpu-name "sm_$sm" "$t/k.ptx" -o "$t/k.cubin" 2> "$t/err" && return 0
	return 1
}
"$rows" > "$t/rows" || { echo "FAIL: the table's own checks"; exit 1; }
fail=0 n=0 skipped=0
while IFS=$'\t' read -r sm v before vbefore ex decl; do
	n=$((n + 1))
	asm "$sm" "$v" "$ex" "$decl"
	case $? in
	1) echo "FAIL: sm_$sm, PTX $v refuses '$ex': $(head -1 "$t/err")"; fail=1 ;;
	2) skipped=$((skipped + 1)) ;;
	esac
	if [ "$before" != 0 ]; then
		asm "$before" "$v" "$ex" "$decl"
		[ $? = 0 ] && { echo "FAIL: sm_$before takes '$ex' (the table says sm_$sm)"; fail=1; }
	fi
	if [ "$vbefore" != 0 ]; then
		asm "$sm" "$vbefore" "$ex" "$decl"
		[ $? = 0 ] && { echo "FAIL: PTX $vbefore takes '$ex' (the table says $v)"; fail=1; }
	fi
done < "$t/rows"
echo "$n rows checked against $new${old:+ and $old} ($skipped without a ptxas to take them)"
exit $fail
