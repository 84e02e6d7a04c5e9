#!/usr/bin/env python3
"""Runs trace_test (a program linked with src/base/trace.c) and checks the trace it writes.
Usage: trace_check.py TRACE_TEST CASE
  threads    8 threads x N records with BF16SHIM_TRACE=DIR/t.%p: every line parses, one file
             per process, per-process seq 1..N complete, every (thread, record) present once,
             fields as written (escaped strings, status names, first_status omitted at -1)
  shared     the same without %p: parent and forked child append to one file, lines whole
  names      enum names against the vendor headers
  off        BF16SHIM_TRACE unset or empty: disabled, nothing written
  symlink    the trace name is a symbolic link: refused (O_NOFOLLOW), nothing written
  tally      BF16SHIM_TALLY=1 (src/base/tally.c, bf16shim_tally()): 8 threads x 100 records, each
             of its own shape, counted once each: a group per distinct record while there
             is room, the rest by kind with shape -1, none dropped, no file written; a forked
             child starts from nothing; off without BF16SHIM_TALLY"""
import json
import os
import subprocess
import sys
import tempfile

PER_THREAD = 2000
failures = []


def fail(msg):
    failures.append(msg)
    print("FAILED:", msg)


def run(prog, args, env_extra, expect_rc=0):
    env = dict(os.environ)
    env.pop("BF16SHIM_TRACE", None)
    env.update(env_extra)
    p = subprocess.run([prog] + args, env=env, capture_output=True, text=True)
    if p.returncode != expect_rc:
        fail(f"{args}: exit status {p.returncode}, want {expect_rc}; stderr: {p.stderr}")
    return p


def parse(path):
    """The records of a trace file; the first few broken lines are shown, the rest counted."""
    records, broken = [], 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                if not line.endswith("\n"):
                    raise ValueError("line not terminated")
                records.append(json.loads(line))
            except ValueError as e:
                broken += 1
                if broken <= 3:
                    fail(f"{path}:{n}: not a JSON line ({e}): {line[:300]!r}")
    if broken > 3:
        fail(f"{path}: {broken} broken lines in all")
    return records


def check_process(records, nthreads, tag, where):
    """One process's records: seqs 1..count, each (thread, i) once, fields as written."""
    want = nthreads * PER_THREAD
    if len(records) != want:
        fail(f"{where}: {len(records)} records, want {want}")
    seqs = sorted(r["seq"] for r in records)
    if seqs != list(range(1, len(records) + 1)):
        fail(f"{where}: seq not 1..{len(records)} without gaps or repeats")
    seen = {(r["m"], r["n"]) for r in records}
    missing = [(t, i) for t in range(nthreads) for i in range(PER_THREAD) if (t, i) not in seen]
    if missing:
        fail(f"{where}: {len(missing)} (thread, record) pairs missing, e.g. {missing[:3]}")
    tids = {}
    for r in records:
        tids.setdefault(r["m"], set()).add(r["tid"])
    if any(len(t) != 1 for t in tids.values()) or len({min(t) for t in tids.values()}) != nthreads:
        fail(f"{where}: tid is not one distinct value per thread: {tids}")
    pids = {r["pid"] for r in records}
    if len(pids) != 1:
        fail(f"{where}: several pids in one process's records: {pids}")
    r = records[0]
    expect = {"api": "cublasGemmEx", "k": tag, "batch": 1, "transa": "T", "transb": "N",
              "atype": "R_16BF", "btype": "R_16BF", "ctype": "R_16BF", "compute": "R_32F",
              "algo": "DEFAULT_TENSOR_OP", "pointer_mode": "host", "device": 0, "sm": 61,
              "real_sm": 61, "decision": "fp32",
              "reason": 'a reason with "quotes", a \\ and a\ttab'}
    for key, value in expect.items():
        if r.get(key) != value:
            fail(f"{where}: {key} = {r.get(key)!r}, want {value!r}")
    for r in records:
        failed = r["n"] % 2 == 1
        want_status = (15, "CUBLAS_STATUS_NOT_SUPPORTED") if failed else (0, "CUBLAS_STATUS_SUCCESS")
        if (r["status"], r.get("status_name")) != want_status:
            fail(f"{where}: status {r['status']} {r.get('status_name')}, want {want_status}")
            break
        if failed != ("first_status" in r) or (failed and r["first_status_name"] != want_status[1]):
            fail(f"{where}: first_status present={'first_status' in r} on a "
                 f"{'failed' if failed else 'successful'} record: {r}")
            break
        # Every fifth record ran with k split in 4 (trace_test.c); "splits" only there.
        if r.get("splits") != (4 if r["n"] % 5 == 0 else None):
            fail(f"{where}: splits {r.get('splits')!r} on record {r['n']}")
            break
        if not isinstance(r["t_ns"], int) or r["t_ns"] < 1_500_000_000 * 10**9:
            fail(f"{where}: t_ns {r['t_ns']} is not CLOCK_REALTIME nanoseconds")
            break


