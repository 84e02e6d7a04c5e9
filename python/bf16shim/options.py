"""The options of the bf16shim command and of the Python ways in: one table, one parser.

Every front end reads this table: the command's subcommands (`run`, `env`, `kernel`, `sim`,
`doctor`, `demo`, `scan`), `python -m bf16shim` (as `run`), `bf16shim.enable()` (its
keywords) and, for a machine without Python, the part of the command's launcher that parses
`run` and `env` (generated from it by launcher.py, checked by tests/command).  A usage error
is raised as Usage with the message the command prints after its subcommand's name."""
import os
import re

# The subcommands that take the run options: the settings of the library and --sim.
RUN = ("run", "env", "kernel install", "enable")


class Usage(Exception):
    """A usage error: the message says what is wrong and the fix (exit status 2)."""


class Kind:
    """What an option's value may be.  pattern: the regex a valid value matches, and sh: the
    same as a shell `case` pattern (None: not checked by the launcher); want: what the error
    says ({flag} and {value} are filled in); value: what the setting gets, and sh_value: the
    same in the launcher's shell, from $2."""

    def __init__(self, pattern=None, sh=None, want=None, value=None, sh_value="$2"):
        self.pattern, self.sh, self.want = pattern, sh, want
        self.value, self.sh_value = value or (lambda v: v), sh_value

    def check(self, flag, value):
        if self.pattern and not re.fullmatch(self.pattern, value):
            raise Usage(self.want.format(flag=flag, value=value))
        return self.value(value)


def choice(*words):
    return Kind("|".join(re.escape(w) for w in words), " | ".join(words),
                "{flag} {value}: want one of " + " ".join(words))


ARCH = r"sm_[0-9]{2,3}(/[^,]+)?"  # a simulated device: sm_75, or sm_75/Product Name


def absolute(path):
    """path from the current folder as the shell names it ($PWD, symbolic links and all)."""
    if path.startswith("/"):
        return path
    pwd = os.environ.get("PWD", "")
    try:
        here = pwd if pwd.startswith("/") and os.path.samefile(pwd, ".") else os.getcwd()
    except OSError:
        here = os.getcwd()
    return here.rstrip("/") + "/" + path


# A file name, made absolute: a child that changes folder writes to the same file.
FILE = Kind(value=absolute, sh_value='$(absolute "$2")')
TEXT = Kind()
FLAG = None  # takes no value
COUNT = Kind("[1-9][0-9]*", None, "{flag} {value}: want a number of 1 or more")
SM = Kind(r"(sm_)?[1-9][0-9]{1,2}", "[1-9][0-9] | [1-9][0-9][0-9] | sm_[1-9][0-9] | "
          "sm_[1-9][0-9][0-9]", "{flag} {value}: want a compute capability like 61 or sm_75",
          lambda v: v[3:] if v.startswith("sm_") else v, "${2#sm_}")
DEVICES = Kind(f"{ARCH}(,{ARCH})*", None, "{flag} '{value}' is not an architecture like sm_61")
ARCHS = Kind(r"sm_[1-9][0-9]{1,2}a?(,sm_[1-9][0-9]{1,2}a?)*", None,
             "{flag} '{value}': want architectures like sm_61 or sm_61,sm_75")


class Option:
    """flag: on the command line (None: a keyword of enable() only); keyword: its name in
    enable() and in parsed values; takes: the subcommands that take it; variable: the
    library's setting it sets, if any; metavar and doc: for `help`; many: it may be given
    more than once, and its parsed value is the list of them, in order."""

    def __init__(self, flag, keyword, kind, takes, variable=None, metavar=None, doc=None,
                 many=False):
        self.flag, self.keyword, self.kind, self.takes = flag, keyword, kind, takes
        self.variable, self.doc, self.many = variable, doc, many
        self.metavar = metavar or (kind.sh.replace(" | ", "|") if kind and kind.sh else None)


