#!/usr/bin/env python3
"""Compares the interpreter's load errors with the real ptxas's.

For each PTX snippet (and each kernel of tests/simcuda/kernels retargeted to sm_75) runs
`ptxas --gpu-name sm_XX` and `ptxtool FILE XX` and checks that both accept, or that
ptxas's first error line is the first line of ours (ptxas names the file where the JIT
says "application ptx input").  Skips (77) when ptxas is not installed.
    usage: check_ptxas.py PTXTOOL KERNELS_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEAD = ".version {ver}\n.target sm_{tgt}\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
REGS = (".reg .b16 %h<4>;\n.reg .f32 %f<8>;\n.reg .b32 %r<10>;\n.reg .f64 %d<4>;\n"
        ".reg .b64 %rd<4>;\n.reg .pred %p<2>;\n")

MMA884 = ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, "
          "{%r0,%r1}, {%r2,%r3}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};")

# (PTX ISA version, .target, device sm, instruction).  This ptxas (CUDA 13) knows no
# --gpu-name below sm_75, so older targets are checked through .target with a newer device:
# both ptxas and the interpreter judge an instruction by min(.target, device).
CASES = [
    ("7.0", 70, 75, "tanh.approx.f32 %f1, %f2;"),
    ("6.0", 52, 75, "add.f16 %h1, %h1, %h2;"),
    ("6.0", 52, 75, "min.f16 %h1, %h1, %h2;"),
    ("6.0", 52, 75, "atom.global.add.f64 %d1, [%rd1], %d2;"),
    ("6.0", 52, 75, "shfl.sync.bfly.b32 %r1, %r1, 1, 31, -1;"),
    ("6.0", 52, 75, "vote.sync.ballot.b32 %r1, %p1, -1;"),
    ("6.0", 52, 75, "lop3.b32 %r1, %r1, %r2, %r3, 0x96;"),
    ("6.0", 52, 75, "dp4a.u32.u32 %r1, %r1, %r2, %r3;"),
    ("6.0", 52, 75, "match.any.sync.b32 %r1, %r2, -1;"),
    ("6.2", 52, 75, "activemask.b32 %r1;"),
    ("6.0", 52, 75, "fence.acq_rel.gpu;"),
    ("6.0", 52, 75, "atom.global.cta.add.u32 %r1, [%rd1], %r2;"),
    ("6.0", 52, 75, "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;"),
    ("7.4", 75, 75, "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;"),
    ("7.4", 75, 75, "red.global.add.L2::cache_hint.u32 [%rd1], %r1, %rd2;"),
    ("7.4", 70, 75, "ld.global.L2::128B.u32 %r1, [%rd1];"),
    ("7.4", 75, 75, "ld.global.L1::evict_last.L2::128B.u32 %r1, [%rd1];"),
    ("7.4", 75, 75, "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;"),
    ("7.4", 80, 80, "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5;"),
    ("7.4", 75, 75, "applypriority.global.L2::evict_normal [%rd1], 128;"),
    ("7.4", 75, 75, "discard.global.L2 [%rd1], 128;"),
    ("7.4", 75, 75, "prefetch.global.L2::evict_last [%rd1];"),
    ("6.3", 60, 75, "atom.global.add.noftz.f16 %h1, [%rd1], %h2;"),
    ("6.3", 52, 75, "nanosleep.u32 %r1;"),
    ("6.0", 70, 75, "nanosleep.u32 %r1;"),
    ("6.2", 70, 75, "nanosleep.u32 %r1;"),
    ("6.0", 52, 75, "cvt.rn.f16x2.f32 %r1, %f1, %f2;"),
    ("6.0", 52, 75, "shf.l.wrap.b32 %r1, %r1, %r2, %r3;"),
    ("7.0", 70, 75, "tanh.approx.f16 %h1, %h2;"),
    ("7.0", 75, 75, "cvt.rn.bf16.f32 %h1, %f1;"),
    ("7.0", 75, 75, "cvt.f32.bf16 %f1, %h1;"),
    ("7.0", 80, 80, "cvt.f32.bf16 %f1, %h1;"),
    ("7.8", 80, 80, "add.rn.bf16 %h1, %h1, %h2;"),
    ("7.0", 75, 75, "fma.rn.bf16 %h1, %h1, %h2, %h3;"),
    ("7.0", 75, 75, "cvt.rn.bf16x2.f32 %r1, %f1, %f2;"),
    ("7.0", 70, 75, "cvt.rn.bf16x2.f32 %r1, %f1, %f2;"),
    ("7.0", 61, 75, "fma.rn.bf16x2 %r1, %r1, %r2, %r3;"),
    ("7.8", 80, 80, "cvt.rn.bf16.s32 %h1, %r1;"),
    ("6.4", 70, 75, "shfl.up.b32 %r1, %r1, 1, 0;"),
    ("6.3", 70, 75, "shfl.up.b32 %r1, %r1, 1, 0;"),
    ("7.0", 70, 75, "ex2.approx.f16 %h1, %h1;"),
    ("7.0", 75, 75, "min.NaN.f32 %f1, %f1, %f2;"),
    ("7.0", 75, 75, "redux.sync.add.u32 %r1, %r2, 0xffffffff;"),
    ("7.0", 80, 80, "cvt.rn.bf16.f32 %h1, %f1;"),
    ("7.0", 80, 80, "tanh.approx.f32 %f1, %f2;"),
    ("7.0", 80, 80, "fma.rn.relu.bf16 %h1, %h1, %h2, %h3;"),
    ("7.0", 75, 75, "cvt.rn.relu.f16.f32 %h1, %f1;"),
    ("7.0", 75, 75, "cvt.rn.f16x2.f32 %r1, %f1, %f2;"),
    ("7.0", 80, 80, "max.bf16 %h1, %h1, %h2;"),
    ("7.0", 80, 80, "setp.lt.bf16 %p1, %h1, %h2;"),
    ("7.0", 80, 80, "tanh.approx.bf16 %h1, %h2;"),
    ("7.8", 80, 80, "ex2.approx.ftz.bf16 %h1, %h2;"),
    ("7.8", 80, 80, "cvt.rn.satfinite.bf16.f32 %h1, %f1;"),
    ("8.1", 75, 75, "cvt.rn.satfinite.f16.f32 %h1, %f1;"),
    ("7.0", 80, 80, "min.NaN.f16 %h1, %h1, %h2;"),
    ("7.0", 75, 75, "neg.bf16 %h1, %h1;"),
    ("7.8", 80, 80, "griddepcontrol.wait;"),
    ("7.0", 75, 75, "fma.rn.relu.f16 %h1, %h1, %h2, %h3;"),
    ("7.0", 75, 75, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f0}, "
                    "{%r1,%r2,%r3,%r0}, {%r1,%r2}, {%f1,%f2,%f3,%f0};"),
    ("7.8", 90, 90, "add.rn.bf16 %h1, %h1, %h2;"),
    # min/max .xorsign.abs (sm_86, PTX 7.2) and set with bf16/bf16x2 (sm_90, PTX 7.8)
    ("7.8", 80, 80, "min.xorsign.abs.bf16 %h1, %h1, %h2;"),
    ("7.0", 80, 80, "min.xorsign.abs.f32 %f1, %f1, %f2;"),
    ("7.0", 75, 75, "max.xorsign.abs.bf16x2 %r1, %r1, %r2;"),
    ("6.5", 52, 75, "min.NaN.xorsign.abs.f16 %h1, %h1, %h2;"),
    ("6.5", 75, 75, "min.NaN.f32 %f1, %f1, %f2;"),
    ("7.8", 86, 86, "min.NaN.xorsign.abs.bf16x2 %r1, %r1, %r2;"),
    ("7.8", 86, 86, "max.ftz.xorsign.abs.f16x2 %r1, %r1, %r2;"),
    ("7.8", 80, 80, "set.gtu.u32.bf16x2 %r1, %r1, %r2;"),
    ("7.8", 80, 80, "setp.lt.bf16x2 %p1|%p0, %r1, %r2;"),
    ("7.8", 80, 80, "set.gt.bf16.bf16 %h1, %h1, %h2;"),
    ("7.0", 75, 75, "set.lt.bf16.f32 %h1, %f1, %f2;"),
    ("7.8", 90, 90, "set.le.bf16x2.bf16x2 %r1, %r1, %r2;"),
    ("7.8", 90, 90, "set.eq.bf16.u32 %h1, %r1, %r2;"),
    ("7.8", 90, 90, "set.lt.and.s16.bf16 %h1, %h1, %h2, %p1;"),
    ("7.8", 90, 90, "set.num.ftz.f16.f32 %h1, %f1, %f2;"),
    ("7.8", 90, 90, "set.ltu.ftz.f16x2.f16x2 %r1, %r1, %r2;"),
    # mma, wmma, ldmatrix, movmatrix, stmatrix, cp.async, mbarrier: targets and versions
    ("6.3", 70, 75, MMA884),
    ("6.4", 61, 75, MMA884),
    ("6.5", 70, 75, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1}, {%r2}, {%f0,%f1,%f2,%f3};"),
    ("6.4", 75, 75, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1}, {%r2}, {%f0,%f1,%f2,%f3};"),
    ("6.4", 61, 75, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1}, {%r2}, {%f0,%f1,%f2,%f3};"),
    ("7.0", 75, 75, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"),
    ("6.3", 61, 75, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"),
    ("7.0", 61, 75, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"),
    ("7.0", 75, 75, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"),
    ("7.0", 75, 75, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0,%d1}, {%d2}, {%d3}, "
                    "{%d0,%d1};"),
    ("7.0", 80, 80, "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%d0,%d1,%d2,%d3}, "
                    "{%d0,%d1,%d2,%d3}, {%d0,%d1}, {%d0,%d1,%d2,%d3};"),
    ("6.4", 61, 75, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r0,%r1}, {%r2}, {%r3}, "
                    "{%r0,%r1};"),
    ("7.0", 75, 75, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r0,%r1,%r2,%r3};"),
    ("7.0", 75, 75, "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r0,%r1}, "
                    "{%r2}, {%r3}, {%r0,%r1};"),
    ("8.4", 75, 75, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f0,%f1,%f2,%f3}, "
                    "{%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"),
    ("7.0", 75, 75, "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f32 {%r0,%r1,%r2,%r3}, "
                    "{%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};"),
    ("7.0", 75, 75, "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%r0,%r1,%r2,%r3}, "
                    "{%r2,%r3}, {%r4,%r5}, {%r0,%r1,%r2,%r3};"),
    ("6.0", 61, 75, "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 "
                    "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd0];"),
    ("6.0", 70, 75, "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 "
                    "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd0];"),
    ("6.0", 70, 75, "wmma.load.a.sync.row.m16n16k16.global.f16 "
                    "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd0];"),
    ("6.3", 70, 75, "wmma.load.a.sync.row.m16n16k16.global.f16 "
                    "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd0];"),
    ("7.0", 75, 75, "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {%r0,%r1,%r2,%r3}, [%rd0];"),
    ("7.0", 75, 75, "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r0,%r1,%r2,%r3}, [%rd0];"),
    ("7.0", 70, 75, "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r0,%r1}, [%rd0];"),
    ("7.0", 72, 75, "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r0}, [%rd0];"),
    ("7.0", 72, 75, "wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {%r0}, [%rd0];"),
    ("7.0", 75, 75, "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%d0}, [%rd0];"),
    ("7.0", 70, 75, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 "
                    "{%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, "
                    "{%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};"),
    ("7.0", 70, 75, "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd0], "
                    "{%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, 32;"),
    ("6.4", 75, 75, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0,%r1,%r2,%r3}, [%rd0];"),
    ("6.5", 70, 75, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0,%r1,%r2,%r3}, [%rd0];"),
    ("6.5", 75, 75, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r0,%r1}, [%rd0];"),
    ("7.8", 70, 75, "movmatrix.sync.aligned.m8n8.trans.b16 %r0, %r1;"),
    ("7.7", 75, 75, "movmatrix.sync.aligned.m8n8.trans.b16 %r0, %r1;"),
    ("7.8", 80, 80, "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd0], {%r0,%r1,%r2,%r3};"),
    ("7.0", 75, 75, "cp.async.ca.shared.global [%rd0], [%rd1], 4;"),
    ("7.0", 80, 80, "cp.async.cg.shared.global [%rd0], [%rd1], 16, %r1;"),
    ("7.4", 80, 80, "cp.async.cg.shared.global [%rd0], [%rd1], 16, %p1;"),
    ("7.0", 80, 80, "cp.async.cg.shared.global.L2::128B [%rd0], [%rd1], 16;"),
    ("7.0", 80, 80, "cp.async.cg.shared.global.L2::cache_hint [%rd0], [%rd1], 16, %rd2;"),
    ("7.0", 80, 80, "cp.async.cg.shared.global [%rd0], [%rd1], 8;"),
    ("7.0", 75, 75, "cp.async.commit_group;"),
    ("7.0", 75, 75, "cp.async.wait_group 1;"),
    ("7.0", 75, 75, "cp.async.wait_all;"),
    ("7.0", 75, 75, "cp.async.mbarrier.arrive.noinc.shared.b64 [%rd0];"),
    ("7.0", 75, 75, "mbarrier.init.shared.b64 [%rd0], %r1;"),
    ("7.0", 80, 80, "mbarrier.arrive.noComplete.shared.b64 %rd1, [%rd0], %r1;"),
    ("7.0", 80, 80, "mbarrier.arrive.shared.b64 %rd1, [%rd0], %r1;"),
    ("7.8", 80, 80, "mbarrier.arrive.release.cta.shared.b64 %rd1, [%rd0];"),
    ("7.0", 80, 80, "mbarrier.arrive_drop.shared.b64 %rd1, [%rd0];"),
    ("7.0", 80, 80, "mbarrier.test_wait.parity.shared.b64 %p1, [%rd0], %r1;"),
    ("7.8", 80, 80, "mbarrier.try_wait.parity.shared.b64 %p1, [%rd0], %r1;"),
    ("7.0", 80, 80, "mbarrier.pending_count.b64 %r1, %rd1;"),
    ("7.0", 75, 75, "cvt.rna.tf32.f32 %r1, %f1;"),
    ("7.8", 80, 80, "cvt.rn.tf32.f32 %r1, %f1;"),
    # Triton writes scalar loads and stores with braces: "{ %r1 }" is one operand.
    ("6.0", 52, 75, "@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];"),
    ("6.0", 52, 75, "st.global.b16 [ %rd1 + 0 ], { %h1 };"),
    ("6.0", 52, 75, "ld.global.b32 {%r1, %r2}, [%rd1];"),
    ("6.0", 52, 75, "ld.global.v2.b32 {%r1}, [%rd1];"),
    ("6.0", 52, 75, "st.global.v4.b32 [%rd1], {%r1, %r2};"),
]


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def compare(ptxas, tool, path, sm, what):
    real = subprocess.run([ptxas, "--gpu-name", "sm_%d" % sm, path, "-o", os.devnull],
                          capture_output=True, text=True)
    ours = subprocess.run([tool, path, str(sm), "90"], capture_output=True, text=True)
    ours_lines = ours.stdout.splitlines()
    if real.returncode == 0 or ours.returncode == 0:
        if (real.returncode == 0) != (ours.returncode == 0):
            print("FAIL %s: ptxas rc=%d, ours: %s" % (what, real.returncode, ours.stdout.strip()))
            return False
        return True
    want = re.sub(r"^ptxas [^,]*, line", "ptxas application ptx input, line",
                  first_line(real.stderr + real.stdout))
    got = ours_lines[1] if len(ours_lines) > 1 else ""
    if not got.startswith(want):
        print("FAIL %s:\n  ptxas: %s\n  ours:  %s" % (what, want, got))
        return False
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tool, kdir = sys.argv[1], sys.argv[2]
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.access(ptxas, os.X_OK):
        print("ptxas not found: skipped")
        return 77
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for i, (ver, tgt, sm, insn) in enumerate(CASES):
            path = os.path.join(tmp, "case%d.ptx" % i)
            with open(path, "w") as f:
                f.write(HEAD.format(ver=ver, tgt=tgt, body=REGS + insn))
            ok &= compare(ptxas, tool, path, sm, "%s (sm_%d, PTX %s)" % (insn, sm, ver))
        for name in sorted(os.listdir(kdir)):
            if not name.endswith(".ptx"):
                continue
            with open(os.path.join(kdir, name)) as f:
                text = f.read()
            for sm in (75, 80):
                path = os.path.join(tmp, "sm%d_%s" % (sm, name))
                with open(path, "w") as f:
                    f.write(text.replace(".target sm_80", ".target sm_%d" % sm))
                ok &= compare(ptxas, tool, path, sm, "%s on sm_%d" % (name, sm))
    print("ptxas and the interpreter agree" if ok else "mismatches found")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
