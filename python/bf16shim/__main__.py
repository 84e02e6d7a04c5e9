"""python -m bf16shim [run options] [--] script.py args...: the same as `bf16shim run --
python script.py args...`, for people whose scripts folder is not on PATH.  The process
becomes the command, which becomes Python again (same pid, signals, exit status).
Python's own flags go after --: python -m bf16shim --log info -- -m pytest.
Also the entry point of the pip-installed `bf16shim` command (cli)."""
import os
import sys

from . import command


def _exec(args):
    # The command's kernel subcommand works for this Python.
    os.environ["BF16SHIM_PYTHON"] = sys.executable
    try:
        os.execv(command(), [command()] + args)
    except OSError as e:
        sys.exit(f"bf16shim: cannot run {command()}: {e} (reinstall bf16shim)")


def cli():
    """The `bf16shim` command on PATH: the packaged one, with the same arguments."""
    _exec(sys.argv[1:])


def main(argv):
    """Every run option takes one value (--mode auto, or --mode=auto)."""
    options = []
    while argv and argv[0].startswith("-"):
        arg = argv.pop(0)
        if arg == "--":
            break
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        options.append(arg)
        if "=" not in arg and argv:
            options.append(argv.pop(0))
    if not argv:
        print("usage: python -m bf16shim [run options] [--] script.py [args...]", file=sys.stderr)
        return 2
    _exec(["run"] + options + ["--", sys.executable] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
