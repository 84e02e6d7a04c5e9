"""PyTorch's bf16 programs (tests/clients/torch/bf16_programs.py) on a simulated GPU through
the installed bf16shim package, each way a Python user takes:
  1. python -m bf16shim --sim ARCH -- bf16_programs.py
  2. a script whose first line is bf16shim.enable(sim=ARCH, trace=...): its report() must be
     what `bf16shim report --json` makes of the trace of the same run
  3. a notebook on a kernel from `bf16shim kernel install --sim ARCH`
  4. a notebook whose first cell calls bf16shim.enable() on a plain kernel
and EXTRA: "too-late", a notebook that imports torch first, where enable() must raise
TooLate and leave the kernel alive, plus the kernelspec errors; or "spawn", a DataLoader-style
child process (multiprocessing spawn) under enable(), which must compute with the shim.
Each run must pass every case of the programs (their results against fp64) and show GEMMs
rewritten.  Notebooks run headless with nbclient, their kernels in PYTHON.
Usage: torch_ways.py PYTHON PYTHONPATH WORK PROGRAMS CUDA ARCH EXTRA"""
import json
import os
import re
import subprocess
import sys

import nbformat
from nbclient import NotebookClient

python, pythonpath, work, programs, cuda, arch, extra = sys.argv[1:8]
site = pythonpath.split(":")[0]
command = os.path.join(site, "bin", "bf16shim")
report_script = os.path.join(site, "bf16shim", "bin", "bf16shim-report.py")
env = {**os.environ, "PYTHONPATH": pythonpath, "JUPYTER_DATA_DIR": os.path.join(work, "jupyter"),
       "IPYTHONDIR": os.path.join(work, "ipython"), "JUPYTER_PLATFORM_DIRS": "1"}
os.environ.update(env)  # nbclient finds the kernels here, in this process
REWRITTEN = {"fp32", "fp16", "decode", "rewrite"}
failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures += 1
        print("      " + str(detail).replace("\n", "\n      ")[-4000:])


def run(args, **kw):
    done = subprocess.run(args, env=kw.pop("env", env), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, **kw)
    return done.returncode, done.stdout


def rewritten(summary):
    """The decisions of the groups that were rewritten, and whether every call succeeded."""
    return ({g["decision"] for g in summary["groups"] if g["decision"] in REWRITTEN},
            summary["calls"] > 0 and summary["failed"] == 0)


def check_programs(way, rc, out):
    check(f"{way}: every case within its bound", rc == 0 and "\n0 case(s) failed" in out
          and "FAIL" not in out, out)


# 1. python -m bf16shim: the command's run.
rc, out = run([python, "-m", "bf16shim", "--sim", arch, "--cuda", cuda, "--log", "info", "--",
               programs])
check_programs("python -m bf16shim", rc, out)
check("python -m bf16shim: GEMMs rewritten", re.search(r"[1-9][0-9]* GEMMs rewritten", out), out)

# 2. enable() as the script's first line; report() against the trace of the same run.
trace = os.path.join(work, "trace.%p.jsonl")  # the spawned child writes its own
script = os.path.join(work, "enable_first.py")
with open(script, "w") as f:
    f.write(f"""import bf16shim; bf16shim.enable(sim={arch!r}, cuda={cuda}, trace={trace!r})
import json, os, runpy, sys
import torch


def child():
    # A DataLoader worker started with spawn: a fresh Python from the environment enable() set.
    a, b = torch.randn(48, 40).to(torch.bfloat16), torch.randn(40, 24).to(torch.bfloat16)
    got = (a.to("cuda") @ b.to("cuda")).cpu().double()
    ref, terms = a.double() @ b.double(), a.double().abs() @ b.double().abs()
    bound = 42 * 2.0 ** -24 * terms + 2.0 ** -8 * ref.abs() + 2.0 ** -133
    with open("/proc/self/maps") as maps:
        shim = "libbf16shim.so" in maps.read()
    return {{"shim": shim, "within": bool(((got - ref).abs() <= bound).all()),
             "report": dict(bf16shim.report())}}


if __name__ == "__main__":
    rc = runpy.run_path({programs!r})["main"]([])
    print("REPORT " + json.dumps(dict(bf16shim.report())))
    print("PID", os.getpid())
    print(bf16shim.report())
    if {extra == "spawn"!r}:
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            print("CHILD " + json.dumps(pool.apply(child)))
    sys.exit(rc)
""")
rc, out = run([python, script])
check_programs("enable() first", rc, out)
got = json.loads(next((l[7:] for l in out.splitlines() if l.startswith("REPORT ")), "null"))
pid = next((l.split()[1] for l in out.splitlines() if l.startswith("PID ")), "none")
rc_r, want = run([sys.executable, report_script, "--json", trace.replace("%p", pid)])
want = json.loads(want) if rc_r == 0 else None
if got and want:
    want.pop("files")
    got.pop("files", None)  # a process has no trace files
    diff = [(k, got.get(k), want.get(k)) for k in sorted(set(got) | set(want))
            if k != "groups" and got.get(k) != want.get(k)]
    diff += [("group", g, w) for g, w in zip(got["groups"], want["groups"]) if g != w]
    check("enable() first: report() is `bf16shim report` of the run's trace",
          got == want, "\n".join(f"{k}: report() {g}, trace {w}" for k, g, w in diff))
    decisions, clean = rewritten(got)
    check(f"enable() first: GEMMs rewritten ({', '.join(sorted(decisions))}), none failed",
          decisions and clean, got)
