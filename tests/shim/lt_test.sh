#!/bin/bash
# cuBLASLt runs of lt_client (issue 5).  Usage: lt_test.sh CLIENT SHIM MODE
#   same-as-plain ARCH   the unhandled calls: status and D identical with and without the shim
#   kept ARCH [VAR=VALUE...]   an algorithm from the heuristic on simulated sm_61, used later
#                        on ARCH (with the settings given): the rewrite still runs
#   logged ARCH          each unhandled bf16 call, made twice, is logged once with its reason
set -eu
client=$1 shim=$2 mode=$3 arch=$4; shift 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
case $mode in
same-as-plain)
  SIMCUDA_ARCH=$arch "$client" unhandled > "$out/plain"
  SIMCUDA_ARCH=$arch LD_PRELOAD="$shim" "$client" unhandled > "$out/shim"
  [ -s "$out/plain" ] || { echo "no output"; exit 1; }
  diff -u "$out/plain" "$out/shim" || { echo "FAIL: the shim changed unhandled calls"; exit 1; }
  echo "$(wc -l < "$out/plain") unhandled calls identical on $arch"
  ;;
kept)
  SIMCUDA_ARCH=sm_61 LD_PRELOAD="$shim" "$client" save "$out/algo"
  env SIMCUDA_ARCH="$arch" LD_PRELOAD="$shim" "$@" "$client" load "$out/algo"
  ;;
logged)
  SIMCUDA_ARCH=$arch LD_PRELOAD="$shim" "$client" unhandled 2 > /dev/null 2> "$out/log"
  for epi in 130 134 160 164 136 208 256 512; do
    n=$(grep -c "epilogue=$epi on .*passed through unchanged (epilogue not fused" "$out/log" || true)
    [ "$n" = 1 ] || { echo "epilogue $epi logged $n times, want once"; cat "$out/log"; exit 1; }
  done
  for why in 'scale or amax pointers' 'vector alpha pointer modes'; do
    n=$(grep -c "passed through unchanged ($why" "$out/log" || true)
    [ "$n" = 1 ] || { echo "'$why' logged $n times, want once"; cat "$out/log"; exit 1; }
  done
  echo "every unhandled call logged once with its reason"
  ;;
*) echo "unknown mode $mode"; exit 2;;
esac
