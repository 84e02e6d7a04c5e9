"""Triton's fp16 tl.dot on the simulated GPUs: Triton's tutorial matmul with fp16 operands and
an fp32 accumulator and output (kernels.matmul), compiled with GPUTarget and no GPU for Ampere
(sm_80: mma.sync.m16n8k16 fed by ldmatrix from shared memory that cp.async fills, three
stages in flight) and Turing (sm_75: Triton 3.9 lowers fp16 tl.dot there to fp32 FMAs, not
mma; the run says which instructions it got), launched on the simulated GPU of the same
architecture as Triton's launcher does, and checked against an fp64 product on the CPU:
  - exact: operands k/16 with |k| <= 16, so every product and partial sum is exact in fp32
    and the result must be the exact product whatever the order (0 ulp);
  - random: normal operands, within the classic accumulation bound K * 2^-23 * sum |a_ik b_kj|
    per element (2^-23: the tensor cores truncate).
On sm_80 the run is repeated with SIMCUDA_ASYNC_COPY=wait: copies complete only at their
cp.async.wait_group, so a pipeline that read a stage before waiting for it would fail.
Prints one line per run; exit status 1 when anything did not work.

Usage: run_triton_dot.py SIMDIR13 SM...      (SM: 75, 80)
       run_triton_dot.py compile OUTDIR SM... (the child that compiles)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

# What each target's PTX must hold for the run to test the path it means to.
NEEDS = {75: [r"(mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.f16\.f16\.f32|fma\.rn\.f32)"],
         80: [r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32",
              r"ldmatrix\.sync\.aligned\.m8n8\.x4", r"cp\.async\.(ca|cg)\.shared\.global",
              r"cp\.async\.wait_group"]}


class Dot:
    """cases.py's interface: name, fn, args() and check()."""
    fn = "matmul"
    m, n, k = 96, 72, 160     # k spans several stages; n not a multiple of the block
    blocks = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2,
                  OUT_BF16=False)

    def __init__(self, exact):
        self.exact = exact
        self.name = "dot_f16_" + ("exact" if exact else "random")

    def args(self):
        import torch
        g = torch.Generator().manual_seed(5 if self.exact else 6)
        if self.exact:
            a = torch.randint(-16, 17, (self.m, self.k), generator=g) / 16
            b = torch.randint(-16, 17, (self.k, self.n), generator=g) / 16
        else:
            a = torch.randn(self.m, self.k, generator=g)
            b = torch.randn(self.k, self.n, generator=g)
        a, b = a.to(torch.float16), b.to(torch.float16)
        c = torch.zeros(self.m, self.n, dtype=torch.float32)
        bm, bn = self.blocks["BLOCK_SIZE_M"], self.blocks["BLOCK_SIZE_N"]
        grid = -(-self.m // bm) * -(-self.n // bn)
        return ([a, b, c, self.m, self.n, self.k, a.stride(0), a.stride(1), b.stride(0),
                 b.stride(1), c.stride(0), c.stride(1)], dict(self.blocks), 4, (grid, 1, 1), [2])

    def check(self, args):
        a, b, c = args[0].double(), args[1].double(), args[2].double()
        ref = a @ b
        err = (c - ref).abs()
        if self.exact:
            n = int((err != 0).sum())
            return n == 0, "exact" if n == 0 else f"{n} elements differ from the exact product"
        bound = (a.abs() @ b.abs()) * (self.k * 2.0 ** -23)
        worst = float((err / bound.clamp(min=1e-300)).max())
        return worst <= 1, f"max error {worst:.3f} of the bound"


CASES = [Dot(True), Dot(False)]


def compile_all(outdir, targets):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend

    from kernels import matmul
    from run_triton import specialize, with_stderr

    results = []
    for sm in targets:
        target = GPUTarget("cuda", sm, 32)
        case = CASES[0]
        args, constexprs, num_warps, _, _ = case.args()
        options, signature, constants, attrs = specialize(matmul, make_backend(target), args,
                                                          constexprs, num_warps)
        opts = dict(options.__dict__, num_stages=3 if sm >= 80 else 2)
        k, log = with_stderr(lambda: triton.compile(
            ASTSource(matmul, signature, constants, attrs), target=target, options=opts))
        r = dict(sm=sm)
        if isinstance(k, Exception):
            r.update(ok=False, error=f"{type(k).__name__}: {str(k)[:300]}")
        else:
            md = k.metadata
            path = os.path.join(outdir, f"dot.sm_{sm}.ptx")
            with open(path, "w") as f:
                f.write(k.asm["ptx"])
            r.update(ok=True, ptx=path, signature=signature, name=md.name, shared=md.shared,
                     num_warps=md.num_warps,
                     scratch=[getattr(md, "global_scratch_size", 0),
                              getattr(md, "profile_scratch_size", 0)])
        results.append(r)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(dict(triton=triton.__version__, results=results), f, indent=1)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "compile":
        compile_all(sys.argv[2], [int(a) for a in sys.argv[3:]])
        return 0
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    simdir, targets = os.path.abspath(sys.argv[1]), [int(a) for a in sys.argv[2:]]
    t0 = time.time()
    failures = []
    with tempfile.TemporaryDirectory(prefix="bf16shim-triton-dot-") as work:
        env = {k: v for k, v in os.environ.items()
               if k not in ("TRITON_PTXAS_PATH", "LD_PRELOAD", "TRITON_CACHE_DIR")}
        env["TRITON_CACHE_DIR"] = os.path.join(work, "cache")
        out = os.path.join(work, "out")
        os.makedirs(out)
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "compile", out]
                           + [str(sm) for sm in targets], env=env, capture_output=True, text=True)
        path = os.path.join(out, "results.json")
        if p.returncode != 0 or not os.path.exists(path):
            sys.stdout.write((p.stdout + p.stderr)[-4000:])
            print(f"FAIL: compiling exited with {p.returncode}")
            return 1
        with open(path) as f:
            info = json.load(f)
        print(f"Triton {info['triton']}")

        import simdriver
        from run_triton import launch
        os.environ["SIMCUDA_ARCH"] = ",".join(f"sm_{sm}" for sm in targets)
        for r in info["results"]:
            sm = r["sm"]
            if not r["ok"]:
                failures.append(f"sm_{sm}: Triton failed: {r['error']}")
                continue
            with open(r["ptx"]) as f:
                ptx = f.read()
            for pat in NEEDS[sm]:
                if not re.search(pat, ptx):
                    failures.append(f"sm_{sm}: the PTX has no {pat}")
            used = sorted(set(re.findall(r"\b(mma\.sync\.aligned\.m\w+|ldmatrix|cp\.async|fma\.rn\.f32)\b", ptx)))
            print(f"sm_{sm}: {', '.join(used)}")
            for mode in (["issue", "wait"] if sm >= 80 else ["issue"]):
                # The driver reads SIMCUDA_ASYNC_COPY at each module load.
                os.environ["SIMCUDA_ASYNC_COPY"] = mode
                drv = simdriver.Driver(os.path.join(simdir, "libcuda.so.1"))
                drv.use_device(targets.index(sm))
                for case in CASES:
                    try:
                        good, text = launch(drv, case, r, ptx)
                    except Exception as e:
                        good, text = False, f"{type(e).__name__}: {e}"[:300]
                    print(f"{case.name:18} sm_{sm}  copies complete at {mode:5}  "
                          f"{'ok' if good else 'FAIL'}: {text}")
                    if not good:
                        failures.append(f"{case.name} sm_{sm} ({mode}): {text}")
    for f in failures:
        print("FAIL:", f)
    print(f"run_triton_dot: {len(failures)} failed ({time.time() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
