#!/bin/bash
# cuBLASLt matmuls are traced like GEMMs: one JSON line each, with the plan's decision.
set -eu
client=$1 shim=$2
trace=$(mktemp -u)
trap 'rm -f "$trace"' EXIT
LD_PRELOAD=$shim BF16SHIM_TRACE=$trace "$client" check >/dev/null
python3 - "$trace" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
lt = [r for r in recs if r["api"] == "cublasLtMatmul"]
rewritten = [r for r in lt if r["decision"] == "rewrite"]
print(f"{len(recs)} records, {len(lt)} cublasLtMatmul, {len(rewritten)} rewritten")
assert lt and rewritten, "no rewritten cublasLtMatmul in the trace"
assert all(r["status"] == 0 and r["status_name"] == "CUBLAS_STATUS_SUCCESS" for r in rewritten)
assert all(r["sm"] == 61 and r["atype"] == "R_16BF" for r in rewritten), "device or types wrong"
assert all(r["m"] > 0 and r["k"] >= 0 for r in rewritten), "shapes missing"
PY
