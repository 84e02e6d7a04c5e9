#!/bin/bash
# Accuracy contract on adversarial operands: the shim on ARCH (with extra settings) against a
# native bf16 GEMM (simulated sm_90, no shim) and an fp64 reference.  ACCURACY_CASES=attention
# takes the client's attention set (softmax rows, GELU and SiLU outputs) instead.
# Usage: accuracy_test.sh CLIENT SHIM ARCH [VAR=VALUE...]
set -eu
client=$1 shim=$2 arch=$3; shift 3
set_arg=${ACCURACY_CASES:+$ACCURACY_CASES}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
SIMCUDA_ARCH=sm_90 "$client" run "$out/native" $set_arg
env SIMCUDA_ARCH="$arch" LD_PRELOAD="$shim" "$@" "$client" run "$out/shim" $set_arg
"$client" compare "$out/native" "$out/shim" $set_arg
