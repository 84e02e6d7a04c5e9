#!/bin/bash
# bf16 GEMMs cuBLAS refuses where the plan let them through (BF16SHIM_PATH=native keeps
# them native, but refused calls are still retried): retried on the fp32 path, results right,
# and the exit summary counts the retries (so a run that never retried cannot pass).
set -u
client=$1 shim=$2
out=$(LD_PRELOAD=$shim BF16SHIM_PATH=native "$client" check 2>&1)
status=$?
echo "$out" | tail -2
[ $status = 0 ] || { echo "exit status $status"; exit 1; }
retried=$(echo "$out" | sed -n 's/.* \([0-9][0-9]*\) retried.*/\1/p' | tail -1)
[ -n "$retried" ] && [ "$retried" -gt 0 ] || { echo "no retry happened"; exit 1; }
