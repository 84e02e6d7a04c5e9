"""bf16shim demo: a program that makes PyTorch's bf16 GEMM calls, run without and with
bf16shim on a simulated Pascal card (or this machine's GPU), and what bf16shim did."""
import glob
import os
import re
import subprocess
import sys
import tempfile

from . import options, runenv
from .options import Usage
from .places import Missing


def rule(title):
    print(f"\n-- {title} {'-' * (86 - len(title))}", flush=True)


def parts(cmd, gpu):
    """The demo program, with BF16SHIM_LIB (and without --gpu BF16SHIM_SIMDIR) set to the
    library and simulator it runs with."""
    places = cmd.places
    if places.source():
        # Always brought up to date: the demo shows this checkout as it is.
        places.make()
        build = places.build()
        os.environ["BF16SHIM_LIB"] = os.path.join(build, "src", "libbf16shim.so")
        demo = os.path.join(build, "tools", "bf16shim-demo-gemm")
        if not gpu:
            os.environ["BF16SHIM_SIMDIR"] = os.path.join(build, "tests", "simcuda", "v13")
    else:
        os.environ["BF16SHIM_LIB"] = places.library()
        demo = places.helper("bf16shim-demo-gemm")
        if not demo:
            raise Missing("bf16shim-demo-gemm not installed")
        if not gpu and not os.environ.get("BF16SHIM_SIMDIR"):
            raise Missing("the simulated GPU comes with the source (git clone, then "
                          f"./scripts/bf16shim demo); on a machine with a GPU: {cmd.name} "
                          "demo --gpu")
    if not os.access(demo, os.X_OK):
        raise Missing(f"{demo} was not built")
    return demo


def what_it_did(cmd, tmp):
    traces = sorted(glob.glob(os.path.join(glob.escape(tmp), "trace.*.jsonl")))
    log = os.path.join(tmp, "log")
    if traces and os.path.getsize(traces[0]) > 0:
        print("\n  What bf16shim did (its trace, as bf16shim report shows it):")
        report = cmd.report_module()
        text = report.text_of(report.summarise(traces))
        print("\n".join("    " + line if line else line for line in text.split("\n")))
    elif os.path.exists(log) and os.path.getsize(log) > 0:
        print("\n  What bf16shim did (its log):")
        with open(log, errors="replace") as f:
            for line in f:
                m = re.match(r"bf16shim\[[0-9]*\]: [a-z]*: (.*)", line.rstrip("\n"))
                if m:
                    print("    " + m.group(1))
    else:
        print("\n  What bf16shim did: nothing, every call went straight to cuBLAS")


def main(cmd, args):
    values, rest = options.parse("demo", args, cmd.name)
    if rest:
        raise Usage(f"unknown argument {rest[0]} {cmd.try_help()}")
    gpu, arch = values.get("gpu"), values.get("sim", "sm_61")
    if gpu and "sim" in values:
        raise Usage("--sim or --gpu, not both")
    demo = parts(cmd, gpu)
    places = cmd.places
    where = "on this machine's GPU" if gpu else f"on a simulated {arch} GPU (CPU only, no GPU needed)"
    print(f"bf16shim demo: bf16 matrix multiplications {where},")
    print("called the way PyTorch calls cuBLAS for a bf16 model (cublasGemmEx, "
          "cublasGemmStridedBatchedEx).")
    rule("1. Without bf16shim")
    plain_env = None if gpu else runenv.sim_setup(places, "13", arch, os.environ,
                                                  "demo").environ
    plain = subprocess.run([demo], env=plain_env).returncode
    if plain == 2:
        if gpu:
            raise Missing(f"no usable GPU here (above); '{cmd.name} demo' runs on a simulated one")
        raise Missing("the demo program failed (above)")
    rule("2. With bf16shim:  bf16shim run -- <the same program>")
    with tempfile.TemporaryDirectory() as tmp:
        settings = {"trace": os.path.join(tmp, "trace.%p.jsonl"), "log": "info",
                    "log_file": os.path.join(tmp, "log")}
        if not gpu:
            settings["sim"] = arch
        shim = subprocess.run([demo], env=runenv.run_setup(places, settings, os.environ,
                                                            "demo").environ).returncode
        what_it_did(cmd, tmp)
    rule("Result")
    if shim != 0:
        print(f"With bf16shim the program still failed (exit status {shim}, above): a bug in "
              "bf16shim.")
        print(f"Please report it with the output of: {cmd.name} doctor")
        return 1
    if plain == 1:
        print("""Without bf16shim cuBLAS refused bf16: the same error PyTorch reports on P100, P40, GTX 10xx
and M40 cards, "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling
`cublasGemmEx( handle, ...`".  With bf16shim the same program, unchanged, got correct results.""")
    else:
        print("""Both runs computed correct results.  On Volta and Turing (sm_70, sm_75) cuBLAS runs bf16 on
slow non-tensor-core kernels; bf16shim moves these GEMMs to the fp16 tensor cores.  On
Ampere and newer (sm_80+) bf16 is native and bf16shim passes every call through.""")
    print(f"\nYour own program:  {cmd.prog} run -- python your_script.py   (more: {cmd.prog} "
          "help)")
    return 0
