#!/bin/bash
# The graph scenario with a long k (scenario_client graph 512) under the shim with the
# simulator's call log: the replays must be right, and the captured GEMM must have split k
# (a launch with a grid of more than one in z; WANT_SPLIT 1) or not (0).
# Usage: client_log_test_graph.sh CLIENT SHIM WANT_SPLIT
set -eu
client=$1 shim=$2 want=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
SIMCUDA_LOG=$log LD_PRELOAD=$shim "$client" graph 512
split=$(awk -f "$(dirname "$0")/split_launches.awk" "$log")
echo "launches with k split: $split"
if [ "$want" = 1 ] && [ "$split" -eq 0 ]; then echo "FAIL: the captured GEMM did not split k"; exit 1; fi
if [ "$want" = 0 ] && [ "$split" -ne 0 ]; then echo "FAIL: the CUDA cores' kernel split k"; exit 1; fi
exit 0