else:
    check("enable() first: a report and a trace", False, out)

if extra == "spawn":
    child = json.loads(next((l[6:] for l in out.splitlines() if l.startswith("CHILD ")), "null"))
    check("spawned child: the shim preloaded, its GEMM within bound",
          child and child["shim"] and child["within"], out)
    if child:
        decisions, clean = rewritten(child["report"])
        check("spawned child: its own report, rewritten", decisions and clean, child["report"])


def notebook(kernel, cells, allow_errors=False):
    """Executes the cells on kernel; the text each printed or returned, or an exception."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = NotebookClient(nb, kernel_name=kernel, timeout=600, allow_errors=allow_errors,
                            resources={"metadata": {"path": work}})
    try:
        client.execute(env=env)
    except Exception as e:  # a cell failed: its error is the result
        return e
    texts = []
    for cell in nb.cells:
        text = ""
        for o in cell.outputs:
            if o.output_type == "stream":
                text += o.text
            elif o.output_type in ("execute_result", "display_data"):
                text += o.data.get("text/plain", "") + "\n"
            elif o.output_type == "error":
                text += f"ERROR {o.ename}: {o.evalue}\n"
        texts.append(text)
    return texts


PROGRAM_CELL = f"import runpy\nrc = runpy.run_path({programs!r})['main']([])"
REPORT_CELLS = ["import json, bf16shim\nprint('REPORT ' + json.dumps(dict(bf16shim.report())))",
                "bf16shim.report()"]


def check_notebook(way, texts):
    if isinstance(texts, Exception):
        check(f"{way}: ran", False, texts)
        return
    check_programs(way, 0, "\n" + texts[-3])
    line = next((l for l in texts[-2].splitlines() if l.startswith("REPORT ")), None)
    summary = json.loads(line[7:]) if line else None
    decisions, clean = rewritten(summary) if summary else (set(), False)
    check(f"{way}: report() shows GEMMs rewritten ({', '.join(sorted(decisions))}), none failed",
          decisions and clean, texts[-2])
    check(f"{way}: report() displayed as the table", re.search(
        r"^\s*calls\s+status\s+api", texts[-1], re.M) is not None, texts[-1])


# 3. A kernel from `bf16shim kernel install --sim`.
kernels = os.path.join(work, "jupyter", "kernels")
rc, out = run([command, "kernel", "install", "--user", "--name", "bf16shim-sim", "--sim", arch,
               "--cuda", cuda])
spec_file = os.path.join(kernels, "bf16shim-sim", "kernel.json")
check("kernel install --sim", rc == 0 and os.path.exists(spec_file), out)
if os.path.exists(spec_file):
    spec = json.load(open(spec_file))
    check("kernelspec: this Python, the shim and the simulator preloaded, the tally on",
          spec["argv"][0] == python and spec["env"].get("SIMCUDA_ARCH") == arch and
          re.search(r"libbf16shim\.so:.*libcublas\.so\." + cuda, spec["env"]["LD_PRELOAD"]) and
          spec["env"].get("BF16SHIM_TALLY") == "1", spec)
    check_notebook("notebook on the bf16shim kernel",
                   notebook("bf16shim-sim", [PROGRAM_CELL] + REPORT_CELLS))

# 4. enable() in the first cell of a notebook on a plain kernel.
rc, out = run([python, "-m", "ipykernel", "install", "--user", "--name", "plain"])
check("a plain kernel", rc == 0, out)
ENABLE_CELL = f"import bf16shim\nbf16shim.enable(sim={arch!r}, cuda={cuda})"
check_notebook("notebook, enable() in the first cell",
               notebook("plain", [ENABLE_CELL, PROGRAM_CELL] + REPORT_CELLS))

if extra == "too-late":
    texts = notebook("plain", ["import torch", ENABLE_CELL,
                               "print('kernel alive, enabled:', bf16shim.enabled())"],
                     allow_errors=True)
    ok = not isinstance(texts, Exception) and len(texts) == 3
    check("torch imported first: enable() raises TooLate saying what to do",
          ok and re.search(r"ERROR TooLate: .*before `import torch`.*restart the kernel", texts[1]),
          texts)
    check("torch imported first: the kernel lives on, nothing loaded",
          ok and "kernel alive, enabled: False" in texts[2], texts)
    # The kernelspec's errors.
    blocker = os.path.join(work, "a-file")
    open(blocker, "w").close()
    rc, out = run([command, "kernel", "install", "--user"],
                  env={**env, "JUPYTER_DATA_DIR": os.path.join(blocker, "jupyter")})
    check("kernel install into a folder that cannot be written: exit 2, said",
          rc == 2 and "cannot write the kernelspec" in out, out)
    rc, out = run([command, "kernel", "install", "--user", "--colour", "blue"])
    check("kernel install with an unknown option: exit 2, named", rc == 2 and "colour" in out, out)
    rc, out = run([command, "kernel", "remove", "--name", "bf16shim-sim"])
    check("kernel remove", rc == 0 and not os.path.exists(spec_file), out)
    rc, out = run([command, "kernel", "remove", "--name", "bf16shim-sim"])
    check("kernel remove, no such kernel: exit 1", rc == 1 and "no kernel named" in out, out)

print(f"torch_ways: {failures} failed")
sys.exit(1 if failures else 0)
