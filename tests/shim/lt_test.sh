#!/bin/bash
# cuBLASLt runs of lt_client.  Usage: lt_test.sh CLIENT SHIM MODE
#   same-as-plain ARCH   the unhandled calls: status and D identical with and without the shim
#   kept ARCH [VAR=VALUE...]   an algorithm from the heuristic on simulated sm_61, used later
#                        on ARCH (with the settings given): the rewrite still runs
#   logged ARCH          each unhandled bf16 call, made twice, is logged once with its reason
#   override ARCH LIBDIR BF16SHIM_CUBLASLT naming the library is used; naming a missing file
#                        is reported once, and the loaded cuBLASLt found all the same
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
override)
  libdir=$1
  SIMCUDA_ARCH=$arch LD_PRELOAD="$shim" BF16SHIM_LOG=debug \
    BF16SHIM_CUBLASLT="$libdir/libcublasLt.so.13" "$client" tf32 2> "$out/log"
  grep -q 'cuBLASLt found through BF16SHIM_CUBLASLT' "$out/log" ||
    { echo "BF16SHIM_CUBLASLT not used"; cat "$out/log"; exit 1; }
  SIMCUDA_ARCH=$arch LD_PRELOAD="$shim" BF16SHIM_CUBLASLT=/nonexistent/libcublasLt.so \
    "$client" tf32 2> "$out/log"
  n=$(grep -c 'application: BF16SHIM_CUBLASLT=/nonexistent/libcublasLt.so' "$out/log" || true)
  [ "$n" = 1 ] || { echo "bad BF16SHIM_CUBLASLT reported $n times, want once"; exit 1; }
  echo "BF16SHIM_CUBLASLT honoured; a bad one reported once and the loaded library used"
  ;;
*) echo "unknown mode $mode"; exit 2;;
esac
