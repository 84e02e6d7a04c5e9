#!/bin/bash
# BF16SHIM_CUBLAS naming a file that is not there: the shim says so once, blaming the
# setting, and falls back to finding the loaded cuBLAS itself, so the program still works.
set -u
client=$1 shim=$2
out=$(LD_PRELOAD=$shim BF16SHIM_CUBLAS=/nonexistent/libcublas.so "$client" check 2>&1)
status=$?
echo "$out" | tail -2
[ $status = 0 ] || { echo "exit status $status, want 0"; exit 1; }
[ "$(echo "$out" | grep -c 'application: BF16SHIM_CUBLAS=/nonexistent/libcublas.so')" = 1 ] ||
  { echo "the bad setting was not reported exactly once"; exit 1; }
