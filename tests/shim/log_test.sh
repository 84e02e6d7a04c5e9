#!/bin/bash
# The shim's log: each distinct rewrite logged once (at info), a one-line summary at exit only
# when the shim did something, nothing at all otherwise, and bad settings reported.
set -eu
client=$1 shim=$2
log=$(mktemp -u)
trap 'rm -f "$log"' EXIT
# sm_61: rewrites happen.
SIMCUDA_ARCH=sm_61 LD_PRELOAD=$shim BF16SHIM_LOG=info BF16SHIM_LOG_FILE=$log "$client" >/dev/null
plans=$(grep -cE ': (fp32|fp16|decode) path \(' "$log" || true)
distinct=$(grep -E ': (fp32|fp16|decode) path \(' "$log" | sort -u | wc -l)
[ "$plans" -ge 2 ] || { echo "expected rewrites logged, got $plans"; cat "$log"; exit 1; }
[ "$plans" = "$distinct" ] || { echo "a rewrite was logged twice"; cat "$log"; exit 1; }
grep -q 'GEMMs rewritten' "$log" || { echo "no exit summary"; cat "$log"; exit 1; }
[ "$(grep -c 'GEMMs rewritten' "$log")" = 1 ] || { echo "summary printed twice"; exit 1; }
# sm_90: nothing rewritten, so nothing printed, not even at info.
rm -f "$log"
out=$(SIMCUDA_ARCH=sm_90 LD_PRELOAD=$shim BF16SHIM_LOG=info "$client" 2>&1 >/dev/null)
[ -z "$out" ] || { echo "printed on sm_90: $out"; exit 1; }
# A bad setting is reported once, and the default kept.
out=$(SIMCUDA_ARCH=sm_61 LD_PRELOAD=$shim BF16SHIM_MODE=sometimes "$client" 2>&1 >/dev/null)
echo "$out" | grep -q 'ignoring BF16SHIM_MODE=sometimes' || { echo "bad setting not reported: $out"; exit 1; }
echo "log: $plans distinct rewrites logged once each, one summary"
# BF16SHIM_LOG_FILE is never opened through a symbolic link, and never truncated.
dir=$(mktemp -d)
echo "keep me" > "$dir/target"
ln -s "$dir/target" "$dir/link"
SIMCUDA_ARCH=sm_61 LD_PRELOAD=$shim BF16SHIM_LOG=info BF16SHIM_LOG_FILE=$dir/link "$client" >/dev/null 2>&1
[ "$(cat "$dir/target")" = "keep me" ] || { echo "the log was written through a link"; rm -rf "$dir"; exit 1; }
echo "old line" > "$dir/log"
SIMCUDA_ARCH=sm_61 LD_PRELOAD=$shim BF16SHIM_LOG=info BF16SHIM_LOG_FILE=$dir/log "$client" >/dev/null 2>&1
[ "$(head -1 "$dir/log")" = "old line" ] && [ "$(wc -l < "$dir/log")" -gt 1 ] ||
  { echo "the log file was truncated or not appended to"; rm -rf "$dir"; exit 1; }
rm -rf "$dir"
echo "log file: no link followed, appended"
