"""bf16shim for Python: bf16 models on NVIDIA GPUs older than Ampere.

Importing this module does nothing (and imports little: the command starts with it).  Three
ways in:

    python -m bf16shim [run options] [--] script.py args...   # as `bf16shim run`
    bf16shim.enable(**options)    # first thing in a notebook or script, before `import torch`
    bf16shim kernel install        # a Jupyter kernel that starts with bf16shim loaded

`bf16shim.report()` shows what was rewritten so far in this process.  The command is this
package's too (commands.py); all of them take their options from one table (options.py),
find the library (lib/libbf16shim.so beside the package's bin/, or a source checkout's
build) by one rule (places.py) and set what `bf16shim run` sets (runenv.py).
"""
import os
import re

__all__ = ["enable", "report", "command", "Error", "TooLate"]

# A CUDA library mapped into the process: cuBLAS calls may already be bound to it.
_CUDA_LIBRARY = re.compile(r"/lib(cuda|cudart|cublas|cublasLt)\.so[.0-9]*$")
_SHIM_LIBRARY = re.compile(r"/libbf16shim\.so$")


class Error(RuntimeError):
    """bf16shim could not do what was asked (the message says why and what to do)."""


class TooLate(Error):
    """enable() was called after a CUDA library was loaded into the process."""


def command():
    """The path of the bf16shim command this package carries."""
    from .places import Places
    return Places.of_package().command()


def _setup(base, options):
    """What enable() sets for its keywords, from the environment base: runenv.Setup."""
    from . import options as table, runenv
    from .places import Missing, Places
    try:
        values = table.keywords("enable", options)
        return runenv.run_setup(Places.of_package(base), values, base, "enable()")
    except (table.Usage, Missing) as e:
        raise Error(f"enable(): {e}") from None


def environment(base=None, **options):
    """What `bf16shim env` sets for these options (enable()'s keywords), as a dict of the
    variables it changes in base (default: this process's environment)."""
    from . import runenv
    base = dict(os.environ if base is None else base)
    return runenv.changes(base, _setup(base, options).environ)


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
    when the library is already loaded.  Raises TypeError for unknown keywords, Error when
    a value is refused or the library is missing, TooLate when a CUDA library is loaded."""
    options.setdefault("tally", True)
    base = dict(os.environ)
    setup = _setup(base, options)  # checks the keywords and values, even when loaded
    if enabled():
        return
    late = sorted(p for p in _mapped() if _CUDA_LIBRARY.search(p))
    if late:
        raise TooLate(
            f"bf16shim.enable() comes too late: a CUDA library is already loaded in this "
            f"process ({late[0]}), and its calls are bound to it.  Call bf16shim.enable() "
            f"before anything loads CUDA (before `import torch`); in a notebook, restart the "
            f"kernel and call it in the first cell, or use a kernel from `bf16shim kernel "
            f"install`; for a script, `python -m bf16shim script.py`.")
    from . import runenv
    os.environ.update(runenv.changes(base, setup.environ))
    import ctypes
    # The library first, into the global scope (symbols of libraries loaded later resolve to
    # it), then what --sim preloads, which must come after it to be interposed on.  By path:
    # ld.so read LD_PRELOAD and LD_LIBRARY_PATH when the process started.
    for path in setup.files:
        try:
            ctypes.CDLL(path, mode=os.RTLD_GLOBAL | os.RTLD_NOW)
        except OSError as e:
            raise Error(f"bf16shim.enable(): cannot load {path}: {e}") from None


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
    from .commands import Command
    from .places import Places
    return Command("bf16shim", Places.of_package()).report_module()


def report():
    """What bf16shim intercepted in this process so far, grouped and counted as `bf16shim
    report` summarises a trace (the library's tally, BF16SHIM_TALLY=1, which enable() and
    bf16shim kernels set).  Returns a Report: a dict, printed as a table."""
    lib = _loaded_shim()
    if lib is None:
        raise Error("bf16shim is not loaded in this process: call bf16shim.enable() first")
    import ctypes
    import json
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
