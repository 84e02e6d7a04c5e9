#!/usr/bin/env bash
# Registration is cheap and lazy: nvcc's code registers its fatbin and kernels at load, and
# the runtime hands the image to the driver (cuLibraryLoadData) only at its first use, once.
# Usage: lazy_test.sh PROGRAM   (LD_LIBRARY_PATH names the simulated stack)
set -u
app=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
SIMCUDA_ARCH=sm_75 SIMCUDA_LOG=$log "$app" --kernels ok --gemm ok >/dev/null 2>&1 ||
	{ echo "FAILED: $app did not pass"; exit 1; }
first() { grep -n " $1 " "$log" | head -n 1 | cut -d: -f1; }
reg=$(first __cudaRegisterFatBinary)
fun=$(first __cudaRegisterFunction)
load=$(first cuLibraryLoadData)
loads=$(grep -c " cuLibraryLoadData " "$log")
# A call is logged when it returns, after the calls it made: the load belongs to the first
# application call (depth 0) logged after it, which must be the program's first use of the
# module (its cudaMemcpyToSymbol).
owner=$(awk -v l="$load" 'NR > l && $3 == 0 { print $4; exit }' "$log")
echo "register at line $reg, first kernel at $fun, load at $load inside $owner ($loads loads)"
[ -n "$reg" ] && [ -n "$fun" ] && [ -n "$load" ] ||
	{ echo "FAILED: a call is missing from the log"; exit 1; }
[ "$owner" = cudaMemcpyToSymbol ] ||
	{ echo "FAILED: the image was loaded by $owner, not at its first use"; exit 1; }
[ "$loads" = 1 ] || { echo "FAILED: the image was loaded $loads times, want once"; exit 1; }
# Nothing but registration before main: no driver call, no initialisation.
before=$(head -n $((fun)) "$log" | grep -vc "__cudaRegister")
[ "$before" = 0 ] || { echo "FAILED: $before other calls during registration"; exit 1; }
exit 0
