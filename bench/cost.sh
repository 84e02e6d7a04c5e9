#!/bin/bash
# The cost model (src/gemm/cost.h), modeled, not measured.
# Usage: cost.sh [BUILD_DIR]              for each of the simulator's presets (parts with their
#                                         real SM counts, clocks and memory buses): the square
#                                         products in each type, the typical GEMMs natively and
#                                         on each path, the planner's choice, the crossovers
#        cost.sh [BUILD_DIR] --card ARCH,SMS,MHZ,GBPS[,geforce][,notensor]
#                                         a card by its public figures (boost clock as NVIDIA
#                                         lists it): "8192^3 fp32 X fp16 X bf16 X bf16shim X
#                                         plan P" and the same for 4096^3, X in TFLOPS
#        cost.sh [BUILD_DIR] --step modernbert-base
#                                         one training step's GEMMs on the T4 preset
#        cost.sh [BUILD_DIR] --check      the model against the measured cards below: fp32,
#                                         fp16 and bf16 at 8192^3 and the ModernBERT-base step
#                                         within 25% (exit status 1 otherwise)
set -eu
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	build=$1
	shift
fi
cost=$build/bench/cost
export LD_LIBRARY_PATH=$(realpath "$build/tests/simcuda/v13"):$(realpath "$build/tests/simcuda/core")

# The measured figures (doc/facts.md, "Measured rates of real cards"): torch.mm of square
# matrices, 1024 to 10240, the best TFLOPS (zzc0721/torch-performance-test-data, its table of results).
# The card's public figures (ARCH,SMS,MHZ,GBPS as --card takes them, from NVIDIA's
# specifications) show, beside the check, what the model makes of the card without its name.
# preset|fp32|fp16|bf16|setting|public figures
measured=(
	"sm_75/Tesla T4|4.17|41.91|2.46|Colab, PyTorch 2.8.0|sm_75,40,1590,320"
	"sm_75/Tesla T4|4.43|42.71|2.27|Kaggle, PyTorch 2.6.0, CUDA 12.4|sm_75,40,1590,320"
	"sm_70/Tesla V100S-PCIE-32GB|13.55|88.92|9.85|PyTorch 2.2.0|sm_70,80,1597,1134"
	"sm_61/Tesla P40|10.07|10.02|5.26|PyTorch 2.8.0, CUDA 12.8|sm_61,30,1531,346"
	"sm_52/Tesla M40|3.61|2.88|1.94|PyTorch 2.6.0|sm_52,24,1114,288"
)
# ModernBERT-base fine-tuned on a Kaggle T4, batch 32 of 128 tokens, seconds a step: 0.30 in
# fp16, 1.29 in bf16 (blog post "Your T4 Training Is 4x Slower Than It Should Be").
step_fp16_ms=300
step_bf16_ms=1290
tolerance=0.25

check() {
	local fail=0 row preset fp32 fp16 bf16 setting public line
	for row in "${measured[@]}"; do
		IFS='|' read -r preset fp32 fp16 bf16 setting public <<<"$row"
		echo "  by its public figures alone: $("$cost" --card "$public" | grep '^8192^3 ')"
		line=$(SIMCUDA_ARCH=$preset "$cost" | grep '^8192^3 ')
		awk -v line="$line" -v name="${preset#*/} ($setting)" -v m32="$fp32" -v m16="$fp16" \
		    -v mbf="$bf16" -v tol="$tolerance" 'BEGIN {
			split(line, f, " ")
			want["fp32"] = m32; want["fp16"] = m16; want["bf16"] = mbf
			got["fp32"] = f[3]; got["fp16"] = f[5]; got["bf16"] = f[7]
			out = name ": 8192^3 modeled/measured TFLOPS"; bad = 0
			n = split("fp32 fp16 bf16", t, " ")
			for (i = 1; i <= n; i++) {
				d = (got[t[i]] - want[t[i]]) / want[t[i]]
				out = out sprintf(" %s %s/%s %+.0f%%", t[i], got[t[i]], want[t[i]], 100 * d)
				if (d > tol || d < -tol) bad = 1
			}
			print out (bad ? "  MISS" : "  ok")
			exit bad
		}' || fail=1
	done
	line=$(SIMCUDA_ARCH="sm_75/Tesla T4" "$cost" --step modernbert-base | grep '^modernbert-base')
	awk -v line="$line" -v f16="$step_fp16_ms" -v bf="$step_bf16_ms" -v tol="$tolerance" 'BEGIN {
		split(line, f, " ")
		# "modernbert-base step GEMMs: fp16 X ms, bf16 X ms, bf16shim X ms"
		g16 = f[5]; gbf = f[8]; gshim = f[11]
		other = f16 - g16
		step = other + gbf; d = (step - bf) / bf
		printf "ModernBERT-base step on a T4: GEMMs fp16 %.0f ms, so %.0f ms besides; bf16 " \
		       "%.0f ms modeled against %.0f measured (%+.0f%%)%s; with bf16shim %.0f ms\n",
		       g16, other, step, bf, 100 * d, (d > tol || d < -tol) ? "  MISS" : "  ok",
		       other + gshim
		exit (d > tol || d < -tol)
	}' || fail=1
	return $fail
}

case "${1:-}" in
--card)
	exec "$cost" --card "$2" ;;
--step)
	SIMCUDA_ARCH="sm_75/Tesla T4" exec "$cost" --step "$2" ;;
--check)
	check ;;
"")
	for preset in "sm_75/Tesla T4" "sm_70/Tesla V100-SXM2-16GB" "sm_70/Tesla V100S-PCIE-32GB" \
		      "sm_75/NVIDIA GeForce RTX 2080 Ti" "sm_75/NVIDIA GeForce GTX 1660" \
		      "sm_60/Tesla P100-PCIE-16GB" "sm_61/Tesla P40" "sm_61/NVIDIA GeForce GTX 1080" \
		      "sm_52/Tesla M40"; do
		SIMCUDA_ARCH=$preset "$cost"
		echo
	done ;;
*)
	echo "usage: cost.sh [BUILD_DIR] [--card ARCH,SMS,MHZ,GBPS[,geforce][,notensor] |" \
	     "--step modernbert-base | --check]" >&2
	exit 2 ;;
esac
