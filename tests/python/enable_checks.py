"""bf16shim.enable() without PyTorch, on the simulated CUDA stack (BF16SHIM_SIMDIR): unknown
keywords and bad values refused before anything is loaded; the library loaded into the
global scope ahead of the simulated CUDA libraries and the environment set for children;
a second call does nothing; report() before any call; and a process that has loaded a CUDA
library gets TooLate, not a silent no-op."""
import ctypes
import os
import subprocess
import sys

import bf16shim

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""))
    failures += not ok


def mapped(pattern):
    with open(f"/proc/{os.getpid()}/maps") as f:
        return sorted({line.split(None, 5)[5].strip() for line in f
                       if pattern in line and len(line.split(None, 5)) == 6})


check("import bf16shim loads nothing", not mapped("libbf16shim") and "LD_PRELOAD" not in os.environ)
try:
    bf16shim.enable(mode="force", colour="blue", turbo=True)
    check("unknown keywords: TypeError", False, "no error")
except TypeError as e:
    check("unknown keywords: TypeError naming them", "colour" in str(e) and "turbo" in str(e), str(e))
try:
    bf16shim.enable(mode="sometimes")
    check("bad value: Error", False, "no error")
except bf16shim.Error as e:
    check("bad value: the command's message", "--mode sometimes: want one of" in str(e), str(e))
check("nothing loaded after refusals", not mapped("libbf16shim") and "LD_PRELOAD" not in os.environ)

bf16shim.enable(sim="sm_61", log="info")
shim = mapped("libbf16shim.so")
check("enable(): the library is loaded", len(shim) == 1, str(shim))
check("enable(): the simulated stack after it", bool(mapped("libcublas.so.13")))
preload = os.environ.get("LD_PRELOAD", "")
check("enable(): LD_PRELOAD for children, the library first",
      preload.split(":")[0] in ("libbf16shim.so", shim[0] if shim else "") and "libcublas.so.13" in preload,
      preload)
check("enable(): BF16SHIM_TALLY and the simulator's variables for children",
      os.environ.get("BF16SHIM_TALLY") == "1" and os.environ.get("SIMCUDA_ARCH") == "sm_61")
check("enable(): Triton's ptxas", os.environ.get("TRITON_PTXAS_PATH", "").endswith("bf16shim-ptxas"))
# Symbols looked up in the global scope now find the library's cublasGemmEx first.
handle = ctypes.CDLL(None)
gemm = ctypes.cast(handle.cublasGemmEx, ctypes.c_void_p).value
check("cublasGemmEx in the global scope is bf16shim's",
      gemm == ctypes.cast(ctypes.CDLL(shim[0], mode=os.RTLD_NOLOAD).cublasGemmEx, ctypes.c_void_p).value)
before = dict(os.environ)
bf16shim.enable(sim="sm_61", log="info")
check("enable() twice: nothing changes", dict(os.environ) == before and mapped("libbf16shim.so") == shim)
r = bf16shim.report()
check("report() before any call: nothing", r["calls"] == 0 and str(r).startswith("0 calls"), str(r))
child = subprocess.run([sys.executable, "-c", "import os; print(os.environ['LD_PRELOAD'])"],
                       stdout=subprocess.PIPE, universal_newlines=True)
check("a child gets the preload", child.stdout.strip() == preload, child.stdout)

# Too late: a process that loaded a CUDA library (here the simulated cuBLAS) first.
late = subprocess.run(
    [sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1]); import bf16shim; "
     "bf16shim.enable()", os.path.join(os.environ["BF16SHIM_SIMDIR"], "libcublas.so.13")],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
    env={k: v for k, v in before.items() if k not in ("LD_PRELOAD",)})
check("too late: TooLate, saying what to do", late.returncode == 1 and
      "bf16shim.TooLate" in late.stdout and "before `import torch`" in late.stdout, late.stdout)
print(f"enable_checks: {failures} failed")
sys.exit(1 if failures else 0)
