"""The bf16shim command: one function per subcommand (cmd_<name>), reached through COMMANDS at
the bottom.  Its options are the table's (options.py), the parts it runs are found by one rule
(places.py) and what `run` sets is computed once (runenv.py).  Started by the launcher
(scripts/bf16shim, installed as bin/bf16shim), by the `bf16shim` that pip puts on PATH, and
by `python -m bf16shim`.  Documented in doc/bf16shim.1.  Usage errors and missing parts: one
line naming the subcommand and the fix, exit status 2."""
import errno
import os
import re
import signal
import sys

# Every `run` starts the command: what only doctor and scan need is imported by them.
from . import options, runenv
from .options import Usage
from .places import Missing, Places


class Command:
    """One run of the command: prog, as it was invoked; name, its last part (for messages);
    places, where its parts are; sub, the subcommand that messages name."""

    def __init__(self, prog, places):
        self.prog, self.places = prog, places
        self.name = os.path.basename(prog) or "bf16shim"
        self.sub = None

    def try_help(self):
        return f"(try '{self.name} help')"

    def report_module(self):
        """bf16shim-report.py, beside the command (bin/, a checkout's scripts/)."""
        import importlib.util
        path = os.path.join(self.places.here, "bf16shim-report.py")
        spec = importlib.util.spec_from_file_location("bf16shim_report", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def exec_command(cmd, argv, environ):
    """Becomes argv[0] (searched on PATH) with environ; 127 when it cannot be run."""
    sys.stdout.flush()
    sys.stderr.flush()
    # Python ignores these two for itself; the program gets them as a shell would give them.
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, environ)
    except OSError as e:
        if e.errno == errno.ENOEXEC and os.path.isfile(argv[0]):
            # A script without #!: a shell runs it, as a shell's exec would.
            try:
                os.execve("/bin/sh", ["/bin/sh"] + argv, environ)
            except OSError:
                pass
    print(f"{cmd.name}: {cmd.sub}: cannot run {argv[0]}", file=sys.stderr)
    return 127


def cmd_run(cmd, args):
    values, rest = options.parse("run", args, cmd.name)
    if not rest:
        raise Usage(f"missing the command to run {cmd.try_help()}")
    setup = runenv.run_setup(cmd.places, values, os.environ, "run")
    return exec_command(cmd, rest, setup.environ)


def cmd_env(cmd, args):
    values, rest = options.parse("env", args, cmd.name)
    if rest:
        raise Usage(f"takes options only, not {rest[0]} {cmd.try_help()}")
    setup = runenv.run_setup(cmd.places, values, os.environ, "env")
    # What changed, for `eval "$(bf16shim env)"`, batch scripts, containers.
    for name, value in runenv.changes(os.environ, setup.environ).items():
        print(f"export {name}={runenv.quoted(value)}")
    return 0


def cmd_sim(cmd, args):
    values, rest = options.parse("sim", args, cmd.name)
    if not rest:
        raise Usage(f"missing ARCH {cmd.try_help()}")
    arch = rest.pop(0)
    if not re.fullmatch(options.DEVICES.pattern, arch):
        raise Usage(f"'{arch}' is not an architecture like sm_61 or sm_75/NAME")
    if rest[:1] == ["--"]:
        rest.pop(0)
    if not rest:
        raise Usage("missing the command to run")
    setup = runenv.sim_setup(cmd.places, values.get("cuda", "13"), arch, os.environ, "sim")
    return exec_command(cmd, rest, setup.environ)


def cmd_kernel(cmd, args):
    from . import kernel
    return kernel.main(cmd, args)


def no_arguments(cmd, rest):
    if rest:
        raise Usage(f"unknown argument {rest[0]} {cmd.try_help()}")


def cmd_doctor(cmd, args):
    from . import doctor, facts as factlib
    values, rest = options.parse("doctor", args, cmd.name)
    no_arguments(cmd, rest)
    places = cmd.places
    probe = places.helper("bf16shim-probe")
    if not probe:
        raise Missing("bf16shim-probe not found: build it (./scripts/test --build-only) or "
                      "install bf16shim")
    try:
        shimlib = places.library()
    except Missing:
        shimlib = "not found (build it: ./scripts/test --build-only)"
    lower = places.helper("bf16shim-lower") is not None
    sim = values.get("sim")
    environ = runenv.sim_setup(places, "13", sim, os.environ, "doctor").environ if sim else None
    facts = factlib.probe(probe, environ)
    if facts is None:
        raise Missing(f"{probe} failed")
    version = f"bf16shim {places.version()}"
    print(f"{version} doctor, on the simulated CUDA stack as {sim}\n" if sim else
          f"{version} doctor\n")
    table = doctor.capabilities(os.path.join(places.here, "bf16shim-capabilities"))
    lines, status = doctor.report(facts, table, shimlib, lower, bool(sim))
    print("\n".join(lines))
    if status == 0:
        pointer = doctor.scan_pointer(facts, places.helper("bf16shim-scan"))
        if pointer:
            print(pointer)
    return status