OPTIONS = (
    Option("--mode", "mode", choice("auto", "force", "off"), RUN, "BF16SHIM_MODE"),
    Option("--path", "path", choice("auto", "fused", "fp16", "fp32", "native", "decode"), RUN,
           "BF16SHIM_PATH"),
    Option("--emulate-sm", "emulate_sm", SM, RUN, "BF16SHIM_EMULATE_SM", "N"),
    Option("--log", "log", choice("error", "warn", "info", "debug"), RUN, "BF16SHIM_LOG"),
    Option("--log-file", "log_file", FILE, RUN, "BF16SHIM_LOG_FILE", "F"),
    Option("--trace", "trace", FILE, RUN, "BF16SHIM_TRACE", "F (%p: the pid)"),
    Option("--sim", "sim", DEVICES, RUN + ("doctor", "demo"), None, "ARCH",
           "run CMD on the simulated CUDA stack as device ARCH"),
    Option("--cuda", "cuda", choice("12", "13"), RUN + ("sim",), None, None,
           "with --sim: the CUDA major of that stack (default 13)"),
    # Settings without an option: enable()'s keywords.
    Option(None, "workspace_mb", TEXT, ("enable",), "BF16SHIM_WORKSPACE_MB"),
    Option(None, "cublas", TEXT, ("enable",), "BF16SHIM_CUBLAS"),
    Option(None, "cublaslt", TEXT, ("enable",), "BF16SHIM_CUBLASLT"),
    Option(None, "tally", TEXT, ("enable",), "BF16SHIM_TALLY"),
    Option("--user", "user", FLAG, ("kernel install",)),
    Option("--name", "name", TEXT, ("kernel install", "kernel remove"), None, "N"),
    Option("--display-name", "display_name", TEXT, ("kernel install",), None, "D"),
    Option("--gpu", "gpu", FLAG, ("demo",)),
    Option("--arch", "arch", ARCHS, ("scan",), None, "sm_XY[,sm_XY...]"),
    Option("--json", "json", FLAG, ("scan",)),
    Option("--deep", "deep", FLAG, ("scan",)),
    Option("--all", "all", FLAG, ("scan",)),
    # scan --deep: the ptxas that checks what it lowers (each one given is tried; none: no
    # check) and its threads.
    Option("--ptxas", "ptxas", TEXT, ("scan",), None, "PATH|none", many=True),
    Option("--jobs", "jobs", COUNT, ("scan",), None, "N"),
)


def options_of(command):
    return [o for o in OPTIONS if command in o.takes]


def parse(command, args, prog="bf16shim"):
    """The options of command at the head of args: (values by keyword, the arguments after
    them; a "--" that ends them is dropped).  A later option overrides an earlier one, but
    for those that may be given many times (Option.many), whose values are collected."""
    flags = {o.flag: o for o in options_of(command) if o.flag}
    values, args = {}, list(args)
    while args and args[0].startswith("-") and args[0] != "-":
        arg = args.pop(0)
        if arg == "--":
            break
        flag, eq, value = arg.partition("=")
        option = flags.get(flag)
        if option is None:
            raise Usage(f"unknown option {flag} (try '{prog} help')")
        if option.kind is FLAG:
            if eq:
                raise Usage(f"{flag} takes no value")
            values[option.keyword] = True
            continue
        if not eq:
            if not args:
                raise Usage(f"{flag} needs a value")
            value = args.pop(0)
        value = option.kind.check(flag, value)
        if option.many:
            values.setdefault(option.keyword, []).append(value)
        else:
            values[option.keyword] = value
    return values, args


def keywords(command, given):
    """enable()'s keywords (given, a dict; None values left out) as parsed values: TypeError
    for an unknown keyword, Usage for a bad value."""
    known = {o.keyword: o for o in options_of(command)}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise TypeError("unknown bf16shim option(s): " + ", ".join(unknown) +
                        " (known: " + ", ".join(sorted(known)) + ")")
    values = {}
    for key, value in given.items():
        if value is None:
            continue
        option = known[key]
        if isinstance(value, bool):
            value = int(value)
        values[key] = option.kind.check(option.flag or key, str(value))
    return values


def settings(values):
    """The library's variables the values set, in the table's order."""
    return {o.variable: values[o.keyword] for o in OPTIONS
            if o.variable and o.keyword in values}


def variables():
    """Every variable an option can set, in the table's order."""
    return [o.variable for o in OPTIONS if o.variable]


def wrap(indent, words, sep=" ", width=88):
    """The words in lines of at most width columns, each after indent (for help, doctor)."""
    lines, line = [], ""
    for word in words:
        if line and len(indent + line + sep + word) > width:
            lines.append(indent + line)
            line = ""
        line = word if not line else line + sep + word
    if line:
        lines.append(indent + line)
    return lines


def help_lines(command, indent="        "):
    """The options of command as `help` lists them: the settings wrapped into lines, then
    each option that has a description on its own line."""
    def spelled(o):
        return f"{o.flag} {o.metavar}" if o.metavar else o.flag

    takes = [o for o in options_of(command) if o.flag]
    return wrap(indent, [spelled(o) for o in takes if not o.doc], "   ") + \
        [f"{indent}{spelled(o):<25} {o.doc}" for o in takes if o.doc]
