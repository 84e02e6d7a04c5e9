"""bf16shim for Python: bf16 models on NVIDIA GPUs older than Ampere.

Importing this module does nothing.  Three ways in:

    python -m bf16shim [run options] [--] script.py args...   # as `bf16shim run`
    bf16shim.enable(**options)    # first thing in a notebook or script, before `import torch`
    bf16shim kernel install        # a Jupyter kernel that starts with bf16shim loaded

`bf16shim.report()` shows what was rewritten so far in this process.  The work is done by
the package's `bf16shim` command (bin/bf16shim) and library (lib/libbf16shim.so); this
module finds them and asks the command what to set (`bf16shim env`).
"""
import ctypes
import json
import os
import re
import subprocess
import sys

__all__ = ["enable", "report", "command", "Error", "TooLate"]

_HERE = os.path.dirname(os.path.abspath(__file__))

# Keyword of enable(): the command's option that sets it, or the variable it sets.
_OPTIONS = {
    "mode": ("--mode", None),
    "path": ("--path", None),
    "emulate_sm": ("--emulate-sm", None),
    "log": ("--log", None),
    "log_file": ("--log-file", None),
    "trace": ("--trace", None),
    "sim": ("--sim", None),
    "cuda": ("--cuda", None),
    "workspace_mb": (None, "BF16SHIM_WORKSPACE_MB"),
    "cublas": (None, "BF16SHIM_CUBLAS"),
    "cublaslt": (None, "BF16SHIM_CUBLASLT"),
    "tally": (None, "BF16SHIM_TALLY"),
}

# A CUDA library mapped into the process: cuBLAS calls may already be bound to it.
_CUDA_LIBRARY = re.compile(r"/lib(cuda|cudart|cublas|cublasLt)\.so[.0-9]*$")
_SHIM_LIBRARY = re.compile(r"/libbf16shim\.so$")


class Error(RuntimeError):
    """bf16shim could not do what was asked (the message says why and what to do)."""


class TooLate(Error):
    """enable() was called after a CUDA library was loaded into the process."""


def command():
    """The path of the bf16shim command this package carries."""
    return os.path.join(_HERE, "bin", "bf16shim")


def _run_command(args, env=None):
    """Runs the command; its standard output, or Error with its message."""
    try:
        done = subprocess.run([command()] + list(args), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        raise Error(f"cannot run {command()}: {e} (reinstall bf16shim)") from None
    if done.returncode != 0:
        raise Error(done.stderr.strip() or f"bf16shim {args[0]} failed ({done.returncode})")
    return done.stdout


def _parse_exports(text):
    """{name: value} from `bf16shim env`'s lines: export NAME='value'."""
    import shlex
    out = {}
    for line in text.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            out[name] = value
    return out


def environment(base=None, **options):
    """What `bf16shim env` sets for these options (enable()'s keywords), as a dict of the
    variables it changes in base (default: this process's environment)."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError("unknown bf16shim option(s): " + ", ".join(unknown) +
                        " (known: " + ", ".join(sorted(_OPTIONS)) + ")")
    args, extra = ["env"], {}
    for key, value in options.items():
        if value is None:
            continue
        option, variable = _OPTIONS[key]
        if isinstance(value, bool):
            value = int(value)
        if option:
            args += [option, str(value)]
        else:
            extra[variable] = str(value)
    env = dict(os.environ if base is None else base)
    changes = _parse_exports(_run_command(args, env))
    changes.update(extra)
    return changes


def _mapped():
    """The paths of the files mapped into this process."""
    try:
        with open("/proc/self/maps") as f:
            return {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    except OSError:
        return set()


def _loaded_shim():
    return next((p for p in sorted(_mapped()) if _SHIM_LIBRARY.search(p)), None)


def enabled():
    """Is the library loaded in this process (by enable(), bf16shim run, a kernelspec)?"""
    return _loaded_shim() is not None


def enable(**options):
    """Loads bf16shim into this process, ahead of the CUDA libraries PyTorch loads later.

    Call it before anything loads CUDA (before `import torch`).  Keywords mirror the
    settings: mode, path, emulate_sm, log, log_file, trace, workspace_mb, cublas, cublaslt,
    tally (default True: counts for report()), and sim / cuda (the simulated CUDA stack).
    The environment is set as `bf16shim run` sets it, so child processes (DataLoader
    workers, torchrun, subprocess) and Triton's ptxas get the full preload.  Does nothing
    when the library is already loaded.  Raises TooLate when a CUDA library already is,
    TypeError for unknown keywords, Error when the command refuses a value or the library
    is missing."""
    options.setdefault("tally", True)
    if enabled():
        environment(**options)  # still checks the keywords and values
        return
    late = sorted(p for p in _mapped() if _CUDA_LIBRARY.search(p))
    if late:
        raise TooLate(
            f"bf16shim.enable() comes too late: a CUDA library is already loaded in this "
            f"process ({late[0]}), and its calls are bound to it.  Call bf16shim.enable() "
            f"before anything loads CUDA (before `import torch`); in a notebook, restart the "
            f"kernel and call it in the first cell, or use a kernel from `bf16shim kernel "
            f"install`; for a script, `python -m bf16shim script.py`.")
    before = os.environ.get("LD_PRELOAD", "")
    changes = environment(**options)
    os.environ.update(changes)
    lib = os.environ["BF16SHIM_LIB"]
    # The library first, into the global scope (symbols of libraries loaded later resolve to
    # it), then what --sim preloads, which must come after it to be interposed on.
    old = set(re.split("[: ]", before))
    for entry in [lib] + [e for e in re.split("[: ]", changes.get("LD_PRELOAD", ""))
                          if e and e not in old and not _SHIM_LIBRARY.search("/" + e)]:
        try:
            ctypes.CDLL(entry, mode=os.RTLD_GLOBAL | os.RTLD_NOW)
        except OSError as e:
            raise Error(f"bf16shim.enable(): cannot load {entry}: {e}") from None


class Report(dict):
    """The summary `bf16shim report --json` gives (calls, failed, groups...); shown as the
    table `bf16shim report` prints."""

    def __init__(self, summary, text):
        super().__init__(summary)
        self.text = text

    def __str__(self):
        return self.text

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.text)


def _report_module():
    import importlib.util
    path = os.path.join(_HERE, "bin", "bf16shim-report.py")
    spec = importlib.util.spec_from_file_location("bf16shim_report", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def report():
    """What bf16shim intercepted in this process so far, grouped and counted as `bf16shim
    report` summarises a trace (the library's tally, BF16SHIM_TALLY=1, which enable() and
    bf16shim kernels set).  Returns a Report: a dict, printed as a table."""
    lib = _loaded_shim()
    if lib is None:
        raise Error("bf16shim is not loaded in this process: call bf16shim.enable() first")
    tally = ctypes.CDLL(lib, mode=os.RTLD_NOLOAD).bf16shim_tally
    tally.restype = ctypes.c_long
    tally.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    size = tally(None, 0)
    if size < 0:
        raise Error("bf16shim counts nothing in this process: BF16SHIM_TALLY=1 was not set "
                    "when it started (bf16shim.enable() and bf16shim kernels set it)")
    while True:
        buf = ctypes.create_string_buffer(size + 4096)
        size = tally(buf, len(buf))
        if size < len(buf):
            break
    records = [json.loads(line) for line in buf.value.decode().splitlines() if line]
    module = _report_module()
    summary = module.summarise_records([r for r in records if "api" in r])
    dropped = sum(r.get("dropped", 0) for r in records)
    if dropped:
        summary["dropped"] = dropped
    return Report(summary, module.text_of(summary))