def cmd_scan(cmd, args):
    from . import facts as factlib
    values, paths = options.parse("scan", args, cmd.name)
    places = cmd.places
    scanner = places.helper("bf16shim-scan")
    if not scanner:
        raise Missing("bf16shim-scan not found: build it (./scripts/test --build-only) or "
                      "install bf16shim")
    archs, facts = values.get("arch"), None
    if not archs or not paths:
        probe = places.helper("bf16shim-probe")
        facts = factlib.probe(probe) if probe else None
    if not paths:
        paths = factlib.python_sites() + (facts.library_paths() if facts else [])
        if not paths:
            raise Usage("no Python and no CUDA library found: name the folders to scan")
    labels = []
    if not archs:
        archs = facts.archs() if facts else ""
        if not archs:
            raise Usage("no GPU found here: name the architectures to judge for with --arch "
                        "(e.g. --arch sm_61,sm_75)")
        # Each GPU's name beside its architecture in the report.
        for d, dev in facts.devices:
            labels = ["--label", f"sm_{dev['sm']}=GPU {d}, {dev['name']}"] + labels
    flags = [f"--{k}" for k in ("json", "deep", "all") if values.get(k)]
    for ptxas in values.get("ptxas", []):
        flags += ["--ptxas", options.absolute(ptxas) if ptxas != "none" else ptxas]
    if values.get("jobs"):
        flags += ["--jobs", values["jobs"]]
    if values.get("deep"):
        # The ptxas Triton bundles with this Python (the one it would run): one more
        # candidate for checking what --deep lowers.
        for site in factlib.python_sites():
            candidate = os.path.join(site, "triton", "backends", "nvidia", "bin", "ptxas")
            if os.access(candidate, os.X_OK):
                flags += ["--ptxas-candidate", candidate]
    return exec_command(cmd, [scanner, "--arch", archs] + flags + labels + ["--"] + paths,
                        os.environ)


def cmd_report(cmd, args):
    return cmd.report_module().main(args)


def cmd_lower(cmd, args):
    lower = cmd.places.helper("bf16shim-lower")
    if not lower:
        raise Missing("bf16shim-lower is not built or installed")
    return exec_command(cmd, [lower] + args, os.environ)


def cmd_ptxas(cmd, args):
    wrapper = cmd.places.helper("bf16shim-ptxas")
    if not wrapper:
        raise Missing("bf16shim-ptxas is not installed")
    environ = dict(os.environ)
    lower = environ.get("BF16SHIM_LOWER") or cmd.places.helper("bf16shim-lower")
    if lower:
        environ["BF16SHIM_LOWER"] = lower
    return exec_command(cmd, [wrapper] + args, environ)


def cmd_demo(cmd, args):
    from . import demo
    return demo.main(cmd, args)


def cmd_version(cmd, args):
    print(f"bf16shim {cmd.places.version()}")
    return 0


def cmd_help(cmd, args):
    print(help_text(cmd))
    return 0