def case_threads(prog, tmp, shared):
    name = os.path.join(tmp, "t.jsonl" if shared else "t.%p.jsonl")
    run(prog, ["threads", str(PER_THREAD)], {"BF16SHIM_TRACE": name})
    files = sorted(os.listdir(tmp))
    by_pid = {}
    for f in files:
        for r in parse(os.path.join(tmp, f)):
            by_pid.setdefault(r["pid"], []).append(r)
            if not shared and f != f"t.{r['pid']}.jsonl":
                fail(f"a record of pid {r['pid']} in {f}")
                return
    want_files = ["t.jsonl"] if shared else sorted(f"t.{pid}.jsonl" for pid in by_pid)
    if files != want_files:
        fail(f"files {files}, want {want_files}")
    if len(by_pid) != 2:
        fail(f"records from {len(by_pid)} processes, want 2 (parent and forked child)")
        return
    parent, child = sorted(by_pid.values(), key=len, reverse=True)
    check_process(parent, 8, 0, "parent")
    check_process(child, 2, 1, "forked child")
    if not failures:
        print(f"{'shared' if shared else 'per-process'}: {len(parent)} + {len(child)} records, "
              f"all whole, seqs complete")


def case_names(prog, tmp):
    path = os.path.join(tmp, "names.jsonl")
    p = subprocess.run([prog, "names"], env={**os.environ, "BF16SHIM_TRACE": path},
                       capture_output=True, text=True)
    if p.returncode == 77:
        print("built without the vendor headers")
        sys.exit(77)
    records = parse(path)
    want = [line.split() for line in p.stdout.splitlines()]
    if len(records) != len(want):
        fail(f"{len(records)} records for {len(want)} values")
    for r, (field, value, name) in zip(records, want):
        if field == "lt-algo":
            if "algo" not in r or r["algo"] is not None:
                fail(f"cublasLtMatmul record: algo {r.get('algo', 'missing')!r}, want null")
            continue
        key = "status_name" if field == "status" else field
        if r.get(key) != name:
            fail(f"{field} {value}: trace says {r.get(key)!r}, the vendor header {name!r}")
    print(f"names: {len(want)} enum values named as the vendor headers name them")


def case_off(prog, tmp):
    for env in ({}, {"BF16SHIM_TRACE": ""}):
        p = run(prog, ["enabled"], env)
        if p.stdout.strip() != "0":
            fail(f"trace_enabled() = {p.stdout.strip()} with {env or 'BF16SHIM_TRACE unset'}")
    if os.listdir(tmp):
        fail(f"files written while tracing was off: {os.listdir(tmp)}")
    print("off: disabled, nothing written")


def case_symlink(prog, tmp):
    target = os.path.join(tmp, "target")
    link = os.path.join(tmp, "link")
    open(target, "w").close()
    os.symlink(target, link)
    p = run(prog, ["enabled"], {"BF16SHIM_TRACE": link})
    if p.stdout.strip() != "0":
        fail(f"trace_enabled() = {p.stdout.strip()} for a symbolic link")
    if os.path.getsize(target):
        fail("the trace was written through a symbolic link")
    if "cannot open trace file" not in p.stderr:
        fail(f"no warning about the refused file; stderr: {p.stderr!r}")
    print("symlink: refused with a warning")


def case_tally(prog, tmp):
    n = 100
    p = run(prog, ["tally", str(n)], {"BF16SHIM_TALLY": "1"})
    parts, who = {}, None
    for line in p.stdout.splitlines():
        if line.split()[0] in ("parent", "child-before", "child-after"):
            who = line.split()[0]
            if len(line.split()) != 2 or not line.split()[1].isdigit():
                fail(f"tally: {line}")
            parts[who] = []
        else:
            parts.setdefault(who, []).append(json.loads(line))
    groups = parts.get("parent", [])
    total = sum(g["count"] for g in groups)
    if total != 8 * n:
        fail(f"tally: {total} calls counted, want {8 * n}")
    shaped = [g for g in groups if g["m"] >= 0]
    shapeless = [g for g in groups if g["m"] == -1]
    if any(g["count"] != 1 for g in shaped) or not 400 <= len(shaped) < 8 * n:
        fail(f"tally: {len(shaped)} groups with their shape, want one per call up to the table's room")
    if not shapeless or sum(g["count"] for g in shapeless) != 8 * n - len(shaped):
        fail(f"tally: the calls past the room are not counted by kind: {shapeless}")
    if any("dropped" in g or "tid" in g or "seq" in g for g in groups):
        fail("tally: dropped calls, or per-call fields")
    if any(g["status"] == 15 and g.get("first_status_name") != "CUBLAS_STATUS_NOT_SUPPORTED"
           for g in groups):
        fail("tally: a group's record lacks the trace's fields")
    if parts.get("child-before") != [] or \
            [g["count"] for g in parts.get("child-after", [])] != [3]:
        fail(f"tally: the forked child: before {parts.get('child-before')}, "
             f"after {parts.get('child-after')}")
    if os.listdir(tmp):
        fail(f"tally: files written: {os.listdir(tmp)}")
    p = run(prog, ["tally", "1"], {})
    if not p.stdout.startswith("parent off"):
        fail(f"tally off: {p.stdout[:200]}")
    print(f"tally: {total} calls in {len(shaped)} groups with shapes and {len(shapeless)} "
          f"without; the child's own 3")


def main():
    prog, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        if case in ("threads", "shared"):
            case_threads(prog, tmp, case == "shared")
        elif case == "names":
            case_names(prog, tmp)
        elif case == "off":
            case_off(prog, tmp)
        elif case == "tally":
            case_tally(prog, tmp)
        elif case == "symlink":
            case_symlink(prog, tmp)
        else:
            sys.exit(f"unknown case {case}")
    sys.exit(1 if failures else 0)


main()
