#!/bin/bash
# cuBLASLt matmuls are traced like GEMMs: one JSON line each, written by the same walk, with
# the decision in the same words (on sm_61 a rewrite takes the fp32, fused or decode path).
set -eu
client=$1 shim=$2
trace=$(mktemp -u)
trap 'rm -f "$trace"' EXIT
LD_PRELOAD=$shim BF16SHIM_TRACE=$trace "$client" check >/dev/null
python3 - "$trace" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
lt = [r for r in recs if r["api"] == "cublasLtMatmul"]
rewritten = [r for r in lt if r["decision"] in ("fp32", "fp16", "decode", "fused")]
print(f"{len(recs)} records, {len(lt)} cublasLtMatmul, {len(rewritten)} rewritten")
assert lt and rewritten, "no rewritten cublasLtMatmul in the trace"
assert all(r["status"] == 0 and r["status_name"] == "CUBLAS_STATUS_SUCCESS" for r in rewritten)
assert all(r["sm"] == 61 and r["atype"] == "R_16BF" for r in rewritten), "device or types wrong"
assert all(r["m"] > 0 and r["k"] >= 0 for r in rewritten), "shapes missing"
assert all(r["decision"] in ("fp32", "fused") or
           (r["decision"] == "decode" and min(r["m"], r["n"]) <= 16)
           for r in rewritten), "below sm_70 a rewrite is fp32 or fused, or decode for small shapes"
assert all(r["algo"] is None for r in lt), "an Lt algorithm is opaque: null"
decisions = {r["decision"] for r in lt}
assert decisions <= {"pass", "compute-32f", "fp32", "fp16", "decode", "fused"}, decisions
PY
