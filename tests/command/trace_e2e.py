#!/usr/bin/env python3
"""A traced run through the real shim: `bf16shim run --sim sm_61 --trace DIR/t.%p.jsonl` over
a shell that runs diff_client (tests/shim) twice.  Each of the two client processes gets its
own file; every record is whole, seqs are complete, the device facts are right, and the bf16
GEMMs diff_client marks rewritable appear as rewritten and successful, through each API.
`bf16shim report` reads the files back.
Usage: trace_e2e.py BF16SHIM DIFF_CLIENT"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(what, ok, detail=""):
    if not ok:
        failures.append(what)
        print(f"FAILED: {what}{': ' + detail if detail else ''}")


def main():
    cmd, client = sys.argv[1], sys.argv[2]
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD") and not k.startswith("SIMCUDA_")}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "client.out")
        p = subprocess.run([cmd, "run", "--sim", "sm_61", "--trace", os.path.join(tmp, "t.%p.jsonl"),
                            "--", "sh", "-c", f'"$0" > {out}.1 && "$0" > {out}.2', client],
                           env=env, capture_output=True, text=True)
        check("traced run exit status", p.returncode == 0, f"{p.returncode}: {p.stderr}")
        rewritable = sum(1 for line in open(out + ".1") if line.rstrip().endswith("rewritable"))
        files = sorted(f for f in os.listdir(tmp) if f.startswith("t."))
        if not files:
            check("trace files written", False,
                  "no trace file at all: does the dispatcher (src/gemm/walk.c) call trace_write?")
            return
        check("one file per client process", len(files) == 2, str(files))
        for f in files:
            records = [json.loads(line) for line in open(os.path.join(tmp, f))]
            pid = int(f.split(".")[1])
            check(f"{f}: pid field", all(r["pid"] == pid for r in records))
            check(f"{f}: seq 1..n", [r["seq"] for r in records] == list(range(1, len(records) + 1)),
                  str([r["seq"] for r in records]))
            check(f"{f}: device facts", all((r["device"], r["sm"], r["real_sm"]) == (0, 61, 61)
                                            for r in records if r["device"] != -1),
                  str({(r["device"], r["sm"], r["real_sm"]) for r in records}))
            rewritten = [r for r in records if r["atype"] == "R_16BF" and
                         r["decision"] not in ("pass", "pass-default-algo") and r["status"] == 0]
            # The three empty ones (m=0, k=0, batch 0) may be answered without a rewrite.
            check(f"{f}: rewritten bf16 GEMMs recorded", len(rewritten) >= rewritable - 3,
                  f"{len(rewritten)} rewritten records for {rewritable} rewritable calls")
            apis = {r["api"] for r in rewritten}
            for api in ("cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasSgemmEx"):
                check(f"{f}: {api} rewritten", api in apis, str(apis))
            # diff_client's first bf16 call, "bf16 NN", field by field.
            first = [r for r in records if r["api"] == "cublasGemmEx" and r["atype"] == "R_16BF"][:1]
            check(f"{f}: bf16 GemmEx recorded", bool(first))
            if first:
                r = first[0]
                check(f"{f}: the first bf16 GemmEx as called",
                      (r["m"], r["n"], r["k"], r["transa"], r["transb"], r["ctype"], r["algo"],
                       r["pointer_mode"]) == (16, 8, 12, "N", "N", "R_16BF", "DEFAULT_TENSOR_OP",
                                              "host"), json.dumps(r))
        p = subprocess.run([cmd, "report", *[os.path.join(tmp, f) for f in files]],
                           capture_output=True, text=True)
        check("report reads the trace", p.returncode == 0 and " 2 processes" in p.stdout,
              p.stdout + p.stderr)
        print(p.stdout)


main()
print(f"trace_e2e: {len(failures)} failed")
sys.exit(1 if failures else 0)
