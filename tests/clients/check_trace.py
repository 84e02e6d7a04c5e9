"""Checks that bf16shim's trace of a program, and `bf16shim report` of that trace, match the
GEMM calls the program really made.

The reference is the simulator's call log (SIMCUDA_LOG) of the same program run without the
shim on a device where every one of its GEMMs runs natively: its depth-0 lines are the calls
the program made into cuBLAS and cuBLASLt.  The trace (BF16SHIM_TRACE) of the run with the
shim must hold the same calls, in the same order, with the same shapes, types and transposes;
the report must count them all, none failed, and group exactly those shapes.

Usage: check_trace.py TRACE SIMLOG BF16SHIM_COMMAND
"""
import collections
import json
import subprocess
import sys

# The entry points bf16shim intercepts (and so traces).
TRACED = {"cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasGemmBatchedEx", "cublasSgemmEx",
          "cublasLtMatmul"}
TRACED |= {api + "_64" for api in TRACED if api != "cublasLtMatmul"}
KEYS = ("api", "transa", "transb", "m", "n", "k", "batch", "atype", "btype", "ctype")


def from_log(path):
    calls = []
    for line in open(path):
        f = line.split()
        if len(f) < 5 or f[0].startswith("#") or f[2] != "0" or f[3] not in TRACED:
            continue
        args = dict(kv.split("=", 1) for kv in f[4:] if "=" in kv)
        call = {"api": f[3]}
        for key in KEYS[1:]:
            call[key] = args.get(key)
        calls.append(tuple(str(call[k]) for k in KEYS))
    return calls


def from_trace(path):
    records = sorted((json.loads(line) for line in open(path) if line.strip()),
                     key=lambda r: r["seq"])
    return [tuple(str(r[k]) for k in KEYS) for r in records], records


def main(trace, simlog, command):
    want = from_log(simlog)
    got, records = from_trace(trace)
    problems = []
    if not want:
        problems.append(f"{simlog} holds no GEMM call: the reference run made none")
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                problems.append(f"call {i + 1}: traced {g}, made {w}")
                break
        if len(got) != len(want):
            problems.append(f"{len(got)} calls traced, {len(want)} made")
    failed = [r for r in records if r["status"] != 0]
    if failed:
        problems.append(f"{len(failed)} traced calls failed, e.g. {failed[0]}")

    report = json.loads(subprocess.run([command, "report", "--json", trace], check=True,
                                       capture_output=True, text=True).stdout)
    shapes = collections.Counter()
    for g in report["groups"]:
        for s in g["shapes"]:
            shapes[(g["api"], g["atype"], g["btype"], g["ctype"], s["m"], s["n"], s["k"],
                    s["batch"])] += s["count"]
    made = collections.Counter((w[0], w[7], w[8], w[9], int(w[3]), int(w[4]), int(w[5]),
                                int(w[6])) for w in want)
    if report["calls"] != len(want) or report["failed"] != 0:
        problems.append(f"report: {report['calls']} calls, {report['failed']} failed; "
                        f"{len(want)} made")
    if shapes != made:
        problems.append(f"report groups {dict(shapes - made)} not made, "
                        f"{dict(made - shapes)} made but not reported")

    apis = collections.Counter(w[0] for w in want)
    print(f"trace: {len(got)} calls ({', '.join(f'{n} {a}' for a, n in sorted(apis.items()))}), "
          f"report: {report['calls']} calls in {len(report['groups'])} groups")
    for p in problems:
        print("FAIL trace: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
