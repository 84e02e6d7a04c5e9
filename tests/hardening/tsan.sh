#!/bin/bash
# The concurrency test under ThreadSanitizer (issue 8, point 3): too slow for CI here, run by
# hand.  Configures a build with -Db_sanitize=thread in a temporary folder (or $1), builds the
# shim, the simulated CUDA stack and stress_client, and runs 8 threads on one device and on
# two.  Usage: tests/hardening/tsan.sh [BUILD_DIR] [ITERS]   (ITERS per thread, default 200)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$(mktemp -d /tmp/bf16shim-tsan.XXXXXX)}
iters=${2:-200}
[ -f "$build/build.ninja" ] ||
  meson setup "$build" "$src" -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug >/dev/null
ninja -C "$build" -j2 src/libbf16shim.so tests/hardening/stress_client \
  tests/simcuda/v13/libcuda.so.1 tests/simcuda/v13/libcudart.so.13 \
  tests/simcuda/v13/libcublas.so.13 tests/simcuda/v13/libcublasLt.so.13 >/dev/null
export LD_LIBRARY_PATH=$build/tests/simcuda/v13 LD_PRELOAD=$build/src/libbf16shim.so
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0 ${TSAN_OPTIONS:-}"
rc=0
for arch in sm_61 sm_75,sm_61; do
  echo "== SIMCUDA_ARCH=$arch: 8 threads x $iters GEMMs under ThreadSanitizer"
  SIMCUDA_ARCH=$arch "$build/tests/hardening/stress_client" 8 "$iters" || rc=$?
done
[ $rc = 0 ] && echo "tsan: no data race reported, every GEMM right" || echo "tsan: FAILED ($rc)"
exit $rc
