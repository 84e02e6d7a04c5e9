#!/bin/bash
# Fault-injection sweep.  Usage: fault_test.sh CLIENT SHIM ARCH
# Runs CLIENT once with the shim and the simulator's call log, counts the allocations,
# module loads, kernel lookups and launches the shim itself makes (depth 0: the program
# makes none), then reruns once per such call with exactly that call failing, and once with
# it and every later one failing.  Every run must exit 0 (the client checks each call's
# status and result), never by a signal, and leak nothing: at the end the shim holds at most
# its one cached workspace buffer (the client uses one stream), and device memory taken
# beyond that buffer is what the clean run has beyond its own.
set -u
client=$1 shim=$2 arch=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMCUDA_ARCH=$arch
# What the library answers without the shim: the "original call's behaviour" to keep.
"$client" > "$out/native" || { echo "FAIL: the run without the shim failed"; exit 1; }
orig=$(sed -n 's/.* status=\([0-9]*\) .*/\1/p' "$out/native" | paste -sd,)
export LD_PRELOAD=$shim
# API and the status it fails with.
faults="cuMemAllocAsync=OUT_OF_MEMORY cuMemAlloc_v2=OUT_OF_MEMORY
cuModuleLoadData=INVALID_PTX cuModuleGetFunction=NOT_FOUND cuModuleGetGlobal_v2=NOT_FOUND
cuLaunchKernel=LAUNCH_FAILED"

SIMCUDA_LOG=$out/clean.log "$client" "$orig" > "$out/clean" 2> "$out/clean.err"
rc=$?
if [ $rc != 0 ]; then
  echo "FAIL: the clean run exited $rc"; cat "$out/clean" "$out/clean.err"; exit 1
fi
# "COUNT BYTES": the shim's allocations still live at the end of a run, from its call log.
live() {
  awk '$3 == 0 && ($4 == "cuMemAllocAsync" || $4 == "cuMemAlloc_v2") && / -> CUDA_SUCCESS$/ {
         for (i = 5; i <= NF; i++) if ($i ~ /^ptr=/) p = $i
         for (i = 5; i <= NF; i++) if ($i ~ /^bytes=/) { sub(/bytes=/, "", $i); size[p] = $i }
       }
       $3 == 0 && ($4 == "cuMemFree_v2" || $4 == "cuMemFreeAsync") && / -> CUDA_SUCCESS$/ {
         for (i = 5; i <= NF; i++) if ($i ~ /^ptr=/) delete size[$i]
       }
       END { n = 0; b = 0; for (p in size) { n++; b += size[p] }; print n, b }' "$1"
}
used0=$(sed -n 's/^used=//p' "$out/clean")
read -r n0 b0 <<< "$(live "$out/clean.log")"
base0=$((used0 - b0))
total=0 survived=0
for f in $faults; do
  api=${f%%=*} status=${f#*=}
  count=$(awk -v api="$api" '$3 == 0 && $4 == api' "$out/clean.log" | wc -l)
  echo "$api: $count calls by the shim in a clean run"
  for n in $(seq 1 "$count"); do
    for which in "#$n" "#$n+"; do
      rule="$api$which:depth=0=$status"
      total=$((total + 1))
      rm -f "$out/log"
      SIMCUDA_FAIL=$rule SIMCUDA_LOG=$out/log "$client" "$orig" > "$out/run" 2> "$out/err"
      rc=$?
      used=$(sed -n 's/^used=//p' "$out/run")
      read -r n b <<< "$(live "$out/log")"
      if ! grep -q " $api .*injected=1" "$out/log"; then
        echo "FAIL [$rule]: no call was failed (the count or the rule is wrong)"
      elif [ $rc -gt 128 ]; then
        echo "FAIL [$rule]: killed by signal $((rc - 128))"
      elif [ $rc != 0 ]; then
        echo "FAIL [$rule]: exit $rc"; sed 's/^/  /' "$out/err" | head -8
      elif [ "$n" -gt 1 ]; then
        echo "FAIL [$rule]: $n allocations of the shim ($b bytes) never freed, at most 1 cached"
      elif [ -z "$used" ] || [ $((used - b)) -gt $((base0 + 1024)) ]; then
        # 1024: the simulator's rounding of the cached buffer.
        echo "FAIL [$rule]: $used bytes still taken, $b of them the shim's cache;" \
             "clean run $used0, $b0 of them the cache"
      else
        survived=$((survived + 1))
        echo "ok   [$rule]: $(grep -v '^used=' "$out/run" | awk '{print $NF}' | sort | uniq -c | xargs)"
        continue
      fi
      sed 's/^/  /' "$out/run" | head -12
    done
  done
done
echo "$arch: $survived injected faults survived out of $total (clean run keeps $used0 bytes)"
[ "$total" -gt 0 ] || { echo "FAIL: the shim made no call to fail"; exit 1; }
[ "$survived" = "$total" ]
