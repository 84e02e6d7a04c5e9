#!/usr/bin/env python3
"""Every module the lowering calls lowered must assemble for its target (issue 30).

Lowers, with bf16shim-lower, the PTX of every module of every file with GPU code under the
given folders (the client environments' site-packages: torch, triton and the nvidia-*
libraries) and of the given files (the project's own nvcc builds), for each target, as the
library would when the module is loaded there (a PTX file as the library lowers PTX text:
--leave-out); then hands each lowered module to a real ptxas: CUDA 13's for sm_75, CUDA
12's (Triton's) for sm_70 and sm_61.  Each one goes through ptxas for its target's virtual
architecture (`--gpu-name compute_XX`: every check of the PTX against the target, its ISA
version and the instructions it takes, without the code generation that would take an hour
for the gigabyte and a half of PTX the client environments lower to); with --assemble, the
modules where the pass rewrote instructions are also assembled into SASS (`--gpu-name
sm_XX -O0`).

Files and targets go to --jobs workers.  What a file gave is kept in a cache folder, keyed
by the file (path, size, time), the target, bf16shim-lower itself and the ptxas, so a run
does again only what changed; each ptxas verdict is kept too, keyed by the lowered text, so
a new bf16shim-lower hands ptxas only the modules it lowers differently.  Prints, per
target, the modules lowered, the kernels left out by the instruction that keeps them out
and the time taken, and every module ptxas refused; exits 1 if there is one.  A module
refused on a line that ptxas refuses for sm_90a too (an instruction outside the PTX ISA,
passed through as written) is listed apart and does not fail the run.

usage: lower_wheels.py --lower EXE --scan EXE --ptxas SM=PTXAS... [--old-ptxas-in DIR]
                       [--cache DIR] [--jobs N] [--target SM...] [--assemble] PATH...
--old-ptxas-in: the folder of Python environments whose Triton bundles a CUDA 12 ptxas (the
oldest is taken) for the targets --ptxas does not name.  BF16SHIM_WHEELS_CACHE, when set,
names the cache folder instead of --cache.
"""
import argparse
import collections
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LOWERED = re.compile(r"^(.*): module (\d+): PTX (\S+) lowered for sm_(\d+): (\d+) instructions "
                     r"rewritten, (\d+) kernels left out$")
TEXT_LOWERED = re.compile(r"^(.*): PTX sm_(\d+) lowered for sm_(\d+): (\d+) instructions "
                          r"rewritten, (\d+) kernels left out$")
WRITTEN = re.compile(r"^(.*): module (\d+): written to (.*)$")
LEFT_OUT = re.compile(r"cannot be lowered: line \d+: '([^']*)' needs sm_(\d+)")


