"""Triton's bf16 kernels for Turing (sm_75) and Volta (sm_70), without a GPU, through bf16shim.

For each kernel of cases.py and each target:
  1. stock: triton.compile for GPUTarget("cuda", SM, 32) with Triton's own ptxas;
  2. with the wrapper: the same under `bf16shim run`, which points TRITON_PTXAS_PATH at
     bf16shim-ptxas; the PTX Triton generates must be the same as in 1 (a drop-in ptxas);
  3. on the simulated GPU (SIMCUDA_ARCH sm_75 and sm_70): Triton's PTX as it is, which the
     driver must refuse when it holds bf16 instructions; then `bf16shim lower --target SM`
     of it, launched as Triton's launcher does (grid, num_warps * 32 threads, its shared
     memory, its parameters and the scratch pointers Triton appends) and compared with
     PyTorch on the CPU (cases.py says how closely).
Prints a table; exit status 1 when anything did not work.

Usage: run_triton.py BF16SHIM_CMD SIMDIR13
       run_triton.py compile OUTDIR       (the child that compiles, in its own environment)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

TARGETS = (75, 70)
# ptxas's words for bf16 below sm_80 ('.bf16x2' for packed pairs), which the driver's JIT shares.
BF16_REFUSAL = re.compile(r"Feature '\.bf16(x2)?' requires \.target sm_80 or higher")
BF16_INSN = re.compile(r"^\s*(@!?%\w+\s+)?[a-z][a-z0-9_:.]*\.bf16", re.M)


def ptxas_errors(text):
    """The distinct error lines of a ptxas log, without file and line."""
    out = []
    for m in re.finditer(r"^ptxas\b.*?(?:error|fatal)\s*:\s*(.*)$", text, re.M):
        msg = m.group(1).strip()
        if msg != "Ptx assembly aborted due to errors" and msg not in out:
            out.append(msg)
    return out


def specialize(fn, backend, args, constexprs, num_warps):
    """What `fn[grid](*args, **constexprs, num_warps=...)` compiles: Triton's own binder
    (pointer alignment, integers equal to 1 or divisible by 16) on the CPU tensors."""
    from triton.runtime.jit import create_function_from_signature
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    kwargs = dict(constexprs, num_warps=num_warps)
    bound, spec, options = binder(*args, **kwargs)
    if hasattr(fn, "_pack_args"):  # Triton 3.5 and later
        return fn._pack_args(backend, kwargs, bound, spec, options)
    # Before, JITFunction.run did the same inline.
    from triton.runtime.jit import find_paths_if, get_iterable_path
    sigvals = [x[0] for x in spec]
    signature = {p.name: v for p, v in zip(fn.params, sigvals)}
    constants = {path: get_iterable_path(list(bound.values()), path)
                 for path in find_paths_if(sigvals, lambda _, val: val == "constexpr")}
    attrvals = [x[1] for x in spec]
    attrs = {k: backend.parse_attr(get_iterable_path(attrvals, k))
             for k in find_paths_if(attrvals, lambda _, x: isinstance(x, str))}
    return backend.parse_options(kwargs), signature, constants, attrs


def with_stderr(fn):
    """fn() -> (its value or the exception, what was written on file descriptor 2 meanwhile:
    Triton's MLIR passes report there, not in the exception)."""
    with tempfile.TemporaryFile(mode="w+") as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            value = fn()
        except Exception as e:  # Triton's PTXASError, a failed pass: recorded, shown
            value = e
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read()
    sys.stderr.write(text)
    return value, text


def compile_all(outdir):
    """The child: compiles every case for every target; one JSON file says how it went."""
    import triton
    import triton.backends.nvidia.compiler as nvc
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend

    import cases
    import kernels
    results = []
    for case in cases.CASES:
        fn = getattr(kernels, case.fn)
        args, constexprs, num_warps, _, _ = case.args()
        for sm in TARGETS:
            target = GPUTarget("cuda", sm, 32)
            r = dict(case=case.name, sm=sm)
            options, signature, constants, attrs = specialize(fn, make_backend(target), args,
                                                              constexprs, num_warps)
            k, log = with_stderr(lambda: triton.compile(ASTSource(fn, signature, constants, attrs),
                                                        target=target, options=options.__dict__))
            if isinstance(k, Exception):
                errors = ptxas_errors(str(k))
                r.update(ok=False, errors=errors, by="ptxas")
                if not errors:  # Triton's own passes failed: their first word says why
                    said = [line.strip()[:200] for line in log.splitlines() if line.strip()]
                    r.update(errors=[f"{type(k).__name__}: {str(k)[:200]}"] + said[:1], by="Triton")
            else:
                md = k.metadata
                path = os.path.join(outdir, f"{case.name}.sm_{sm}.ptx")
                with open(path, "w") as f:
                    f.write(k.asm["ptx"])
                r.update(ok=True, ptx=path, signature=signature, name=md.name, shared=md.shared,
                         num_warps=md.num_warps,
                         scratch=[getattr(md, "global_scratch_size", 0),
                                  getattr(md, "profile_scratch_size", 0)])
            results.append(r)
    ptxas = nvc.get_ptxas(75)
    if isinstance(ptxas, tuple):  # before Triton 3.4: (path, version)
        ptxas = type("Tool", (), dict(path=ptxas[0], version=ptxas[1]))
    info = dict(triton=triton.__version__, ptxas_path=ptxas.path, ptxas_release=ptxas.version,
                triton_ptxas_path=os.environ.get("TRITON_PTXAS_PATH"), results=results)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(info, f, indent=1)


def run_child(outdir, prefix, env):
    os.makedirs(outdir)
    log = os.path.join(outdir, "log")
    with open(log, "w") as f:
        st = subprocess.run(prefix + [sys.executable, os.path.abspath(__file__), "compile", outdir],
                            env=env, stdout=f, stderr=subprocess.STDOUT).returncode
    path = os.path.join(outdir, "results.json")
    if st != 0 or not os.path.exists(path):
        with open(log) as f:
            sys.stdout.write(f.read()[-4000:])
        raise SystemExit(f"FAIL: the compile step {' '.join(prefix) or '(stock)'} exited with {st}")
    with open(path) as f:
        return json.load(f)


def launch(drv, case, r, ptx):
    """Loads PTX, launches it with the case's inputs as Triton's launcher would; returns
    the check's (ok, text)."""
    import ctypes

    import torch

    import simdriver
    args, _, _, grid, outputs = case.args()
    module = drv.load_ptx(ptx)
    try:
        f = drv.function(module, r["name"])
        types = simdriver.entry_params(ptx, r["name"])
        values = [a for a, t in zip(args, r["signature"].values()) if t != "constexpr"]
        # Triton appends scratch pointers: global (3.2 and later), then profile (3.5 and later).
        extra = len(types) - len(values)
        if not 1 <= extra <= len(r["scratch"]):
            raise RuntimeError(f"{len(types)} kernel parameters for {len(values)} arguments")
        nblocks = grid[0] * grid[1] * grid[2]
        ptrs, params = {}, []
        for i, (v, t) in enumerate(zip(values, types)):
            if isinstance(v, torch.Tensor):
                raw = v.contiguous().view(torch.uint8).numpy().tobytes()
                ptrs[i] = drv.alloc(len(raw))
                drv.htod(ptrs[i], raw)
                params.append(ctypes.c_uint64(ptrs[i]))
            else:
                params.append(t(v))
        scratch = []
        for size in r["scratch"][:extra]:
            p = drv.alloc(nblocks * size) if size else 0
            if p:
                scratch.append(p)
            params.append(ctypes.c_uint64(p))
        drv.launch(f, grid, (32 * r["num_warps"], 1, 1), r["shared"], params)
        for i in outputs:
            t = args[i]
            raw = drv.dtoh(ptrs[i], t.numel() * t.element_size())
            args[i] = torch.frombuffer(bytearray(raw), dtype=t.dtype).reshape(t.shape)
        for p in list(ptrs.values()) + scratch:
            drv.free(p)
    finally:
        drv.unload(module)
    return case.check(args)


def simulate(drv, bf16shim, case, sm, r, work):
    """Column 3 and 4 of the table, and whether they are as they must be."""
    import simdriver
    with open(r["ptx"]) as f:
        ptx = f.read()
    has_bf16 = bool(BF16_INSN.search(ptx))
    ok = True
    if has_bf16:
        try:
            drv.load_ptx(ptx)
            raw, ok = "LOADED (the driver must refuse bf16 below sm_80)", False
        except simdriver.CudaError as e:
            first = (ptxas_errors(e.log) or [e.name])[0]
            ok = bool(BF16_REFUSAL.search(e.log))
            raw = f"refused: {first}" if ok else f"refused otherwise: {e.name}: {first}"
    else:
        raw = "no bf16 instructions"
    lowered = os.path.join(work, f"{case.name}.sm_{sm}.lowered.ptx")
    p = subprocess.run([bf16shim, "lower", r["ptx"], "-o", lowered, "--target", f"sm_{sm}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return False, raw, f"bf16shim lower: {(p.stderr or p.stdout).strip()[:200]}"
    with open(lowered) as f:
        low = f.read()
    if BF16_INSN.search(low):
        return False, raw, "bf16 instructions left after lowering"
    if not has_bf16 and low != ptx:
        return False, raw, "lowering changed PTX without bf16"
    try:
        good, text = launch(drv, case, r, low)
    except Exception as e:
        return False, raw, f"FAIL: {e}"[:200]
    return ok and good, raw, text if good else "FAIL: " + text


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "compile":
        compile_all(sys.argv[2])
        return 0
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    bf16shim, simdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="bf16shim-triton-")
    failures = []
    try:
        base = {k: v for k, v in os.environ.items()
                if k not in ("TRITON_PTXAS_PATH", "BF16SHIM_PTXAS", "LD_PRELOAD", "TRITON_CACHE_DIR")}
        stock = run_child(os.path.join(work, "stock"), [],
                          dict(base, TRITON_CACHE_DIR=os.path.join(work, "cache-stock")))
        wrapped = run_child(os.path.join(work, "wrapper"), [bf16shim, "run", "--"],
                            dict(base, TRITON_CACHE_DIR=os.path.join(work, "cache-wrapper")))
        wrapper_path = wrapped["triton_ptxas_path"] or ""
        if os.path.basename(wrapper_path) != "bf16shim-ptxas":
            failures.append(f"bf16shim run set TRITON_PTXAS_PATH to {wrapper_path!r}")
        print(f"Triton {stock['triton']}; its ptxas: CUDA {stock['ptxas_release']} ({stock['ptxas_path']})")
        print(f"with the wrapper: TRITON_PTXAS_PATH={wrapper_path} "
              f"(--version answers CUDA {wrapped['ptxas_release']})")

        import cases
        import simdriver
        os.environ["SIMCUDA_ARCH"] = ",".join(f"sm_{sm}" for sm in TARGETS)
        drv = simdriver.Driver(os.path.join(simdir, "libcuda.so.1"))
        for i, sm in enumerate(TARGETS):
            cc = drv.use_device(i)
            if cc != (sm // 10, sm % 10):
                failures.append(f"simulated device {i} is {cc}, not sm_{sm}")

        rows = [("kernel", "target", "stock ptxas", "with bf16shim-ptxas", "Triton's PTX on the simulator",
                 "lowered PTX on the simulator")]
        by_case = {c.name: c for c in cases.CASES}
        for s, w in zip(stock["results"], wrapped["results"]):
            name, sm = s["case"], s["sm"]
            stock_cell = "ok" if s["ok"] else "; ".join(s["errors"])
            wrap_cell = "ok" if w["ok"] else "FAIL: " + "; ".join(w["errors"])
            raw_cell = low_cell = "-"
            if not w["ok"]:
                why = ("ptxas refused it under the wrapper" if w["by"] == "ptxas"
                       else "Triton failed before any ptxas ran")
                failures.append(f"{name} sm_{sm}: {why}")
            else:
                with open(w["ptx"]) as f:
                    ptx = f.read()
                if s["ok"]:
                    with open(s["ptx"]) as f:
                        if f.read() != ptx:
                            failures.append(f"{name} sm_{sm}: Triton made other PTX with the wrapper")
                if s["ok"] == bool(BF16_INSN.search(ptx)):
                    failures.append(f"{name} sm_{sm}: stock ptxas {'took' if s['ok'] else 'refused'} it, "
                                    f"and the PTX {'has' if s['ok'] else 'has no'} bf16 instructions")
                drv.use_device(TARGETS.index(sm))
                good, raw_cell, low_cell = simulate(drv, bf16shim, by_case[name], sm, w, work)
                if not good:
                    failures.append(f"{name} sm_{sm} on the simulator: {raw_cell}; {low_cell}")
            rows.append((name, f"sm_{sm}", stock_cell, wrap_cell, raw_cell, low_cell))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for r in rows:
            print("  ".join(c.ljust(wd) for c, wd in zip(r, widths)).rstrip())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"run_triton: {len(failures)} failed ({time.time() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
