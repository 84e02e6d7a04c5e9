#!/usr/bin/env python3
"""Runs a fatbin lowering program (harness.h) on the simulated stack and judges it.

    run_cases.py PROGRAM --arch sm_XY [--cuda 13|12] [--reference sm_80|sm_90]
                 [--left-out CASE=KERNEL:sm_A,sm_B ...]

1. On sm_80 (or the --reference GPU, for a program built for it), without bf16shim: the
   reference; every case must run.
2. On sm_XY without bf16shim: every case fails with cudaErrorNoKernelImageForDevice, the
   error a real device with nothing to run gives ("no kernel image is available ...").
3. On sm_XY with bf16shim (a fresh cache): every case prints what it printed on sm_80
   (bit for bit, or within its tolerance), except a case listed as left out on sm_XY: that one
   fails with cudaErrorNoKernelImageForDevice, and the log names its kernel (KERNEL, the
   source name) exactly once, mangled and demangled, with the instruction.

BF16SHIM_SIMDIR names the simulator (as for run_app.sh); the command is scripts/bf16shim.
Exit status 0 when everything held; each failed check prints one line.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BF16SHIM = os.path.join(HERE, "..", "..", "scripts", "bf16shim")
NO_IMAGE = "cudaErrorNoKernelImageForDevice"

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(argv, env):
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def parse(out):
    """{case: ("ok", tol, [words]) or ("error", name, message)}"""
    cases = {}
    for line in out.splitlines():
        m = re.match(r'case (\S+) error (\S+) "(.*)"$', line)
        if m:
            cases[m.group(1)] = ("error", m.group(2), m.group(3))
            continue
        m = re.match(r"case (\S+) ok (exact|tol=\S+) (\d+)((?: [0-9a-f]+)*)$", line)
        if m:
            words = [int(w, 16) for w in m.group(4).split()]
            tol = 0.0 if m.group(2) == "exact" else float(m.group(2)[4:])
            if len(words) != int(m.group(3)):
                fail("case %s: %d words printed, %s announced" % (m.group(1), len(words),
                                                                  m.group(3)))
            cases[m.group(1)] = ("ok", tol, words)
    return cases


def as_float(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def same(name, ref, got):
    tol, a, b = ref[1], ref[2], got[2]
    if len(a) != len(b):
        fail("case %s: %d words, the sm_80 run has %d" % (name, len(b), len(a)))
        return
    bad = [i for i in range(len(a)) if a[i] != b[i]]
    if tol:
        bad = [i for i in bad
               if not abs(as_float(a[i]) - as_float(b[i])) <= tol * abs(as_float(a[i]))]
    if bad:
        i = bad[0]
        fail("case %s: %d of %d words differ from the sm_80 run, first [%d]: %#x, want %#x"
             % (name, len(bad), len(a), i, b[i], a[i]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("program")
    ap.add_argument("--arch", required=True)
    ap.add_argument("--cuda", default="13")
    ap.add_argument("--reference", default="sm_80")
    ap.add_argument("--left-out", action="append", default=[],
                    help="CASE=KERNEL:sm_A,sm_B: CASE's kernel stays out on those GPUs")
    args = ap.parse_args()
    left_out = {}
    for spec in args.left_out:
        case, rest = spec.split("=", 1)
        kernel, archs = rest.split(":", 1)
        if args.arch in archs.split(","):
            left_out[case] = kernel

    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)      # the command must find the simulator itself
    env.pop("LD_PRELOAD", None)
    sim = [BF16SHIM, "sim", "--cuda", args.cuda]

    rc, out, err = run(sim + [args.reference, "--", args.program], env)
    ref = parse(out)
    if rc or not ref or any(v[0] != "ok" for v in ref.values()):
        print(out + err)
        fail("the %s reference did not run every case (exit %d)" % (args.reference, rc))
        return 1
    print("%s: %d cases ran: %s" % (args.reference, len(ref), " ".join(ref)))

    rc, out, err = run(sim + [args.arch, "--", args.program], env)
    plain = parse(out)
    for name in ref:
        got = plain.get(name)
        if not got or got[0] != "error" or got[1] != NO_IMAGE:
            fail("case %s on %s without bf16shim: %s, want %s" % (name, args.arch, got, NO_IMAGE))
    if "no kernel image is available for execution on the device" not in out:
        fail("without bf16shim, the program did not print the no-kernel-image error")
    print("%s without bf16shim: every case fails with %s" % (args.arch, NO_IMAGE))

    with tempfile.TemporaryDirectory() as cache:
        env_shim = dict(env, BF16SHIM_LOG="debug", BF16SHIM_CACHE_DIR=cache)
        rc, out, err = run([BF16SHIM, "run", "--sim", args.arch, "--cuda", args.cuda, "--",
                            args.program], env_shim)
    shim = parse(out)
    if rc:
        fail("with bf16shim the program exited with %d" % rc)
    if not re.search(r"lowering module \S+ for %s" % args.arch, err):
        fail("with bf16shim, no module was lowered for %s" % args.arch)
    for name, r in ref.items():
        got = shim.get(name)
        if name in left_out:
            if not got or got[0] != "error" or got[1] != NO_IMAGE:
                fail("case %s on %s with bf16shim: %s, want %s (its kernel cannot be lowered)"
                     % (name, args.arch, got, NO_IMAGE))
            kernel = left_out[name]
            named = re.findall(r"kernel (_Z\w*%s\w*) \((%s\(.*?\))\) cannot run on %s: .*'([^']+)'"
                               % (kernel, kernel, args.arch), err)
            if len(named) != 1:
                fail("kernel %s named %d times in the log, want once, mangled and demangled"
                     % (kernel, len(named)))
            else:
                print("%s: %s stays out, named as %s (%s) for '%s'" % (name, kernel, *named[0]))
        elif not got or got[0] != "ok":
            fail("case %s on %s with bf16shim: %s" % (name, args.arch, got))
        else:
            same(name, r, got)
    if failures:
        print(err)
    else:
        print("%s with bf16shim: every case as on sm_80%s" % (
            args.arch, ", but " + " ".join(sorted(left_out)) if left_out else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
