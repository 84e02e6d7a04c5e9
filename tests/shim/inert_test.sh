#!/bin/bash
# In a process that never calls cuBLAS the shim is inert: no output, no CUDA library
# mapped, no thread started.
set -eu
shim=$1
out=$(LD_PRELOAD=$shim /bin/true 2>&1)
[ -z "$out" ] || { echo "/bin/true printed: $out"; exit 1; }
out=$(LD_PRELOAD=$shim sh -c 'echo hello | tr a-z A-Z; ls / >/dev/null' 2>&1)
[ "$out" = HELLO ] || { echo "pipeline printed: $out"; exit 1; }
maps=$(LD_PRELOAD=$shim cat /proc/self/maps)
echo "$maps" | grep -q libbf16shim || { echo "the shim was not loaded at all"; exit 1; }
if echo "$maps" | grep -E 'libcu(da|dart|blas|blasLt)\.so'; then
  echo "a CUDA library was mapped"; exit 1
fi
threads=$(LD_PRELOAD=$shim awk '/^Threads:/ {print $2}' /proc/self/status)
[ "$threads" = 1 ] || { echo "threads: $threads"; exit 1; }
echo "inert: no output, no CUDA library, 1 thread"
