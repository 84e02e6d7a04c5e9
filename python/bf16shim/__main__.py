"""python -m bf16shim [run options] [--] script.py args...: the same as `bf16shim run --
python script.py args...`, for people whose scripts folder is not on PATH.  The process
becomes Python again, with the library preloaded (same pid, signals, exit status).
Python's own flags go after --: python -m bf16shim --log info -- -m pytest.
Also the entry point of the pip-installed `bf16shim` command (cli)."""
import os
import sys

from . import commands, options, runenv
from .places import Missing


def cli():
    """The `bf16shim` command on PATH: the package's command, in this Python."""
    sys.exit(commands.main(sys.argv[1:], prog=sys.argv[0]))


def main(argv):
    """The run options (the table's), then the script and its arguments."""
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    cmd = commands.Command("bf16shim", commands.Places.of_package())
    cmd.sub = "run"
    try:
        values, rest = options.parse("run", argv, cmd.name)
        if not rest:
            print("usage: python -m bf16shim [run options] [--] script.py [args...]",
                  file=sys.stderr)
            return 2
        setup = runenv.run_setup(cmd.places, values, os.environ, "run")
    except (options.Usage, Missing) as e:
        print(f"{cmd.name}: run: {e}", file=sys.stderr)
        return 2
    return commands.exec_command(cmd, [sys.executable] + rest, setup.environ)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