def help_text(cmd):
    prog, run_options = cmd.name, "\n".join(options.help_lines("run"))
    return f"""usage: {prog} COMMAND [ARGS...]

commands:
  run [OPTIONS] [--] CMD [ARGS...]
        run CMD with libbf16shim.so preloaded (children inherit it) and Triton's ptxas
        pointed at bf16shim-ptxas; exit status: CMD's.
{run_options}
  env [RUN OPTIONS]
        print, as export lines, what run would set for its command (for eval, batch
        scripts, containers): only the variables it changes.
  kernel install [--user] [--name N] [--display-name D] [RUN OPTIONS] | kernel remove [--name N]
        a Jupyter kernel (a kernelspec, ipykernel's) whose Python starts with bf16shim
        preloaded: needs the bf16shim Python package (pip install) and ipykernel.
  doctor [--sim ARCH]
        the GPUs, driver and CUDA libraries found, and which bf16-era features work on
        each GPU: natively, through bf16shim, or not at all (with the fix).
  report [--json] FILE...
        summarise call traces (BF16SHIM_TRACE files): calls grouped by api, types,
        decision and status, failures first, with their shapes.
  demo [--sim ARCH | --gpu]
        build if needed, then run a bf16 GEMM program as PyTorch calls cuBLAS, without and
        with bf16shim, on a simulated Pascal card (default sm_61) or on this machine's GPU.
  lower IN.ptx [-o OUT] [--target sm_XX] [--partial | --leave-out] [-v]
        rewrite the instructions of a PTX file that the target lacks (bf16, Ampere and
        Hopper ones) into ones it has (default target sm_75); exit 1 naming what cannot be
        lowered (--leave-out: leave those kernels out, as the library does).
  lower IN.ptx --needed [--target sm_XX]
        exit 0 when the file needs lowering for the target (the library's decision).
  lower FILE [-o FOLDER] [--target sm_XX] [-v]
        the same for the PTX of compiled code (a fatbin, a cubin, a .so or executable), as
        the library lowers it when a module has nothing else for the GPU: writes each
        module's lowered PTX into FOLDER; exit 1 naming each kernel that cannot run.
  ptxas ARGS...
        a drop-in ptxas: input that needs lowering for the target (the library's decision)
        is lowered first, then the real ptxas runs (BF16SHIM_PTXAS; run by Triton,
        Triton's own; else $CUDA_HOME/bin/ptxas, PATH).
  sim [--cuda 12|13] ARCH [--] CMD [ARGS...]
        run CMD on the simulated CUDA stack (tests/simcuda) as device ARCH, e.g. sm_61,
        sm_75, "sm_75/NVIDIA GeForce GTX 1660" or a comma-separated list of devices.
        The simulator is $BF16SHIM_SIMDIR, else the one of the source checkout's build
        (see BF16SHIM_BUILD); its libraries are preloaded too (DT_RPATH cannot bypass them).
        Exit status: CMD's (127 when it cannot be run).
  scan [--arch sm_XY[,...]] [--json] [--deep] [--ptxas PATH|none]... [--jobs N] [--all]
       [PATH...]
        which compiled GPU code (shared objects, cubins, fatbins, PTX) under PATH runs on
        each GPU: natively, through the driver's JIT, through bf16shim, or not (why, and the
        fix).  Default: the GPUs doctor sees, and the current Python's site-packages and
        CUDA libraries.  --deep lowers what bf16shim would lower, on N threads (default: one
        per processor) and through its cache of lowered modules, and checks what it lowers
        with ptxas (--ptxas; else BF16SHIM_PTXAS, $CUDA_HOME/bin's, PATH's, Triton's).
        Exit status 1 when some code cannot run.
  version
        print the version.
  help  this text.

examples:
  {prog} run -- python train.py
  {prog} run --trace /tmp/gemms.%p.jsonl -- python train.py
  {prog} report /tmp/gemms.*.jsonl
  {prog} sim sm_61 -- ./my_cuda_program

environment: BF16SHIM_LIB (the library 'run' preloads), BF16SHIM_SIMDIR (simulator folder),
BF16SHIM_PYTHON (the Python that runs the command, and whose kernel 'kernel' installs),
BF16SHIM_BUILD (the build folder of a source checkout, default: the build* folder whose
library was built last, else {cmd.places.root}/build).  The library's own settings
(BF16SHIM_MODE, _PATH, _LOG, _TRACE...): see bf16shim(1)."""


COMMANDS = {
    "help": cmd_help,
    "version": cmd_version,
    "run": cmd_run,
    "env": cmd_env,
    "kernel": cmd_kernel,
    "doctor": cmd_doctor,
    "report": cmd_report,
    "demo": cmd_demo,
    "sim": cmd_sim,
    "lower": cmd_lower,
    "ptxas": cmd_ptxas,
    "scan": cmd_scan,
}
ALIASES = {"-h": "help", "--help": "help", "--version": "version"}


def main(args, prog="bf16shim", here=None):
    """Runs the command (args: after its name) and returns its exit status, or becomes the
    program that run, sim, lower, ptxas and scan start.  here: the command's folder (the
    launcher's); by default the package's (the wheel's bin/, a checkout's scripts/)."""
    # Output into a closed pipe ends the command quietly, as it ends a shell's.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cmd = Command(prog, Places(here) if here else Places.of_package())
    if not args:
        print(help_text(cmd), file=sys.stderr)
        return 2
    name = ALIASES.get(args[0], args[0])
    function = COMMANDS.get(name)
    if function is None:
        print(f"{cmd.name}: unknown command '{args[0]}' {cmd.try_help()}", file=sys.stderr)
        return 2
    cmd.sub = name
    try:
        return function(cmd, list(args[1:]))
    except (Usage, Missing) as e:
        print(f"{cmd.name}: {cmd.sub}: {e}", file=sys.stderr)
        return 2
