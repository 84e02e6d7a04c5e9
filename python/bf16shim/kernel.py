"""bf16shim kernel: Jupyter kernelspecs whose kernels start with bf16shim preloaded.

usage: bf16shim kernel install [--user] [--name NAME] [--display-name TEXT] [run options]
       bf16shim kernel remove [--name NAME]

install writes a kernelspec (ipykernel's machinery) that runs this Python with the
environment `bf16shim env [run options]` prints (--sim ARCH: on the simulated CUDA stack)
and BF16SHIM_TALLY=1 for bf16shim.report(); into this Python's environment (sys.prefix),
or with --user, the user's Jupyter folder.  NAME defaults to bf16shim.  remove deletes
the kernelspec NAME.  Exit status 0; 1 when remove finds no such kernel; 2 for a usage
error or a kernelspec that cannot be written."""
import os
import sys

from . import Error, environment

USAGE = __doc__.split("\n\n")[1]


def fail(message):
    print(f"bf16shim kernel: {message}", file=sys.stderr)
    return 2


def install(args):
    user, name, display, options = False, "bf16shim", None, []
    while args:
        arg = args.pop(0)
        if arg == "--user":
            user = True
        elif arg in ("--name", "--display-name") and args:
            value = args.pop(0)
            if arg == "--name":
                name = value
            else:
                display = value
        elif arg.startswith("--name="):
            name = arg.split("=", 1)[1]
        elif arg.startswith("--display-name="):
            display = arg.split("=", 1)[1]
        elif arg.startswith("--") and ("=" in arg or args):
            options += [arg] if "=" in arg else [arg, args.pop(0)]
        else:
            return fail(f"install: unexpected argument {arg}\n{USAGE}")
    try:
        from ipykernel.kernelspec import install as ipykernel_install
    except ImportError:
        return fail(f"needs ipykernel in {sys.executable} (pip install ipykernel)")
    # The kernel's LD_PRELOAD and library path are bf16shim's, not this shell's.
    base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    try:
        env = environment(base, **dict(_keywords(options)))
    except (Error, TypeError) as e:
        return fail(f"install: {e}")
    env["BF16SHIM_TALLY"] = "1"
    if display is None:
        sim = env.get("SIMCUDA_ARCH")
        display = f"Python {sys.version_info[0]} (bf16shim{', simulated ' + sim if sim else ''})"
    try:
        path = ipykernel_install(user=user, kernel_name=name, display_name=display,
                                 prefix=None if user else sys.prefix, env=env)
    except OSError as e:
        return fail(f"cannot write the kernelspec {name}: {e}")
    print(f"bf16shim kernel: installed {name} ({display}) in {path}")
    return 0


def _keywords(options):
    """Run options (--sim sm_75, --log=info) as environment()'s keywords."""
    while options:
        arg = options.pop(0)
        key, _, value = arg[2:].partition("=")
        if not _:
            value = options.pop(0)
        yield key.replace("-", "_"), value


def remove(args):
    name = "bf16shim"
    if args[:1] == ["--name"] and len(args) == 2:
        name = args[1]
    elif len(args) == 1 and args[0].startswith("--name="):
        name = args[0].split("=", 1)[1]
    elif args:
        return fail(f"remove: unexpected argument {args[0]}\n{USAGE}")
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:
        return fail(f"needs ipykernel in {sys.executable} (pip install ipykernel)")
    try:
        path = KernelSpecManager().remove_kernel_spec(name)
    except (NoSuchKernel, KeyError):
        print(f"bf16shim kernel: no kernel named {name}", file=sys.stderr)
        return 1
    except OSError as e:
        return fail(f"cannot remove the kernelspec {name}: {e}")
    print(f"bf16shim kernel: removed {name} from {path}")
    return 0


def main(argv):
    if argv[:1] == ["install"]:
        return install(argv[1:])
    if argv[:1] == ["remove"]:
        return remove(argv[1:])
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(__doc__.strip())
        return 0
    return fail(USAGE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
