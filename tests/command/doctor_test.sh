#!/usr/bin/env bash
# `bf16shim doctor`: with no driver at all (says so, exit 1), and on simulated devices of
# each generation: name, compute capability, tensor cores, library versions and paths, and
# the capability table's verdicts and fixes (doc/facts.md).
# Usage: doctor_test.sh BF16SHIM SHIM_LIB SIMDIR PROBE
set -u
. "$(dirname "$0")/lib.sh"
cmd=$1 lib=$2 simdir=$3 probe=$4
export BF16SHIM_LIB=$lib BF16SHIM_SIMDIR=$simdir
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_LIBCUDA

# cap CAPABILITY: the verdict line of CAPABILITY in $out (of the GPU section in $out).
cap() {
	grep -E "^  $1 +" <<<"$out" | head -n 1 | sed -E "s/^  $1 +//"
}

# The probe's own format: one JSON object, the libraries and the devices (tools/probe.c).
expect_status 0 "probe" "$probe"
checks=$((checks + 1))
python3 -c 'import json, sys
facts = json.load(sys.stdin)
assert sorted(facts) == ["cublas", "cublaslt", "devices", "driver", "runtime"], sorted(facts)
assert all(sorted(facts[k]) == ["error", "lib", "version"] for k in facts if k != "devices")
assert isinstance(facts["devices"], list)' <<<"$out" ||
	fail "probe: not one JSON object of libraries and devices: $out"
expect_status 2 "probe with an argument" "$probe" --verbose

# A machine with no NVIDIA driver (whatever this one has).
BF16SHIM_LIBCUDA=/nonexistent/libcuda.so.1 expect_status 1 "no driver" "$cmd" doctor
expect_output "no driver" "^NVIDIA driver +none \(/nonexistent/libcuda.so.1: cannot open"
expect_output "no driver: what it means" "^No NVIDIA driver: no program on this machine can use a GPU"
expect_output "no driver: what to try" "bf16shim doctor --sim sm_61"
expect_output "no driver: the library" "^bf16shim library +$lib\$"
expect_no_output "no driver: no GPU listed" "^GPU "

expect_status 2 "unknown argument" "$cmd" doctor --verbose
expect_status 2 "bad --sim" "$cmd" doctor --sim pascal

# Pascal: bf16 GEMMs through bf16shim, nothing of Ampere's.
expect_status 0 "sm_61" "$cmd" doctor --sim sm_61
expect_output "sm_61: header" "on the simulated CUDA stack as sm_61"
expect_output "sm_61: GPU" "^GPU 0: NVIDIA GeForce GTX 1080, sm_61 \(Pascal\), [0-9]+ MiB, no tensor cores\$"
expect_output "sm_61: driver" "^NVIDIA driver +CUDA 1[0-9]\.[0-9] +$simdir/libcuda\.so\.1\$"
expect_output "sm_61: runtime" "^CUDA runtime +1[0-9]\.[0-9] +$simdir/libcudart\.so\.13\$"
expect_output "sm_61: cuBLAS" "^cuBLAS +13\.[0-9]+\.[0-9]+ +$simdir/libcublas\.so\.13\$"
expect_output "sm_61: cuBLASLt" "^cuBLASLt +13\.[0-9]+\.[0-9]+ +$simdir/libcublasLt\.so\.13\$"
expect_equal "sm_61: bf16 GEMM" "$(cap 'bf16 GEMM \(cuBLAS\)')" "provided by bf16shim"
expect_output "sm_61: why" "cuBLAS refuses it \(CUBLAS_STATUS_NOT_SUPPORTED\); bf16shim computes it in fp32"
if [ -x "$(dirname "$lib")/../tools/bf16shim-lower" ]; then lower="provided by bf16shim lower"
else lower="provided by bf16shim lower \(bf16shim-lower not found: reinstall bf16shim\)"; fi
expect_equal "sm_61: bf16 PTX" "$(cap 'bf16 in custom kernels \(PTX\)')" "$lower"
expect_output "sm_61: ptxas message" "Feature '.bf16' requires .target sm_80 or higher"
expect_equal "sm_61: sm_80 builds" "$(cap 'sm_80\+PTX builds')" \
	"provided by bf16shim"
expect_output "sm_61: what an sm_80 build gets" "lowers that PTX as it is loaded"
expect_equal "sm_61: TF32" "$(cap TF32)" "provided by bf16shim"
expect_equal "sm_61: FP8" "$(cap FP8)" "unavailable"
expect_equal "sm_61: int8" "$(cap 'int8 tensor cores')" "unavailable"
expect_equal "sm_61: FlashAttention2" "$(cap FlashAttention2)" "unavailable"
expect_output "sm_61: FlashAttention2 fix" "fix: use SDPA or eager attention"
expect_equal "sm_61: AWQ" "$(cap 'AWQ kernels')" "unavailable"

# Turing with tensor cores (T4) and without (GTX 1660).
expect_status 0 "sm_75 T4" "$cmd" doctor --sim sm_75
expect_output "T4: GPU" "^GPU 0: Tesla T4, sm_75 \(Turing\), [0-9]+ MiB, tensor cores\$"
expect_equal "T4: int8 tensor cores" "$(cap 'int8 tensor cores')" "native"
expect_output "T4: bf16 on fp16 tensor cores" "bf16shim moves it to the"
expect_status 0 "sm_75 GTX 1660" "$cmd" doctor --sim "sm_75/NVIDIA GeForce GTX 1660"
expect_output "1660: GPU" "^GPU 0: NVIDIA GeForce GTX 1660, sm_75 \(Turing\), [0-9]+ MiB, no tensor cores\$"
expect_equal "1660: int8 tensor cores" "$(cap 'int8 tensor cores')" "unavailable"
expect_output "1660: bf16 in fp32" "no tensor cores; bf16shim computes it in"

# Ampere has everything but FP8; Ada and Hopper everything.
expect_status 0 "sm_86" "$cmd" doctor --sim sm_86
expect_equal "sm_86: bf16 GEMM" "$(cap 'bf16 GEMM \(cuBLAS\)')" "native"
expect_equal "sm_86: FlashAttention2" "$(cap FlashAttention2)" "native"
expect_equal "sm_86: FP8" "$(cap FP8)" "unavailable"
expect_status 0 "sm_90" "$cmd" doctor --sim sm_90
expect_equal "sm_90: every capability native" "$(grep -cE '^  [A-Za-z].* native$' <<<"$out")" 8
expect_no_output "sm_90: nothing missing" "unavailable|provided by"

# Two devices: each gets its own table.
expect_status 0 "two devices" "$cmd" doctor --sim sm_80,sm_61
expect_output "two devices: first" "^GPU 0: .*sm_80 \(Ampere\)"
expect_output "two devices: second" "^GPU 1: .*sm_61 \(Pascal\)"
expect_equal "two devices: two tables" "$(grep -c '^  FlashAttention2 ' <<<"$out")" 2

finish