def files_with_ptx(scan, roots):
    """The files under roots that hold PTX, by bf16shim scan's reading of them."""
    out = subprocess.run([scan, "--arch", "sm_75", "--json", "--all"] + roots,
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    return sorted(f["path"] for f in report["files"]
                  if any(t.startswith("compute_") for t in f.get("targets", [])))


def digest_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def release(ptxas):
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def old_ptxas(folder):
    """The oldest CUDA 12 ptxas a Triton of the environments under folder bundles."""
    found = []
    for p in glob.glob(os.path.join(folder, "*", "lib", "python3*", "site-packages", "triton",
                                    "backends", "nvidia", "bin", "ptxas")):
        r = release(p) if os.access(p, os.X_OK) else None
        if r and r[0] == 12:
            found.append((r, p))
    return min(found)[1] if found else None


def ptxas_id(ptxas):
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    return hashlib.sha256((os.path.realpath(ptxas) + version).encode()).hexdigest()[:16]


class Cache:
    """Small files by key: ptxas verdicts, and what each file gave for a target."""

    def __init__(self, folder):
        self.folder = folder
        if folder:
            os.makedirs(folder, exist_ok=True)

    def path(self, key):
        return os.path.join(self.folder, key[:2], key) if self.folder else None

    def get(self, key):
        p = self.path(key)
        if p and os.path.exists(p):
            with open(p) as f:
                return f.read()
        return None

    def put(self, key, value):
        p = self.path(key)
        if not p:
            return
        os.makedirs(os.path.dirname(p), exist_ok=True)
        tmp = "%s.%d.%d" % (p, os.getpid(), id(value))
        with open(tmp, "w") as f:
            f.write(value)
        os.replace(tmp, p)


def assemble(ptxas, pid, sm, path, full, cache):
    """'ok', or ptxas's first error line."""
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    key = "%s-%s-%d-%s" % (digest, pid, sm, "sass" if full else "parse")
    hit = cache.get(key)
    if hit is not None:
        return hit
    arch = ("sm_%d" % sm) if full else ("compute_%d" % sm)
    with tempfile.TemporaryDirectory() as t:
        cmd = [ptxas, "--gpu-name", arch, path, "-o", os.path.join(t, "out")]
        if full:
            cmd.insert(1, "-O0")
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 0:
        verdict = "ok"
    else:
        lines = [l for l in r.stderr.splitlines() if "error" in l or "fatal" in l]
        verdict = (lines[0] if lines else r.stderr.strip()[:300]) or "status %d" % r.returncode
    cache.put(key, verdict)
    return verdict


ERROR_AT = re.compile(r"line (\d+); error\s*:\s*(.*)$")


def refused_everywhere(ptxas, path, verdict):
    """True when ptxas refuses the line it named for the newest target it knows too
    (sm_90, at the module's own .version or 7.8, the first that has sm_90; CUDA 12.4's
    ptxas checks no compute_90a): an instruction
    outside the PTX ISA, as NVIDIA's toolchain wrote it (cuSPARSELt's r2p .reverse, cuDNN's
    _warpgroup.arrive), which the pass passed through and no GPU's ptxas takes.  The lowering
    writes only what older targets take, so its own output never fails this way."""
    m = ERROR_AT.search(verdict)
    if not m:
        return False
    with open(path) as f:
        text = f.read()
    own = re.search(r"^[ \t]*\.version[ \t]+(\d+)\.(\d+)", text, re.M)
    version = max((int(own.group(1)), int(own.group(2))) if own else (7, 8), (7, 8))
    text = re.sub(r"^[ \t]*\.version[ \t]+\S+", ".version %d.%d" % version, text, count=1, flags=re.M)
    text = re.sub(r"^[ \t]*\.target[ \t]+[^\n/]*", ".target sm_90", text, count=1, flags=re.M)
    with tempfile.TemporaryDirectory() as t:
        newest = os.path.join(t, "newest.ptx")
        with open(newest, "w") as f:
            f.write(text)
        r = subprocess.run([ptxas, "--gpu-name", "compute_90", newest, "-o",
                            os.path.join(t, "out")], capture_output=True, text=True)
    return any((e := ERROR_AT.search(l)) and e.groups() == m.groups()
               for l in r.stderr.splitlines())


def lower(lower_exe, path, sm, folder):
    """Runs bf16shim-lower on one file for sm: [(module label, ptx path, rewritten)], the
    instructions of the kernels it left out, and its error if it failed."""
    os.makedirs(folder, exist_ok=True)
    if path.endswith(".ptx"):
        out = os.path.join(folder, os.path.basename(path) + ".sm_%d.ptx" % sm)
        r = subprocess.run([lower_exe, path, "--leave-out", "--target", "sm_%d" % sm, "-o", out],
                           capture_output=True, text=True)
        mods, left = [], []
        for line in r.stdout.splitlines():
            m = TEXT_LOWERED.match(line)
            if m and os.path.exists(out):
                mods.append((path, out, int(m.group(4))))
            m = LEFT_OUT.search(line)
            if m:
                left.append(m.group(1))
        return mods, left, r.returncode == 2 and r.stderr.strip()
    r = subprocess.run([lower_exe, path, "--target", "sm_%d" % sm, "-o", folder],
                       capture_output=True, text=True)
    rewritten, mods, left = {}, [], []
    for line in r.stdout.splitlines():
        m = LOWERED.match(line)
        if m:
            rewritten[m.group(2)] = int(m.group(5))
            continue
        m = WRITTEN.match(line)
        if m:
            mods.append(("%s module %s" % (path, m.group(2)), m.group(3),
                         rewritten.get(m.group(2), 0)))
            continue
        m = LEFT_OUT.search(line)
        if m:
            left.append(m.group(1))
    return mods, left, r.returncode == 2 and r.stderr.strip()


def one_file(a, work, cache, ids, tool, sm, path):
    """What one file gives for one target: {modules, rewritten, left, failures, seconds}."""
    st = os.stat(path)
    key = hashlib.sha256(("%s %d %d %s %s %d %d as-written" % (
        os.path.realpath(path), st.st_size, st.st_mtime_ns, tool, ids[sm], sm,
        a.assemble)).encode()).hexdigest()
    hit = cache.get(key)
    if hit is not None:
        result = json.loads(hit)
        result["cached"] = 1
        return result
    t0 = time.time()
    folder = tempfile.mkdtemp(dir=work)
    try:
        mods, left, err = lower(a.lower, path, sm, folder)
        result = {"modules": len(mods), "rewritten": sum(1 for m in mods if m[2]),
                  "left": left, "failures": [], "as_written": [], "cached": 0}
        if err:
            result["failures"].append("sm_%d: %s: bf16shim-lower: %s" % (sm, path, err))
        for label, ptx, rewritten in mods:
            for full in ([False, True] if rewritten and a.assemble else [False]):
                verdict = assemble(a.ptxas_by_sm[sm], ids[sm], sm, ptx, full, cache)
                if verdict == "ok":
                    continue
                line = "sm_%d: %s (%s): %s" % (sm, label, "assemble" if full else "parse",
                                                verdict)
                if refused_everywhere(a.ptxas_by_sm[sm], ptx, verdict):
                    result["as_written"].append(line)
                else:
                    result["failures"].append(line)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result["seconds"] = time.time() - t0
    cache.put(key, json.dumps(result))
    return result


def opcode(what):
    """The instruction's family for the tally: its opcode up to the types."""
    words = what.split(".")
    keep = [w for w in words if w not in ("sync", "aligned", "row", "col")]
    return ".".join(keep[:4])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lower", required=True)
    ap.add_argument("--scan", required=True)
    ap.add_argument("--ptxas", action="append", default=[], help="SM=PTXAS")
    ap.add_argument("--old-ptxas-in", default="")
    ap.add_argument("--cache", default="")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--target", action="append", type=int, default=[])
    ap.add_argument("--assemble", action="store_true")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    a.ptxas_by_sm = {}
    for spec in a.ptxas:
        sm, exe = spec.split("=", 1)
        if os.access(exe, os.X_OK):
            a.ptxas_by_sm[int(sm)] = exe
    targets = a.target or [75, 70, 61]
    old = old_ptxas(a.old_ptxas_in) if a.old_ptxas_in else None
    for sm in targets:
        if sm not in a.ptxas_by_sm and sm < 75 and old:
            a.ptxas_by_sm[sm] = old
    missing = [sm for sm in targets if sm not in a.ptxas_by_sm]
    if missing:
        print("SKIP: no ptxas for sm_%s" % ", sm_".join(map(str, missing)))
        return 77
    roots = [p for p in a.paths if os.path.isdir(p)]
    files = [p for p in a.paths if os.path.isfile(p)]
    if roots:
        files += files_with_ptx(a.scan, roots)
    if not files:
        print("SKIP: no GPU code under %s" % " ".join(a.paths))
        return 77
    cache = Cache(os.environ.get("BF16SHIM_WHEELS_CACHE", a.cache))
    ids = {sm: ptxas_id(a.ptxas_by_sm[sm]) for sm in targets}
    tool = digest_file(a.lower)
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="lower_wheels.")
    failures, as_written = [], []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            jobs = {sm: [pool.submit(one_file, a, work, cache, ids, tool, sm, p) for p in files]
                    for sm in targets}
            for sm in targets:
                left = collections.Counter()
                counts = collections.Counter()
                for fut in jobs[sm]:
                    r = fut.result()
                    counts["modules lowered"] += r["modules"]
                    counts["with rewrites"] += r["rewritten"]
                    counts["kernels left out"] += len(r["left"])
                    counts["files from the cache"] += r["cached"]
                    counts["seconds"] += r.get("seconds", 0) if not r["cached"] else 0
                    left.update(opcode(w) for w in r["left"])
                    failures += r["failures"]
                    as_written += r.get("as_written", [])
                print("sm_%d (%s): %s" % (sm, a.ptxas_by_sm[sm], ", ".join(
                    "%s %d" % (k, v) for k, v in sorted(counts.items()))))
                for what, n in left.most_common(12):
                    print("  %5d kernels left out for %s" % (n, what))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d files, %d targets, %.0f s" % (len(files), len(targets), time.time() - t0))
    for f in as_written:
        print("refused as written (no target's ptxas takes the line):", f)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
