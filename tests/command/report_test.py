#!/usr/bin/env python3
"""`bf16shim report`: a trace with failures, retries, several shapes, two processes in two
files and a partial last line; the text summary (failures first, counts, shapes) and --json;
bad usage; and the output of the real trace writer (trace_test).
Usage: report_test.py BF16SHIM TRACE_TEST"""
import json
import os
import subprocess
import sys
import tempfile

failures = []
checks = 0


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print(f"FAILED: {what}{': ' + detail if detail else ''}")


def record(api="cublasGemmEx", m=40, n=24, k=64, batch=1, t="R_16BF", c="R_16BF",
           decision="fp32", reason="bf16 GEMMs are not supported below sm_70", status=0,
           first=None, pid=100, seq=1):
    names = {0: "CUBLAS_STATUS_SUCCESS", 15: "CUBLAS_STATUS_NOT_SUPPORTED"}
    r = {"api": api, "m": m, "n": n, "k": k, "batch": batch, "transa": "T", "transb": "N",
         "atype": t, "btype": t, "ctype": c, "compute": "R_32F", "algo": "DEFAULT_TENSOR_OP",
         "pointer_mode": "host", "device": 0, "sm": 61, "real_sm": 61, "decision": decision,
         "reason": reason, "status": status, "status_name": names[status]}
    if first is not None:
        r.update(first_status=first, first_status_name=names[first])
    r.update(pid=pid, tid=pid, seq=seq, t_ns=1_700_000_000_000_000_000 + seq)
    return json.dumps(r)


def report(cmd, *args):
    return subprocess.run([cmd, "report", *args], capture_output=True, text=True)


def main():
    cmd, trace_test = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "t.100.jsonl"), os.path.join(tmp, "t.200.jsonl")
        with open(a, "w") as f:
            for i, shape in enumerate([(40, 24, 64), (40, 24, 64), (16, 8, 32)]):
                f.write(record(m=shape[0], n=shape[1], k=shape[2], seq=i + 1) + "\n")
            f.write(record(t="R_16F", c="R_32F", decision="pass", reason="no bf16 operand",
                           status=15, seq=4) + "\n")
            f.write('{"api":"cublasGemmEx","m":1,"n"')  # killed mid-write
        with open(b, "w") as f:
            f.write(record(t="R_16F", c="R_32F", decision="pass", reason="no bf16 operand",
                           status=15, m=8, n=8, k=8, pid=200, seq=1) + "\n")
            f.write(record(api="cublasGemmStridedBatchedEx", m=16, n=8, k=32, batch=4,
                           status=15, decision="pass", reason="BF16SHIM_MODE=off",
                           pid=200, seq=2) + "\n")
            f.write(record(status=0, first=15, decision="fp32",
                           reason="the library refused a bf16 GEMM", pid=200, seq=3) + "\n")

        p = report(cmd, a, b)
        out = p.stdout
        print(out)
        check("exit status 0", p.returncode == 0, f"{p.returncode}, stderr {p.stderr}")
        check("partial line reported", "1 lines are not trace records" in p.stderr, p.stderr)
        check("totals", out.startswith("7 calls from 2 processes, 3 failed"), out)
        lines = [line for line in out.splitlines()[1:] if line.split()[:1] and
                 line.split()[0].isdigit()]
        statuses = [line.split()[1] for line in lines]
        check("failures first", statuses == ["NOT_SUPPORTED", "NOT_SUPPORTED", "SUCCESS",
                                             "SUCCESS"], str(statuses))
        check("4 groups", len(lines) == 4, "\n".join(lines))
        check("16F failures grouped across files, counted",
              any(line.split()[0] == "2" and "R_16F -> R_32F" in line for line in lines), out)
        check("shapes of a group, with counts", "shapes: 40x24x64 (2), 16x8x32" in out, out)
        check("batch shown", "16x8x32 batch 4" in out, out)
        check("retry shown", "SUCCESS after NOT_SUPPORTED" in out, out)
        check("reasons shown", "why: BF16SHIM_MODE=off" in out, out)

        p = report(cmd, "--json", a, b)
        check("--json exit status", p.returncode == 0, p.stderr)
        try:
            s = json.loads(p.stdout)
        except ValueError as e:
            check("--json parses", False, f"{e}: {p.stdout}")
            s = {"groups": []}
        g = s["groups"]
        check("--json totals", (s.get("calls"), s.get("failed"), s.get("processes")) == (7, 3, 2),
              str({k: s.get(k) for k in ("calls", "failed", "processes")}))
        check("--json counts add up", sum(x["count"] for x in g) == 7, str(g))
        check("--json failures first", [x["failed"] for x in g] == [True, True, False, False],
              str([x["failed"] for x in g]))
        big = [x for x in g if x["decision"] == "fp32" and "first_status" not in x]
        check("--json shapes", big and big[0]["shapes"] ==
              [{"m": 40, "n": 24, "k": 64, "batch": 1, "count": 2},
               {"m": 16, "n": 8, "k": 32, "batch": 1, "count": 1}], str(big))
        retried = [x for x in g if "first_status" in x]
        check("--json first_status", len(retried) == 1 and
              retried[0]["first_status_name"] == "CUBLAS_STATUS_NOT_SUPPORTED", str(retried))

        p = report(cmd, os.path.join(tmp, "missing.jsonl"))
        check("missing file fails", p.returncode == 1 and "missing.jsonl" in p.stderr,
              f"{p.returncode} {p.stderr}")
        p = report(cmd)
        check("no file is a usage error", p.returncode == 2, str(p.returncode))
        p = subprocess.run([cmd, "report", "-"], input=open(b).read(), capture_output=True,
                           text=True)
        check("standard input", p.stdout.startswith("3 calls from 1 process, 2 failed"), p.stdout)

        # What the real writer produces reads back whole.
        real = os.path.join(tmp, "real")
        os.mkdir(real)
        subprocess.run([trace_test, "threads", "50"], check=True,
                       env={**os.environ, "BF16SHIM_TRACE": os.path.join(real, "w.%p.jsonl")})
        files = [os.path.join(real, f) for f in sorted(os.listdir(real))]
        p = report(cmd, "--json", *files)
        s = json.loads(p.stdout)
        check("real trace: every record read", (s["calls"], s["failed"], s["processes"]) ==
              (500, 250, 2), str({k: s[k] for k in ("calls", "failed", "processes")}))
        check("real trace: nothing skipped", p.stderr == "", p.stderr)
    print(f"report_test: {checks} checks, {len(failures)} failed")
    sys.exit(1 if failures else 0)


main()
