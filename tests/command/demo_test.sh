#!/usr/bin/env bash
# `bf16shim demo`: on simulated Pascal the run without bf16shim shows cuBLAS's refusal, the
# run with it shows correct results and what bf16shim did; on sm_75 and sm_90 both runs
# compute; --gpu either runs on a GPU or says there is none; bad arguments are refused.
# Usage: demo_test.sh BF16SHIM BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
cmd=$1 build=$2
export BF16SHIM_BUILD=$build
unset LD_LIBRARY_PATH LD_PRELOAD BF16SHIM_LIB BF16SHIM_SIMDIR BF16SHIM_TRACE BF16SHIM_LOG

expect_status 0 "demo (simulated sm_61)" "$cmd" demo
expect_output "demo" "1\. Without bf16shim"
# The refusal comes before the fix, and the fix computes.
before=${out%%2. With bf16shim*} after=${out#*2. With bf16shim} after=${after%%-- Result*}
out=$before expect_output "without: refused" "cublasGemmEx +[0-9x]+ +CUBLAS_STATUS_NOT_SUPPORTED"
out=$before expect_output "without: the batched one too" \
	"cublasGemmStridedBatchedEx .*CUBLAS_STATUS_NOT_SUPPORTED"
out=$after expect_output "with: computed" "cublasGemmEx .*CUBLAS_STATUS_SUCCESS, error [0-9.e+-]+: correct"
out=$after expect_output "with: batched computed" \
	"cublasGemmStridedBatchedEx .*CUBLAS_STATUS_SUCCESS, error [0-9.e+-]+: correct"
out=$after expect_no_output "with: nothing refused or wrong" "NOT_SUPPORTED|WRONG"
out=$after expect_output "with: what was rewritten" "What bf16shim did \\(its (trace|log)"
out=$after expect_output "with: the fp32 path named" "fp32"
expect_output "the error as PyTorch shows it" \
	"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED"
expect_output "how to use it" "bf16shim run -- python"

expect_status 0 "demo --sim sm_75" "$cmd" demo --sim sm_75
expect_no_output "sm_75: nothing refused" "NOT_SUPPORTED|WRONG"
expect_output "sm_75: both runs computed" "Both runs computed correct results"
expect_status 0 "demo --sim sm_90" "$cmd" demo --sim sm_90
expect_no_output "sm_90: nothing refused" "NOT_SUPPORTED|WRONG"

expect_status 2 "demo --sim with a bad arch" "$cmd" demo --sim pascal
expect_status 2 "demo with an unknown argument" "$cmd" demo --fast

# On the real GPU: works where there is one, says so where there is none.
out=$("$cmd" demo --gpu 2>&1 </dev/null)
status=$?
echo "demo --gpu -> $status"
if [ "$status" = 0 ]; then
	expect_output "--gpu on a GPU" "CUBLAS_STATUS_SUCCESS, error .*: correct"
else
	expect_equal "--gpu without a GPU: exit status" "$status" 2
	expect_output "--gpu without a GPU" "no usable GPU"
fi

finish
