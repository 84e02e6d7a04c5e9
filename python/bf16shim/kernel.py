"""bf16shim kernel: Jupyter kernelspecs whose kernels start with bf16shim preloaded.

usage: bf16shim kernel install [--user] [--name NAME] [--display-name TEXT] [run options]
       bf16shim kernel remove [--name NAME]

install writes a kernelspec (ipykernel's machinery) that runs the command's Python with the
environment `bf16shim env [run options]` prints (--sim ARCH: on the simulated CUDA stack)
and BF16SHIM_TALLY=1 for bf16shim.report(); into that Python's environment (sys.prefix),
or with --user, the user's Jupyter folder.  NAME defaults to bf16shim.  remove deletes
the kernelspec NAME.  Exit status 0; 1 when remove finds no such kernel; 2 for a usage
error or a kernelspec that cannot be written."""
import importlib.machinery
import os
import sys

from . import options, runenv
from .options import Usage
from .places import Missing

USAGE = __doc__.split("\n\n")[1]


def _needs_ipykernel():
    return Missing(f"needs ipykernel in {sys.executable} (pip install ipykernel)")


def install(cmd, args):
    values, rest = options.parse("kernel install", args, cmd.name)
    if rest:
        raise Usage(f"unexpected argument {rest[0]} {cmd.try_help()}")
    # The kernel's notebooks import bf16shim (report()) as this Python finds packages.
    if importlib.machinery.PathFinder.find_spec("bf16shim", sys.path) is None:
        raise Missing(f"needs the bf16shim Python package in {sys.executable} (pip install "
                      "bf16shim, or pip install . from the source)")
    try:
        from ipykernel.kernelspec import install as ipykernel_install
    except ImportError:
        raise _needs_ipykernel() from None
    # The kernel's LD_PRELOAD and library path are bf16shim's, not this shell's.
    base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    setup = runenv.run_setup(cmd.places, values, base, cmd.sub)
    env = runenv.changes(base, setup.environ)
    env["BF16SHIM_TALLY"] = "1"
    name = values.get("name", "bf16shim")
    sim = values.get("sim")
    display = values.get("display_name") or \
        f"Python {sys.version_info[0]} (bf16shim{', simulated ' + sim if sim else ''})"
    try:
        path = ipykernel_install(user=bool(values.get("user")), kernel_name=name,
                                 display_name=display, prefix=None if values.get("user")
                                 else sys.prefix, env=env)
    except OSError as e:
        raise Missing(f"cannot write the kernelspec {name}: {e}") from None
    print(f"bf16shim kernel: installed {name} ({display}) in {path}")
    return 0


def remove(cmd, args):
    values, rest = options.parse("kernel remove", args, cmd.name)
    if rest:
        raise Usage(f"unexpected argument {rest[0]} {cmd.try_help()}")
    name = values.get("name", "bf16shim")
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:
        raise _needs_ipykernel() from None
    try:
        path = KernelSpecManager().remove_kernel_spec(name)
    except (NoSuchKernel, KeyError):
        print(f"bf16shim kernel: no kernel named {name}", file=sys.stderr)
        return 1
    except OSError as e:
        raise Missing(f"cannot remove the kernelspec {name}: {e}") from None
    print(f"bf16shim kernel: removed {name} from {path}")
    return 0


def main(cmd, args):
    """`bf16shim kernel ARGS`: install, remove or help."""
    if args[:1] in (["install"], ["remove"]):
        cmd.sub = "kernel " + args[0]
        return (install if args[0] == "install" else remove)(cmd, args[1:])
    if args[:1] in (["-h"], ["--help"], ["help"]):
        print(__doc__.strip())
        return 0
    raise Usage("install or remove?\n" + USAGE)
